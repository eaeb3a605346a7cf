package spectral_test

import (
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/spectral"
	"github.com/latentree/latentree/simulate"
)

// specBench returns a random binary latent tree with m leaves, 4-state
// observed and 2-state hidden variables, and n sampled rows.
func specBench(b *testing.B, m, states, n int) (*discrete.Model, *data.Dataset) {
	b.Helper()
	t, err := simulate.RandomBinary(rand.NewPCG(1, uint64(m)), m, 0.5)
	if err != nil {
		b.Fatal(err)
	}
	truth, err := simulate.General(rand.NewPCG(2, uint64(m)), t, simulate.GeneralOptions{ObservedStates: states, HiddenStates: 2})
	if err != nil {
		b.Fatal(err)
	}
	d, err := truth.Sample(rand.NewPCG(3, uint64(m)), n)
	if err != nil {
		b.Fatal(err)
	}
	return truth, d
}

// Targets (issue 11, 2 cores): 16 leaves × 50,000 rows ≤ 50 ms; 1,000
// leaves × 100,000 rows ≤ 5 s.
func BenchmarkSpectralFit16x50k(b *testing.B) {
	truth, d := specBench(b, 16, 4, 50000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := spectral.Fit(truth.Tree, d, spectral.Options{HiddenStates: 2}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSpectralFitParikh16x50k(b *testing.B) {
	truth, d := specBench(b, 16, 4, 50000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := spectral.Fit(truth.Tree, d, spectral.Options{HiddenStates: 2, Linker: model.LinkerParikh}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSpectralFit1000x100k(b *testing.B) {
	truth, d := specBench(b, 1000, 4, 100000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := spectral.Fit(truth.Tree, d, spectral.Options{HiddenStates: 2}); err != nil {
			b.Fatal(err)
		}
	}
}

// Target: P̂ of 1,000,000 rows of a 100-leaf model ≤ 5 s.
func BenchmarkSpectralProb100x1M(b *testing.B) {
	truth, d := specBench(b, 100, 4, 1000000)
	s, err := spectral.Fit(truth.Tree, d, spectral.Options{HiddenStates: 2})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Prob(d, model.InferOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// The EM of the paper's protocol on the 16 × 50,000 data, for the ratio
// with BenchmarkSpectralFit16x50k (target: spectral ≥ 20× faster).
func BenchmarkEMPaperProtocol16x50k(b *testing.B) {
	truth, d := specBench(b, 16, 4, 50000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := model.Fit(truth.Tree, d, model.FitOptions{Init: model.InitRandom, EM: model.EMOptions{Restarts: 5, Tol: 1e-4, Accel: model.AccelNone, Stop: model.StopRelative}}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSpectralFitFull16x50k(b *testing.B) {
	truth, d := specBench(b, 16, 4, 50000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := spectral.Fit(truth.Tree, d, spectral.Options{HiddenStates: 2, Linker: model.LinkerMStarFull}); err != nil {
			b.Fatal(err)
		}
	}
}
