package mixed_test

import (
	"math"
	"slices"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/tree"
)

// Misplaced finds exactly the continuous observed nodes between discrete
// ones; Repair moves them under new discrete hidden nodes, keeping every
// path length between the other nodes, and Layout then accepts the tree.
func TestRepair(t *testing.T) {
	// a(d) –1– x(c) –2– b(d); x –3– y(c); y –4– z(c) –5– h(hidden) –6– c(d), h –7– w(c)
	// x lies between a and b; y and z lie between x's side (a, b) and c;
	// w is a leaf.
	tr := tree.New()
	id := map[string]int{}
	kinds := map[string]data.Kind{"a": data.Discrete, "b": data.Discrete, "c": data.Discrete, "x": data.Continuous, "y": data.Continuous, "z": data.Continuous, "w": data.Continuous}
	for _, n := range []string{"a", "b", "c", "x", "y", "z", "w"} {
		v, err := tr.AddObserved(n)
		if err != nil {
			t.Fatal(err)
		}
		id[n] = v
	}
	id["h"] = tr.AddHidden()
	for _, e := range []struct {
		u, v string
		l    float64
	}{{"a", "x", 1}, {"x", "b", 2}, {"x", "y", 3}, {"y", "z", 4}, {"z", "h", 5}, {"h", "c", 6}, {"h", "w", 7}} {
		if err := tr.AddEdge(id[e.u], id[e.v], e.l); err != nil {
			t.Fatal(err)
		}
	}
	kind := func(name string) (data.Kind, bool) { k, ok := kinds[name]; return k, ok }
	if _, _, err := mixed.Layout(tr, kind, false); err == nil {
		t.Fatal("Layout accepts the tree before the repair")
	}
	var mis []string
	for _, v := range mixed.Misplaced(tr, kind) {
		mis = append(mis, tr.Name(v))
	}
	slices.Sort(mis)
	if want := []string{"x", "y", "z"}; !slices.Equal(mis, want) {
		t.Errorf("misplaced %v, want %v", mis, want)
	}
	before := tr.Clone()
	moved, err := mixed.Repair(tr, kind)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(moved)
	if want := []string{"x", "y", "z"}; !slices.Equal(moved, want) {
		t.Errorf("moved %v, want %v", moved, want)
	}
	if _, _, err := mixed.Layout(tr, kind, false); err != nil {
		t.Errorf("Layout after the repair: %v", err)
	}
	if got := tr.NumHidden(); got != 4 {
		t.Errorf("%d hidden nodes after the repair, want 4", got)
	}
	names := []string{"a", "b", "c", "x", "y", "z", "w"}
	for i, u := range names {
		if n := u; (n == "x" || n == "y" || n == "z") && tr.Degree(id[n]) != 1 {
			t.Errorf("%s has degree %d after the repair, want a leaf", n, tr.Degree(id[n]))
		}
		for _, v := range names[i+1:] {
			if got, want := tr.PathLength(id[u], id[v]), before.PathLength(id[u], id[v]); math.Abs(got-want) > 1e-12 {
				t.Errorf("path %s–%s has length %g after the repair, %g before", u, v, got, want)
			}
		}
	}
	// A tree without such nodes is left alone.
	if mis := mixed.Misplaced(tr, kind); len(mis) != 0 {
		t.Errorf("misplaced after the repair: %v", mis)
	}
	again, err := mixed.Repair(tr, kind)
	if err != nil || len(again) != 0 || tr.NumHidden() != 4 {
		t.Errorf("second repair moved %v (%v)", again, err)
	}
}
