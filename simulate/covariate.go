package simulate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model/discrete"
)

// CovariateOptions configure Covariate. The zero value names the
// covariate "z" and gives it no effect.
type CovariateOptions struct {
	// Name is the covariate's column (default "z"); it must not be a
	// node of the model's tree.
	Name string
	// Slope is the covariate's effect: the log-odds of the root's state s
	// against state 0 change by Slope·s per unit of the covariate, a
	// standard deviation.
	Slope float64
}

// Covariate draws n rows of m whose root's state depends on a covariate:
// it draws the covariate standard normal on each row, gives m a root
// regression (m.Regression: intercepts log(Prior_s/Prior_0), so that at
// covariate 0 the root's shares are m's Prior, and slopes Slope·s) and
// draws each row given its covariate (discrete.Model.SampleCovariates).
// The rows hold the observed variables, then the covariate. m's Prior
// becomes the mean of the rows' priors of the root (their model-estimated
// shares, as a fit with covariates keeps them).
func Covariate(src rand.Source, m *discrete.Model, n int, opt CovariateOptions) (*data.Dataset, error) {
	if src == nil {
		return nil, errNoSource
	}
	if n < 0 {
		return nil, errors.New("simulate: negative number of rows")
	}
	if math.IsNaN(opt.Slope) || math.IsInf(opt.Slope, 0) {
		return nil, fmt.Errorf("simulate: covariate slope %g", opt.Slope)
	}
	name := opt.Name
	if name == "" {
		name = "z"
	}
	if _, ok := m.Tree.Lookup(name); ok {
		return nil, fmt.Errorf("simulate: covariate %q is also a node of the tree", name)
	}
	k := m.States[m.Root]
	reg := &discrete.RootRegression{Covariates: []discrete.Covariate{{Name: name}}, Beta: make([]float64, 2*k)}
	for s := 1; s < k; s++ {
		if !(m.Prior[s] > 0 && m.Prior[0] > 0) {
			return nil, fmt.Errorf("simulate: the root's prior has a state of probability 0 (%v): no regression reaches it", m.Prior)
		}
		reg.Beta[2*s], reg.Beta[2*s+1] = math.Log(m.Prior[s]/m.Prior[0]), opt.Slope*float64(s)
	}
	x, err := data.New([]data.Variable{{Name: name, Kind: data.Continuous}}, n)
	if err != nil {
		return nil, err
	}
	rng := rand.New(src)
	z := x.Continuous(0)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	m.Regression = reg
	d, err := m.SampleCovariates(rng, x)
	if err != nil {
		m.Regression = nil
		return nil, err
	}
	if n > 0 {
		pri, err := m.RowPriors(d)
		if err != nil {
			return nil, err
		}
		mean := make([]float64, k)
		for i := range n {
			for s := range k {
				mean[s] += pri[i*k+s] / float64(n)
			}
		}
		m.Prior = mean
	}
	return d, nil
}
