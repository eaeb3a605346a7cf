package discrete

import (
	"bytes"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// init registers the discrete family with package model: model.Read reads
// its files (type "discrete") and model.Fit fits it to all-discrete data
// (Params model.ParamsEM).
func init() {
	model.Register(model.Family{
		Name: "discrete",
		Read: func(doc []byte) (model.Model, *model.Provenance, error) {
			m, prov, err := ReadJSON(bytes.NewReader(doc))
			if err != nil {
				return nil, nil, err
			}
			return m, prov, nil
		},
		Fit: fit,
	})
}

// fit is model.Fit for the discrete family: ForData, the start of
// opt.Init, FitEM, and ChooseHiddenStates when opt.AutoStates.
func fit(t *tree.Tree, d *data.Dataset, opt model.FitOptions) (model.Model, *model.EMResult, error) {
	em := opt.EM
	k := opt.HiddenStates
	if k == 0 {
		k = 2
	}
	m, err := ForData(t, d, k)
	if err != nil {
		return nil, nil, err
	}
	em.Src = seed.Or(em.Src, seed.Model)
	switch opt.Init {
	case model.InitSpectral:
		if err := m.InitSurrogate(d, 0); err != nil {
			return nil, nil, err
		}
		if t.NumHidden() > 0 { // (without hidden nodes EM needs no start)
			if err := startSpectral(m, t, d, opt, k, em.Workers); err != nil {
				return nil, nil, err
			}
		}
		em.KeepInit = true
		if em.Restarts <= 0 {
			em.Restarts = -1
		}
	case model.InitRandom:
		em.KeepInit = false
		if em.Restarts <= 0 {
			em.Restarts = 5
		}
	default:
		if err := m.InitSurrogate(d, 0); err != nil {
			return nil, nil, err
		}
		em.KeepInit = true
		if em.Restarts <= 0 {
			em.Restarts = -1
		}
	}
	res, err := m.FitEM(d, em)
	if err != nil {
		return nil, nil, err
	}
	if !opt.AutoStates {
		return m, res, nil
	}
	em.Progress = nil
	chosen, _, final, err := chooseHiddenStates(m, d, StatesOptions{EM: em, Src: em.Src})
	if err != nil {
		return nil, nil, err
	}
	return chosen, final, nil
}
