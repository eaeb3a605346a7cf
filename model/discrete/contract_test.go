package discrete_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

// The Contractor's log-likelihood is the model's; the model Contract
// returns for every edge at a hidden node has exactly the log-likelihood
// Contract reports, and more EM iterations never lower it (15 nodes,
// 3-state observed and 2–3-state hidden variables, and all binary; 400
// rows with a few missing cells; fixed seeds).
func TestContractorExact(t *testing.T) {
	for _, binary := range []bool{false, true} {
		contractorExact(t, binary)
	}
}

// contractorExact is TestContractorExact on a general model, or on a
// binary one (binary: every node binary, the unrolled sums).
func contractorExact(t *testing.T, binary bool) {
	m, d := contractorModel(t, binary, 1, 400)
	tr := m.Tree
	for r := 0; r < 400; r += 37 {
		d.Discrete(r % d.NumVars())[r] = data.Missing
	}
	llOf := func(mm interface {
		Score(*data.Dataset, model.InferOptions) (*model.Score, error)
	}) float64 {
		s, err := mm.Score(d, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s.LogLik
	}
	c, err := m.Contractor(d, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := llOf(m); math.Abs(c.LogLik-want) > 1e-9*math.Abs(want) {
		t.Fatalf("Contractor log-likelihood %.10g, model's %.10g", c.LogLik, want)
	}
	n := 0
	for _, e := range tr.Edges() {
		for _, kd := range [][2]int{{e.U, e.V}, {e.V, e.U}} {
			keep, drop := kd[0], kd[1]
			if !tr.IsHidden(drop) {
				continue
			}
			n++
			ct := tr.Clone()
			if err := ct.Contract(keep, drop); err != nil {
				t.Fatal(err)
			}
			var prev float64
			for i, iters := range []int{1, 3, 20} {
				nm, ll, err := c.Contract(ct, keep, drop, iters, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				if want := llOf(nm); math.Abs(ll-want) > 1e-9*math.Abs(want) {
					t.Fatalf("contract %d into %d, %d iterations: log-likelihood %.10g, model's %.10g", drop, keep, iters, ll, want)
				}
				if i > 0 && ll < prev-1e-9*math.Abs(prev) {
					t.Errorf("contract %d into %d: %d iterations reach %.10g, fewer %.10g", drop, keep, iters, ll, prev)
				}
				prev = ll
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d contractions tried", n)
	}
}

// contractorModel returns a model on a random minimal tree of 15 nodes
// (3-state observed and 2–3-state hidden variables, or all binary) drawn
// with seed, and rows rows sampled from it.
func contractorModel(t *testing.T, binary bool, seed uint64, rows int) (*discrete.Model, *data.Dataset) {
	t.Helper()
	rng := rand.New(rand.NewPCG(8, seed))
	tr, err := simulate.RandomMinimal(rng, 15, simulate.MinimalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opt := simulate.GeneralOptions{ObservedStates: 3, HiddenMin: 2, HiddenMax: 3}
	if binary {
		opt = simulate.GeneralOptions{ObservedStates: 2, HiddenMin: 2, HiddenMax: 2}
	}
	m, err := simulate.General(rng, tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Sample(rng, rows)
	if err != nil {
		t.Fatal(err)
	}
	return m, d
}

// NumParamsOn counts the parameters of the model New would make, at every
// root of a tree whose nodes have 2 to 4 states (hand check on a path
// a–h–b with 3, 2 and 4 states rooted at h: 1 + 2·2 + 2·3 = 11), and
// rejects a root outside the tree.
func TestNumParamsOn(t *testing.T) {
	p := tree.New()
	a, err := p.AddNode(tree.Node{Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	h := p.AddHidden()
	b, err := p.AddNode(tree.Node{Name: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AddEdge(a, h, 1); err != nil {
		t.Fatal(err)
	}
	if err := p.AddEdge(h, b, 1); err != nil {
		t.Fatal(err)
	}
	states := make([]int, p.MaxID())
	states[a], states[h], states[b] = 3, 2, 4
	if got, err := discrete.NumParamsOn(p, h, states); err != nil || got != 11 {
		t.Fatalf("path rooted at the hidden node: %d, %v; want 11", got, err)
	}
	rng := rand.New(rand.NewPCG(3, 9))
	tr, err := simulate.RandomMinimal(rng, 12, simulate.MinimalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	states = make([]int, tr.MaxID())
	for _, v := range tr.Nodes() {
		states[v] = 2 + rng.IntN(3)
	}
	for _, root := range tr.Nodes() {
		m, err := discrete.New(tr, root, states)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := discrete.NumParamsOn(tr, root, states); err != nil || got != m.NumParams() {
			t.Errorf("root %d: NumParamsOn %d, %v; the model's NumParams %d", root, got, err, m.NumParams())
		}
	}
	if _, err := discrete.NumParamsOn(tr, tr.MaxID()+5, states); err == nil {
		t.Error("a root outside the tree: no error")
	}
}

// LocalOptions.From continues a local fit: on a binary and a general model
// (as TestContractorExact), 2 EM iterations from the fit that 2 iterations
// reached give the parameters and log-likelihood of 4 iterations from the
// start, to the bit; a local fit at another node is ignored (the start of
// FitLocal).
func TestFitLocalFrom(t *testing.T) {
	for _, binary := range []bool{false, true} {
		m, d := contractorModel(t, binary, 2, 700)
		tr := m.Tree
		c, err := m.Contractor(d, 2)
		if err != nil {
			t.Fatal(err)
		}
		var other *discrete.Local
		n := 0
		for _, e := range tr.Edges() {
			keep, drop := e.U, e.V
			if !tr.IsHidden(drop) {
				keep, drop = drop, keep
			}
			if !tr.IsHidden(drop) {
				continue
			}
			ct := tr.Clone()
			if err := ct.Contract(keep, drop); err != nil {
				t.Fatal(err)
			}
			// iters counts passes over the rows, the last one scoring:
			// 3 passes are 2 EM iterations.
			half, _, err := c.FitLocal(ct, keep, drop, 3, 0, 0.5)
			if err != nil {
				t.Fatal(err)
			}
			cont, llc, err := c.FitLocalWith(ct, keep, drop, discrete.LocalOptions{Iters: 3, Pseudo: 0.5, From: half})
			if err != nil {
				t.Fatal(err)
			}
			full, llf, err := c.FitLocal(ct, keep, drop, 5, 0, 0.5)
			if err != nil {
				t.Fatal(err)
			}
			if llc != llf || !slices.Equal(cont.Prior, full.Prior) {
				t.Errorf("binary %v, contract %d into %d: continued fit %.12g %v, 4 iterations %.12g %v", binary, drop, keep, llc, cont.Prior, llf, full.Prior)
			}
			for i := range cont.Trans {
				if !slices.Equal(cont.Trans[i], full.Trans[i]) {
					t.Errorf("binary %v, contract %d into %d: transition %d %v, want %v", binary, drop, keep, i, cont.Trans[i], full.Trans[i])
				}
			}
			if other != nil && other.Keep != keep {
				_, llo, err := c.FitLocalWith(ct, keep, drop, discrete.LocalOptions{Iters: 3, Pseudo: 0.5, From: other})
				if err != nil {
					t.Fatal(err)
				}
				_, ll3, err := c.FitLocal(ct, keep, drop, 3, 0, 0.5)
				if err != nil {
					t.Fatal(err)
				}
				if llo != ll3 {
					t.Errorf("binary %v, contract %d into %d: a fit at node %d as start gives %.12g, FitLocal %.12g", binary, drop, keep, other.Keep, llo, ll3)
				}
			}
			// Screening: a floor never reached changes nothing; one
			// that cannot be reached ends the fit after 3 iterations,
			// with their parameters and log-likelihood (4 passes).
			lo, lllo, err := c.FitLocalWith(ct, keep, drop, discrete.LocalOptions{Iters: 8, Pseudo: 0.5, Screen: true, Floor: math.Inf(-1)})
			if err != nil {
				t.Fatal(err)
			}
			l8, ll8, err := c.FitLocal(ct, keep, drop, 8, 0, 0.5)
			if err != nil {
				t.Fatal(err)
			}
			hi, llhi, err := c.FitLocalWith(ct, keep, drop, discrete.LocalOptions{Iters: 8, Pseudo: 0.5, Screen: true, Floor: 0})
			if err != nil {
				t.Fatal(err)
			}
			l4, ll4, err := c.FitLocal(ct, keep, drop, 4, 0, 0.5)
			if err != nil {
				t.Fatal(err)
			}
			if lllo != ll8 || !slices.Equal(lo.Prior, l8.Prior) || llhi != ll4 || !slices.Equal(hi.Prior, l4.Prior) {
				t.Errorf("binary %v, contract %d into %d: screened fits %.12g %v and %.12g %v, want %.12g %v and %.12g %v",
					binary, drop, keep, lllo, lo.Prior, llhi, hi.Prior, ll8, l8.Prior, ll4, l4.Prior)
			}
			other = half
			n++
		}
		if n < 5 {
			t.Fatalf("only %d contractions tried", n)
		}
	}
}

// A Contractor made by Reuse in another's memory is the one Contractor
// makes: the same log-likelihood and local fits, to the bit (binary and
// general models, the second Contractor for a contraction of the first
// one's model).
func TestContractorReuse(t *testing.T) {
	for _, binary := range []bool{false, true} {
		m, d := contractorModel(t, binary, 3, 500)
		tr := m.Tree
		old, err := m.Contractor(d, 2)
		if err != nil {
			t.Fatal(err)
		}
		// Contract the first edge at a hidden node; score every
		// contraction of the result with both contractors.
		var m2 *discrete.Model
		for _, e := range tr.Edges() {
			if tr.IsHidden(e.V) {
				ct := tr.Clone()
				if err := ct.Contract(e.U, e.V); err != nil {
					t.Fatal(err)
				}
				if m2, _, err = old.Contract(ct, e.U, e.V, 5, 0, 0); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
		fresh, err := m2.Contractor(d, 2)
		if err != nil {
			t.Fatal(err)
		}
		reused, err := old.Reuse(m2, d, 3)
		if err != nil {
			t.Fatal(err)
		}
		if fresh.LogLik != reused.LogLik {
			t.Fatalf("binary %v: log-likelihood %.12g reused, %.12g fresh", binary, reused.LogLik, fresh.LogLik)
		}
		n := 0
		for _, e := range m2.Tree.Edges() {
			keep, drop := e.U, e.V
			if !m2.Tree.IsHidden(drop) {
				continue
			}
			ct := m2.Tree.Clone()
			if err := ct.Contract(keep, drop); err != nil {
				t.Fatal(err)
			}
			_, a, err := fresh.FitLocal(ct, keep, drop, 4, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, b, err := reused.FitLocal(ct, keep, drop, 4, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if a != b {
				t.Errorf("binary %v, contract %d into %d: %.12g reused, %.12g fresh", binary, drop, keep, b, a)
			}
			n++
		}
		if n < 3 {
			t.Fatalf("binary %v: only %d contractions compared", binary, n)
		}
	}
}
