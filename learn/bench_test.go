package learn_test

import (
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/simulate"
)

// BenchmarkLearnEM200x200k learns a CLNJ tree and fits its parameters by
// EM with the default options on 200,000 rows of 200 binary variables
// sampled from a symmetric model on a random binary tree (issue 14,
// target ≤ 20 s on 2 cores). The data are generated once, untimed.
func BenchmarkLearnEM200x200k(b *testing.B) {
	tr, err := simulate.RandomBinary(rand.NewPCG(1, 1), 200, 0.5)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	m, err := simulate.Symmetric(rng, tr, simulate.SymmetricOptions{ThetaMin: 0.05, ThetaMax: 0.2})
	if err != nil {
		b.Fatal(err)
	}
	d, err := m.Sample(rng, 200000)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := learn.Learn(d, learn.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.EM.Iterations), "em-iterations")
		b.ReportMetric(res.Timings.Structure.Seconds(), "structure-s")
		b.ReportMetric(res.Timings.Fit.Seconds(), "fit-s")
		b.ReportMetric(res.EM.LogLik, "loglik")
	}
}
