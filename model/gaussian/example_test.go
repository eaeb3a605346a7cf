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

// A model fitted from the moments of complete data alone (as a statistics
// file holds them), and the exact cost of merging its hidden node into x1:
// the contracted tree's log-likelihood with the correlations at x1
// refitted, the rest held. (The star fits the three correlations exactly;
// the chain x2–x1–x3 has the Chow–Liu log-likelihood −3 n/2 log 2πe +
// n (I(x1;x2) + I(x1;x3)) = −4028.84.)
func ExampleModel_Contractor() {
	t := tree.New()
	h := t.AddHidden()
	for _, name := range []string{"x1", "x2", "x3"} {
		x, _ := t.AddObserved(name)
		_ = t.AddEdge(h, x, math.NaN())
	}
	// 1,000 rows with unit variances and correlations 0.48, 0.42, 0.56.
	mom := &gaussian.Moments{Names: []string{"x1", "x2", "x3"}, Rows: 1000, Mean: []float64{0, 0, 0},
		Cov: []float64{1, 0.48, 0.42, 0.48, 1, 0.56, 0.42, 0.56, 1}}
	g, res, err := gaussian.FitMoments(t, mom, gaussian.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := g.Contractor(mom)
	if err != nil {
		fmt.Println(err)
		return
	}
	x1, _ := t.Lookup("x1")
	ct := t.Clone()
	_ = ct.Contract(x1, h)
	k, err := c.Contract(ct, x1, h, 100, 1e-9)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("fitted: log-likelihood %.2f, %d parameters\n", res.LogLik, g.NumParams())
	fmt.Printf("x1 as the hub: log-likelihood %.2f, %d parameters\n", k.LogLik, k.Model.NumParams())
	// Output:
	// fitted: log-likelihood -3915.61, 9 parameters
	// x1 as the hub: log-likelihood -4028.84, 8 parameters
}
