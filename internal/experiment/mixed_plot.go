package experiment

import (
	"errors"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// mixedGapFloor is the smallest gap to the true model drawn on the log
// scale of PlotMixed (smaller and negative gaps are drawn at it).
const mixedGapFloor = 1e-3

// PlotMixed draws the mixed experiment in three panels against the
// number of training rows (log scale): the share of trees recovered
// exactly and the mean Robinson–Foulds distance per structure learner,
// and the mean held-out log-likelihood gap to the true model (nats per
// row, log scale, gaps below 10⁻³ drawn at 10⁻³) per method. format is
// "svg" or "png".
func PlotMixed(w io.Writer, res *MixedResult, format string) error {
	var panels []*plot.Plot
	newPanel := func(title, ylabel string) *plot.Plot {
		p := plot.New()
		p.Title.Text = title
		p.X.Label.Text = "training rows"
		p.Y.Label.Text = ylabel
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Legend.Top = true
		return p
	}
	if len(res.Recovery) > 0 {
		var methods []string
		for _, r := range res.Recovery {
			if !slices.Contains(methods, r.Method) {
				methods = append(methods, r.Method)
			}
		}
		exact := newPanel("structure recovery", "trees recovered exactly")
		exact.Y.Min, exact.Y.Max = 0, 1
		rf := newPanel("structure recovery", "mean Robinson–Foulds distance")
		for k, m := range methods {
			var pe, pr plotter.XYs
			for _, r := range res.Recovery {
				if r.Method == m && r.Rows > 0 {
					pe = append(pe, plotter.XY{X: float64(r.Rows), Y: float64(r.Exact) / float64(r.Trees)})
					pr = append(pr, plotter.XY{X: float64(r.Rows), Y: r.MeanRF})
				}
			}
			if len(pe) == 0 {
				continue
			}
			if err := addSeries(exact, m, pe, k); err != nil {
				return err
			}
			if err := addSeries(rf, m, pr, k); err != nil {
				return err
			}
		}
		panels = append(panels, exact, rf)
	}
	if len(res.Likelihood) > 0 {
		gap := newPanel("held-out log-likelihood", "gap to the true model (nats/row)")
		gap.Y.Scale = plot.LogScale{}
		gap.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		gap.Legend.Top = true
		for k, m := range MixedLikelihoodMethods {
			if m == MixedTrue {
				continue
			}
			var pts plotter.XYs
			for _, r := range res.Likelihood {
				if r.Method == m && !math.IsInf(r.MeanGap, 0) && !math.IsNaN(r.MeanGap) {
					pts = append(pts, plotter.XY{X: float64(r.Rows), Y: max(r.MeanGap, mixedGapFloor)})
				}
			}
			if len(pts) == 0 {
				continue
			}
			if err := addSeries(gap, m, pts, k); err != nil {
				return err
			}
		}
		panels = append(panels, gap)
	}
	if len(panels) == 0 {
		return errors.New("experiment: nothing to plot")
	}
	return writeGrid(w, [][]*plot.Plot{panels}, format, 3.8*vg.Inch, 3.2*vg.Inch)
}
