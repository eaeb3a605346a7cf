package mixed_test

import (
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/simulate"
)

// benchModel returns a random mixed model on a binary tree over 30
// observed variables (40% continuous, one continuous hidden subtree) and
// 10,000 rows sampled from it: the shape of
// `latentree simulate --topology binary --leaves 30 --model mixed
// --continuous 0.4 --continuous-hidden 1 -n 10000`.
func benchModel(b *testing.B) (*mixed.Model, *data.Dataset) {
	b.Helper()
	tr, err := simulate.RandomBinary(rand.NewPCG(3, 3), 30, 0.5)
	if err != nil {
		b.Fatal(err)
	}
	m, err := simulate.Mixed(rand.NewPCG(3, 4), tr, simulate.MixedOptions{Continuous: 0.4, ContinuousHidden: 1})
	if err != nil {
		b.Fatal(err)
	}
	d, err := m.Sample(rand.NewPCG(3, 5), 10000)
	if err != nil {
		b.Fatal(err)
	}
	return m, d
}

func BenchmarkEStep(b *testing.B) {
	m, d := benchModel(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.EStep(d, model.InferOptions{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLogLikelihood(b *testing.B) {
	m, d := benchModel(b)
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := m.LogLikelihood(d, model.InferOptions{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
