package experiment

import (
	"testing"

	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/tree"
)

// TestMixedExactTies: trees 18 and 49 of the experiment (seed 1) have
// continuous leaves at equal distances from their parents, so that the
// minimum spanning tree of CLGrouping met ties decided by the last bits of
// the distances, and CLNJ and CLRG learned a wrong split from exact
// distances (Robinson–Foulds 2). With ties broken towards the lower index
// every method recovers both trees.
func TestMixedExactTies(t *testing.T) {
	cfg, err := MixedConfig{Seed: 1}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{17, 48} {
		truth, err := mixedTree(cfg, i, false)
		if err != nil {
			t.Fatal(err)
		}
		m := truth.m
		obs := m.Tree.Observed()
		names := make([]string, len(obs))
		for k, v := range obs {
			names[k] = m.Tree.Name(v)
		}
		dm, err := distance.NewMatrix(names)
		if err != nil {
			t.Fatal(err)
		}
		exact, err := m.InformationDistances(obs)
		if err != nil {
			t.Fatal(err)
		}
		copy(dm.D, exact)
		for _, meth := range []learn.Method{learn.CLNJ, learn.CLRG, learn.NJ, learn.RG} {
			res, err := learn.FromDistances(dm, learn.Options{Method: meth, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			rf, err := tree.RobinsonFoulds(m.Tree, res.Tree)
			if err != nil {
				t.Fatal(err)
			}
			if rf.RF != 0 {
				t.Errorf("tree %d, %s from exact distances: Robinson–Foulds %d, want 0", i+1, meth, rf.RF)
			}
		}
	}
}
