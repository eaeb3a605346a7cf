package learn_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/simulate"
)

// gaussHMM returns 1,000 rows of the 80 observed variables of a Gaussian
// model on HMM(78) (Choi et al. 2011, §7.1: edge correlations uniform in
// [0.2, 0.8]), fixed seeds.
func gaussHMM(b *testing.B) *data.Dataset {
	tr, err := simulate.HMM(78)
	if err != nil {
		b.Fatal(err)
	}
	g, err := simulate.Gaussian(rand.NewPCG(25, 1), tr, simulate.GaussianOptions{})
	if err != nil {
		b.Fatal(err)
	}
	d, err := g.Sample(rand.NewPCG(25, 2), 1000)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkLearnGaussian80x1k is the default learn (structure, BIC
// contraction, EM) on 1,000 rows of a Gaussian HMM with 80 observed
// variables, for each of clnj, clrg, nj and rg, with the local
// contraction search (the default) and with the search that refits every
// candidate (PruneOptions.Refit). Issue 25's target is ≤ 0.3 s each on 2
// cores. It reports the training BIC, the candidates scored, the CPU
// seconds per learn (the machine may be loaded: wall time alone misleads)
// and the structure step's seconds.
func BenchmarkLearnGaussian80x1k(b *testing.B) {
	d := gaussHMM(b)
	for _, m := range []learn.Method{learn.CLNJ, learn.CLRG, learn.NJ, learn.RG} {
		for _, refit := range []bool{false, true} {
			name := string(m) + "/local"
			if refit {
				name = string(m) + "/refit"
			}
			b.Run(name, func(b *testing.B) {
				var cpu time.Duration
				for b.Loop() {
					opt := learn.Options{Method: m}
					opt.Contract.Prune.Refit = refit
					c0 := cpuTime()
					res, err := learn.Learn(d, opt)
					cpu += cpuTime() - c0
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(res.Score.BIC, "bic")
					b.ReportMetric(float64(res.Contraction.Evaluated), "candidates")
					b.ReportMetric(res.Timings.Structure.Seconds(), "structure-s")
				}
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			})
		}
	}
}
