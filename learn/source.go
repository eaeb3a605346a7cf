package learn

import (
	"errors"
	"fmt"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/mixed"
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
// discrete.RowSampler; on data that mix continuous and discrete columns,
// mixed.FitSource, after mixed.Repair as in Learn); the score comes from
// EM's final pass.
//
// A *data.Dataset goes to Learn. So does a Materializer when Learn would
// search contractions by BIC (ContractAuto on data within AutoBICBudget,
// MixedBICBudget on mixed data, or ContractBIC/ContractAIC) or when the
// method needs rows in memory (quartet, regclnj, regclrg, lcm), or the fit
// options or the data do (spectral parameters, the spectral start,
// AutoStates; the mixed distance of rank above 2; parameters fitted to
// all-continuous data, Gaussian): its rows are then unpacked. Otherwise
// (and for any other Source) ContractAuto means the threshold rule, and
// methods, rules and fit options that need rows in memory (those above)
// are errors, as is a column that looks like a row identifier
// (data.CheckIdentifiers).
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
	disc, cont := hasKinds(st)
	mixedData := disc && cont
	if mixedData && !opt.StructureOnly && (m.Regularized() || m == LCM) {
		vars := make([]data.Variable, st.NumVars())
		for j := range vars {
			vars[j] = st.Var(j)
		}
		return nil, mixedKinds(m, vars, src)
	}
	if opt.Contract.Rule == ContractAuto && rule == ContractBIC && (!canMaterialize || !opt.affordableKind(st.NumVars(), int(st.Rows()), mixedData)) {
		rule = ContractThreshold
	}
	binned := m.UsesDistances() && opt.binned(st, opt.distanceRank(st))
	// Gaussian EM works on rows in memory (mixed EM reads the source).
	continuousFit := !opt.StructureOnly && canMaterialize && cont && !disc
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
		if cont && !disc {
			v := st.Var(0)
			return nil, fmt.Errorf("learn: column %q is continuous; fitting parameters from a source needs discrete or mixed data (read the rows into a Dataset and use Learn, or learn the structure alone)", v.Name)
		}
		validate := func() error { return opt.Fit.Validate(false) }
		if mixedData {
			validate = func() error { return opt.Fit.ValidateFor(data.Mixed) }
		}
		if err := validate(); err != nil {
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
	if !opt.StructureOnly && mixedData {
		t1 := time.Now()
		if err := fitMixedSource(res, src, st, opt); err != nil {
			return nil, err
		}
		res.Timings.Fit = time.Since(t1)
	} else if !opt.StructureOnly {
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

// fitMixedSource fits a conditional-Gaussian model to the tree of res by
// EM over the source (mixed.FitSource), after hanging the continuous
// variables the learner put between discrete ones under new discrete
// hidden nodes (mixed.Repair), as Learn does.
func fitMixedSource(res *Result, src data.Source, st *stats.Stats, opt Options) error {
	vars := make([]data.Variable, st.NumVars())
	kinds := make(map[string]data.Kind, len(vars))
	for j := range vars {
		vars[j] = st.Var(j)
		kinds[vars[j].Name] = vars[j].Kind
	}
	repaired, err := mixed.Repair(res.Tree, func(name string) (data.Kind, bool) {
		k, ok := kinds[name]
		return k, ok
	})
	if err != nil {
		return err
	}
	res.Tree.AutoNameHidden("h")
	res.Report.Hidden = res.Tree.NumHidden()
	mm, em, err := mixed.FitSource(res.Tree, src, mixed.FitOptionsOf(opt.Fit))
	if err != nil {
		return err
	}
	res.Model, res.EM = mm, em
	res.Score = model.NewScore(em.LogLik, em.Rows, mm.NumParams(), mm.Tree.NumHidden())
	res.Mixed, err = mixedReport(mm, vars, src, repaired, false)
	return err
}

// needWhat names what needs rows in memory.
func needWhat(m Method, rule ContractRule) string {
	if m.NeedsRows() || m.Regularized() {
		return "method " + string(m)
	}
	return "contraction by " + rule.String()
}
