package discrete_test

import (
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/internal/modeltest"
)

// TestMismatchNamesBothSides: a dataset that lacks model variables and has
// columns the model does not know is an error naming both, for every
// operation.
func TestMismatchNamesBothSides(t *testing.T) {
	vars := []data.Variable{
		{Name: "x1", Kind: data.Discrete, States: []string{"no", "yes"}},
		{Name: "id", Kind: data.Discrete, States: []string{"a", "b"}},
	}
	d, _ := data.New(vars, 2)
	modeltest.Mismatch(t, discrete.StarModel(t), d, `"x2", "x3"`, `"id"`)
}

// TestModelInterface runs every Model method through the interface, after
// a JSON round trip through Read.
func TestModelInterface(t *testing.T) {
	modeltest.Interface(t, discrete.StarModel(t))
}
