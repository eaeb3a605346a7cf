package gaussian_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/testenv"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

// missingSetup simulates a Gaussian latent tree over m observed leaves
// (random binary tree, correlations U[0.5, 0.9] of random sign, observed
// means and variances not 0 and 1), a training sample of n rows and a
// held-out sample of 2000 rows.
func missingSetup(t *testing.T, seed uint64, m, n int) (*tree.Tree, *data.Dataset, *data.Dataset) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 10))
	tr, err := simulate.RandomBinary(rng, m, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	g, err := simulate.Gaussian(rng, tr, simulate.GaussianOptions{RhoMin: 0.5, RhoMax: 0.9, RandomSign: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range tr.Observed() {
		g.Mean[v] = float64(i%7) - 3
		g.Var[v] = 0.5 + float64(i%5)
	}
	train, err := g.Sample(rng, n)
	if err != nil {
		t.Fatal(err)
	}
	test, err := g.Sample(rng, 2000)
	if err != nil {
		t.Fatal(err)
	}
	// The fit starts without the true edge lengths.
	st := tr.Clone()
	for _, e := range st.Edges() {
		if err := st.SetEdgeLength(e.U, e.V, math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	return st, train, test
}

// blank returns a copy of d with each cell missing with probability frac.
func blank(t *testing.T, d *data.Dataset, frac float64, rng *rand.Rand) *data.Dataset {
	t.Helper()
	names := d.Names()
	cols := make([][]float64, len(names))
	for j := range cols {
		cols[j] = append([]float64(nil), d.Continuous(j)...)
		for r := range cols[j] {
			if rng.Float64() < frac {
				cols[j][r] = math.NaN()
			}
		}
	}
	out, err := data.FromContinuous(names, cols)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGaussianEMMissingCells: with 10% of the training cells blanked at
// random, the Gaussian EM fit's held-out log-likelihood is within 2% of
// the full-data fit's (50 observed variables, 1000 training and 2000
// held-out rows, DefaultTol). Before missing cells were marginalised, EM
// ran on the 3 complete rows and scored −310146 per row against −83.24.
func TestGaussianEMMissingCells(t *testing.T) {
	// One seed by default: EM to the optimum takes up to 1,000 E-steps on
	// these data (about 4 s with missing cells).
	seeds := testenv.Pick([]uint64{1}, []uint64{1, 2, 3})
	for _, seed := range seeds {
		tr, train, test := missingSetup(t, seed, 50, 1000)
		start := time.Now()
		full, resFull, err := gaussian.Fit(tr, train, gaussian.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tFull := time.Since(start)
		holey := blank(t, train, 0.1, rand.New(rand.NewPCG(seed, 7)))
		start = time.Now()
		miss, resMiss, err := gaussian.Fit(tr, holey, gaussian.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tMiss := time.Since(start)
		if resMiss.Rows != train.NumRows() {
			t.Errorf("seed %d: EM used %d of %d rows", seed, resMiss.Rows, train.NumRows())
		}
		_, llFull, err := full.LogLikelihood(test, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, llMiss, err := miss.LogLikelihood(test, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n := float64(test.NumRows())
		t.Logf("seed %d: held-out log-likelihood per row: full data %.4f (%d iterations, %v), 10%% missing %.4f (%d iterations, %d patterns, %v)",
			seed, llFull/n, resFull.Iterations, tFull.Round(time.Millisecond), llMiss/n, resMiss.Iterations, resMiss.DistinctRows, tMiss.Round(time.Millisecond))
		if rel := (llFull - llMiss) / math.Abs(llFull); rel > 0.02 {
			t.Errorf("seed %d: held-out log-likelihood %.4f per row with 10%% missing cells, %.4f with full data: %.2f%% worse (limit 2%%)",
				seed, llMiss/n, llFull/n, 100*rel)
		}
	}
}
