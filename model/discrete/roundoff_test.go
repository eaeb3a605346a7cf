package discrete

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// TestEMMissingRoundOff fits binary data in which two leaves copy their
// hidden parent exactly and 6% of cells are missing (the shape of a
// roll-call vote table with abstentions). The expected count of a state
// never observed under a parent state is then 0 in exact arithmetic and
// came out near −1e-16, which made the M-step write a negative
// probability and Validate reject the model. Every fit must succeed with
// every parameter a distribution.
func TestEMMissingRoundOff(t *testing.T) {
	const n, leaves = 435, 8
	tr := tree.New()
	h := tr.AddHidden()
	vars := make([]data.Variable, leaves)
	for j := range vars {
		vars[j] = data.Variable{Name: fmt.Sprintf("v%d", j), Kind: data.Discrete, States: []string{"0", "1"}}
		v, err := tr.AddObserved(vars[j].Name)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.AddEdge(h, v, math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	for s := uint64(1); s <= 10; s++ {
		rng := rand.New(rand.NewPCG(s, 22))
		cols := make([][]uint16, leaves)
		for j := range cols {
			cols[j] = make([]uint16, n)
		}
		for i := 0; i < n; i++ {
			hv := uint16(rng.IntN(2))
			for j := range cols {
				x := hv
				if j >= 2 && rng.Float64() < 0.05 {
					x = 1 - x
				}
				if rng.Float64() < 0.06 {
					x = data.Missing
				}
				cols[j][i] = x
			}
		}
		d, err := data.FromDiscrete(vars, cols)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ForData(tr, d, 2)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.InitSurrogate(d, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := m.FitEM(d, model.EMOptions{}); err != nil {
			t.Fatalf("seed %d: %v", s, err)
		}
		for _, v := range tr.Observed() {
			for a, p := range m.CPT[v] {
				if !(p >= 0 && p <= 1) {
					t.Fatalf("seed %d: CPT of %s entry %d is %g", s, tr.Name(v), a, p)
				}
			}
		}
	}
}

// TestValidateRoundOff checks that Validate takes an entry within 1e-12
// below 0 as round-off (set to 0, row renormalised) and still rejects
// real negatives and NaN.
func TestValidateRoundOff(t *testing.T) {
	tr, a, h, _ := chain(t)
	m, _ := New(tr, h, []int{2, 2, 2})
	m.CPT[a] = []float64{-1.22e-16, 1 + 1.22e-16, 0.5, 0.5}
	if err := m.Validate(); err != nil {
		t.Fatalf("round-off rejected: %v", err)
	}
	if m.CPT[a][0] != 0 || m.CPT[a][1] != 1 {
		t.Errorf("row 0 = %v, want [0 1]", m.CPT[a][:2])
	}
	for _, row := range [][]float64{{-1e-9, 1 + 1e-9, 0.5, 0.5}, {math.NaN(), 1, 0.5, 0.5}, {0.5, 0.5, math.Inf(1), 0}} {
		m.CPT[a] = row
		if err := m.Validate(); err == nil {
			t.Errorf("CPT %v accepted", row)
		}
	}
}
