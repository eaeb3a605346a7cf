package experiment

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// PlotSpectral draws the results in the layout of Figure 2 of Song et al.
// (ICML 2013): per topology a row of panels of the median error ε against
// the training size and a row of the mean training time, one column per
// setting {O, n, k, k′}, both axes logarithmic. format is "svg" or "png".
func PlotSpectral(w io.Writer, rows []SpectralRow, format string) error {
	var topos []string
	var sets []SpectralSetting
	var methods []string
	for _, r := range rows {
		if !slices.Contains(topos, r.Topology) {
			topos = append(topos, r.Topology)
		}
		if !slices.Contains(sets, r.Setting) {
			sets = append(sets, r.Setting)
		}
		if !slices.Contains(methods, r.Method) {
			methods = append(methods, r.Method)
		}
	}
	if len(rows) == 0 {
		return fmt.Errorf("experiment: nothing to plot")
	}
	metrics := []struct {
		label string
		f     func(SpectralRow) float64
	}{
		{"median error ε", func(r SpectralRow) float64 { return r.MedianErr }},
		{"training seconds", func(r SpectralRow) float64 { return r.Seconds }},
	}
	var plots [][]*plot.Plot
	for ti, topo := range topos {
		for mi, m := range metrics {
			line := make([]*plot.Plot, len(sets))
			for si, set := range sets {
				p := plot.New()
				p.Title.Text = fmt.Sprintf("%s %v", topo, set)
				p.X.Label.Text = "training rows N"
				p.Y.Label.Text = m.label
				p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
				p.X.Tick.Marker = plot.LogTicks{Prec: -1}
				p.Y.Tick.Marker = logTicks125{}
				p.Legend.Left = true // bottom left: errors fall with N
				p.Legend.TextStyle.Font.Size = vg.Points(8)
				any := false
				for k, name := range methods {
					var pts plotter.XYs
					for _, r := range rows {
						if r.Topology == topo && r.Setting == set && r.Method == name {
							if y := m.f(r); y > 0 && !math.IsInf(y, 0) {
								pts = append(pts, plotter.XY{X: float64(r.Samples), Y: y})
							}
						}
					}
					slices.SortFunc(pts, func(a, b plotter.XY) int { return int(a.X - b.X) })
					if len(pts) == 0 {
						continue
					}
					if err := addSeries(p, name, pts, k); err != nil {
						return err
					}
					any = true
				}
				if !any { // a log scale needs positive values
					p.X.Scale, p.Y.Scale = plot.LinearScale{}, plot.LinearScale{}
					p.X.Tick.Marker, p.Y.Tick.Marker = plot.DefaultTicks{}, plot.DefaultTicks{}
				}
				if ti > 0 || si > 0 || mi > 0 {
					p.Legend = plot.NewLegend()
				}
				line[si] = p
			}
			plots = append(plots, line)
		}
	}
	return writeGrid(w, plots, format, 3.4*vg.Inch, 2.8*vg.Inch)
}

// logTicks125 labels a logarithmic axis at 1, 2 and 5 times the powers of
// ten when it spans at most two decades (plot.LogTicks labels only the
// powers, so a narrow range gets no label), otherwise at the powers.
type logTicks125 struct{}

// Ticks returns the ticks between min and max.
func (logTicks125) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return plot.LogTicks{Prec: -1}.Ticks(min, max)
	}
	mults := []float64{1, 2, 5}
	if math.Log10(max/min) > 2 {
		return plot.LogTicks{Prec: -1}.Ticks(min, max)
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, e)
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if slices.Contains(mults, float64(m)) {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
