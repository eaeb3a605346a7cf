package gaussian

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/tree"
)

// denseReference adds to st the expected statistics of the rows of a
// dense pattern and their log-likelihood the straightforward way, from
// the covariance of the observed variables: with o the pattern's observed
// columns, δ the difference of their sample and model means,
// D = scatter + n δδᵀ, and A = Σ_zo Σ_oo⁻¹ for all nodes z,
// Σ E[x_z] = n μ_z + n A_z δ and
// Σ E[x_u x_v] = n μ_u μ_v + n μ_u A_v δ + n μ_v A_u δ + A_u D A_vᵀ + n (Σ_uv − A_u Σ_ov).
// (It was the E-step of dense patterns before forestPattern.)
func denseReference(em *gaussEM, pt gaussPattern, st *gaussStats) error {
	g, b := em.g, em.b
	zo := g.covariance(em.nodes, b.obs)
	nodeIndex := func(v int) int {
		for k, u := range em.nodes {
			if u == v {
				return k
			}
		}
		return -1
	}
	p := len(b.obs)
	idx := pt.idx
	q := len(idx)
	nn := len(em.nodes)
	cnt := pt.cnt
	sub := mat.NewSymDense(q, nil)
	for a, i := range idx {
		for c, j := range idx {
			sub.SetSym(a, c, zo[nodeIndex(b.obs[i])*p+j])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sub) {
		return errors.New("singular")
	}
	zx := mat.NewDense(nn, q, nil)
	for x := range em.nodes {
		for a, i := range idx {
			zx.Set(x, a, zo[x*p+i])
		}
	}
	var at mat.Dense
	if err := ch.SolveTo(&at, zx.T()); err != nil {
		return err
	}
	A := mat.DenseCopyOf(at.T())
	delta := mat.NewVecDense(q, nil)
	for a, i := range idx {
		delta.SetVec(a, pt.mean[a]-g.Mean[b.obs[i]])
	}
	D := mat.NewDense(q, q, append([]float64(nil), pt.scatter...))
	D.RankOne(D, cnt, delta, delta)
	var B mat.Dense
	B.Mul(A, D)
	var Ad mat.VecDense
	Ad.MulVec(A, delta)
	var sol mat.Dense
	if err := ch.SolveTo(&sol, D); err != nil {
		return err
	}
	st.ll += -0.5 * (cnt*(float64(q)*math.Log(2*math.Pi)+ch.LogDet()) + mat.Trace(&sol))
	r := g.Rooted()
	pair := func(x, y int, u, v int, cov float64) float64 {
		s := cnt * g.Mean[u] * g.Mean[v]
		s += cnt * (g.Mean[u]*Ad.AtVec(y) + g.Mean[v]*Ad.AtVec(x))
		s += mat.Dot(B.RowView(x), A.RowView(y))
		c := cov
		for a := range idx {
			c -= A.At(x, a) * zx.At(y, a)
		}
		return s + cnt*c
	}
	for x, v := range em.nodes {
		st.s1[v] += cnt*g.Mean[v] + cnt*Ad.AtVec(x)
		st.s2[v] += pair(x, x, v, v, g.Var[v])
		if pp := r.Parent[v]; pp >= 0 {
			st.sp[v] += pair(x, nodeIndex(pp), v, pp, g.Rho[v]*math.Sqrt(g.Var[v]*g.Var[pp]))
		}
	}
	return nil
}

// randomGaussModel returns a model on a random tree of nobs observed and
// nhid hidden nodes (observed nodes may be inner nodes), with random
// means, variances and correlations (some near ±1), rooted at a random
// node.
func randomGaussModel(t *testing.T, rng *rand.Rand, nobs, nhid int) *Model {
	t.Helper()
	tr := tree.New()
	var nodes []int
	for i := range nobs {
		v, err := tr.AddObserved("x" + string(rune('a'+i/26)) + string(rune('a'+i%26)))
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, v)
	}
	for range nhid {
		nodes = append(nodes, tr.AddHidden())
	}
	rng.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	for i := 1; i < len(nodes); i++ {
		if err := tr.AddEdge(nodes[i], nodes[rng.IntN(i)], math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	g, err := New(tr, nodes[rng.IntN(len(nodes))], 0.5)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range tr.Nodes() {
		if !tr.IsHidden(v) {
			g.Mean[v], g.Var[v] = 4*rng.Float64()-2, 0.1+3*rng.Float64()
		}
		g.Rho[v] = 1.8*rng.Float64() - 0.9
		if rng.IntN(8) == 0 {
			g.Rho[v] = math.Copysign(1-math.Pow(10, -2-4*rng.Float64()), g.Rho[v])
		}
	}
	return g
}

// The E-step of dense patterns in the forest of the unobserved nodes
// (forestPattern) gives the expected statistics and log-likelihood of
// the straightforward one from the covariance of the observed variables
// (denseReference), on random trees with random parameters (some edges
// within 10⁻⁶ of |ρ| = 1), complete and with cells missing in blocks
// (patterns of many rows), at data from the model scored and from other
// parameters (whose log-likelihood under the model, of order 10⁸ when
// the data break its near-deterministic edges, both compute to about
// 10⁻¹⁰ relative).
func TestForestEStepMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 11))
	compared, worst, wst := 0, 0.0, 0.0
	for trial := range 12 {
		nobs, nhid := 3+rng.IntN(25), rng.IntN(20)
		g := randomGaussModel(t, rng, nobs, nhid)
		src := g
		if trial%2 == 1 {
			// Data from other parameters on the same tree.
			src = randomGaussModel(t, rng, nobs, nhid)
			src.Tree = g.Tree
			src.Refresh()
		}
		d, err := src.Sample(rng, 300)
		if err != nil {
			t.Fatal(err)
		}
		if trial%3 == 1 {
			// Cells missing in blocks: a few patterns of many rows.
			cols := make([][]float64, d.NumVars())
			for j := range cols {
				cols[j] = append([]float64(nil), d.Continuous(j)...)
			}
			for k := range 3 {
				j := rng.IntN(len(cols))
				for r := 100 * k; r < 100*k+60; r++ {
					cols[j][r] = math.NaN()
				}
			}
			if d, err = data.FromContinuous(d.Names(), cols); err != nil {
				t.Fatal(err)
			}
		}
		b, err := g.bind(d)
		if err != nil {
			t.Fatal(err)
		}
		em := newGaussEM(g, b, b.patterns(), nil)
		nn := g.Tree.MaxID()
		for i, pt := range em.pats {
			if !pt.dense {
				continue
			}
			got := &gaussStats{s1: make([]float64, nn), s2: make([]float64, nn), sp: make([]float64, nn)}
			want := &gaussStats{s1: make([]float64, nn), s2: make([]float64, nn), sp: make([]float64, nn)}
			if err := em.forestPattern(i, got); err != nil {
				t.Fatal(err)
			}
			if err := denseReference(em, pt, want); err != nil {
				t.Fatal(err)
			}
			compared++
			tol := 1e-11
			if src != g {
				tol = 1e-9
			}
			if math.Abs(got.ll-want.ll) > tol*math.Abs(want.ll) {
				t.Fatalf("trial %d (%d observed, %d hidden), pattern %d: log-likelihood %.12g, reference %.12g", trial, nobs, nhid, i, got.ll, want.ll)
			}
			for _, v := range em.nodes {
				for _, c := range []struct {
					name string
					a, b float64
				}{{"E[x]", got.s1[v], want.s1[v]}, {"E[x²]", got.s2[v], want.s2[v]}, {"E[x x_parent]", got.sp[v], want.sp[v]}} {
					wst = max(wst, math.Abs(c.a-c.b)/math.Max(1, math.Abs(c.b)))
					if math.Abs(c.a-c.b) > 1e-8*math.Max(1, math.Abs(c.b)) {
						t.Fatalf("trial %d, pattern %d, node %s: Σ %s %.12g, reference %.12g", trial, i, g.Tree.Name(v), c.name, c.a, c.b)
					}
				}
			}
		}
	}
	if compared < 12 {
		t.Fatalf("only %d dense patterns compared", compared)
	}
	t.Logf("%d dense patterns; largest relative difference in log-likelihood %.2g, statistics %.2g", compared, worst, wst)
}
