package model

import (
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/tree"
)

// The limit is exact: with two joined hidden nodes and eight binary
// leaves a model has k² + 16k parameters, and the largest k within
// MaxModelCells is 16376.
func TestCheckModelSizeBoundary(t *testing.T) {
	tr := tree.New()
	h := [2]int{tr.AddHidden(), tr.AddHidden()}
	if err := tr.AddEdge(h[0], h[1], 1); err != nil {
		t.Fatal(err)
	}
	var vars []data.Variable
	for i := range 8 {
		name := string(rune('a' + i))
		v, err := tr.AddObserved(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.AddEdge(h[i%2], v, 1); err != nil {
			t.Fatal(err)
		}
		vars = append(vars, data.Variable{Name: name, Kind: data.Discrete, States: []string{"0", "1"}})
	}
	d, err := data.New(vars, 1)
	if err != nil {
		t.Fatal(err)
	}
	for k, ok := range map[int]bool{2: true, 16376: true, 16377: false} {
		if err := checkModelSize(tr, d, k); (err == nil) != ok {
			t.Errorf("k = %d: error %v, want ok %v", k, err, ok)
		}
	}
}
