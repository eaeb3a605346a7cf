package explain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/simulate"
)

// Frequency weights: the classification quality and the bivariate
// residuals of a table of rows with counts are those of its expanded rows.
func TestWeightsClassifyAndResiduals(t *testing.T) {
	tr, err := simulate.DoubleStar(3, 3)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simulate.Symmetric(rand.NewPCG(3, 1), tr, simulate.SymmetricOptions{States: 2})
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Sample(rand.NewPCG(4, 1), 60)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 1))
	w := make([]float64, d.NumRows())
	var rows []int
	for r := range w {
		w[r] = float64(rng.IntN(4)) // some 0
		for range int(w[r]) {
			rows = append(rows, r)
		}
	}
	expanded, err := d.Rows(rows)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.SetWeights(w, data.Frequency); err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a)) }
	c1, err := ClassifyModel(m, d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c2, err := ClassifyModel(m, expanded, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range c1 {
		a, b := c1[i], c2[i]
		ok := a.Rows == b.Rows && near(a.EntropyR2, b.EntropyR2) && near(a.RelativeEntropy, b.RelativeEntropy) && near(a.Error, b.Error)
		for s := range a.ModelShares {
			ok = ok && near(a.ModelShares[s], b.ModelShares[s]) && near(a.ModalShares[s], b.ModalShares[s])
			for u := range a.Table[s] {
				ok = ok && near(a.Table[s][u], b.Table[s][u]) && near(a.AvePP[s][u], b.AvePP[s][u])
			}
		}
		if !ok {
			t.Errorf("node %d: %+v weighted, %+v expanded", a.Node, a, b)
		}
	}
	r1, err := BivariateResiduals(m, d)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := BivariateResiduals(m, expanded)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r1 {
		if r1[i].A != r2[i].A || r1[i].B != r2[i].B || !near(r1[i].Chi2, r2[i].Chi2) || r1[i].Rows != r2[i].Rows {
			t.Errorf("residual %d: %+v weighted, %+v expanded", i, r1[i], r2[i])
		}
	}
}
