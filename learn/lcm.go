package learn

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
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
func fitLCM(t *tree.Tree, d *data.Dataset, opt *Options, k int) (model.Model, *model.EMResult, LCMFit, error) {
	t0 := time.Now()
	fo := opt.lcmFitOptions(k)
	m, em, err := model.Fit(t, d, fo)
	if err != nil {
		return nil, nil, LCMFit{}, fmt.Errorf("learn: latent class model with %d classes: %w", k, err)
	}
	n := d.NumRows()
	s := model.NewScore(em.LogLik, n, m.NumParams(), 1)
	f := LCMFit{Classes: k, LogLik: em.LogLik, Params: s.Params, BIC: s.BIC, Starts: len(em.Starts), Replicated: em.Replicated,
		Seconds: time.Since(t0).Seconds()}
	return m, em, f, nil
}

// learnLCM is Learn for the lcm method.
func learnLCM(d *data.Dataset, opt Options, start time.Time) (*Result, error) {
	if !d.AllDiscrete() {
		return nil, errors.New("learn: lcm needs discrete data (a latent profile model for continuous data is not implemented; use clnj)")
	}
	t, err := LCMTree(d.Names())
	if err != nil {
		return nil, err
	}
	res := &Result{Method: LCM, Tree: t, Rows: d.NumRows(), LCM: &LCMReport{},
		Report: &structure.Report{Method: structure.Method(LCM), Observed: t.NumObserved(), Hidden: 1, Added: 1}}
	res.Timings.Structure = time.Since(start)
	t1 := time.Now()
	lo, hi := 1, opt.LCM.MaxClasses
	if hi == 0 {
		hi = DefaultMaxClasses
	}
	if k := opt.Fit.HiddenStates; k > 0 {
		lo, hi = k, k
	}
	best, worse := math.Inf(1), 0
	for k := lo; k <= hi && worse < 2; k++ {
		m, em, f, err := fitLCM(t, d, &opt, k)
		if err != nil {
			return nil, err
		}
		res.LCM.Fits = append(res.LCM.Fits, f)
		if f.BIC < best {
			best, worse = f.BIC, 0
			res.Model, res.EM, res.LCM.Classes = m, em, k
		} else {
			worse++
		}
	}
	if res.Score, err = res.Model.Score(d, model.InferOptions{}); err != nil {
		return nil, err
	}
	res.Timings.Fit = time.Since(t1)
	res.Timings.Total = time.Since(start)
	return res, nil
}
