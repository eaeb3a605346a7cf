package discrete

import (
	"bytes"
	"errors"
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
// The fitted model's hidden states are put in canonical order
// (Canonicalize).
func fit(t *tree.Tree, d *data.Dataset, opt model.FitOptions) (model.Model, *model.EMResult, error) {
	var (
		m   *Model
		res *model.EMResult
		err error
	)
	if opt.AutoStates {
		m, res, err = fitAuto(t, d, opt)
	} else {
		k := opt.HiddenStates
		if k == 0 {
			k = 2
		}
		m, res, err = fitUniform(t, d, opt, k)
	}
	if err != nil {
		return nil, nil, err
	}
	m.Canonicalize()
	return m, res, nil
}

// fitAuto chooses the numbers of hidden states: it fits the model with
// every uniform number of states from 2 to DefaultUniformMax (and
// opt.HiddenStates when outside that range), each as model.Fit would,
// keeps the one with the lowest BIC and refines it node by node by
// chooseHiddenStates. The result's BIC is never above that of the best
// uniform count. A tree without hidden nodes is fitted once.
func fitAuto(t *tree.Tree, d *data.Dataset, opt model.FitOptions) (*Model, *model.EMResult, error) {
	m, res, _, _, err := FitAuto(t, d, opt)
	return m, res, err
}

// FitAuto is model.Fit with opt.AutoStates on discrete data (see
// model.FitOptions.AutoStates) that also returns the fits of every uniform
// number of states it compared and the index of the best (UniformFits;
// nil for a tree without hidden nodes). The returned model's hidden
// states are in canonical order (Canonicalize), the table's models as
// fitted.
func FitAuto(t *tree.Tree, d *data.Dataset, opt model.FitOptions) (*Model, *model.EMResult, []UniformFit, int, error) {
	if t.NumHidden() == 0 {
		m, res, err := fitUniform(t, d, opt, 2)
		return m, res, nil, 0, err
	}
	fits, i, err := UniformFits(t, d, opt)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	best, bestRes := fits[i].Model, fits[i].EM
	bestBIC := bicOf(best, bestRes.LogLik, d.SampleSize())
	em := opt.EM
	em.Src = seed.Or(em.Src, seed.Model)
	chosen, _, final, err := chooseHiddenStates(best, d, StatesOptions{EM: em, Src: em.Src})
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if bicOf(chosen, final.LogLik, d.SampleSize()) > bestBIC {
		// (EM from the kept moves only raises the likelihood; this guards
		// the promise against round-off.)
		best.Canonicalize()
		return best, bestRes, fits, i, nil
	}
	chosen.Canonicalize()
	return chosen, final, fits, i, nil
}

// screenIter is the number of E-steps after which BestUniform screens a
// uniform count whose fit has not converged.
const screenIter = 150

// BestUniform fits t to d with every uniform number of hidden states from
// 2 to DefaultUniformMax (and opt.HiddenStates when outside that range),
// each as model.Fit with opt (AutoStates aside) would, and returns the fit
// with the lowest BIC, its EM run and its number of states. EM's Progress
// is not called.
//
// To save time every count is first fitted for at most 150 E-steps (the
// start of the full fit: a fit that converges by then is the full fit).
// A count whose fit has not converged is fitted in full only when its BIC
// minus twice StopAuto's bound on its remaining gain (1000 times the gain
// of its last SQUAREM cycle) is below the best BIC so far; slowly
// converging fits with many states, often far behind, are thus skipped.
func BestUniform(t *tree.Tree, d *data.Dataset, opt model.FitOptions) (*Model, *model.EMResult, int, error) {
	fits, i, err := UniformFits(t, d, opt)
	if err != nil {
		return nil, nil, 0, err
	}
	return fits[i].Model, fits[i].EM, fits[i].States, nil
}

// UniformFit is the fit of one uniform number of hidden states that
// UniformFits compared.
type UniformFit struct {
	States int
	Model  *Model
	EM     *model.EMResult
	// Screened says that the fit stopped after the screen's E-steps
	// without converging and was not fitted in full, its bound on the
	// remaining gain showing that it could not have the lowest BIC: its
	// log-likelihood is a lower bound of the full fit's.
	Screened bool
}

// UniformFits is BestUniform that returns the fit of every number of
// states it tried, in the order tried (increasing, then opt.HiddenStates
// when outside 2 to DefaultUniformMax), and the index of the best.
func UniformFits(t *tree.Tree, d *data.Dataset, opt model.FitOptions) ([]UniformFit, int, error) {
	counts := make([]int, 0, DefaultUniformMax)
	for k := 2; k <= DefaultUniformMax; k++ {
		counts = append(counts, k)
	}
	if k := opt.HiddenStates; k > 0 && (k < 2 || k > DefaultUniformMax) {
		counts = append(counts, k)
	}
	opt.EM.Progress, opt.AutoStates = nil, false
	maxIter := opt.EM.MaxIter
	if maxIter == 0 {
		maxIter = model.DefaultMaxIter
	}
	screen := opt
	screen.EM.MaxIter = min(maxIter, screenIter)
	n := d.SampleSize()
	var (
		fits    []UniformFit
		best    = -1
		bestBIC = math.Inf(1)
	)
	type pending struct {
		i     int
		lower float64
	}
	var open []pending
	for _, k := range counts {
		m, res, err := fitUniform(t, d, screen, k)
		if err != nil {
			return nil, 0, err
		}
		fits = append(fits, UniformFit{States: k, Model: m, EM: res})
		b := bicOf(m, res.LogLik, n)
		if !res.Converged && screen.EM.MaxIter < maxIter {
			tr := res.Trace
			gain := 0.0
			if len(tr) > 0 {
				gain = math.Max(tr[len(tr)-1]-tr[max(len(tr)-4, 0)], 0)
			}
			open = append(open, pending{len(fits) - 1, b - 2*1000*gain})
			fits[len(fits)-1].Screened = true
			continue
		}
		if b < bestBIC {
			best, bestBIC = len(fits)-1, b
		}
	}
	// The most promising first: a full fit that wins screens out more.
	for i := 1; i < len(open); i++ {
		for j := i; j > 0 && open[j].lower < open[j-1].lower; j-- {
			open[j], open[j-1] = open[j-1], open[j]
		}
	}
	for _, p := range open {
		if p.lower >= bestBIC {
			continue
		}
		m, res, err := fitUniform(t, d, opt, fits[p.i].States)
		if err != nil {
			return nil, 0, err
		}
		fits[p.i] = UniformFit{States: fits[p.i].States, Model: m, EM: res}
		if b := bicOf(m, res.LogLik, n); b < bestBIC {
			best, bestBIC = p.i, b
		}
	}
	if best < 0 {
		// Every count screened out against +Inf cannot happen (a bound
		// below +Inf is always refitted); keep the promise regardless.
		return nil, 0, errors.New("model: no uniform number of hidden states could be fitted")
	}
	return fits, best, nil
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
