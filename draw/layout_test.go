package draw

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latentree/latentree/tree"
)

// randomTree returns a random tree of n nodes: each new node hangs from a
// random earlier one (so depths and fan-outs vary), about half hidden;
// hidden nodes get labels in labels, some long.
func randomTree(rng *rand.Rand, n int) (*tree.Tree, map[string]string) {
	t := tree.New()
	ids := []int{t.AddHidden()}
	for i := 1; i < n; i++ {
		p := ids[rng.IntN(len(ids))]
		if rng.IntN(4) == 0 && len(ids) > 3 { // bushier: favour recent nodes
			p = ids[len(ids)-1-rng.IntN(3)]
		}
		var v int
		if rng.IntN(2) == 0 {
			v = t.AddHidden()
		} else {
			v, _ = t.AddObserved(fmt.Sprintf("w%d%s", i, "xxxxxxxxxxxx"[:rng.IntN(12)]))
		}
		if err := t.AddEdge(p, v, 1); err != nil {
			panic(err)
		}
		ids = append(ids, v)
	}
	labels := map[string]string{}
	for _, v := range t.Hidden() {
		if rng.IntN(3) > 0 {
			labels[t.Name(v)] = "god · jesus · bible"[:rng.IntN(21)]
		}
	}
	return t, labels
}

var sizes = []int{1, 2, 3, 10, 37, 150, 600, 2000}

func TestTidyInvariants(t *testing.T) {
	for _, n := range sizes {
		for seed := range uint64(3) {
			rng := rand.New(rand.NewPCG(seed, uint64(n)))
			tr, labels := randomTree(rng, n)
			opt := Options{Layout: LayoutTidy, Labels: labels}
			l, err := newLayout(tr, opt)
			if err != nil {
				t.Fatal(err)
			}
			pos, err := Positions(tr, opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(pos) != n {
				t.Fatalf("n=%d: %d positions", n, len(pos))
			}
			byDepth := map[int][]int{}
			for _, v := range l.r.Order {
				p := pos[v]
				if want := float64(l.depth[v]) * l.level; math.Abs(p.Y-want) > 1e-9 {
					t.Fatalf("n=%d seed %d: node %d at y=%g, want depth %d × %g", n, seed, v, p.Y, l.depth[v], l.level)
				}
				if cs := l.r.Children[v]; len(cs) > 0 {
					lo, hi := math.Inf(1), math.Inf(-1)
					for _, c := range cs {
						lo, hi = min(lo, pos[c].X), max(hi, pos[c].X)
					}
					if math.Abs(p.X-(lo+hi)/2) > 1e-6*(1+math.Abs(p.X)) {
						t.Fatalf("n=%d seed %d: node %d at x=%g, children span [%g, %g]", n, seed, v, p.X, lo, hi)
					}
				}
				byDepth[l.depth[v]] = append(byDepth[l.depth[v]], v)
			}
			maxLines := 0
			for _, v := range l.r.Order {
				maxLines = max(maxLines, len(l.labels[v].Lines))
			}
			if l.level < levelBase+float64(maxLines)*lineHeight {
				t.Fatalf("level gap %g leaves no room for labels of %d lines", l.level, maxLines)
			}
			for d, vs := range byDepth {
				slices.SortFunc(vs, func(a, b int) int { return cmpF(pos[a].X, pos[b].X) })
				for i := 1; i < len(vs); i++ {
					a, b := vs[i-1], vs[i]
					gap := pos[b].X - pos[a].X
					need := (max(2*nodeRadius, l.labels[a].width())+max(2*nodeRadius, l.labels[b].width()))/2 + sepGap
					if gap < minSep-1e-6 || gap < need-1e-6 {
						t.Fatalf("n=%d seed %d depth %d: nodes %d and %d %g apart, need %g (min %g)", n, seed, d, a, b, gap, need, minSep)
					}
				}
			}
			minX := math.Inf(1)
			for _, p := range pos {
				minX = min(minX, p.X)
			}
			if minX != 0 {
				t.Fatalf("leftmost node at x=%g, want 0", minX)
			}
		}
	}
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestTidyPacksSubtrees checks the layout is compact, not just
// non-overlapping: a complete binary tree's leaves are evenly spaced at
// the least separation.
func TestTidyPacksSubtrees(t *testing.T) {
	tr := tree.New()
	root := tr.AddHidden()
	level := []int{root}
	for d := 0; d < 4; d++ {
		var next []int
		for _, p := range level {
			for range 2 {
				v := tr.AddHidden()
				tr.AddEdge(p, v, 1)
				next = append(next, v)
			}
		}
		level = next
	}
	pos, err := Positions(tr, Options{Layout: LayoutTidy, Root: root, RootSet: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range level {
		if want := float64(i) * minSep; math.Abs(pos[v].X-want) > 1e-9 {
			t.Fatalf("leaf %d at x=%g, want %g", i, pos[v].X, want)
		}
	}
}

func TestRadialInvariants(t *testing.T) {
	for _, n := range sizes {
		for seed := range uint64(3) {
			rng := rand.New(rand.NewPCG(seed, uint64(n)))
			tr, labels := randomTree(rng, n)
			opt := Options{Layout: LayoutRadial, Labels: labels}
			l, err := newLayout(tr, opt)
			if err != nil {
				t.Fatal(err)
			}
			pos, err := Positions(tr, opt)
			if err != nil {
				t.Fatal(err)
			}
			if p := pos[l.r.Root]; p.X != 0 || p.Y != 0 {
				t.Fatalf("root at %v", p)
			}
			for _, v := range l.r.Order {
				ρ := math.Hypot(pos[v].X, pos[v].Y)
				if want := float64(l.depth[v]) * l.level; math.Abs(ρ-want) > 1e-6*(1+want) {
					t.Fatalf("n=%d: node %d at radius %g, want %g", n, v, ρ, want)
				}
			}
			// Leaves in depth-first order have strictly increasing angles
			// in (0, 2π), evenly spaced.
			var leaves []int
			var dfs func(int)
			dfs = func(v int) {
				if len(l.r.Children[v]) == 0 {
					leaves = append(leaves, v)
				}
				for _, c := range l.r.Children[v] {
					dfs(c)
				}
			}
			if n > 1 {
				dfs(l.r.Root)
			}
			for i, v := range leaves {
				a := math.Atan2(pos[v].Y, pos[v].X)
				if a < 0 {
					a += 2 * math.Pi
				}
				if math.Abs(a-l.angle[v]) > 1e-9 && math.Abs(math.Abs(a-l.angle[v])-2*math.Pi) > 1e-9 {
					t.Fatalf("leaf %d drawn at angle %g, laid out at %g", v, a, l.angle[v])
				}
				if i > 0 && !(l.angle[v] > l.angle[leaves[i-1]]) {
					t.Fatalf("n=%d: leaf angles not increasing: %g after %g", n, l.angle[v], l.angle[leaves[i-1]])
				}
				if want := 2 * math.Pi * (float64(i) + 0.5) / float64(len(leaves)); math.Abs(l.angle[v]-want) > 1e-9 {
					t.Fatalf("leaf %d of %d at angle %g, want %g", i, len(leaves), l.angle[v], want)
				}
			}
		}
	}
}

// TestNoOverlappingLabels checks geometrically, with the separating axis
// test on the rotated label boxes, that no two drawn labels overlap, for
// both layouts up to 2,000 nodes, and that every leaf label is drawn.
func TestNoOverlappingLabels(t *testing.T) {
	for _, n := range []int{10, 150, 600, 2000} {
		for _, lay := range []Layout{LayoutTidy, LayoutRadial, LayoutAuto} {
			if lay == LayoutTidy && n > 600 {
				continue
			}
			rng := rand.New(rand.NewPCG(7, uint64(n)))
			tr, labels := randomTree(rng, n)
			sc, err := newScene(tr, Options{Layout: lay, Labels: labels})
			if err != nil {
				t.Fatal(err)
			}
			var boxes [][4]Point
			var who []int
			shown, hiddenShown, hiddenLabelled := 0, 0, 0
			for _, v := range sc.r.Order {
				if len(sc.labels[v].Lines) > 0 && len(sc.r.Children[v]) == 0 && !sc.shown[v] {
					t.Fatalf("%v n=%d: leaf %s has no label drawn", lay, n, tr.Name(v))
				}
				if tr.IsHidden(v) && len(sc.labels[v].Lines) > 0 {
					hiddenLabelled++
				}
				if sc.shown[v] {
					shown++
					if tr.IsHidden(v) {
						hiddenShown++
					}
					boxes = append(boxes, sc.labels[v].corners())
					who = append(who, v)
				}
			}
			// Sweep on the boxes' left ends.
			type iv struct {
				lo, hi float64
				k      int
			}
			ivs := make([]iv, len(boxes))
			for k, b := range boxes {
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, p := range b {
					lo, hi = min(lo, p.X), max(hi, p.X)
				}
				ivs[k] = iv{lo, hi, k}
			}
			slices.SortFunc(ivs, func(a, b iv) int { return cmpF(a.lo, b.lo) })
			for i := range ivs {
				for j := i + 1; j < len(ivs) && ivs[j].lo < ivs[i].hi; j++ {
					a, b := ivs[i].k, ivs[j].k
					if overlap(boxes[a], boxes[b]) {
						t.Fatalf("%v n=%d: labels of %s %q and %s %q overlap", lay, n, tr.Name(who[a]), sc.labels[who[a]].Lines, tr.Name(who[b]), sc.labels[who[b]].Lines)
					}
				}
			}
			t.Logf("%v n=%d: %d labels drawn, %d of %d hidden-node labels", sc.kind, n, shown, hiddenShown, hiddenLabelled)
		}
	}
}

func TestOverlap(t *testing.T) {
	sq := func(x, y, s float64) [4]Point { return [4]Point{{x, y}, {x + s, y}, {x + s, y + s}, {x, y + s}} }
	if !overlap(sq(0, 0, 2), sq(1, 1, 2)) || overlap(sq(0, 0, 1), sq(1, 0, 1)) || overlap(sq(0, 0, 1), sq(3, 3, 1)) {
		t.Fatal("axis-aligned squares")
	}
	// A diamond whose bounding box overlaps the square but which does not.
	d := [4]Point{{3, 1.5}, {4.5, 3}, {3, 4.5}, {1.5, 3}}
	if overlap(sq(0, 0, 2), d) {
		t.Fatal("diamond")
	}
	lb := label{Lines: []string{"abc"}, X: 10, Y: 10, Angle: math.Pi / 2}
	c := lb.corners()
	if math.Abs(c[1].X-c[0].X) > 1e-9 || c[1].Y <= c[0].Y {
		t.Fatalf("label turned a quarter reads downwards: %v", c)
	}
}

// TestTextWidthCoversFont checks the width estimate is at least the
// width the PNG's font draws.
func TestTextWidthCoversFont(t *testing.T) {
	loadFont()
	rng := rand.New(rand.NewPCG(1, 1))
	for range 500 {
		b := make([]rune, 1+rng.IntN(30))
		for i := range b {
			b[i] = rune(32 + rng.IntN(95))
			if rng.IntN(10) == 0 {
				b[i] = []rune("éßøΩжé·—")[rng.IntN(8)]
			}
		}
		s := string(b)
		if got, font := textWidth(s), float64(fontFace.Width(s)); got < font-1e-9 {
			t.Fatalf("textWidth(%q) = %g < the font's %g", s, got, font)
		}
	}
	if w := textWidth("中文"); w < 2*fontSize {
		t.Fatalf("characters the font lacks count an em each: %g", w)
	}
}

func TestCentre(t *testing.T) {
	tr := tree.New()
	var path []int
	for i := range 7 {
		v, _ := tr.AddObserved(fmt.Sprint(i))
		if i > 0 {
			tr.AddEdge(path[i-1], v, 1)
		}
		path = append(path, v)
	}
	if c := centre(tr); c != path[3] {
		t.Fatalf("centre of a path of 7: %d", c)
	}
	pos, err := Positions(tr, Options{Layout: LayoutTidy})
	if err != nil {
		t.Fatal(err)
	}
	if pos[path[3]].Y != 0 {
		t.Fatal("the drawing is not rooted at the centre")
	}
	pos, _ = Positions(tr, Options{Layout: LayoutTidy, Root: path[0], RootSet: true})
	if pos[path[0]].Y != 0 || pos[path[6]].Y <= pos[path[5]].Y {
		t.Fatal("Root is not honoured")
	}
	if _, err := Positions(tr, Options{Root: 99, RootSet: true}); err == nil {
		t.Fatal("a root not in the tree is accepted")
	}
	if _, err := Positions(tree.New(), Options{}); err == nil {
		t.Fatal("an empty tree is accepted")
	}
	if _, err := Positions(tr, Options{Layout: Layout(9)}); err == nil {
		t.Fatal("an unknown layout is accepted")
	}
}

func TestParseLayout(t *testing.T) {
	for s, want := range map[string]Layout{"auto": LayoutAuto, "tidy": LayoutTidy, "Radial": LayoutRadial, "": LayoutAuto} {
		if got, err := ParseLayout(s); err != nil || got != want {
			t.Fatalf("ParseLayout(%q) = %v, %v", s, got, err)
		}
		if got, _ := ParseLayout(want.String()); got != want {
			t.Fatalf("%v does not read back", want)
		}
	}
	if _, err := ParseLayout("spiral"); err == nil {
		t.Fatal("spiral accepted")
	}
}

func TestAutoLayout(t *testing.T) {
	for _, n := range []int{AutoTidyMax, AutoTidyMax + 1} {
		tr, _ := randomTree(rand.New(rand.NewPCG(1, 2)), n)
		l, err := newLayout(tr, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := LayoutTidy
		if n > AutoTidyMax {
			want = LayoutRadial
		}
		if l.kind != want {
			t.Fatalf("%d nodes: %v", n, l.kind)
		}
	}
}
