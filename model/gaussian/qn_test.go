package gaussian

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// TestQNGradient checks the gradient from the expected statistics against
// central finite differences of the log-likelihood, on complete data and
// with missing cells (rare patterns by belief propagation), at a point
// away from the optimum with nonzero means, on a tree with an observed
// internal node.
func TestQNGradient(t *testing.T) {
	for _, missing := range []float64{0, 0.2} {
		rng := rand.New(rand.NewPCG(5, 1))
		tr := tree.New()
		h0, h1, h2 := tr.AddHidden(), tr.AddHidden(), tr.AddHidden()
		edges := [][2]int{{h0, h1}, {h0, h2}}
		var obs []int
		// Leaves under h1, h2 and h0, and g under the observed f.
		for i, parent := range []int{h1, h1, h1, h2, h2, h0, -6} {
			x, err := tr.AddObserved(string(rune('a' + i)))
			if err != nil {
				t.Fatal(err)
			}
			if parent < 0 {
				parent = obs[-parent-1]
			}
			obs = append(obs, x)
			edges = append(edges, [2]int{parent, x})
		}
		for _, e := range edges {
			if err := tr.AddEdge(e[0], e[1], 0.5); err != nil {
				t.Fatal(err)
			}
		}
		g0, err := New(tr, h0, 0.6)
		if err != nil {
			t.Fatal(err)
		}
		g0.Rho[h2] = -0.7
		for i, v := range tr.Observed() {
			g0.Mean[v], g0.Var[v] = float64(i), 1+float64(i%3)
		}
		d, err := g0.Sample(rng, 150)
		if err != nil {
			t.Fatal(err)
		}
		if missing > 0 {
			for j := range d.NumVars() {
				col := d.Continuous(j)
				for r := range col {
					if rng.Float64() < missing {
						col[r] = math.NaN()
					}
				}
			}
		}
		g, b := startedModel(t, tr, d)
		for _, v := range tr.Observed() {
			g.Mean[v] += 0.3 * rng.NormFloat64()
			g.Var[v] *= 0.7 + 0.6*rng.Float64()
		}
		em := newGaussEM(g, b, b.patterns(), nil)
		c := newQNCoords(em)
		if c.fixMean {
			t.Fatal("means moved off the sample mean, yet fixMean")
		}
		k := c.size()
		x, grad := make([]float64, k), make([]float64, k)
		c.save(x)
		st, err := em.estep()
		if err != nil {
			t.Fatal(err)
		}
		c.gradient(st, grad)
		ll := func(x []float64) float64 {
			c.load(x)
			st, err := em.estep()
			if err != nil {
				t.Fatal(err)
			}
			return st.ll
		}
		for i := range k {
			const h = 1e-5
			xp := append([]float64(nil), x...)
			xp[i] += h
			fp := ll(xp)
			xp[i] -= 2 * h
			fm := ll(xp)
			num := (fp - fm) / (2 * h)
			if math.Abs(num-grad[i]) > 1e-4*max(1, math.Abs(num)) {
				t.Errorf("missing %g: coordinate %d: gradient %.8g, finite differences %.8g", missing, i, grad[i], num)
			}
		}
	}
}

// TestQNFixMean checks that the quasi-Newton coordinates leave the means
// out exactly when no cell is missing and the means are the sample means,
// and that there the full gradient's mean components are zero (so that
// BFGS would not move them) and its other components are the reduced
// gradient's.
func TestQNFixMean(t *testing.T) {
	tr, err := simulateFixture()
	if err != nil {
		t.Fatal(err)
	}
	g0, err := New(tr, model.DefaultRoot(tr), 0.6)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range tr.Observed() {
		g0.Mean[v], g0.Var[v] = float64(i), 1+float64(i%3)
	}
	d, err := g0.Sample(rand.New(rand.NewPCG(7, 1)), 300)
	if err != nil {
		t.Fatal(err)
	}
	g, b := startedModel(t, tr, d)
	em := newGaussEM(g, b, b.patterns(), nil)
	st, err := em.estep()
	if err != nil {
		t.Fatal(err)
	}
	c := newQNCoords(em)
	if !c.fixMean {
		t.Fatal("complete data with the sample means: fixMean is false")
	}
	reduced := make([]float64, c.size())
	c.gradient(st, reduced)
	full := &qnCoords{em: em, scale: c.scale, amax: c.amax}
	fg := make([]float64, full.size())
	full.gradient(st, fg)
	if len(fg) != len(reduced)+tr.NumObserved() {
		t.Fatalf("%d full coordinates, %d reduced, %d observed", len(fg), len(reduced), tr.NumObserved())
	}
	k, j := 0, 0
	for _, v := range em.nodes {
		if !tr.IsHidden(v) {
			if math.Abs(fg[k]) > 1e-8 {
				t.Errorf("node %d: gradient in the mean %g at the sample mean", v, fg[k])
			}
			k++
			if fg[k] != reduced[j] {
				t.Errorf("node %d: log-variance gradient %g, reduced %g", v, fg[k], reduced[j])
			}
			k, j = k+1, j+1
		}
		if v != g.Root {
			if fg[k] != reduced[j] {
				t.Errorf("node %d: edge gradient %g, reduced %g", v, fg[k], reduced[j])
			}
			k, j = k+1, j+1
		}
	}
	// A mean moved off the sample mean: every coordinate is kept.
	v := tr.Observed()[0]
	g.Mean[v] += 0.1
	if newQNCoords(em).fixMean {
		t.Error("a mean off the sample mean: fixMean is true")
	}
}

// simulateFixture is a tree of three hidden nodes with seven observed
// leaves.
func simulateFixture() (*tree.Tree, error) {
	tr := tree.New()
	h0, h1, h2 := tr.AddHidden(), tr.AddHidden(), tr.AddHidden()
	if err := tr.AddEdge(h0, h1, 0.5); err != nil {
		return nil, err
	}
	if err := tr.AddEdge(h0, h2, 0.5); err != nil {
		return nil, err
	}
	for i, parent := range []int{h1, h1, h1, h2, h2, h0, h0} {
		x, err := tr.AddObserved(string(rune('a' + i)))
		if err != nil {
			return nil, err
		}
		if err := tr.AddEdge(parent, x, 0.5); err != nil {
			return nil, err
		}
	}
	return tr, nil
}

// startedModel returns a model on tr at Fit's closed-form start for d,
// and its binding to d.
func startedModel(t *testing.T, tr *tree.Tree, d *data.Dataset) (*Model, *gbinding) {
	t.Helper()
	g, err := New(tr, model.DefaultRoot(tr), 0.5)
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.bind(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.startGaussian(b); err != nil {
		t.Fatal(err)
	}
	return g, b
}
