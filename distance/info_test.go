package distance

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
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
		kind  Kind
		exact []float64
		d     *data.Dataset
	}
	d1, _ := gm.Sample(rng, 200000)
	e1, _ := gm.Distances(obs)
	d2, _ := sm.Sample(rng, 200000)
	e2, _ := sm.Distances(obs)
	d3, _ := g.Sample(rng, 200000)
	cases := []testCase{
		{"general", Discrete, e1, d1},
		{"symmetric", Symmetric, e2, d2},
		{"gaussian", Auto, g.Distances(obs), d3},
	}
	for _, c := range cases {
		s, err := stats.Compute(c.d, stats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, deg, err := Information(s, InfoOptions{Kind: c.kind})
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
	if dd, why, _ := discreteDist(c, 3, 3, 0, 0, nil); !math.IsInf(dd, 1) && dd < 15 {
		t.Errorf("determinant distance of a rank-2 table = %g (%s), want +Inf or huge", dd, why)
	}
	dist := func(i, j int) float64 {
		for a := range c {
			c[a] = int64(math.Round(pairs[i][j][a] * scale))
		}
		dd, why, ok := discreteDist(c, 3, 3, 2, 0, nil)
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

func TestInformationErrors(t *testing.T) {
	mixed, _ := data.New([]data.Variable{{Name: "a", Kind: data.Discrete, States: []string{"0", "1"}}, {Name: "b", Kind: data.Continuous}}, 3)
	s, err := stats.Compute(mixed, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Information(s, InfoOptions{Kind: Gaussian}); err == nil {
		t.Error("the Gaussian distance accepted a discrete variable")
	}
	if _, _, err := Information(s, InfoOptions{Kind: Discrete}); err == nil {
		t.Error("the discrete distance accepted a continuous variable")
	}
	// Independent binary variables: a singular table, reported.
	cols := [][]uint16{{0, 0, 1, 1}, {0, 1, 0, 1}}
	v := []data.Variable{{Name: "a", Kind: data.Discrete, States: []string{"0", "1"}}, {Name: "b", Kind: data.Discrete, States: []string{"0", "1"}}}
	ind, _ := data.FromDiscrete(v, cols)
	s, _ = stats.Compute(ind, stats.Options{})
	m, deg, err := Information(s, InfoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(m.At(0, 1), 1) || len(deg) != 1 {
		t.Errorf("independent pair: d = %g, degenerate %v", m.At(0, 1), deg)
	}
	// Different numbers of states without a rank: the rank-2 distance
	// (DefaultRank), the same as asking for it.
	v[1].States = []string{"0", "1", "2"}
	cols[1] = []uint16{0, 1, 2, 1}
	three, _ := data.FromDiscrete(v, cols)
	s, _ = stats.Compute(three, stats.Options{})
	auto, _, err := Information(s, InfoOptions{})
	if err != nil {
		t.Fatalf("2 vs 3 states without a rank: %v", err)
	}
	two, _, err := Information(s, InfoOptions{Rank: 2})
	if err != nil {
		t.Fatalf("rank-2 with 2 and 3 states: %v", err)
	}
	if auto.At(0, 1) != two.At(0, 1) {
		t.Errorf("default distance %g, rank-2 distance %g", auto.At(0, 1), two.At(0, 1))
	}
	if _, _, err := Information(s, InfoOptions{HiddenStates: -1}); err == nil {
		t.Error("-1 hidden states accepted")
	}
}

// TestDefaultRank: the determinant distance (0) for equal numbers of
// states, else the hidden-state count capped by the smallest number of
// states, at least 2; one-state variables are left out of the minimum and
// are at infinite distance.
func TestDefaultRank(t *testing.T) {
	build := func(states ...int) *stats.Stats {
		t.Helper()
		vars := make([]data.Variable, len(states))
		cols := make([][]uint16, len(states))
		for j, n := range states {
			vars[j] = data.Variable{Name: string(rune('a' + j)), Kind: data.Discrete}
			for x := 0; x < n; x++ {
				vars[j].States = append(vars[j].States, string(rune('0'+x)))
			}
			for r := 0; r < 12; r++ {
				cols[j] = append(cols[j], uint16((r*(j+1)+r/3)%n))
			}
		}
		d, err := data.FromDiscrete(vars, cols)
		if err != nil {
			t.Fatal(err)
		}
		s, err := stats.Compute(d, stats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases := []struct {
		states []int
		hidden int
		want   int
	}{
		{[]int{3, 3, 3}, 0, 0},
		{[]int{3, 3, 3}, 2, 0}, // equal: the determinant whatever the hidden states
		{[]int{2, 3, 4}, 0, 2},
		{[]int{2, 3, 4}, 5, 2},
		{[]int{3, 4, 6}, 0, 2},
		{[]int{3, 4, 6}, 3, 3},
		{[]int{3, 4, 6}, 4, 3},
		{[]int{4, 5, 6}, 1, 2},
		{[]int{1, 3, 3}, 0, 2},
		{[]int{1, 3, 3}, 4, 3},
		{[]int{1, 1}, 0, 0},
	}
	for _, c := range cases {
		s := build(c.states...)
		if got := DefaultRank(s, c.hidden); got != c.want {
			t.Errorf("states %v, hidden %d: rank %d, want %d", c.states, c.hidden, got, c.want)
		}
	}
	m, deg, err := Information(build(1, 3, 3), InfoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(m.At(0, 1), 1) || !math.IsInf(m.At(0, 2), 1) || len(deg) < 2 || !strings.Contains(deg[0].Reason, "one state") {
		t.Errorf("constant variable: d = %g, %g, degenerate %v", m.At(0, 1), m.At(0, 2), deg)
	}
}

// TestInformationSVDFailure: a decomposition that did not converge gave
// +Inf, as if the pair were independent; it is now an error naming the
// pair.
func TestInformationSVDFailure(t *testing.T) {
	st := []string{"0", "1", "2"}
	v := []data.Variable{{Name: "a", Kind: data.Discrete, States: st}, {Name: "b", Kind: data.Discrete, States: st}, {Name: "c", Kind: data.Discrete, States: st}}
	cols := [][]uint16{{0, 0, 1, 1, 2, 2, 0}, {0, 1, 1, 1, 2, 2, 0}, {0, 0, 1, 2, 2, 1, 1}}
	d, err := data.FromDiscrete(v, cols)
	if err != nil {
		t.Fatal(err)
	}
	s, err := stats.Compute(d, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Information(s, InfoOptions{}); err != nil {
		t.Fatal(err)
	}
	_, _, err = Information(s, InfoOptions{Workers: 2, failSVD: func(ni, nj int) bool { return true }})
	want := `distance: information distance between "a" and "b": the singular value decomposition of their normalised joint table did not converge: latentree: numerical failure`
	if !errors.Is(err, ErrNumerical) || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

// TestNegativePseudo: a negative pseudo-count made gonum panic ("cfrom is
// NaN"); it is now an error, as are NaN and +Inf.
func TestNegativePseudo(t *testing.T) {
	st := []string{"0", "1", "2"}
	v := []data.Variable{{Name: "a", Kind: data.Discrete, States: st}, {Name: "b", Kind: data.Discrete, States: st}}
	d, err := data.FromDiscrete(v, [][]uint16{{0, 0, 1, 1, 2, 2}, {0, 1, 0, 1, 2, 0}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := stats.Compute(d, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []float64{-0.5, -5, math.NaN(), math.Inf(1)} {
		if _, _, err := Information(s, InfoOptions{Pseudo: p}); err == nil || !strings.Contains(err.Error(), "pseudo-count") {
			t.Errorf("Information with pseudo %g: %v", p, err)
		}
		if _, err := MutualInformation(s, p); err == nil || !strings.Contains(err.Error(), "pseudo-count") {
			t.Errorf("MutualInformation with pseudo %g: %v", p, err)
		}
	}
	if _, _, err := Information(s, InfoOptions{Pseudo: 0.5}); err != nil {
		t.Errorf("pseudo 0.5: %v", err)
	}
}
