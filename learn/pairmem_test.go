package learn_test

import (
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
)

// Options.MaxPairBytes bounds the pair statistics of Learn and of
// LearnSource: three binary variables have 3 pair tables of 2×2 counts,
// 8·12 = 96 bytes.
func TestMaxPairBytes(t *testing.T) {
	vars := make([]data.Variable, 3)
	cols := make([][]uint16, 3)
	for j := range vars {
		vars[j] = data.Variable{Name: string(rune('a' + j)), Kind: data.Discrete, States: []string{"0", "1"}}
		for i := range 40 {
			cols[j] = append(cols[j], uint16((i>>j)&1))
		}
	}
	d, err := data.FromDiscrete(vars, cols)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		learn func(learn.Options) (*learn.Result, error)
	}{
		{"Learn", func(o learn.Options) (*learn.Result, error) { return learn.Learn(d, o) }},
		{"LearnSource", func(o learn.Options) (*learn.Result, error) { return learn.LearnSource(d, o) }},
	} {
		if _, err := c.learn(learn.Options{StructureOnly: true, MaxPairBytes: 96}); err != nil {
			t.Errorf("%s at the limit: %v", c.name, err)
		}
		_, err := c.learn(learn.Options{StructureOnly: true, MaxPairBytes: 95})
		if err == nil || !strings.Contains(err.Error(), "would take 96 B, more than the limit of 95 B") {
			t.Errorf("%s over the limit: %v", c.name, err)
		}
	}
}
