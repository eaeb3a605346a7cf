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
	if s, ok := m.(*Spectral); ok {
		sign, la, err := s.logProb(d, opt)
		if err != nil {
			return nil, nil, err
		}
		prob = make([]float64, len(sign))
		for i := range la {
			prob[i] = sign[i] * math.Exp(la[i])
			if sign[i] <= 0 {
				la[i] = math.NaN()
			}
		}
		return prob, la, nil
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
