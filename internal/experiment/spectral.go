package experiment

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/spectral"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

// SpectralSetting is one quadruple {O, n, k, k′} of Song et al. (ICML
// 2013, Figure 2): O observed variables with n states each, hidden
// variables with k states in the true model and k′ in the fitted one.
type SpectralSetting struct {
	Observed, States, Hidden, Approx int
}

// String returns "{O,n,k,k′}" as in the paper's panel titles.
func (s SpectralSetting) String() string {
	return fmt.Sprintf("{%d,%d,%d,%d}", s.Observed, s.States, s.Hidden, s.Approx)
}

// SpectralTopologies are the tree kinds of the experiment: "hmm" (a
// non-homogeneous HMM: simulate.HMM(O−2), a chain of O−2 hidden nodes each
// with one observed child and one more observed variable at each end, so
// that every hidden node has degree 3), "random" (simulate.RandomBinary
// with β uniform in [0.2, 0.8], drawn per model) and "balanced"
// (simulate.RandomBinary with β = ½: the balanced binary tree over the O
// leaves in random order).
var SpectralTopologies = []string{"hmm", "random", "balanced"}

// DefaultSpectralSettings are k′ < k (two ranks), and k′ = k with n > k,
// all with O = 16 and n = 4.
var DefaultSpectralSettings = []SpectralSetting{
	{16, 4, 4, 2},
	{16, 4, 4, 3},
	{16, 4, 2, 2},
}

// DefaultSpectralMu is the default perturbation μ of the true models'
// CPTs (see SpectralModel).
const DefaultSpectralMu = 1.0

// DefaultSpectralSizes are the training sizes of the paper's Figure 2.
var DefaultSpectralSizes = []int{200, 1000, 5000, 10000, 50000, 100000}

// SpectralScorer returns the fitted model's estimate P̂ of every row of d
// and its natural log (NaN where P̂ ≤ 0).
type SpectralScorer func(d *data.Dataset) (prob, loglik []float64, err error)

// SpectralMethod is one parameter estimator compared by Spectral. Fit
// learns the parameters of the tree t, whose hidden variables get kPrime
// states, from train, on one goroutine, drawing any randomness from src;
// it returns a scorer for held-out rows and the number of EM iterations
// it ran (0 for none).
type SpectralMethod struct {
	Name string
	// EM marks iterative methods (SpectralConfig.LargeSize bounds them);
	// Long those that run EM to latentree's tolerance, far longer than the
	// paper's (SpectralConfig.LongMaxSize bounds them too).
	EM, Long bool
	Fit      func(t *tree.Tree, train *data.Dataset, kPrime int, src rand.Source) (SpectralScorer, int, error)
}

// PaperEMTol is the stopping rule of the paper's EM: relative change of
// the log-likelihood at most 1e-4.
const PaperEMTol = 1e-4

// emMethod fits by model.Fit with the given options (HiddenStates, EM.Src
// and EM.Workers set here) and scores by model.RowLikelihoods.
func emMethod(name string, long bool, opt model.FitOptions) SpectralMethod {
	return SpectralMethod{Name: name, EM: true, Long: long, Fit: func(t *tree.Tree, train *data.Dataset, kPrime int, src rand.Source) (SpectralScorer, int, error) {
		o := opt
		o.HiddenStates = kPrime
		o.EM.Src = src
		o.EM.Workers = 1
		m, res, err := model.Fit(t, train, o)
		if err != nil {
			return nil, 0, err
		}
		iters := 0
		if res != nil {
			iters = res.Iterations
		}
		return func(d *data.Dataset) ([]float64, []float64, error) {
			return model.RowLikelihoods(m, d, model.InferOptions{Workers: 1})
		}, iters, nil
	}}
}

// PaperEMRestarts is the number of random starts of the paper's EM.
const PaperEMRestarts = 5

// paperEM is EM with the protocol of Song et al. (2013, §6): plain EM from
// each of 5 random starts, each run until the relative change of the
// log-likelihood is at most 1e-4; the start with the highest training
// log-likelihood wins. The iterations reported are the sum over the runs.
//
// model.Fit's default EM is accelerated (SQUAREM) with a stricter
// stopping rule, so each run selects plain EM (model.AccelNone) and the
// relative-change rule (model.StopRelative, which compares |ΔL| with the
// average of the two log-likelihoods as the paper does).
func paperEM() SpectralMethod {
	return SpectralMethod{Name: "em-paper", EM: true, Fit: func(t *tree.Tree, train *data.Dataset, kPrime int, src rand.Source) (SpectralScorer, int, error) {
		rng := rand.New(src)
		var (
			best  model.Model
			bestL = math.Inf(-1)
			iters int
		)
		for range PaperEMRestarts {
			// One random start (Restarts 1) with a single restart-phase
			// iteration, then EM to the tolerance.
			opt := model.FitOptions{HiddenStates: kPrime, Init: model.InitRandom,
				EM: model.EMOptions{Accel: model.AccelNone, Stop: model.StopRelative, Restarts: 1, RestartIter: 1, Tol: PaperEMTol, Workers: 1, Src: rand.NewPCG(rng.Uint64(), rng.Uint64())}}
			m, res, err := model.Fit(t, train, opt)
			if err != nil {
				return nil, 0, err
			}
			iters += 1 + res.Iterations
			if res.LogLik > bestL {
				best, bestL = m, res.LogLik
			}
		}
		return func(d *data.Dataset) ([]float64, []float64, error) {
			return model.RowLikelihoods(best, d, model.InferOptions{Workers: 1})
		}, iters, nil
	}}
}

// spectralMethod fits by spectral.Fit with the given linker.
func spectralMethod(name string, l model.Linker) SpectralMethod {
	return SpectralMethod{Name: name, Fit: func(t *tree.Tree, train *data.Dataset, kPrime int, _ rand.Source) (SpectralScorer, int, error) {
		s, err := spectral.Fit(t, train, spectral.Options{HiddenStates: kPrime, Linker: l, Workers: 1})
		if err != nil {
			return nil, 0, err
		}
		return func(d *data.Dataset) ([]float64, []float64, error) {
			p, err := s.Prob(d, model.InferOptions{Workers: 1})
			if err != nil {
				return nil, nil, err
			}
			ll := make([]float64, len(p))
			for i, x := range p {
				ll[i] = math.NaN()
				if x > 0 {
					ll[i] = math.Log(x)
				}
			}
			return p, ll, nil
		}, 0, nil
	}}
}

// SpectralMethods returns the methods of the experiment, in output order:
//
//	em-paper     EM with the paper's protocol: plain EM from 5 random
//	             starts, each stopped at a relative change of the
//	             log-likelihood of 1e-4, the best on the training rows wins
//	em-default   latentree's default EM (model.Fit with only HiddenStates set)
//	parikh       spectral, the linker of Parikh et al. (2011)
//	mstar        spectral, local M* (latentree's default linker)
//	mstar-full   spectral, the paper's literal M* (Algorithm 1's unfolding)
//	em-spectral  latentree's default EM from the spectral start (local M*)
func SpectralMethods() []SpectralMethod {
	return []SpectralMethod{
		paperEM(),
		emMethod("em-default", true, model.FitOptions{}),
		spectralMethod("parikh", model.LinkerParikh),
		spectralMethod("mstar", model.LinkerMStar),
		spectralMethod("mstar-full", model.LinkerMStarFull),
		emMethod("em-spectral", true, model.FitOptions{Init: model.InitSpectral}),
	}
}

// SpectralConfig configures Spectral (Song et al., ICML 2013, §6 and
// Figure 2). The zero value runs every topology and DefaultSpectralSettings
// with 10 models per setting, DefaultSpectralSizes and 1,000 test rows.
type SpectralConfig struct {
	// Topologies are names from SpectralTopologies (default all).
	Topologies []string
	// Settings are the quadruples {O, n, k, k′} (default
	// DefaultSpectralSettings).
	Settings []SpectralSetting
	// Sizes are the numbers of training rows (default
	// DefaultSpectralSizes).
	Sizes []int
	// Models is the number of random models per topology and setting
	// (default 10).
	Models int
	// LargeSize and LargeModels bound the work of the EM methods
	// (SpectralMethod.EM) at large sizes: at sizes of at least LargeSize
	// they run on the first LargeModels models only (either 0: no bound).
	LargeSize, LargeModels int
	// LongMaxSize and LongModels bound the methods that run EM to
	// latentree's tolerance (SpectralMethod.Long): they run at sizes up to
	// LongMaxSize only, on the first LongModels models (0: no bound).
	LongMaxSize, LongModels int
	// TestRows is the size of the test sample (default 1,000).
	TestRows int
	// Mu is the perturbation of the true models' CPTs (default
	// DefaultSpectralMu; see SpectralModel).
	Mu float64
	// Methods compared (default SpectralMethods()).
	Methods []SpectralMethod
	// Seed makes the experiment reproducible: model i of a topology and
	// true {O, n, k} draws its tree, parameters and samples from
	// generators seeded by Seed and those alone, so settings that differ
	// only in k′ share their true models and data, and the results do not
	// depend on Workers or on the other settings run.
	Seed uint64
	// Workers is the number of (setting, model, size) jobs run at once
	// (default GOMAXPROCS); every fit inside a job uses one goroutine.
	Workers int
	// Progress, if not nil, is called after every job.
	Progress func(done, total int)
}

// SpectralRow summarises one method at one topology, setting and size
// over the random models. Errors ε = |P̂(x) − P(x)| / P(x) are per test
// row x against the exact probability under the true model.
type SpectralRow struct {
	Topology string
	Setting  SpectralSetting
	Samples  int
	Method   string
	// Models is the number of models the method fitted; Failed the number
	// where it returned an error (Error is the first such error).
	Models, Failed int
	Error          string
	// MedianErr and MeanErr are the median and mean of ε over the test
	// rows of all fitted models pooled; ModelMedianMin and ModelMedianMax
	// the range over models of each model's median ε.
	MedianErr, MeanErr             float64
	ModelMedianMin, ModelMedianMax float64
	// NonPositive is the share of test rows with P̂ ≤ 0.
	NonPositive float64
	// Seconds is the mean training time; Iterations the mean number of
	// EM iterations.
	Seconds, Iterations float64
	// TrainGap is the mean over models of the fitted model's training
	// log-likelihood minus the true model's (nats, total over the N rows;
	// NaN when P̂ ≤ 0 for some training row).
	TrainGap float64
}

// spectralResult is one method's outcome on one model and size.
type spectralResult struct {
	skipped    bool // not run (budget)
	err        error
	eps        []float64
	nonPos     int
	sec        float64
	iters      int
	trainGap   float64
	trainValid bool
}

// spectralJob indexes one (topology, setting, model, size).
type spectralJob struct{ topo, set, model, size int }

// Spectral reproduces Figure 2 of Song et al. (ICML 2013): on
// non-homogeneous HMMs, random binary and balanced binary latent trees it
// draws random discrete models (SpectralModel), samples training and test
// rows, fits each method on the true tree with k′ hidden states and
// records the error of P̂ on the test rows against the true P, the share
// of rows with P̂ ≤ 0, the training time and the EM iterations. The
// training rows of a smaller size are a prefix of a larger size's, so the
// curves of a model are paired. A method that fails on a model is
// recorded (SpectralRow.Failed, Error) and the run goes on.
func Spectral(ctx context.Context, cfg SpectralConfig) ([]SpectralRow, error) {
	if len(cfg.Topologies) == 0 {
		cfg.Topologies = SpectralTopologies
	}
	for _, t := range cfg.Topologies {
		if !slices.Contains(SpectralTopologies, t) {
			return nil, fmt.Errorf("experiment: unknown topology %q (want %s)", t, strings.Join(SpectralTopologies, ", "))
		}
	}
	if len(cfg.Settings) == 0 {
		cfg.Settings = DefaultSpectralSettings
	}
	for _, s := range cfg.Settings {
		if s.Observed < 3 || s.States < 2 || s.Hidden < 2 || s.Approx < 1 || s.States > data.MaxStates || s.Hidden > data.MaxStates {
			return nil, fmt.Errorf("experiment: setting %v: want O ≥ 3, n ≥ 2, k ≥ 2, k′ ≥ 1", s)
		}
	}
	if len(cfg.Sizes) == 0 {
		cfg.Sizes = DefaultSpectralSizes
	}
	maxSize := 0
	for _, n := range cfg.Sizes {
		if n < 10 {
			return nil, fmt.Errorf("experiment: %d training rows: want at least 10", n)
		}
		maxSize = max(maxSize, n)
	}
	if cfg.Models <= 0 {
		cfg.Models = 10
	}
	if cfg.LargeSize < 0 || cfg.LargeModels < 0 || cfg.LongMaxSize < 0 || cfg.LongModels < 0 {
		return nil, errors.New("experiment: LargeSize, LargeModels, LongMaxSize and LongModels must not be negative")
	}
	if cfg.TestRows <= 0 {
		cfg.TestRows = 1000
	}
	if cfg.Mu == 0 {
		cfg.Mu = DefaultSpectralMu
	}
	if len(cfg.Methods) == 0 {
		cfg.Methods = SpectralMethods()
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var jobs []spectralJob
	for ti := range cfg.Topologies {
		for si := range cfg.Settings {
			for mi := 0; mi < cfg.Models; mi++ {
				for zi, n := range cfg.Sizes {
					if slices.ContainsFunc(cfg.Methods, func(m SpectralMethod) bool { return cfg.runs(m, mi, n) }) {
						jobs = append(jobs, spectralJob{ti, si, mi, zi})
					}
				}
			}
		}
	}
	// Large sizes first, so that the longest jobs do not finish last.
	slices.SortStableFunc(jobs, func(a, b spectralJob) int { return cfg.Sizes[b.size] - cfg.Sizes[a.size] })
	results := make([][]spectralResult, len(jobs))
	err := runParallel(ctx, len(jobs), workers, cfg.Progress, func(i int) (func(), error) {
		j := jobs[i]
		res, err := spectralRun(cfg, cfg.Topologies[j.topo], cfg.Settings[j.set], j.model, cfg.Sizes[j.size], maxSize)
		if err != nil {
			return nil, fmt.Errorf("experiment: %s %v model %d, %d rows: %w", cfg.Topologies[j.topo], cfg.Settings[j.set], j.model, cfg.Sizes[j.size], err)
		}
		return func() { results[i] = res }, nil
	})
	if err != nil {
		return nil, err
	}
	var rows []SpectralRow
	for ti, topo := range cfg.Topologies {
		for si, set := range cfg.Settings {
			for zi, n := range cfg.Sizes {
				for k, meth := range cfg.Methods {
					row := SpectralRow{Topology: topo, Setting: set, Samples: n, Method: meth.Name,
						ModelMedianMin: math.NaN(), ModelMedianMax: math.NaN(), TrainGap: math.NaN()}
					var pooled []float64
					gapOK := true
					for mi := 0; mi < cfg.Models; mi++ {
						i := slices.Index(jobs, spectralJob{ti, si, mi, zi})
						if i < 0 {
							continue
						}
						r := results[i][k]
						if r.skipped {
							continue
						}
						if r.err != nil {
							row.Failed++
							if row.Error == "" {
								row.Error = r.err.Error()
							}
							continue
						}
						row.Models++
						pooled = append(pooled, r.eps...)
						med := median(r.eps)
						if !(row.ModelMedianMin <= med) {
							row.ModelMedianMin = med
						}
						if !(row.ModelMedianMax >= med) {
							row.ModelMedianMax = med
						}
						row.NonPositive += float64(r.nonPos)
						row.Seconds += r.sec
						row.Iterations += float64(r.iters)
						if r.trainValid && gapOK {
							if math.IsNaN(row.TrainGap) {
								row.TrainGap = 0
							}
							row.TrainGap += r.trainGap
						} else {
							gapOK = false
						}
					}
					if row.Models > 0 {
						c := float64(row.Models)
						row.MedianErr, row.MeanErr = median(pooled), mean(pooled)
						row.NonPositive /= float64(len(pooled))
						row.Seconds /= c
						row.Iterations /= c
						if gapOK {
							row.TrainGap /= c
						} else {
							row.TrainGap = math.NaN()
						}
					} else {
						row.MedianErr, row.MeanErr, row.NonPositive, row.Seconds, row.Iterations = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
						row.TrainGap = math.NaN()
					}
					if row.Models+row.Failed > 0 {
						rows = append(rows, row)
					}
				}
			}
		}
	}
	return rows, nil
}

// runs reports whether method m runs on model index at size n.
func (cfg *SpectralConfig) runs(m SpectralMethod, index, n int) bool {
	if m.EM && cfg.LargeSize > 0 && cfg.LargeModels > 0 && n >= cfg.LargeSize && index >= cfg.LargeModels {
		return false
	}
	if m.Long && ((cfg.LongMaxSize > 0 && n > cfg.LongMaxSize) || (cfg.LongModels > 0 && index >= cfg.LongModels)) {
		return false
	}
	return true
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	h := len(s) / 2
	if len(s)%2 == 1 {
		return s[h]
	}
	return (s[h-1] + s[h]) / 2
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// spectralSeed returns the stream of a true model and one use of it
// (stream: 0 tree and parameters, 1 test rows, 2 training rows, 3+ the
// methods' randomness).
func spectralSeed(topo string, s SpectralSetting, index int, what string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d/%d/%d/%d/%s", topo, s.Observed, s.States, s.Hidden, index, what)
	return h.Sum64()
}

// spectralRun runs every method on one model and size.
func spectralRun(cfg SpectralConfig, topo string, s SpectralSetting, index, n, maxSize int) ([]spectralResult, error) {
	truth, err := SpectralModel(rand.NewPCG(cfg.Seed, spectralSeed(topo, s, index, "model")), topo, s.Observed, s.States, s.Hidden, cfg.Mu)
	if err != nil {
		return nil, err
	}
	test, err := truth.Sample(rand.NewPCG(cfg.Seed, spectralSeed(topo, s, index, "test")), cfg.TestRows)
	if err != nil {
		return nil, err
	}
	all, err := truth.Sample(rand.NewPCG(cfg.Seed, spectralSeed(topo, s, index, "train")), maxSize)
	if err != nil {
		return nil, err
	}
	train := all
	if n < maxSize {
		if train, err = all.Rows(prefix(n)); err != nil {
			return nil, err
		}
	}
	inf := model.InferOptions{Workers: 1}
	trueTest, _, err := truth.LogLikelihood(test, inf)
	if err != nil {
		return nil, err
	}
	_, trueTrain, err := truth.LogLikelihood(train, inf)
	if err != nil {
		return nil, err
	}
	out := make([]spectralResult, len(cfg.Methods))
	for k, meth := range cfg.Methods {
		if !cfg.runs(meth, index, n) {
			out[k].skipped = true
			continue
		}
		src := rand.NewPCG(cfg.Seed, spectralSeed(topo, s, index, "fit/"+strconv.Itoa(n)+"/"+meth.Name))
		t := truth.Tree.Clone()
		start := time.Now()
		score, iters, err := meth.Fit(t, train, s.Approx, src)
		sec := time.Since(start).Seconds()
		r := spectralResult{sec: sec, iters: iters}
		if err == nil {
			r, err = spectralScore(r, score, test, trueTest, train, trueTrain)
		}
		if err != nil {
			r = spectralResult{err: err}
		}
		out[k] = r
	}
	return out, nil
}

// spectralScore fills the test errors and the training gap of a fit.
func spectralScore(r spectralResult, score SpectralScorer, test *data.Dataset, trueTest []float64, train *data.Dataset, trueTrain float64) (spectralResult, error) {
	prob, ll, err := score(test)
	if err != nil {
		return r, err
	}
	if len(prob) != len(trueTest) {
		return r, fmt.Errorf("%d probabilities for %d test rows", len(prob), len(trueTest))
	}
	r.eps = make([]float64, len(prob))
	for i, p := range prob {
		// ε = |P̂/P − 1|, with the ratio from the logs where P̂ > 0.
		ratio := p / math.Exp(trueTest[i])
		if p > 0 && !math.IsNaN(ll[i]) {
			ratio = math.Exp(ll[i] - trueTest[i])
		} else {
			r.nonPos++
		}
		r.eps[i] = math.Abs(ratio - 1)
	}
	_, tl, err := score(train)
	if err != nil {
		return r, err
	}
	sum := 0.0
	r.trainValid = true
	for _, x := range tl {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			r.trainValid = false
			break
		}
		sum += x
	}
	r.trainGap = sum - trueTrain
	return r, nil
}

func prefix(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// SpectralModel draws a random discrete latent tree model for the
// experiment: a tree of the given topology (see SpectralTopologies) with
// O observed leaves of n states and hidden nodes of k states, rooted at a
// hidden node, with perturbed-identity CPTs: the row of parent state a of
// a child with s states is (e_(a mod s) + μ·u)/Σ, u uniform on [0, 1]^s,
// and the root's prior is (1 + μ·u)/Σ. With μ = 1 and s = 4 a row puts
// 0.5 on its diagonal entry on average. The draw is repeated until the
// model is well identifiable: every CPT from a hidden parent has
// σ_min/σ_max ≥ 0.1 and every hidden state has marginal probability at
// least 0.2/k.
func SpectralModel(src rand.Source, topology string, observed, n, k int, mu float64) (*discrete.Model, error) {
	if src == nil {
		return nil, errors.New("experiment: no source of randomness")
	}
	if !(mu > 0) || math.IsInf(mu, 0) {
		return nil, fmt.Errorf("experiment: perturbation μ = %g: want a positive number", mu)
	}
	rng := rand.New(src)
	for range 1000 {
		var (
			t   *tree.Tree
			err error
		)
		switch topology {
		case "hmm":
			t, err = simulate.HMM(observed - 2)
		case "random":
			t, err = simulate.RandomBinary(rng, observed, 0.2+0.6*rng.Float64())
		case "balanced":
			t, err = simulate.RandomBinary(rng, observed, 0.5)
		default:
			return nil, fmt.Errorf("experiment: unknown topology %q (want %s)", topology, strings.Join(SpectralTopologies, ", "))
		}
		if err != nil {
			return nil, err
		}
		m, err := perturbedIdentity(rng, t, n, k, mu)
		if err != nil {
			return nil, err
		}
		if identifiable(m) {
			return m, nil
		}
	}
	return nil, fmt.Errorf("experiment: no identifiable %s model with n = %d, k = %d in 1,000 draws", topology, n, k)
}

// identifiable reports whether every CPT from a hidden parent has
// σ_min/σ_max ≥ 0.1 and every hidden state marginal probability ≥ 0.2/k.
func identifiable(m *discrete.Model) bool {
	t := m.Tree
	r := m.Rooted()
	marg := m.Marginals()
	var svd mat.SVD
	for _, v := range r.Order {
		if t.IsHidden(v) {
			k := m.States[v]
			for _, p := range marg[v] {
				if p < 0.2/float64(k) {
					return false
				}
			}
		}
		if v == m.Root || !t.IsHidden(r.Parent[v]) {
			continue
		}
		kp, kv := m.States[r.Parent[v]], m.States[v]
		if !svd.Factorize(mat.NewDense(kp, kv, slices.Clone(m.CPT[v])), mat.SVDNone) {
			return false
		}
		sv := svd.Values(nil)
		if len(sv) < kp || sv[kp-1] < 0.1*sv[0] {
			return false
		}
	}
	return true
}

// WriteSpectralCSV writes the rows as CSV.
func WriteSpectralCSV(w io.Writer, rows []SpectralRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"topology", "observed", "states", "hidden", "approx", "samples", "method", "models", "failed",
		"median_err", "mean_err", "model_median_min", "model_median_max", "nonpositive", "seconds", "iterations", "train_ll_minus_true", "error"}); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, r := range rows {
		if err := cw.Write([]string{r.Topology, strconv.Itoa(r.Setting.Observed), strconv.Itoa(r.Setting.States), strconv.Itoa(r.Setting.Hidden), strconv.Itoa(r.Setting.Approx),
			strconv.Itoa(r.Samples), r.Method, strconv.Itoa(r.Models), strconv.Itoa(r.Failed),
			f(r.MedianErr), f(r.MeanErr), f(r.ModelMedianMin), f(r.ModelMedianMax), f(r.NonPositive), f(r.Seconds), f(r.Iterations), f(r.TrainGap), r.Error}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteSpectralTable writes the rows as Markdown: per topology and
// setting a table with one line per size, and per method the median ε (the
// mean in parentheses), then per method the mean training seconds, and the
// share of test rows with P̂ ≤ 0; then a table of the mean EM iterations
// and training log-likelihood minus the true model's. A method that failed
// on every model shows "error"; failures are listed at the end.
func WriteSpectralTable(w io.Writer, rows []SpectralRow) error {
	if len(rows) == 0 {
		return errors.New("experiment: no rows")
	}
	type panel struct {
		topo string
		set  SpectralSetting
	}
	var panels []panel
	var methods []string
	for _, r := range rows {
		if p := (panel{r.Topology, r.Setting}); !slices.Contains(panels, p) {
			panels = append(panels, p)
		}
		if !slices.Contains(methods, r.Method) {
			methods = append(methods, r.Method)
		}
	}
	var failures []string
	for _, p := range panels {
		fmt.Fprintf(w, "### %s %v\n\nmedian ε (mean ε) over test rows; training seconds; share of rows with P̂ ≤ 0\n\n| N |", p.topo, p.set)
		for _, m := range methods {
			fmt.Fprintf(w, " %s |", m)
		}
		for _, m := range methods {
			fmt.Fprintf(w, " s %s |", m)
		}
		fmt.Fprintf(w, " P̂≤0 |\n|--:|")
		for range 2 * len(methods) {
			fmt.Fprint(w, "--:|")
		}
		fmt.Fprint(w, ":--|\n")
		var sizes []int
		for _, r := range rows {
			if r.Topology == p.topo && r.Setting == p.set && !slices.Contains(sizes, r.Samples) {
				sizes = append(sizes, r.Samples)
			}
		}
		for _, n := range sizes {
			byMethod := map[string]SpectralRow{}
			for _, r := range rows {
				if r.Topology == p.topo && r.Setting == p.set && r.Samples == n {
					byMethod[r.Method] = r
				}
			}
			fmt.Fprintf(w, "| %d |", n)
			for _, m := range methods {
				r, ok := byMethod[m]
				switch {
				case !ok:
					fmt.Fprint(w, " |")
				case r.Models == 0:
					fmt.Fprint(w, " error |")
				default:
					fmt.Fprintf(w, " %s (%s) |", fmtErr(r.MedianErr), fmtErr(r.MeanErr))
				}
			}
			for _, m := range methods {
				r, ok := byMethod[m]
				if !ok || r.Models == 0 {
					fmt.Fprint(w, " |")
					continue
				}
				fmt.Fprintf(w, " %s |", fmtSec(r.Seconds))
			}
			var neg []string
			for _, m := range methods {
				if r, ok := byMethod[m]; ok && r.Models > 0 && r.NonPositive > 0 {
					neg = append(neg, fmt.Sprintf("%s %.1f%%", m, 100*r.NonPositive))
				}
			}
			fmt.Fprintf(w, " %s |\n", strings.Join(neg, ", "))
			for _, m := range methods {
				if r, ok := byMethod[m]; ok && r.Failed > 0 {
					failures = append(failures, fmt.Sprintf("%s %v N=%d %s: %d of %d models failed: %s", p.topo, p.set, n, m, r.Failed, r.Failed+r.Models, r.Error))
				}
			}
		}
		fmt.Fprint(w, "\nEM iterations (em-paper: summed over its 5 runs) / training log-likelihood minus the true model's (nats, mean over models; – where P̂ ≤ 0 on a training row)\n\n| N |")
		for _, m := range methods {
			fmt.Fprintf(w, " %s |", m)
		}
		fmt.Fprint(w, "\n|--:|")
		for range methods {
			fmt.Fprint(w, "--:|")
		}
		fmt.Fprintln(w)
		for _, n := range sizes {
			fmt.Fprintf(w, "| %d |", n)
			for _, m := range methods {
				i := slices.IndexFunc(rows, func(r SpectralRow) bool {
					return r.Topology == p.topo && r.Setting == p.set && r.Samples == n && r.Method == m
				})
				if i < 0 || rows[i].Models == 0 {
					fmt.Fprint(w, " |")
					continue
				}
				r := rows[i]
				gap := "–"
				if !math.IsNaN(r.TrainGap) {
					gap = strconv.FormatFloat(r.TrainGap, 'f', 0, 64)
				}
				if r.Iterations > 0 {
					fmt.Fprintf(w, " %.0f / %s |", r.Iterations, gap)
				} else {
					fmt.Fprintf(w, " %s |", gap)
				}
			}
			fmt.Fprintln(w)
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	if len(failures) > 0 {
		fmt.Fprintln(w, "Failures:")
		fmt.Fprintln(w)
		for _, f := range failures {
			fmt.Fprintf(w, "- %s\n", f)
		}
	}
	return nil
}

func fmtErr(x float64) string {
	switch {
	case math.IsNaN(x):
		return "–"
	case x >= 100:
		return strconv.FormatFloat(x, 'e', 1, 64)
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

func fmtSec(x float64) string {
	switch {
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case x >= 0.1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strconv.FormatFloat(x, 'f', 4, 64)
}

// perturbedIdentity returns a model on t with n-state observed and k-state
// hidden variables, rooted at model.DefaultRoot, whose prior is
// (1 + μ·u)/Σ and whose CPT rows are P(v = · | parent = a) =
// (e_(a mod s) + μ·u)/Σ for a child of s states, u uniform on [0, 1]^s
// drawn anew for every row.
func perturbedIdentity(rng *rand.Rand, t *tree.Tree, n, k int, mu float64) (*discrete.Model, error) {
	states := make([]int, t.MaxID())
	for _, v := range t.Nodes() {
		states[v] = n
		if t.IsHidden(v) {
			states[v] = k
		}
	}
	m, err := discrete.New(t, model.DefaultRoot(t), states)
	if err != nil {
		return nil, err
	}
	fill := func(row []float64, diag int) {
		s := 0.0
		for i := range row {
			row[i] = mu * rng.Float64()
			if i == diag || diag < 0 {
				row[i]++
			}
			s += row[i]
		}
		for i := range row {
			row[i] /= s
		}
	}
	r := m.Rooted()
	for _, v := range r.Order {
		if v == m.Root {
			fill(m.Prior, -1)
			continue
		}
		s := states[v]
		for a := 0; a < states[r.Parent[v]]; a++ {
			fill(m.CPT[v][a*s:(a+1)*s], a%s)
		}
	}
	return m, m.Validate()
}
