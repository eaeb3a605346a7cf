package stats

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
)

// naiveQuartet counts the four-way table directly.
func naiveQuartet(d *data.Dataset, vars [4]int) []int64 {
	var n [4]int
	size := 1
	for k, j := range vars {
		n[k] = d.Var(j).NumStates()
		size *= n[k]
	}
	tab := make([]int64, size)
rows:
	for r := 0; r < d.NumRows(); r++ {
		idx := 0
		for k, j := range vars {
			x := d.Discrete(j)[r]
			if x == data.Missing {
				continue rows
			}
			idx = idx*n[k] + int(x)
		}
		tab[idx]++
	}
	return tab
}

func TestQuartet(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	d := randDataset(t, rng, 2000, specs(8, []int{2, 3, 5, 2, 0, 4}, []float64{0, 0.1}))
	var disc []int
	for j := 0; j < d.NumVars(); j++ {
		if d.Var(j).Kind == data.Discrete {
			disc = append(disc, j)
		}
	}
	var dst []int64
	for trial := 0; trial < 40; trial++ {
		p := rng.Perm(len(disc))
		q := [4]int{disc[p[0]], disc[p[1]], disc[p[2]], disc[p[3]]}
		want := naiveQuartet(d, q)
		var err error
		dst, err = Quartet(d, q, dst)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(dst) != fmt.Sprint(want) {
			t.Fatalf("Quartet(%v) = %v, want %v", q, dst, want)
		}
	}
	// Marginalising a quartet table gives the pair table.
	s := mustCompute(t, d, Options{})
	q := [4]int{disc[0], disc[1], disc[2], disc[3]}
	tab, _ := Quartet(d, q, nil)
	n := [4]int{}
	for k, j := range q {
		n[k] = d.Var(j).NumStates()
	}
	pair := make([]int64, n[0]*n[1])
	for i, c := range tab {
		pair[i/(n[2]*n[3])] += c
	}
	// Rows missing in q[2] or q[3] are excluded from the quartet, so the
	// marginal is at most the pair table.
	full := s.Pair(q[0], q[1], nil)
	for i := range pair {
		if pair[i] > full[i] {
			t.Fatalf("quartet marginal %v exceeds pair table %v", pair, full)
		}
	}
}

// TestQuartetFixture checks a hand-counted table.
func TestQuartetFixture(t *testing.T) {
	M := data.Missing
	vars := []data.Variable{
		{Name: "a", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "b", Kind: data.Discrete, States: []string{"0", "1", "2"}},
		{Name: "c", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "d", Kind: data.Discrete, States: []string{"0", "1"}},
	}
	d, err := data.FromDiscrete(vars, [][]uint16{
		{0, 1, 1, 0, 1},
		{2, 0, 0, 1, 2},
		{1, 1, 1, 0, M},
		{0, 1, 1, 1, 0},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Quartet(d, [4]int{0, 1, 2, 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int64, 24)
	idx := func(a, b, c, d int) int { return ((a*3+b)*2+c)*2 + d }
	want[idx(0, 2, 1, 0)] = 1
	want[idx(1, 0, 1, 1)] = 2
	want[idx(0, 1, 0, 1)] = 1
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Quartet = %v, want %v", got, want)
	}
	// Reordered variables: (d, c, b, a).
	got, _ = Quartet(d, [4]int{3, 2, 1, 0}, nil)
	if got[((1*2+1)*3+0)*2+1] != 2 || got[((0*2+1)*3+2)*2+0] != 1 {
		t.Errorf("reordered Quartet = %v", got)
	}
}

func TestQuartetErrors(t *testing.T) {
	d, err := data.New([]data.Variable{
		{Name: "a", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "b", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "c", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "d", Kind: data.Discrete, States: []string{"0", "1", "2"}},
		{Name: "x", Kind: data.Continuous},
	}, 10)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		q    [4]int
		want string
	}{
		{[4]int{0, 1, 2, 4}, `"x" is not discrete`},
		{[4]int{0, 1, 2, 1}, `repeats variable "b"`},
		{[4]int{0, 1, 2, 5}, "out of range"},
		{[4]int{-1, 1, 2, 3}, "out of range"},
	}
	for _, c := range cases {
		if _, err := Quartet(d, c.q, nil); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "stats: ") {
			t.Errorf("Quartet(%v): got %v, want %q", c.q, err, c.want)
		}
	}
	if _, err := Quartet(nil, [4]int{0, 1, 2, 3}, nil); err == nil {
		t.Error("nil dataset: no error")
	}
	d.Discrete(3)[7] = 3
	want := `row 8, variable "d": state code 3 out of range`
	if _, err := Quartet(d, [4]int{0, 1, 2, 3}, nil); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("invalid code: got %v", err)
	}
	// A missing cell elsewhere in the row does not hide the invalid code.
	d.Discrete(0)[7] = data.Missing
	if _, err := Quartet(d, [4]int{0, 1, 2, 3}, nil); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("invalid code in a row with a missing cell: got %v", err)
	}
}
