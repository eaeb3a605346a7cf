package draw_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/draw"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/tree"
)

// starTree is a hidden node joined to observed nodes of the given names,
// and a second hidden node under the first with two more.
func namedTree(t testing.TB, names ...string) *tree.Tree {
	tr := tree.New()
	h := tr.AddHidden()
	h2 := tr.AddHidden()
	if err := tr.AddEdge(h, h2, 1); err != nil {
		t.Fatal(err)
	}
	for i, s := range names {
		v, err := tr.AddObserved(s)
		if err != nil {
			t.Skip(err)
		}
		p := h
		if i%2 == 1 {
			p = h2
		}
		if err := tr.AddEdge(p, v, 1); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

type svgNode struct {
	id, class string
	text      []string // title, then label lines
}

// parseSVG decodes an SVG document strictly and returns its node groups.
func parseSVG(t testing.TB, b []byte) []svgNode {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	var nodes []svgNode
	var cur *svgNode
	depth, nodeDepth := 0, -1
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG does not parse: %v\n%s", err, b)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			depth++
			for _, a := range x.Attr {
				if a.Name.Local == "href" || strings.Contains(a.Value, "url(") {
					t.Fatalf("SVG links outside: %v", a)
				}
			}
			if x.Name.Local == "script" || x.Name.Local == "image" || x.Name.Local == "foreignObject" {
				t.Fatalf("SVG has a %s element", x.Name.Local)
			}
			var id, class string
			for _, a := range x.Attr {
				switch a.Name.Local {
				case "id":
					id = a.Value
				case "class":
					class = a.Value
				}
			}
			if strings.HasPrefix(id, "node-") {
				nodes = append(nodes, svgNode{id: id, class: class})
				cur, nodeDepth = &nodes[len(nodes)-1], depth
			}
			if cur != nil && (x.Name.Local == "title" || x.Name.Local == "tspan") {
				cur.text = append(cur.text, "")
			}
		case xml.CharData:
			if cur != nil && len(cur.text) > 0 {
				cur.text[len(cur.text)-1] += string(x)
			}
		case xml.EndElement:
			if depth == nodeDepth {
				cur, nodeDepth = nil, -1
			}
			depth--
		}
	}
	return nodes
}

func TestSVGOneElementPerNode(t *testing.T) {
	for _, n := range []int{1, 4, 60, 400} {
		for _, lay := range []draw.Layout{draw.LayoutTidy, draw.LayoutRadial} {
			rng := rand.New(rand.NewPCG(3, uint64(n)))
			tr := tree.New()
			ids := []int{tr.AddHidden()}
			for i := 1; i < n; i++ {
				var v int
				if rng.IntN(3) == 0 {
					v = tr.AddHidden()
				} else {
					v, _ = tr.AddObserved(fmt.Sprint("v", i))
				}
				tr.AddEdge(ids[rng.IntN(len(ids))], v, 1)
				ids = append(ids, v)
			}
			var buf bytes.Buffer
			if err := draw.SVG(&buf, tr, draw.Options{Layout: lay, Title: "t"}); err != nil {
				t.Fatal(err)
			}
			nodes := parseSVG(t, buf.Bytes())
			if len(nodes) != tr.NumNodes() {
				t.Fatalf("%d nodes, %d node elements", tr.NumNodes(), len(nodes))
			}
			seen := map[string]bool{}
			for _, nd := range nodes {
				var id int
				if _, err := fmt.Sscanf(nd.id, "node-%d", &id); err != nil || !tr.Has(id) || seen[nd.id] {
					t.Fatalf("bad or repeated node element id %q", nd.id)
				}
				seen[nd.id] = true
				want := "observed"
				if tr.IsHidden(id) {
					want = "hidden"
				}
				if !strings.Contains(" "+nd.class+" ", " "+want+" ") {
					t.Fatalf("node %d has class %q, want %s", id, nd.class, want)
				}
			}
		}
	}
}

func TestSVGEscapesNames(t *testing.T) {
	nasty := []string{`a&b`, `<script>alert(1)</script>`, `"quoted"`, `it's`, `]]>`, `x<y>z&amp;`, "tab\tnew\nline", "é—中"}
	tr := namedTree(t, nasty...)
	labels := map[string]string{"#0": `<b>&"'</b>`}
	var buf bytes.Buffer
	if err := draw.SVG(&buf, tr, draw.Options{Labels: labels, Title: `T & <t>`}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("<script")) || bytes.Contains(buf.Bytes(), []byte("<b>")) {
		t.Fatal("markup from names reaches the SVG")
	}
	nodes := parseSVG(t, buf.Bytes())
	got := map[string][]string{}
	for _, nd := range nodes {
		got[nd.id] = nd.text
	}
	for _, s := range nasty {
		v, _ := tr.Lookup(s)
		txt := got[fmt.Sprint("node-", v)]
		if len(txt) < 2 || txt[0] != s || txt[1] != s {
			t.Fatalf("name %q reads back as %q", s, txt)
		}
	}
	if txt := got["node-0"]; len(txt) < 2 || txt[len(txt)-1] != labels["#0"] {
		t.Fatalf("label reads back as %q", txt)
	}
}

func FuzzSVG(f *testing.F) {
	f.Add("a", "b", "c", "lab", "title")
	f.Add("&", "<", ">", `"'`, "\x00\xff")
	f.Add("\ufffe", "]]>", "\r\n", "\t", "\U0001F600")
	f.Fuzz(func(t *testing.T, a, b, c, lab, title string) {
		if a == "" || b == "" || c == "" || a == b || b == c || a == c {
			t.Skip()
		}
		tr := namedTree(t, a, b, c)
		opt := draw.Options{Labels: map[string]string{a: lab, "#0": lab}, Title: title}
		for _, lay := range []draw.Layout{draw.LayoutTidy, draw.LayoutRadial} {
			opt.Layout = lay
			var buf bytes.Buffer
			if err := draw.SVG(&buf, tr, opt); err != nil {
				t.Fatal(err)
			}
			if nodes := parseSVG(t, buf.Bytes()); len(nodes) != 5 {
				t.Fatalf("%d node elements for 5 nodes", len(nodes))
			}
		}
	})
}

func TestPNG(t *testing.T) {
	tr := namedTree(t, "alpha", "beta", "gamma", "delta", "epsilon")
	labels := map[string]string{"#0": "alpha · gamma", "#1": "beta · delta"}
	for _, lay := range []draw.Layout{draw.LayoutTidy, draw.LayoutRadial} {
		var buf bytes.Buffer
		if err := draw.PNG(&buf, tr, draw.Options{Layout: lay, Labels: labels, Title: "five"}); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		bd := img.Bounds()
		if bd.Dx() < 50 || bd.Dy() < 50 {
			t.Fatalf("image %v", bd)
		}
		ink := 0
		for y := bd.Min.Y; y < bd.Max.Y; y++ {
			for x := bd.Min.X; x < bd.Max.X; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				if r < 0xf000 || g < 0xf000 || b < 0xf000 {
					ink++
				}
			}
		}
		if frac := float64(ink) / float64(bd.Dx()*bd.Dy()); ink < 300 || frac > 0.5 {
			t.Fatalf("%v: %d of %d pixels drawn", lay, ink, bd.Dx()*bd.Dy())
		}
	}
	// A given size is honoured.
	var buf bytes.Buffer
	if err := draw.PNG(&buf, tr, draw.Options{Width: 300, Height: 200}); err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(&buf)
	if err != nil || cfg.Width != 300 || cfg.Height != 200 {
		t.Fatalf("size %dx%d, %v", cfg.Width, cfg.Height, err)
	}
}

func TestEdgeStrengthsGaussian(t *testing.T) {
	tr := namedTree(t, "a", "b", "c", "d")
	g, err := gaussian.New(tr, 0, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	r := g.Rooted()
	rho := map[int]float64{}
	for i, v := range r.Order[1:] {
		g.Rho[v] = []float64{0.9, -0.7, 0.3, -0.95, 0.1}[i%5]
		rho[v] = g.Rho[v]
	}
	s, err := draw.EdgeStrengths(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != tr.NumEdges() {
		t.Fatalf("%d strengths for %d edges", len(s), tr.NumEdges())
	}
	for _, e := range tr.Edges() {
		child := e.V
		if r.Parent[e.U] == e.V {
			child = e.U
		}
		// exp(−d) from the exact distance is |ρ|.
		d, err := g.InformationDistances([]int{e.U, e.V})
		if err != nil {
			t.Fatal(err)
		}
		got := s[[2]int{e.U, e.V}]
		if math.Abs(got-math.Abs(rho[child])) > 1e-12 || math.Abs(got-math.Exp(-d[1])) > 1e-9 {
			t.Fatalf("edge %v: strength %g, |ρ| %g, exp(−d) %g", e, got, math.Abs(rho[child]), math.Exp(-d[1]))
		}
	}
}

func TestEdgeStrengthsDiscrete(t *testing.T) {
	tr := namedTree(t, "a", "b", "c", "d")
	m, err := discrete.New(tr, 0, uniformStates(tr, 2))
	if err != nil {
		t.Skip(err)
	}
	m.Randomize(rand.NewPCG(1, 2))
	s, err := draw.EdgeStrengths(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tr.Edges() {
		d, err := m.InformationDistance(e.U, e.V)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := s[[2]int{e.U, e.V}]
		if !ok || got < 0 || got > 1 || math.Abs(got-math.Exp(-d)) > 1e-9 {
			t.Fatalf("edge %v: strength %g (%v), exp(−d) %g", e, got, ok, math.Exp(-d))
		}
	}
}

func uniformStates(tr *tree.Tree, k int) []int {
	s := make([]int, tr.MaxID())
	for i := range s {
		s[i] = k
	}
	return s
}

// BenchmarkPositionsSVG2000 lays out and writes a 2,000-node tree with
// labels on every hidden node (the radial layout that LayoutAuto picks).
func BenchmarkPositionsSVG2000(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2000))
	tr := tree.New()
	ids := []int{tr.AddHidden()}
	for i := 1; i < 2000; i++ {
		var v int
		if i%2 == 0 {
			v = tr.AddHidden()
		} else {
			v, _ = tr.AddObserved(fmt.Sprint("word", i))
		}
		tr.AddEdge(ids[rng.IntN(len(ids))], v, 1)
		ids = append(ids, v)
	}
	labels := map[string]string{}
	for _, v := range tr.Hidden() {
		labels[tr.Name(v)] = "god · jesus · bible"
	}
	opt := draw.Options{Labels: labels}
	for b.Loop() {
		if _, err := draw.Positions(tr, opt); err != nil {
			b.Fatal(err)
		}
		if err := draw.SVG(io.Discard, tr, opt); err != nil {
			b.Fatal(err)
		}
	}
}
