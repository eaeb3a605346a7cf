package model

import (
	"math"
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
