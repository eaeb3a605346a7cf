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

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/quartet"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/tree"
)

// QuartetTreesConfig configures QuartetTrees (ICML 2013 §6.2, Figure 5).
// The zero value runs the paper's setting with 100 repetitions per point.
type QuartetTreesConfig struct {
	// Leaves of every tree (default 16).
	Leaves int
	// Betas are the splitting parameters of the random trees (default
	// 0.2, 0.5).
	Betas []float64
	// Mus are the CPT perturbations (default 0.2, 0.5, 1).
	Mus []float64
	// Sizes are the sample sizes (default 50 … 2,000 as the paper).
	Sizes []int
	// States of the observed variables (default 10); hidden variables
	// draw theirs uniformly from [HiddenMin, HiddenMax] (default 2..8).
	States, HiddenMin, HiddenMax int
	// Reps per point (default 100).
	Reps int
	// SpectralKs are the k of Spectral@k (default 2, 4, 8).
	SpectralKs []int
	// Candidates is passed to quartet.BuildOptions (0: its default).
	Candidates int
	Seed       uint64
	Workers    int
	Progress   func(done, total int)
}

// QuartetTreesRow is the mean Robinson–Foulds error of a method at one
// point of the experiment.
type QuartetTreesRow struct {
	Beta, Mu float64
	Samples  int
	Method   string
	MeanRF   float64
	SE       float64 // standard error of MeanRF
	Exact    int     // repetitions with RF 0
	Reps     int
}

// QuartetTreesMethods lists the methods of the experiment for the given
// Spectral@k values, in output order.
func QuartetTreesMethods(ks []int) []string {
	m := []string{"nuclear", "nuclear-paper"}
	for _, k := range ks {
		m = append(m, "spectral@"+strconv.Itoa(k))
	}
	return append(m, "nj", "clnj", "chowliu")
}

// QuartetTrees draws random binary latent trees over 16 leaves by
// recursive splitting with parameter β, hidden variables with a random
// number of states in 2..8, 10-state observed variables and the perturbed
// CPTs of §6.1, and records the Robinson–Foulds error of the trees built
// by the nuclear-norm quartet test (with latentree's builder defaults and
// with the paper's random order and nearest-by-hops representatives),
// Spectral@k (latentree's builder), neighbour joining on the
// Lake distance, CLNJ and Chow–Liu (a reference: it has no hidden nodes).
// Each repetition samples the largest size once and uses its prefixes for
// the smaller ones, so that the curves of a repetition are paired.
func QuartetTrees(ctx context.Context, cfg QuartetTreesConfig) ([]QuartetTreesRow, error) {
	if cfg.Leaves == 0 {
		cfg.Leaves = 16
	}
	if cfg.Leaves < 4 {
		return nil, fmt.Errorf("experiment: need at least 4 leaves, got %d", cfg.Leaves)
	}
	if len(cfg.Betas) == 0 {
		cfg.Betas = []float64{0.2, 0.5}
	}
	if len(cfg.Mus) == 0 {
		cfg.Mus = []float64{0.2, 0.5, 1}
	}
	if len(cfg.Sizes) == 0 {
		cfg.Sizes = []int{50, 100, 200, 500, 1000, 2000}
	}
	if cfg.States == 0 {
		cfg.States = 10
	}
	if cfg.HiddenMin == 0 && cfg.HiddenMax == 0 {
		cfg.HiddenMin, cfg.HiddenMax = 2, 8
	}
	if cfg.Reps <= 0 {
		cfg.Reps = 100
	}
	if len(cfg.SpectralKs) == 0 {
		cfg.SpectralKs = []int{2, 4, 8}
	}
	for _, k := range cfg.SpectralKs {
		if k < 1 {
			return nil, fmt.Errorf("experiment: Spectral@k needs k ≥ 1, got %d", k)
		}
	}
	maxSize := 0
	for _, n := range cfg.Sizes {
		if n < 1 {
			return nil, fmt.Errorf("experiment: sample size %d is not positive", n)
		}
		maxSize = max(maxSize, n)
	}
	methods := QuartetTreesMethods(cfg.SpectralKs)
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type point struct{ beta, mu int }
	var points []point
	for b := range cfg.Betas {
		for m := range cfg.Mus {
			points = append(points, point{b, m})
		}
	}
	// rf[point][size][method] collects the errors of the repetitions.
	rf := make([][][][]int, len(points))
	for i := range rf {
		rf[i] = make([][][]int, len(cfg.Sizes))
		for s := range rf[i] {
			rf[i][s] = make([][]int, len(methods))
		}
	}
	err := runParallel(ctx, len(points)*cfg.Reps, workers, cfg.Progress, func(i int) (func(), error) {
		p, rep := i/cfg.Reps, i%cfg.Reps
		pt := points[p]
		res, err := quartetTreesRep(cfg, cfg.Betas[pt.beta], cfg.Mus[pt.mu], maxSize, p, rep)
		return func() {
			for s := range res {
				for m, v := range res[s] {
					rf[p][s][m] = append(rf[p][s][m], v)
				}
			}
		}, err
	})
	if err != nil {
		return nil, err
	}
	var rows []QuartetTreesRow
	for i, pt := range points {
		for s, n := range cfg.Sizes {
			for m, name := range methods {
				v := rf[i][s][m]
				mean, sd := meanSD(v)
				exact := 0
				for _, x := range v {
					if x == 0 {
						exact++
					}
				}
				rows = append(rows, QuartetTreesRow{Beta: cfg.Betas[pt.beta], Mu: cfg.Mus[pt.mu], Samples: n, Method: name,
					MeanRF: mean, SE: sd / math.Sqrt(float64(len(v))), Exact: exact, Reps: len(v)})
			}
		}
	}
	return rows, nil
}

func meanSD(v []int) (mean, sd float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += float64(x)
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		sd += (float64(x) - mean) * (float64(x) - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}

// quartetTreesRep runs one repetition: one tree and model, sampled once;
// it returns the RF error per size and method.
func quartetTreesRep(cfg QuartetTreesConfig, beta, mu float64, maxSize, p, rep int) ([][]int, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed^uint64(p)<<32^uint64(rep), 0x5b))
	truth, err := simulate.RandomBinary(rng, cfg.Leaves, beta)
	if err != nil {
		return nil, err
	}
	m, err := simulate.General(rng, truth, simulate.GeneralOptions{
		ObservedStates: cfg.States, HiddenMin: cfg.HiddenMin, HiddenMax: cfg.HiddenMax, Scheme: simulate.Perturbed, Mu: mu,
	})
	if err != nil {
		return nil, err
	}
	full, err := m.Sample(rng, maxSize)
	if err != nil {
		return nil, err
	}
	out := make([][]int, len(cfg.Sizes))
	for s, n := range cfg.Sizes {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		d, err := full.Rows(idx)
		if err != nil {
			return nil, err
		}
		// A prefix may miss states of a variable; the tests need every
		// variable to keep the states of the model, which Rows does.
		trees, err := quartetTreesLearn(cfg, d, rng)
		if err != nil {
			return nil, fmt.Errorf("experiment: n=%d: %w", n, err)
		}
		for _, t := range trees {
			r, err := tree.RobinsonFoulds(truth, t)
			if err != nil {
				return nil, err
			}
			out[s] = append(out[s], r.RF)
		}
	}
	return out, nil
}

// quartetTreesLearn learns one tree per method from d.
func quartetTreesLearn(cfg QuartetTreesConfig, d *data.Dataset, rng *rand.Rand) ([]*tree.Tree, error) {
	names := d.Names()
	var trees []*tree.Tree
	// One pass of statistics for every method, and one oracle for every
	// quartet method: the mutual information that orders the insertions
	// is computed once.
	st, err := stats.Compute(d, stats.Options{Workers: 1})
	if err != nil {
		return nil, err
	}
	o, err := quartet.NewDataOracle(d, quartet.TestNuclear, 0, 0)
	if err != nil {
		return nil, err
	}
	o.Stats = st
	build := func(test quartet.Test, k int, opt quartet.BuildOptions) error {
		o.Test, o.K = test, k
		res, err := quartet.Build(names, o, opt)
		if err != nil {
			return err
		}
		trees = append(trees, res.Tree)
		return nil
	}
	ours := quartet.BuildOptions{Candidates: cfg.Candidates}
	if err := build(quartet.TestNuclear, 0, ours); err != nil {
		return nil, err
	}
	// The paper's builder: random insertion order, representatives the
	// nearest leaves by hops.
	if err := build(quartet.TestNuclear, 0, quartet.BuildOptions{Order: quartet.OrderRandom, Src: rng, Candidates: -1}); err != nil {
		return nil, err
	}
	for _, k := range cfg.SpectralKs {
		if err := build(quartet.TestSpectral, k, ours); err != nil {
			return nil, err
		}
	}
	// Plain NJ (binary, nothing contracted) as in the paper; CLNJ as
	// Choi et al. (2011) with its contraction of short edges; the
	// Chow–Liu tree.
	dist := learn.DistanceOptions{Kind: distance.Discrete}
	for _, opt := range []learn.Options{
		{Method: learn.NJ, Distance: dist, Contract: learn.ContractOptions{Threshold: -1}},
		{Method: learn.CLNJ, Distance: dist},
		{Method: learn.ChowLiu},
	} {
		opt.Workers = 1
		res, err := learn.FromStats(st, opt)
		if err != nil {
			return nil, err
		}
		trees = append(trees, res.Tree)
	}
	return trees, nil
}

// WriteQuartetTreesCSV writes the rows as CSV.
func WriteQuartetTreesCSV(w io.Writer, rows []QuartetTreesRow) error {
	cw := csv.NewWriter(w)
	recs := [][]string{{"beta", "mu", "samples", "method", "mean_rf", "se", "exact", "reps"}}
	for _, r := range rows {
		recs = append(recs, []string{strconv.FormatFloat(r.Beta, 'g', -1, 64), strconv.FormatFloat(r.Mu, 'g', -1, 64), strconv.Itoa(r.Samples), r.Method,
			strconv.FormatFloat(r.MeanRF, 'f', 3, 64), strconv.FormatFloat(r.SE, 'f', 3, 64), strconv.Itoa(r.Exact), strconv.Itoa(r.Reps)})
	}
	return cw.WriteAll(recs)
}

// QuartetTreesTable writes, per β and μ, the mean RF error at each size for
// every method (a plain-text table, one column per method).
func QuartetTreesTable(w io.Writer, rows []QuartetTreesRow) {
	var methods []string
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Method] {
			seen[r.Method] = true
			methods = append(methods, r.Method)
		}
	}
	type key struct {
		beta, mu float64
		n        int
	}
	byKey := map[key]map[string]QuartetTreesRow{}
	var keys []key
	for _, r := range rows {
		k := key{r.Beta, r.Mu, r.Samples}
		if byKey[k] == nil {
			byKey[k] = map[string]QuartetTreesRow{}
			keys = append(keys, k)
		}
		byKey[k][r.Method] = r
	}
	last := [2]float64{math.NaN(), math.NaN()}
	for _, k := range keys {
		if k.beta != last[0] || k.mu != last[1] {
			last = [2]float64{k.beta, k.mu}
			fmt.Fprintf(w, "\nβ=%g μ=%g: mean Robinson–Foulds error\n  %-6s", k.beta, k.mu, "n")
			for _, m := range methods {
				fmt.Fprintf(w, " %13s", m)
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "  %-6d", k.n)
		for _, m := range methods {
			fmt.Fprintf(w, " %13.2f", byKey[k][m].MeanRF)
		}
		fmt.Fprintln(w)
	}
}
