package model

import (
	"math"

	"github.com/latentree/latentree/data"
)

// signedLikelihood is a model whose estimate of a row's probability may be
// ≤ 0 (a spectral model): SignedLogProb returns, for every row, the sign
// of the estimate and the log of its absolute value.
type signedLikelihood interface {
	SignedLogProb(d *data.Dataset, opt InferOptions) (sign, logAbs []float64, err error)
}

// RowLikelihoods returns, for every row of d in order, the model's
// probability of the row's observed cells (a density for a Gaussian model;
// P̂, possibly ≤ 0, for a spectral model) and its natural log (NaN where
// the probability is ≤ 0). The log is computed directly, so it stays
// finite where the probability underflows to 0.
func RowLikelihoods(m Model, d *data.Dataset, opt InferOptions) (prob, loglik []float64, err error) {
	if s, ok := m.(signedLikelihood); ok {
		sign, la, err := s.SignedLogProb(d, opt)
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
