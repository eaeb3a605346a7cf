package draw

import (
	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
)

// NodeKinds returns the kind of every node of m, indexed by node
// identifier, for Options.Kinds: nil unless m is a mixed model (a model
// of one kind draws its nodes alike).
func NodeKinds(m model.Model) []data.Kind {
	if m == nil || m.Kind() != data.Mixed || m.Structure() == nil {
		return nil
	}
	t := m.Structure()
	out := make([]data.Kind, t.MaxID())
	for _, v := range t.Nodes() {
		out[v] = m.NodeKind(v)
	}
	return out
}

// legendKey is an entry of the legend of node kinds: its mark at P, its
// text starting at T (baseline).
type legendKey struct {
	hidden, continuous bool
	text               string
	p, t               Point
	width              float64
}

// Geometry of the legend.
const (
	legendGap  = 14.0 // from the drawing above to the legend's marks' tops
	legendStep = 16.0 // between entries
)

// continuousNodes returns which nodes are continuous by opt.Kinds, nil
// when none is.
func continuousNodes(opt Options, n int) []bool {
	var out []bool
	for v, k := range opt.Kinds {
		if k != data.Continuous || v >= n {
			continue
		}
		if out == nil {
			out = make([]bool, n)
		}
		out[v] = true
	}
	return out
}

// makeLegend lists the kinds of node present, observed before hidden,
// discrete before continuous, laid out in a row from x at the top y.
func (sc *scene) makeLegend(x, y float64) {
	var present [2][2]bool // [hidden][continuous]
	for _, v := range sc.r.Order {
		present[b2i(sc.t.IsHidden(v))][b2i(sc.continuous[v])] = true
	}
	names := [2][2]string{{"observed discrete", "observed continuous"}, {"hidden discrete", "hidden continuous"}}
	for h := range 2 {
		for c := range 2 {
			if !present[h][c] {
				continue
			}
			k := legendKey{hidden: h == 1, continuous: c == 1, text: names[h][c]}
			k.p = Point{x + nodeRadius + 2, y + nodeRadius + 2}
			k.t = Point{x + 2*nodeRadius + 7 + labelGap, k.p.Y + (ascent-descent)/2}
			k.width = 2*nodeRadius + 7 + labelGap + textWidth(k.text)
			sc.legend = append(sc.legend, k)
			x += k.width + legendStep
		}
	}
}

// legendBox returns the corners of the legend's area.
func (sc *scene) legendBox() (lo, hi Point) {
	first, last := sc.legend[0], sc.legend[len(sc.legend)-1]
	return Point{first.p.X - nodeRadius - 2, first.p.Y - nodeRadius - 2},
		Point{last.t.X + textWidth(last.text), first.p.Y + nodeRadius + 2 + descent}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ringRadius is the distance from a continuous node's centre to its
// second outline.
const ringRadius = nodeRadius + 2.5
