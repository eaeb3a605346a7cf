package mixed_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/simulate"
)

// model.Fit with AutoStates on mixed data keeps the uniform number of
// states of lowest BIC among 2 to 5: on a double star whose two discrete
// hidden nodes have 3 well separated states it finds 3, and its BIC is
// that of the fit with 3 states.
func TestFitAutoStatesMixed(t *testing.T) {
	tr, err := simulate.DoubleStar(5, 5)
	if err != nil {
		t.Fatal(err)
	}
	truth, err := simulate.Mixed(rand.NewPCG(4, 4), tr, simulate.MixedOptions{HiddenMin: 3, HiddenMax: 3, ObservedMin: 3, ObservedMax: 4, Separation: 3})
	if err != nil {
		t.Fatal(err)
	}
	d, err := truth.Sample(rand.NewPCG(5, 5), 3000)
	if err != nil {
		t.Fatal(err)
	}
	m, res, err := model.Fit(truth.Tree.Clone(), d, model.FitOptions{AutoStates: true})
	if err != nil {
		t.Fatal(err)
	}
	mm := m.(*mixed.Model)
	bic := func(m model.Model, ll float64) float64 {
		return -2*ll + float64(m.NumParams())*math.Log(float64(d.NumRows()))
	}
	for _, h := range mm.Tree.Hidden() {
		if mm.Kinds[h] == data.Discrete && mm.States[h] != 3 {
			t.Errorf("hidden node %s has %d states, want 3", mm.Tree.Name(h), mm.States[h])
		}
	}
	for _, k := range mixed.AutoStatesRange {
		mk, rk, err := model.Fit(truth.Tree.Clone(), d, model.FitOptions{HiddenStates: k})
		if err != nil {
			t.Fatal(err)
		}
		if bic(mk, rk.LogLik) < bic(m, res.LogLik)-1e-6 {
			t.Errorf("%d states: BIC %.2f, below the chosen model's %.2f", k, bic(mk, rk.LogLik), bic(m, res.LogLik))
		}
	}
}
