package quartetlearn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/noisyor"
)

// TestMarginalLogLikMatchesJoint: the subset-product route of
// marginalLogLik gives the log-likelihood of Network.Joint's table.
func TestMarginalLogLikMatchesJoint(t *testing.T) {
	n, err := noisyor.RandomNetwork(rand.NewPCG(3, 4), noisyor.RandomOptions{Sources: 6, Effects: 12, MinChildren: 3, MaxChildren: 7})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, set := range [][]int{{0}, {1, 4}, {2, 5, 7, 9}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}} {
		counts := make([]float64, 1<<len(set))
		for i := range counts {
			counts[i] = float64(rng.IntN(5))
		}
		joint, err := n.Joint(set)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for m, c := range counts {
			want += c * math.Log(joint[m])
		}
		got, ok := marginalLogLik(n, set, counts)
		if !ok || math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("set %v: %v (ok %v), want %v", set, got, ok, want)
		}
	}
}

// TestPatternCounts: counts by pattern over the rows observing the set,
// against Binary.Value row by row.
func TestPatternCounts(t *testing.T) {
	n, err := noisyor.RandomNetwork(rand.NewPCG(1, 1), noisyor.RandomOptions{Sources: 4, Effects: 8, MinChildren: 2, MaxChildren: 4})
	if err != nil {
		t.Fatal(err)
	}
	b := sampleBinary(t, n, 3, 1000, 0.1)
	set := []int{6, 1, 3}
	counts, rows := patternCounts(b, set)
	want := make([]float64, 8)
	wantRows := 0
rowLoop:
	for r := range b.Rows {
		m := 0
		for i, a := range set {
			v := b.Value(a, r)
			if v < 0 {
				continue rowLoop
			}
			m |= v << (len(set) - 1 - i)
		}
		want[m]++
		wantRows++
	}
	if rows != wantRows {
		t.Fatalf("rows %d, want %d", rows, wantRows)
	}
	for m := range want {
		if counts[m] != want[m] {
			t.Errorf("pattern %03b: %v, want %v", m, counts[m], want[m])
		}
	}
}

// TestPruneLocal: on data from the truth, a true source marked depth 1 is
// kept and invented ones (a tiny prior, a prior above 1/2, a source over
// independent effects) are dropped, with the leaks re-estimated.
func TestPruneLocal(t *testing.T) {
	truth := netFrom(12, []float64{0.2, 0.3}, [][]int{{0, 1, 2, 3, 4}, {5, 6, 7, 8}}, []float64{0.1, 0.2}, 0.01)
	b := sampleBinary(t, truth, 4, 20000, 0)
	n := truth.Clone()
	for i := range n.Sources {
		n.Sources[i].Learned = &noisyor.Provenance{Depth: i}
	}
	fake := func(prior float64, kids ...int) noisyor.Source {
		var ch []noisyor.Child
		for _, a := range kids {
			ch = append(ch, noisyor.Child{Effect: a, Failure: 0.3})
		}
		return noisyor.Source{Name: "F", Prior: prior, Children: ch, Learned: &noisyor.Provenance{Depth: 1}}
	}
	n.Sources = append(n.Sources, fake(0.0001, 9, 10, 11, 0), fake(0.9, 2, 6, 9, 10), fake(0.2, 9, 10, 11, 3))
	for i := range n.Sources {
		n.Sources[i].Name = string(rune('A' + i))
	}
	dropped := pruneLocal(n, b)
	for _, s := range n.Sources {
		t.Logf("kept %s prior %v", s.Name, s.Prior)
	}
	if len(dropped) != 3 || len(n.Sources) != 2 {
		t.Fatalf("dropped %d, kept %d sources; want 3 and 2", len(dropped), len(n.Sources))
	}
	for i, s := range n.Sources {
		if s.Name != string(rune('A'+i)) {
			t.Errorf("kept %s at %d", s.Name, i)
		}
	}
	if err := n.Validate(); err != nil {
		t.Fatal(err)
	}
	for a, v := range n.Leak {
		if math.Abs(v-0.01) > 0.01 {
			t.Errorf("leak of %d re-estimated as %v, truth 0.01", a, v)
		}
	}
}
