package tree

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseNewickFixtures(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		opt   NewickOptions
		edges string
		nodes int
	}{
		{"observed internal label", "((a:1,b:2)95:0.5,(c,d)e:3);", NewickOptions{},
			"95-a:1 95-b:2 95-e:3.5 c-e:? d-e:?", 6},
		{"hidden internal labels", "((a:1,b:2)95:0.5,(c,d)e:3);", NewickOptions{HiddenInternalLabels: true},
			"#0-a:1 #0-b:2 #0-e:3.5 c-e:? d-e:?", 6},
		{"scientific lengths", "(a:1e-3,b:2.5E+2,c:.5)x;", NewickOptions{}, "a-x:0.001 b-x:250 c-x:0.5", 4},
		{"comments", "[lead](a[&&NHX:S=x]:1[after],b,[mid]c)[end];[trailing]\n", NewickOptions{},
			"#0-a:1 #0-b:? #0-c:?", 4},
		{"whitespace", " (\ta ,\n b\r\n: 2 , c ) ;\n ", NewickOptions{}, "#0-a:? #0-b:2 #0-c:?", 4},
		{"rooted binary", "(a:1,b:2);", NewickOptions{}, "a-b:3", 2},
		{"rooted binary kept", "(a:1,b:2);", NewickOptions{KeepRoot: true}, "#0-a:1 #0-b:2", 3},
		{"rooted binary unknown length", "(a:1,b);", NewickOptions{}, "a-b:?", 2},
		{"rooted binary subtrees", "((a,b):1,(c,d):2);", NewickOptions{},
			"#0-#3:3 #0-a:? #0-b:? #3-c:? #3-d:?", 6},
		{"labelled binary root", "(a,b)r;", NewickOptions{}, "a-r:? b-r:?", 3},
		{"numeric root label dropped", "(a:1,b:1)100;", NewickOptions{HiddenInternalLabels: true}, "a-b:2", 2},
		{"named hidden root kept", "(a:1,b:1)h;", NewickOptions{HiddenInternalLabels: true}, "a-h:1 b-h:1", 3},
		{"root length ignored", "(a,b,c):0.3;", NewickOptions{}, "#0-a:? #0-b:? #0-c:?", 4},
		{"single leaf", "a;", NewickOptions{}, "", 1},
		{"unary root", "(a);", NewickOptions{}, "#0-a:?", 2},
		{"lenient", "(a,b,c)", NewickOptions{Lenient: true}, "#0-a:? #0-b:? #0-c:?", 4},
		{"lenient with semicolon", "(a,b,c);", NewickOptions{Lenient: true}, "#0-a:? #0-b:? #0-c:?", 4},
		{"hex and signs", "(a:+1,b:0x1p-2,c:-0);", NewickOptions{}, "#0-a:1 #0-b:0.25 #0-c:-0", 4},
	}
	for _, c := range cases {
		tr, err := ParseNewick(c.in, c.opt)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := edgeString(tr); got != c.edges || tr.NumNodes() != c.nodes {
			t.Errorf("%s: edges %q (%d nodes), want %q (%d nodes)", c.name, got, tr.NumNodes(), c.edges, c.nodes)
		}
		if err := tr.Validate(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestParseNewickNodes(t *testing.T) {
	tr, err := ParseNewick("((a:1,b:2)95:0.5,(c,d)e:3);", NewickOptions{HiddenInternalLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := tr.Lookup("e"); !ok || !tr.IsHidden(e) {
		t.Error("internal label e is not a hidden node")
	}
	if _, ok := tr.Lookup("95"); ok {
		t.Error("support value kept as a name")
	}
	if got := tr.ObservedNames(); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Errorf("observed = %v", got)
	}
	tr, err = ParseNewick("('a b':1,'it''s',c_d,'x_y',\"q\");", NewickOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tr.ObservedNames(), []string{`"q"`, "a b", "c d", "it's", "x_y"}; !slices.Equal(got, want) {
		t.Errorf("quoted labels: %q, want %q", got, want)
	}
}

func TestParseNewickErrors(t *testing.T) {
	cases := []struct {
		in   string
		opt  NewickOptions
		off  int
		want string
	}{
		{"", NewickOptions{}, 0, "expected a tree"},
		{" ;", NewickOptions{}, 1, "expected a tree"},
		{"(a,b,c)", NewickOptions{}, 7, "expected ';'"},
		{"(a,b,c);(a,b,c);", NewickOptions{}, 8, "after the end of the tree"},
		{"(a,b,c);x", NewickOptions{}, 8, "after the end of the tree"},
		{"(a,b,c)x", NewickOptions{Lenient: true}, 8, ""},
		{"(a,,c);", NewickOptions{}, 3, "leaf without a label"},
		{"(,a);", NewickOptions{}, 1, "leaf without a label"},
		{"(a,b,);", NewickOptions{}, 5, "leaf without a label"},
		{"(a,b,:1);", NewickOptions{}, 5, "leaf without a label"},
		{":1;", NewickOptions{}, 0, "leaf without a label"},
		{"(a,a,b);", NewickOptions{}, 3, `duplicate label "a"`},
		{"((a,b)1,(c,d)1);", NewickOptions{}, 13, "HiddenInternalLabels"},
		{"((a,b)x,(c,d)x);", NewickOptions{HiddenInternalLabels: true}, 13, `duplicate label "x"`},
		{"((a,b,c);", NewickOptions{}, 8, "1 unclosed"},
		{"((a,b,c)", NewickOptions{Lenient: true}, 8, "1 unclosed"},
		{"(a,b));", NewickOptions{}, 5, "unbalanced ')'"},
		{"(a:x,b);", NewickOptions{}, 3, `invalid branch length "x"`},
		{"(a:-1,b);", NewickOptions{}, 3, "negative branch length"},
		{"(a:,b);", NewickOptions{}, 3, "expected a branch length"},
		{"(a:NaN,b);", NewickOptions{}, 3, "invalid branch length"},
		{"(a:Inf,b);", NewickOptions{}, 3, "invalid branch length"},
		{"(a:1e999,b);", NewickOptions{}, 3, "invalid branch length"},
		{"(a:'1',b);", NewickOptions{}, 3, "expected a branch length"},
		{"(a:1:2,b);", NewickOptions{}, 4, "expected ',' or ')', found ':'"},
		{"(a[x,b);", NewickOptions{}, 2, "unterminated comment"},
		{"('a,b);", NewickOptions{}, 1, "unterminated quoted label"},
		{"(a b,c);", NewickOptions{}, 3, "expected ':', ',' or ')', found label \"b\""},
		{"(a,b)c d;", NewickOptions{}, 7, "expected ':' or ';', found label \"d\""},
		{"(a,b)]", NewickOptions{}, 5, "unexpected ']'"},
		{"('',b);", NewickOptions{}, 1, "leaf with an empty label"},
		{"a,b;", NewickOptions{}, 1, "',' outside parentheses"},
		{"(a:1e308,b:1e308);", NewickOptions{}, 0, "add up to more"},
		{"(a)(b);", NewickOptions{}, 3, "expected a label, ':' or ';', found '('"},
	}
	for _, c := range cases {
		_, err := ParseNewick(c.in, c.opt)
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.in, err)
			}
			continue
		}
		var ne *NewickError
		if !errors.As(err, &ne) {
			t.Errorf("%q: error %v is not a *NewickError", c.in, err)
			continue
		}
		if ne.Offset != c.off || !strings.Contains(ne.Msg, c.want) {
			t.Errorf("%q: error at %d %q, want at %d containing %q", c.in, ne.Offset, ne.Msg, c.off, c.want)
		}
	}
}

func TestNewickErrorPosition(t *testing.T) {
	_, err := ParseNewick("(a,\n  b,\n  a);", NewickOptions{})
	want := `newick: line 3, column 3 (byte 11): duplicate label "a"`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	// Columns count characters, not bytes.
	_, err = ParseNewick("(é,é);", NewickOptions{})
	want = `newick: line 1, column 4 (byte 4): duplicate label "é"`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

func TestReadNewick(t *testing.T) {
	tr, err := ReadNewick(strings.NewReader("(a:1,b:2,c:3);\n"), NewickOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := edgeString(tr); got != "#0-a:1 #0-b:2 #0-c:3" {
		t.Errorf("edges %s", got)
	}
	if _, err := ReadNewick(failingReader{}, NewickOptions{}); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("reader error not returned: %v", err)
	}
	if err := WriteNewick(failingWriter{}, tr, NewickOptions{}); err == nil {
		t.Error("writer error not returned")
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("boom") }

func TestWriteNewickFixtures(t *testing.T) {
	unnamed := func(tr *Tree, names ...string) *Tree {
		for _, n := range names {
			_ = tr.SetName(mustID(t, tr, n), "")
		}
		return tr
	}
	cases := []struct {
		name string
		tr   *Tree
		opt  NewickOptions
		want string
	}{
		{"hidden star", build(t, "h-a:1 h-b:2 h-c"), NewickOptions{}, "(a:1,b:2,c);"},
		{"quartet", build(t, "a-h1:1 b-h1:2 h1-h2:0.5 h2-c h2-d:1e-7"), NewickOptions{}, "(a:1,b:2,(c,d:1e-07):0.5);"},
		{"children sorted by name", build(t, "h1-h2 h2-z h2-c h1-b h1-y h1-h3 h3-x h3-a"), NewickOptions{},
			"((a,x),b,(c,z),y);"},
		{"observed centre", build(t, "x-a:1 x-b x-c"), NewickOptions{}, "(a:1,b,c)x;"},
		{"hub preferred to observed internal", build(t, "x-a x-b x-h1 h1-c h1-d"), NewickOptions{}, "((a,b)x,c,d);"},
		{"label hidden", unnamed(build(t, "a-h1 b-h1 h1-h2 h2-c h2-d"), "h2"), NewickOptions{LabelHidden: true},
			"(a,b,(c,d)#3)h1;"},
		{"hidden unlabelled", unnamed(build(t, "a-h1 b-h1 h1-h2 h2-c h2-d"), "h2"), NewickOptions{}, "(a,b,(c,d));"},
		{"degree-two hidden", build(t, "a-h1:1 h1-b:2"), NewickOptions{}, "((b:2):1)a;"},
		{"degree-two hidden labelled", build(t, "a-h1:1 h1-b:2"), NewickOptions{LabelHidden: true}, "(a:1,b:2)h1;"},
		{"hidden leaf as root", build(t, "h1-h2:1 h2-a h2-b h2-c"), NewickOptions{}, "((a,b,c):1);"},
		{"single node", build(t, "a"), NewickOptions{}, "a;"},
		{"two nodes", build(t, "b-a:1"), NewickOptions{}, "(a:1)b;"},
		{"precision", build(t, "h-a:0.1 h-b:0.30000000000000004 h-c:1e+25"), NewickOptions{},
			"(a:0.1,b:0.30000000000000004,c:1e+25);"},
	}
	for _, c := range cases {
		var sb strings.Builder
		if err := WriteNewick(&sb, c.tr, c.opt); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := sb.String(); got != c.want+"\n" {
			t.Errorf("%s: wrote %q, want %q", c.name, got, c.want+"\n")
		}
		if c.opt == (NewickOptions{}) && c.tr.Newick() != c.want {
			t.Errorf("%s: Newick() = %q", c.name, c.tr.Newick())
		}
	}
}

func TestWriteNewickQuoting(t *testing.T) {
	tr := New()
	h := tr.AddHidden()
	for _, n := range []string{"it's", "c_d", "a b", "(x)", "é", "p[1]", "tab\there", "q:r;s,t", "plain-1.5"} {
		id, err := tr.AddObserved(n)
		if err != nil {
			t.Fatal(err)
		}
		_ = tr.AddEdge(h, id, 1)
	}
	want := "('(x)':1,'a b':1,'c_d':1,'it''s':1,'p[1]':1,plain-1.5:1,'q:r;s,t':1,'tab\there':1,é:1);"
	if got := tr.Newick(); got != want {
		t.Errorf("Newick = %q\nwant      %q", got, want)
	}
	back, err := ParseNewick(want, NewickOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.ObservedNames(), tr.ObservedNames()) {
		t.Errorf("names after round trip: %q", back.ObservedNames())
	}
}

func TestWriteNewickErrors(t *testing.T) {
	cases := []struct {
		name string
		tr   *Tree
		want string
	}{
		{"two hidden leaves", build(t, "h1-a a-h2"), "2 hidden leaves"},
		{"no observed node", build(t, "h1-h2"), "no observed node"},
		{"forest", build(t, "a-b c-d"), "not a tree"},
		{"negative length", build(t, "a-b:-1"), "invalid length"},
		{"empty", New(), "empty"},
	}
	for _, c := range cases {
		var sb strings.Builder
		err := WriteNewick(&sb, c.tr, NewickOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if sb.Len() != 0 {
			t.Errorf("%s: wrote %q despite the error", c.name, sb.String())
		}
		if c.tr.Newick() != "" {
			t.Errorf("%s: Newick() not empty", c.name)
		}
	}
}

// checkNewickRoundTrip writes tr, reads it back and checks that nothing was
// lost.
func checkNewickRoundTrip(t *testing.T, tr *Tree, label string) {
	t.Helper()
	s := tr.Newick()
	if s == "" {
		t.Fatalf("%s: Newick failed: %v", label, WriteNewick(&strings.Builder{}, tr, NewickOptions{}))
	}
	back, err := ParseNewick(s, NewickOptions{})
	if err != nil {
		t.Fatalf("%s: %v\n%s", label, err, s)
	}
	if !slices.Equal(back.ObservedNames(), tr.ObservedNames()) {
		t.Fatalf("%s: names %q, want %q", label, back.ObservedNames(), tr.ObservedNames())
	}
	if back.NumNodes() != tr.NumNodes() || back.NumHidden() != tr.NumHidden() || back.NumEdges() != tr.NumEdges() {
		t.Fatalf("%s: %d nodes (%d hidden), want %d (%d)\n%s", label, back.NumNodes(), back.NumHidden(), tr.NumNodes(), tr.NumHidden(), s)
	}
	r, err := RobinsonFoulds(tr, back)
	if err != nil || r.RF != 0 {
		t.Fatalf("%s: RF %d, %v\n%s", label, r.RF, err, s)
	}
	da, db := observedDistances(tr), observedDistances(back)
	for k, x := range da {
		if !sameLength(x, db[k]) {
			t.Fatalf("%s: distance %q = %g after round trip, want %g\n%s", label, k, db[k], x, s)
		}
	}
	// Each observed node keeps its degree and the lengths of its edges.
	for _, v := range tr.Observed() {
		w := mustID(t, back, tr.Name(v))
		var la, lb []float64
		for _, h := range tr.Adjacent(v) {
			la = append(la, h.Length)
		}
		for _, h := range back.Adjacent(w) {
			lb = append(lb, h.Length)
		}
		slices.Sort(la)
		slices.Sort(lb)
		if !slices.EqualFunc(la, lb, sameLength) {
			t.Fatalf("%s: edges at %q have lengths %v, want %v", label, tr.Name(v), lb, la)
		}
	}
	if s2 := back.Newick(); s2 != s {
		t.Fatalf("%s: writing the read tree gave\n%s\nnot\n%s", label, s2, s)
	}
}

func TestNewickRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	iters := 2000
	if testing.Short() {
		iters = 300
	}
	for iter := range iters {
		n := 1 + rng.IntN(40)
		opt := genOptions{
			weirdNames:   iter%2 == 0,
			hiddenProb:   []float64{0, 0.5, 0.9, 1}[iter%4],
			namedHidden:  iter%3 == 0,
			removeSome:   iter%5 == 0,
			unknownProb:  0.2,
			hiddenLeaves: rng.IntN(2),
		}
		tr := randomTree(rng, n, opt)
		checkNewickRoundTrip(t, tr, "iteration "+strconv.Itoa(iter))
	}
}

func TestNewickLabelHiddenRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for iter := range 300 {
		// With at least three nodes, observed leaves are written as leaves;
		// observed internal nodes are read back as hidden.
		tr := randomTree(rng, 3+rng.IntN(30), genOptions{hiddenProb: 0.7, unknownProb: 0.3})
		tr.AutoNameHidden("h")
		var sb strings.Builder
		if err := WriteNewick(&sb, tr, NewickOptions{LabelHidden: true}); err != nil {
			t.Fatal(err)
		}
		back, err := ParseNewick(sb.String(), NewickOptions{HiddenInternalLabels: true})
		if err != nil {
			t.Fatalf("iteration %d: %v\n%s", iter, err, sb.String())
		}
		for _, v := range tr.Nodes() {
			w, ok := back.Lookup(tr.Name(v))
			if !ok || back.IsHidden(w) != (tr.IsHidden(v) || tr.Degree(v) >= 2) || back.Degree(w) != tr.Degree(v) {
				t.Fatalf("iteration %d: node %s not kept\n%s", iter, tr.Name(v), sb.String())
			}
			for _, h := range tr.Adjacent(v) {
				l, ok := back.EdgeLength(w, mustID(t, back, tr.Name(h.To)))
				if !ok || !sameLength(l, h.Length) {
					t.Fatalf("iteration %d: edge %s–%s not kept", iter, tr.Name(v), tr.Name(h.To))
				}
			}
		}
	}
}

func TestNewickDeep(t *testing.T) {
	const depth = 200000
	s := strings.Repeat("(", depth) + "a" + strings.Repeat(")", depth) + ";"
	tr, err := ParseNewick(s, NewickOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.NumNodes() != depth+1 || tr.NumHidden() != depth {
		t.Fatalf("%d nodes", tr.NumNodes())
	}
	if got := tr.Newick(); got != s {
		t.Errorf("deep tree written differently (length %d, want %d)", len(got), len(s))
	}
	// A long path of observed nodes.
	p := New()
	prev := -1
	for i := range depth {
		id, _ := p.AddObserved("v" + strconv.Itoa(i))
		if prev >= 0 {
			_ = p.AddEdge(prev, id, 1)
		}
		prev = id
	}
	back, err := ParseNewick(p.Newick(), NewickOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := mustID(t, back, "v0"), mustID(t, back, "v"+strconv.Itoa(depth-1))
	if back.NumEdges() != depth-1 || back.PathLength(a, b) != depth-1 {
		t.Errorf("path read back with %d edges, length %g", back.NumEdges(), back.PathLength(a, b))
	}
}

func FuzzNewick(f *testing.F) {
	for _, s := range []string{
		"((a:1,b:2)95:0.5,(c,d)e:3);",
		"(a,b,c);",
		"('a b':1,'it''s',c_d);",
		"[x](a[y]:1e-3,b:2.5E+2,(c,d)x)r;",
		"(a,b);",
		"((a));",
		"a;",
		"(a:1,b:1)h;",
		"((a,b)1,(c,d)1);",
		"(a,(b,(c,(d,e))));",
		"(,);",
		"(a:-1,b);",
		"('a''',b)\n;",
	} {
		for flags := range uint8(8) {
			f.Add(s, flags)
		}
	}
	f.Fuzz(func(t *testing.T, s string, flags uint8) {
		opt := NewickOptions{
			HiddenInternalLabels: flags&1 != 0,
			KeepRoot:             flags&2 != 0,
			Lenient:              flags&4 != 0,
		}
		tr, err := ParseNewick(s, opt)
		if err != nil {
			var ne *NewickError
			if !errors.As(err, &ne) || ne.Offset < 0 || ne.Offset > len(s) || ne.Line < 1 || ne.Column < 1 {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("parsed an invalid tree: %v", err)
		}
		checkNewickRoundTrip(t, tr, "fuzz")
	})
}

func BenchmarkNewick(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	tr := randomTree(rng, 5000, genOptions{hiddenProb: 0.7, unknownProb: 0.1})
	s := tr.Newick()
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			if tr.Newick() == "" {
				b.Fatal("write failed")
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			if _, err := ParseNewick(s, NewickOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
