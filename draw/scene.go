package draw

import (
	"math"

	"github.com/latentree/latentree/tree"
)

// scene is everything a picture shows, in layout coordinates: the layout,
// the edges with their widths and ends, which labels are drawn and the
// bounding box of it all.
type scene struct {
	*layout
	edges  []edge
	shown  []bool // label of node drawn
	box    [4]float64
	title  string
	titleP Point
	// continuous[v] says node v is continuous (nil: no node is); the
	// legend of node kinds is drawn then.
	continuous []bool
	legend     []legendKey
}

type edge struct {
	u, v  int // u < v
	a, b  Point
	width float64
}

// Edge widths in pixels: strength s in [0, 1] is drawn minWidth +
// s·(maxWidth−minWidth); without strengths every edge has plainWidth.
const (
	minWidth     = 0.6
	maxWidth     = 5.0
	plainWidth   = 1.4
	missStrength = 0.3
	margin       = 12.0
	titleSize    = 16.0
)

func edgeWidth(opt Options, u, v int) float64 {
	if opt.Strength == nil {
		return plainWidth
	}
	s, ok := opt.Strength[[2]int{min(u, v), max(u, v)}]
	if !ok || math.IsNaN(s) {
		s = missStrength
	}
	s = math.Max(0, math.Min(1, s))
	return minWidth + s*(maxWidth-minWidth)
}

// newScene lays out t and decides what to draw.
func newScene(t *tree.Tree, opt Options) (*scene, error) {
	l, err := newLayout(t, opt)
	if err != nil {
		return nil, err
	}
	sc := &scene{layout: l, shown: make([]bool, t.MaxID()), title: opt.Title, continuous: continuousNodes(opt, t.MaxID())}
	for _, v := range l.r.Order[1:] {
		p := l.r.Parent[v]
		a, b := l.pos[p], l.pos[v]
		if l.kind == LayoutTidy {
			// From under the parent's label to the top of the child: the
			// band between two levels holds no label.
			a.Y += nodeRadius
			if h := l.labels[p].height(); h > 0 {
				a.Y = l.labels[p].Y + h
			}
			b.Y -= nodeRadius
		}
		sc.edges = append(sc.edges, edge{u: min(p, v), v: max(p, v), a: a, b: b, width: edgeWidth(opt, p, v)})
	}
	if l.kind == LayoutTidy {
		for _, v := range l.r.Order {
			sc.shown[v] = len(l.labels[v].Lines) > 0
		}
	} else {
		sc.placeRadial()
	}
	sc.bounds()
	return sc, nil
}

// marker is the square around a node's mark.
func marker(p Point) [4]Point {
	d := nodeRadius + 1
	return [4]Point{{p.X - d, p.Y - d}, {p.X + d, p.Y - d}, {p.X + d, p.Y + d}, {p.X - d, p.Y + d}}
}

// placeRadial shows every leaf label (the ring gap keeps them apart) and,
// from the root outwards, the label of every inner node that has a place
// free of other labels and of node marks: along its radius, below, above,
// or right of the node. A label without a place is left out of the
// picture; the node's tooltip still carries it.
func (sc *scene) placeRadial() {
	l := sc.layout
	g := newGrid(4 * lineHeight)
	for _, v := range l.r.Order {
		g.add(marker(l.pos[v]))
	}
	var inner []int
	for _, v := range l.r.Order {
		if len(l.labels[v].Lines) == 0 {
			continue
		}
		if len(l.r.Children[v]) == 0 && v != l.r.Root {
			sc.shown[v] = true
			g.add(l.labels[v].corners())
		} else {
			inner = append(inner, v)
		}
	}
	off := nodeRadius + labelGap
	for _, v := range inner {
		lb := l.labels[v]
		p := l.pos[v]
		h := lb.height()
		var cands []label
		if v != l.r.Root {
			c := lb
			c.alongRadius(p, l.angle[v], off)
			cands = append(cands, c)
		}
		below := lb
		below.X, below.Y, below.Angle, below.Anchor, below.Y0 = p.X, p.Y+off, 0, anchorMiddle, ascent
		above := below
		above.Y = p.Y - off - h
		right := lb
		right.alongRadius(p, 0, off)
		left := lb
		left.alongRadius(p, math.Pi, off)
		cands = append(cands, below, above, right, left)
		for _, c := range cands {
			q := c.corners()
			if !g.hits(q) {
				l.labels[v] = c
				sc.shown[v] = true
				g.add(q)
				break
			}
		}
	}
}

// bounds sets the bounding box of nodes, shown labels and title.
func (sc *scene) bounds() {
	b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	add := func(p Point) {
		b[0], b[1] = min(b[0], p.X), min(b[1], p.Y)
		b[2], b[3] = max(b[2], p.X), max(b[3], p.Y)
	}
	for _, v := range sc.r.Order {
		for _, p := range marker(sc.pos[v]) {
			add(p)
		}
		if sc.continuous != nil && sc.continuous[v] {
			d := ringRadius + 1
			add(Point{sc.pos[v].X - d, sc.pos[v].Y - d})
			add(Point{sc.pos[v].X + d, sc.pos[v].Y + d})
		}
		if sc.shown[v] {
			for _, p := range sc.labels[v].corners() {
				add(p)
			}
		}
	}
	if sc.continuous != nil {
		sc.makeLegend(b[0], b[3]+legendGap)
		lo, hi := sc.legendBox()
		add(lo)
		add(hi)
	}
	if sc.title != "" {
		tw := textWidth(sc.title) * titleSize / fontSize
		sc.titleP = Point{b[0], b[1] - 8}
		add(Point{b[0], b[1] - 8 - titleSize*1.2})
		add(Point{b[0] + tw, b[1]})
	}
	sc.box = [4]float64{b[0] - margin, b[1] - margin, b[2] + margin, b[3] + margin}
}

// size returns the picture's size for the options: the layout's size, or
// Width and Height (one given: the other in proportion).
func (sc *scene) size(opt Options) (w, h float64) {
	w0, h0 := sc.box[2]-sc.box[0], sc.box[3]-sc.box[1]
	switch {
	case opt.Width > 0 && opt.Height > 0:
		return opt.Width, opt.Height
	case opt.Width > 0:
		return opt.Width, h0 * opt.Width / w0
	case opt.Height > 0:
		return w0 * opt.Height / h0, opt.Height
	}
	return w0, h0
}

// grid is a uniform grid of cells holding quadrilaterals, to find the ones
// a new one overlaps.
type grid struct {
	cell  float64
	cells map[[2]int][]int
	quads [][4]Point
}

func newGrid(cell float64) *grid { return &grid{cell: cell, cells: map[[2]int][]int{}} }

func (g *grid) span(q [4]Point) (x0, y0, x1, y1 int) {
	lo, hi := Point{math.Inf(1), math.Inf(1)}, Point{math.Inf(-1), math.Inf(-1)}
	for _, p := range q {
		lo.X, lo.Y, hi.X, hi.Y = min(lo.X, p.X), min(lo.Y, p.Y), max(hi.X, p.X), max(hi.Y, p.Y)
	}
	f := func(x float64) int { return int(math.Floor(x / g.cell)) }
	return f(lo.X), f(lo.Y), f(hi.X), f(hi.Y)
}

func (g *grid) add(q [4]Point) {
	k := len(g.quads)
	g.quads = append(g.quads, q)
	x0, y0, x1, y1 := g.span(q)
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			g.cells[[2]int{x, y}] = append(g.cells[[2]int{x, y}], k)
		}
	}
}

func (g *grid) hits(q [4]Point) bool {
	x0, y0, x1, y1 := g.span(q)
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			for _, k := range g.cells[[2]int{x, y}] {
				if overlap(q, g.quads[k]) {
					return true
				}
			}
		}
	}
	return false
}
