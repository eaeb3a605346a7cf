package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/tree"
)

// starModel is h (binary, uniform) with observed children x1, x2, x3, each
// with P(x | h) = [[0.9, 0.1], [0.2, 0.8]], and state labels "no", "yes".
func starModel(t testing.TB) *Discrete {
	t.Helper()
	tr := tree.New()
	h := tr.AddHidden()
	for _, name := range []string{"x1", "x2", "x3"} {
		x, err := tr.AddObserved(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.AddEdge(h, x, math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	m, err := NewDiscrete(tr, h, []int{2, 2, 2, 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range tr.Observed() {
		m.CPT[x] = []float64{0.9, 0.1, 0.2, 0.8}
		m.Labels[x] = []string{"no", "yes"}
	}
	return m
}

func TestDiscreteImputeHandChecked(t *testing.T) {
	m := starModel(t)
	vars := []data.Variable{
		{Name: "x3", Kind: data.Discrete, States: []string{"yes"}},
		{Name: "x1", Kind: data.Discrete, States: []string{"no", "yes"}},
		{Name: "x2", Kind: data.Discrete, States: []string{"yes"}},
	}
	// Row 0: x1 missing, x2 = x3 = yes. Row 1: x1 = no, the rest observed.
	// Row 2: x3 missing (its only data label is "yes"; "no" must be
	// imputable), x1 = no, x2 missing.
	d, err := data.FromDiscrete(vars, [][]uint16{{0, 0, data.Missing}, {data.Missing, 0, 0}, {0, 0, data.Missing}})
	if err != nil {
		t.Fatal(err)
	}
	imp, err := m.Impute(d, ImputeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Cells) != 3 {
		t.Fatalf("%d imputed cells, want 3", len(imp.Cells))
	}
	// Row 0: P(h=yes | x2=x3=yes) = 0.32/0.325; P(x1=yes) = 0.1·0.005/0.325 + 0.8·0.32/0.325.
	want := (0.1*0.005 + 0.8*0.32) / 0.325
	// Row 2: P(h | x1=no) ∝ (0.45, 0.1); P(x = no) = (0.45·0.9 + 0.1·0.2)/0.55.
	wantNo := (0.45*0.9 + 0.1*0.2) / 0.55
	cells := map[string]ImputedCell{}
	for _, c := range imp.Cells {
		cells[c.Name+"/"+string(rune('0'+c.Row))] = c
	}
	c := cells["x1/0"]
	if c.Value != "yes" || math.Abs(c.Prob-want) > 1e-12 || math.Abs(c.Probs[1]-want) > 1e-12 || math.Abs(c.Probs[0]+c.Probs[1]-1) > 1e-12 {
		t.Errorf("x1 row 0: %+v, want yes with %g", c, want)
	}
	for _, k := range []string{"x2/2", "x3/2"} {
		c := cells[k]
		if c.Value != "no" || math.Abs(c.Prob-wantNo) > 1e-12 || c.States[0] != "no" {
			t.Errorf("%s: %+v, want no with %g", k, c, wantNo)
		}
	}
	// The completed data use the model's labels and keep observed cells.
	out := imp.Data
	if out.HasMissing() || out.NumRows() != 3 {
		t.Fatalf("completed data: missing %v, %d rows", out.HasMissing(), out.NumRows())
	}
	j3, _ := out.Index("x3")
	if lab := out.Var(j3).States; lab[out.Discrete(j3)[0]] != "yes" || lab[out.Discrete(j3)[2]] != "no" {
		t.Errorf("x3 completed: %v %v", out.Discrete(j3), lab)
	}
	if d.Discrete(2)[2] != data.Missing {
		t.Error("Impute changed its input")
	}
	// JSON: discrete cells carry their whole distribution.
	b, err := json.Marshal(imp)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`{"row":0,"column":"x1","value":"yes","prob":0.78923`)) || !bytes.Contains(b, []byte(`"probs":[{"state":"no","prob":0.21076`)) {
		t.Errorf("JSON %s", b)
	}
}

func TestGaussianImputeHandChecked(t *testing.T) {
	tr := tree.New()
	h := tr.AddHidden()
	x1, _ := tr.AddObserved("x1")
	x2, _ := tr.AddObserved("x2")
	_ = tr.AddEdge(h, x1, math.NaN())
	_ = tr.AddEdge(h, x2, math.NaN())
	g, err := NewGaussian(tr, h, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	g.Mean[x1], g.Var[x1] = 10, 4
	// x1 missing, x2 = 1: corr 0.64, E[x1] = 10 + 0.64·2·1, sd 2·√(1 − 0.64²).
	d, err := data.FromContinuous([]string{"x2", "x1"}, [][]float64{{1, 0}, {math.NaN(), 7}})
	if err != nil {
		t.Fatal(err)
	}
	imp, err := g.Impute(d, ImputeOptions{})
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
// columns the model does not know is an error naming both, for both model
// types and every operation.
func TestMismatchNamesBothSides(t *testing.T) {
	m := starModel(t)
	vars := []data.Variable{
		{Name: "x1", Kind: data.Discrete, States: []string{"no", "yes"}},
		{Name: "id", Kind: data.Discrete, States: []string{"a", "b"}},
	}
	d, _ := data.New(vars, 2)
	tr, g := gaussTree(t)
	_ = tr
	gd, _ := data.FromContinuous([]string{"x1", "x2", "x3", "x4", "extra"}, [][]float64{{1}, {2}, {3}, {4}, {5}})
	for _, c := range []struct {
		m          Model
		d          *data.Dataset
		lack, more string
	}{{m, d, `"x2", "x3"`, `"id"`}, {g, gd, `"x5"`, `"extra"`}} {
		for name, f := range map[string]func() error{
			"LogLikelihood": func() error { _, _, err := c.m.LogLikelihood(c.d, InferOptions{}); return err },
			"Score":         func() error { _, err := c.m.Score(c.d, InferOptions{}); return err },
			"Impute":        func() error { _, err := c.m.Impute(c.d, ImputeOptions{}); return err },
			"Conditionals":  func() error { _, err := c.m.Conditionals(c.d, nil, InferOptions{}); return err },
		} {
			err := f()
			var me *MismatchError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), c.lack) || !strings.Contains(err.Error(), c.more) {
				t.Errorf("%T %s: %v, want both %s and %s named", c.m, name, err, c.lack, c.more)
			}
		}
	}
}

// TestModelInterface runs every Model method on both model types through
// the interface, after a JSON round trip through Read.
func TestModelInterface(t *testing.T) {
	_, g := gaussTree(t)
	for _, orig := range []Model{starModel(t), g} {
		var buf bytes.Buffer
		if err := orig.WriteJSON(&buf, &Provenance{Method: "test"}); err != nil {
			t.Fatal(err)
		}
		m, prov, err := Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if prov == nil || prov.Method != "test" {
			t.Errorf("%T: provenance %+v", m, prov)
		}
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		if m.NumParams() != orig.NumParams() || m.Kind() != orig.Kind() || m.Structure().Name(m.RootNode()) != orig.Structure().Name(orig.RootNode()) {
			t.Errorf("%T: read back differs", m)
		}
		rng := rand.New(rand.NewPCG(1, 1))
		d, err := m.Sample(rng, 30)
		if err != nil {
			t.Fatal(err)
		}
		ll, total, err := m.LogLikelihood(d, InferOptions{})
		if err != nil || len(ll) != 30 {
			t.Fatal(err)
		}
		sc, err := m.Score(d, InferOptions{})
		if err != nil || sc.LogLik != total || sc.Params != m.NumParams() {
			t.Errorf("%T: score %+v, %v", m, sc, err)
		}
		tr := m.Structure()
		hid := tr.Hidden()
		cond, err := m.Conditionals(d, hid, InferOptions{})
		if err != nil || len(cond) != len(hid) || cond[0].Name != tr.Name(hid[0]) {
			t.Fatalf("%T: conditionals %v", m, err)
		}
		imp, err := m.Impute(d, ImputeOptions{})
		if err != nil || len(imp.Cells) != 0 || imp.Data.NumRows() != 30 {
			t.Errorf("%T: impute of complete data %v", m, err)
		}
		obs := tr.Observed()
		dist, err := m.InformationDistances(obs)
		if err != nil || len(dist) != len(obs)*len(obs) || !(dist[1] > 0) {
			t.Errorf("%T: distances %v %v", m, dist, err)
		}
		if _, err := m.InformationDistances([]int{1000}); err == nil {
			t.Errorf("%T: distance to a node not in the tree accepted", m)
		}
	}
}
