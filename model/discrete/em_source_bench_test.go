package discrete_test

import (
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/simulate"
)

// BenchmarkFitEMWarmUp compares EM on 1,000,000 rows of 100 binary
// variables (a symmetric model on a random binary tree, the surrogate
// start) with and without the default warm-up on samples
// (EMOptions.Sample: rows/32, then rows/4): time, E-steps over all rows
// and the log-likelihood per row reached. Measured on 2 cores: 58 full
// E-steps without, 25–46 with, at the same log-likelihood within
// 2e-6 nat per row (two trees).
func BenchmarkFitEMWarmUp(b *testing.B) {
	fresh, d := binary1M(b)
	for _, c := range []struct {
		name   string
		sample int
	}{{"none", -1}, {"auto", 0}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				m := fresh.Clone()
				r, err := m.FitEM(d, model.EMOptions{Restarts: -1, Sample: c.sample})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(r.Iterations), "full-e-steps")
				b.ReportMetric(r.LogLik/float64(r.Rows), "loglik/row")
			}
		})
	}
}

// BenchmarkEMPacked is FitEMSource on 1,000,000 rows of 100 binary
// variables held in a data.Packed (a symmetric model on a random binary
// tree, the surrogate start, no warm-up) for 3 E-steps, then the final
// log-likelihood pass: the binary E-step with its collapsed subtrees, the
// first pass preparing the blocks' codes and the later ones reusing them.
// It reports the seconds per pass (the compressSource probe, a small part,
// included). Measured on 2 cores shared with other jobs (load 6): about
// 0.9 s per pass before the subtrees were collapsed and the codes kept,
// 0.18 s after.
func BenchmarkEMPacked(b *testing.B) {
	fresh, d := binary1M(b)
	p, err := data.Pack(d)
	if err != nil {
		b.Fatal(err)
	}
	d = nil
	b.ResetTimer()
	for b.Loop() {
		m := fresh.Clone()
		r, err := m.FitEMSource(p, model.EMOptions{Restarts: -1, Sample: -1, MaxIter: 3})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(r.Iterations), "e-steps")
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/4, "s/pass")
}

// binary1M returns 1,000,000 rows of 100 binary variables sampled from a
// symmetric model on a random binary tree, and a model of that tree at
// the surrogate start.
func binary1M(b *testing.B) (*discrete.Model, *data.Dataset) {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 77))
	tr, err := simulate.RandomBinary(rng, 100, 0.5)
	if err != nil {
		b.Fatal(err)
	}
	md, err := simulate.Symmetric(rng, tr, simulate.SymmetricOptions{})
	if err != nil {
		b.Fatal(err)
	}
	d, err := md.Sample(rng, 1_000_000)
	if err != nil {
		b.Fatal(err)
	}
	fresh, err := discrete.ForData(tr, d, 2)
	if err != nil {
		b.Fatal(err)
	}
	if err := fresh.InitSurrogate(d, 0); err != nil {
		b.Fatal(err)
	}
	return fresh, d
}
