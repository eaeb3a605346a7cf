package structure

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

// exactInput returns the observed names and the exact Gaussian distance
// matrix of a random model on tr.
func exactInput(t *testing.T, rng *rand.Rand, tr *tree.Tree) ([]string, []float64) {
	t.Helper()
	g, err := simulate.Gaussian(rng, tr, simulate.GaussianOptions{})
	if err != nil {
		t.Fatal(err)
	}
	obs := tr.Observed()
	names := make([]string, len(obs))
	for i, v := range obs {
		names[i] = tr.Name(v)
	}
	return names, g.Distances(obs)
}

func observedTree(t *testing.T, names []string) *tree.Tree {
	tr := tree.New()
	for _, n := range names {
		if _, err := tr.AddObserved(n); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

func sameTree(t *testing.T, what string, truth, got *tree.Tree) bool {
	t.Helper()
	if err := got.Validate(); err != nil {
		t.Errorf("%s: invalid tree: %v", what, err)
		return false
	}
	rf, err := tree.RobinsonFoulds(truth, got)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if rf.RF != 0 || truth.NumHidden() != got.NumHidden() {
		t.Errorf("%s: RF %d, hidden %d (true %d)\ntrue %s\ngot  %s", what, rf.RF, got.NumHidden(), truth.NumHidden(), truth.Newick(), got.Newick())
		return false
	}
	return true
}

var exactRG = RGOptions{}

func TestExactRecoveryMinimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	trials := 200
	if testing.Short() {
		trials = 40
	}
	for it := 0; it < trials; it++ {
		m := 4 + rng.IntN(40)
		if it%20 == 0 {
			m = 100 + rng.IntN(51)
		}
		truth, err := simulate.RandomMinimal(rng, m, simulate.MinimalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		names, D := exactInput(t, rng, truth)

		rgTree := observedTree(t, names)
		if _, err := rg(rgTree, ids(m), D, exactRG); err != nil {
			t.Fatal(err)
		}
		rgTree.SuppressHidden()
		sameTree(t, "RG", truth, rgTree)

		clrg, _, err := clgroup(names, D, 0, false, DefaultContract, func(t *tree.Tree, ids []int, d []float64) (int, error) { return rg(t, ids, d, exactRG) })
		if err != nil {
			t.Fatal(err)
		}
		clrg.SuppressHidden()
		sameTree(t, "CLRG", truth, clrg)

		clnj, _, err := clgroup(names, D, 0, true, DefaultContract, nj)
		if err != nil {
			t.Fatal(err)
		}
		clnj.SuppressHidden()
		if _, err := contractShort(clnj, 1e-9, 1e-9); err != nil {
			t.Fatal(err)
		}
		sameTree(t, "CLNJ", truth, clnj)
		if t.Failed() {
			t.Fatalf("trial %d (m=%d) failed", it, m)
		}
	}
}

func TestExactNJBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for it := 0; it < 100; it++ {
		m := 3 + rng.IntN(60)
		truth, err := simulate.RandomBinary(rng, m, 0.2+0.6*rng.Float64())
		if err != nil {
			t.Fatal(err)
		}
		names, D := exactInput(t, rng, truth)
		got := observedTree(t, names)
		if _, err := nj(got, ids(m), D); err != nil {
			t.Fatal(err)
		}
		if !sameTree(t, "NJ", truth, got) {
			t.Fatalf("trial %d", it)
		}
		// Edge lengths are the exact distances.
		for _, e := range got.Edges() {
			if math.IsNaN(e.Length) || e.Length < 0 {
				t.Fatalf("bad length %g", e.Length)
			}
		}
	}
}
