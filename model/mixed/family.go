package mixed

import (
	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// init registers the mixed family with package model: model.Read reads
// its files (type "mixed") and model.Fit fits it to data that mix
// continuous and discrete columns.
func init() {
	model.Register(model.Family{
		Name: "mixed",
		Read: func(doc []byte) (model.Model, *model.Provenance, error) {
			m, prov, err := read(doc)
			if err != nil {
				return nil, nil, err
			}
			return m, prov, nil
		},
		Fit: func(t *tree.Tree, d *data.Dataset, opt model.FitOptions) (model.Model, *model.EMResult, error) {
			m, res, err := Fit(t, d, FitOptionsOf(opt))
			if err != nil {
				return nil, nil, err
			}
			return m, res, nil
		},
	})
}

// FitOptionsOf translates the options of model.Fit into Options: the
// hidden-state count, and EM's Tol, MaxIter, Accel, Restarts (negative:
// none), RestartIter, Src, Workers and Progress.
// model.FitOptions.ValidateFor(data.Mixed) refuses the options that have
// no meaning here.
func FitOptionsOf(opt model.FitOptions) Options {
	e := opt.EM
	return Options{HiddenStates: opt.HiddenStates, MaxIter: e.MaxIter, Tol: e.Tol, Accel: e.Accel,
		Restarts: max(e.Restarts, 0), RestartIter: max(e.RestartIter, 0), Src: e.Src, Workers: e.Workers, Progress: e.Progress}
}
