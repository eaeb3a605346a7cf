package discrete_test

import (
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/tree"
)

// A hidden binary cause h of three binary words: each word is present with
// probability 0.1 when h = 0 and 0.8 when h = 1. A document that has two
// of the words most likely has the third, and Impute says how likely.
func ExampleModel_Impute() {
	t := tree.New()
	h := t.AddHidden()
	for _, w := range []string{"ball", "goal", "team"} {
		x, _ := t.AddObserved(w)
		_ = t.AddEdge(h, x, math.NaN())
	}
	m, _ := discrete.New(t, h, []int{2, 2, 2, 2})
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
