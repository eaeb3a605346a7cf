package discrete_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latentree/latentree/simulate"
)

// PairMarginalsNear and EdgeDistances give exactly what PairMarginal and
// InformationDistance give, pair by pair.
func TestNearMarginalsAndEdgeDistances(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	tr, err := simulate.RandomMinimal(rng, 15, simulate.MinimalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := simulate.General(rng, tr, simulate.GeneralOptions{ObservedStates: 3, HiddenMin: 2, HiddenMax: 3})
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]int
	nodes := tr.Nodes()
	for _, u := range nodes {
		for _, v := range nodes {
			pairs = append(pairs, [2]int{u, v})
		}
	}
	got := m.PairMarginalsNear(pairs)
	near := 0
	for i, p := range pairs {
		if got[i] == nil {
			continue
		}
		near++
		if want := m.PairMarginal(p[0], p[1]); !slices.Equal(got[i], want) {
			t.Fatalf("pair %v: %v, PairMarginal %v", p, got[i], want)
		}
	}
	if near <= len(nodes)*3 {
		t.Fatalf("only %d pairs within two edges", near)
	}
	d := m.EdgeDistances()
	for i, e := range tr.Edges() {
		want, err := m.InformationDistance(e.U, e.V)
		if err != nil {
			want = math.NaN()
		}
		if !(d[i] == want || math.IsNaN(d[i]) && math.IsNaN(want)) {
			t.Errorf("edge %v: %g, InformationDistance %g", e, d[i], want)
		}
	}
}
