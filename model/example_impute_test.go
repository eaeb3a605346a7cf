package model_test

import (
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// A hidden binary cause h of three binary words: each word is present with
// probability 0.1 when h = 0 and 0.8 when h = 1. A document that has two
// of the words most likely has the third, and Impute says how likely.
func ExampleDiscrete_Impute() {
	t := tree.New()
	h := t.AddHidden()
	for _, w := range []string{"ball", "goal", "team"} {
		x, _ := t.AddObserved(w)
		_ = t.AddEdge(h, x, math.NaN())
	}
	m, _ := model.NewDiscrete(t, h, []int{2, 2, 2, 2})
	for _, x := range t.Observed() {
		m.CPT[x] = []float64{0.9, 0.1, 0.2, 0.8}
	}
	// Two documents: "ball" unknown with the others present; "team"
	// unknown with the others absent.
	vars := []data.Variable{
		{Name: "ball", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "goal", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "team", Kind: data.Discrete, States: []string{"0", "1"}},
	}
	d, _ := data.FromDiscrete(vars, [][]uint16{{data.Missing, 0}, {1, 0}, {1, data.Missing}})
	imp, err := m.Impute(d, model.ImputeOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range imp.Cells {
		fmt.Printf("row %d %s: %s (probability %.4f; P(1) = %.4f)\n", c.Row, c.Name, c.Value, c.Prob, c.Probs[1])
	}
	// Output:
	// row 0 ball: 1 (probability 0.7892; P(1) = 0.7892)
	// row 1 team: 0 (probability 0.8671; P(1) = 0.1329)
}

// Two measurements x1 and x2 of a hidden quantity, each with correlation
// 0.8 to it; x1 has mean 10 and variance 4. Where x1 is missing, Impute
// fills in its conditional mean given x2 and reports its standard
// deviation.
func ExampleGaussian_Impute() {
	t := tree.New()
	h := t.AddHidden()
	x1, _ := t.AddObserved("x1")
	x2, _ := t.AddObserved("x2")
	_ = t.AddEdge(h, x1, math.NaN())
	_ = t.AddEdge(h, x2, math.NaN())
	g, _ := model.NewGaussian(t, h, 0.8)
	g.Mean[x1], g.Var[x1] = 10, 4
	// Row 0: x1 missing, x2 = 1. Row 1: both observed.
	d, _ := data.FromContinuous([]string{"x1", "x2"}, [][]float64{{math.NaN(), 9}, {1, -1}})
	imp, err := g.Impute(d, model.ImputeOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range imp.Cells {
		fmt.Printf("row %d %s: mean %.4f, sd %.4f\n", c.Row, c.Name, c.Mean, c.SD)
	}
	fmt.Printf("completed x1: %.2f\n", imp.Data.Continuous(0))
	// Output:
	// row 0 x1: mean 11.2800, sd 1.5367
	// completed x1: [11.28 9.00]
}
