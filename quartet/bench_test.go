package quartet

import (
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/simulate"
)

func benchData(b *testing.B, m, n, states int) (*data.Dataset, []string) {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	tr, err := simulate.RandomBinary(rng, m, 0.5)
	if err != nil {
		b.Fatal(err)
	}
	mod, err := simulate.General(rng, tr, simulate.GeneralOptions{ObservedStates: states, HiddenMin: 2, HiddenMax: 8, Scheme: simulate.Perturbed, Mu: 0.5})
	if err != nil {
		b.Fatal(err)
	}
	d, err := mod.Sample(rng, n)
	if err != nil {
		b.Fatal(err)
	}
	return d, d.Names()
}

// BenchmarkQuartetTest times one nuclear-norm quartet test on 10-state
// variables (100×100 unfoldings) from 10,000 rows, counts included.
// Target ≤ 1 ms.
func BenchmarkQuartetTest(b *testing.B) {
	d, _ := benchData(b, 8, 10000, 10)
	o, err := NewDataOracle(d, TestNuclear, 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := o.Resolve([4]int{0, 1, 2, 3}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuild1000 builds a tree over 1,000 10-state variables from
// 10,000 samples (target ≤ 30 s on 2 cores).
func BenchmarkBuild1000(b *testing.B) {
	if testing.Short() {
		b.Skip("long")
	}
	d, names := benchData(b, 1000, 10000, 10)
	o, err := NewDataOracle(d, TestNuclear, 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := Build(names, o, BuildOptions{Src: rand.New(rand.NewPCG(3, 3))})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Tests), "tests")
	}
}
