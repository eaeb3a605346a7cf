package experiment

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

// SmallSampleConfig configures SmallSample. The zero value runs 100 random
// trees per data kind and size, with 100, 200 and 500 rows.
type SmallSampleConfig struct {
	// Trees is the number of random trees per kind and size (default 100).
	Trees int
	// Sizes are the numbers of training rows (default 100, 200, 500).
	Sizes []int
	// Kinds are "gaussian" and/or "discrete" (default both).
	Kinds []string
	// Methods compared (default CLNJ, CLRG, NJ).
	Methods []structure.Method
	// MinObserved and MaxObserved bound the number of observed variables,
	// drawn uniformly per tree (default 20 and 40).
	MinObserved, MaxObserved int
	// TestRows is the size of the held-out sample (default 1,000).
	TestRows int
	// Seed makes the experiment reproducible: tree i of a kind and size
	// draws from a generator seeded by Seed and its index alone, so the
	// results do not depend on Workers.
	Seed uint64
	// Workers is the number of trees processed at once (default
	// GOMAXPROCS).
	Workers int
	// CompareAIC also runs the score-guided contraction by AIC
	// (VariantAIC); otherwise its columns are zero.
	CompareAIC bool
	// Progress, if not nil, is called after every tree.
	Progress func(done, total int)
}

// The variants of SmallSample, in the order of SmallSampleRow's arrays.
const (
	// VariantDefault is the method followed by the score-guided
	// contraction (learn.ContractByBIC, with the Chow–Liu tree as
	// baseline): latentree's default.
	VariantDefault = iota
	// VariantNone is the method without any contraction.
	VariantNone
	// VariantOld is the method with the previous defaults: contraction of
	// edges shorter than ε′ = −log 0.9 (hidden–hidden ones too, judged
	// from quartets) and RG thresholds τ = ½ log n + 2, ε = 8/√n.
	VariantOld
	// VariantCL is the Chow–Liu tree (no hidden variables).
	VariantCL
	// VariantAIC is the score-guided contraction by AIC instead of BIC
	// (learn.PruneOptions.AIC).
	VariantAIC
	numVariants
)

// SmallSampleVariants names the variants.
var SmallSampleVariants = [numVariants]string{"default", "none", "old", "chowliu", "aic"}

// SmallSampleRow summarises one kind, size and method over the trees.
// BIC is −2 log L + κ log n of the model fitted to the training rows
// (smaller is better), divided by n.
type SmallSampleRow struct {
	Kind    string
	Samples int
	Method  structure.Method
	Trees   int
	// MeanBIC, MeanTestLL (held-out log-likelihood per row), MeanHidden
	// and MeanSeconds (structure and fit) per variant.
	MeanBIC, MeanTestLL, MeanHidden, MeanSeconds [numVariants]float64
	// TrueHidden is the mean number of hidden variables of the true trees.
	TrueHidden float64
	// AtLeast[v] is the share of trees where the default's BIC is at most
	// variant v's (as good or better).
	AtLeast [numVariants]float64
	// TestAtLeast[v] is the share of trees where the default's held-out
	// log-likelihood is at least variant v's.
	TestAtLeast [numVariants]float64
	// TestTrees counts the trees in MeanTestLL: those where every variant
	// gives every held-out row a positive probability (a maximum-likelihood
	// discrete model fitted to 100 rows can give an unseen configuration
	// probability 0).
	TestTrees int
	// MeanContracted is the mean number of contractions the default kept.
	MeanContracted float64
}

type ssTree struct {
	kind, size int
	hidden     int
	// per method × variant
	bic, test, nh, sec [][numVariants]float64
	contracted         []int
}

// SmallSample compares, on random latent trees with few rows, each
// method's default (score-guided contraction), the method without
// contraction, the method with the previous defaults and the Chow–Liu
// tree, by the BIC of the model fitted to the training rows and the
// log-likelihood of a held-out sample. Trees alternate between
// simulate.RandomMinimal and simulate.RandomBinary (β uniform in
// [0.2, 0.8]) over 20–40 observed variables; Gaussian models have edge
// correlations in [0.2, 0.8], discrete ones are binary symmetric with
// crossover probabilities in [0.05, 0.2]. Discrete models are fitted with
// binary hidden variables. Every model is fitted by model.Fit with its
// defaults.
func SmallSample(ctx context.Context, cfg SmallSampleConfig) ([]SmallSampleRow, error) {
	if cfg.Trees <= 0 {
		cfg.Trees = 100
	}
	if len(cfg.Sizes) == 0 {
		cfg.Sizes = []int{100, 200, 500}
	}
	if len(cfg.Kinds) == 0 {
		cfg.Kinds = []string{"gaussian", "discrete"}
	}
	if len(cfg.Methods) == 0 {
		cfg.Methods = []structure.Method{structure.MethodCLNJ, structure.MethodCLRG, structure.MethodNJ}
	}
	if cfg.MinObserved == 0 && cfg.MaxObserved == 0 {
		cfg.MinObserved, cfg.MaxObserved = 20, 40
	}
	if cfg.MinObserved < 4 || cfg.MaxObserved < cfg.MinObserved {
		return nil, fmt.Errorf("experiment: observed variables %d–%d: want 4 ≤ min ≤ max", cfg.MinObserved, cfg.MaxObserved)
	}
	if cfg.TestRows <= 0 {
		cfg.TestRows = 1000
	}
	for _, k := range cfg.Kinds {
		if k != "gaussian" && k != "discrete" {
			return nil, fmt.Errorf("experiment: unknown data kind %q (want gaussian or discrete)", k)
		}
	}
	for _, n := range cfg.Sizes {
		if n < 10 {
			return nil, fmt.Errorf("experiment: %d training rows: want at least 10", n)
		}
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	nk, ns := len(cfg.Kinds), len(cfg.Sizes)
	total := nk * ns * cfg.Trees
	results := make([]*ssTree, total)
	err := runParallel(ctx, total, workers, cfg.Progress, func(i int) (func(), error) {
		k, s, tr := i/(ns*cfg.Trees), (i/cfg.Trees)%ns, i%cfg.Trees
		r, err := smallSampleTree(cfg, cfg.Kinds[k], cfg.Sizes[s], tr)
		if err != nil {
			return nil, fmt.Errorf("experiment: %s tree %d with %d rows: %w", cfg.Kinds[k], tr, cfg.Sizes[s], err)
		}
		r.kind, r.size = k, s
		return func() { results[i] = r }, nil
	})
	if err != nil {
		return nil, err
	}
	var rows []SmallSampleRow
	for k, kind := range cfg.Kinds {
		for s, n := range cfg.Sizes {
			for mi, m := range cfg.Methods {
				row := SmallSampleRow{Kind: kind, Samples: n, Method: m}
				for _, r := range results {
					if r == nil || r.kind != k || r.size != s {
						continue
					}
					row.Trees++
					row.TrueHidden += float64(r.hidden)
					row.MeanContracted += float64(r.contracted[mi])
					b, te := r.bic[mi], r.test[mi]
					finite := true
					for _, x := range te {
						finite = finite && !math.IsInf(x, 0) && !math.IsNaN(x)
					}
					if finite {
						row.TestTrees++
					}
					for v := 0; v < numVariants; v++ {
						row.MeanBIC[v] += b[v]
						if finite {
							row.MeanTestLL[v] += te[v]
						}
						row.MeanHidden[v] += r.nh[mi][v]
						row.MeanSeconds[v] += r.sec[mi][v]
						if b[VariantDefault] <= b[v]+1e-9*math.Abs(b[v]) {
							row.AtLeast[v]++
						}
						if te[VariantDefault] >= te[v]-1e-9*math.Abs(te[v]) {
							row.TestAtLeast[v]++
						}
					}
				}
				if row.Trees == 0 {
					continue
				}
				c := float64(row.Trees)
				row.TrueHidden /= c
				row.MeanContracted /= c
				for v := 0; v < numVariants; v++ {
					row.MeanBIC[v] /= c
					if row.TestTrees > 0 {
						row.MeanTestLL[v] /= float64(row.TestTrees)
					}
					row.MeanHidden[v] /= c
					row.MeanSeconds[v] /= c
					row.AtLeast[v] /= c
					row.TestAtLeast[v] /= c
				}
				rows = append(rows, row)
			}
		}
	}
	return rows, nil
}

// smallSampleTree runs one random tree: all methods and variants.
func smallSampleTree(cfg SmallSampleConfig, kind string, n, index int) (*ssTree, error) {
	kindID := uint64(1)
	if kind == "discrete" {
		kindID = 2
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, kindID<<48|uint64(n)<<24|uint64(index)))
	m := cfg.MinObserved + rng.IntN(cfg.MaxObserved-cfg.MinObserved+1)
	var (
		truth *tree.Tree
		err   error
	)
	if index%2 == 0 {
		truth, err = simulate.RandomMinimal(rng, m, simulate.MinimalOptions{})
	} else {
		truth, err = simulate.RandomBinary(rng, m, 0.2+0.6*rng.Float64())
	}
	if err != nil {
		return nil, err
	}
	var sampler interface {
		Sample(rand.Source, int) (*data.Dataset, error)
	}
	if kind == "gaussian" {
		sampler, err = simulate.Gaussian(rng, truth, simulate.GaussianOptions{})
	} else {
		sampler, err = simulate.Symmetric(rng, truth, simulate.SymmetricOptions{})
	}
	if err != nil {
		return nil, err
	}
	train, err := sampler.Sample(rng, n)
	if err != nil {
		return nil, err
	}
	test, err := sampler.Sample(rng, cfg.TestRows)
	if err != nil {
		return nil, err
	}
	res := &ssTree{hidden: truth.NumHidden()}
	fitOpt := model.FitOptions{EM: model.EMOptions{Workers: 1}}
	evaluate := func(t *tree.Tree, m model.Model) (bic, testLL float64, err error) {
		if m == nil {
			if m, _, err = model.Fit(t, train, fitOpt); err != nil {
				return 0, 0, err
			}
		}
		s, err := m.Score(train, model.InferOptions{})
		if err != nil {
			return 0, 0, err
		}
		ts, err := m.Score(test, model.InferOptions{})
		if err != nil {
			return 0, 0, err
		}
		return s.BIC / float64(n), ts.PerRow, nil
	}
	start := time.Now()
	st, err := stats.Compute(train, stats.Options{})
	if err != nil {
		return nil, err
	}
	dm, _, err := distance.Information(st, distance.InfoOptions{})
	if err != nil {
		return nil, err
	}
	mi, err := distance.MutualInformation(st, 0)
	if err != nil {
		return nil, err
	}
	cl, err := structure.ChowLiu(st.Names(), mi)
	if err != nil {
		return nil, err
	}
	clBIC, clTest, err := evaluate(cl.Clone(), nil)
	if err != nil {
		return nil, err
	}
	clSec := time.Since(start).Seconds()
	for _, meth := range cfg.Methods {
		var bic, tll, nh, sec [numVariants]float64
		bic[VariantCL], tll[VariantCL], sec[VariantCL] = clBIC, clTest, clSec
		rg := structure.RGOptions{Grouping: structure.GroupSilhouette}
		// Without contraction.
		t0 := time.Now()
		raw, _, err := structure.Learn(dm, structure.Options{Method: meth, Samples: n, Contract: -1, KeepHiddenEdges: true, RG: rg})
		if err != nil {
			return nil, err
		}
		structSec := time.Since(t0).Seconds()
		if bic[VariantNone], tll[VariantNone], err = evaluate(raw.Clone(), nil); err != nil {
			return nil, err
		}
		nh[VariantNone], sec[VariantNone] = float64(raw.NumHidden()), time.Since(t0).Seconds()
		// Previous defaults.
		t0 = time.Now()
		old := rg
		if meth == structure.MethodCLRG || meth == structure.MethodRG {
			old.Tau, old.Eps = 0.5*math.Log(float64(n))+2, 8/math.Sqrt(float64(n))
			old.ParentEps = old.Eps
		}
		ot, _, err := structure.Learn(dm, structure.Options{Method: meth, Samples: n, RG: old})
		if err != nil {
			return nil, err
		}
		if bic[VariantOld], tll[VariantOld], err = evaluate(ot, nil); err != nil {
			return nil, err
		}
		nh[VariantOld], sec[VariantOld] = float64(ot.NumHidden()), time.Since(t0).Seconds()
		// Default: the uncontracted tree, contracted while the BIC improves,
		// never worse than the Chow–Liu tree.
		t0 = time.Now()
		pr, err := learn.ContractByBIC(raw, train, fitOpt, learn.PruneOptions{Workers: 1}, cl)
		if err != nil {
			return nil, err
		}
		if bic[VariantDefault], tll[VariantDefault], err = evaluate(pr.Tree, pr.Model); err != nil {
			return nil, err
		}
		nh[VariantDefault], sec[VariantDefault] = float64(pr.Tree.NumHidden()), structSec+time.Since(t0).Seconds()
		if cfg.CompareAIC {
			t0 = time.Now()
			pa, err := learn.ContractByBIC(raw, train, fitOpt, learn.PruneOptions{Workers: 1, AIC: true}, cl)
			if err != nil {
				return nil, err
			}
			if bic[VariantAIC], tll[VariantAIC], err = evaluate(pa.Tree, pa.Model); err != nil {
				return nil, err
			}
			nh[VariantAIC], sec[VariantAIC] = float64(pa.Tree.NumHidden()), structSec+time.Since(t0).Seconds()
		}
		res.bic = append(res.bic, bic)
		res.test = append(res.test, tll)
		res.nh = append(res.nh, nh)
		res.sec = append(res.sec, sec)
		res.contracted = append(res.contracted, pr.Contracted)
	}
	return res, nil
}

// WriteSmallSampleCSV writes the rows as CSV.
func WriteSmallSampleCSV(w io.Writer, rows []SmallSampleRow) error {
	cw := csv.NewWriter(w)
	head := []string{"kind", "samples", "method", "trees", "test_trees", "true_hidden", "contracted"}
	for _, v := range SmallSampleVariants {
		head = append(head, "bic_per_row_"+v, "test_ll_per_row_"+v, "hidden_"+v, "seconds_"+v, "default_bic_at_least_"+v, "default_test_at_least_"+v)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }
	for _, r := range rows {
		rec := []string{r.Kind, strconv.Itoa(r.Samples), string(r.Method), strconv.Itoa(r.Trees), strconv.Itoa(r.TestTrees), f(r.TrueHidden), f(r.MeanContracted)}
		for v := range SmallSampleVariants {
			rec = append(rec, f(r.MeanBIC[v]), f(r.MeanTestLL[v]), f(r.MeanHidden[v]), f(r.MeanSeconds[v]), f(r.AtLeast[v]), f(r.TestAtLeast[v]))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteSmallSampleTable writes the rows as an aligned text table: mean BIC
// per row of each variant (smaller is better), the share of trees where the
// default is at least as good as the Chow–Liu tree, the method without
// contraction and the old default, the mean held-out log-likelihood per
// row, and mean hidden variables.
func WriteSmallSampleTable(w io.Writer, rows []SmallSampleRow) error {
	if len(rows) == 0 {
		return errors.New("experiment: no rows")
	}
	if _, err := fmt.Fprintf(w, "%-8s %4s %-5s %5s | %9s %9s %9s %9s %9s | %5s %5s %5s | %16s %8s %8s %8s %8s | %6s %6s %6s %6s %5s | %6s %6s\n",
		"kind", "n", "meth", "trees",
		"BIC/n def", "none", "old", "CL", "aic",
		"≥CL", "≥none", "≥old",
		"(trees) test def", "none", "old", "CL", "aic",
		"h def", "none", "old", "aic", "true",
		"s def", "s old"); err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := fmt.Fprintf(w, "%-8s %4d %-5s %5d | %9.4f %9.4f %9.4f %9.4f %9.4f | %4.0f%% %4.0f%% %4.0f%% | (%3d) %8.4f %8.4f %8.4f %8.4f %8.4f | %6.1f %6.1f %6.1f %6.1f %5.1f | %6.3f %6.3f\n",
			r.Kind, r.Samples, r.Method, r.Trees,
			r.MeanBIC[VariantDefault], r.MeanBIC[VariantNone], r.MeanBIC[VariantOld], r.MeanBIC[VariantCL], r.MeanBIC[VariantAIC],
			100*r.AtLeast[VariantCL], 100*r.AtLeast[VariantNone], 100*r.AtLeast[VariantOld],
			r.TestTrees, r.MeanTestLL[VariantDefault], r.MeanTestLL[VariantNone], r.MeanTestLL[VariantOld], r.MeanTestLL[VariantCL], r.MeanTestLL[VariantAIC],
			r.MeanHidden[VariantDefault], r.MeanHidden[VariantNone], r.MeanHidden[VariantOld], r.MeanHidden[VariantAIC], r.TrueHidden,
			r.MeanSeconds[VariantDefault], r.MeanSeconds[VariantOld]); err != nil {
			return err
		}
	}
	return nil
}
