package regcl

import (
	"math"
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
	cont, _ := data.FromContinuous([]string{"a", "b", "c"}, [][]float64{{1, 2, 0}, {2, 3, 1}, {3, 5, 0}})
	if _, err := Learn(cont, Options{HiddenStates: 3}); err == nil {
		t.Error("hidden states accepted on continuous data")
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

// TestRegCLMissingAndContinuous learns the double star from data with 10%
// of cells missing, discrete and continuous (Gaussian), with both inner
// methods: hidden variables are found, every step improves the BIC, the
// final model's BIC (missing cells marginalised) beats the Chow–Liu
// tree's, and its log-likelihood is the one EM reported. (Whether the
// true tree is found depends on the Chow–Liu neighbourhoods, as without
// missing cells.)
func TestRegCLMissingAndContinuous(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 22))
	truth, _ := simulate.DoubleStar(5, 5)
	dm, err := simulate.Symmetric(rng, truth, simulate.SymmetricOptions{States: 2, ThetaMin: 0.05, ThetaMax: 0.15})
	if err != nil {
		t.Fatal(err)
	}
	dd, _ := dm.Sample(rng, 5000)
	gm, err := simulate.Gaussian(rng, truth, simulate.GaussianOptions{RhoMin: 0.3, RhoMax: 0.85})
	if err != nil {
		t.Fatal(err)
	}
	gd, _ := gm.Sample(rng, 5000)
	for _, c := range []struct {
		name string
		d    *data.Dataset
	}{{"discrete, 10% missing", mustBlank(t, dd, rng)}, {"continuous", gd}, {"continuous, 10% missing", mustBlank(t, gd, rng)}} {
		for _, inner := range []structure.Method{structure.MethodNJ, structure.MethodRG} {
			res, err := Learn(c.d, Options{Inner: inner})
			if err != nil {
				t.Fatalf("%s, %s: %v", c.name, inner, err)
			}
			if res.Tree.NumHidden() == 0 {
				t.Errorf("%s, %s: no hidden variable: %s", c.name, inner, res.Tree.Newick())
			}
			for _, s := range res.Steps {
				if s.DeltaBIC <= 0 {
					t.Errorf("%s, %s: step %+v did not improve the BIC", c.name, inner, s)
				}
			}
			sc, err := res.Model.Score(c.d, model.InferOptions{})
			if err != nil || math.IsNaN(sc.BIC) || math.IsInf(sc.BIC, 0) {
				t.Errorf("%s, %s: score %+v, %v", c.name, inner, sc, err)
			}
			if math.Abs(sc.LogLik-res.EM.LogLik) > 1e-6*math.Abs(sc.LogLik) {
				t.Errorf("%s, %s: EM log-likelihood %g, score %g", c.name, inner, res.EM.LogLik, sc.LogLik)
			}
			cl, _, err := structure.Learn(mst(t, c.d), structure.Options{Method: structure.MethodMST})
			if err != nil {
				t.Fatal(err)
			}
			clm, _, err := model.Fit(cl, c.d, model.FitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			csc, _ := clm.Score(c.d, model.InferOptions{})
			if sc.BIC >= csc.BIC {
				t.Errorf("%s, %s: BIC %g not below Chow–Liu's %g", c.name, inner, sc.BIC, csc.BIC)
			}
		}
	}
}

// mustBlank returns d with 10% of its cells missing at random.
func mustBlank(t *testing.T, d *data.Dataset, rng *rand.Rand) *data.Dataset {
	t.Helper()
	b, err := simulate.Blank(rng, d, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
