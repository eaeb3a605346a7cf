package mixed

import (
	"math"

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
			if opt.AutoStates {
				m, res, _, err := FitBestStates(t, d, opt)
				if err != nil {
					return nil, nil, err
				}
				return m, res, nil
			}
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

// AutoStatesRange are the numbers of states FitBestStates gives every
// discrete hidden node in turn.
var AutoStatesRange = [...]int{2, 3, 4, 5}

// FitBestStates fits the tree with each number of states of
// AutoStatesRange (and opt.HiddenStates when outside it) for every
// discrete hidden node, and returns the fit of the lowest BIC (−2 log L +
// κ log n; ties to fewer states) and that number (model.Fit with
// FitOptions.AutoStates on mixed data). Unlike the discrete family's
// choice it does not refine the count node by node: it costs one fit per
// count. A tree without discrete hidden nodes is fitted once.
func FitBestStates(t *tree.Tree, d *data.Dataset, opt model.FitOptions) (*Model, *model.EMResult, int, error) {
	ks := AutoStatesRange[:]
	if k := opt.HiddenStates; k > 0 && (k < ks[0] || k > ks[len(ks)-1]) {
		ks = append(append([]int(nil), ks...), k)
	}
	logN := math.Log(d.SampleSize())
	var (
		best    *Model
		bestRes *model.EMResult
		bestK   int
		bestBIC = math.Inf(1)
	)
	for _, k := range ks {
		o := FitOptionsOf(opt)
		o.HiddenStates = k
		m, res, err := Fit(t, d, o)
		if err != nil {
			return nil, nil, 0, err
		}
		if bic := -2*res.LogLik + float64(m.NumParams())*logN; bic < bestBIC || best == nil {
			best, bestRes, bestK, bestBIC = m, res, k, bic
		}
		discreteHidden := false
		for _, h := range t.Hidden() {
			discreteHidden = discreteHidden || m.Kinds[h] == data.Discrete
		}
		if !discreteHidden {
			break
		}
	}
	return best, bestRes, bestK, nil
}
