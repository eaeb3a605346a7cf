package learn

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

// LCMOptions configures the latent class method (lcm).
type LCMOptions struct {
	// MaxClasses bounds the numbers of classes tried when Fit.HiddenStates
	// is 0 (0: DefaultMaxClasses). The search runs 1, 2, ... classes and
	// stops early once two numbers in a row have not improved the best
	// BIC.
	MaxClasses int
	// Restarts is the number of random starts of each fit, every one run
	// to convergence (model.FullRestarts), the best kept (0:
	// DefaultLCMRestarts). Fit.EM.Restarts, when set, overrides it.
	Restarts int
}

// Defaults of LCMOptions.
const (
	DefaultMaxClasses  = 8
	DefaultLCMRestarts = 10
)

// LCMReport is what the lcm method did: one row per number of classes
// fitted, and the number chosen.
type LCMReport struct {
	// Classes is the number of classes of the returned model: the one of
	// smallest BIC, or Fit.HiddenStates when given.
	Classes int `json:"classes"`
	// Fits are the fits tried, by number of classes.
	Fits []LCMFit `json:"fits"`
}

// LCMFit is the fit of a latent class model with a given number of
// classes.
type LCMFit struct {
	Classes int     `json:"classes"`
	LogLik  float64 `json:"loglik"`
	Params  int     `json:"params"`
	// BIC is −2 log L + κ log n (smaller is better).
	BIC float64 `json:"bic"`
	// Starts is the number of random starts, Replicated how many of them
	// reached the best log-likelihood within 1e-3 (1 class: the
	// independence model has one optimum and no starts).
	Starts     int     `json:"starts"`
	Replicated int     `json:"replicated"`
	Seconds    float64 `json:"seconds"`
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

// lcmFitOptions are the fit options of the latent class method with k
// classes: random starts, each run to convergence.
func (o *Options) lcmFitOptions(k int) model.FitOptions {
	f := o.Fit
	f.HiddenStates, f.Init = k, model.InitRandom
	if f.EM.Restarts == 0 {
		f.EM.Restarts = o.LCM.Restarts
		if f.EM.Restarts == 0 {
			f.EM.Restarts = DefaultLCMRestarts
		}
	}
	if f.EM.RestartIter == 0 {
		f.EM.RestartIter = model.FullRestarts
	}
	if k == 1 {
		// One class is the independence model: EM from any start reaches
		// its one optimum.
		f.Init, f.EM.Restarts, f.EM.RestartIter = model.InitSurrogate, 0, 0
	}
	return f
}

// fitLCM fits the latent class model with k classes on t to d.
func fitLCM(t *tree.Tree, d *data.Dataset, fo model.FitOptions, k int) (model.Model, *model.EMResult, LCMFit, error) {
	t0 := time.Now()
	m, em, err := model.Fit(t, d, fo)
	if err != nil {
		return nil, nil, LCMFit{}, fmt.Errorf("learn: latent class model with %d classes: %w", k, err)
	}
	s := model.NewScore(em.LogLik, d.NumRows(), m.NumParams(), 1)
	f := LCMFit{Classes: k, LogLik: em.LogLik, Params: s.Params, BIC: s.BIC, Starts: len(em.Starts), Replicated: em.Replicated,
		Seconds: time.Since(t0).Seconds()}
	return m, em, f, nil
}

// lcmSearch is a search over numbers of classes.
type lcmSearch struct {
	rep   LCMReport
	model model.Model
	em    *model.EMResult
	// score is the kept fit's BIC (AIC when aic).
	score float64
}

// searchLCM fits latent class models on t with lo, lo+1, ... hi classes,
// the options of each from fo, stopping once patience numbers in a row
// have not improved the best score (BIC, or AIC when aic), and keeps the
// best.
func searchLCM(t *tree.Tree, d *data.Dataset, lo, hi, patience int, aic bool, fo func(k int) model.FitOptions) (*lcmSearch, error) {
	s := &lcmSearch{score: math.Inf(1)}
	for k, worse := lo, 0; k <= hi && worse < patience; k++ {
		m, em, f, err := fitLCM(t, d, fo(k), k)
		if err != nil {
			return nil, err
		}
		s.rep.Fits = append(s.rep.Fits, f)
		sc := f.BIC
		if aic {
			sc = -2*f.LogLik + 2*float64(f.Params)
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
	t, err := LCMTree(d.Names())
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
	if !d.AllDiscrete() {
		return nil, errors.New("learn: lcm needs discrete data (a latent profile model for continuous data is not implemented; use clnj)")
	}
	t1 := time.Now()
	lo, hi := 1, opt.LCM.MaxClasses
	if hi == 0 {
		hi = DefaultMaxClasses
	}
	if k := opt.Fit.HiddenStates; k > 0 {
		lo, hi = k, k
	}
	s, err := searchLCM(t, d, lo, hi, 2, false, opt.lcmFitOptions)
	if err != nil {
		return nil, err
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
	s, err := searchLCM(t, d, 1, DefaultMaxClasses, 1, aic, func(k int) model.FitOptions {
		f := model.FitOptions{HiddenStates: k, Init: model.InitRandom, EM: fit.EM}
		f.EM.Restarts, f.EM.RestartIter, f.EM.KeepInit, f.EM.MaxIter = compareRestarts, 0, false, compareIter
		if k == 1 {
			f.Init, f.EM.Restarts = model.InitSurrogate, 0
		}
		return f
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
	c.BIC = model.NewScore(s.em.LogLik, d.NumRows(), s.model.NumParams(), 1).BIC
	return nil
}
