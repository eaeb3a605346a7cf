package discrete

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

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

func TestDiscreteHandChecked(t *testing.T) {
	tr, a, h, b := chain(t)
	m, err := New(tr, h, []int{2, 2, 2})
	if err != nil {
		t.Fatal(err)
	}
	m.Prior = []float64{0.3, 0.7}
	m.CPT[a] = []float64{0.9, 0.1, 0.2, 0.8}
	m.CPT[b] = []float64{0.6, 0.4, 0.1, 0.9}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	// P(a=0,b=0) = 0.3·0.9·0.6 + 0.7·0.2·0.1 = 0.162 + 0.014 = 0.176.
	p := m.PairMarginal(a, b)
	if math.Abs(p[0]-0.176) > 1e-15 {
		t.Errorf("P(a=0,b=0) = %g, want 0.176", p[0])
	}
	// det P(a,b) = det(A^T diag(π) B): det A = 0.7, det B = 0.5, det diag = 0.21.
	// P(a) = (0.41, 0.59), P(b) = (0.25, 0.75).
	want := -math.Log(0.7*0.5*0.21) + 0.5*math.Log(0.41*0.59) + 0.5*math.Log(0.25*0.75)
	d, err := m.InformationDistance(a, b)
	if err != nil || math.Abs(d-want) > 1e-12 {
		t.Errorf("d(a,b) = %g (%v), want %g", d, err, want)
	}
	dah, _ := m.InformationDistance(a, h)
	dhb, _ := m.InformationDistance(h, b)
	if math.Abs(dah+dhb-d) > 1e-12 {
		t.Errorf("not additive: %g + %g != %g", dah, dhb, d)
	}
}

func TestDiscreteValidateErrors(t *testing.T) {
	tr, a, h, _ := chain(t)
	m, _ := New(tr, h, []int{2, 2, 2})
	m.CPT[a] = []float64{0.5, 0.6, 0.5, 0.5}
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "sums to") {
		t.Errorf("bad row accepted: %v", err)
	}
	m.CPT[a] = []float64{1.5, -0.5, 0.5, 0.5}
	if err := m.Validate(); err == nil {
		t.Error("negative probability accepted")
	}
	m.CPT[a] = []float64{0.5, 0.5}
	if err := m.Validate(); err == nil {
		t.Error("short CPT accepted")
	}
	if _, err := New(tr, h, []int{2, 0, 2}); err == nil {
		t.Error("zero states accepted")
	}
	if _, err := m.Sample(rand.New(rand.NewPCG(1, 1)), 10); err == nil {
		t.Error("sampling an invalid model succeeded")
	}
}
