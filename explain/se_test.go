package explain

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/tree"
)

// StandardErrors lists a model's prior and CPT rows with their standard
// errors, flags boundary estimates, and is nil without them.
func TestStandardErrorsText(t *testing.T) {
	tr := tree.New()
	h := tr.AddHidden()
	a, _ := tr.AddObserved("a")
	if err := tr.AddEdge(h, a, math.NaN()); err != nil {
		t.Fatal(err)
	}
	tr.AutoNameHidden("h")
	m, err := discrete.New(tr, h, []int{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	m.Prior = []float64{0.6, 0.4}
	m.CPT[a] = []float64{0.9, 0.1, 0, 1}
	if StandardErrors(m) != nil {
		t.Error("standard errors of a model without them")
	}
	m.SE = &discrete.StdErrors{Method: discrete.SEHessian, Prior: []float64{0.05, 0.05}, CPT: [][]float64{nil, {0.02, 0.02, 0, 0}}}
	s := StandardErrors(m)
	if s == nil || len(s.Distributions) != 3 {
		t.Fatalf("got %+v", s)
	}
	var buf bytes.Buffer
	if err := WriteStdErrors(&buf, s); err != nil {
		t.Fatal(err)
	}
	want := "standard errors (observed information: exact Hessian); * boundary estimate (within 1e-6 of 0 or 1)\n" +
		"  h1:          0 0.6000 (0.0500)  1 0.4000 (0.0500)\n" +
		"  a | h1 = 0:  0 0.9000 (0.0200)  1 0.1000 (0.0200)\n" +
		"  a | h1 = 1:  0 0.0000 (0.0000)*  1 1.0000 (0.0000)*\n"
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(want, "*") {
		t.Fatal("no boundary flag in the expected text")
	}
}
