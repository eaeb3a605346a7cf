package structure

import (
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

// sampledMatrix returns the distance matrix −log|r_ij| of the sample
// correlations of n rows of a Gaussian model on tr (drawn through the
// Wishart distribution of the scatter matrix): the statistics the learners
// see, precomputed.
func sampledMatrix(b *testing.B, tr *tree.Tree, n int, seed uint64) *distance.Matrix {
	b.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	g, err := simulate.Gaussian(rng, tr, simulate.GaussianOptions{})
	if err != nil {
		b.Fatal(err)
	}
	names, r, err := simulate.SampleCorrelations(rng, g, n)
	if err != nil {
		b.Fatal(err)
	}
	dm, err := distance.FromCorrelations(names, r)
	if err != nil {
		b.Fatal(err)
	}
	return dm
}

// BenchmarkTable1 times structure learning on the 80-observed-variable
// trees of JMLR 2011 Table 1 at 10,000 samples. Targets on 2 cores: CLNJ
// ≤ 2 ms, CLRG ≤ 5 ms, NJ ≤ 2 ms, RG ≤ 50 ms.
func BenchmarkTable1(b *testing.B) {
	ds, _ := simulate.DoubleStar(40, 40)
	hmm, _ := simulate.HMM(78)
	c5, _ := simulate.CompleteKary(5, 3)
	trees := []struct {
		name string
		t    *tree.Tree
	}{{"double-star", ds}, {"hmm", hmm}, {"5-complete", c5}}
	for _, tt := range trees {
		dm := sampledMatrix(b, tt.t, 10000, 1)
		for _, m := range []Method{MethodCLNJ, MethodCLRG, MethodNJ, MethodRG} {
			b.Run(tt.name+"/"+string(m), func(b *testing.B) {
				opt := Options{Method: m, Samples: 10000, RG: RGOptions{Grouping: GroupSilhouette}}
				for b.Loop() {
					if _, _, err := Learn(dm, opt); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCLNJ1000 times CLNJ on 1,000 observed variables (a random
// binary latent tree, 10,000 samples). Target ≤ 1 s.
func BenchmarkCLNJ1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	tr, _ := simulate.RandomBinary(rng, 1000, 0.5)
	dm := sampledMatrix(b, tr, 10000, 2)
	for _, m := range []Method{MethodCLNJ, MethodCLRG} {
		b.Run(string(m), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Learn(dm, Options{Method: m, Samples: 10000, RG: RGOptions{Grouping: GroupSilhouette}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
