package learn_test

import (
	"fmt"
	"strings"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
)

// A table of distinct response patterns with their counts, read with
// frequency weights, gives the fit of the expanded rows: here 6 patterns
// stand for 100 answers to three yes/no items.
func Example_weights() {
	table := `q1,q2,q3,count
yes,yes,yes,30
yes,yes,no,8
yes,no,no,7
no,no,no,35
no,no,yes,9
no,yes,no,11
`
	d, _, err := data.ReadCSV(strings.NewReader(table), data.ReadOptions{Weights: "count"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d rows stand for n = %g\n", d.NumRows(), d.SampleSize())
	m, em, _, err := learn.FitLCM(d, 2, learn.LCMFitOptions{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	sc, err := m.Score(d, model.InferOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("weighted table: log-likelihood %.4f, BIC %.4f\n", em.LogLik, sc.BIC)

	// The same 100 rows written out one by one.
	var rows []int
	for r, w := range d.Weights() {
		for range int(w) {
			rows = append(rows, r)
		}
	}
	x, _ := d.Rows(rows)
	x.SetWeights(nil, data.Frequency)
	_, emx, _, err := learn.FitLCM(x, 2, learn.LCMFitOptions{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	scx, err := m.Score(x, model.InferOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("expanded rows:  log-likelihood %.4f, BIC %.4f\n", emx.LogLik, scx.BIC)
	// Output:
	// 6 rows stand for n = 100
	// weighted table: log-likelihood -161.0248, BIC 354.2859
	// expanded rows:  log-likelihood -161.0248, BIC 354.2859
}
