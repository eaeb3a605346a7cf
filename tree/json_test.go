package tree

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func jsonFixture(t *testing.T) *Tree {
	tr := build(t, "x a-h1:0.5 h1-b h1-c:2")
	tr.RemoveNode(mustID(t, tr, "x"))
	_ = tr.SetName(mustID(t, tr, "h1"), "")
	return tr
}

func TestMarshalJSON(t *testing.T) {
	b, err := json.Marshal(jsonFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format":"latentree-tree","version":1,"nodes":[{"id":0,"name":"a","hidden":false},{"id":1,"hidden":true},` +
		`{"id":2,"name":"b","hidden":false},{"id":3,"name":"c","hidden":false}],` +
		`"edges":[{"u":0,"v":1,"length":0.5},{"u":1,"v":2,"length":null},{"u":1,"v":3,"length":2}]}`
	if string(b) != want {
		t.Errorf("MarshalJSON =\n%s\nwant\n%s", b, want)
	}
	var sb strings.Builder
	if err := WriteJSON(&sb, jsonFixture(t)); err != nil {
		t.Fatal(err)
	}
	wantIndented := `{
  "format": "latentree-tree",
  "version": 1,
  "nodes": [
    {"id":0,"name":"a","hidden":false},
    {"id":1,"hidden":true},
    {"id":2,"name":"b","hidden":false},
    {"id":3,"name":"c","hidden":false}
  ],
  "edges": [
    {"u":0,"v":1,"length":0.5},
    {"u":1,"v":2,"length":null},
    {"u":1,"v":3,"length":2}
  ]
}
`
	if sb.String() != wantIndented {
		t.Errorf("WriteJSON =\n%s\nwant\n%s", sb.String(), wantIndented)
	}
	sb.Reset()
	if err := WriteJSON(&sb, New()); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"format\": \"latentree-tree\",\n  \"version\": 1,\n  \"nodes\": [],\n  \"edges\": []\n}\n"; sb.String() != want {
		t.Errorf("WriteJSON(empty) = %q", sb.String())
	}
	back, err := ReadJSON(strings.NewReader(sb.String()))
	if err != nil || back.NumNodes() != 0 {
		t.Errorf("ReadJSON(empty) = %v, %v", back, err)
	}
}

func TestMarshalJSONErrors(t *testing.T) {
	for _, c := range []struct {
		tr   *Tree
		want string
	}{
		{build(t, "a-b b-c c-a"), "cycle"},
		{build(t, "a-b:-1"), "invalid length"},
		{build(t, "a-b:Inf"), "invalid length"},
	} {
		if _, err := json.Marshal(c.tr); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Marshal: error %v, want %q", err, c.want)
		}
		if err := WriteJSON(&strings.Builder{}, c.tr); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("WriteJSON: error %v, want %q", err, c.want)
		}
	}
}

func TestUnmarshalJSON(t *testing.T) {
	// Identifiers need not be compact or in order; a forest is accepted.
	doc := `{"format":"latentree-tree","version":1,
	  "nodes":[{"id":10,"name":"c"},{"id":5,"name":"a","hidden":false},{"id":7,"hidden":true,"name":"h"},{"id":-3,"name":"z"}],
	  "edges":[{"u":5,"v":7,"length":1.5},{"u":10,"v":7}]}`
	var tr Tree
	if err := json.Unmarshal([]byte(doc), &tr); err != nil {
		t.Fatal(err)
	}
	// Sorted ids -3, 5, 7, 10 become 0, 1, 2, 3.
	for name, id := range map[string]int{"z": 0, "a": 1, "h": 2, "c": 3} {
		if got, ok := tr.Lookup(name); !ok || got != id {
			t.Errorf("%s has id %d, want %d", name, got, id)
		}
	}
	if !tr.IsHidden(2) || tr.IsHidden(3) {
		t.Error("hidden flags wrong")
	}
	if got := edgeString(&tr); got != "a-h:1.5 c-h:?" {
		t.Errorf("edges %s", got)
	}
	if tr.Validate() == nil {
		t.Error("forest read as a tree")
	}
}

func TestUnmarshalJSONErrors(t *testing.T) {
	const head = `{"format":"latentree-tree","version":1,`
	cases := []struct {
		doc  string
		want string
	}{
		{`{"format":"newick","version":1,"nodes":[],"edges":[]}`, `format is "newick"`},
		{`{"version":1,"nodes":[],"edges":[]}`, `format is ""`},
		{`{"format":"latentree-tree","version":2,"nodes":[],"edges":[]}`, "version 2 is not supported"},
		{head + `"nodes":[],"edges":[],"extra":1}`, "unknown field"},
		{head + `"nodes":[{"id":0,"name":"a","colour":"red"}],"edges":[]}`, "unknown field"},
		{head + `"nodes":[{"name":"a"}],"edges":[]}`, "node 0 (from 0) has no id"},
		{head + `"nodes":[{"id":0,"name":"a"},{"id":0,"name":"b"}],"edges":[]}`, "node id 0 is used twice"},
		{head + `"nodes":[{"id":0,"name":"a"},{"id":1,"name":"a"}],"edges":[]}`, "duplicate node name"},
		{head + `"nodes":[{"id":0}],"edges":[]}`, "observed node without a name"},
		{head + `"nodes":[{"id":0,"name":"a"}],"edges":[{"u":0,"v":3}]}`, "unknown node id 3"},
		{head + `"nodes":[{"id":0,"name":"a"}],"edges":[{"u":0}]}`, `lacks "u" or "v"`},
		{head + `"nodes":[{"id":0,"name":"a"}],"edges":[{"u":0,"v":0}]}`, "joins node a to itself"},
		{head + `"nodes":[{"id":0,"name":"a"},{"id":1,"name":"b"}],"edges":[{"u":0,"v":1},{"u":1,"v":0}]}`, "repeats the edge"},
		{head + `"nodes":[{"id":0,"name":"a"},{"id":1,"name":"b"},{"id":2,"hidden":true}],"edges":[{"u":0,"v":1},{"u":1,"v":2},{"u":2,"v":0}]}`, "edge 2 (from 0), #2–a, closes a cycle"},
		{head + `"nodes":[{"id":0,"name":"a"},{"id":1,"name":"b"}],"edges":[{"u":0,"v":1,"length":-0.5}]}`, "negative length"},
		{head + `"nodes":[{"id":0,"name":"a"}],"edges":[]} {}`, "unexpected data after"},
		{head + `"nodes":[{"id":0.5,"name":"a"}],"edges":[]}`, "JSON"},
		{`{"format":`, "JSON"},
	}
	for _, c := range cases {
		tr := jsonFixture(t)
		before := edgeString(tr)
		err := tr.UnmarshalJSON([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.doc, err, c.want)
		}
		if edgeString(tr) != before || tr.MaxID() != 5 {
			t.Errorf("%s: failed UnmarshalJSON changed the tree", c.doc)
		}
		if _, err := ReadJSON(strings.NewReader(c.doc)); err == nil {
			t.Errorf("%s: ReadJSON succeeded", c.doc)
		}
	}
	if _, err := ReadJSON(failingReader{}); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("reader error not returned: %v", err)
	}
}

func TestJSONRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for iter := range 300 {
		tr := randomTree(rng, 1+rng.IntN(40), genOptions{
			weirdNames: true, hiddenProb: 0.6, namedHidden: true, removeSome: true, unknownProb: 0.3, hiddenLeaves: rng.IntN(3),
		})
		if iter%7 == 0 { // a forest
			e := tr.Edges()
			if len(e) > 0 {
				_ = tr.RemoveEdge(e[0].U, e[0].V)
			}
		}
		var sb strings.Builder
		if err := WriteJSON(&sb, tr); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSON(strings.NewReader(sb.String()))
		if err != nil {
			t.Fatalf("iteration %d: %v\n%s", iter, err, sb.String())
		}
		want, _ := tr.Compact()
		if !slices.Equal(back.nodes, want.nodes) || !slices.Equal(back.alive, want.alive) {
			t.Fatalf("iteration %d: nodes differ", iter)
		}
		ea, eb := want.Edges(), back.Edges()
		if !slices.EqualFunc(ea, eb, func(x, y Edge) bool { return x.U == y.U && x.V == y.V && sameLength(x.Length, y.Length) }) {
			t.Fatalf("iteration %d: edges %v, want %v", iter, eb, ea)
		}
		// The compact form is what MarshalJSON writes too.
		b1, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		var viaUnmarshal Tree
		if err := json.Unmarshal(b1, &viaUnmarshal); err != nil {
			t.Fatal(err)
		}
		b2, _ := json.Marshal(&viaUnmarshal)
		if string(b1) != string(b2) {
			t.Fatalf("iteration %d: Marshal(Unmarshal(Marshal(t))) differs", iter)
		}
	}
}

func TestJSONExactLengths(t *testing.T) {
	tr := New()
	h := tr.AddHidden()
	for k, l := range []float64{0.1, 1.0 / 3, math.SmallestNonzeroFloat64, math.MaxFloat64, 1e-300, 123456789.123456789, 0} {
		id, _ := tr.AddObserved(string(rune('a' + k)))
		_ = tr.AddEdge(h, id, l)
	}
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var back Tree
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Edges(), tr.Edges()) {
		t.Errorf("lengths changed: %v, want %v", back.Edges(), tr.Edges())
	}
}

func FuzzReadJSON(f *testing.F) {
	f.Add(`{"format":"latentree-tree","version":1,"nodes":[{"id":0,"name":"a"},{"id":1,"hidden":true},{"id":2,"name":"b"}],"edges":[{"u":0,"v":1,"length":0.5},{"u":2,"v":1}]}`)
	f.Add(`{"format":"latentree-tree","version":1,"nodes":[],"edges":[]}`)
	f.Add(`{"format":"latentree-tree","version":1,"nodes":[{"id":0,"name":"a"},{"id":1,"name":"b"}],"edges":[{"u":0,"v":1},{"u":1,"v":0}]}`)
	f.Add(`{"format":"latentree-tree","version":1,"nodes":[{"id":5,"name":"a"},{"id":-2,"name":"b","hidden":true}],"edges":[{"u":5,"v":-2,"length":1e300}]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		tr, err := ReadJSON(strings.NewReader(doc))
		if err != nil {
			return
		}
		b1, err := json.Marshal(tr)
		if err != nil {
			t.Fatalf("a tree read from JSON cannot be written: %v", err)
		}
		var back Tree
		if err := json.Unmarshal(b1, &back); err != nil {
			t.Fatalf("written JSON cannot be read: %v\n%s", err, b1)
		}
		if b2, _ := json.Marshal(&back); string(b2) != string(b1) {
			t.Fatalf("JSON round trip changed the document:\n%s\n%s", b1, b2)
		}
	})
}
