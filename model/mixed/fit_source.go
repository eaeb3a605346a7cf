package mixed

import (
	"errors"
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// FitSource is Fit for rows read from a data.Source on every pass instead
// of held in memory as a Dataset: a data.Files source re-reads its files
// on every E-step, so memory is bounded by the block size (and the
// model), whatever the number of rows. Each E-step scans the blocks in
// order; within a block the rows are processed in parallel in fixed
// chunks and the blocks' statistics (Expected) are added in block order,
// so results do not depend on opt.Workers.
//
// The start is Fit's moment-based start (Start), computed in two passes:
// the first reads the variables (kinds from the first block, the states
// of each discrete column in the order they are first seen) and keeps the
// values of each continuous column that is the surrogate of a discrete
// hidden node, to cut it into quantile bins (one float64 per row and such
// column, freed before EM); the second accumulates the completed rows.
// Restarts, acceleration and stopping are Fit's. On the rows of a
// Dataset, in the same column states, the result equals Fit's up to
// rounding (sums over rows are added in another order).
//
// Every block must have the same columns, of the same kinds (a column
// that changes kind is an error naming it and the block's rows), and the
// same number of rows on every pass. Sampling weights are refused (their
// scale is the whole data's); frequency weights count as in Fit.
func FitSource(t *tree.Tree, src data.Source, opt Options) (*Model, *model.EMResult, error) {
	if err := opt.validate(); err != nil {
		return nil, nil, err
	}
	if t == nil {
		return nil, nil, errors.New("mixed: no tree")
	}
	if src == nil {
		return nil, nil, errors.New("mixed: no data source")
	}
	sr := &sourceRows{src: src}
	vars, cols, err := sr.survey(t, opt)
	if err != nil {
		return nil, nil, err
	}
	m, err := prepareVars(t, vars, opt)
	if err != nil {
		return nil, nil, err
	}
	cuts := m.startCuts(func(s int) (vals, w []float64) { return cols[s], sr.weights })
	cols, sr.weights = nil, nil
	x := m.NewExpected()
	var ms momentSums
	err = sr.scan(m, func(b *binding) error {
		m.startAdd(b, cuts, x)
		if opt.Restarts > 0 {
			ms.add(m, b)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if err := m.startFinish(x); err != nil {
		return nil, nil, err
	}
	res := &model.EMResult{Rows: sr.rows, DistinctRows: sr.rows}
	m, err = m.run(sr, func() moments { return ms.moments(m) }, opt, res)
	if err != nil {
		return nil, nil, err
	}
	return m, res, nil
}

// ScoreSource is Score on the rows of a data.Source, in one pass.
func (m *Model) ScoreSource(src data.Source, opt model.InferOptions) (*model.Score, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if src == nil {
		return nil, errors.New("mixed: no data source")
	}
	e := newEngine(m)
	sr := &sourceRows{src: src}
	ll, n, weighted := 0.0, 0.0, false
	var kind data.WeightKind
	err := sr.scan(m, func(b *binding) error {
		out := make([]float64, b.rows)
		e.forRows(b.rows, opt.Workers, func(w *work, _, r0, r1 int) {
			for r := r0; r < r1; r++ {
				e.load(b, w, r)
				out[r] = e.upward(w)
			}
		})
		for r, x := range out {
			if wt := b.wt(r); wt != 0 {
				ll += wt * x
				n += wt
			}
		}
		if b.w != nil {
			weighted, kind = true, data.Frequency
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !weighted {
		return model.NewScore(ll, sr.rows, m.NumParams(), m.Tree.NumHidden()), nil
	}
	s := model.NewScore(ll, sr.rows, m.NumParams(), m.Tree.NumHidden())
	s.N, s.WeightKind = n, kind.String()
	if n > 0 {
		s.PerRow = ll / n
		s.BIC = -2*ll + float64(s.Params)*math.Log(n)
		s.BICPaper = ll - 0.5*float64(s.Params)*math.Log(n)
	}
	return s, nil
}

// sourceRows reads a data.Source on every pass, binding each block to
// the model afresh (a discrete column's states may grow from block to
// block).
type sourceRows struct {
	src  data.Source
	rows int // rows of a complete pass (0 before the first)
	// weights are the row weights kept by survey (nil: unweighted).
	weights []float64
}

// blockError names the rows of the block an error is about.
func blockError(r0, n int, err error) error {
	return fmt.Errorf("mixed: rows %d–%d of the source: %w", r0+1, r0+n, err)
}

// checkBlock reports a block whose columns or kinds differ from first's,
// or that has sampling weights.
func checkBlock(first []data.Variable, d *data.Dataset) error {
	if d.NumVars() != len(first) {
		return fmt.Errorf("%d columns, against %d in the first block", d.NumVars(), len(first))
	}
	for j, v := range first {
		b := d.Var(j)
		if b.Name != v.Name {
			return fmt.Errorf("column %d is %q, but %q in the first block", j+1, b.Name, v.Name)
		}
		if b.Kind != v.Kind {
			return fmt.Errorf("column %q is %v, but %v in the first block", b.Name, b.Kind, v.Kind)
		}
	}
	if d.Weighted() && d.WeightKind() == data.Sampling {
		return errors.New("sampling weights are scaled to the whole data: fit them in memory (Fit)")
	}
	return nil
}

// survey is the first pass of FitSource: the variables (kinds of the
// first block; each discrete column's states in the order first seen),
// the number of rows, the row weights when the rows are weighted, and
// the values of the continuous columns whose nodes startNeeds names (by
// node identifier).
func (s *sourceRows) survey(t *tree.Tree, opt Options) ([]data.Variable, [][]float64, error) {
	var vars []data.Variable
	var seen []map[string]bool
	var need []bool
	var col []int // node → column of the first block
	var cols [][]float64
	var weights []float64
	rows := 0
	weighted := false
	err := s.src.Scan(func(d *data.Dataset) error {
		n := d.NumRows()
		if vars == nil {
			vars = d.Vars()
			seen = make([]map[string]bool, len(vars))
			for j, v := range vars {
				vars[j].States = append([]string(nil), v.States...)
				seen[j] = make(map[string]bool, len(v.States))
				for _, l := range v.States {
					seen[j][l] = true
				}
			}
			// Which continuous columns the start cuts into bins: the
			// kinds (of the first block) decide.
			m, err := prepareVars(t, vars, opt)
			if err != nil {
				return err
			}
			need = m.startNeeds()
			cols = make([][]float64, t.MaxID())
			col = make([]int, t.MaxID())
			for _, v := range t.Observed() {
				col[v], _ = d.Index(t.Name(v))
			}
		}
		if err := checkBlock(vars, d); err != nil {
			return blockError(rows, n, err)
		}
		for j := range vars {
			for _, l := range d.Var(j).States {
				if !seen[j][l] {
					seen[j][l] = true
					vars[j].States = append(vars[j].States, l)
				}
			}
		}
		for v, ok := range need {
			if ok {
				cols[v] = append(cols[v], d.Continuous(col[v])...)
			}
		}
		if w := d.RowWeights(); w != nil || weighted {
			if !weighted {
				weights = make([]float64, rows, rows+n)
				for i := range weights {
					weights[i] = 1
				}
				weighted = true
			}
			for r := range n {
				x := 1.0
				if w != nil {
					x = w[r]
				}
				weights = append(weights, x)
			}
		}
		rows += n
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if rows == 0 {
		return nil, nil, errors.New("mixed: the source has no rows")
	}
	s.rows, s.weights = rows, weights
	return vars, cols, nil
}

// scan binds every block of the source to m and calls fn with it, in
// order; a pass that gives another number of rows than the first is an
// error.
func (s *sourceRows) scan(m *Model, fn func(b *binding) error) error {
	rows := 0
	var first []data.Variable
	err := s.src.Scan(func(d *data.Dataset) error {
		n := d.NumRows()
		if first == nil {
			first = d.Vars()
		}
		if err := checkBlock(first, d); err != nil {
			return blockError(rows, n, err)
		}
		b, err := m.bind(d)
		if err != nil {
			return blockError(rows, n, err)
		}
		rows += n
		if n == 0 {
			return nil
		}
		return fn(b)
	})
	if err != nil {
		return err
	}
	if rows == 0 {
		return errors.New("mixed: the source has no rows")
	}
	if s.rows != 0 && rows != s.rows {
		return fmt.Errorf("mixed: the source gave %d rows on one pass and %d on another", s.rows, rows)
	}
	s.rows = rows
	return nil
}

// estepAll is the E-step over every block of the source: each block's
// statistics, computed in parallel over its rows (estep), are added in
// block order.
func (s *sourceRows) estepAll(e *engine, workers int) (*Expected, error) {
	total := e.m.NewExpected()
	err := s.scan(e.m, func(b *binding) error {
		return total.Add(e.estep(b, workers))
	})
	if err != nil {
		return nil, err
	}
	return total, nil
}
