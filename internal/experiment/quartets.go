package experiment

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"

	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/quartet"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/tree"
)

// QuartetConfig configures QuartetRecovery (ICML 2013 §6.1, Figure 4).
type QuartetConfig struct {
	// Hidden lists (k_H, k_G) pairs (default (2,4), (2,8), (4,4)).
	Hidden [][2]int
	// States of the observed variables (default 10).
	States int
	// Mus are the perturbations (default 0.5, 1).
	Mus []float64
	// Sizes (default 50 … 2,000 as the paper).
	Sizes []int
	// Reps per point (default 1,000).
	Reps int
	// SpectralKs are the k of Spectral@k (default 1, 2, 4, 8).
	SpectralKs []int
	Seed       uint64
	Workers    int
	Progress   func(done, total int)
}

// QuartetRow is the share of correctly resolved quartets for a method.
type QuartetRow struct {
	KH, KG  int
	Mu      float64
	Samples int
	Method  string
	Correct float64 // share of repetitions resolved correctly
	SE      float64 // its standard error
	Reps    int
}

// QuartetRecovery draws quartets a,b–H–G–c,d with k_H and k_G hidden
// states, observed variables with n states and the perturbed CPTs of
// Ishteva et al. (2013, §6.1), samples them, and records how often the
// nuclear-norm test, NJ's four-point condition on the Lake distance and
// Spectral@k recover the pairing {a,b | c,d}. The four variables are
// presented in random order.
func QuartetRecovery(ctx context.Context, cfg QuartetConfig) ([]QuartetRow, error) {
	if len(cfg.Hidden) == 0 {
		cfg.Hidden = [][2]int{{2, 4}, {2, 8}, {4, 4}}
	}
	if cfg.States == 0 {
		cfg.States = 10
	}
	if len(cfg.Mus) == 0 {
		cfg.Mus = []float64{0.5, 1}
	}
	if len(cfg.Sizes) == 0 {
		cfg.Sizes = []int{50, 100, 200, 300, 400, 500, 750, 1000, 1500, 2000}
	}
	if cfg.Reps <= 0 {
		cfg.Reps = 1000
	}
	if len(cfg.SpectralKs) == 0 {
		cfg.SpectralKs = []int{1, 2, 4, 8}
	}
	methods := []string{"nuclear", "nj"}
	for _, k := range cfg.SpectralKs {
		methods = append(methods, "spectral@"+strconv.Itoa(k))
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type point struct{ h, mu, size int }
	var points []point
	for h := range cfg.Hidden {
		for mu := range cfg.Mus {
			for s := range cfg.Sizes {
				points = append(points, point{h, mu, s})
			}
		}
	}
	correct := make([][]int, len(points))
	for i := range correct {
		correct[i] = make([]int, len(methods))
	}
	err := runParallel(ctx, len(points)*cfg.Reps, workers, cfg.Progress, func(i int) (func(), error) {
		p, rep := i/cfg.Reps, i%cfg.Reps
		pt := points[p]
		ok, err := quartetRep(cfg, cfg.Hidden[pt.h], cfg.Mus[pt.mu], cfg.Sizes[pt.size], p, rep)
		return func() {
			for m, c := range ok {
				if c {
					correct[p][m]++
				}
			}
		}, err
	})
	if err != nil {
		return nil, err
	}
	var rows []QuartetRow
	for i, pt := range points {
		for m, name := range methods {
			p := float64(correct[i][m]) / float64(cfg.Reps)
			rows = append(rows, QuartetRow{KH: cfg.Hidden[pt.h][0], KG: cfg.Hidden[pt.h][1], Mu: cfg.Mus[pt.mu], Samples: cfg.Sizes[pt.size],
				Method: name, Correct: p, SE: math.Sqrt(p * (1 - p) / float64(cfg.Reps)), Reps: cfg.Reps})
		}
	}
	return rows, nil
}

// quartetRep runs one repetition and reports, per method, whether it
// recovered the true pairing.
func quartetRep(cfg QuartetConfig, hk [2]int, mu float64, n, p, rep int) ([]bool, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed^uint64(p)<<32^uint64(rep), 0x4a))
	t := tree.New()
	h, g := t.AddHidden(), t.AddHidden()
	obs := make([]int, 4)
	var err error
	for i, name := range []string{"a", "b", "c", "d"} {
		if obs[i], err = t.AddObserved(name); err != nil {
			return nil, err
		}
	}
	for _, e := range [][2]int{{h, g}, {h, obs[0]}, {h, obs[1]}, {g, obs[2]}, {g, obs[3]}} {
		if err := t.AddEdge(e[0], e[1], math.NaN()); err != nil {
			return nil, err
		}
	}
	root := h
	m, err := simulate.General(rng, t, simulate.GeneralOptions{
		ObservedStates: cfg.States, HiddenMin: 2, HiddenMax: 2, Scheme: simulate.Perturbed, Mu: mu, Root: &root,
		HiddenStatesOf: func(v int) int {
			if v == h {
				return hk[0]
			}
			return hk[1]
		},
	})
	if err != nil {
		return nil, err
	}
	d, err := m.Sample(rng, n)
	if err != nil {
		return nil, err
	}
	// Random presentation order; the truth pairs a with b.
	perm := rng.Perm(4)
	sel, err := d.Select(perm)
	if err != nil {
		return nil, err
	}
	posA, posB := -1, -1
	for i, c := range perm {
		switch c {
		case 0:
			posA = i
		case 1:
			posB = i
		}
	}
	truth := quartet.Pairing(0)
	for pp := quartet.P01; pp <= quartet.P03; pp++ {
		x, y := pp.Pairs()
		for _, pr := range [][2]int{x, y} {
			if (pr[0] == posA && pr[1] == posB) || (pr[0] == posB && pr[1] == posA) {
				truth = pp
			}
		}
	}
	o, err := quartet.NewDataOracle(sel, quartet.TestNuclear, 0, 0)
	if err != nil {
		return nil, err
	}
	tb, err := o.Table([4]int{0, 1, 2, 3})
	if err != nil {
		return nil, err
	}
	var ok []bool
	ok = append(ok, tb.Nuclear(0).Best == truth)
	st, err := stats.Compute(sel, stats.Options{Workers: 1})
	if err != nil {
		return nil, err
	}
	dm, _, err := distance.Information(st, distance.InfoOptions{Workers: 1})
	if err != nil {
		return nil, err
	}
	fp := quartet.FourPoint(func(i, j int) float64 {
		x := dm.At(i, j)
		if math.IsInf(x, 1) {
			return 1e6
		}
		return x
	}, 0)
	ok = append(ok, fp.Best == truth)
	for _, k := range cfg.SpectralKs {
		ok = append(ok, tb.Spectral(k, 0).Best == truth)
	}
	return ok, nil
}

// WriteQuartetCSV writes the rows as CSV.
func WriteQuartetCSV(w io.Writer, rows []QuartetRow) error {
	cw := csv.NewWriter(w)
	recs := [][]string{{"k_h", "k_g", "mu", "samples", "method", "correct", "se", "reps"}}
	for _, r := range rows {
		recs = append(recs, []string{strconv.Itoa(r.KH), strconv.Itoa(r.KG), strconv.FormatFloat(r.Mu, 'g', -1, 64), strconv.Itoa(r.Samples), r.Method,
			strconv.FormatFloat(r.Correct, 'f', 4, 64), strconv.FormatFloat(r.SE, 'f', 4, 64), strconv.Itoa(r.Reps)})
	}
	return cw.WriteAll(recs)
}

// QuartetTable writes, per configuration and μ, the share correct at each
// size for every method (a plain-text table).
func QuartetTable(w io.Writer, rows []QuartetRow) {
	last := ""
	for _, r := range rows {
		key := fmt.Sprintf("k_H=%d k_G=%d μ=%g", r.KH, r.KG, r.Mu)
		if key != last {
			fmt.Fprintf(w, "\n%s\n", key)
			last = key
		}
		fmt.Fprintf(w, "  n=%-5d %-11s %.3f ± %.3f\n", r.Samples, r.Method, r.Correct, r.SE)
	}
}
