package gaussian

import (
	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// init registers the Gaussian family with package model: model.Read reads
// its files (type "gaussian") and model.Fit fits it to all-continuous
// data.
func init() {
	model.Register(model.Family{
		Name: "gaussian",
		Read: func(doc []byte) (model.Model, *model.Provenance, error) {
			g, prov, err := read(doc)
			if err != nil {
				return nil, nil, err
			}
			return g, prov, nil
		},
		Fit: func(t *tree.Tree, d *data.Dataset, opt model.FitOptions) (model.Model, *model.EMResult, error) {
			g, res, err := Fit(t, d, Options{MaxIter: opt.EM.MaxIter, Tol: opt.EM.Tol, Accel: opt.EM.Accel, Stop: opt.EM.Stop, Progress: opt.EM.Progress})
			if err != nil {
				return nil, nil, err
			}
			return g, res, nil
		},
	})
}
