package experiment

import (
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
	"io"
	"math"
)

var palette = []color.Color{
	color.RGBA{R: 31, G: 119, B: 180, A: 255},
	color.RGBA{R: 214, G: 39, B: 40, A: 255},
	color.RGBA{R: 44, G: 160, B: 44, A: 255},
	color.RGBA{R: 148, G: 103, B: 189, A: 255},
	color.RGBA{R: 255, G: 127, B: 14, A: 255},
	color.RGBA{R: 23, G: 190, B: 207, A: 255},
	color.RGBA{R: 140, G: 86, B: 75, A: 255},
	color.RGBA{R: 127, G: 127, B: 127, A: 255},
	color.RGBA{R: 227, G: 119, B: 194, A: 255},
}

// recoveryPanel draws one panel: metric against sample size (log x) for
// every method on one tree.
func recoveryPanel(rows []RecoveryRow, treeName, ylabel string, metric func(RecoveryRow) float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = treeName
	p.X.Label.Text = "number of samples"
	p.Y.Label.Text = ylabel
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	for k, m := range recoveryMethods(rows) {
		var pts plotter.XYs
		for _, r := range rows {
			if r.Tree == treeName && r.Method == m && r.Runs > 0 {
				pts = append(pts, plotter.XY{X: float64(r.Samples), Y: metric(r)})
			}
		}
		slices.SortFunc(pts, func(a, b plotter.XY) int {
			switch {
			case a.X < b.X:
				return -1
			case a.X > b.X:
				return 1
			}
			return 0
		})
		if len(pts) == 0 {
			continue
		}
		if err := addSeries(p, string(m), pts, k); err != nil {
			return nil, err
		}
	}
	return p, nil
}

var shapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CircleGlyph{}}

// PlotRecovery draws the recovery results in the layout of Figure 7 of
// Choi et al. (2011): one column per tree, rows for the structure recovery
// error rate, the mean Robinson–Foulds distance and the mean error in the
// number of hidden variables. format is "svg" or "png".
func PlotRecovery(w io.Writer, rows []RecoveryRow, format string) error {
	var trees []string
	for _, r := range rows {
		if !slices.Contains(trees, r.Tree) {
			trees = append(trees, r.Tree)
		}
	}
	metrics := []struct {
		label string
		f     func(RecoveryRow) float64
	}{
		{"structure recovery error rate", func(r RecoveryRow) float64 { return r.ErrorRate }},
		{"Robinson–Foulds distance", func(r RecoveryRow) float64 { return r.MeanRF }},
		{"error in hidden variables", func(r RecoveryRow) float64 { return r.MeanHiddenError }},
	}
	cols, nrows := len(trees), len(metrics)
	if cols == 0 {
		return fmt.Errorf("experiment: nothing to plot")
	}
	plots := make([][]*plot.Plot, nrows)
	for i, m := range metrics {
		plots[i] = make([]*plot.Plot, cols)
		for j, t := range trees {
			p, err := recoveryPanel(rows, t, m.label, m.f)
			if err != nil {
				return err
			}
			if i == 0 {
				p.Y.Min, p.Y.Max = 0, 1
			}
			plots[i][j] = p
		}
	}
	return writeGrid(w, plots, format, 3.6*vg.Inch, 2.8*vg.Inch)
}

// PlotQuartets draws the quartet-recovery results in the layout of
// Figure 4 of Ishteva et al. (2013): one panel per (k_H, k_G) and μ, share
// of quartets resolved correctly against the sample size per method.
func PlotQuartets(w io.Writer, rows []QuartetRow, format string) error {
	type key struct {
		kh, kg int
		mu     float64
	}
	var keys []key
	var methods []string
	for _, r := range rows {
		k := key{r.KH, r.KG, r.Mu}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
		if !slices.Contains(methods, r.Method) {
			methods = append(methods, r.Method)
		}
	}
	var mus []float64
	var cfgs [][2]int
	for _, k := range keys {
		if !slices.Contains(mus, k.mu) {
			mus = append(mus, k.mu)
		}
		if !slices.Contains(cfgs, [2]int{k.kh, k.kg}) {
			cfgs = append(cfgs, [2]int{k.kh, k.kg})
		}
	}
	if len(keys) == 0 {
		return fmt.Errorf("experiment: nothing to plot")
	}
	plots := make([][]*plot.Plot, len(mus))
	for i, mu := range mus {
		plots[i] = make([]*plot.Plot, len(cfgs))
		for j, c := range cfgs {
			p := plot.New()
			p.Title.Text = fmt.Sprintf("k_H=%d, k_G=%d, μ=%g", c[0], c[1], mu)
			p.X.Label.Text = "number of samples"
			p.Y.Label.Text = "correctly resolved quartets"
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = plot.LogTicks{Prec: -1}
			p.Y.Min, p.Y.Max = 0, 1
			p.Legend.Top = false
			p.Legend.Left = false
			for m, name := range methods {
				var pts plotter.XYs
				for _, r := range rows {
					if r.KH == c[0] && r.KG == c[1] && r.Mu == mu && r.Method == name {
						pts = append(pts, plotter.XY{X: float64(r.Samples), Y: r.Correct})
					}
				}
				if len(pts) == 0 {
					continue
				}
				if err := addSeries(p, name, pts, m); err != nil {
					return err
				}
			}
			plots[i][j] = p
		}
	}
	return writeGrid(w, plots, format, 3.6*vg.Inch, 3*vg.Inch)
}

// writeGrid draws a grid of panels (rows × columns, each panelW × panelH)
// as SVG or PNG.
func writeGrid(w io.Writer, plots [][]*plot.Plot, format string, panelW, panelH vg.Length) error {
	rows, cols := len(plots), len(plots[0])
	width, height := vg.Length(cols)*panelW, vg.Length(rows)*panelH
	var c draw.Canvas
	var out interface {
		WriteTo(io.Writer) (int64, error)
	}
	switch format {
	case "svg":
		s := vgsvg.New(width, height)
		c, out = draw.New(s), s
	case "png":
		img := vgimg.New(width, height)
		c, out = draw.New(img), vgimg.PngCanvas{Canvas: img}
	default:
		return fmt.Errorf("experiment: unknown plot format %q (want svg or png)", format)
	}
	pad := vg.Millimeter * 2
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 2 * pad, PadY: 2 * pad, PadTop: pad, PadBottom: pad, PadLeft: pad, PadRight: pad}
	canvases := plot.Align(plots, tiles, c)
	for i := range plots {
		for j := range plots[i] {
			plots[i][j].Draw(canvases[i][j])
		}
	}
	_, err := out.WriteTo(w)
	return err
}

// addSeries adds a line with points, styled as series k, and its legend
// entry.
func addSeries(p *plot.Plot, name string, pts plotter.XYs, k int) error {
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	c := palette[k%len(palette)]
	line.Color, points.Color = c, c
	line.Width = vg.Points(1.5)
	points.Shape = shapes[k%len(shapes)]
	p.Add(line, points)
	p.Legend.Add(name, line, points)
	return nil
}

// PlotQuartetTrees draws the tree-recovery results in the layout of
// Figure 5 of Ishteva et al. (2013): one panel per β and μ, mean
// Robinson–Foulds error against the sample size per method.
func PlotQuartetTrees(w io.Writer, rows []QuartetTreesRow, format string) error {
	var betas, mus []float64
	var methods []string
	for _, r := range rows {
		if !slices.Contains(betas, r.Beta) {
			betas = append(betas, r.Beta)
		}
		if !slices.Contains(mus, r.Mu) {
			mus = append(mus, r.Mu)
		}
		if !slices.Contains(methods, r.Method) {
			methods = append(methods, r.Method)
		}
	}
	if len(rows) == 0 {
		return fmt.Errorf("experiment: nothing to plot")
	}
	top := 1.0
	for _, r := range rows {
		if r.MeanRF > top {
			top = r.MeanRF
		}
	}
	plots := make([][]*plot.Plot, len(betas))
	for i, beta := range betas {
		plots[i] = make([]*plot.Plot, len(mus))
		for j, mu := range mus {
			p := plot.New()
			p.Title.Text = fmt.Sprintf("β=%g, μ=%g", beta, mu)
			p.X.Label.Text = "number of samples"
			p.Y.Label.Text = "Robinson–Foulds error"
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = plot.LogTicks{Prec: -1}
			// One scale for all panels; only the first panel carries the
			// legend, at its lower left, below the curves of β = 0.2.
			p.Y.Min, p.Y.Max = 0, 1.1*top
			p.Legend.Left = true
			p.Legend.TextStyle.Font.Size = vg.Points(9)
			for m, name := range methods {
				var pts plotter.XYs
				for _, r := range rows {
					if r.Beta == beta && r.Mu == mu && r.Method == name && !math.IsNaN(r.MeanRF) {
						pts = append(pts, plotter.XY{X: float64(r.Samples), Y: r.MeanRF})
					}
				}
				if len(pts) == 0 {
					continue
				}
				if err := addSeries(p, name, pts, m); err != nil {
					return err
				}
			}
			if i > 0 || j > 0 {
				p.Legend = plot.NewLegend()
			}
			plots[i][j] = p
		}
	}
	return writeGrid(w, plots, format, 3.6*vg.Inch, 3.4*vg.Inch)
}
