package discrete

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latentree/latentree/data"
)

// TestBinCodes: binPrepare against the plain conversion (remap, and
// binMissing for a missing cell) for columns of one state ("1" only, or
// "0" only), columns whose states are listed in the model's reverse order,
// with and without missing cells, on the serial and the parallel path:
// the bytes of the columns outside collapsed subtrees, and the pattern
// bits of those inside.
func TestBinCodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	m := smallBinaryModel(t, rng)
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
			p := newEngine(m).binPrepare(b)
			grouped := 0
			for _, v := range obs {
				anyMiss := false
				gi := p.g.grp[v]
				bit := -1
				if gi >= 0 {
					grouped++
					bit = slices.Index(p.g.list[gi].obs, v)
				}
				for r, c := range b.codes[v] {
					want := uint8(binMissing)
					if c != data.Missing {
						want = uint8(b.remap[v][c])
					} else {
						anyMiss = true
					}
					got := uint8(0)
					if gi >= 0 {
						got = p.pats[gi][r] >> bit & 1
					} else {
						got = p.x[v][r]
					}
					if got != want {
						t.Fatalf("rows %d miss %g: node %s row %d code %d: bin %d, want %d", rows, miss, m.Tree.Name(v), r, c, got, want)
					}
				}
				if p.miss[v] != anyMiss {
					t.Fatalf("rows %d miss %g: node %s miss %v, want %v", rows, miss, m.Tree.Name(v), p.miss[v], anyMiss)
				}
			}
			if wantGroups := miss == 0; (grouped > 0) != wantGroups {
				t.Fatalf("rows %d miss %g: %d nodes in collapsed subtrees", rows, miss, grouped)
			}
		}
	}
}
