package draw

import (
	"bufio"
	"encoding/xml"
	"io"
	"math"
	"strconv"

	"github.com/latentree/latentree/tree"
)

// SVG writes a drawing of t as a standalone SVG document: no scripts,
// fonts or links. Every node is a group with id "node-<id>" and class
// "node observed" or "node hidden" holding its mark (observed: a filled
// circle; hidden: a hollow square), its label and a tooltip (title) with
// its name and label; edges are lines of class "edge" with
// data-u and data-v attributes.
func SVG(w io.Writer, t *tree.Tree, opt Options) error {
	sc, err := newScene(t, opt)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	sc.writeSVG(bw, opt)
	return bw.Flush()
}

// num formats a coordinate with two decimals at most.
func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		x = 0
	}
	return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)
}

// esc writes s escaped for XML text or a quoted attribute: & < > " ' and
// line breaks are escaped, and bytes that are not valid UTF-8 and
// characters XML forbids become U+FFFD.
func esc(w *bufio.Writer, s string) {
	xml.EscapeText(w, []byte(s))
}

func (sc *scene) writeSVG(w *bufio.Writer, opt Options) {
	pw, ph := sc.size(opt)
	b := sc.box
	w.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="` + num(pw) + `" height="` + num(ph) +
		`" viewBox="` + num(b[0]) + " " + num(b[1]) + " " + num(b[2]-b[0]) + " " + num(b[3]-b[1]) + `" class="latentree-tree layout-` + sc.kind.String() + `">` + "\n")
	w.WriteString(`<style>
.edge{stroke:#8a8f98;stroke-linecap:round}
.node text{font-family:"Liberation Sans",Arial,Helvetica,sans-serif;font-size:12px;fill:#1d2430;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
.node text .sub{fill:#8a3b12}
.observed .mark{fill:#2f6db5;stroke:#1c4a80;stroke-width:1}
.hidden .mark{fill:#fff;stroke:#c2561a;stroke-width:2}
.title{font-family:"Liberation Sans",Arial,Helvetica,sans-serif;font-size:16px;font-weight:bold;fill:#1d2430}
`)
	if sc.continuous != nil {
		w.WriteString(`.continuous.observed .mark{fill:#17877a;stroke:#0e5a51}
.continuous.hidden .mark{stroke:#17877a}
.continuous .ring{fill:none;stroke:#17877a;stroke-width:1}
.legend text{font-family:"Liberation Sans",Arial,Helvetica,sans-serif;font-size:12px;fill:#1d2430}
`)
	}
	w.WriteString(`</style>
`)
	w.WriteString(`<rect class="background" x="` + num(b[0]) + `" y="` + num(b[1]) + `" width="` + num(b[2]-b[0]) + `" height="` + num(b[3]-b[1]) + `" fill="#fff"/>` + "\n")
	if sc.title != "" {
		w.WriteString(`<text class="title" x="` + num(sc.titleP.X) + `" y="` + num(sc.titleP.Y) + `">`)
		esc(w, sc.title)
		w.WriteString("</text>\n")
	}
	w.WriteString(`<g class="edges">` + "\n")
	for _, e := range sc.edges {
		w.WriteString(`<line class="edge" data-u="` + strconv.Itoa(e.u) + `" data-v="` + strconv.Itoa(e.v) +
			`" x1="` + num(e.a.X) + `" y1="` + num(e.a.Y) + `" x2="` + num(e.b.X) + `" y2="` + num(e.b.Y) +
			`" stroke-width="` + num(e.width) + `"/>` + "\n")
	}
	w.WriteString("</g>\n<g class=\"nodes\">\n")
	for _, v := range sc.r.Order {
		sc.writeNode(w, v)
	}
	w.WriteString("</g>\n")
	if len(sc.legend) > 0 {
		w.WriteString(`<g class="legend">` + "\n")
		for _, k := range sc.legend {
			w.WriteString(`<g class="key ` + kindClass(k.hidden, k.continuous) + `">`)
			writeMark(w, k.p, k.hidden, k.continuous)
			w.WriteString(`<text x="` + num(k.t.X) + `" y="` + num(k.t.Y) + `">`)
			esc(w, k.text)
			w.WriteString("</text></g>\n")
		}
		w.WriteString("</g>\n")
	}
	w.WriteString("</svg>\n")
}

// kindClass is the class of a node of a mixed model: "observed" or
// "hidden", then "discrete" or "continuous".
func kindClass(hidden, continuous bool) string {
	s := "observed "
	if hidden {
		s = "hidden "
	}
	if continuous {
		return s + "continuous"
	}
	return s + "discrete"
}

// writeMark writes a node's mark at p: a circle (observed) or a square
// (hidden), and round a continuous node's a second outline, the ring.
func writeMark(w *bufio.Writer, p Point, hidden, continuous bool) {
	if hidden {
		w.WriteString(`<rect class="mark" x="` + num(p.X-nodeRadius+1) + `" y="` + num(p.Y-nodeRadius+1) + `" width="` + num(2*nodeRadius-2) + `" height="` + num(2*nodeRadius-2) + `"/>`)
		if continuous {
			w.WriteString(`<rect class="ring" x="` + num(p.X-ringRadius) + `" y="` + num(p.Y-ringRadius) + `" width="` + num(2*ringRadius) + `" height="` + num(2*ringRadius) + `"/>`)
		}
		return
	}
	w.WriteString(`<circle class="mark" cx="` + num(p.X) + `" cy="` + num(p.Y) + `" r="` + num(nodeRadius) + `"/>`)
	if continuous {
		w.WriteString(`<circle class="ring" cx="` + num(p.X) + `" cy="` + num(p.Y) + `" r="` + num(ringRadius) + `"/>`)
	}
}

func (sc *scene) writeNode(w *bufio.Writer, v int) {
	t := sc.t
	hidden := t.IsHidden(v)
	continuous := sc.continuous != nil && sc.continuous[v]
	class := "node observed"
	if hidden {
		class = "node hidden"
	}
	if sc.continuous != nil {
		class = "node " + kindClass(hidden, continuous)
	}
	p := sc.pos[v]
	w.WriteString(`<g id="node-` + strconv.Itoa(v) + `" class="` + class + `" data-depth="` + strconv.Itoa(sc.depth[v]) + `"><title>`)
	esc(w, t.Name(v))
	lb := &sc.labels[v]
	if n := len(lb.Lines); n > 0 && lb.Lines[n-1] != t.Node(v).Name {
		w.WriteString(": ")
		esc(w, lb.Lines[n-1])
	}
	w.WriteString("</title>")
	writeMark(w, p, hidden, continuous)
	if sc.shown[v] {
		anchor := [...]string{"start", "middle", "end"}[lb.Anchor]
		w.WriteString(`<text x="` + num(lb.X) + `" y="` + num(lb.Y+lb.Y0) + `" text-anchor="` + anchor + `"`)
		if lb.Angle != 0 {
			w.WriteString(` transform="rotate(` + num(lb.Angle*180/math.Pi) + " " + num(lb.X) + " " + num(lb.Y) + `)"`)
		}
		w.WriteString(">")
		for k, s := range lb.Lines {
			if k == 0 {
				w.WriteString("<tspan")
			} else {
				w.WriteString(`<tspan x="` + num(lb.X) + `" dy="` + num(lineHeight) + `"`)
			}
			if k > 0 || (hidden && t.Node(v).Name == "") || s != t.Node(v).Name {
				w.WriteString(` class="sub"`)
			}
			w.WriteString(">")
			esc(w, s)
			w.WriteString("</tspan>")
		}
		w.WriteString("</text>")
	}
	w.WriteString("</g>\n")
}
