package spectral_test

import (
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/model"
	_ "github.com/latentree/latentree/model/spectral" // registers the spectral start
	"github.com/latentree/latentree/simulate"
)

// TestSpectralStart: on random 12-leaf trees (4-state observed, 2-state
// hidden, 20,000 rows), EM from the spectral start reaches at least the
// log-likelihood of EM from 5 random restarts (to within 1e-6 relative),
// in fewer E-steps in total.
func TestSpectralStart(t *testing.T) {
	if testing.Short() {
		t.Skip("statistical run")
	}
	for seed := uint64(1); seed <= 3; seed++ {
		tr, err := simulate.RandomBinary(rand.NewPCG(seed, 1), 12, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		truth, err := simulate.General(rand.NewPCG(seed, 2), tr, simulate.GeneralOptions{ObservedStates: 4, HiddenStates: 2})
		if err != nil {
			t.Fatal(err)
		}
		d, err := truth.Sample(rand.NewPCG(seed, 3), 20000)
		if err != nil {
			t.Fatal(err)
		}
		_, spec, err := model.Fit(tr, d, model.FitOptions{Init: model.InitSpectral})
		if err != nil {
			t.Fatal(err)
		}
		_, rnd, err := model.Fit(tr, d, model.FitOptions{Init: model.InitRandom, EM: model.EMOptions{Restarts: 5, Src: rand.NewPCG(seed, 4)}})
		if err != nil {
			t.Fatal(err)
		}
		rndSteps := rnd.Iterations + 5*10
		t.Logf("seed %d: spectral start %.2f in %d iterations; 5 random restarts %.2f in %d", seed, spec.LogLik, spec.Iterations, rnd.LogLik, rndSteps)
		if spec.LogLik < rnd.LogLik-1e-6*-rnd.LogLik {
			t.Errorf("seed %d: spectral start reached %.2f, random restarts %.2f", seed, spec.LogLik, rnd.LogLik)
		}
		if spec.Iterations >= rndSteps {
			t.Errorf("seed %d: spectral start took %d iterations, random restarts %d", seed, spec.Iterations, rndSteps)
		}
	}
}
