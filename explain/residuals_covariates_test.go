package explain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/simulate"
)

// TestBivariateResidualsCovariates: on data holding a model's covariate,
// the expected table of a pair is the sum over the rows of each row's
// pair distribution given its covariate, Σ_r Σ_c π_rc P(a | c) P(b | c)
// (computed here row by row from RowPriors), to 1e-9 relatively.
func TestBivariateResidualsCovariates(t *testing.T) {
	src := rand.NewPCG(8, 1)
	tr, err := simulate.Star(4)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simulate.Symmetric(src, tr, simulate.SymmetricOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := simulate.Covariate(src, m, 400, simulate.CovariateOptions{Slope: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	res, err := BivariateResiduals(m, d)
	if err != nil {
		t.Fatal(err)
	}
	pri, err := m.RowPriors(d)
	if err != nil {
		t.Fatal(err)
	}
	k := m.States[m.Root]
	for _, r := range res {
		a, _ := tr.Lookup(r.A)
		b, _ := tr.Lookup(r.B)
		ka, kb := m.States[a], m.States[b]
		for i := range ka {
			for j := range kb {
				want := 0.0
				for row := range d.NumRows() {
					for c := range k {
						want += pri[row*k+c] * m.CPT[a][c*ka+i] * m.CPT[b][c*kb+j]
					}
				}
				if got := r.Expected[i*kb+j]; math.Abs(got-want) > 1e-9*want {
					t.Errorf("%s, %s: E[%d,%d] = %.12g, want %.12g", r.A, r.B, i, j, got, want)
				}
			}
		}
	}
}
