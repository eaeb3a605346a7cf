package draw

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/latentree/latentree/tree"
)

// MaxPNGSide is the longest side of a PNG whose size is automatic: larger
// layouts are scaled down to it.
const MaxPNGSide = 4096

var (
	colBackground = color.RGBA{255, 255, 255, 255}
	colEdge       = color.RGBA{138, 143, 152, 255}
	colText       = color.RGBA{29, 36, 48, 255}
	colSub        = color.RGBA{138, 59, 18, 255}
	colObserved   = color.RGBA{47, 109, 181, 255}
	colObsStroke  = color.RGBA{28, 74, 128, 255}
	colHidden     = color.RGBA{194, 86, 26, 255}
	colContinuous = color.RGBA{23, 135, 122, 255}
	colContStroke = color.RGBA{14, 90, 81, 255}
	colHalo       = color.NRGBA{255, 255, 255, 220}
)

// PNG writes a drawing of t as a PNG image, rendered with gonum/plot's
// pure-Go raster backend (vgimg) at one pixel per layout unit, scaled to
// Width and Height when given and otherwise down to MaxPNGSide.
func PNG(w io.Writer, t *tree.Tree, opt Options) error {
	sc, err := newScene(t, opt)
	if err != nil {
		return err
	}
	pw, ph := sc.size(opt)
	if opt.Width <= 0 && opt.Height <= 0 {
		if m := max(pw, ph); m > MaxPNGSide {
			pw, ph = pw*MaxPNGSide/m, ph*MaxPNGSide/m
		}
	}
	pw, ph = math.Max(1, math.Round(pw)), math.Max(1, math.Round(ph))
	if pw*ph > MaxPNGPixels {
		// Only a given size can get here: the automatic one is capped.
		name, v := "Width", opt.Width
		if v == 0 {
			name, v = "Height", opt.Height
		}
		return &OptionError{Option: name, Value: v, Want: fmt.Sprintf("a smaller size: the PNG would have %g×%g pixels, more than the limit of %d (MaxPNGPixels); or draw an SVG", pw, ph, MaxPNGPixels)}
	}
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(pw), vg.Length(ph)), vgimg.UseDPI(72), vgimg.UseBackgroundColor(colBackground))
	sc.paint(c, pw, ph)
	_, err = vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// paint draws the scene on a canvas of pw×ph points (y up), fitted and
// centred.
func (sc *scene) paint(c vg.CanvasSizer, pw, ph float64) {
	b := sc.box
	w0, h0 := b[2]-b[0], b[3]-b[1]
	s := math.Min(pw/w0, ph/h0)
	dx, dy := (pw-w0*s)/2, (ph-h0*s)/2
	at := func(p Point) vg.Point {
		return vg.Point{X: vg.Length(dx + (p.X-b[0])*s), Y: vg.Length(ph - dy - (p.Y-b[1])*s)}
	}
	dc := vgdraw.New(c)
	for _, e := range sc.edges {
		c.SetColor(colEdge)
		c.SetLineWidth(vg.Length(e.width * s))
		var p vg.Path
		p.Move(at(e.a))
		p.Line(at(e.b))
		c.Stroke(p)
	}
	hdlr := text.Plain{Fonts: fontCache}
	fnt := font.From(labelFont, font.Length(fontSize*s))
	for _, v := range sc.r.Order {
		if !sc.shown[v] {
			continue
		}
		lb := &sc.labels[v]
		q := lb.corners()
		pts := make([]vg.Point, 4)
		for i, p := range q {
			pts[i] = at(p)
		}
		dc.FillPolygon(colHalo, pts)
		ρ := -lb.Angle
		up := vg.Point{X: vg.Length(-math.Sin(ρ)), Y: vg.Length(math.Cos(ρ))}
		xa := [...]text.XAlignment{text.XLeft, text.XCenter, text.XRight}[lb.Anchor]
		for k, line := range lb.Lines {
			col := colText
			if k > 0 || line != sc.t.Node(v).Name {
				col = colSub
			}
			sty := text.Style{Color: col, Font: fnt, Rotation: ρ, XAlign: xa, YAlign: text.YBottom, Handler: hdlr}
			base := at(lb.lineAnchor(k))
			shiftUp := vg.Length((fontSize - ascent) * s)
			pt := vg.Point{X: base.X - up.X*shiftUp, Y: base.Y - up.Y*shiftUp}
			dc.FillText(sty, pt, printable(line))
		}
	}
	for _, v := range sc.r.Order {
		paintMark(c, at(sc.pos[v]), s, sc.t.IsHidden(v), sc.continuous != nil && sc.continuous[v])
	}
	for _, k := range sc.legend {
		paintMark(c, at(k.p), s, k.hidden, k.continuous)
		sty := text.Style{Color: colText, Font: fnt, XAlign: text.XLeft, YAlign: text.YBottom, Handler: hdlr}
		base := at(k.t)
		base.Y -= vg.Length((fontSize - ascent) * s)
		dc.FillText(sty, base, k.text)
	}
	if sc.title != "" {
		sty := text.Style{Color: colText, Font: font.From(labelFont, font.Length(titleSize*s)), XAlign: text.XLeft, YAlign: text.YBottom, Handler: hdlr}
		dc.FillText(sty, at(sc.titleP), printable(sc.title))
	}
}

// paintMark draws a node's mark centred at p, at scale s: a hollow square
// (hidden) or a filled circle (observed), teal for a continuous node of a
// mixed model, which gets a second outline (the ring).
func paintMark(c vg.CanvasSizer, p vg.Point, s float64, hidden, continuous bool) {
	r := vg.Length(nodeRadius * s)
	var path vg.Path
	if hidden {
		d := r - vg.Length(s)
		square(&path, p, d)
		c.SetColor(colBackground)
		c.Fill(path)
		c.SetColor(colHidden)
		if continuous {
			c.SetColor(colContinuous)
		}
		c.SetLineWidth(vg.Length(2 * s))
		c.Stroke(path)
	} else {
		path.Move(vg.Point{X: p.X + r, Y: p.Y})
		path.Arc(p, r, 0, 2*math.Pi)
		path.Close()
		c.SetColor(colObserved)
		if continuous {
			c.SetColor(colContinuous)
		}
		c.Fill(path)
		c.SetColor(colObsStroke)
		if continuous {
			c.SetColor(colContStroke)
		}
		c.SetLineWidth(vg.Length(s))
		c.Stroke(path)
	}
	if !continuous {
		return
	}
	var ring vg.Path
	rr := vg.Length(ringRadius * s)
	if hidden {
		square(&ring, p, rr)
	} else {
		ring.Move(vg.Point{X: p.X + rr, Y: p.Y})
		ring.Arc(p, rr, 0, 2*math.Pi)
		ring.Close()
	}
	c.SetColor(colContinuous)
	c.SetLineWidth(vg.Length(s))
	c.Stroke(ring)
}

// square adds to path the square of half-side d centred at p.
func square(path *vg.Path, p vg.Point, d vg.Length) {
	path.Move(vg.Point{X: p.X - d, Y: p.Y - d})
	path.Line(vg.Point{X: p.X + d, Y: p.Y - d})
	path.Line(vg.Point{X: p.X + d, Y: p.Y + d})
	path.Line(vg.Point{X: p.X - d, Y: p.Y + d})
	path.Close()
}

// printable replaces line breaks and other control characters, which the
// raster text would break lines at or draw as boxes, by spaces.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
