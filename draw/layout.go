package draw

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/tree"
)

// Layout chooses how a tree is laid out.
type Layout int

const (
	// LayoutAuto is LayoutTidy for trees of up to AutoTidyMax nodes and
	// LayoutRadial beyond.
	LayoutAuto Layout = iota
	// LayoutTidy is a rooted top-down layout: parents centred over their
	// children, subtrees packed as closely as their labels allow.
	LayoutTidy
	// LayoutRadial puts the root at the centre, every node at a radius
	// proportional to its depth and the leaves evenly around the circle.
	LayoutRadial
)

// AutoTidyMax is the largest tree LayoutAuto draws tidy.
const AutoTidyMax = 150

// String returns the layout's name, as ParseLayout reads it.
func (l Layout) String() string {
	switch l {
	case LayoutAuto:
		return "auto"
	case LayoutTidy:
		return "tidy"
	case LayoutRadial:
		return "radial"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// ParseLayout reads a layout name: auto, tidy or radial.
func ParseLayout(s string) (Layout, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		return LayoutAuto, nil
	case "tidy", "tree":
		return LayoutTidy, nil
	case "radial", "circular":
		return LayoutRadial, nil
	}
	return 0, fmt.Errorf("draw: unknown layout %q (want auto, tidy or radial)", s)
}

// Point is a position in the drawing, in pixels, y growing downwards as
// in SVG.
type Point struct{ X, Y float64 }

// Options control a drawing. The zero value draws the tree with the
// automatic layout, rooted at its centre, every edge of the same width.
type Options struct {
	// Layout is the layout (LayoutAuto by default).
	Layout Layout
	// Root is the node the drawing is rooted at when RootSet is true;
	// otherwise the tree's centre (a node of least eccentricity) is.
	Root    int
	RootSet bool
	// Labels maps node names (Tree.Name) to a second line drawn under the
	// name, such as the label of a hidden variable.
	Labels map[string]string
	// Strength maps an edge (u, v), u < v, to the strength of the
	// dependence between its ends in [0, 1], drawn as the edge's width;
	// nil draws every edge alike, and edges missing from the map are drawn
	// at the width of strength 0.3.
	Strength map[[2]int]float64
	// Width and Height are the size of the picture in pixels; 0 is the
	// size of the layout (PNG: capped at MaxPNGSide), and when only one is
	// given the other keeps the aspect ratio. Each is at most MaxSide, and
	// a PNG at most MaxPNGPixels (Validate).
	Width, Height float64
	// Title is drawn above the tree when not empty.
	Title string
	// Kinds gives the kind of every node (indexed by node identifier, as
	// model.Model.NodeKind), for a mixed model: when some node is
	// data.Continuous, continuous nodes get a second outline (a ring round
	// the circle or square, in another colour) and a legend of the kinds
	// drawn is set under the tree. Nil (or all discrete) draws every node
	// alike. NodeKinds fills it from a model.
	Kinds []data.Kind
}

// Geometry of the drawing, in pixels.
const (
	fontSize   = 12.0 // label font size
	lineHeight = 14.0 // distance between the baselines of a label's lines
	nodeRadius = 5.0  // observed nodes: circles of this radius; hidden: squares of twice this side
	labelGap   = 3.0  // between a node and its label
	sepGap     = 10.0 // tidy: least free space between the label boxes of neighbours
	minSep     = 2*nodeRadius + sepGap
	levelBase  = 36.0 // tidy: level gap less the height of the labels
	ringMin    = 50.0 // radial: least distance between rings
)

// layout is a tree laid out: positions and the rooted structure.
type layout struct {
	t      *tree.Tree
	r      *tree.Rooted
	kind   Layout // LayoutTidy or LayoutRadial
	pos    []Point
	depth  []int
	labels []label // per node id; Lines nil when not drawn
	level  float64 // tidy: gap between levels; radial: gap between rings
	angle  []float64
}

// Positions returns where every node of t is drawn, by node identifier:
// with LayoutTidy the root is at y = 0 and every node at y = depth × the
// level gap, the leftmost node at x = 0; with LayoutRadial the root is at
// the origin. SVG and PNG draw at these coordinates (shifted to the
// picture's margins and scaled to its size).
func Positions(t *tree.Tree, opt Options) (map[int]Point, error) {
	l, err := newLayout(t, opt)
	if err != nil {
		return nil, err
	}
	out := make(map[int]Point, t.NumNodes())
	for _, v := range l.r.Order {
		out[v] = l.pos[v]
	}
	return out, nil
}

// newLayout validates the tree and options and lays the tree out with its
// labels.
func newLayout(t *tree.Tree, opt Options) (*layout, error) {
	if t == nil || t.NumNodes() == 0 {
		return nil, errors.New("draw: empty tree")
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("draw: %w", err)
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	kind := opt.Layout
	switch kind {
	case LayoutAuto:
		kind = LayoutTidy
		if t.NumNodes() > AutoTidyMax {
			kind = LayoutRadial
		}
	}
	root := centre(t)
	if opt.RootSet {
		if !t.Has(opt.Root) {
			return nil, fmt.Errorf("draw: root %d is not a node of the tree", opt.Root)
		}
		root = opt.Root
	}
	loadFont()
	n := t.MaxID()
	l := &layout{t: t, r: t.Root(root), kind: kind, pos: make([]Point, n), depth: make([]int, n), labels: make([]label, n)}
	for _, v := range l.r.Order[1:] {
		l.depth[v] = l.depth[l.r.Parent[v]] + 1
	}
	for _, v := range l.r.Order {
		l.labels[v].Lines = nodeLines(t, v, opt.Labels)
	}
	if kind == LayoutTidy {
		l.tidy()
	} else {
		l.radial()
	}
	return l, nil
}

// nodeLines are the lines of text drawn for a node: its name (hidden
// nodes: only a name they were given) and its label from labels.
func nodeLines(t *tree.Tree, v int, labels map[string]string) []string {
	var lines []string
	nd := t.Node(v)
	if nd.Name != "" {
		lines = append(lines, nd.Name)
	}
	if s := labels[t.Name(v)]; s != "" {
		lines = append(lines, s)
	}
	return lines
}

// centre returns a node of least eccentricity (the smaller identifier
// when there are two), found by peeling leaves.
func centre(t *tree.Tree) int {
	nodes := t.Nodes()
	if len(nodes) <= 2 {
		return nodes[0]
	}
	deg := make([]int, t.MaxID())
	var layer []int
	for _, v := range nodes {
		deg[v] = t.Degree(v)
		if deg[v] <= 1 {
			layer = append(layer, v)
		}
	}
	left := len(nodes)
	for left > 2 {
		left -= len(layer)
		var next []int
		for _, v := range layer {
			for _, w := range t.Neighbors(v) {
				deg[w]--
				if deg[w] == 1 {
					next = append(next, w)
				}
			}
		}
		layer = next
	}
	best := layer[0]
	for _, v := range layer {
		best = min(best, v)
	}
	return best
}

// tidy lays the tree out top-down in the manner of Reingold and Tilford
// (1981) as made linear by Walker (1990) and Buchheim, Jünger and Leipert
// (2002): every subtree is laid out on its own, then the subtrees of a
// node's children are placed left to right, each as close to the ones
// before as the contours (the extreme nodes of every level) allow, the
// free space being spread over the smaller subtrees in between; the node
// goes over the midpoint of its first and last child. Contours are walked
// through threads, so the layout takes time linear in the number of nodes.
// The separation of two neighbours is half the sum of their label widths
// plus sepGap.
func (l *layout) tidy() {
	t, r := l.t, l.r
	n := t.MaxID()
	width := make([]float64, n)
	maxLines := 0
	for _, v := range r.Order {
		width[v] = max(2*nodeRadius, l.labels[v].width())
		maxLines = max(maxLines, len(l.labels[v].Lines))
	}
	dist := func(a, b int) float64 { return (width[a]+width[b])/2 + sepGap }
	var (
		prelim = make([]float64, n)
		mod    = make([]float64, n)
		shift  = make([]float64, n)
		change = make([]float64, n)
		mid    = make([]float64, n)
		thread = make([]int, n)
		anc    = make([]int, n)
		num    = make([]int, n) // index among siblings
	)
	for _, v := range r.Order {
		thread[v] = -1
		anc[v] = v
		for i, c := range r.Children[v] {
			num[c] = i
		}
	}
	kids := r.Children
	nextLeft := func(v int) int {
		if len(kids[v]) > 0 {
			return kids[v][0]
		}
		return thread[v]
	}
	nextRight := func(v int) int {
		if k := kids[v]; len(k) > 0 {
			return k[len(k)-1]
		}
		return thread[v]
	}
	moveSubtree := func(wl, wr int, s float64) {
		k := float64(num[wr] - num[wl])
		change[wr] -= s / k
		shift[wr] += s
		change[wl] += s / k
		prelim[wr] += s
		mod[wr] += s
	}
	// apportion places the subtree of v (child number i of its parent)
	// against the subtrees of its left siblings.
	apportion := func(v int, sibs []int, defAnc int) int {
		i := num[v]
		if i == 0 {
			return defAnc
		}
		vir, vor := v, v
		vil, vol := sibs[i-1], sibs[0]
		sir, sor, sil, sol := mod[vir], mod[vor], mod[vil], mod[vol]
		for nextRight(vil) >= 0 && nextLeft(vir) >= 0 {
			vil, vir = nextRight(vil), nextLeft(vir)
			vol, vor = nextLeft(vol), nextRight(vor)
			anc[vor] = v
			s := prelim[vil] + sil - (prelim[vir] + sir) + dist(vil, vir)
			if s > 0 {
				a := defAnc
				if r.Parent[anc[vil]] == r.Parent[v] {
					a = anc[vil]
				}
				moveSubtree(a, v, s)
				sir += s
				sor += s
			}
			sil += mod[vil]
			sir += mod[vir]
			sol += mod[vol]
			sor += mod[vor]
		}
		if nextRight(vil) >= 0 && nextRight(vor) < 0 {
			thread[vor] = nextRight(vil)
			mod[vor] += sil - sor
		}
		if nextLeft(vir) >= 0 && nextLeft(vol) < 0 {
			thread[vol] = nextLeft(vir)
			mod[vol] += sir - sol
			defAnc = v
		}
		return defAnc
	}
	// First walk, children before parents: when v is reached every
	// child's subtree is laid out relative to the child (mid), and the
	// children are placed next to each other.
	for k := len(r.Order) - 1; k >= 0; k-- {
		v := r.Order[k]
		cs := kids[v]
		if len(cs) == 0 {
			continue
		}
		defAnc := cs[0]
		for i, c := range cs {
			if i == 0 {
				prelim[c] = mid[c]
			} else {
				prelim[c] = prelim[cs[i-1]] + dist(cs[i-1], c)
				mod[c] = prelim[c] - mid[c]
			}
			defAnc = apportion(c, cs, defAnc)
		}
		// Execute the shifts spread by moveSubtree.
		var s, ch float64
		for i := len(cs) - 1; i >= 0; i-- {
			c := cs[i]
			prelim[c] += s
			mod[c] += s
			ch += change[c]
			s += shift[c] + ch
		}
		mid[v] = (prelim[cs[0]] + prelim[cs[len(cs)-1]]) / 2
	}
	root := r.Root
	prelim[root] = mid[root]
	// Second walk, parents first: sum the modifiers of the ancestors.
	acc := make([]float64, n)
	l.level = levelBase + float64(maxLines)*lineHeight
	minX := math.Inf(1)
	for _, v := range r.Order {
		m := 0.0
		if p := r.Parent[v]; p >= 0 {
			m = acc[p] + mod[p]
		}
		acc[v] = m
		l.pos[v] = Point{prelim[v] + m, float64(l.depth[v]) * l.level}
		minX = min(minX, l.pos[v].X)
	}
	for _, v := range r.Order {
		l.pos[v].X -= minX
		lb := &l.labels[v]
		lb.X, lb.Y = l.pos[v].X, l.pos[v].Y+nodeRadius+labelGap
		lb.Anchor = anchorMiddle
		lb.Y0 = ascent
	}
}

// radial lays the tree out around the root: the leaves, in depth-first
// order, evenly spaced in angle; an inner node at the middle of the angles
// of its first and last leaf; every node at radius depth × the ring gap.
// The ring gap is the least (at least ringMin) at which no two leaf
// labels, drawn along the radius outside their leaf, overlap.
func (l *layout) radial() {
	t, r := l.t, l.r
	n := t.MaxID()
	l.angle = make([]float64, n)
	if len(r.Order) == 1 {
		l.level = ringMin
		return
	}
	// Leaves in depth-first order.
	var leaves []int
	stack := []int{r.Root}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		cs := r.Children[v]
		if len(cs) == 0 {
			leaves = append(leaves, v)
		}
		for i := len(cs) - 1; i >= 0; i-- {
			stack = append(stack, cs[i])
		}
	}
	L := len(leaves)
	step := 2 * math.Pi / float64(L)
	first := make([]float64, n)
	last := make([]float64, n)
	for i, v := range leaves {
		a := step * (float64(i) + 0.5)
		l.angle[v], first[v], last[v] = a, a, a
	}
	for k := len(r.Order) - 1; k >= 0; k-- {
		v := r.Order[k]
		if cs := r.Children[v]; len(cs) > 0 {
			first[v], last[v] = first[cs[0]], last[cs[len(cs)-1]]
			l.angle[v] = (first[v] + last[v]) / 2
		}
	}
	// Label heights and widths of the leaves.
	hw := make([][2]float64, L)
	for i, v := range leaves {
		hw[i] = [2]float64{l.labels[v].height(), l.labels[v].width()}
	}
	off := nodeRadius + labelGap
	// Two leaf labels at angular distance Δ whose outward extents overlap
	// from radius ρ0 on are disjoint when Δ > asin(ha/2ρ0) + asin(hb/2ρ0).
	// Pairs further apart than window leaves are disjoint at ringMin.
	maxH := 0.0
	for _, x := range hw {
		maxH = max(maxH, x[0])
	}
	window := L - 1
	if ρ := ringMin + off; maxH < 2*ρ {
		window = min(window, int(math.Ceil(2*math.Asin(maxH/(2*ρ))/step))+1)
	}
	clear := func(a, b int, g float64) bool {
		da, db := float64(l.depth[leaves[a]]), float64(l.depth[leaves[b]])
		ra, rb := da*g+off, db*g+off
		// Radial extents (the far corners reach a little beyond the width).
		ea := math.Hypot(ra+hw[a][1], hw[a][0]/2)
		eb := math.Hypot(rb+hw[b][1], hw[b][0]/2)
		ρ0 := max(ra, rb)
		if ρ0 > min(ea, eb) {
			return true
		}
		Δ := float64(b-a) * step
		if b < a {
			Δ = float64(a-b) * step
		}
		Δ = min(Δ, 2*math.Pi-Δ)
		sa, sb := hw[a][0]/(2*ρ0), hw[b][0]/(2*ρ0)
		if sa >= 1 || sb >= 1 {
			return false
		}
		return Δ > (math.Asin(sa)+math.Asin(sb))*1.02
	}
	g := ringMin
	for a := 0; a < L; a++ {
		for k := 1; k <= window && k < L; k++ {
			b := (a + k) % L
			if clear(a, b, g) {
				continue
			}
			// Grow the gap until this pair is clear: the needed gap is at
			// most twice the last that fails, so bisect.
			lo, hi := g, 2*g
			for !clear(a, b, hi) {
				lo, hi = hi, 2*hi
			}
			for hi-lo > 0.5 {
				m := (lo + hi) / 2
				if clear(a, b, m) {
					hi = m
				} else {
					lo = m
				}
			}
			g = hi
		}
	}
	l.level = g
	for _, v := range r.Order {
		ρ := float64(l.depth[v]) * g
		l.pos[v] = Point{ρ * math.Cos(l.angle[v]), ρ * math.Sin(l.angle[v])}
	}
	for _, v := range leaves {
		l.labels[v].alongRadius(l.pos[v], l.angle[v], off)
	}
}
