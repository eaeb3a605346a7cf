package gaussian_test

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

// contractFixture returns a fitted model on a random binary tree of 14
// observed variables and the moments of its 600 rows (fixed seeds).
func contractFixture(t *testing.T) (*gaussian.Model, *data.Dataset, *gaussian.Moments) {
	t.Helper()
	rng := rand.New(rand.NewPCG(25, 7))
	tr, err := simulate.RandomBinary(rng, 14, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	g, err := simulate.Gaussian(rng, tr, simulate.GaussianOptions{RandomSign: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := g.Sample(rng, 600)
	if err != nil {
		t.Fatal(err)
	}
	m, err := gaussian.MomentsOf(d)
	if err != nil {
		t.Fatal(err)
	}
	fit, _, err := gaussian.FitMoments(tr, m, gaussian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return fit, d, m
}

// FitMoments fits the same model as Fit on the rows, and LogLikMoments is
// the rows' log-likelihood.
func TestFitMomentsSameAsRows(t *testing.T) {
	g, d, m := contractFixture(t)
	h, res, err := gaussian.Fit(g.Tree, d, gaussian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, want, err := h.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.LogLikMoments(m)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > 1e-9*math.Abs(want) || math.Abs(res.LogLik-want) > 1e-9*math.Abs(want) {
		t.Fatalf("log-likelihood from moments %.10g, EM's %.10g, from rows %.10g", got, res.LogLik, want)
	}
	_, gl, err := g.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(gl-want) > 1e-6*math.Abs(want) {
		t.Fatalf("FitMoments reached %.10g, Fit %.10g", gl, want)
	}
	bad := *m
	bad.Names = append([]string{"other"}, m.Names[1:]...)
	if _, _, err := gaussian.FitMoments(g.Tree, &bad, gaussian.Options{}); err == nil {
		t.Fatal("moments of other columns were accepted")
	}
	cols := make([][]float64, d.NumVars())
	for j := range cols {
		cols[j] = append([]float64(nil), d.Continuous(j)...)
	}
	cols[3][5] = math.NaN()
	d2, err := data.FromContinuous(d.Names(), cols)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gaussian.MomentsOf(d2); err == nil {
		t.Fatal("a missing cell was accepted")
	}
}

// Every contraction the Contractor scores has the exact log-likelihood of
// the model it returns, and its Change is at most the change from the
// model (the uncontracted neighbourhood refitted scores at least the
// model), equal without refits; the local fit never lowers it below the start at the
// model's path correlations; and the fitted correlations of the merged
// node are a local maximum with the rest of the model held (moving any
// one by ±0.002 does not raise the log-likelihood by more than 10⁻⁴ nat:
// at |ρ| near 1 the fit's coordinate atanh ρ is flat, and it may stop a
// few 10⁻⁵ nat short there).
func TestContractorExact(t *testing.T) {
	g, _, m := contractFixture(t)
	c, err := g.Contractor(m)
	if err != nil {
		t.Fatal(err)
	}
	want, err := g.LogLikMoments(m)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.LogLik-want) > 1e-9*math.Abs(want) {
		t.Fatalf("contractor's log-likelihood %.10g, model's %.10g", c.LogLik, want)
	}
	tr := g.Tree
	n := 0
	for _, e := range tr.Edges() {
		for _, kd := range [][2]int{{e.U, e.V}, {e.V, e.U}} {
			keep, drop := kd[0], kd[1]
			if !tr.IsHidden(drop) {
				continue
			}
			ct := tr.Clone()
			if err := ct.Contract(keep, drop); err != nil {
				t.Fatal(err)
			}
			c0, err := c.Contract(ct, keep, drop, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			c1, err := c.Contract(ct, keep, drop, 500, 1e-10)
			if err != nil {
				t.Fatal(err)
			}
			m0, ll0, m1, ll1 := c0.Model, c0.LogLik, c1.Model, c1.LogLik
			if c1.Change > ll1-c.LogLik+1e-9 {
				t.Fatalf("%d into %d: change %g from the refitted uncontracted tree, %g from the model", drop, keep, c1.Change, ll1-c.LogLik)
			}
			if math.Abs(c0.Change-(ll0-c.LogLik)) > 1e-12*math.Abs(ll0) {
				t.Fatalf("%d into %d: without refits the change is %g, not %g", drop, keep, c0.Change, ll0-c.LogLik)
			}
			for _, x := range []struct {
				m  *gaussian.Model
				ll float64
			}{{m0, ll0}, {m1, ll1}} {
				exact, err := x.m.LogLikMoments(m)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(exact-x.ll) > 1e-8*math.Abs(exact) {
					t.Fatalf("%d into %d: local log-likelihood %.10g, exact %.10g", drop, keep, x.ll, exact)
				}
			}
			if ll1 < ll0-1e-8*math.Abs(ll0) {
				t.Fatalf("%d into %d: the local fit lowered the log-likelihood from %.10g to %.10g", drop, keep, ll0, ll1)
			}
			r := m1.Rooted()
			for _, v := range ct.Nodes() {
				p := r.Parent[v]
				if p < 0 || v != keep && p != keep {
					continue
				}
				for _, step := range []float64{-0.002, 0.002} {
					h := *m1
					h.Rho = append([]float64(nil), m1.Rho...)
					h.Rho[v] = max(-0.999, min(0.999, h.Rho[v]+step))
					ll, err := h.LogLikMoments(m)
					if err != nil {
						t.Fatal(err)
					}
					if ll > ll1+1e-4 {
						t.Fatalf("%d into %d: moving the edge to %d by %g raises the log-likelihood from %.10g to %.10g", drop, keep, v, step, ll1, ll)
					}
				}
			}
			n++
		}
	}
	if n < 10 {
		t.Fatalf("only %d contractions checked", n)
	}
}

// WithLocal puts two contractions far apart together: the result has the
// first's correlations at its merged node and the second's at its own.
func TestContractorWithLocal(t *testing.T) {
	g, _, m := contractFixture(t)
	c, err := g.Contractor(m)
	if err != nil {
		t.Fatal(err)
	}
	tr := g.Tree
	var pairs [][2]int
	for _, e := range tr.Edges() {
		if tr.IsHidden(e.V) {
			pairs = append(pairs, [2]int{e.U, e.V})
		}
	}
	near := func(a, b [2]int) bool {
		for _, x := range a {
			for _, y := range b {
				if x == y || tr.HasEdge(x, y) {
					return true
				}
				for _, z := range tr.Neighbors(x) {
					if tr.HasEdge(z, y) {
						return true
					}
				}
			}
		}
		return false
	}
	var a, b [2]int
	found := false
	for i := range pairs {
		for j := i + 1; j < len(pairs) && !found; j++ {
			if !near(pairs[i], pairs[j]) {
				a, b, found = pairs[i], pairs[j], true
			}
		}
	}
	if !found {
		t.Fatal("no two contractions far apart")
	}
	one := func(base *tree.Tree, kd [2]int) *tree.Tree {
		ct := base.Clone()
		if err := ct.Contract(kd[0], kd[1]); err != nil {
			t.Fatal(err)
		}
		return ct
	}
	ca, err := c.Contract(one(tr, a), a[0], a[1], 100, 1e-10)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := c.Contract(one(tr, b), b[0], b[1], 100, 1e-10)
	if err != nil {
		t.Fatal(err)
	}
	ma, mb := ca.Model, cb.Model
	both := one(ma.Tree, b)
	mab, err := ma.WithLocal(both, mb)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		from *gaussian.Model
		keep int
	}{{ma, a[0]}, {mb, b[0]}} {
		for _, w := range both.Neighbors(x.keep) {
			if got, want := mab.Corr(x.keep, w), x.from.Corr(x.keep, w); math.Abs(got-want) > 1e-12 {
				t.Fatalf("edge %d–%d: correlation %g, the local fit's %g", x.keep, w, got, want)
			}
		}
	}
	if _, err := g.WithLocal(both, g); err == nil {
		t.Fatal("a model without a local fit was accepted")
	}
	// WithContractions puts both in at once: the same model as one
	// after the other, when the first is put in as a built model, at
	// the root WithContraction would have chosen.
	cb2, err := c.Score(nil, b[0], b[1], 100, 1e-10)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := ma.WithContraction(both, cb2)
	if err != nil {
		t.Fatal(err)
	}
	for _, root := range []int{ma.Root, seq.Root} {
		all, err := ma.WithContractions(both, root, cb2)
		if err != nil {
			t.Fatal(err)
		}
		if root == seq.Root && (!reflect.DeepEqual(all.Rho, seq.Rho) || !reflect.DeepEqual(all.Var, seq.Var) || !reflect.DeepEqual(all.Mean, seq.Mean)) {
			t.Fatal("WithContractions differs from WithContraction")
		}
	}
	// And from g, both contractions scored by g's contractor.
	ca2, err := c.Score(nil, a[0], a[1], 100, 1e-10)
	if err != nil {
		t.Fatal(err)
	}
	ta := one(tr, a)
	one1, err := g.WithContraction(ta, ca2)
	if err != nil {
		t.Fatal(err)
	}
	tab := one(ta, b)
	two, err := one1.WithContraction(tab, cb2)
	if err != nil {
		t.Fatal(err)
	}
	all, err := g.WithContractions(tab, two.Root, ca2, cb2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(all.Rho, two.Rho) || !reflect.DeepEqual(all.Var, two.Var) || all.Root != two.Root {
		t.Fatal("WithContractions of two differs from WithContraction twice")
	}
	if _, err := g.WithContractions(tab, two.Root); err == nil {
		t.Fatal("no contraction was accepted")
	}
}

// A contraction scored without its tree (Score with nil) is the one
// scored with it: the same numbers, and its model, built on a copy of the
// tree (Build) or on the tree given (BuildOn), is the same;
// WithContraction puts it into the model as WithLocal puts the built
// one. The contractor of the contracted model made after the first
// (ContractorAfter) is the one Contractor makes.
func TestContractorWithoutTree(t *testing.T) {
	g, _, m := contractFixture(t)
	c, err := g.Contractor(m)
	if err != nil {
		t.Fatal(err)
	}
	tr := g.Tree
	n := 0
	for _, e := range tr.Edges() {
		keep, drop := e.U, e.V
		if !tr.IsHidden(drop) {
			continue
		}
		ct := tr.Clone()
		if err := ct.Contract(keep, drop); err != nil {
			t.Fatal(err)
		}
		with, err := c.Contract(ct, keep, drop, 50, 1e-4)
		if err != nil {
			t.Fatal(err)
		}
		without, err := c.Score(nil, keep, drop, 50, 1e-4)
		if err != nil {
			t.Fatal(err)
		}
		if with.LogLik != without.LogLik || with.Change != without.Change {
			t.Fatalf("%d into %d: with the tree %v %v, without %v %v", drop, keep, with.LogLik, with.Change, without.LogLik, without.Change)
		}
		other, err := c.Score(nil, keep, drop, 50, 1e-4)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.BuildOn(tr); err == nil {
			t.Fatalf("%d into %d: BuildOn took the uncontracted tree", drop, keep)
		}
		built, err := without.Build()
		if err != nil {
			t.Fatal(err)
		}
		on, err := other.BuildOn(ct)
		if err != nil {
			t.Fatal(err)
		}
		put, err := g.WithContraction(ct, other)
		if err != nil {
			t.Fatal(err)
		}
		if on.Tree != ct || built.Tree == ct || built.Tree.Newick() != ct.Newick() {
			t.Fatalf("%d into %d: trees %v, %v, want %v", drop, keep, built.Tree, on.Tree, ct)
		}
		for _, x := range []*gaussian.Model{built, on, put} {
			if !reflect.DeepEqual(x.Rho, with.Model.Rho) || !reflect.DeepEqual(x.Var, with.Model.Var) || x.Root != with.Model.Root {
				t.Fatalf("%d into %d: models differ", drop, keep)
			}
		}
		// The contractor of the contracted model, made after c.
		after, err := on.ContractorAfter(m, c)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := on.Contractor(m)
		if err != nil {
			t.Fatal(err)
		}
		if after.LogLik != fresh.LogLik {
			t.Fatalf("%d into %d: log-likelihood %v after, %v fresh", drop, keep, after.LogLik, fresh.LogLik)
		}
		for _, f := range on.Tree.Edges() {
			k2, d2 := f.U, f.V
			if !on.Tree.IsHidden(d2) {
				continue
			}
			a, err := after.Score(nil, k2, d2, 50, 1e-4)
			if err != nil {
				t.Fatal(err)
			}
			b, err := fresh.Score(nil, k2, d2, 50, 1e-4)
			if err != nil {
				t.Fatal(err)
			}
			if a.LogLik != b.LogLik || a.Change != b.Change {
				t.Fatalf("%d into %d, then %d into %d: %v %v after, %v %v fresh", drop, keep, d2, k2, a.LogLik, a.Change, b.LogLik, b.Change)
			}
		}
		n++
	}
	if n < 5 {
		t.Fatalf("only %d contractions checked", n)
	}
}

// ScoreBound skips the uncontracted neighbourhood's refit exactly when the
// change at the model's own correlations is at most floor, and that change
// bounds Score's Change from above; above floor it is Score. The model is
// fitted by 5 E-steps only, so that the refits gain.
func TestContractorScoreBound(t *testing.T) {
	_, _, m := contractFixture(t)
	rng := rand.New(rand.NewPCG(25, 7))
	tr, err := simulate.RandomBinary(rng, 14, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := gaussian.FitMoments(tr, m, gaussian.Options{MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	c, err := g.Contractor(m)
	if err != nil {
		t.Fatal(err)
	}
	n, loose := 0, 0
	for _, e := range tr.Edges() {
		keep, drop := e.U, e.V
		if !tr.IsHidden(drop) {
			keep, drop = drop, keep
		}
		if !tr.IsHidden(drop) {
			continue
		}
		exact, err := c.Score(nil, keep, drop, 50, 1e-4)
		if err != nil {
			t.Fatal(err)
		}
		below, err := c.ScoreBound(nil, keep, drop, 50, 1e-4, math.Inf(-1))
		if err != nil {
			t.Fatal(err)
		}
		if below.Bounded || below.Change != exact.Change || below.LogLik != exact.LogLik {
			t.Fatalf("%d into %d: floor −Inf gave %+v, Score %+v", drop, keep, below, exact)
		}
		bound, err := c.ScoreBound(nil, keep, drop, 50, 1e-4, math.Inf(1))
		if err != nil {
			t.Fatal(err)
		}
		if !bound.Bounded || bound.LogLik != exact.LogLik {
			t.Fatalf("%d into %d: floor +Inf gave bounded %v, log-likelihood %v (Score %v)", drop, keep, bound.Bounded, bound.LogLik, exact.LogLik)
		}
		// The bound is the change at the model's own correlations.
		if math.Abs(bound.Change-(bound.LogLik-c.LogLik)) > 1e-9*math.Abs(c.LogLik) {
			t.Fatalf("%d into %d: bound %v, log-likelihood change %v", drop, keep, bound.Change, bound.LogLik-c.LogLik)
		}
		if bound.Change < exact.Change-1e-9 {
			t.Fatalf("%d into %d: bound %v below the change %v", drop, keep, bound.Change, exact.Change)
		}
		if bound.Change > exact.Change+1e-3 {
			loose++
		}
		// A floor between the two: the bound is above it, so exact.
		mid, err := c.ScoreBound(nil, keep, drop, 50, 1e-4, bound.Change-1e-9)
		if err != nil {
			t.Fatal(err)
		}
		if mid.Bounded || mid.Change != exact.Change {
			t.Fatalf("%d into %d: floor just below the bound gave %+v, Score %+v", drop, keep, mid, exact)
		}
		n++
	}
	if n < 5 || loose == 0 {
		t.Fatalf("%d contractions checked, %d with a refit that gains: the test checks nothing", n, loose)
	}
}
