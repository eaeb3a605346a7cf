package draw

import (
	"math"
	"sync"
	"unicode/utf8"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/font/liberation"
)

// Labels are set in Liberation Sans, which gonum/plot embeds and the PNG
// writer uses; the SVG asks for it first and then for Arial and Helvetica,
// which have the same metrics. Widths are measured from the font's
// advances (kerning, which only narrows text, is ignored), and characters
// the font lacks count one em, so the estimates hold for the PNG and for
// SVG viewers with any of those fonts.

var (
	fontOnce  sync.Once
	fontFace  font.Face
	fontCache *font.Cache
	advMu     sync.Mutex
	advance   map[rune]float64 // in ems
	ascent    float64          // in pixels at fontSize
	descent   float64
)

var labelFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

func loadFont() {
	fontOnce.Do(func() {
		fontCache = font.NewCache(liberation.Collection())
		fontFace = fontCache.Lookup(labelFont, font.Length(fontSize))
		ext := fontFace.Extents()
		ascent, descent = float64(ext.Ascent), float64(ext.Descent)
		advance = make(map[rune]float64, 128)
		for r := rune(32); r < 127; r++ {
			advance[r] = runeAdvance(r)
		}
	})
}

// runeAdvance measures a rune in ems (1 for a rune the font lacks).
func runeAdvance(r rune) float64 {
	f := fontFace.Face
	var buf sfnt.Buffer
	idx, err := f.GlyphIndex(&buf, r)
	if err != nil || idx == 0 {
		return 1
	}
	upem := f.UnitsPerEm()
	adv, err := f.GlyphAdvance(&buf, idx, fixed.Int26_6(upem), 0)
	if err != nil {
		return 1
	}
	return math.Max(0, float64(adv)/float64(upem))
}

// textWidth estimates the width in pixels of s at fontSize.
func textWidth(s string) float64 {
	loadFont()
	w := 0.0
	advMu.Lock()
	defer advMu.Unlock()
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		a, ok := advance[r]
		if !ok {
			a = runeAdvance(r)
			if len(advance) < 1<<16 {
				advance[r] = a
			}
		}
		w += a
	}
	return w * fontSize * 1.02
}

// Text anchors of labels, as SVG's text-anchor.
const (
	anchorStart = iota
	anchorMiddle
	anchorEnd
)

// label is the text of a node: one or two lines, set from the anchor
// point (X, Y), rotated by Angle radians (clockwise, as SVG's rotate),
// the first baseline Y0 below the anchor in the rotated frame and the
// following ones lineHeight apart.
type label struct {
	Lines  []string
	X, Y   float64
	Angle  float64
	Anchor int
	Y0     float64
	widths []float64
}

func (l *label) lineWidths() []float64 {
	if l.widths == nil && len(l.Lines) > 0 {
		l.widths = make([]float64, len(l.Lines))
		for i, s := range l.Lines {
			l.widths[i] = textWidth(s)
		}
	}
	return l.widths
}

// width is the width of the widest line (0 without text).
func (l *label) width() float64 {
	w := 0.0
	for _, x := range l.lineWidths() {
		w = max(w, x)
	}
	return w
}

// height is the height of the text block (0 without text).
func (l *label) height() float64 {
	if len(l.Lines) == 0 {
		return 0
	}
	loadFont()
	return ascent + descent + float64(len(l.Lines)-1)*lineHeight
}

// alongRadius sets the label outside a node at p and angle a (radians),
// offset from it, along the radius and reading left to right: on the left
// half of the circle the text is turned half a turn and ends at the
// anchor. The block of lines is centred on the radius.
func (l *label) alongRadius(p Point, a, offset float64) {
	loadFont()
	l.X, l.Y = p.X+offset*math.Cos(a), p.Y+offset*math.Sin(a)
	l.Angle, l.Anchor = a, anchorStart
	if math.Cos(a) < 0 {
		l.Angle, l.Anchor = a+math.Pi, anchorEnd
	}
	l.Y0 = (ascent - descent - float64(len(l.Lines)-1)*lineHeight) / 2
}

// corners returns the label's box, a rectangle rotated with the text, as
// four corners in order.
func (l *label) corners() [4]Point {
	w := l.width()
	var x0 float64
	switch l.Anchor {
	case anchorMiddle:
		x0 = -w / 2
	case anchorEnd:
		x0 = -w
	}
	y0 := l.Y0 - ascent
	y1 := y0 + l.height()
	c, s := math.Cos(l.Angle), math.Sin(l.Angle)
	at := func(x, y float64) Point { return Point{l.X + x*c - y*s, l.Y + x*s + y*c} }
	return [4]Point{at(x0, y0), at(x0+w, y0), at(x0+w, y1), at(x0, y1)}
}

// lineAnchor is the anchor point of line k (on its baseline).
func (l *label) lineAnchor(k int) Point {
	y := l.Y0 + float64(k)*lineHeight
	c, s := math.Cos(l.Angle), math.Sin(l.Angle)
	return Point{l.X - y*s, l.Y + y*c}
}

// overlap reports whether two convex quadrilaterals intersect (separating
// axis test); touching edges do not count.
func overlap(a, b [4]Point) bool {
	for _, poly := range [2][4]Point{a, b} {
		for i := range 4 {
			p, q := poly[i], poly[(i+1)%4]
			nx, ny := q.Y-p.Y, p.X-q.X // edge normal
			if nx == 0 && ny == 0 {
				continue
			}
			amin, amax := project(a, nx, ny)
			bmin, bmax := project(b, nx, ny)
			eps := 1e-9 * (math.Abs(amax) + math.Abs(bmax) + 1)
			if amax <= bmin+eps || bmax <= amin+eps {
				return false
			}
		}
	}
	return true
}

func project(p [4]Point, nx, ny float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, q := range p {
		d := q.X*nx + q.Y*ny
		lo, hi = min(lo, d), max(hi, d)
	}
	return lo, hi
}
