package discrete_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/tree"
)

// TestSampleCovariates: with an observed root of three states, the
// sampled root's share of each state given a categorical covariate's
// state is the regression's softmax within 4 binomial standard errors;
// the child follows its CPT given the root; the covariate columns come
// after the observed ones, unchanged; a model without a regression is an
// error.
func TestSampleCovariates(t *testing.T) {
	tr := tree.New()
	r, err := tr.AddObserved("r")
	if err != nil {
		t.Fatal(err)
	}
	c, err := tr.AddObserved("c")
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.AddEdge(r, c, 1); err != nil {
		t.Fatal(err)
	}
	m, err := discrete.New(tr, r, []int{3, 2})
	if err != nil {
		t.Fatal(err)
	}
	m.CPT[c] = []float64{0.9, 0.1, 0.5, 0.5, 0.2, 0.8}
	// (1, g=b, z): state 1 against 0: 0.5 + 1.5·[g=b]; state 2: −1 + 0.7·[g=b].
	m.Regression = &discrete.RootRegression{
		Covariates: []discrete.Covariate{{Name: "g", States: []string{"a", "b"}}, {Name: "z"}},
		Beta:       []float64{0, 0, 0, 0.5, 1.5, 0, -1, 0.7, 0},
	}
	const n = 20000
	x, err := data.New([]data.Variable{{Name: "g", Kind: data.Discrete, States: []string{"a", "b"}}, {Name: "z", Kind: data.Continuous}}, n)
	if err != nil {
		t.Fatal(err)
	}
	g, z := x.Discrete(0), x.Continuous(1)
	for i := range n {
		g[i] = uint16(i % 2)
		z[i] = float64(i) / n
	}
	d, err := m.SampleCovariates(rand.NewPCG(1, 2), x)
	if err != nil {
		t.Fatal(err)
	}
	if d.NumRows() != n || d.NumVars() != 4 || d.Var(0).Name != "c" && d.Var(0).Name != "r" || d.Var(2).Name != "g" || d.Var(3).Name != "z" {
		t.Fatalf("columns %v, %d rows", d.Vars(), d.NumRows())
	}
	for i := range n {
		if d.Discrete(2)[i] != g[i] || d.Continuous(3)[i] != z[i] {
			t.Fatalf("row %d: covariates changed", i+1)
		}
	}
	ri, _ := d.Index("r")
	ci, _ := d.Index("c")
	var count [2][3]float64
	var child [3][2]float64
	for i := range n {
		count[g[i]][d.Discrete(ri)[i]]++
		child[d.Discrete(ri)[i]][d.Discrete(ci)[i]]++
	}
	for a := range 2 {
		eta := []float64{0, 0.5 + 1.5*float64(a), -1 + 0.7*float64(a)}
		sum := math.Exp(eta[0]) + math.Exp(eta[1]) + math.Exp(eta[2])
		rows := count[a][0] + count[a][1] + count[a][2]
		for s := range 3 {
			p := math.Exp(eta[s]) / sum
			if got, se := count[a][s]/rows, math.Sqrt(p*(1-p)/rows); math.Abs(got-p) > 4*se {
				t.Errorf("g=%d: P(r=%d) = %.4f, want %.4f ± %.4f", a, s, got, p, 4*se)
			}
		}
	}
	for s := range 3 {
		p := m.CPT[c][s*2+1]
		rows := child[s][0] + child[s][1]
		if got, se := child[s][1]/rows, math.Sqrt(p*(1-p)/rows); math.Abs(got-p) > 4*se {
			t.Errorf("P(c=1 | r=%d) = %.4f, want %.4f ± %.4f", s, got, p, 4*se)
		}
	}
	m.Regression = nil
	if _, err := m.SampleCovariates(rand.NewPCG(1, 2), x); err == nil || !strings.Contains(err.Error(), "root regression") {
		t.Errorf("no regression: %v", err)
	}
}
