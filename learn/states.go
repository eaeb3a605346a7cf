package learn

import (
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
)

// AutoStatesBudget bounds variables² × rows for which Learn chooses the
// numbers of hidden states by BIC by default (see
// Options.Fit.HiddenStates): the choice fits the tree with 2, 3, 4 and 5
// states per hidden variable and then tries a split and a merge per hidden
// variable, several times the cost of one fit.
const AutoStatesBudget = 1e8

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
}

// defaultAutoStates reports whether Learn chooses the numbers of hidden
// states by BIC on d although Fit does not ask for it: parameters are
// fitted by EM with Fit.HiddenStates 0, every column is discrete, some
// has more than 2 states (with binary variables, two hidden states are the
// usual choice and the search rarely pays), the method fits a uniform
// number (not regclnj, regclrg) and variables² × rows is at most
// AutoStatesBudget.
func (o *Options) defaultAutoStates(d *data.Dataset) bool {
	f := o.Fit
	if o.StructureOnly || f.HiddenStates != 0 || f.AutoStates || f.Params != model.ParamsEM || o.method().Regularized() || !d.AllDiscrete() {
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
