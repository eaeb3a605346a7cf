package report

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/latentree/latentree/data"
)

var esc = html.EscapeString

// writePage writes the document: the static sections (summary, EM trace,
// data quality, covariates, classification quality, local dependence) as HTML, the model as a JSON block, and the style sheet and
// script inline.
func writePage(b *bytes.Buffer, in Input, p *payload, js []byte) {
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(b, "<title>%s</title>\n", esc(p.Title))
	b.WriteString("<style>\n")
	b.WriteString(css)
	b.WriteString("</style>\n</head>\n<body>\n")
	b.WriteString("<header id=\"top\">\n")
	fmt.Fprintf(b, "<h1>%s</h1>\n", esc(p.Title))
	b.WriteString(`<div id="tools"><input id="search" type="search" placeholder="Search a variable" autocomplete="off" aria-label="Search a variable">` +
		`<span id="search-count"></span>` +
		`<button id="fit" type="button" title="Show the whole tree">Fit</button>` +
		`<button id="expand" type="button" title="Expand every subtree">Expand all</button>` +
		`<button id="collapse" type="button" title="Collapse below the second level">Collapse</button></div>` + "\n")
	b.WriteString("</header>\n<main>\n")
	b.WriteString(`<div id="view"><svg id="tree" xmlns="http://www.w3.org/2000/svg"><g id="viewport"><g id="edges"></g><g id="nodes"></g></g></svg>` +
		`<div id="foot">`)
	writeLegend(b, p.Kind)
	b.WriteString(`<span id="hint">wheel: zoom · drag: pan · click: details · double-click or ±: collapse</span></div></div>` + "\n")
	b.WriteString("<aside id=\"side\">\n")
	b.WriteString(`<section id="panel" hidden><button id="panel-close" type="button" aria-label="Close">×</button><h2 id="panel-name"></h2><div id="panel-body"></div></section>` + "\n")
	writeSummary(b, in, p)
	writeTrace(b, in)
	writeQuality(b, in)
	writeCovariates(b, in)
	writeClassification(b, in)
	writeResiduals(b, in)
	b.WriteString("</aside>\n</main>\n")
	b.WriteString("<script type=\"application/json\" id=\"model-data\">")
	b.Write(js)
	b.WriteString("</script>\n<script>\n")
	b.WriteString(script)
	b.WriteString("</script>\n</body>\n</html>\n")
}

// writeLegend writes the key to the tree's marks, drawn as the tree draws
// them (report.css): the marks of package draw, observed variables filled
// circles and hidden ones hollow squares, filled when their subtree is
// collapsed; in a mixed model, continuous nodes teal with a ring.
func writeLegend(b *bytes.Buffer, kind string) {
	observed, hidden := "observed", "hidden"
	if kind == "noisy-or" {
		observed, hidden = "effect (observed)", "source (hidden)"
	}
	const circle = `<circle class="shape" r="5"/>`
	const square = `<rect class="shape" x="-4" y="-4" width="8" height="8"/>`
	key := func(kind, class, mark, text string) {
		fmt.Fprintf(b, `<span class="key" data-kind="%s"><svg viewBox="-7 -7 14 14" aria-hidden="true"><g class="%s">%s</g></svg>%s</span>`, kind, class, mark, esc(text))
	}
	b.WriteString(`<span id="legend">`)
	if kind == "mixed" {
		// Continuous nodes are teal with a second outline, as package draw
		// draws them.
		const ringC = `<circle class="ring" r="7.5"/>`
		const ringS = `<rect class="ring" x="-7" y="-7" width="14" height="14"/>`
		key("observed-discrete", "obs", circle, "observed discrete")
		key("observed-continuous", "obs cont", circle+ringC, "observed continuous")
		key("hidden-discrete", "hid", square, "hidden discrete")
		key("hidden-continuous", "hid cont", square+ringS, "hidden continuous")
		key("collapsed", "hid collapsed", square, "collapsed: +n below")
		b.WriteString(`</span>`)
		return
	}
	key("observed", "obs", circle, observed)
	key("hidden", "hid", square, hidden)
	key("collapsed", "hid collapsed", square, "collapsed: +n below")
	b.WriteString(`</span>`)
}

// row writes a two-column table row; value is escaped.
func row(b *bytes.Buffer, key, value string) {
	fmt.Fprintf(b, "<tr><th>%s</th><td>%s</td></tr>\n", esc(key), esc(value))
}

func fmtFloat(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	if x != 0 && (math.Abs(x) >= 1e7 || math.Abs(x) < 1e-3) {
		return strconv.FormatFloat(x, 'g', 6, 64)
	}
	return strconv.FormatFloat(x, 'g', 10, 64)
}

func writeSummary(b *bytes.Buffer, in Input, p *payload) {
	b.WriteString("<section id=\"summary\">\n<h2>Model</h2>\n<table class=\"kv\">\n")
	row(b, "type", p.Kind)
	hidden, observed := 0, 0
	for _, c := range p.Hidden {
		switch c {
		case '1':
			hidden++
		case '0':
			observed++
		}
	}
	if p.Kind == "noisy-or" {
		row(b, "sources (hidden)", strconv.Itoa(hidden))
		row(b, "effects (observed)", strconv.Itoa(observed))
		row(b, "edges", strconv.Itoa(len(p.Edges)))
	} else {
		row(b, "nodes", strconv.Itoa(len(p.Names)))
		row(b, "observed variables", strconv.Itoa(observed))
		row(b, "hidden variables", strconv.Itoa(hidden))
		if in.Model != nil {
			row(b, "free parameters", strconv.Itoa(in.Model.NumParams()))
		}
	}
	if pr := in.Provenance; pr != nil {
		if pr.Method != "" {
			row(b, "method", pr.Method)
		}
		if pr.Software != "" {
			row(b, "software", pr.Software)
		}
		if pr.Created != "" {
			row(b, "created", pr.Created)
		}
		if d := pr.Data; d != nil {
			if d.File != "" {
				row(b, "data file", d.File)
			}
			row(b, "rows", strconv.Itoa(d.Rows))
			if d.SHA256 != "" {
				row(b, "data SHA-256", d.SHA256)
			}
		}
		if s := pr.Scores; s != nil {
			row(b, "log-likelihood", fmtFloat(s.LogLik))
			row(b, "per row", fmtFloat(s.PerRow))
			row(b, "BIC", fmtFloat(s.BIC))
			row(b, "AIC", fmtFloat(s.AIC))
			if s.NonPositive > 0 {
				row(b, "rows with P̂ ≤ 0", strconv.Itoa(s.NonPositive))
			}
		}
		if em := pr.EM; em != nil {
			conv := "converged"
			if !em.Converged {
				conv = "stopped at the iteration limit"
			}
			row(b, "EM", fmt.Sprintf("%d E-steps, %s", em.Iterations, conv))
		}
	}
	for _, t := range in.Timings {
		row(b, "time: "+t.Name, t.Duration.Round(timeRound(t.Duration)).String())
	}
	b.WriteString("</table>\n")
	if in.Explanation != nil {
		src := "the model's marginals"
		if in.Explanation.FromData {
			src = fmt.Sprintf("posteriors of %d data rows", in.Explanation.Rows)
		}
		fmt.Fprintf(b, "<p class=\"note\">State shares of the hidden variables: %s.</p>\n", esc(src))
	}
	if pr := in.Provenance; pr != nil && len(pr.Options) > 0 {
		b.WriteString("<h3>Options</h3>\n<table class=\"kv\">\n")
		for _, k := range sortedKeys(pr.Options) {
			row(b, k, fmt.Sprint(pr.Options[k]))
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("</section>\n")
}

// timeRound is the precision a duration is shown with.
func timeRound(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return 100 * time.Millisecond
	case d >= time.Second:
		return 10 * time.Millisecond
	default:
		return 10 * time.Microsecond
	}
}

// writeTrace plots the EM trace as an inline SVG line.
func writeTrace(b *bytes.Buffer, in Input) {
	tr := in.Trace
	if tr == nil && in.Provenance != nil && in.Provenance.EM != nil {
		tr = in.Provenance.EM.Trace
	}
	var pts []float64
	for _, x := range tr {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			pts = append(pts, x)
		}
	}
	if len(pts) == 0 {
		return
	}
	b.WriteString("<section id=\"trace\">\n<h2>EM trace</h2>\n")
	const w, h, left, right, top, bottom = 360.0, 170.0, 62.0, 10.0, 10.0, 28.0
	lo, hi := pts[0], pts[0]
	for _, x := range pts {
		lo, hi = min(lo, x), max(hi, x)
	}
	if hi == lo {
		hi, lo = hi+1, lo-1
	}
	// At most 600 points: a long trace is thinned, keeping the last.
	step := max(1, (len(pts)+599)/600)
	n := len(pts)
	xs := func(i int) float64 {
		if n == 1 {
			return left
		}
		return left + (w-left-right)*float64(i)/float64(n-1)
	}
	ys := func(v float64) float64 { return top + (h-top-bottom)*(hi-v)/(hi-lo) }
	var poly strings.Builder
	for i := 0; i < n; i += step {
		fmt.Fprintf(&poly, "%.1f,%.1f ", xs(i), ys(pts[i]))
	}
	if (n-1)%step != 0 {
		fmt.Fprintf(&poly, "%.1f,%.1f", xs(n-1), ys(pts[n-1]))
	}
	fmt.Fprintf(b, `<svg id="trace-plot" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-label="EM objective by E-step">`, w, h, w, h)
	fmt.Fprintf(b, `<rect x="%g" y="%g" width="%g" height="%g" class="frame"/>`, left, top, w-left-right, h-top-bottom)
	loTick, hiTick := fmtTicks(lo, hi)
	fmt.Fprintf(b, `<text x="%g" y="%g" class="tick" text-anchor="end">%s</text>`, left-4, top+8, esc(hiTick))
	fmt.Fprintf(b, `<text x="%g" y="%g" class="tick" text-anchor="end">%s</text>`, left-4, h-bottom, esc(loTick))
	fmt.Fprintf(b, `<text x="%g" y="%g" class="tick">1</text>`, left, h-bottom+14)
	fmt.Fprintf(b, `<text x="%g" y="%g" class="tick" text-anchor="end">%d</text>`, w-right, h-bottom+14, n)
	fmt.Fprintf(b, `<text x="%g" y="%g" class="tick" text-anchor="middle">E-step</text>`, (left+w-right)/2, h-4)
	fmt.Fprintf(b, `<polyline points="%s" class="line"/></svg>`+"\n", strings.TrimSpace(poly.String()))
	fmt.Fprintf(b, "<p class=\"note\">%d E-steps, log-likelihood from %s to %s.</p>\n</section>\n", n, esc(fmtFloat(pts[0])), esc(fmtFloat(pts[n-1])))
}

func fmtTick(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// fmtTicks formats the axis ends with the fewest significant digits (at
// least 6) that tell them apart.
func fmtTicks(lo, hi float64) (string, string) {
	for d := 6; d < 15; d++ {
		a, b := strconv.FormatFloat(lo, 'g', d, 64), strconv.FormatFloat(hi, 'g', d, 64)
		if a != b || lo == hi {
			return a, b
		}
	}
	return fmtTick(lo), fmtTick(hi)
}

// writeQuality writes the data-quality notes: rows, missing cells per
// variable, constant columns and degenerate pairs.
func writeQuality(b *bytes.Buffer, in Input) {
	d := in.Data
	if d == nil && len(in.Degenerate) == 0 {
		return
	}
	b.WriteString("<section id=\"quality\">\n<h2>Data quality</h2>\n<ul>\n")
	if d != nil {
		name := in.DataName
		if name == "" {
			name = "the data"
		}
		fmt.Fprintf(b, "<li>%s: %d rows, %d variables.</li>\n", esc(name), d.NumRows(), d.NumVars())
		type miss struct {
			name string
			n    int
		}
		var ms []miss
		total := 0
		var constant []string
		for j := 0; j < d.NumVars(); j++ {
			if c := d.MissingCount(j); c > 0 {
				ms = append(ms, miss{d.Var(j).Name, c})
				total += c
			}
			if isConstant(d, j) {
				constant = append(constant, d.Var(j).Name)
			}
		}
		if total == 0 {
			b.WriteString("<li>No missing cells.</li>\n")
		} else {
			sort.SliceStable(ms, func(a, c int) bool { return ms[a].n > ms[c].n })
			cells := float64(d.NumRows()) * float64(d.NumVars())
			fmt.Fprintf(b, "<li>%d missing cells (%.2g%% of all), in %d variables:<table class=\"kv\">", total, 100*float64(total)/cells, len(ms))
			for i, m := range ms {
				if i == 30 {
					fmt.Fprintf(b, "<tr><th>…</th><td>%d more</td></tr>", len(ms)-30)
					break
				}
				fmt.Fprintf(b, "<tr><th>%s</th><td>%d (%.2g%%)</td></tr>", esc(m.name), m.n, 100*float64(m.n)/float64(max(d.NumRows(), 1)))
			}
			b.WriteString("</table></li>\n")
		}
		if len(constant) > 0 {
			fmt.Fprintf(b, "<li>%d constant variables (a single observed value, or none): %s.</li>\n", len(constant), esc(listNames(constant, 30)))
		} else {
			b.WriteString("<li>No constant variables.</li>\n")
		}
	}
	if len(in.Degenerate) > 0 {
		fmt.Fprintf(b, "<li>%d pairs at infinite information distance (degenerate):<ul>", len(in.Degenerate))
		for i, g := range in.Degenerate {
			if i == 30 {
				fmt.Fprintf(b, "<li>… %d more</li>", len(in.Degenerate)-30)
				break
			}
			fmt.Fprintf(b, "<li>%s – %s: %s</li>", esc(g.A), esc(g.B), esc(g.Reason))
		}
		b.WriteString("</ul></li>\n")
	}
	b.WriteString("</ul>\n</section>\n")
}

func listNames(names []string, k int) string {
	if len(names) <= k {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:k], ", ") + fmt.Sprintf(", … (%d more)", len(names)-k)
}

// isConstant reports whether column j has at most one distinct observed
// value.
func isConstant(d *data.Dataset, j int) bool {
	if c := d.Discrete(j); c != nil {
		return allEqual(c, func(x uint16) bool { return x == data.Missing })
	}
	return allEqual(d.Continuous(j), math.IsNaN)
}

// allEqual reports whether the values of xs that are not missing are all
// equal.
func allEqual[T comparable](xs []T, missing func(T) bool) bool {
	var first T
	seen := false
	for _, x := range xs {
		if missing(x) {
			continue
		}
		if !seen {
			first, seen = x, true
		} else if x != first {
			return false
		}
	}
	return true
}
