package discrete

import (
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
)

// TestBinCodes: binCodes against the plain conversion (remap, and
// binMissing for a missing cell) for columns of one state ("1" only, or
// "0" only), columns whose states are listed in the model's reverse order,
// with and without missing cells, on the serial and the parallel path.
func TestBinCodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	m0 := smallModel(t, rng)
	for v := range m0.States {
		if m0.Tree.Has(v) {
			m0.States[v] = 2
		}
	}
	m, err := New(m0.Tree, m0.Root, m0.States)
	if err != nil {
		t.Fatal(err)
	}
	obs := m.Tree.Observed()
	for _, rows := range []int{300, 40000} { // 5 columns: serial, then parallel
		for _, miss := range []float64{0, 0.1} {
			vars := make([]data.Variable, len(obs))
			cols := make([][]uint16, len(obs))
			for j, v := range obs {
				var states []string
				switch j % 3 {
				case 0:
					states = []string{"1"}
				case 1:
					states = []string{"1", "0"}
				default:
					states = []string{"0"}
				}
				if j == 4 {
					states = []string{"0", "1"}
				}
				vars[j] = data.Variable{Name: m.Tree.Name(v), Kind: data.Discrete, States: states}
				col := make([]uint16, rows)
				for i := range col {
					col[i] = uint16(rng.IntN(len(states)))
					if rng.Float64() < miss {
						col[i] = data.Missing
					}
				}
				cols[j] = col
			}
			d, err := data.FromDiscrete(vars, cols)
			if err != nil {
				t.Fatal(err)
			}
			b, err := m.bind(d)
			if err != nil {
				t.Fatal(err)
			}
			x := b.binCodes()
			for _, v := range obs {
				anyMiss := false
				for r, c := range b.codes[v] {
					want := uint8(binMissing)
					if c != data.Missing {
						want = uint8(b.remap[v][c])
					} else {
						anyMiss = true
					}
					if x[v][r] != want {
						t.Fatalf("rows %d miss %g: node %s row %d code %d: bin %d, want %d", rows, miss, m.Tree.Name(v), r, c, x[v][r], want)
					}
				}
				if b.binMiss[v] != anyMiss {
					t.Fatalf("rows %d miss %g: node %s binMiss %v, want %v", rows, miss, m.Tree.Name(v), b.binMiss[v], anyMiss)
				}
			}
		}
	}
}
