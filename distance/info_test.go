package distance

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/stats"
)

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
