package learn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

// LCMOptions configures the latent class method (lcm).
type LCMOptions struct {
	// MaxClasses bounds the numbers of classes tried when Fit.HiddenStates
	// is 0. Given (> 0), every number from 1 to MaxClasses is fitted, so
	// that the fit table is complete; 0 tries up to DefaultMaxClasses and
	// stops early once two numbers in a row have not improved the best
	// BIC.
	MaxClasses int
	// Restarts is the number of random starts of each fit (0:
	// DefaultLCMRestarts); Fit.EM.Restarts, when set, overrides it. Every
	// start runs EM to convergence (Fit.EM's Accel, Stop, Tol, MaxIter,
	// Pseudo; RestartIter does not apply), the starts run in parallel and
	// the best is kept; see FitLCM.
	Restarts int
	// BLRT is the number of parametric bootstrap replicates of the
	// likelihood-ratio test of k−1 against k classes, run for every k ≥ 2
	// of the table (0: no test); see BLRT. With Fit.HiddenStates k the
	// table then also holds k−1 classes.
	BLRT int
	// BLRTStarts is the number of random starts of each of a replicate's
	// two fits (0: DefaultBLRTStarts).
	BLRTStarts int
	// BLRTFirst is the index of the first replicate (BLRTOptions.First):
	// a job array's task runs its own range, and MergeBLRT joins them.
	BLRTFirst int
	// Covariates names columns of the data that predict the class (a
	// multinomial logit of the class on them, discrete.RootRegression);
	// the other columns are the model's variables. Every fit of the table
	// then has them (its parameters count the coefficients). They do not
	// combine with BLRT.
	Covariates []string
}

// Defaults of LCMOptions.
const (
	DefaultMaxClasses  = 8
	DefaultLCMRestarts = 10
	DefaultBLRTStarts  = 5
)

// LCMReplicateTol is the distance in log-likelihood (nats) within which a
// random start counts as having reached the best one (LCMFit.Replicated).
const LCMReplicateTol = 0.01

// LCMReport is what the lcm method did: one row per number of classes
// fitted (the fit table), and the number chosen.
type LCMReport struct {
	// Classes is the number of classes of the returned model: the one of
	// smallest BIC, or Fit.HiddenStates when given.
	Classes int `json:"classes"`
	// Rule says how Classes was chosen: "smallest BIC" or "given".
	Rule string `json:"rule"`
	// Fits are the fits tried, by number of classes.
	Fits []LCMFit `json:"fits"`
}

// FitCriteria are the columns of a fit table that every fitted model
// has. With L the log-likelihood, κ the free parameters and n the rows:
//
//	AIC  = −2L + 2κ
//	BIC  = −2L + κ ln n
//	ABIC = −2L + κ ln((n + 2)/24)   (Sclove's sample-size-adjusted BIC)
//	CAIC = −2L + κ (ln n + 1)       (Bozdogan's consistent AIC)
//
// (smaller is better for all four). EntropyR2 is the entropy R² of the
// posteriors of the hidden variable (model.EntropyOf) and SmallestShare
// its smallest model-estimated state share; with several discrete hidden
// variables, the smallest of each over them (the least sharply classified
// variable, the rarest state); 1 and 1 without any.
type FitCriteria struct {
	LogLik        float64 `json:"loglik"`
	Params        int     `json:"params"`
	AIC           float64 `json:"aic"`
	BIC           float64 `json:"bic"`
	ABIC          float64 `json:"abic"`
	CAIC          float64 `json:"caic"`
	EntropyR2     float64 `json:"entropy_r2"`
	SmallestShare float64 `json:"smallest_share"`
}

// Criteria returns the FitCriteria of m, whose log-likelihood on d is ll.
func Criteria(m model.Model, d *data.Dataset, ll float64) (FitCriteria, error) {
	n := d.SampleSize()
	kp := float64(m.NumParams())
	f := FitCriteria{LogLik: ll, Params: m.NumParams(),
		AIC: -2*ll + 2*kp, BIC: -2*ll + kp*math.Log(n), ABIC: -2*ll + kp*math.Log((n+2)/24), CAIC: -2*ll + kp*(math.Log(n)+1),
		EntropyR2: 1, SmallestShare: 1}
	t := m.Structure()
	var hidden []int
	for _, h := range t.Hidden() {
		if m.NodeKind(h) == data.Discrete {
			hidden = append(hidden, h)
		}
	}
	if len(hidden) == 0 {
		return f, nil
	}
	cs, err := m.Conditionals(d, hidden, model.InferOptions{})
	if err != nil {
		return f, err
	}
	for _, c := range cs {
		if len(c.Labels) < 2 {
			continue
		}
		pe, err := model.EntropyOfWeighted(c, d.RowWeights())
		if err != nil {
			return f, err
		}
		f.EntropyR2, f.SmallestShare = min(f.EntropyR2, pe.EntropyR2), min(f.SmallestShare, slices.Min(pe.Shares))
	}
	return f, nil
}

// LCMFit is the fit of a latent class model with a given number of
// classes: a row of the fit table.
type LCMFit struct {
	Classes int `json:"classes"`
	FitCriteria
	// Starts is the number of random starts and StartLogLiks the final
	// log-likelihood of each, in the order of their seeds (1 class: the
	// independence model has one optimum and no starts). Replicated
	// counts the starts within LCMReplicateTol of the best; BestReplicated
	// says that at least two did (Mplus's "best log-likelihood
	// replicated"): when false, more starts may find a better optimum.
	Starts         int       `json:"starts"`
	StartLogLiks   []float64 `json:"start_logliks,omitempty"`
	Replicated     int       `json:"replicated"`
	BestReplicated bool      `json:"best_replicated"`
	// BLRT is the bootstrap likelihood-ratio test of Classes−1 against
	// Classes classes (LCMOptions.BLRT; nil when not run).
	BLRT    *BLRTResult `json:"blrt,omitempty"`
	Seconds float64     `json:"seconds"`
}

// NotReplicated lists the numbers of classes whose best log-likelihood was
// reached by only one of several random starts.
func (r *LCMReport) NotReplicated() []int {
	var out []int
	for _, f := range r.Fits {
		if f.Starts > 1 && !f.BestReplicated {
			out = append(out, f.Classes)
		}
	}
	return out
}

// LCMTree returns the tree of a latent class model over the named
// observed variables: one hidden node h1 joined to every one of them.
func LCMTree(names []string) (*tree.Tree, error) {
	if len(names) == 0 {
		return nil, errors.New("learn: a latent class model needs observed variables")
	}
	t := tree.New()
	h := t.AddHidden()
	for _, n := range names {
		x, err := t.AddObserved(n)
		if err != nil {
			return nil, err
		}
		if err := t.AddEdge(h, x, 1); err != nil {
			return nil, err
		}
	}
	t.AutoNameHidden("h")
	return t, nil
}

// LCMFitOptions configures FitLCM.
type LCMFitOptions struct {
	// Starts is the number of random starts (0: DefaultLCMRestarts); one
	// class has one optimum and is fitted from one start.
	Starts int
	// Seed seeds the starts: start s (0, 1, ...) draws its parameters
	// from rand.NewPCG(Seed, s) (discrete.Model.Randomize), so that the
	// result does not depend on Workers.
	Seed uint64
	// EM runs each start to convergence: its Accel, Stop, Tol, MaxIter
	// and Pseudo apply (Restarts, RestartIter, KeepInit, Sample, Src and
	// Progress do not).
	EM model.EMOptions
	// Workers bounds the goroutines (0: EM.Workers, then GOMAXPROCS): the
	// starts run in parallel, each E-step on the goroutines left over.
	Workers int
	// Covariates names columns of d that predict the class: each start
	// is then fitted without them and from there with the root
	// regression on them (discrete.Model.FitCovariates); the model's
	// variables are d's other columns.
	Covariates []string
}

// FitLCM fits the latent class model with k classes (LCMTree over d's
// columns) to the discrete data d from opt.Starts random starts, each run
// to convergence, and returns the fit of the highest log-likelihood (the
// first of ties), its EM run (Starts: every start's final
// log-likelihood) and every start's final log-likelihood, in the order of
// the starts. The model's classes are in canonical order
// (discrete.Model.Canonicalize: by decreasing share).
func FitLCM(d *data.Dataset, k int, opt LCMFitOptions) (*discrete.Model, *model.EMResult, []float64, error) {
	if d == nil {
		return nil, nil, nil, errors.New("learn: no data")
	}
	t, err := LCMTree(withoutCovariates(d.Names(), opt.Covariates))
	if err != nil {
		return nil, nil, nil, err
	}
	m, em, lls, err := fitLCMStarts(t, d, k, opt)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("learn: latent class model with %d classes: %w", k, err)
	}
	return m, em, lls, nil
}

// fitLCMStarts is FitLCM on the latent class tree t.
func fitLCMStarts(t *tree.Tree, d *data.Dataset, k int, opt LCMFitOptions) (*discrete.Model, *model.EMResult, []float64, error) {
	if d == nil || !itemsDiscrete(d, opt.Covariates) {
		return nil, nil, nil, errors.New("discrete data needed")
	}
	if k < 1 {
		return nil, nil, nil, errors.New("at least 1 class needed")
	}
	starts := opt.Starts
	if starts <= 0 {
		starts = DefaultLCMRestarts
	}
	if k == 1 {
		starts = 1
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = opt.EM.Workers
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	outer := min(workers, starts)
	em := opt.EM
	em.Restarts, em.RestartIter, em.KeepInit, em.Sample, em.Src, em.Progress = -1, 0, false, -1, nil, nil
	em.Workers = max(1, workers/outer)
	models := make([]*discrete.Model, starts)
	results := make([]*model.EMResult, starts)
	errs := make([]error, starts)
	parallel.For(outer, starts, func(_, s int) {
		m, err := discrete.ForData(t, d, k)
		if err != nil {
			errs[s] = err
			return
		}
		m.Randomize(rand.NewPCG(opt.Seed, uint64(s)))
		var res *model.EMResult
		if len(opt.Covariates) > 0 {
			res, err = m.FitCovariates(d, opt.Covariates, em)
		} else {
			res, err = m.FitEM(d, em)
		}
		models[s], results[s], errs[s] = m, res, err
	})
	lls := make([]float64, starts)
	best := 0
	for s := range starts {
		if errs[s] != nil {
			return nil, nil, nil, fmt.Errorf("start %d: %w", s+1, errs[s])
		}
		lls[s] = results[s].LogLik
		if lls[s] > lls[best] {
			best = s
		}
	}
	res := results[best]
	models[best].Canonicalize()
	if k > 1 {
		res.Starts = append([]float64(nil), lls...)
	}
	return models[best], res, lls, nil
}

// withoutCovariates returns names without the covariates.
func withoutCovariates(names, cov []string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(cov, n) })
}

// itemsDiscrete reports whether d's columns other than the covariates
// are all discrete.
func itemsDiscrete(d *data.Dataset, cov []string) bool {
	for j := 0; j < d.NumVars(); j++ {
		if v := d.Var(j); v.Kind != data.Discrete && !slices.Contains(cov, v.Name) {
			return false
		}
	}
	return true
}

// lcmRow is the fit table's row of the fit m (em) with k classes to d;
// lls are its starts' final log-likelihoods (nil: no random starts).
func lcmRow(m model.Model, em *model.EMResult, d *data.Dataset, k int, lls []float64) (LCMFit, error) {
	c, err := Criteria(m, d, em.LogLik)
	if err != nil {
		return LCMFit{}, err
	}
	f := LCMFit{Classes: k, FitCriteria: c}
	if len(lls) > 1 {
		best := slices.Max(lls)
		f.Starts, f.StartLogLiks = len(lls), lls
		for _, l := range lls {
			if l >= best-LCMReplicateTol {
				f.Replicated++
			}
		}
		f.BestReplicated = f.Replicated >= 2
	}
	return f, nil
}

// lcmSearch is a search over numbers of classes.
type lcmSearch struct {
	rep LCMReport
	// models are the fits by number of classes.
	models map[int]model.Model
	ems    map[int]*model.EMResult
	model  model.Model
	em     *model.EMResult
	// score is the kept fit's BIC (AIC when aic).
	score float64
}

// searchLCM fits latent class models on t with lo, lo+1, ... hi classes
// by fit, stopping once patience numbers in a row have not improved the
// best score (BIC, or AIC when aic; patience 0: never), and keeps the
// best.
func searchLCM(d *data.Dataset, lo, hi, patience int, aic bool, fit func(k int) (model.Model, *model.EMResult, []float64, error)) (*lcmSearch, error) {
	s := &lcmSearch{score: math.Inf(1), models: map[int]model.Model{}, ems: map[int]*model.EMResult{}}
	s.rep.Rule = "smallest BIC"
	if aic {
		s.rep.Rule = "smallest AIC"
	}
	for k, worse := lo, 0; k <= hi && (patience == 0 || worse < patience); k++ {
		t0 := time.Now()
		m, em, lls, err := fit(k)
		if err != nil {
			return nil, fmt.Errorf("learn: latent class model with %d classes: %w", k, err)
		}
		f, err := lcmRow(m, em, d, k, lls)
		if err != nil {
			return nil, err
		}
		f.Seconds = time.Since(t0).Seconds()
		s.rep.Fits = append(s.rep.Fits, f)
		s.models[k], s.ems[k] = m, em
		sc := f.BIC
		if aic {
			sc = f.AIC
		}
		if sc < s.score {
			s.score, worse = sc, 0
			s.model, s.em, s.rep.Classes = m, em, k
		} else {
			worse++
		}
	}
	return s, nil
}

// learnLCM is Learn for the lcm method.
func learnLCM(d *data.Dataset, opt Options, start time.Time) (*Result, error) {
	cov := opt.LCM.Covariates
	t, err := LCMTree(withoutCovariates(d.Names(), cov))
	if err != nil {
		return nil, err
	}
	res := &Result{Method: LCM, Tree: t, Rows: d.NumRows(),
		Report: &structure.Report{Method: structure.Method(LCM), Observed: t.NumObserved(), Hidden: 1, Added: 1}}
	res.Timings.Structure = time.Since(start)
	if opt.StructureOnly {
		res.Timings.Total = res.Timings.Structure
		return res, nil
	}
	if !itemsDiscrete(d, cov) {
		return nil, errors.New("learn: lcm needs discrete data (a latent profile model for continuous data is not implemented; use clnj)")
	}
	if len(cov) > 0 && opt.LCM.BLRT > 0 {
		return nil, errors.New("learn: the bootstrap likelihood-ratio test (BLRT) with covariates is not implemented")
	}
	t1 := time.Now()
	lo, hi, patience := 1, opt.LCM.MaxClasses, 0
	if hi == 0 {
		hi, patience = DefaultMaxClasses, 2
	}
	given := opt.Fit.HiddenStates
	if given > 0 {
		lo, hi = given, given
		if opt.LCM.BLRT > 0 && given > 1 {
			lo = given - 1
		}
	}
	starts := opt.Fit.EM.Restarts
	if starts <= 0 {
		starts = opt.LCM.Restarts
	}
	workers := opt.Fit.EM.Workers
	if workers == 0 {
		workers = opt.Workers
	}
	rng := seed.Rand(opt.Fit.EM.Src, seed.Model)
	blrtSeeds := map[int]uint64{}
	s, err := searchLCM(d, lo, hi, patience, false, func(k int) (model.Model, *model.EMResult, []float64, error) {
		sk, sb := rng.Uint64(), rng.Uint64()
		blrtSeeds[k] = sb
		m, em, lls, err := fitLCMStarts(t, d, k, LCMFitOptions{Starts: starts, Seed: sk, EM: opt.Fit.EM, Workers: workers, Covariates: cov})
		if err != nil {
			return nil, nil, nil, err
		}
		if k == 1 {
			lls = nil
		}
		return m, em, lls, nil
	})
	if err != nil {
		return nil, err
	}
	if given > 0 {
		s.rep.Rule = "given"
		s.model, s.em, s.rep.Classes = s.models[given], s.ems[given], given
	}
	if opt.LCM.BLRT > 0 {
		for i := range s.rep.Fits {
			f := &s.rep.Fits[i]
			null, ok := s.models[f.Classes-1].(*discrete.Model)
			if !ok {
				continue
			}
			alt := s.rep.Fits[i-1]
			f.BLRT, err = BLRT(d, null, f.Classes, 2*(f.LogLik-alt.LogLik), BLRTOptions{Replicates: opt.LCM.BLRT, Starts: opt.LCM.BLRTStarts,
				Seed: blrtSeeds[f.Classes], First: opt.LCM.BLRTFirst, EM: opt.Fit.EM, Workers: workers})
			if err != nil {
				return nil, err
			}
		}
	}
	res.Model, res.EM, res.LCM = s.model, s.em, &s.rep
	if err := setFittedLengths(t, s.model); err != nil {
		return nil, err
	}
	if res.Score, err = res.Model.Score(d, model.InferOptions{}); err != nil {
		return nil, err
	}
	res.Timings.Fit = time.Since(t1)
	res.Timings.Total = time.Since(start)
	return res, nil
}

// compareRestarts is the number of random starts of each latent class
// fit that a contraction by BIC compares its tree with (10-iteration
// screens), and compareIter bounds the E-steps of the best start's run;
// the latent class model kept, if any, then runs EM to convergence. The
// bound keeps the comparison's cost at a few hundred E-steps of a star
// (unbounded, on the 20 Newsgroups data the overfitted numbers of
// classes ran EM for thousands of E-steps each, minutes in all).
const (
	compareRestarts = 5
	compareIter     = 60
)

// CompareLCMBudget bounds variables × rows for which the contraction by
// BIC (or AIC) also compares its tree with latent class models. The
// classic latent class data sets (questionnaires, roll calls, test items:
// tens of variables, thousands of rows) are well inside it; on the 20
// Newsgroups data (100 × 8,121) the comparison's fits of 1 to 8 classes
// took several times as long as the contraction search itself and lost to
// the tree by 2,000 in BIC.
const CompareLCMBudget = 2e5

// compareLCM fits the best latent class model by the contraction's
// score (BIC or AIC) for Learn's comparison, with screened restarts; it
// stops at the first number of classes that does not improve on the one
// before.
func compareLCM(d *data.Dataset, fit model.FitOptions, aic bool) (*tree.Tree, *lcmSearch, error) {
	t, err := LCMTree(d.Names())
	if err != nil {
		return nil, nil, err
	}
	s, err := searchLCM(d, 1, DefaultMaxClasses, 1, aic, func(k int) (model.Model, *model.EMResult, []float64, error) {
		f := model.FitOptions{HiddenStates: k, Init: model.InitRandom, EM: fit.EM}
		f.EM.Restarts, f.EM.RestartIter, f.EM.KeepInit, f.EM.MaxIter = compareRestarts, 0, false, compareIter
		if k == 1 {
			f.Init, f.EM.Restarts = model.InitSurrogate, 0
		}
		m, em, err := model.Fit(t, d, f)
		return m, em, nil, err
	})
	if err != nil {
		return nil, nil, err
	}
	if err := setFittedLengths(t, s.model); err != nil {
		return nil, nil, err
	}
	return t, s, nil
}

// keepLCM compares res (the contraction's result) with the best latent
// class model by the same score and keeps the better one.
func keepLCM(res *Result, d *data.Dataset, fit model.FitOptions, aic bool) error {
	c := res.Contraction
	cur := c.BIC
	if aic {
		cur = -2*res.EM.LogLik + 2*float64(res.Model.NumParams())
	}
	t, s, err := compareLCM(d, fit, aic)
	if err != nil {
		return err
	}
	c.LCM = &s.rep
	if s.score >= cur {
		return nil
	}
	if dm, ok := s.model.(*discrete.Model); ok {
		// Run the kept model to convergence (EM does not lower its score).
		em := fit.EM
		em.Restarts, em.KeepInit, em.Sample = -1, false, -1
		r, err := dm.FitEM(d, em)
		if err != nil {
			return err
		}
		s.em.LogLik, s.em.Iterations, s.em.Converged, s.em.Trace = r.LogLik, s.em.Iterations+r.Iterations, r.Converged, append(s.em.Trace, r.Trace...)
		if err := setFittedLengths(t, dm); err != nil {
			return err
		}
	}
	res.Tree, res.Model, res.EM = t, s.model, s.em
	c.Kept, c.ChowLiu = "lcm", false
	c.BIC = model.ScoreOf(s.em.LogLik, d, s.model.NumParams(), 1).BIC
	return nil
}
