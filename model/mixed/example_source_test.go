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
)

// FitSource fits a model to a CSV file re-read in blocks of 500 rows on
// every E-step, never holding its rows: the fit Fit makes of the rows
// read into memory, up to rounding.
func ExampleFitSource() {
	truth := classModel() // a hidden class with children a, x, y (see ExampleFit)
	t := truth.Tree
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
