package model

import (
	"fmt"
	"math"
)

// PosteriorEntropy summarises how sharply the posteriors of one discrete
// node (a Conditional) assign the rows to its K states, over the n rows
// whose posterior is defined (rows with a NaN probability, of probability
// 0 under the model, are left out), p_ik = P(node = k | row i):
//
//   - Shares: π_k = Σ_i p_ik / n, the model-estimated shares.
//   - Entropy: the mean posterior entropy E = −Σ_i Σ_k p_ik ln p_ik / n
//     (nats).
//   - EntropyR2: LatentGOLD's entropy R², 1 − E / E₀ with E₀ =
//     −Σ_k π_k ln π_k, the entropy of the shares (1 when E₀ = 0).
//   - RelativeEntropy: Mplus's "entropy", 1 − E / ln K (1 when K = 1).
//
// Both are clamped to [0, 1] against rounding.
type PosteriorEntropy struct {
	Rows            int
	Shares          []float64
	Entropy         float64
	EntropyR2       float64
	RelativeEntropy float64
}

// EntropyOf returns the PosteriorEntropy of c's posteriors. A node
// without states, probabilities that are not a whole number of rows, or
// no row with a defined posterior are errors.
func EntropyOf(c Conditional) (*PosteriorEntropy, error) {
	return EntropyOfWeighted(c, nil)
}

// EntropyOfWeighted is EntropyOf with row weights w (one per row of c,
// as data.Dataset.RowWeights; nil: 1 each): the sums over rows are
// weighted and n is the weight of the rows with a defined posterior.
func EntropyOfWeighted(c Conditional, w []float64) (*PosteriorEntropy, error) {
	k := len(c.Labels)
	name := fmt.Sprintf("node %d", c.Node)
	if c.Name != "" {
		name = fmt.Sprintf("%q", c.Name)
	}
	if k == 0 {
		return nil, fmt.Errorf("model: %s has no states", name)
	}
	if len(c.Prob)%k != 0 {
		return nil, fmt.Errorf("model: %s: %d probabilities for %d states", name, len(c.Prob), k)
	}
	if w != nil && len(w) != len(c.Prob)/k {
		return nil, fmt.Errorf("model: %s: %d weights for %d rows", name, len(w), len(c.Prob)/k)
	}
	q := &PosteriorEntropy{Shares: make([]float64, k)}
	ent, n := 0.0, 0.0
rows:
	for r := 0; r < len(c.Prob)/k; r++ {
		p := c.Row(r)
		for _, x := range p {
			if math.IsNaN(x) {
				continue rows
			}
		}
		q.Rows++
		wr := 1.0
		if w != nil {
			wr = w[r]
		}
		n += wr
		for s, x := range p {
			q.Shares[s] += wr * x
			if x > 0 {
				ent -= wr * x * math.Log(x)
			}
		}
	}
	if q.Rows == 0 || !(n > 0) {
		return nil, fmt.Errorf("model: %s: every row of the data has probability 0 under the model", name)
	}
	for s := range q.Shares {
		q.Shares[s] /= n
	}
	q.Entropy = max(ent/n, 0)
	e0 := 0.0
	for _, x := range q.Shares {
		if x > 0 {
			e0 -= x * math.Log(x)
		}
	}
	q.EntropyR2, q.RelativeEntropy = 1, 1
	if e0 > 0 {
		q.EntropyR2 = min(max(1-q.Entropy/e0, 0), 1)
	}
	if k > 1 {
		q.RelativeEntropy = min(max(1-q.Entropy/math.Log(float64(k)), 0), 1)
	}
	return q, nil
}
