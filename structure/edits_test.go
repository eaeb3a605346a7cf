package structure

import (
	"errors"
	"testing"

	"github.com/latentree/latentree/tree"
)

// A learner whose tree edit fails (here: joining two nodes already joined)
// returns an error wrapping tree.ErrInternal instead of dropping it.
func TestLearnersReportFailedEdits(t *testing.T) {
	tr := tree.New()
	a, err := tr.AddObserved("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := tr.AddObserved("b")
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.AddEdge(a, b, 1); err != nil {
		t.Fatal(err)
	}
	d := []float64{0, 1, 1, 0}
	if _, err := nj(tr, []int{a, b}, d); !errors.Is(err, tree.ErrInternal) {
		t.Errorf("nj: %v", err)
	}
	if _, err := rg(tr, []int{a, b}, d, RGOptions{}); !errors.Is(err, tree.ErrInternal) {
		t.Errorf("rg: %v", err)
	}
}
