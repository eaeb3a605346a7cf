package learn

import (
	"errors"
	"fmt"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/stats"
)

// A Materializer is a Source that can give its rows as a Dataset
// (data.Packed): LearnSource then hands small data, or methods that need
// rows in memory, to Learn.
type Materializer interface {
	data.Source
	Dataset() (*data.Dataset, error)
}

// LearnSource is Learn for rows that are read from a data.Source on every
// pass instead of held in memory as a Dataset: a data.Packed (binary
// columns at one bit per cell) or data.Files (files re-read on every pass,
// for data larger than memory). The statistics are computed in one pass
// (stats.ComputeSource), the structure is learned from them, and the
// parameters are fitted by EM over the source (discrete.FitSource: each
// E-step is one pass, after a warm-up on samples when the source is a
// discrete.RowSampler); the score comes from EM's final pass.
//
// A *data.Dataset goes to Learn. So does a Materializer when Learn would
// search contractions by BIC (ContractAuto on data within AutoBICBudget,
// or ContractBIC/ContractAIC) or when the method needs rows in memory
// (quartet, regclnj, regclrg), or the fit options or the data do (spectral
// parameters, the spectral start, AutoStates; parameters fitted to data
// with continuous columns, Gaussian or mixed): its rows are then
// unpacked. Otherwise
// (and for any other Source) ContractAuto means the threshold rule, and methods, rules and fit
// options that need rows in memory (spectral parameters, AutoStates,
// continuous data) are errors, as is a column that looks like a row
// identifier (data.CheckIdentifiers).
func LearnSource(src data.Source, opt Options) (*Result, error) {
	start := time.Now()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if src == nil {
		return nil, errors.New("learn: no data source")
	}
	if d, ok := src.(*data.Dataset); ok {
		return Learn(d, opt)
	}
	if err := data.CheckIdentifiers(src); err != nil {
		return nil, err
	}
	m := opt.method()
	// Fit options that need the rows in memory (FitSource refuses them).
	fitNeedsRows := !opt.StructureOnly && (opt.Fit.Params == model.ParamsSpectral || opt.Fit.Init == model.InitSpectral || opt.Fit.AutoStates)
	_, canMaterialize := src.(Materializer)
	if fitNeedsRows && !canMaterialize {
		return nil, errors.New("learn: spectral parameters, the spectral start and automatic hidden states need the rows in memory; read them into a Dataset (or a data.Packed) and use Learn")
	}
	t0 := time.Now()
	st, err := stats.ComputeSource(src, opt.statsOptions())
	if err != nil {
		return nil, err
	}
	statsTime := time.Since(t0)
	if opt.StructureOnly && !m.NeedsRows() {
		// All-continuous complete data: BIC from their covariance.
		mom, rule, err := structureMoments(st, opt)
		if err != nil {
			return nil, err
		}
		if mom != nil {
			res, err := structureByBIC(st, nil, mom, rule, opt)
			if err != nil {
				return nil, err
			}
			res.Timings.Stats, res.Rows, res.Timings.Total = statsTime, int(st.Rows()), time.Since(start)
			return res, nil
		}
	}
	rule := opt.rule(!opt.StructureOnly)
	if opt.Contract.Rule == ContractAuto && rule == ContractBIC && (!canMaterialize || !opt.affordable(st.NumVars(), int(st.Rows()))) {
		rule = ContractThreshold
	}
	binned := m.UsesDistances() && opt.binned(st, opt.distanceRank(st))
	// Gaussian and mixed EM work on rows in memory.
	continuousFit := false
	for j := range st.NumVars() {
		continuousFit = continuousFit || !opt.StructureOnly && canMaterialize && st.Var(j).Kind != data.Discrete
	}
	needRows := m.NeedsRows() || m.Regularized() || rule == ContractBIC || rule == ContractAIC || fitNeedsRows || binned || continuousFit
	if needRows {
		mz, ok := src.(Materializer)
		if !ok {
			what := needWhat(m, rule)
			if binned && !m.NeedsRows() && rule != ContractBIC && rule != ContractAIC && !fitNeedsRows {
				what = fmt.Sprintf("the mixed distance of rank %d (quantile bins of the continuous columns)", opt.distanceRank(st))
			}
			return nil, fmt.Errorf("learn: %s needs the rows in memory; read them into a Dataset (or a data.Packed) and use Learn", what)
		}
		d, err := mz.Dataset()
		if err != nil {
			return nil, err
		}
		res, err := Learn(d, opt)
		if err != nil {
			return nil, err
		}
		res.Timings.Total = time.Since(start)
		return res, nil
	}
	if !opt.StructureOnly {
		for j := range st.NumVars() {
			if v := st.Var(j); v.Kind != data.Discrete {
				return nil, fmt.Errorf("learn: column %q is continuous; fitting parameters from a source needs discrete data (read the rows into a Dataset and use Learn, or learn the structure alone)", v.Name)
			}
		}
		if err := opt.Fit.Validate(false); err != nil {
			return nil, err
		}
	}
	sopt := opt
	sopt.Contract.Rule = ContractThreshold
	res, err := fromStats(st, nil, sopt)
	if err != nil {
		return nil, err
	}
	res.Timings.Stats = statsTime
	res.Rows = int(st.Rows())
	if m.Contracts() {
		res.ContractRule = rule
	}
	if !opt.StructureOnly {
		t1 := time.Now()
		dm, em, err := discrete.FitSource(res.Tree, src, st, opt.Fit)
		if err != nil {
			return nil, err
		}
		res.Model, res.EM, res.HiddenStates = dm, em, statesReport(dm, false, false)
		res.Score = dm.ScoreOf(em.LogLik, em.Rows)
		res.Timings.Fit = time.Since(t1)
	}
	res.Timings.Total = time.Since(start)
	return res, nil
}

// needWhat names what needs rows in memory.
func needWhat(m Method, rule ContractRule) string {
	if m.NeedsRows() || m.Regularized() {
		return "method " + string(m)
	}
	return "contraction by " + rule.String()
}
