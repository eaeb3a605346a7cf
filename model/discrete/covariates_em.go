package discrete

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// FitCovariates gives m a root regression on the named columns of d
// (NewRootRegression; it replaces any) and fits the model with it by EM.
// It first fits m without covariates to d's other columns (FitEM with opt:
// its starts, restarts and acceleration), then starts the regression
// there (startRegression) and runs EM on the whole model (FitEM). The
// returned run is the second's; its Starts and Replicated are those of
// the first.
func (m *Model) FitCovariates(d *data.Dataset, names []string, opt model.EMOptions) (*model.EMResult, error) {
	rest, err := splitCovariates(d, names)
	if err != nil {
		return nil, err
	}
	m.Regression, m.SE = nil, nil
	first, err := m.FitEM(rest, opt)
	if err != nil {
		return nil, err
	}
	return m.startRegression(d, names, first, opt)
}

// FitWithCovariates is model.Fit for a discrete model whose root's state
// depends on covariates, the named columns of d (continuous or
// categorical; see RootRegression): it fits the model without them to d's
// other columns, which must all be discrete, as model.Fit does (opt's
// start, restarts, AutoStates), then from there the model with the root
// regression by EM (FitEM), and puts the hidden states in canonical order.
func FitWithCovariates(t *tree.Tree, d *data.Dataset, names []string, opt model.FitOptions) (*Model, *model.EMResult, error) {
	rest, err := splitCovariates(d, names)
	if err != nil {
		return nil, nil, err
	}
	if !rest.AllDiscrete() {
		return nil, nil, errors.New("model: covariates are implemented for discrete models: the variables other than the covariates must all be discrete")
	}
	if opt.Params != model.ParamsEM {
		return nil, nil, errors.New("model: covariates need parameters by EM, not spectral ones")
	}
	mm, first, err := model.Fit(t, rest, opt)
	if err != nil {
		return nil, nil, err
	}
	m, ok := mm.(*Model)
	if !ok {
		return nil, nil, fmt.Errorf("model: covariates need a discrete model, not %T", mm)
	}
	em := opt.EM
	if em.Tol == 0 {
		em.Tol = model.DefaultTol
	}
	res, err := m.startRegression(d, names, first, em)
	if err != nil {
		return nil, nil, err
	}
	m.Canonicalize()
	return m, res, nil
}

// splitCovariates checks the covariates (names of d's columns, with no
// missing cells) and returns d without them.
func splitCovariates(d *data.Dataset, names []string) (*data.Dataset, error) {
	if d == nil {
		return nil, errors.New("model: no data")
	}
	reg, err := NewRootRegression(d, names, 1)
	if err != nil {
		return nil, err
	}
	if _, err := reg.Design(d); err != nil {
		return nil, err
	}
	var keep []int
	for j, n := range d.Names() {
		if !slices.Contains(names, n) {
			keep = append(keep, j)
		}
	}
	return d.Select(keep)
}

// startRegression gives m, fitted without covariates (first), a root
// regression on the named columns of d, whose intercepts start at the
// log-odds of the fitted prior and other coefficients at 0 (so that it
// starts at the fit without covariates), and runs EM (FitEM).
func (m *Model) startRegression(d *data.Dataset, names []string, first *model.EMResult, opt model.EMOptions) (*model.EMResult, error) {
	reg, err := NewRootRegression(d, names, m.States[m.Root])
	if err != nil {
		return nil, err
	}
	p := 1 + reg.NumTerms()
	for s := 1; s < len(m.Prior); s++ {
		reg.Beta[s*p] = math.Log(max(m.Prior[s], 1e-10) / max(m.Prior[0], 1e-10))
	}
	m.Regression, m.SE = reg, nil
	res, err := m.FitEM(d, opt)
	if err != nil {
		m.Regression = nil
		return nil, err
	}
	if first != nil {
		res.Starts, res.Replicated = first.Starts, first.Replicated
		res.Iterations += first.Iterations
	}
	return res, nil
}

// fitRegressionEM is FitEM for a model with a root regression: EM from
// the current parameters, whose E-step gives each row its own prior of the
// root and its posterior, and whose M-step sets the CPTs from the
// expected counts (with opt.Pseudo) and the coefficients by Newton's
// method on the posteriors (mstepRegression). It is accelerated by SQUAREM
// as FitEM is (opt.Accel; the coefficients extrapolated with the CPTs, an
// extrapolation kept only when it does not lower the log-likelihood), or
// plain EM with AccelNone or pseudo-counts. Of opt only MaxIter, Tol,
// Stop, Accel, Pseudo, Workers and Progress apply: there are no restarts
// and no warm-up on samples (FitCovariates starts it from a fit without
// covariates).
func (m *Model) fitRegressionEM(d *data.Dataset, opt model.EMOptions) (*model.EMResult, error) {
	t0 := time.Now()
	b, err := m.bind(d)
	if err != nil {
		return nil, err
	}
	if b.rows == 0 {
		return nil, errors.New("model: no rows to fit")
	}
	maxIter, tol := emBounds(opt)
	k := m.States[m.Root]
	m.SE = nil
	b.rootPost = make([]float64, b.rows*k)
	res := &model.EMResult{Rows: b.rows, DistinctRows: b.rows}
	l := &emLoop{e: newEngine(m), rs: b, workers: opt.Workers, pseudo: opt.Pseudo, maxIter: maxIter,
		stop: finalStopper(opt, tol), reg: &regEM{b: b, k: k},
		record: func(it int, obj float64) {
			res.Trace = append(res.Trace, obj)
			if opt.Progress != nil {
				opt.Progress(it, obj)
			}
		}}
	if opt.Accel == model.AccelNone || opt.Pseudo > 0 {
		// (With pseudo-counts the objective's log-prior would count the
		// Prior, which the coefficients set: plain EM, monotone.)
		res.Converged = l.plain()
	} else {
		res.Converged = l.squarem()
	}
	if l.err != nil {
		return nil, l.err
	}
	res.Iterations = l.it
	res.LogLik = l.e.loglik(b, opt.Workers)
	if math.IsNaN(res.LogLik) {
		return nil, fmt.Errorf("model: root regression: the log-likelihood is %g", res.LogLik)
	}
	res.Phases.Full.ESteps = res.Iterations
	res.Phases.Full.Seconds = time.Since(t0).Seconds()
	return res, nil
}

// RowPriors returns each row's prior of the root, rows × States[Root]
// row-major: the root regression's for d's covariates, or the model's
// Prior on every row without one.
func (m *Model) RowPriors(d *data.Dataset) ([]float64, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	b, err := m.bind(d)
	if err != nil {
		return nil, err
	}
	if b.rootPrior != nil {
		return b.rootPrior, nil
	}
	out := make([]float64, 0, b.rows*len(m.Prior))
	for range b.rows {
		out = append(out, m.Prior...)
	}
	return out, nil
}
