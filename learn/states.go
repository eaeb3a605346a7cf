package learn

import (
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/tree"
)

// AutoStatesBudget bounds variables² × rows for which Learn chooses the
// numbers of hidden states by BIC by default (see
// Options.Fit.HiddenStates): the choice fits the tree with 2, 3, 4 and 5
// states per hidden variable and then tries a split and a merge per hidden
// variable, several times the cost of one fit.
const AutoStatesBudget = 1e7

// StatesReport says how the numbers of states of the hidden variables of
// a fitted discrete model were chosen.
type StatesReport struct {
	// Auto is true when they were chosen by BIC (Fit.AutoStates, or the
	// default on data with more than 2 states per variable); Default when
	// Learn chose that itself.
	Auto    bool `json:"auto"`
	Default bool `json:"default"`
	// Min and Max are the smallest and largest numbers of states of a
	// hidden variable.
	Min int `json:"min"`
	Max int `json:"max"`
	// Fits is the fit table of the uniform numbers of states compared
	// when the numbers were chosen by BIC (discrete data): the learned
	// tree, before any contraction, with States states at every hidden
	// variable. Uniform is the count of smallest BIC among them, the
	// start of the per-variable merges and splits (so the returned
	// model's counts may differ from it); Rule says so.
	Fits    []StatesFit `json:"fits,omitempty"`
	Uniform int         `json:"uniform,omitempty"`
	Rule    string      `json:"rule,omitempty"`
}

// StatesFit is a row of StatesReport's fit table.
type StatesFit struct {
	States int `json:"states"`
	FitCriteria
	// Screened says that EM was stopped after a screen of 150 E-steps,
	// its bound on the remaining gain showing that the count could not
	// win (discrete.UniformFit): LogLik is a lower bound of the full
	// fit's, and the criteria upper bounds.
	Screened bool `json:"screened,omitempty"`
}

// UniformRule is StatesReport.Rule.
const UniformRule = "smallest BIC among uniform counts, then per-variable merges and splits while the BIC improves"

// uniformTable is the fit table of the uniform counts and the best one.
type uniformTable struct {
	fits []StatesFit
	best int
}

// newUniformTable is the fit table of fits (discrete.UniformFits) to d.
func newUniformTable(fits []discrete.UniformFit, best int, d *data.Dataset) (*uniformTable, error) {
	u := &uniformTable{fits: make([]StatesFit, len(fits)), best: fits[best].States}
	for i, f := range fits {
		c, err := Criteria(f.Model, d, f.EM.LogLik)
		if err != nil {
			return nil, err
		}
		u.fits[i] = StatesFit{States: f.States, FitCriteria: c, Screened: f.Screened}
	}
	return u, nil
}

// set adds the table to r (nil r or u: nothing).
func (u *uniformTable) set(r *StatesReport) {
	if u == nil || r == nil {
		return
	}
	r.Fits, r.Uniform, r.Rule = u.fits, u.best, UniformRule
}

// defaultAutoStates reports whether Learn chooses the numbers of hidden
// states by BIC on d although Fit does not ask for it: parameters are
// fitted by EM from the default start with Fit.HiddenStates 0, every column is discrete, some
// has more than 2 states (with binary variables, two hidden states are the
// usual choice and the search rarely pays), the method fits a uniform
// number (not regclnj, regclrg) and variables² × rows is at most
// AutoStatesBudget.
func (o *Options) defaultAutoStates(d *data.Dataset) bool {
	f := o.Fit
	if o.StructureOnly || f.HiddenStates != 0 || f.AutoStates || f.Params != model.ParamsEM || f.Init != model.InitSurrogate || o.method().Regularized() || !d.AllDiscrete() {
		return false
	}
	wide := false
	for _, v := range d.Vars() {
		wide = wide || v.NumStates() > 2
	}
	vars := float64(d.NumVars())
	return wide && vars*vars*float64(d.NumRows()) <= AutoStatesBudget
}

// statesReport describes the hidden states of m (nil unless m is a
// discrete model with hidden variables).
func statesReport(m model.Model, auto, byDefault bool) *StatesReport {
	dm, ok := m.(*discrete.Model)
	if !ok || dm.Tree.NumHidden() == 0 {
		return nil
	}
	r := &StatesReport{Auto: auto, Default: byDefault, Min: math.MaxInt}
	for _, h := range dm.Tree.Hidden() {
		r.Min, r.Max = min(r.Min, dm.States[h]), max(r.Max, dm.States[h])
	}
	return r
}

// contractStates is contractByBIC with the Chow–Liu tree cl as baseline,
// and with fit.AutoStates on discrete data the numbers of hidden states
// are chosen around the contraction: the uncontracted tree t is fitted
// with the best uniform count (discrete.BestUniform), contracted with that
// count as contractByBIC does, and the contracted model's states are then
// merged and split per hidden variable (discrete.ChooseHiddenStates); the
// Chow–Liu tree replaces the result when its BIC is lower. So the result
// is never worse in BIC than the same search with the best uniform count
// on t, and choosing states on the smaller contracted tree costs less.
func contractStates(t *tree.Tree, d *data.Dataset, fit model.FitOptions, popt PruneOptions, progress func(evaluated, contracted int), cl *tree.Tree) (*PruneResult, *uniformTable, error) {
	if !fit.AutoStates || !d.AllDiscrete() || t.NumHidden() == 0 {
		pr, err := contractByBIC(t, d, fit, popt, progress, nil, cl)
		return pr, nil, err
	}
	fits, best, err := discrete.UniformFits(t, d, fit)
	if err != nil {
		return nil, nil, err
	}
	// The table first: the search below fits m0 further and contracts t.
	table, err := newUniformTable(fits, best, d)
	if err != nil {
		return nil, nil, err
	}
	m0, em0, k := fits[best].Model, fits[best].EM, fits[best].States
	if err := setFittedLengths(t, m0); err != nil {
		return nil, nil, err
	}
	uniform := fit
	uniform.AutoStates, uniform.HiddenStates = false, k
	pr, err := contractByBIC(t, d, uniform, popt, progress, &pruneState{m: m0, ll: em0.LogLik, em: em0})
	if err != nil {
		return nil, nil, err
	}
	if dm, ok := pr.Model.(*discrete.Model); ok && pr.Tree.NumHidden() > 0 {
		em := fit.EM
		em.Src = seed.Or(em.Src, seed.Model)
		chosen, res, _, err := discrete.ChooseHiddenStates(dm, d, discrete.StatesOptions{EM: em, Src: em.Src})
		if err != nil {
			return nil, nil, err
		}
		if b := bicOf(chosen, res.LogLik, d.SampleSize()); b < pr.BIC {
			pr.Model, pr.EM, pr.BIC = chosen, res, b
			if err := setFittedLengths(pr.Tree, chosen); err != nil {
				return nil, nil, err
			}
		}
	}
	if cl != nil {
		bt := cl.Clone()
		m, res, err := model.Fit(bt, d, uniform)
		if err != nil {
			return nil, nil, fmt.Errorf("learn: baseline tree 0: %w", err)
		}
		if b := bicOf(m, res.LogLik, d.SampleSize()); b < pr.BIC {
			if err := setFittedLengths(bt, m); err != nil {
				return nil, nil, err
			}
			pr.Tree, pr.Model, pr.EM, pr.BIC, pr.Baseline = bt, m, res, b, 0
		}
	}
	return pr, table, nil
}

// bicOf is −2 log L + κ log n.
func bicOf(m model.Model, ll float64, n float64) float64 {
	return -2*ll + float64(m.NumParams())*math.Log(n)
}

// fitAutoTable fits res.Tree to discrete d with fit.AutoStates as
// model.Fit does (discrete.FitAuto), setting res.Model and res.EM, and
// returns the fit table of the uniform counts compared.
func fitAutoTable(res *Result, d *data.Dataset, fit model.FitOptions) (*uniformTable, error) {
	if err := fit.ValidateFor(data.Discrete); err != nil {
		return nil, err
	}
	m, em, fits, best, err := discrete.FitAuto(res.Tree, d, fit)
	if err != nil {
		return nil, err
	}
	res.Model, res.EM = m, em
	if len(fits) == 0 {
		return nil, nil
	}
	return newUniformTable(fits, best, d)
}
