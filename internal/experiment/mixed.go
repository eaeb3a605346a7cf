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
	"slices"
	"strconv"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/tree"
)

// MixedConfig configures Mixed. The zero value runs the experiment of
// issue 24: 50 random mixed trees of 20 to 30 leaves for structure
// recovery and 10 of them for held-out log-likelihood, at 10², 10³, 10⁴
// and 10⁵ rows.
type MixedConfig struct {
	// MinLeaves and MaxLeaves bound the number of observed leaves of a
	// tree, drawn uniformly (default 20 and 30).
	MinLeaves, MaxLeaves int
	// Model are the options of the random models; Continuous (drawn from
	// [0.3, 0.5] per tree) and ContinuousHidden (tree i: i mod 3) are set
	// per tree. The zero value uses simulate's defaults.
	Model simulate.MixedOptions
	// Sizes are the numbers of training rows (default 100, 1,000, 10,000,
	// 100,000). Smaller sizes use the first rows of the largest sample.
	Sizes []int
	// RecoveryTrees is the number of trees of the structure-recovery part
	// (0: 50; negative: none).
	RecoveryTrees int
	// Methods are the structure learners compared (default clnj, clrg,
	// nj), each with its default contraction (ε′ = −log 0.9).
	Methods []learn.Method
	// Thresholds, when not empty, adds every method again with each of
	// these contraction thresholds ε′ (a diagnostic of the contraction).
	Thresholds []float64
	// LikelihoodTrees is the number of trees of the held-out
	// log-likelihood part (0: 10; negative: none). They are drawn as
	// those of the recovery part, with LikelihoodMinLeaves to
	// LikelihoodMaxLeaves leaves (default 10 and 16: learn's default on
	// discrete tables at 100,000 rows, with its search for contractions
	// and hidden states by BIC, takes minutes per table of 25 columns).
	LikelihoodTrees                          int
	LikelihoodMinLeaves, LikelihoodMaxLeaves int
	// LikelihoodSizes are its numbers of training rows (default Sizes).
	LikelihoodSizes []int
	// LikelihoodMethods are the methods of the likelihood part (default
	// MixedLikelihoodMethods; MixedTrue and MixedModel are always run).
	LikelihoodMethods []string
	// TestRows is the number of held-out rows (default 10,000).
	TestRows int
	// Bins is the number of quantile bins of the discretised alternative
	// (default 5).
	Bins int
	// Seed makes the experiment reproducible: tree i draws its model and
	// samples from generators seeded by Seed and i alone.
	Seed uint64
	// Workers is the number of jobs run at once (default GOMAXPROCS);
	// each job runs on one goroutine.
	Workers int
	// Progress, if not nil, is called after every job.
	Progress func(done, total int)
}

// DefaultMixedSizes are the training sizes of the mixed experiment.
var DefaultMixedSizes = []int{100, 1000, 10000, 100000}

// Held-out log-likelihood methods of the mixed experiment.
const (
	// MixedTrue is the true model: the ceiling.
	MixedTrue = "true"
	// MixedModel is learn's default on the mixed table.
	MixedModel = "mixed"
	// MixedDropDiscrete is a tree on the continuous columns (a Gaussian
	// latent tree) and independent categorical marginals of the discrete
	// columns.
	MixedDropDiscrete = "gaussian-tree+categorical"
	// MixedDropContinuous is a tree on the discrete columns and
	// independent Gaussian marginals of the continuous columns.
	MixedDropContinuous = "discrete-tree+gaussian"
	// MixedDiscretised is a discrete tree on the table with continuous
	// columns cut into quantile bins.
	MixedDiscretised = "discretised"
	// MixedCoded is a Gaussian tree on all columns, discrete ones coded as
	// their state index.
	MixedCoded = "gaussian-coded"
)

// MixedLikelihoodMethods lists the held-out log-likelihood methods in the
// order of the tables.
var MixedLikelihoodMethods = []string{MixedTrue, MixedModel, MixedDropDiscrete, MixedDropContinuous, MixedDiscretised, MixedCoded}

// MixedRecord is one result of one tree: a structure learner's tree
// (Part "recovery") or a method's held-out log-likelihood (Part
// "likelihood").
type MixedRecord struct {
	Part   string
	Tree   int
	Leaves int
	// Continuous counts the continuous leaves, ContinuousHidden the
	// continuous hidden nodes of the true tree; Hidden its hidden nodes.
	Continuous, ContinuousHidden, Hidden int
	// Rows is the number of training rows (0: exact distances).
	Rows   int
	Method string
	// RF is the Robinson–Foulds distance to the true tree, HiddenError
	// |learned hidden − true hidden|, Exact both zero (recovery).
	RF          int
	HiddenError int
	Exact       bool
	// LogLik is the held-out log-likelihood per row, Params the model's
	// free parameters (likelihood).
	LogLik float64
	Params int
	// LearnedHidden counts the hidden nodes of the learned tree(s).
	LearnedHidden int
	Seconds       float64
}

// MixedRecoveryRow summarises structure recovery for a method and size.
type MixedRecoveryRow struct {
	Method string
	// Rows is the number of training rows (0: exact distances).
	Rows, Trees, Exact      int
	MeanRF, MeanHiddenError float64
	MeanSeconds             float64
}

// MixedLikelihoodRow summarises a method's held-out log-likelihood at a
// size.
type MixedLikelihoodRow struct {
	Method      string
	Rows, Trees int
	// MeanLogLik is the mean over trees of the held-out log-likelihood per
	// row, MeanGap the mean of the true model's minus it.
	MeanLogLik, MeanGap float64
	// MixedWins counts the trees on which the mixed model's held-out
	// log-likelihood is higher than this method's; Infinite those on
	// which this method gives some held-out row probability 0 (a state
	// never seen in the training rows), which make MeanLogLik −∞.
	MixedWins, Infinite int
	MeanSeconds         float64
}

// MixedResult holds every record of the experiment and its summaries.
type MixedResult struct {
	Records    []MixedRecord
	Recovery   []MixedRecoveryRow
	Likelihood []MixedLikelihoodRow
}

func (c MixedConfig) withDefaults() (MixedConfig, error) {
	if c.MinLeaves == 0 && c.MaxLeaves == 0 {
		c.MinLeaves, c.MaxLeaves = 20, 30
	}
	if c.MinLeaves < 4 || c.MaxLeaves < c.MinLeaves {
		return c, fmt.Errorf("experiment: leaves %d–%d: want 4 ≤ min ≤ max", c.MinLeaves, c.MaxLeaves)
	}
	if c.LikelihoodMinLeaves == 0 && c.LikelihoodMaxLeaves == 0 {
		c.LikelihoodMinLeaves, c.LikelihoodMaxLeaves = 10, 16
	}
	if c.LikelihoodMinLeaves < 4 || c.LikelihoodMaxLeaves < c.LikelihoodMinLeaves {
		return c, fmt.Errorf("experiment: likelihood leaves %d–%d: want 4 ≤ min ≤ max", c.LikelihoodMinLeaves, c.LikelihoodMaxLeaves)
	}
	if len(c.Sizes) == 0 {
		c.Sizes = DefaultMixedSizes
	}
	if len(c.LikelihoodSizes) == 0 {
		c.LikelihoodSizes = c.Sizes
	}
	for _, n := range append(slices.Clone(c.Sizes), c.LikelihoodSizes...) {
		if n < 10 {
			return c, fmt.Errorf("experiment: %d rows: want at least 10", n)
		}
	}
	if c.RecoveryTrees == 0 {
		c.RecoveryTrees = 50
	}
	if c.LikelihoodTrees == 0 {
		c.LikelihoodTrees = 10
	}
	c.RecoveryTrees, c.LikelihoodTrees = max(c.RecoveryTrees, 0), max(c.LikelihoodTrees, 0)
	if len(c.Methods) == 0 {
		c.Methods = []learn.Method{learn.CLNJ, learn.CLRG, learn.NJ}
	}
	for _, m := range c.Methods {
		if !m.UsesDistances() {
			return c, fmt.Errorf("experiment: %s does not learn from distances (want clnj, clrg, nj, rg, ...)", m)
		}
	}
	for _, e := range c.Thresholds {
		if !(e > 0) || math.IsInf(e, 0) {
			return c, fmt.Errorf("experiment: contraction threshold %g: want a positive finite distance", e)
		}
	}
	if len(c.LikelihoodMethods) == 0 {
		c.LikelihoodMethods = MixedLikelihoodMethods
	}
	for _, m := range c.LikelihoodMethods {
		if !slices.Contains(MixedLikelihoodMethods, m) {
			return c, fmt.Errorf("experiment: unknown likelihood method %q (want one of %v)", m, MixedLikelihoodMethods)
		}
	}
	if c.TestRows == 0 {
		c.TestRows = 10000
	}
	if c.TestRows < 1 {
		return c, fmt.Errorf("experiment: %d test rows: want at least 1", c.TestRows)
	}
	if c.Bins == 0 {
		c.Bins = 5
	}
	if c.Bins < 2 {
		return c, fmt.Errorf("experiment: %d bins: want at least 2", c.Bins)
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c, nil
}

// Mixed runs the mixed-data experiment of issue 24 on random
// conditional-Gaussian latent trees (simulate.RandomMixed: observed
// variables are the leaves of a random minimal tree, 30–50% of them
// continuous, discrete ones with 2–5 states, binary discrete hidden
// nodes, and in two trees of three one or two hidden subtrees made
// continuous).
//
// Structure recovery: for every tree, size and method, the structure
// alone is learned from the statistics of the first rows of one sample
// (learn.FromStats: mixed canonical-correlation distances, then the
// method and its default contraction), and compared with the true tree
// by Robinson–Foulds distance and number of hidden nodes; rows "0" learn
// from the model's exact distances, which separates sampling error from
// what the learner and its contraction do with exact distances.
//
// Held-out log-likelihood per row, on TestRows rows drawn from the true
// model, of: the true model; learn's default on the mixed table (a
// conditional-Gaussian model); each kind of column alone (learn's
// default on it) with independent marginals of the other kind
// (categorical with ½ added to every count, or Gaussian by maximum
// likelihood); a discrete tree on the table with every continuous column
// cut into Bins quantile bins of the training rows, a continuous cell
// scored by P(bin)/width; and a Gaussian tree on all columns with
// discrete ones coded as their state index 0, 1, ... (its density at an
// integer code is read as the mass of a unit-width bin around it, which a
// discrete cell's probability is compared with).
//
// Bins of the discretised alternative: the cuts are midpoints between
// consecutive sorted training values at ranks n·j/Bins; the outer bins
// end at the smallest and largest training value. A held-out value
// outside that range falls in the outer bin and is scored with that
// bin's density, so the alternative's density is not normalised beyond
// the training range, which can only favour it.
func Mixed(ctx context.Context, cfg MixedConfig) (*MixedResult, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	type job struct{ tree, size int } // size < 0: recovery of the tree
	var jobs []job
	// Likelihood jobs first (the long ones), largest size first.
	for si := len(cfg.LikelihoodSizes) - 1; si >= 0; si-- {
		for i := range cfg.LikelihoodTrees {
			jobs = append(jobs, job{i, si})
		}
	}
	for i := range cfg.RecoveryTrees {
		jobs = append(jobs, job{i, -1})
	}
	out := make([][]MixedRecord, len(jobs))
	err = runParallel(ctx, len(jobs), cfg.Workers, cfg.Progress, func(k int) (func(), error) {
		j := jobs[k]
		var recs []MixedRecord
		var err error
		if j.size < 0 {
			recs, err = mixedRecovery(cfg, j.tree)
		} else {
			recs, err = mixedLikelihood(cfg, j.tree, cfg.LikelihoodSizes[j.size])
		}
		if err != nil {
			return nil, fmt.Errorf("experiment: tree %d: %w", j.tree+1, err)
		}
		return func() { out[k] = recs }, nil
	})
	if err != nil {
		return nil, err
	}
	res := &MixedResult{}
	for _, recs := range out {
		res.Records = append(res.Records, recs...)
	}
	slices.SortStableFunc(res.Records, func(a, b MixedRecord) int {
		if a.Part != b.Part {
			if a.Part == "recovery" {
				return -1
			}
			return 1
		}
		if a.Tree != b.Tree {
			return a.Tree - b.Tree
		}
		return a.Rows - b.Rows
	})
	res.Recovery = summariseRecovery(res.Records)
	res.Likelihood = summariseLikelihood(res.Records)
	return res, nil
}

// mixedTruth is tree i of the experiment and its description.
type mixedTruth struct {
	m    *mixed.Model
	base MixedRecord
}

// mixedTree returns tree i of the recovery part (likelihood false) or of
// the likelihood part.
func mixedTree(cfg MixedConfig, i int, likelihood bool) (*mixedTruth, error) {
	lo, hi, tag := cfg.MinLeaves, cfg.MaxLeaves, uint64(0x313ed)
	if likelihood {
		lo, hi, tag = cfg.LikelihoodMinLeaves, cfg.LikelihoodMaxLeaves, 0x11e1d
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, tag<<32|uint64(i)))
	leaves := lo + rng.IntN(hi-lo+1)
	opt := cfg.Model
	opt.Continuous, opt.ContinuousHidden = 0.3+0.2*rng.Float64(), i%3
	m, err := simulate.RandomMixed(rng, leaves, simulate.MinimalOptions{ObservedInternalProb: -1}, opt)
	if err != nil {
		return nil, err
	}
	b := MixedRecord{Tree: i + 1, Leaves: m.Tree.NumObserved(), Hidden: m.Tree.NumHidden()}
	for _, v := range m.Tree.Nodes() {
		if m.Kinds[v] != data.Continuous {
			continue
		}
		if m.Tree.IsHidden(v) {
			b.ContinuousHidden++
		} else {
			b.Continuous++
		}
	}
	return &mixedTruth{m, b}, nil
}

// sampleSrc returns the source of tree i's rows: training rows of the
// recovery part (what 0), test (1) and training (2) rows of the
// likelihood part.
func (cfg MixedConfig) sampleSrc(i, what int) rand.Source {
	return rand.NewPCG(cfg.Seed^0x5a3b1e, uint64(i)<<8|uint64(what))
}

// firstRows returns the first n rows of d (d itself when it has n).
func firstRows(d *data.Dataset, n int) (*data.Dataset, error) {
	if d.NumRows() == n {
		return d, nil
	}
	idx := make([]int, n)
	for r := range idx {
		idx[r] = r
	}
	return d.Rows(idx)
}

func mixedRecovery(cfg MixedConfig, i int) ([]MixedRecord, error) {
	truth, err := mixedTree(cfg, i, false)
	if err != nil {
		return nil, err
	}
	m := truth.m
	full, err := m.Sample(cfg.sampleSrc(i, 0), slices.Max(cfg.Sizes))
	if err != nil {
		return nil, err
	}
	type variant struct {
		name string
		opt  learn.Options
	}
	var variants []variant
	for _, meth := range cfg.Methods {
		variants = append(variants, variant{string(meth), learn.Options{Method: meth, Workers: 1}})
	}
	for _, e := range cfg.Thresholds {
		for _, meth := range cfg.Methods {
			variants = append(variants, variant{fmt.Sprintf("%s ε′=%g", meth, e),
				learn.Options{Method: meth, Workers: 1, Contract: learn.ContractOptions{Threshold: e}}})
		}
	}
	var recs []MixedRecord
	record := func(name string, rows int, res *learn.Result, sec float64) error {
		rf, err := tree.RobinsonFoulds(m.Tree, res.Tree)
		if err != nil {
			return err
		}
		r := truth.base
		r.Part, r.Rows, r.Method, r.Seconds = "recovery", rows, name, sec
		r.RF, r.LearnedHidden = rf.RF, res.Tree.NumHidden()
		r.HiddenError = r.LearnedHidden - r.Hidden
		if r.HiddenError < 0 {
			r.HiddenError = -r.HiddenError
		}
		r.Exact = r.RF == 0 && r.HiddenError == 0
		recs = append(recs, r)
		return nil
	}
	// Exact distances.
	obs := m.Tree.Observed()
	names := make([]string, len(obs))
	for k, v := range obs {
		names[k] = m.Tree.Name(v)
	}
	dm, err := distance.NewMatrix(names)
	if err != nil {
		return nil, err
	}
	exact, err := m.InformationDistances(obs)
	if err != nil {
		return nil, err
	}
	copy(dm.D, exact)
	for _, v := range variants {
		t0 := time.Now()
		res, err := learn.FromDistances(dm, v.opt)
		if err != nil {
			return nil, fmt.Errorf("%s from exact distances: %w", v.name, err)
		}
		if err := record(v.name, 0, res, time.Since(t0).Seconds()); err != nil {
			return nil, err
		}
	}
	for _, n := range cfg.Sizes {
		d, err := firstRows(full, n)
		if err != nil {
			return nil, err
		}
		t0 := time.Now()
		st, err := stats.Compute(d, stats.Options{Workers: 1})
		if err != nil {
			return nil, err
		}
		statSec := time.Since(t0).Seconds()
		for _, v := range variants {
			t0 := time.Now()
			res, err := learn.FromStats(st, v.opt)
			if err != nil {
				return nil, fmt.Errorf("%s, %d rows: %w", v.name, n, err)
			}
			if err := record(v.name, n, res, statSec+time.Since(t0).Seconds()); err != nil {
				return nil, err
			}
		}
	}
	return recs, nil
}

// mixedLikelihood fits every method to the first n training rows of tree
// i and scores the held-out rows.
func mixedLikelihood(cfg MixedConfig, i, n int) ([]MixedRecord, error) {
	truth, err := mixedTree(cfg, i, true)
	if err != nil {
		return nil, err
	}
	m := truth.m
	full, err := m.Sample(cfg.sampleSrc(i, 2), slices.Max(cfg.LikelihoodSizes))
	if err != nil {
		return nil, err
	}
	train, err := firstRows(full, n)
	if err != nil {
		return nil, err
	}
	test, err := m.Sample(cfg.sampleSrc(i, 1), cfg.TestRows)
	if err != nil {
		return nil, err
	}
	var recs []MixedRecord
	for _, method := range MixedLikelihoodMethods {
		if method != MixedTrue && method != MixedModel && !slices.Contains(cfg.LikelihoodMethods, method) {
			continue
		}
		t0 := time.Now()
		ll, params, hidden, err := mixedScore(method, m, train, test, cfg.Bins, rand.NewPCG(cfg.Seed^0x1ea7, uint64(i)<<32|uint64(n)))
		if err != nil {
			return nil, fmt.Errorf("%s, %d rows: %w", method, n, err)
		}
		r := truth.base
		r.Part, r.Rows, r.Method = "likelihood", n, method
		r.LogLik, r.Params, r.LearnedHidden = ll/float64(test.NumRows()), params, hidden
		r.Seconds = time.Since(t0).Seconds()
		recs = append(recs, r)
	}
	return recs, nil
}

// mixedScore returns a method's held-out log-likelihood of test (the
// sum), its number of free parameters and the hidden nodes of its
// tree(s).
func mixedScore(method string, truth *mixed.Model, train, test *data.Dataset, bins int, src rand.Source) (float64, int, int, error) {
	lopt := learn.Options{Workers: 1, Src: src}
	switch method {
	case MixedTrue:
		_, ll, err := truth.LogLikelihood(test, model.InferOptions{Workers: 1})
		return ll, truth.NumParams(), truth.Tree.NumHidden(), err
	case MixedModel:
		return learnScore(train, test, lopt)
	case MixedDropDiscrete, MixedDropContinuous:
		keep, other := data.Continuous, data.Discrete
		if method == MixedDropContinuous {
			keep, other = data.Discrete, data.Continuous
		}
		trainT, err := train.Select(columnsOf(train, keep))
		if err != nil {
			return 0, 0, 0, err
		}
		testT, err := test.Select(columnsOf(test, keep))
		if err != nil {
			return 0, 0, 0, err
		}
		ll, params, hidden, err := learnScore(trainT, testT, lopt)
		if err != nil {
			return 0, 0, 0, err
		}
		mll, mparams, err := marginalScore(train, test, columnsOf(train, other))
		return ll + mll, params + mparams, hidden, err
	case MixedDiscretised:
		trainD, testD, logWidth, err := discretise(train, test, bins)
		if err != nil {
			return 0, 0, 0, err
		}
		ll, params, hidden, err := learnScore(trainD, testD, lopt)
		return ll - logWidth, params, hidden, err
	case MixedCoded:
		trainC, err := codeDiscrete(train)
		if err != nil {
			return 0, 0, 0, err
		}
		testC, err := codeDiscrete(test)
		if err != nil {
			return 0, 0, 0, err
		}
		return learnScore(trainC, testC, lopt)
	}
	return 0, 0, 0, fmt.Errorf("unknown method %q", method)
}

// learnScore runs learn's default on train and returns the learned
// model's log-likelihood of test, its parameters and hidden nodes.
func learnScore(train, test *data.Dataset, opt learn.Options) (float64, int, int, error) {
	res, err := learn.Learn(train, opt)
	if err != nil {
		return 0, 0, 0, err
	}
	_, ll, err := res.Model.LogLikelihood(test, model.InferOptions{Workers: 1})
	if err != nil {
		return 0, 0, 0, err
	}
	return ll, res.Model.NumParams(), res.Model.Structure().NumHidden(), nil
}

// columnsOf returns the columns of d of kind k.
func columnsOf(d *data.Dataset, k data.Kind) []int {
	var cols []int
	for j := range d.NumVars() {
		if d.Var(j).Kind == k {
			cols = append(cols, j)
		}
	}
	return cols
}

// marginalScore fits independent marginals to the given columns of train
// (categorical with ½ added to every count; Gaussian by maximum
// likelihood) and returns the log-likelihood of those columns of test and
// the number of free parameters.
func marginalScore(train, test *data.Dataset, cols []int) (float64, int, error) {
	var ll float64
	params := 0
	for _, j := range cols {
		v := train.Var(j)
		if v.Kind == data.Discrete {
			k := v.NumStates()
			counts := make([]float64, k)
			for _, c := range train.Discrete(j) {
				if c != data.Missing {
					counts[c]++
				}
			}
			total := 0.0
			for s := range counts {
				counts[s] += 0.5
				total += counts[s]
			}
			for _, c := range test.Discrete(j) {
				if c != data.Missing {
					ll += math.Log(counts[c] / total)
				}
			}
			params += k - 1
			continue
		}
		var n, sum, sq float64
		for _, x := range train.Continuous(j) {
			if !math.IsNaN(x) {
				n++
				sum += x
			}
		}
		if n == 0 {
			return 0, 0, fmt.Errorf("column %s has no training values", v.Name)
		}
		mean := sum / n
		for _, x := range train.Continuous(j) {
			if !math.IsNaN(x) {
				sq += (x - mean) * (x - mean)
			}
		}
		vr := sq / n
		if !(vr > 0) {
			return 0, 0, fmt.Errorf("column %s is constant in the training rows", v.Name)
		}
		for _, x := range test.Continuous(j) {
			if !math.IsNaN(x) {
				ll += -0.5*math.Log(2*math.Pi*vr) - (x-mean)*(x-mean)/(2*vr)
			}
		}
		params += 2
	}
	return ll, params, nil
}

// binEdges returns the edges of at most bins quantile bins of the values
// (NaN skipped): the smallest value, the cuts (midpoints between
// consecutive sorted values at ranks n·j/bins, repeated cuts dropped)
// and the largest value.
func binEdges(values []float64, bins int) ([]float64, error) {
	var s []float64
	for _, x := range values {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	slices.Sort(s)
	n := len(s)
	if n < 2 || s[0] == s[n-1] {
		return nil, errors.New("fewer than two distinct training values to cut into bins")
	}
	edges := []float64{s[0]}
	for j := 1; j < bins; j++ {
		r := n * j / bins
		if r < 1 || r >= n {
			continue
		}
		c := (s[r-1] + s[r]) / 2
		if c > edges[len(edges)-1] && c < s[n-1] {
			edges = append(edges, c)
		}
	}
	return append(edges, s[n-1]), nil
}

// binOf returns the bin of x among edges (outer bins extended to ±∞).
func binOf(edges []float64, x float64) int {
	b, _ := slices.BinarySearch(edges[1:len(edges)-1], x)
	// BinarySearch returns the first cut ≥ x; a value equal to a cut
	// belongs to the bin above it.
	if b < len(edges)-2 && edges[b+1] == x {
		b++
	}
	return b
}

// discretise replaces every continuous column of train and test by its
// quantile bins of the training rows (labels "bin1", ...) and returns
// Σ log width of the bins of test's continuous cells.
func discretise(train, test *data.Dataset, bins int) (*data.Dataset, *data.Dataset, float64, error) {
	vars := train.Vars()
	edges := make([][]float64, len(vars))
	for j, v := range vars {
		if v.Kind != data.Continuous {
			continue
		}
		e, err := binEdges(train.Continuous(j), bins)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("column %s: %w", v.Name, err)
		}
		edges[j] = e
		vars[j] = data.Variable{Name: v.Name, Kind: data.Discrete}
		for b := range len(e) - 1 {
			vars[j].States = append(vars[j].States, "bin"+strconv.Itoa(b+1))
		}
	}
	var logWidth float64
	conv := func(d *data.Dataset, score bool) (*data.Dataset, error) {
		cols := make([][]uint16, len(vars))
		for j := range vars {
			if edges[j] == nil {
				cols[j] = slices.Clone(d.Discrete(j))
				continue
			}
			cols[j] = make([]uint16, d.NumRows())
			for r, x := range d.Continuous(j) {
				if math.IsNaN(x) {
					cols[j][r] = data.Missing
					continue
				}
				b := binOf(edges[j], x)
				cols[j][r] = uint16(b)
				if score {
					logWidth += math.Log(edges[j][b+1] - edges[j][b])
				}
			}
		}
		return data.FromDiscrete(vars, cols)
	}
	tr, err := conv(train, false)
	if err != nil {
		return nil, nil, 0, err
	}
	te, err := conv(test, true)
	if err != nil {
		return nil, nil, 0, err
	}
	return tr, te, logWidth, nil
}

// codeDiscrete returns d with every discrete column replaced by its state
// codes 0, 1, ... as a continuous column.
func codeDiscrete(d *data.Dataset) (*data.Dataset, error) {
	names := d.Names()
	cols := make([][]float64, d.NumVars())
	for j := range cols {
		if d.Var(j).Kind == data.Continuous {
			cols[j] = slices.Clone(d.Continuous(j))
			continue
		}
		cols[j] = make([]float64, d.NumRows())
		for r, c := range d.Discrete(j) {
			if c == data.Missing {
				cols[j][r] = math.NaN()
			} else {
				cols[j][r] = float64(c)
			}
		}
	}
	return data.FromContinuous(names, cols)
}

func summariseRecovery(recs []MixedRecord) []MixedRecoveryRow {
	type key struct {
		method string
		rows   int
	}
	var order []key
	agg := map[key]*MixedRecoveryRow{}
	for _, r := range recs {
		if r.Part != "recovery" {
			continue
		}
		k := key{r.Method, r.Rows}
		a := agg[k]
		if a == nil {
			a = &MixedRecoveryRow{Method: r.Method, Rows: r.Rows}
			agg[k] = a
			order = append(order, k)
		}
		a.Trees++
		if r.Exact {
			a.Exact++
		}
		a.MeanRF += float64(r.RF)
		a.MeanHiddenError += float64(r.HiddenError)
		a.MeanSeconds += r.Seconds
	}
	out := make([]MixedRecoveryRow, 0, len(order))
	for _, k := range order {
		a := agg[k]
		t := float64(a.Trees)
		a.MeanRF /= t
		a.MeanHiddenError /= t
		a.MeanSeconds /= t
		out = append(out, *a)
	}
	slices.SortStableFunc(out, func(a, b MixedRecoveryRow) int { return a.Rows - b.Rows })
	return out
}

func summariseLikelihood(recs []MixedRecord) []MixedLikelihoodRow {
	type key struct {
		tree, rows int
	}
	byTree := map[key]map[string]float64{}
	for _, r := range recs {
		if r.Part != "likelihood" {
			continue
		}
		k := key{r.Tree, r.Rows}
		if byTree[k] == nil {
			byTree[k] = map[string]float64{}
		}
		byTree[k][r.Method] = r.LogLik
	}
	type mk struct {
		method string
		rows   int
	}
	agg := map[mk]*MixedLikelihoodRow{}
	var sizes []int
	for _, r := range recs {
		if r.Part != "likelihood" {
			continue
		}
		if !slices.Contains(sizes, r.Rows) {
			sizes = append(sizes, r.Rows)
		}
		k := mk{r.Method, r.Rows}
		a := agg[k]
		if a == nil {
			a = &MixedLikelihoodRow{Method: r.Method, Rows: r.Rows}
			agg[k] = a
		}
		all := byTree[key{r.Tree, r.Rows}]
		a.Trees++
		if math.IsInf(r.LogLik, -1) {
			a.Infinite++
		}
		a.MeanLogLik += r.LogLik
		a.MeanGap += all[MixedTrue] - r.LogLik
		if all[MixedModel] > r.LogLik {
			a.MixedWins++
		}
		a.MeanSeconds += r.Seconds
	}
	slices.Sort(sizes)
	var out []MixedLikelihoodRow
	for _, n := range sizes {
		for _, m := range MixedLikelihoodMethods {
			a := agg[mk{m, n}]
			if a == nil {
				continue
			}
			t := float64(a.Trees)
			a.MeanLogLik /= t
			a.MeanGap /= t
			a.MeanSeconds /= t
			out = append(out, *a)
		}
	}
	return out
}

// WriteMixedCSV writes every record as CSV with a header.
func WriteMixedCSV(w io.Writer, res *MixedResult) error {
	cw := csv.NewWriter(w)
	recs := [][]string{{"part", "tree", "leaves", "continuous_leaves", "hidden", "continuous_hidden", "rows", "method",
		"rf", "hidden_error", "exact", "heldout_loglik_per_row", "params", "learned_hidden", "seconds"}}
	it := strconv.Itoa
	for _, r := range res.Records {
		ll, params, rf, he, exact := "", "", "", "", ""
		if r.Part == "likelihood" {
			ll, params = strconv.FormatFloat(r.LogLik, 'f', 5, 64), it(r.Params)
		} else {
			rf, he, exact = it(r.RF), it(r.HiddenError), strconv.FormatBool(r.Exact)
		}
		recs = append(recs, []string{r.Part, it(r.Tree), it(r.Leaves), it(r.Continuous), it(r.Hidden), it(r.ContinuousHidden),
			it(r.Rows), r.Method, rf, he, exact, ll, params, it(r.LearnedHidden), strconv.FormatFloat(r.Seconds, 'f', 4, 64)})
	}
	return cw.WriteAll(recs)
}

// rowsLabel writes a number of rows, 0 as "exact".
func rowsLabel(n int) string {
	if n == 0 {
		return "exact distances"
	}
	return strconv.Itoa(n)
}

// WriteMixedTable writes the summaries as Markdown tables: structure
// recovery by method and size, and held-out log-likelihood per row by
// method and size.
func WriteMixedTable(w io.Writer, res *MixedResult) error {
	if len(res.Recovery) > 0 {
		if _, err := fmt.Fprintln(w, "Structure recovery (structure only: statistics → mixed distances → tree):\n\n| rows | method | trees | exact | exact rate | mean RF | mean hidden error | mean s |\n|---:|---|---:|---:|---:|---:|---:|---:|"); err != nil {
			return err
		}
		for _, r := range res.Recovery {
			if _, err := fmt.Fprintf(w, "| %s | %s | %d | %d | %.2f | %.2f | %.2f | %.4f |\n", rowsLabel(r.Rows), r.Method, r.Trees, r.Exact,
				float64(r.Exact)/float64(r.Trees), r.MeanRF, r.MeanHiddenError, r.MeanSeconds); err != nil {
				return err
			}
		}
	}
	if len(res.Likelihood) == 0 {
		return nil
	}
	if len(res.Recovery) > 0 {
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintln(w, "Held-out log-likelihood per row (mean over trees; gap = true − method; mixed wins = trees on which the mixed model scores higher; −∞ = trees with a held-out row of probability 0):\n\n| rows | method | trees | held-out LL/row | gap to true | mixed wins | −∞ | mean s |\n|---:|---|---:|---:|---:|---:|---:|---:|"); err != nil {
		return err
	}
	num := func(x float64) string {
		if math.IsInf(x, 0) {
			return map[bool]string{true: "−∞", false: "∞"}[x < 0]
		}
		return strconv.FormatFloat(x, 'f', 4, 64)
	}
	for _, r := range res.Likelihood {
		wins := fmt.Sprintf("%d/%d", r.MixedWins, r.Trees)
		if r.Method == MixedModel {
			wins = "–"
		}
		if _, err := fmt.Fprintf(w, "| %d | %s | %d | %s | %s | %s | %d | %.2f |\n", r.Rows, r.Method, r.Trees, num(r.MeanLogLik), num(r.MeanGap), wins, r.Infinite, r.MeanSeconds); err != nil {
			return err
		}
	}
	return nil
}

// MixedBeatsAll reports, for each size of the likelihood part, whether
// the mixed model's mean held-out log-likelihood is above every
// alternative's (the true model excluded).
func (res *MixedResult) MixedBeatsAll() map[int]bool {
	best := map[int]float64{}
	mix := map[int]float64{}
	for _, r := range res.Likelihood {
		switch r.Method {
		case MixedTrue:
		case MixedModel:
			mix[r.Rows] = r.MeanLogLik
		default:
			if b, ok := best[r.Rows]; !ok || r.MeanLogLik > b {
				best[r.Rows] = r.MeanLogLik
			}
		}
	}
	out := map[int]bool{}
	for n, m := range mix {
		out[n] = m > best[n]
	}
	return out
}
