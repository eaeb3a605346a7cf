package discrete

import (
	"errors"
	"fmt"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/tree"
)

// InitSurrogateStats is InitSurrogate computed from the statistics of the
// data (stats.Compute, or stats.ComputeSource of a Source) instead of the
// rows: the surrogate start only needs the pairwise tables of the
// surrogates, so it gives the same parameters as InitSurrogate on the rows
// the statistics were computed from. The statistics need their pairwise
// tables (not stats.Options.NoPairs).
func (m *Model) InitSurrogateStats(st *stats.Stats, mix float64) error {
	if mix == 0 {
		mix = 0.1
	}
	if mix < 0 || mix > 1 {
		return fmt.Errorf("model: mixing weight %g outside [0, 1]", mix)
	}
	if st == nil {
		return errors.New("model: no statistics")
	}
	t := m.Tree
	col := make([]int, t.MaxID())
	remap := make([][]uint16, t.MaxID())
	for _, v := range t.Observed() {
		j, ok := st.Index(t.Name(v))
		if !ok {
			return fmt.Errorf("model: the statistics have no variable %q (a variable of the model)", t.Name(v))
		}
		dv := st.Var(j)
		if dv.Kind != data.Discrete {
			return fmt.Errorf("model: variable %q is continuous in the statistics but discrete in the model", dv.Name)
		}
		r, err := model.StateRemap(dv, m.StateLabels(v))
		if err != nil {
			return err
		}
		col[v], remap[v] = j, r
	}
	sur := m.Surrogates()
	r := m.Rooted()
	var buf []int64
	for _, v := range r.Order {
		k := m.States[v]
		sv := sur[v]
		if v == m.Root {
			cnt := make([]float64, k)
			for c, n := range st.Marginal(col[sv]) {
				cnt[int(remap[sv][c])%k] += float64(n)
			}
			mixInto(m.Prior, cnt, 1, k, mix)
			continue
		}
		p := r.Parent[v]
		kp := m.States[p]
		sp := sur[p]
		buf = st.Pair(col[sp], col[sv], buf)
		if buf == nil {
			return errors.New("model: the statistics have no pairwise tables")
		}
		nv := st.Var(col[sv]).NumStates()
		cnt := make([]float64, kp*k)
		for cp := range st.Var(col[sp]).NumStates() {
			a := int(remap[sp][cp]) % kp
			for cv := range nv {
				if n := buf[cp*nv+cv]; n != 0 {
					cnt[a*k+int(remap[sv][cv])%k] += float64(n)
				}
			}
		}
		mixInto(m.CPT[v], cnt, kp, k, mix)
	}
	return nil
}

// FitSource is Fit for discrete rows read from a data.Source on every EM
// pass (FitEMSource) instead of held in memory: st are the statistics of
// the source's rows (stats.ComputeSource), which give the variables, their
// states and the surrogate start. It fits parameters by EM from the
// surrogate start, or from random starts (InitRandom); the spectral
// estimate and AutoStates need the rows in memory (use Fit), and so does
// continuous data.
func FitSource(t *tree.Tree, src data.Source, st *stats.Stats, opt model.FitOptions) (*Model, *model.EMResult, error) {
	if t == nil {
		return nil, nil, errors.New("model: no tree")
	}
	if src == nil || st == nil {
		return nil, nil, errors.New("model: FitSource needs the source and its statistics")
	}
	if st.Rows() == 0 {
		return nil, nil, errors.New("model: no data rows to fit")
	}
	vars := make([]data.Variable, st.NumVars())
	for j := range vars {
		vars[j] = st.Var(j)
		if vars[j].Kind != data.Discrete {
			return nil, nil, fmt.Errorf("model: column %q is continuous; fitting from a source needs discrete data (load continuous data in memory and use Fit)", vars[j].Name)
		}
	}
	if err := opt.Validate(false); err != nil {
		return nil, nil, err
	}
	switch {
	case opt.Params == model.ParamsSpectral, opt.Init == model.InitSpectral:
		return nil, nil, errors.New("model: spectral estimates need the rows in memory (use Fit)")
	case opt.AutoStates:
		return nil, nil, errors.New("model: choosing the hidden states needs the rows in memory (use Fit)")
	}
	k := opt.HiddenStates
	if k == 0 {
		k = 2
	}
	m, err := ForVariables(t, vars, k)
	if err != nil {
		return nil, nil, err
	}
	em := opt.EM
	if opt.Init == model.InitRandom {
		em.KeepInit = false
		if em.Restarts <= 0 {
			em.Restarts = 5
		}
	} else {
		if err := m.InitSurrogateStats(st, 0); err != nil {
			return nil, nil, err
		}
		em.KeepInit = true
		if em.Restarts <= 0 {
			em.Restarts = -1
		}
	}
	if _, ok := src.(RowSampler); !ok && em.Sample >= 0 {
		// Warm-up samples are drawn in one pass each.
		src = scanSampler{Source: src, rows: int(st.Rows())}
	}
	res, err := m.FitEMSource(src, em)
	if err != nil {
		return nil, nil, err
	}
	m.Canonicalize()
	return m, res, nil
}

// ScoreSource is Score on the rows of a data.Source, in one pass.
func (m *Model) ScoreSource(src data.Source, opt model.InferOptions) (*model.Score, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if src == nil {
		return nil, errors.New("model: no data source")
	}
	sr := &sourceRows{src: src}
	ll, err := sr.loglikAll(newEngine(m), opt.Workers)
	if err != nil {
		return nil, err
	}
	return m.ScoreOf(ll, sr.rows), nil
}

// ScoreOf returns the scores of the model for a log-likelihood ll of rows
// rows computed elsewhere (EMResult.LogLik is that of its final
// parameters), saving a pass over the rows.
func (m *Model) ScoreOf(ll float64, rows int) *model.Score {
	return model.NewScore(ll, rows, m.NumParams(), m.Tree.NumHidden())
}
