package simulate_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/simulate"
)

// TestCovariate: the regression Covariate gives the root (intercepts
// log(Prior_s/Prior_0), slopes Slope·s), the rows' covariate column, the
// Prior it leaves (the mean of the rows' softmax priors, computed here by
// hand), and that a latent class model with covariates fitted to the rows
// recovers the slope within 4 standard errors.
func TestCovariate(t *testing.T) {
	src := rand.NewPCG(4, 1)
	tr, err := simulate.Star(6)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simulate.Symmetric(src, tr, simulate.SymmetricOptions{ThetaMin: 0.1, ThetaMax: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	prior := slices.Clone(m.Prior)
	const n, slope = 3000, 1.2
	d, err := simulate.Covariate(src, m, n, simulate.CovariateOptions{Slope: slope})
	if err != nil {
		t.Fatal(err)
	}
	reg := m.Regression
	if want := []float64{0, 0, math.Log(prior[1] / prior[0]), slope}; len(reg.Beta) != 4 || math.Abs(reg.Beta[2]-want[2]) > 1e-15 || reg.Beta[3] != slope || reg.Beta[0] != 0 || reg.Beta[1] != 0 {
		t.Fatalf("coefficients %v, want %v", reg.Beta, want)
	}
	j, ok := d.Index("z")
	if !ok || j != d.NumVars()-1 || d.NumVars() != 7 || d.NumRows() != n {
		t.Fatalf("columns %v", d.Vars())
	}
	mean := 0.0
	for _, z := range d.Continuous(j) {
		eta := reg.Beta[2] + slope*z
		mean += 1 / (1 + math.Exp(-eta)) / n
	}
	if math.Abs(m.Prior[1]-mean) > 1e-12 || math.Abs(m.Prior[0]+m.Prior[1]-1) > 1e-12 {
		t.Errorf("prior %v, want the rows' mean share %.15f of state 1", m.Prior, mean)
	}

	fit, _, err := discrete.FitWithCovariates(tr.Clone(), d, []string{"z"}, model.FitOptions{EM: model.EMOptions{Src: rand.NewPCG(2, 2), Restarts: 3}})
	if err != nil {
		t.Fatal(err)
	}
	se, err := fit.StandardErrors(d, discrete.SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Canonical labels may swap the states: the slope's sign then flips.
	got := math.Abs(fit.Regression.Beta[3])
	if math.Abs(got-slope) > 4*se.Beta[3] {
		t.Errorf("fitted slope ±%.3f (SE %.3f), want %g", got, se.Beta[3], slope)
	}

	if _, err := simulate.Covariate(src, m, 10, simulate.CovariateOptions{Name: tr.Name(tr.Observed()[0])}); err == nil || !strings.Contains(err.Error(), "node of the tree") {
		t.Errorf("a covariate named as a node: %v", err)
	}
}
