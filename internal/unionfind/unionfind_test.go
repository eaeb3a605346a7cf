package unionfind

import "testing"

// TestForest merges a few sets and checks membership and that each root
// is its set's smallest member.
func TestForest(t *testing.T) {
	f := New[int32](8)
	for _, p := range [][2]int32{{5, 3}, {3, 7}, {1, 6}, {6, 2}} {
		if !f.Union(p[0], p[1]) {
			t.Errorf("Union(%d, %d): already joined", p[0], p[1])
		}
	}
	if f.Union(7, 5) {
		t.Error("Union(7, 5) joined two sets already joined")
	}
	want := []int32{0, 1, 1, 3, 4, 3, 1, 3}
	for x, r := range want {
		if got := f.Find(int32(x)); got != r {
			t.Errorf("Find(%d) = %d, want %d", x, got, r)
		}
	}
	g := New[int](3)
	g.Union(2, 1)
	if g.Find(2) != 1 || g.Find(0) != 0 {
		t.Errorf("int forest %v", g)
	}
}
