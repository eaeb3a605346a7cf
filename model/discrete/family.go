package discrete

import (
	"bytes"
	"math"

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
// opt.Init and FitEM, or fitAuto when opt.AutoStates.
func fit(t *tree.Tree, d *data.Dataset, opt model.FitOptions) (model.Model, *model.EMResult, error) {
	if opt.AutoStates {
		return fitAuto(t, d, opt)
	}
	k := opt.HiddenStates
	if k == 0 {
		k = 2
	}
	return fitUniform(t, d, opt, k)
}

// fitAuto chooses the numbers of hidden states: it fits the model with
// every uniform number of states from 2 to DefaultUniformMax (and
// opt.HiddenStates when outside that range), each as model.Fit would,
// keeps the one with the lowest BIC and refines it node by node by
// chooseHiddenStates. The result's BIC is never above that of the best
// uniform count. A tree without hidden nodes is fitted once.
func fitAuto(t *tree.Tree, d *data.Dataset, opt model.FitOptions) (*Model, *model.EMResult, error) {
	if t.NumHidden() == 0 {
		return fitUniform(t, d, opt, 2)
	}
	counts := []int{2, 3, 4, 5}
	if k := opt.HiddenStates; k > 0 && (k < 2 || k > DefaultUniformMax) {
		counts = append(counts, k)
	}
	quiet := opt
	quiet.EM.Progress = nil
	var (
		best    *Model
		bestRes *model.EMResult
		bestBIC = math.Inf(1)
	)
	for _, k := range counts {
		m, res, err := fitUniform(t, d, quiet, k)
		if err != nil {
			return nil, nil, err
		}
		if b := bicOf(m, res.LogLik, d.NumRows()); b < bestBIC {
			best, bestRes, bestBIC = m, res, b
		}
	}
	em := opt.EM
	em.Src = seed.Or(em.Src, seed.Model)
	chosen, _, final, err := chooseHiddenStates(best, d, StatesOptions{EM: em, Src: em.Src})
	if err != nil {
		return nil, nil, err
	}
	if bicOf(chosen, final.LogLik, d.NumRows()) > bestBIC {
		// (EM from the kept moves only raises the likelihood; this guards
		// the promise against round-off.)
		return best, bestRes, nil
	}
	return chosen, final, nil
}

// fitUniform is model.Fit with k states per hidden node: ForData, the
// start of opt.Init and FitEM.
func fitUniform(t *tree.Tree, d *data.Dataset, opt model.FitOptions, k int) (*Model, *model.EMResult, error) {
	em := opt.EM
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
	return m, res, nil
}
