package gaussian_test

import (
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/tree"
)

// Two measurements x1 and x2 of a hidden quantity, each with correlation
// 0.8 to it; x1 has mean 10 and variance 4. Where x1 is missing, Impute
// fills in its conditional mean given x2 and reports its standard
// deviation.
func ExampleModel_Impute() {
	t := tree.New()
	h := t.AddHidden()
	x1, _ := t.AddObserved("x1")
	x2, _ := t.AddObserved("x2")
	_ = t.AddEdge(h, x1, math.NaN())
	_ = t.AddEdge(h, x2, math.NaN())
	g, _ := gaussian.New(t, h, 0.8)
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
