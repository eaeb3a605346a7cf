package discrete_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/simulate"
)

// The default EM (SQUAREM, StopAuto) against the protocol of Song et al.
// (2013): plain EM stopped at relative change 1e-4. Iterations count
// E-steps.
func ExampleModel_FitEM() {
	rng := rand.New(rand.NewPCG(4, 2))
	t, _ := simulate.RandomBinary(rng, 8, 0.5)
	truth, _ := simulate.General(rng, t, simulate.GeneralOptions{ObservedStates: 4, HiddenStates: 2, Alpha: 2})
	d, _ := truth.Sample(rng, 5000)
	for _, opt := range []model.EMOptions{
		{Accel: model.AccelNone, Stop: model.StopRelative, Tol: 1e-4},
		{},
	} {
		m, _ := discrete.ForData(t, d, 2)
		res, err := m.FitEM(d, opt)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-7v %-8v log-likelihood %.1f after %d E-steps\n", opt.Accel, opt.Stop, res.LogLik, res.Iterations)
	}
	// Output:
	// none    relative log-likelihood -33640.1 after 36 E-steps
	// squarem auto     log-likelihood -33459.6 after 109 E-steps
}
