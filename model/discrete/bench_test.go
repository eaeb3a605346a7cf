package discrete

import (
	"os"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// newsgroupsModel returns a binary-hidden model on a fixed tree learned
// from the newsgroups training split (testdata), or skips.
func newsgroupsModel(b *testing.B) (*Model, *data.Dataset, *data.Dataset) {
	b.Helper()
	train, _, err := data.ReadCSVFile("../../examples/newsgroups/newsgroups100-train.csv", data.ReadOptions{})
	if err != nil {
		b.Skip("newsgroups data not available")
	}
	test, _, err := data.ReadCSVFile("../../examples/newsgroups/newsgroups100-test.csv", data.ReadOptions{})
	if err != nil {
		b.Skip("newsgroups data not available")
	}
	f, err := os.Open("testdata/newsgroups-clnj.nwk")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	t, err := tree.ReadNewick(f, tree.NewickOptions{})
	if err != nil {
		b.Fatal(err)
	}
	m, err := ForData(t, train, 2)
	if err != nil {
		b.Fatal(err)
	}
	return m, train, test
}

// BenchmarkEMNewsgroups runs the whole of EM (surrogate start, to
// convergence at relative change 1e-5) on the CLNJ tree of the newsgroups
// training split: 8,121 rows, binary hidden variables. Target ≤ 3 s.
func BenchmarkEMNewsgroups(b *testing.B) {
	m0, train, _ := newsgroupsModel(b)
	for b.Loop() {
		m := m0.Clone()
		if err := m.InitSurrogate(train, 0); err != nil {
			b.Fatal(err)
		}
		res, err := m.FitEM(train, model.EMOptions{KeepInit: true, Restarts: -1, Tol: 1e-5})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Iterations), "iterations")
		b.ReportMetric(res.LogLik, "train-loglik")
	}
}

// BenchmarkScoreNewsgroups scores the test split (target ≤ 100 ms).
func BenchmarkScoreNewsgroups(b *testing.B) {
	m, train, test := newsgroupsModel(b)
	if err := m.InitSurrogate(train, 0); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := m.LogLikelihood(test, model.InferOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
