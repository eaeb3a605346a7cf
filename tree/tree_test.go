package tree

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// build makes a tree from a spec such as "a-h1:1 h1-b:2 h1-c": edges u-v
// with an optional length (NaN when absent). Names starting with "h" are
// hidden nodes (named), others observed. Nodes are created in order of first
// appearance. Isolated nodes may be listed alone ("a").
func build(tb testing.TB, spec string) *Tree {
	tb.Helper()
	t := New()
	node := func(name string) int {
		if id, ok := t.Lookup(name); ok {
			return id
		}
		id, err := t.AddNode(Node{Name: name, Hidden: strings.HasPrefix(name, "h")})
		if err != nil {
			tb.Fatal(err)
		}
		return id
	}
	for _, item := range strings.Fields(spec) {
		l := math.NaN()
		if i := strings.IndexByte(item, ':'); i >= 0 {
			var err error
			if l, err = strconv.ParseFloat(item[i+1:], 64); err != nil {
				tb.Fatal(err)
			}
			item = item[:i]
		}
		ends := strings.Split(item, "-")
		if len(ends) == 1 {
			node(ends[0])
			continue
		}
		if err := t.AddEdge(node(ends[0]), node(ends[1]), l); err != nil {
			tb.Fatal(err)
		}
	}
	return t
}

// edgeString lists the edges by name, sorted, as "a-b:1 b-c:? ...", with
// the lower name first; "?" is an unknown length.
func edgeString(t *Tree) string {
	var parts []string
	for _, e := range t.Edges() {
		u, v := t.Name(e.U), t.Name(e.V)
		if v < u {
			u, v = v, u
		}
		l := "?"
		if !math.IsNaN(e.Length) {
			l = strconv.FormatFloat(e.Length, 'g', -1, 64)
		}
		parts = append(parts, u+"-"+v+":"+l)
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

func mustID(tb testing.TB, t *Tree, name string) int {
	tb.Helper()
	id, ok := t.Lookup(name)
	if !ok {
		tb.Fatalf("no node %q", name)
	}
	return id
}

func expectPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}

func TestZeroValueAndBasics(t *testing.T) {
	var tr Tree
	if tr.NumNodes() != 0 || tr.NumEdges() != 0 || tr.MaxID() != 0 {
		t.Fatal("zero tree not empty")
	}
	if err := tr.Validate(); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("Validate(empty) = %v", err)
	}
	a, err := tr.AddObserved("a")
	if err != nil || a != 0 {
		t.Fatalf("AddObserved = %d, %v", a, err)
	}
	h := tr.AddHidden()
	if h != 1 {
		t.Fatalf("AddHidden = %d", h)
	}
	if got := tr.Name(h); got != "#1" {
		t.Errorf("Name(unnamed hidden) = %q, want #1", got)
	}
	if !tr.IsHidden(h) || tr.IsHidden(a) {
		t.Error("IsHidden wrong")
	}
	if err := tr.Validate(); err == nil {
		t.Error("Validate accepted two nodes without an edge")
	}
	if err := tr.AddEdge(a, h, 0.5); err != nil {
		t.Fatal(err)
	}
	if err := tr.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	if tr.NumObserved() != 1 || tr.NumHidden() != 1 {
		t.Errorf("NumObserved, NumHidden = %d, %d", tr.NumObserved(), tr.NumHidden())
	}
	if !slices.Equal(tr.Observed(), []int{0}) || !slices.Equal(tr.Hidden(), []int{1}) {
		t.Errorf("Observed %v Hidden %v", tr.Observed(), tr.Hidden())
	}
	if l, ok := tr.EdgeLength(h, a); !ok || l != 0.5 {
		t.Errorf("EdgeLength = %g, %v", l, ok)
	}
	if !tr.HasEdge(h, a) || !tr.IsLeaf(a) || tr.Degree(h) != 1 {
		t.Error("HasEdge/IsLeaf/Degree wrong")
	}
}

func TestNamesAndDuplicates(t *testing.T) {
	tr := New()
	if _, err := tr.AddNode(Node{}); err == nil {
		t.Error("observed node without a name accepted")
	}
	a, _ := tr.AddObserved("a")
	if _, err := tr.AddObserved("a"); !errors.Is(err, ErrDuplicateName) {
		t.Errorf("duplicate observed name: %v", err)
	}
	if _, err := tr.AddNode(Node{Name: "a", Hidden: true}); !errors.Is(err, ErrDuplicateName) {
		t.Errorf("hidden node with an observed node's name: %v", err)
	}
	h, err := tr.AddNode(Node{Name: "h", Hidden: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.SetName(h, "a"); !errors.Is(err, ErrDuplicateName) {
		t.Errorf("SetName to a used name: %v", err)
	}
	if err := tr.SetName(a, ""); err == nil {
		t.Error("observed node renamed to empty")
	}
	if err := tr.SetName(a, "a"); err != nil {
		t.Errorf("SetName to own name: %v", err)
	}
	if err := tr.SetName(a, "b"); err != nil {
		t.Fatal(err)
	}
	if _, ok := tr.Lookup("a"); ok {
		t.Error("old name still found")
	}
	if id, ok := tr.Lookup("b"); !ok || id != a {
		t.Error("new name not found")
	}
	if _, err := tr.AddObserved("a"); err != nil {
		t.Errorf("freed name not reusable: %v", err)
	}
	if err := tr.SetName(h, ""); err != nil {
		t.Fatal(err)
	}
	if _, ok := tr.Lookup("h"); ok || tr.Name(h) != "#1" {
		t.Errorf("hidden node unnamed: Lookup still works or Name = %q", tr.Name(h))
	}
	if got := tr.ObservedNames(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("ObservedNames = %v", got)
	}
}

func TestEdgeErrorsAndLengths(t *testing.T) {
	tr := build(t, "a-b:1 b-c")
	a, b, c := mustID(t, tr, "a"), mustID(t, tr, "b"), mustID(t, tr, "c")
	if err := tr.AddEdge(a, a, 1); err == nil {
		t.Error("self-loop accepted")
	}
	if err := tr.AddEdge(b, a, 1); err == nil {
		t.Error("parallel edge accepted")
	}
	if err := tr.RemoveEdge(a, c); err == nil {
		t.Error("removing a missing edge succeeded")
	}
	if err := tr.SetEdgeLength(a, c, 1); err == nil {
		t.Error("setting the length of a missing edge succeeded")
	}
	if _, ok := tr.EdgeLength(a, c); ok {
		t.Error("EdgeLength of a missing edge reported ok")
	}
	if err := tr.SetEdgeLength(c, b, 2.5); err != nil {
		t.Fatal(err)
	}
	if got := edgeString(tr); got != "a-b:1 b-c:2.5" {
		t.Errorf("edges = %s", got)
	}
	if err := tr.RemoveEdge(b, a); err != nil {
		t.Fatal(err)
	}
	if tr.NumEdges() != 1 || tr.HasEdge(a, b) || tr.Degree(b) != 1 {
		t.Error("RemoveEdge left the edge")
	}
	if err := tr.Validate(); err == nil {
		t.Error("Validate accepted a forest")
	}
}

func TestEdgesSorted(t *testing.T) {
	tr := build(t, "c-h1:3 h1-a:1 b-h1:2")
	// ids: c=0 h1=1 a=2 b=3
	want := []Edge{{0, 1, 3}, {1, 2, 1}, {1, 3, 2}}
	if got := tr.Edges(); !slices.Equal(got, want) {
		t.Errorf("Edges = %v, want %v", got, want)
	}
	if got := tr.Neighbors(1); !slices.Equal(got, []int{0, 2, 3}) {
		t.Errorf("Neighbors = %v", got)
	}
}

func TestPanicsOnBadID(t *testing.T) {
	tr := build(t, "a-b")
	expectPanic(t, "Node(5)", func() { tr.Node(5) })
	expectPanic(t, "Name(-1)", func() { tr.Name(-1) })
	tr.RemoveNode(1)
	expectPanic(t, "Degree(removed)", func() { tr.Degree(1) })
	expectPanic(t, "AddEdge(removed)", func() { _ = tr.AddEdge(0, 1, 1) })
	if tr.Has(1) || !tr.Has(0) || tr.Has(7) {
		t.Error("Has wrong")
	}
}

func TestRemoveNode(t *testing.T) {
	tr := build(t, "a-h1:1 b-h1:2 c-h1:3 c-d:4")
	h1 := mustID(t, tr, "h1")
	tr.RemoveNode(h1)
	if tr.NumNodes() != 4 || tr.NumEdges() != 1 || tr.MaxID() != 5 {
		t.Errorf("after RemoveNode: %d nodes %d edges maxID %d", tr.NumNodes(), tr.NumEdges(), tr.MaxID())
	}
	if got := edgeString(tr); got != "c-d:4" {
		t.Errorf("edges = %s", got)
	}
	if _, ok := tr.Lookup("h1"); ok {
		t.Error("removed node still found by name")
	}
	if got := tr.Nodes(); !slices.Equal(got, []int{0, 2, 3, 4}) {
		t.Errorf("Nodes = %v", got)
	}
	if tr.Degree(mustID(t, tr, "a")) != 0 {
		t.Error("neighbour keeps the removed edge")
	}
	// Identifiers are not reused.
	if id := tr.AddHidden(); id != 5 {
		t.Errorf("new id %d, want 5", id)
	}
}

func TestContract(t *testing.T) {
	tr := build(t, "a-h1:1 h1-h2:2 h2-b:3 h2-c:4")
	h1, h2 := mustID(t, tr, "h1"), mustID(t, tr, "h2")
	if err := tr.Contract(h1, h2); err != nil {
		t.Fatal(err)
	}
	if got, want := edgeString(tr), "a-h1:1 b-h1:5 c-h1:6"; got != want {
		t.Errorf("after Contract: %s, want %s", got, want)
	}
	if tr.Has(h2) || tr.NumEdges() != 3 || tr.Validate() != nil {
		t.Error("Contract left a bad tree")
	}
	a, b := mustID(t, tr, "a"), mustID(t, tr, "b")
	if err := tr.Contract(a, b); err == nil {
		t.Error("contracting non-adjacent nodes succeeded")
	}
	// In a graph with a triangle the contraction would make a parallel
	// edge: it must fail without changing anything.
	g := build(t, "a-b:1 b-c:1 a-c:1 c-d:1")
	before := edgeString(g)
	if err := g.Contract(mustID(t, g, "a"), mustID(t, g, "c")); err == nil {
		t.Error("contraction in a triangle succeeded")
	}
	if got := edgeString(g); got != before || g.NumNodes() != 4 {
		t.Errorf("failed Contract changed the graph: %s", got)
	}
}

func TestSuppressHidden(t *testing.T) {
	tr := build(t, "a-h1:1 h1-h2:2 h2-b:3 h2-h3:0.5 h3-h4:0.25")
	if n := tr.SuppressHidden(); n != 4 {
		t.Errorf("SuppressHidden removed %d, want 4", n)
	}
	if got := edgeString(tr); got != "a-b:6" {
		t.Errorf("after SuppressHidden: %s", got)
	}
	// Hidden nodes of degree three stay; unknown lengths stay unknown.
	tr = build(t, "a-h1:1 b-h1:1 h1-h2 h2-h3:1 h3-c:1 h3-d:1")
	if n := tr.SuppressHidden(); n != 1 {
		t.Errorf("SuppressHidden removed %d, want 1", n)
	}
	if got, want := edgeString(tr), "a-h1:1 b-h1:1 c-h3:1 d-h3:1 h1-h3:?"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if len(tr.NonMinimal()) != 0 {
		t.Error("NonMinimal not empty after SuppressHidden")
	}
	// Observed nodes of degree two stay.
	tr = build(t, "a-b:1 b-c:2")
	if n := tr.SuppressHidden(); n != 0 || tr.NumNodes() != 3 {
		t.Error("SuppressHidden removed an observed node")
	}
}

func TestNonMinimal(t *testing.T) {
	tr := build(t, "a-h1 h1-h2 h2-b h2-c h2-h3")
	want := []int{mustID(t, tr, "h1"), mustID(t, tr, "h3")}
	if got := tr.NonMinimal(); !slices.Equal(got, want) {
		t.Errorf("NonMinimal = %v, want %v", got, want)
	}
}

func TestCloneIndependent(t *testing.T) {
	tr := build(t, "a-h1:1 b-h1:2 c-h1:3")
	c := tr.Clone()
	if err := c.SetEdgeLength(0, 1, 9); err != nil {
		t.Fatal(err)
	}
	c.RemoveNode(mustID(t, c, "c"))
	if err := c.SetName(mustID(t, c, "b"), "z"); err != nil {
		t.Fatal(err)
	}
	if got := edgeString(tr); got != "a-h1:1 b-h1:2 c-h1:3" {
		t.Errorf("original changed: %s", got)
	}
	if _, ok := tr.Lookup("b"); !ok {
		t.Error("original lost a name")
	}
	if got := edgeString(c); got != "a-h1:9 h1-z:2" {
		t.Errorf("clone: %s", got)
	}
	var empty Tree
	if e := empty.Clone(); e.NumNodes() != 0 {
		t.Error("clone of empty tree not empty")
	}
}

func TestCompact(t *testing.T) {
	tr := build(t, "x-a:1 a-h1:1 b-h1:2 c-h1:3 y-c")
	tr.RemoveNode(mustID(t, tr, "x"))
	tr.RemoveNode(mustID(t, tr, "y"))
	h1 := mustID(t, tr, "h1")
	_ = tr.SetName(h1, "")
	c, m := tr.Compact()
	// old ids: x0 a1 h1=2 b3 c4 y5
	if want := []int{-1, 0, 1, 2, 3, -1}; !slices.Equal(m, want) {
		t.Errorf("old→new = %v, want %v", m, want)
	}
	if c.MaxID() != 4 || c.NumNodes() != 4 || c.NumEdges() != 3 {
		t.Errorf("compact: maxID %d nodes %d edges %d", c.MaxID(), c.NumNodes(), c.NumEdges())
	}
	if got := edgeString(c); got != "#1-a:1 #1-b:2 #1-c:3" {
		t.Errorf("compact edges: %s", got)
	}
	if !c.IsHidden(1) || c.Node(1).Name != "" {
		t.Error("hidden node changed")
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}

func TestAutoNameHidden(t *testing.T) {
	tr := build(t, "a-h2 h2-b")
	x := tr.AddHidden()
	y := tr.AddHidden()
	_ = tr.AddEdge(x, mustID(t, tr, "h2"), 1)
	_ = tr.AddEdge(y, x, 1)
	tr.AutoNameHidden("h")
	if tr.Name(x) != "h1" || tr.Name(y) != "h3" || tr.Name(mustID(t, tr, "h2")) != "h2" {
		t.Errorf("names %q %q", tr.Name(x), tr.Name(y))
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		spec string
		want string // substring of the error, "" for none
	}{
		{"a", ""},
		{"a-b:0 b-c", ""},
		{"a-b b-c c-a d", "not connected"},
		{"a-b c-d", "not a tree"},
		{"a-b:-1", "invalid length"},
		{"a-b:+Inf", "invalid length"},
	}
	for _, c := range cases {
		err := build(t, c.spec).Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.spec, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want %q", c.spec, err, c.want)
		}
	}
}

func TestPath(t *testing.T) {
	tr := build(t, "a-h1:1 h1-b:2 h1-h2:3 h2-c:4 h2-d e")
	id := func(n string) int { return mustID(t, tr, n) }
	p := tr.Path(id("a"), id("c"))
	if want := []int{id("a"), id("h1"), id("h2"), id("c")}; !slices.Equal(p, want) {
		t.Errorf("Path = %v, want %v", p, want)
	}
	if got := tr.PathLength(id("c"), id("a")); got != 8 {
		t.Errorf("PathLength = %g, want 8", got)
	}
	if got := tr.PathLength(id("b"), id("b")); got != 0 {
		t.Errorf("PathLength to itself = %g", got)
	}
	if p := tr.Path(id("b"), id("b")); !slices.Equal(p, []int{id("b")}) {
		t.Errorf("Path to itself = %v", p)
	}
	if got := tr.PathLength(id("a"), id("d")); !math.IsNaN(got) {
		t.Errorf("PathLength over an unknown length = %g", got)
	}
	if p := tr.Path(id("a"), id("e")); p != nil {
		t.Errorf("Path to unreachable = %v", p)
	}
	if got := tr.PathLength(id("a"), id("e")); !math.IsInf(got, 1) {
		t.Errorf("PathLength to unreachable = %g", got)
	}
}

func TestRoot(t *testing.T) {
	tr := build(t, "a-h1:1 h1-b:2 h1-h2:3 h2-c:4 h2-d:5 e")
	id := func(n string) int { return mustID(t, tr, n) }
	r := tr.Root(id("h2"))
	if r.Root != id("h2") || r.Parent[id("h2")] != -1 {
		t.Error("root wrong")
	}
	wantParent := map[string]string{"a": "h1", "b": "h1", "h1": "h2", "c": "h2", "d": "h2"}
	for c, p := range wantParent {
		if r.Parent[id(c)] != id(p) {
			t.Errorf("parent of %s = %d, want %s", c, r.Parent[id(c)], p)
		}
	}
	if r.ParentLength[id("a")] != 1 || r.ParentLength[id("h1")] != 3 || !math.IsNaN(r.ParentLength[id("h2")]) {
		t.Error("ParentLength wrong")
	}
	if len(r.Order) != 6 || r.Order[0] != id("h2") {
		t.Errorf("Order = %v", r.Order)
	}
	if slices.Contains(r.Order, id("e")) || r.Parent[id("e")] != -1 {
		t.Error("unreachable node in the rooted tree")
	}
	pos := make(map[int]int)
	for k, v := range r.Order {
		pos[v] = k
	}
	for _, v := range r.Order[1:] {
		if pos[r.Parent[v]] >= pos[v] {
			t.Errorf("node %s before its parent", tr.Name(v))
		}
		if !slices.Contains(r.Children[r.Parent[v]], v) {
			t.Errorf("node %s not among its parent's children", tr.Name(v))
		}
	}
	if got := len(r.Children[id("h2")]); got != 3 {
		t.Errorf("root has %d children", got)
	}
}

func TestReplaceSubtree(t *testing.T) {
	// Path a-b-c-d; replace {a,b,c} by a star with a new hidden centre.
	tr := build(t, "a-b:1 b-c:1 c-d:2")
	sub := New()
	sa, _ := sub.AddObserved("a")
	sb, _ := sub.AddObserved("b")
	sc, _ := sub.AddObserved("c")
	sh, _ := sub.AddNode(Node{Name: "hx", Hidden: true})
	for _, v := range []int{sa, sb, sc} {
		_ = sub.AddEdge(sh, v, 0.5)
	}
	id := func(n string) int { return mustID(t, tr, n) }
	set := []int{id("a"), id("b"), id("c")}
	out, err := tr.ReplaceSubtree(set, sub, []int{id("a"), id("b"), id("c"), -1})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{id("a"), id("b"), id("c"), 4}; !slices.Equal(out, want) {
		t.Errorf("out = %v, want %v", out, want)
	}
	if got, want := edgeString(tr), "a-hx:0.5 b-hx:0.5 c-d:2 c-hx:0.5"; got != want {
		t.Errorf("after ReplaceSubtree: %s, want %s", got, want)
	}
	if err := tr.Validate(); err != nil {
		t.Error(err)
	}
}

func TestReplaceSubtreeErrors(t *testing.T) {
	base := build(t, "a-b:1 b-c:1 c-d:2 hq-d")
	id := func(n string) int { return mustID(t, base, n) }
	star := func(centre Node) *Tree {
		sub := New()
		sa, _ := sub.AddObserved("a")
		sb, _ := sub.AddObserved("b")
		h, err := sub.AddNode(centre)
		if err != nil {
			t.Fatal(err)
		}
		_ = sub.AddEdge(h, sa, 1)
		_ = sub.AddEdge(h, sb, 1)
		return sub
	}
	set := []int{id("a"), id("b")}
	cases := []struct {
		name   string
		centre Node
		m      []int
		want   string
	}{
		{"short map", Node{Hidden: true}, []int{id("a"), id("b")}, "mapping has 2 entries"},
		{"outside set", Node{Hidden: true}, []int{id("a"), id("b"), id("d")}, "not in the replaced set"},
		{"nonexistent", Node{Hidden: true}, []int{id("a"), id("b"), 99}, "nonexistent node 99"},
		{"twice", Node{Hidden: true}, []int{id("a"), id("a"), -1}, "two sub nodes map"},
		{"uncovered", Node{Hidden: true}, []int{id("a"), -1, -1}, "does not cover"},
		{"observed clash", Node{Name: "d"}, []int{id("a"), id("b"), -1}, "duplicate"},
	}
	for _, c := range cases {
		tr := base.Clone()
		_, err := tr.ReplaceSubtree(set, star(c.centre), c.m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if got := edgeString(tr); got != edgeString(base) || tr.NumNodes() != base.NumNodes() {
			t.Errorf("%s: failed ReplaceSubtree changed the tree: %s", c.name, got)
		}
	}
	// A new hidden node whose name clashes loses the name.
	tr := base.Clone()
	out, err := tr.ReplaceSubtree(set, star(Node{Name: "hq", Hidden: true}), []int{id("a"), id("b"), -1})
	if err != nil {
		t.Fatal(err)
	}
	if n := tr.Node(out[2]); !n.Hidden || n.Name != "" {
		t.Errorf("clashing hidden node = %+v", n)
	}
	if err := tr.Validate(); err != nil {
		t.Error(err)
	}
}
