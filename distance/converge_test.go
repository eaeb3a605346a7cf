package distance_test

// Tests that draw models from package simulate, which imports (through
// model/mixed) package distance: they live outside the package.

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/stats"
)

func TestInformationConverges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tr, _ := simulate.RandomMinimal(rng, 6, simulate.MinimalOptions{})
	obs := tr.Observed()
	n := len(obs)
	gm, _ := simulate.General(rng, tr, simulate.GeneralOptions{ObservedStates: 3})
	sm, _ := simulate.Symmetric(rng, tr.Clone(), simulate.SymmetricOptions{States: 2})
	g, _ := simulate.Gaussian(rng, tr.Clone(), simulate.GaussianOptions{})
	type testCase struct {
		name  string
		kind  distance.Kind
		exact []float64
		d     *data.Dataset
	}
	d1, _ := gm.Sample(rng, 200000)
	e1, _ := gm.Distances(obs)
	d2, _ := sm.Sample(rng, 200000)
	e2, _ := sm.Distances(obs)
	d3, _ := g.Sample(rng, 200000)
	cases := []testCase{
		{"general", distance.Discrete, e1, d1},
		{"symmetric", distance.Symmetric, e2, d2},
		{"gaussian", distance.Auto, g.Distances(obs), d3},
	}
	for _, c := range cases {
		s, err := stats.Compute(c.d, stats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, deg, err := distance.Information(s, distance.InfoOptions{Kind: c.kind})
		if err != nil {
			t.Fatal(err)
		}
		if len(deg) > 0 {
			t.Errorf("%s: degenerate pairs %v", c.name, deg)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want := c.exact[i*n+j]
				if want > 4 {
					continue // too weakly dependent to estimate within the tolerance
				}
				// Standard error of an estimated distance ≈ e^d/√n ≤ 0.12
				// here; allow 0.05 + 3% relative.
				if got := m.At(i, j); math.Abs(got-want) > 0.05+0.03*want {
					t.Errorf("%s: d(%d,%d) = %.4f, exact %.4f", c.name, i, j, got, want)
				}
			}
		}
	}
}

func TestRankK(t *testing.T) {
	// Observed variables with 3 states and binary hidden variables: the
	// pairwise tables have rank 2, the determinant distance is infinite,
	// and the rank-2 distance is finite and additive along the tree.
	rng := rand.New(rand.NewPCG(3, 4))
	tr, _ := simulate.Star(4)
	m, err := simulate.General(rng, tr, simulate.GeneralOptions{ObservedStates: 3, HiddenStates: 2})
	if err != nil {
		t.Fatal(err)
	}
	obs := tr.Observed()
	pairs := m.PairMarginals(obs)
	// Counts proportional to the exact tables (scaled by 1e9): a dataset
	// with these statistics, built directly.
	const scale = 1e9
	c := make([]int64, 9)
	for a := range c {
		c[a] = int64(math.Round(pairs[0][1][a] * scale))
	}
	if dd, why, _ := distance.DiscreteDist(c, 3, 3, 0, 0, nil); !math.IsInf(dd, 1) && dd < 15 {
		t.Errorf("determinant distance of a rank-2 table = %g (%s), want +Inf or huge", dd, why)
	}
	dist := func(i, j int) float64 {
		for a := range c {
			c[a] = int64(math.Round(pairs[i][j][a] * scale))
		}
		dd, why, ok := distance.DiscreteDist(c, 3, 3, 2, 0, nil)
		if why != "" || !ok {
			t.Fatalf("rank-2 distance: %s", why)
		}
		return dd
	}
	// In a star h–{0,1,2,3}, d2(i,j) + d2(k,l) = d2(i,k) + d2(j,l) (all
	// pairs pass through h).
	a, b := dist(0, 1)+dist(2, 3), dist(0, 2)+dist(1, 3)
	if math.Abs(a-b) > 1e-6 {
		t.Errorf("rank-2 distances not additive through the hidden node: %g vs %g", a, b)
	}
}
