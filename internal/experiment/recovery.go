package experiment

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

// Topologies of the JMLR 2011 §7.1 experiment.
var RecoveryTrees = []string{"double-star", "hmm", "5-complete"}

// RecoveryTree returns the named topology of JMLR 2011 §7.1.
func RecoveryTree(name string) (*tree.Tree, error) {
	switch name {
	case "double-star":
		return simulate.DoubleStar(40, 40)
	case "hmm":
		return simulate.HMM(78)
	case "5-complete":
		return simulate.CompleteKary(5, 3)
	}
	return nil, fmt.Errorf("experiment: unknown tree %q (want double-star, hmm or 5-complete)", name)
}

// RecoveryConfig configures StructureRecovery. The zero value runs the
// paper's setting with 200 runs per point.
type RecoveryConfig struct {
	// Trees to use (default RecoveryTrees).
	Trees []string
	// Methods to compare (default RG, NJ, CLRG, CLNJ).
	Methods []structure.Method
	// Sizes are the sample sizes (default 100 … 200,000).
	Sizes []int
	// Runs per tree and size (default 200).
	Runs int
	// RhoMin, RhoMax bound the edge correlations (default 0.2, 0.8).
	RhoMin, RhoMax float64
	// Seed makes the experiment reproducible.
	Seed uint64
	// Workers is the number of goroutines (default GOMAXPROCS).
	Workers int
	// Options are passed to structure.Learn (Method and Samples are set
	// per run).
	Options structure.Options
	// Progress, if not nil, is called after every run (from one goroutine
	// at a time).
	Progress func(done, total int)
}

// DefaultSizes are the sample sizes of the recovery experiment.
var DefaultSizes = []int{100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000}

// RecoveryRow is one point of the experiment: a tree, a method and a
// sample size, summarised over the runs.
type RecoveryRow struct {
	Tree    string
	Method  structure.Method
	Samples int
	Runs    int
	// Exact is the number of runs that recovered the true tree (RF 0 and
	// the true number of hidden nodes); ErrorRate = 1 − Exact/Runs.
	Exact     int
	ErrorRate float64
	// MeanRF and MeanNormRF are the mean Robinson–Foulds distances.
	MeanRF, MeanNormRF float64
	// MeanHiddenError is the mean of |hidden learned − hidden true|.
	MeanHiddenError float64
	// MeanSeconds is the mean structure-learning time per run.
	MeanSeconds float64
}

type runResult struct {
	exact    bool
	rf       int
	normRF   float64
	hidden   int
	seconds  float64
	tree     int
	method   int
	size     int
	failures error
}

// StructureRecovery runs the experiment. Each run draws a Gaussian model
// on the true tree and the sample covariance of n rows directly from its
// Wishart distribution (simulate.ScatterMatrix), which is exactly the
// distribution of the statistics the learners see, at a cost independent
// of n; distances are −log|r_ij| of the sample correlations.
func StructureRecovery(ctx context.Context, cfg RecoveryConfig) ([]RecoveryRow, error) {
	if len(cfg.Trees) == 0 {
		cfg.Trees = RecoveryTrees
	}
	if len(cfg.Methods) == 0 {
		cfg.Methods = []structure.Method{structure.MethodRG, structure.MethodNJ, structure.MethodCLRG, structure.MethodCLNJ}
	}
	if len(cfg.Sizes) == 0 {
		cfg.Sizes = DefaultSizes
	}
	if cfg.Runs <= 0 {
		cfg.Runs = 200
	}
	if cfg.RhoMin == 0 && cfg.RhoMax == 0 {
		cfg.RhoMin, cfg.RhoMax = 0.2, 0.8
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	truths := make([]*tree.Tree, len(cfg.Trees))
	for i, name := range cfg.Trees {
		t, err := RecoveryTree(name)
		if err != nil {
			return nil, err
		}
		truths[i] = t
	}
	type job struct{ tree, size, run int }
	jobs := make(chan job)
	results := make(chan []runResult)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				results <- recoveryRun(cfg, truths[j.tree], j.tree, j.size, j.run)
			}
		}()
	}
	total := len(cfg.Trees) * len(cfg.Sizes) * cfg.Runs
	go func() {
		defer close(jobs)
		for ti := range cfg.Trees {
			for si := range cfg.Sizes {
				for r := 0; r < cfg.Runs; r++ {
					select {
					case jobs <- job{ti, si, r}:
					case <-ctx.Done():
						return
					}
				}
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	nm := len(cfg.Methods)
	agg := make([]RecoveryRow, len(cfg.Trees)*len(cfg.Sizes)*nm)
	done := 0
	var firstErr error
	for rs := range results {
		for _, r := range rs {
			if r.failures != nil {
				if firstErr == nil {
					firstErr = r.failures
				}
				continue
			}
			a := &agg[(r.tree*len(cfg.Sizes)+r.size)*nm+r.method]
			a.Runs++
			if r.exact {
				a.Exact++
			}
			a.MeanRF += float64(r.rf)
			a.MeanNormRF += r.normRF
			a.MeanHiddenError += float64(r.hidden)
			a.MeanSeconds += r.seconds
		}
		done++
		if cfg.Progress != nil {
			cfg.Progress(done, total)
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for ti, name := range cfg.Trees {
		for si, n := range cfg.Sizes {
			for mi, m := range cfg.Methods {
				a := &agg[(ti*len(cfg.Sizes)+si)*nm+mi]
				a.Tree, a.Method, a.Samples = name, m, n
				if a.Runs > 0 {
					k := float64(a.Runs)
					a.ErrorRate = 1 - float64(a.Exact)/k
					a.MeanRF /= k
					a.MeanNormRF /= k
					a.MeanHiddenError /= k
					a.MeanSeconds /= k
				}
			}
		}
	}
	return agg, nil
}

// recoveryRun performs one run: one model, one sample, every method.
func recoveryRun(cfg RecoveryConfig, truth *tree.Tree, ti, si, run int) []runResult {
	n := cfg.Sizes[si]
	seed := cfg.Seed ^ uint64(ti)<<48 ^ uint64(n)<<20 ^ uint64(run)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	fail := func(err error) []runResult { return []runResult{{failures: err}} }
	t := truth.Clone()
	g, err := simulate.Gaussian(rng, t, simulate.GaussianOptions{RhoMin: cfg.RhoMin, RhoMax: cfg.RhoMax})
	if err != nil {
		return fail(err)
	}
	names, r, err := simulate.SampleCorrelations(rng, g, n)
	if err != nil {
		return fail(err)
	}
	dm, err := distance.FromCorrelations(names, r)
	if err != nil {
		return fail(err)
	}
	out := make([]runResult, 0, len(cfg.Methods))
	for mi, m := range cfg.Methods {
		opt := cfg.Options
		opt.Method, opt.Samples = m, n
		start := time.Now()
		learned, _, err := structure.Learn(dm, opt)
		sec := time.Since(start).Seconds()
		if err != nil {
			return fail(fmt.Errorf("experiment: %s on %s, n=%d, run %d: %w", m, cfg.Trees[ti], n, run, err))
		}
		rf, err := tree.RobinsonFoulds(truth, learned)
		if err != nil {
			return fail(err)
		}
		hidden := learned.NumHidden() - truth.NumHidden()
		if hidden < 0 {
			hidden = -hidden
		}
		out = append(out, runResult{
			exact: rf.RF == 0 && hidden == 0, rf: rf.RF, normRF: rf.Normalized,
			hidden: hidden, seconds: sec, tree: ti, method: mi, size: si,
		})
	}
	return out
}

// WriteRecoveryCSV writes the rows as CSV with a header.
func WriteRecoveryCSV(w io.Writer, rows []RecoveryRow) error {
	cw := csv.NewWriter(w)
	recs := [][]string{{"tree", "method", "samples", "runs", "exact", "error_rate", "mean_rf", "mean_normalized_rf", "mean_hidden_error", "mean_seconds"}}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, r := range rows {
		recs = append(recs, []string{r.Tree, string(r.Method), strconv.Itoa(r.Samples), strconv.Itoa(r.Runs), strconv.Itoa(r.Exact),
			f(r.ErrorRate), f(r.MeanRF), f(r.MeanNormRF), f(r.MeanHiddenError), f(r.MeanSeconds)})
	}
	return cw.WriteAll(recs)
}

// recoveryMethods returns the distinct methods of rows in order.
func recoveryMethods(rows []RecoveryRow) []structure.Method {
	var out []structure.Method
	for _, r := range rows {
		if !slices.Contains(out, r.Method) {
			out = append(out, r.Method)
		}
	}
	return out
}
