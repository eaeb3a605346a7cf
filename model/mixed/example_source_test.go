package mixed_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/tree"
)

// FitSource fits a model to a CSV file re-read in blocks of 500 rows on
// every E-step, never holding its rows: the fit Fit makes of the rows
// read into memory, up to rounding.
func ExampleFitSource() {
	t := tree.New()
	h := t.AddHidden()
	a, _ := t.AddObserved("a")
	x, _ := t.AddObserved("x")
	y, _ := t.AddObserved("y")
	for _, v := range []int{a, x, y} {
		t.AddEdge(h, v, math.NaN())
	}
	truth, _ := mixed.New(t, h, []data.Kind{data.Discrete, data.Discrete, data.Continuous, data.Continuous}, []int{2, 2, 0, 0})
	truth.Prior = []float64{0.3, 0.7}
	truth.CPT[a] = []float64{0.9, 0.1, 0.2, 0.8}
	truth.Mean[x], truth.Var[x] = []float64{-2, 2}, []float64{1, 1}
	truth.Mean[y], truth.Var[y] = []float64{0, 3}, []float64{1, 2}
	d, _ := truth.Sample(rand.NewPCG(1, 2), 2000)
	dir, _ := os.MkdirTemp("", "mixed")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rows.csv")
	f, _ := os.Create(path)
	data.WriteCSV(f, d)
	f.Close()

	opt := mixed.Options{AllDiscreteHidden: true}
	src := &data.Files{Paths: []string{path}, Options: data.BlockOptions{BlockRows: 500}}
	m, res, err := mixed.FitSource(t, src, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	rows, _, _ := data.ReadCSVFile(path, data.ReadOptions{})
	_, want, _ := mixed.Fit(t, rows, opt)
	score, _ := m.ScoreSource(src, model.InferOptions{})
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
	fmt.Printf("%d rows; as many E-steps as in memory: %v\n", res.Rows, res.Iterations == want.Iterations)
	fmt.Printf("log-likelihood as in memory (to 1e-9): %v\n", close(res.LogLik, want.LogLik))
	fmt.Printf("score of the file, the fit's log-likelihood: %v\n", close(score.LogLik, res.LogLik))
	// Output:
	// 2000 rows; as many E-steps as in memory: true
	// log-likelihood as in memory (to 1e-9): true
	// score of the file, the fit's log-likelihood: true
}
