package gaussian_test

import (
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/simulate"
)

// TestFitPhases checks that a Gaussian fit reports its E-steps as the one
// phase of its run (model.EMResult.Phases): no restarts, no warm-up.
func TestFitPhases(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tr, err := simulate.RandomBinary(rng, 10, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	g, err := simulate.Gaussian(rng, tr, simulate.GaussianOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := g.Sample(rand.NewPCG(3, 4), 500)
	if err != nil {
		t.Fatal(err)
	}
	for _, accel := range []model.Accel{model.AccelSQUAREM, model.AccelNone} {
		_, res, err := gaussian.Fit(tr, d, gaussian.Options{Accel: accel})
		if err != nil {
			t.Fatal(err)
		}
		ph := res.Phases
		if ph.Full.ESteps != res.Iterations || res.Iterations == 0 || ph.ESteps() != res.Iterations || !(ph.Full.Seconds > 0) {
			t.Errorf("%v: Iterations %d, phases %+v", accel, res.Iterations, ph)
		}
	}
}
