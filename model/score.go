package model

import (
	"math"

	"github.com/latentree/latentree/data"
)

// Score summarises how well a model fits a dataset. Conventions:
// BIC = −2 log L + κ log n and AIC = −2 log L + 2κ (smaller is better);
// BICPaper = log L − (κ/2) log n is the convention of Choi et al. (2011,
// Table 4) (larger is better). Logs are natural.
type Score struct {
	Rows     int     `json:"rows"`
	LogLik   float64 `json:"loglik"`
	PerRow   float64 `json:"loglik_per_row"`
	Params   int     `json:"params"`
	BIC      float64 `json:"bic"`
	BICPaper float64 `json:"bic_paper"`
	AIC      float64 `json:"aic"`
	Hidden   int     `json:"hidden"`
	// NonPositive counts the rows whose estimated probability is ≤ 0 (a
	// spectral model's P̂ can be); LogLik sums over the other rows.
	NonPositive int `json:"nonpositive_rows,omitempty"`
	// N is the sample size of BIC and PerRow when the rows are weighted
	// (data.Dataset.SampleSize: the sum of frequency weights, the number
	// of rows for sampling weights), and WeightKind the weights' kind;
	// 0 and "" without weights (n is then Rows).
	N          float64 `json:"n,omitempty"`
	WeightKind string  `json:"weight_kind,omitempty"`
}

// NewScore derives the scores from a log-likelihood of n rows and κ
// parameters.
func NewScore(ll float64, n, k, hidden int) *Score {
	s := &Score{Rows: n, LogLik: ll, Params: k, Hidden: hidden}
	if n > 0 {
		s.PerRow = ll / float64(n)
		s.BIC = -2*ll + float64(k)*math.Log(float64(n))
		s.BICPaper = ll - 0.5*float64(k)*math.Log(float64(n))
	}
	s.AIC = -2*ll + 2*float64(k)
	return s
}

// ScoreOf derives the scores from a log-likelihood ll of the (weighted)
// rows of d and κ parameters: n is d.SampleSize(), so that a table of
// distinct rows with frequency weights scores as the expanded table.
func ScoreOf(ll float64, d *data.Dataset, k, hidden int) *Score {
	if !d.Weighted() {
		return NewScore(ll, d.NumRows(), k, hidden)
	}
	n := d.SampleSize()
	s := &Score{Rows: d.NumRows(), LogLik: ll, Params: k, Hidden: hidden, N: n, WeightKind: d.WeightKind().String()}
	if n > 0 {
		s.PerRow = ll / n
		s.BIC = -2*ll + float64(k)*math.Log(n)
		s.BICPaper = ll - 0.5*float64(k)*math.Log(n)
	}
	s.AIC = -2*ll + 2*float64(k)
	return s
}
