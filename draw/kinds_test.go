package draw_test

import (
	"bytes"
	"fmt"
	"image/png"
	"regexp"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/draw"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/tree"
)

// mixedModel is a conditional-Gaussian model: discrete hidden h over
// discrete x and continuous y, and continuous hidden g over continuous z1,
// z2, with a name that needs escaping.
func mixedModel(t testing.TB) *mixed.Model {
	t.Helper()
	tr, err := tree.ParseNewick("(x,y,(z1,'z<&>2')g)h;", tree.NewickOptions{HiddenInternalLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	kinds := make([]data.Kind, tr.MaxID())
	states := make([]int, tr.MaxID())
	var root int
	for _, v := range tr.Nodes() {
		switch tr.Name(v) {
		case "h", "x":
			kinds[v], states[v] = data.Discrete, 2
			if tr.Name(v) == "h" {
				root = v
			}
		default:
			kinds[v] = data.Continuous
		}
	}
	m, err := mixed.New(tr, root, kinds, states)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSVGMarksKinds(t *testing.T) {
	m := mixedModel(t)
	kinds := draw.NodeKinds(m)
	for _, lay := range []draw.Layout{draw.LayoutTidy, draw.LayoutRadial} {
		var b bytes.Buffer
		if err := draw.SVG(&b, m.Tree, draw.Options{Layout: lay, Kinds: kinds, Root: m.Root, RootSet: true}); err != nil {
			t.Fatal(err)
		}
		nodes := parseSVG(t, b.Bytes())
		if len(nodes) != m.Tree.NumNodes() {
			t.Fatalf("%d node elements", len(nodes))
		}
		for _, nd := range nodes {
			var id int
			fmt.Sscanf(nd.id, "node-%d", &id)
			want := "node observed"
			if m.Tree.IsHidden(id) {
				want = "node hidden"
			}
			if m.Kinds[id] == data.Continuous {
				want += " continuous"
			} else {
				want += " discrete"
			}
			if nd.class != want {
				t.Errorf("%s (%s): class %q, want %q", nd.id, m.Tree.Name(id), nd.class, want)
			}
		}
		svg := b.String()
		// One ring per continuous node and one per continuous legend key.
		rings := strings.Count(svg, `class="ring"`)
		if rings != 4+2 {
			t.Errorf("%d rings, want 6", rings)
		}
		keys := regexp.MustCompile(`<g class="key ([a-z ]+)">`).FindAllStringSubmatch(svg, -1)
		var got []string
		for _, k := range keys {
			got = append(got, k[1])
		}
		if strings.Join(got, ",") != "observed discrete,observed continuous,hidden discrete,hidden continuous" {
			t.Errorf("legend keys %v", got)
		}
		if !strings.Contains(svg, "z&lt;&amp;&gt;2") {
			t.Error("name not escaped")
		}
	}
	// Without kinds, or for a model of one kind, nothing changes.
	var plain, none bytes.Buffer
	if err := draw.SVG(&plain, m.Tree, draw.Options{}); err != nil {
		t.Fatal(err)
	}
	allDisc := make([]data.Kind, m.Tree.MaxID())
	if err := draw.SVG(&none, m.Tree, draw.Options{Kinds: allDisc}); err != nil {
		t.Fatal(err)
	}
	if plain.String() != none.String() || strings.Contains(plain.String(), "ring") || strings.Contains(plain.String(), "legend") {
		t.Error("a drawing without continuous nodes has rings or a legend")
	}
}

// The PNG draws continuous nodes in their colour: teal pixels appear only
// with kinds.
func TestPNGMarksKinds(t *testing.T) {
	m := mixedModel(t)
	teal := func(opt draw.Options) int {
		var b bytes.Buffer
		if err := draw.PNG(&b, m.Tree, opt); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		r := img.Bounds()
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				cr, cg, cb, _ := img.At(x, y).RGBA()
				if cr>>8 < 60 && cg>>8 > 110 && cg>>8 < 160 && cb>>8 > 100 && cb>>8 < 145 {
					n++
				}
			}
		}
		return n
	}
	if n := teal(draw.Options{}); n != 0 {
		t.Errorf("%d teal pixels without kinds", n)
	}
	if n := teal(draw.Options{Kinds: draw.NodeKinds(m)}); n < 50 {
		t.Errorf("%d teal pixels with kinds", n)
	}
}
