package noisyor

import (
	"math"

	"github.com/latentree/latentree/model"
)

// NumParams returns κ, the number of free parameters: one prior per
// source, one failure per edge and one leak per effect.
func (n *Network) NumParams() int {
	return n.NumSources() + n.NumEdges() + n.NumEffects()
}

// Score summarises how well a network fits a dataset: model.Score's
// log-likelihood, BIC, AIC and BIC of Choi et al. (the same conventions),
// with the rows of probability 0 left out of the log-likelihood (counted
// in NonPositive), and how the rows were computed.
type Score struct {
	model.Score
	// Exact and Estimated count the rows computed exactly and by
	// importance sampling; StdErr is the standard error of the
	// log-likelihood due to the estimated rows.
	Exact     int     `json:"exact_rows"`
	Estimated int     `json:"estimated_rows"`
	StdErr    float64 `json:"loglik_se"`
	// FirstZero is the first row (from 1) with probability 0, or 0 (and
	// absent from JSON) when there is none.
	FirstZero int `json:"first_zero_row,omitempty"`
}

// Score derives the scores of the network from l, its likelihood of a
// dataset of rows rows (LogLikelihood of a Binary with that many rows).
// PerRow averages over the rows of positive probability; BIC and BICPaper
// penalise with the log of all rows.
func (n *Network) Score(l *Likelihood, rows int) *Score {
	k := n.NumParams()
	ll := l.FiniteLogLik
	s := &Score{Score: model.Score{Rows: rows, LogLik: ll, Params: k, Hidden: n.NumSources(), NonPositive: l.Zero},
		Exact: l.Exact, Estimated: l.Approx, StdErr: l.StdErr}
	if l.FirstZero >= 0 {
		s.FirstZero = l.FirstZero + 1
	}
	if pos := rows - l.Zero; pos > 0 {
		s.PerRow = ll / float64(pos)
	}
	if rows > 0 {
		s.BIC = -2*ll + float64(k)*math.Log(float64(rows))
		s.BICPaper = ll - 0.5*float64(k)*math.Log(float64(rows))
	}
	s.AIC = -2*ll + 2*float64(k)
	return s
}
