package discrete

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// starModel is h (binary, uniform) with observed children x1, x2, x3, each
// with P(x | h) = [[0.9, 0.1], [0.2, 0.8]], and state labels "no", "yes".
func starModel(t testing.TB) *Model {
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
	m, err := New(tr, h, []int{2, 2, 2, 2})
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
	imp, err := m.Impute(d, model.ImputeOptions{})
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
	cells := map[string]model.ImputedCell{}
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
