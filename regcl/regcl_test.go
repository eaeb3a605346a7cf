package regcl

import (
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

func TestRegCLFindsHiddenVariables(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	truth, _ := simulate.DoubleStar(5, 5)
	m, err := simulate.Symmetric(rng, truth, simulate.SymmetricOptions{States: 2, ThetaMin: 0.05, ThetaMax: 0.15})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := m.Sample(rng, 5000)
	for _, inner := range []structure.Method{structure.MethodRG, structure.MethodNJ} {
		res, err := Learn(d, Options{Inner: inner, Src: rng})
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Tree.Validate(); err != nil {
			t.Fatal(err)
		}
		// The double star's two hidden variables are found, and the tree
		// is the true one.
		rf, err := tree.RobinsonFoulds(truth, res.Tree)
		if err != nil {
			t.Fatal(err)
		}
		if res.Tree.NumHidden() != 2 || rf.RF != 0 {
			t.Errorf("%s: %d hidden, RF %d: %s", inner, res.Tree.NumHidden(), rf.RF, res.Tree.Newick())
		}
		for _, s := range res.Steps {
			if s.DeltaBIC <= 0 {
				t.Errorf("%s: step %+v did not improve the BIC", inner, s)
			}
		}
		// Its BIC beats the Chow–Liu tree's (no hidden variables).
		sc, _ := res.Model.Score(d, model.InferOptions{})
		cl, _, _ := structure.Learn(mst(t, d), structure.Options{Method: structure.MethodMST})
		clm, _ := discrete.ForData(cl, d, 2)
		if _, err := clm.FitEM(d, model.EMOptions{Restarts: -1, MaxIter: 2}); err != nil {
			t.Fatal(err)
		}
		csc, _ := clm.Score(d, model.InferOptions{})
		if sc.BIC >= csc.BIC {
			t.Errorf("%s: BIC %g not below Chow–Liu's %g", inner, sc.BIC, csc.BIC)
		}
	}
	// MaxHidden stops early.
	res, err := Learn(d, Options{Inner: structure.MethodRG, MaxHidden: 1})
	if err != nil {
		t.Fatal(err)
	}
	if h := res.Tree.NumHidden(); h < 1 || len(res.Steps) != 1 {
		t.Errorf("MaxHidden 1: %d hidden after %d steps", h, len(res.Steps))
	}
}

func TestRegCLErrors(t *testing.T) {
	few, _ := data.FromDiscrete([]data.Variable{{Name: "a", Kind: data.Discrete, States: []string{"0", "1"}}, {Name: "b", Kind: data.Discrete, States: []string{"0", "1"}}}, [][]uint16{{0, 1}, {1, 0}})
	if _, err := Learn(few, Options{}); err == nil {
		t.Error("two variables accepted")
	}
	cont, _ := data.FromContinuous([]string{"a", "b", "c"}, [][]float64{{1, 2}, {2, 3}, {3, 5}})
	if _, err := Learn(cont, Options{}); err == nil {
		t.Error("continuous data accepted")
	}
	if _, err := Learn(nil, Options{}); err == nil {
		t.Error("nil data accepted")
	}
}

// mst returns the information distances of d (for the Chow–Liu baseline).
func mst(t *testing.T, d *data.Dataset) *distanceMatrix {
	t.Helper()
	st, err := stats.Compute(d, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dm, _, err := distance.Information(st, distance.InfoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return dm
}

type distanceMatrix = distance.Matrix
