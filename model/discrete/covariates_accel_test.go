package discrete_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/internal/testenv"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
)

// TestCovariatesSQUAREM: EM with covariates accelerated by SQUAREM (the
// default) reaches the plain EM's optimum (log-likelihood within 1e-6
// per row, the same coefficients within 1e-3), never lowers the
// log-likelihood along its trace, and takes fewer E-steps, here with
// three classes and (LATENTREE_LONG) with five, more than the data's
// three, where plain EM is slow (1,491 E-steps against SQUAREM's 469).
func TestCovariatesSQUAREM(t *testing.T) {
	d := testCov.sample(t, 1500, 31, 0)
	for _, k := range testenv.Pick([]int{3}, []int{3, 5}) {
		fit := func(accel model.Accel) (*discrete.Model, *model.EMResult) {
			tr, _ := lcmTree(t, 6)
			m, err := discrete.ForVariables(tr, d.Vars()[:6], k)
			if err != nil {
				t.Fatal(err)
			}
			res, err := m.FitCovariates(d, []string{"z", "g"}, model.EMOptions{Src: rand.NewPCG(5, 6), Restarts: 3, Accel: accel, Stop: model.StopRelative, Tol: 1e-10, MaxIter: 20000})
			if err != nil {
				t.Fatal(err)
			}
			return m, res
		}
		mp, rp := fit(model.AccelNone)
		ms, rs := fit(model.AccelSQUAREM)
		n := float64(d.NumRows())
		t.Logf("%d classes: plain EM %d E-steps (log-likelihood %.6f), SQUAREM %d (%.6f)", k, rp.Phases.Full.ESteps, rp.LogLik, rs.Phases.Full.ESteps, rs.LogLik)
		if math.Abs(rs.LogLik-rp.LogLik) > 1e-6*n {
			t.Errorf("%d classes: log-likelihood %.6f with SQUAREM, %.6f plain", k, rs.LogLik, rp.LogLik)
		}
		if rs.Phases.Full.ESteps >= rp.Phases.Full.ESteps {
			t.Errorf("%d classes: SQUAREM %d E-steps, plain %d", k, rs.Phases.Full.ESteps, rp.Phases.Full.ESteps)
		}
		tr := rs.Trace[len(rs.Trace)-rs.Phases.Full.ESteps:]
		for i := 1; i < len(tr); i++ {
			if tr[i] < tr[i-1]-1e-9*math.Abs(tr[i-1]) {
				t.Errorf("%d classes: the trace falls at E-step %d: %.9f → %.9f", k, i+1, tr[i-1], tr[i])
				break
			}
		}
		if k == 3 {
			for i, b := range ms.Regression.Beta {
				if math.Abs(b-mp.Regression.Beta[i]) > 1e-3 {
					t.Errorf("coefficient %d: %.5f with SQUAREM, %.5f plain", i, b, mp.Regression.Beta[i])
				}
			}
		}
	}
}
