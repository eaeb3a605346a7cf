package model

import (
	"math"

	"github.com/latentree/latentree/data"
)

// RowLikelihoods returns, for every row of d in order, the model's
// probability of the row's observed cells (a density for a Gaussian model;
// P̂, possibly ≤ 0, for a Spectral model) and its natural log (NaN where
// the probability is ≤ 0). The log is computed directly, so it stays
// finite where the probability underflows to 0.
func RowLikelihoods(m Model, d *data.Dataset, opt InferOptions) (prob, loglik []float64, err error) {
	if s, ok := m.(interface {
		Prob(*data.Dataset, InferOptions) ([]float64, error)
	}); ok {
		p, err := s.Prob(d, opt)
		if err != nil {
			return nil, nil, err
		}
		ll := make([]float64, len(p))
		for i, x := range p {
			ll[i] = math.NaN()
			if x > 0 {
				ll[i] = math.Log(x)
			}
		}
		return p, ll, nil
	}
	ll, _, err := m.LogLikelihood(d, opt)
	if err != nil {
		return nil, nil, err
	}
	prob = make([]float64, len(ll))
	for i, x := range ll {
		prob[i] = math.Exp(x)
	}
	return prob, ll, nil
}
