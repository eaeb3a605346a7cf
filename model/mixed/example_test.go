package mixed_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/tree"
)

// A binary hidden class h with a discrete child a and two continuous
// children x and y: Fit recovers the class means of x from 2000 rows
// drawn from the model, and Conditionals gives the class of a row and
// the expected value of its missing cell.
func ExampleFit() {
	truth := classModel()
	t := truth.Tree
	h, x, y := truth.Root, 2, 3
	d, _ := truth.Sample(rand.NewPCG(1, 2), 2000)

	// With one discrete branch, Layout would make h continuous: ask for
	// a discrete class.
	m, res, err := mixed.Fit(t, d, mixed.Options{AllDiscreteHidden: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Hidden states are found up to their order: sort by the mean of x.
	lo, hi := 0, 1
	if m.Mean[x][0] > m.Mean[x][1] {
		lo, hi = 1, 0
	}
	fmt.Printf("converged: %v\n", res.Converged)
	fmt.Printf("means of x: %.1f %.1f\n", m.Mean[x][lo], m.Mean[x][hi])
	fmt.Printf("P(h): %.1f %.1f\n", m.Prior[lo], m.Prior[hi])

	// The class of a row with a = 0, x = 0.27 and y missing: by hand from
	// the true parameters, P(high) = 0.14·r / (0.14·r + 0.27) with
	// r = N(0.27; 2, 1) / N(0.27; −2, 1) = e^1.08, about 0.60, and
	// E[y | row] = 0.60·3 + 0.40·0 = 1.8.
	row, _ := data.New(d.Vars(), 1)
	ja, _ := row.Index("a")
	jx, _ := row.Index("x")
	jy, _ := row.Index("y")
	s, _ := d.Var(ja).StateIndex("0")
	row.Discrete(ja)[0] = uint16(s)
	row.Continuous(jx)[0] = 0.27
	row.Continuous(jy)[0] = math.NaN()
	post, _ := m.Conditionals(row, []int{h, y}, model.InferOptions{})
	fmt.Printf("P(h = high class | row) = %.1f\n", post[0].Row(0)[hi])
	fmt.Printf("E[y | row] = %.0f\n", post[1].Mean[0])
	// Output:
	// converged: true
	// means of x: -2.0 2.0
	// P(h): 0.3 0.7
	// P(h = high class | row) = 0.6
	// E[y | row] = 2
}

// classModel is the model of the examples: a binary hidden class h (node
// 0) with a discrete child a (1) and continuous children x (2) and y (3).
func classModel() *mixed.Model {
	t := tree.New()
	h := t.AddHidden()
	a, _ := t.AddObserved("a")
	x, _ := t.AddObserved("x")
	y, _ := t.AddObserved("y")
	for _, v := range []int{a, x, y} {
		t.AddEdge(h, v, math.NaN())
	}
	kinds := []data.Kind{data.Discrete, data.Discrete, data.Continuous, data.Continuous}
	m, _ := mixed.New(t, h, kinds, []int{2, 2, 0, 0})
	m.Prior = []float64{0.3, 0.7}
	m.CPT[a] = []float64{0.9, 0.1, 0.2, 0.8}
	m.Mean[x], m.Var[x] = []float64{-2, 2}, []float64{1, 1}
	m.Mean[y], m.Var[y] = []float64{0, 3}, []float64{1, 2}
	return m
}
