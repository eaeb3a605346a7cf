package gaussian

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/internal/modeltest"
	"github.com/latentree/latentree/tree"
)

// chain builds a – h – b with a hidden middle node.
func chain(t *testing.T) (*tree.Tree, int, int, int) {
	t.Helper()
	tr := tree.New()
	a, _ := tr.AddObserved("a")
	h := tr.AddHidden()
	b, _ := tr.AddObserved("b")
	if err := tr.AddEdge(a, h, math.NaN()); err != nil {
		t.Fatal(err)
	}
	if err := tr.AddEdge(h, b, math.NaN()); err != nil {
		t.Fatal(err)
	}
	return tr, a, h, b
}

func TestGaussianHandChecked(t *testing.T) {
	tr, a, h, b := chain(t)
	g, err := New(tr, h, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	g.Rho[b] = -0.4
	g.Var[a] = 4
	if c := g.Corr(a, b); math.Abs(c+0.2) > 1e-15 {
		t.Errorf("corr = %g, want -0.2", c)
	}
	if c := g.Cov(a, b); math.Abs(c+0.4) > 1e-15 {
		t.Errorf("cov = %g, want -0.4", c)
	}
	if d := g.InformationDistance(a, b); math.Abs(d+math.Log(0.2)) > 1e-15 {
		t.Errorf("d = %g", d)
	}
	g.Rho[a] = 0
	if d := g.InformationDistance(a, b); !math.IsInf(d, 1) {
		t.Errorf("independent: d = %g, want +Inf", d)
	}
	g.Var[b] = -1
	if err := g.Validate(); err == nil {
		t.Error("negative variance accepted")
	}
}

func TestGaussianImputeHandChecked(t *testing.T) {
	tr := tree.New()
	h := tr.AddHidden()
	x1, _ := tr.AddObserved("x1")
	x2, _ := tr.AddObserved("x2")
	_ = tr.AddEdge(h, x1, math.NaN())
	_ = tr.AddEdge(h, x2, math.NaN())
	g, err := New(tr, h, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	g.Mean[x1], g.Var[x1] = 10, 4
	// x1 missing, x2 = 1: corr 0.64, E[x1] = 10 + 0.64·2·1, sd 2·√(1 − 0.64²).
	d, err := data.FromContinuous([]string{"x2", "x1"}, [][]float64{{1, 0}, {math.NaN(), 7}})
	if err != nil {
		t.Fatal(err)
	}
	imp, err := g.Impute(d, model.ImputeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Cells) != 1 {
		t.Fatalf("%d cells", len(imp.Cells))
	}
	c := imp.Cells[0]
	if c.Row != 0 || c.Name != "x1" || math.Abs(c.Mean-11.28) > 1e-12 || math.Abs(c.SD-2*math.Sqrt(1-0.64*0.64)) > 1e-12 {
		t.Errorf("cell %+v", c)
	}
	if got := imp.Data.Continuous(1); got[0] != c.Mean || got[1] != 7 {
		t.Errorf("completed x1 %v", got)
	}
	if !math.IsNaN(d.Continuous(1)[0]) {
		t.Error("Impute changed its input")
	}
	b, _ := json.Marshal(c)
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil || len(back) != 4 || back["column"] != "x1" || back["row"] != 0.0 ||
		math.Abs(back["mean"].(float64)-11.28) > 1e-12 || back["sd"] != c.SD {
		t.Errorf("JSON %s", b)
	}
}

// TestMismatchNamesBothSides: a dataset that lacks model variables and has
// columns the model does not know is an error naming both, for every
// operation.
func TestMismatchNamesBothSides(t *testing.T) {
	_, g := gaussTree(t)
	gd, _ := data.FromContinuous([]string{"x1", "x2", "x3", "x4", "extra"}, [][]float64{{1}, {2}, {3}, {4}, {5}})
	modeltest.Mismatch(t, g, gd, `"x5"`, `"extra"`)
}

// TestModelInterface runs every Model method through the interface, after
// a JSON round trip through model.Read.
func TestModelInterface(t *testing.T) {
	_, g := gaussTree(t)
	modeltest.Interface(t, g)
}
