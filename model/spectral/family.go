package spectral

import (
	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// init registers the spectral family with package model: model.Read reads
// its files (type "spectral") and model.Fit fits it for
// FitOptions.Params model.ParamsSpectral and starts discrete EM from it
// for Init model.InitSpectral.
func init() {
	model.Register(model.Family{
		Name: "spectral",
		Read: func(doc []byte) (model.Model, *model.Provenance, error) {
			s, prov, err := read(doc)
			if err != nil {
				return nil, nil, err
			}
			return s, prov, nil
		},
		Fit: func(t *tree.Tree, d *data.Dataset, opt model.FitOptions) (model.Model, *model.EMResult, error) {
			s, err := Fit(t, d, Options{HiddenStates: opt.HiddenStates, Linker: opt.Linker, Tol: opt.SpectralTol, Workers: opt.EM.Workers})
			if err != nil {
				return nil, nil, err
			}
			return s, nil, nil
		},
	})
}
