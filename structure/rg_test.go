package structure

import "testing"

// TestRGParentTestOnFewRows: a hidden node 0.3 away from its nearest
// observed child (ρ ≈ 0.74) must stay hidden on 100 rows. The parent test
// used ε = 8/√100 = 0.8 and merged every hidden parent closer than 0.4 into
// the observed child, so RG and CLRG found no hidden variable here; the
// parent test now uses ParentEps = min(ε, 2ε′) ≈ 0.21.
func TestRGParentTestOnFewRows(t *testing.T) {
	l := []float64{0.3, 0.5, 0.6, 0.7, 0.8}
	names := []string{"a", "b", "c", "d", "e"}
	m := len(l)
	D := make([]float64, m*m)
	for i := range l {
		for j := range l {
			if i != j {
				D[i*m+j] = l[i] + l[j]
			}
		}
	}
	for _, method := range []Method{MethodRG, MethodCLRG} {
		for _, g := range []Grouping{GroupThreshold, GroupSilhouette} {
			got, _, err := Learn(matrix(t, names, D), Options{Method: method, Samples: 100, RG: RGOptions{Grouping: g}})
			if err != nil {
				t.Fatal(err)
			}
			if got.NumHidden() != 1 || got.NumEdges() != 5 {
				t.Errorf("%s grouping %d: %d hidden nodes, %d edges; want the star (1, 5)", method, g, got.NumHidden(), got.NumEdges())
			}
			// The old parent threshold merges the hidden node into a.
			old, _, err := Learn(matrix(t, names, D), Options{Method: method, Samples: 100, RG: RGOptions{Grouping: g, ParentEps: DefaultEps(100)}})
			if err != nil {
				t.Fatal(err)
			}
			if old.NumHidden() != 0 {
				t.Errorf("%s grouping %d with ParentEps = ε: %d hidden nodes, want 0", method, g, old.NumHidden())
			}
		}
	}
}
