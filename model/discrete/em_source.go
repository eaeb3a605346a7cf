package discrete

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
)

// rowSet is what EM passes over: the bound rows of a dataset held in
// memory (*binding) or a data.Source read block by block (*sourceRows).
type rowSet interface {
	// estepAll returns the expected counts of every row, with their
	// log-likelihood in ll, at the engine's parameters.
	estepAll(e *engine, nw int) (*counts, error)
	// loglikAll returns the log-likelihood of every row.
	loglikAll(e *engine, nw int) (float64, error)
}

func (b *binding) estepAll(e *engine, nw int) (*counts, error) { return e.expected(b, nw), nil }

func (b *binding) loglikAll(e *engine, nw int) (float64, error) { return e.loglik(b, nw), nil }

// sourceRows reads a data.Source on every pass. Each block is bound to the
// model afresh (its states may have grown) and its counts are added in
// block order, so the result depends on the source's block boundaries but
// not on the number of workers.
//
// A data.Packed gives the same blocks on every pass, so for a binary model
// the blocks' codes as the binary E-step reads them (binPrepare) are kept
// from the first pass, up to keepBytes in all, and later passes skip
// unpacking, binding and preparing them again.
type sourceRows struct {
	src  data.Source
	rows int // rows seen by the last complete pass
	// kept are the first pass's bindings, holding only their prepared
	// codes, when every block was kept.
	kept []*binding
}

// keepBytes bounds the prepared codes sourceRows keeps (about 15 to 30
// bytes a row for 100 binary variables).
const keepBytes = 1 << 30

func (s *sourceRows) scan(e *engine, fn func(b *binding) error) error {
	if s.kept != nil && e.binaryModel() && s.kept[0].bin.tree == e.m.Tree && s.kept[0].bin.root == e.m.Root {
		for _, b := range s.kept {
			if err := fn(b); err != nil {
				return err
			}
		}
		return nil
	}
	_, keep := s.src.(*data.Packed)
	keep = keep && e.binaryModel()
	var kept []*binding
	size := 0
	rows := 0
	err := s.src.Scan(func(d *data.Dataset) error {
		if d.NumRows() == 0 {
			return nil
		}
		b, err := e.m.bind(d)
		if err != nil {
			return err
		}
		rows += b.rows
		if err := fn(b); err != nil {
			return err
		}
		if keep && b.bin != nil && b.rootPrior == nil {
			size += b.bin.bytes()
			kept = append(kept, &binding{col: b.col, remap: b.remap, rows: b.rows, weight: b.weight, bin: b.bin})
		}
		keep = keep && b.bin != nil && size <= keepBytes
		return nil
	})
	if err != nil {
		return err
	}
	if rows == 0 {
		return errors.New("model: the source has no rows")
	}
	if s.rows != 0 && rows != s.rows {
		return fmt.Errorf("model: the source gave %d rows on one pass and %d on another", s.rows, rows)
	}
	s.rows = rows
	if keep && len(kept) > 0 {
		s.kept = kept
	}
	return nil
}

func (s *sourceRows) estepAll(e *engine, nw int) (*counts, error) {
	var acc *counts
	err := s.scan(e, func(b *binding) error {
		c := e.expected(b, nw)
		if acc == nil {
			acc = c
		} else {
			acc.add(c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return acc, nil
}

func (s *sourceRows) loglikAll(e *engine, nw int) (float64, error) {
	total := 0.0
	err := s.scan(e, func(b *binding) error {
		total += e.loglik(b, nw)
		return nil
	})
	return total, err
}

// A RowSampler is a Source that can draw a random sample of its rows
// cheaply (data.Packed): FitEMSource warms EM up on such samples
// (EMOptions.Sample).
type RowSampler interface {
	data.Source
	NumRows() int
	// Sample returns n distinct rows drawn uniformly without replacement
	// (all rows when n ≥ NumRows).
	Sample(n int, r *rand.Rand) (*data.Dataset, error)
}

// scanSampler is a RowSampler over any Source of known size: each Sample
// is one pass that keeps the selected rows (selection sampling, as
// sampleRows).
type scanSampler struct {
	data.Source
	rows int
}

func (s scanSampler) NumRows() int { return s.rows }

func (s scanSampler) Sample(n int, r *rand.Rand) (*data.Dataset, error) {
	if n <= 0 {
		return nil, fmt.Errorf("model: sample of %d rows", n)
	}
	n = min(n, s.rows)
	idx := data.SampleIndex(s.rows, n, r)
	// States are matched by label from block to block (as everything
	// else reads a Source), in the order they are first seen.
	var vars []data.Variable
	var cols [][]uint16
	var index []map[string]uint16
	var remap [][]uint16
	seen, taken := 0, 0
	err := s.Scan(func(d *data.Dataset) error {
		if vars == nil {
			vars = d.Vars()
			cols = make([][]uint16, len(vars))
			index = make([]map[string]uint16, len(vars))
			remap = make([][]uint16, len(vars))
			for j, v := range vars {
				if v.Kind != data.Discrete {
					return fmt.Errorf("model: column %q is continuous", v.Name)
				}
				cols[j] = make([]uint16, 0, n)
				index[j] = make(map[string]uint16)
				vars[j].States = nil
			}
		}
		for j := range vars {
			remap[j] = remap[j][:0]
			for _, l := range d.Var(j).States {
				k, ok := index[j][l]
				if !ok {
					k = uint16(len(vars[j].States))
					index[j][l] = k
					vars[j].States = append(vars[j].States, l)
				}
				remap[j] = append(remap[j], k)
			}
		}
		for i := range d.NumRows() {
			if seen >= s.rows {
				return fmt.Errorf("model: the source has more rows than its statistics (%d)", s.rows)
			}
			if taken < len(idx) && idx[taken] == seen {
				for j := range cols {
					c := d.Discrete(j)[i]
					if c != data.Missing {
						c = remap[j][c]
					}
					cols[j] = append(cols[j], c)
				}
				taken++
			}
			seen++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if seen != s.rows {
		return nil, fmt.Errorf("model: the source has %d rows, its statistics %d", seen, s.rows)
	}
	return data.FromDiscrete(vars, cols)
}

// FitEMSource is FitEM on the rows of a data.Source, read block by block
// on every E-step, so that the rows need not be held in memory as a
// Dataset: a data.Files source re-reads its files on every pass, and a
// data.Packed keeps binary columns at one bit per cell. Identical rows are
// not merged (FitEM merges them). With EMOptions.Sample and a source that
// implements RowSampler, EM is first warmed up on random samples held in
// memory, so that the full passes, which dominate the cost on millions
// of rows, are few; without a RowSampler the warm-up is skipped
// (FitSource, which knows the number of rows from the statistics, then
// draws each sample in one pass over the source).
//
// On the same rows and start, the result equals FitEM's up to rounding:
// both sum the same expected counts, in a different order.
func (m *Model) FitEMSource(src data.Source, opt model.EMOptions) (*model.EMResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if src == nil {
		return nil, errors.New("model: no data source")
	}
	if m.Regression != nil {
		return nil, errors.New("model: a model with covariates (a root regression) is fitted in memory (FitEM), not from a streamed source")
	}
	rng := emRand(opt)
	// Few distinct rows (few variables, or strong dependence): EM on them,
	// weighted, in memory.
	cb, rows, err := m.compressSource(src)
	if err != nil {
		return nil, err
	}
	if cb != nil {
		res := &model.EMResult{Rows: rows, DistinctRows: cb.rows}
		if err := m.runEM(cb, res, opt, rng); err != nil {
			return nil, err
		}
		return res, nil
	}
	var stages []model.EMStage
	var ph model.EMPhases
	if rs, ok := src.(RowSampler); ok {
		sample := func(n int) (data.Source, error) { return rs.Sample(n, rng) }
		if ps, ok := src.(packedSampler); ok {
			sample = func(n int) (data.Source, error) { return ps.SamplePacked(n, rng) }
		}
		if ph, stages, opt, err = m.warmUp(rs.NumRows(), sample, opt, rng); err != nil {
			return nil, err
		}
	}
	sr := &sourceRows{src: src}
	res := &model.EMResult{Stages: stages, Phases: ph}
	if err := m.runEM(sr, res, opt, rng); err != nil {
		return nil, err
	}
	res.Rows, res.DistinctRows = sr.rows, sr.rows
	return res, nil
}

// packedSampler is a RowSampler that draws its samples packed
// (data.Packed): a large warm-up sample then takes one bit per binary
// cell instead of a Dataset's two bytes.
type packedSampler interface {
	SamplePacked(n int, r *rand.Rand) (*data.Packed, error)
}

// maxDistinct bounds the distinct rows compressSource keeps in memory.
const maxDistinct = 1 << 20

// errNotFew stops compressSource's pass.
var errNotFew = errors.New("model: many distinct rows")

// compressSource returns the distinct rows of src, weighted by their
// numbers of copies, as a binding in the model's states, and the number of
// rows, when that pays: it gives up (nil) as soon as more than 90% of the
// first compressProbe rows are distinct, or more than maxDistinct rows
// are, and at the end if the distinct rows are more than half of all. A
// pass over rows that are nearly all distinct stops after compressProbe
// rows.
func (m *Model) compressSource(src data.Source) (*binding, int, error) {
	t := m.Tree
	var nodes []int
	for _, v := range t.Observed() {
		nodes = append(nodes, v)
	}
	index := make(map[string]int)
	key := make([]byte, 2*len(nodes))
	cols := make([][]uint16, len(nodes))
	var weight []float64
	var col []int
	rows := 0
	err := src.Scan(func(d *data.Dataset) error {
		b, err := m.bind(d)
		if err != nil {
			return err
		}
		if col == nil {
			col = b.col
		}
		for r := 0; r < b.rows; r++ {
			for x, v := range nodes {
				c := b.codes[v][r]
				if c != data.Missing {
					c = b.remap[v][c]
				}
				key[2*x], key[2*x+1] = byte(c), byte(c>>8)
			}
			rows++
			if u, ok := index[string(key)]; ok {
				weight[u] += b.w(r)
				continue
			}
			index[string(key)] = len(weight)
			weight = append(weight, b.w(r))
			for x, v := range nodes {
				c := b.codes[v][r]
				if c != data.Missing {
					c = b.remap[v][c]
				}
				cols[x] = append(cols[x], c)
			}
			if len(weight) > maxDistinct || rows >= compressProbe && len(weight) > rows*9/10 {
				return errNotFew
			}
		}
		return nil
	})
	if err == errNotFew {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	if rows == 0 {
		return nil, 0, errors.New("model: the source has no rows")
	}
	if len(weight) > rows/2 {
		return nil, rows, nil
	}
	b := &binding{col: col, remap: make([][]uint16, t.MaxID()), rows: len(weight), weight: weight, codes: make([][]uint16, t.MaxID())}
	for x, v := range nodes {
		id := make([]uint16, m.States[v])
		for s := range id {
			id[s] = uint16(s)
		}
		b.remap[v], b.codes[v] = id, cols[x]
	}
	return b, rows, nil
}

// warmUp runs the warm-up stages of EMOptions.Sample on samples drawn by
// sample from rows rows, updating the model, and returns their phases
// (the restart phase of the first stage, and the warm-up), their reports
// and the options of the final run (no restarts: it starts where the
// warm-up ended).
func (m *Model) warmUp(rows int, sample func(n int) (data.Source, error), opt model.EMOptions, rng *rand.Rand) (model.EMPhases, []model.EMStage, model.EMOptions, error) {
	var ph model.EMPhases
	if opt.Sample == 0 {
		opt.Sample = AutoSample(rows)
	}
	if opt.Sample <= 0 || rows < 4*opt.Sample || (opt.RestartIter < 0 && opt.Restarts > 0) {
		// (Full restarts run on every row.)
		return ph, nil, opt, nil
	}
	t0 := time.Now()
	var stages []model.EMStage
	so := opt
	so.Sample, so.Progress = -1, nil
	for n := opt.Sample; 4*n <= rows; n *= SampleGrowth {
		d, err := sample(n)
		if err != nil {
			return ph, nil, opt, err
		}
		r, err := m.fitStage(d, so)
		if err != nil {
			return ph, nil, opt, fmt.Errorf("model: EM on a sample of %d rows: %w", n, err)
		}
		stages = append(stages, model.EMStage{Rows: r.Rows, Iterations: r.Iterations, LogLik: r.LogLik, Converged: r.Converged})
		ph.Restarts.ESteps += r.Phases.Restarts.ESteps
		ph.Restarts.Seconds += r.Phases.Restarts.Seconds
		ph.Sample.ESteps += r.Iterations
		// Later stages and the final run continue from here.
		so.Restarts, so.KeepInit = -1, false
	}
	opt.Restarts, opt.KeepInit, opt.Sample = -1, false, -1
	ph.Sample.Seconds = max(time.Since(t0).Seconds()-ph.Restarts.Seconds, 0)
	return ph, stages, opt, nil
}

// fitStage runs a warm-up stage's EM on a sample. A large sample is held
// packed (one bit per binary cell) instead of as a Dataset and a byte per
// cell for the binary E-step.
func (m *Model) fitStage(src data.Source, opt model.EMOptions) (*model.EMResult, error) {
	d, ok := src.(*data.Dataset)
	if !ok {
		return m.FitEMSource(src, opt)
	}
	if d.NumRows() <= compressProbe || !d.AllDiscrete() || d.Weighted() {
		return m.FitEM(d, opt)
	}
	p, err := data.Pack(d)
	if err != nil {
		return nil, err
	}
	return m.FitEMSource(p, opt)
}

// sampleRows returns n rows of d drawn uniformly without replacement, in
// their order in d (selection sampling: row i is taken with probability
// (n − taken)/(rows − i)), or d itself when n ≥ its rows.
func sampleRows(d *data.Dataset, n int, r *rand.Rand) (*data.Dataset, error) {
	rows := d.NumRows()
	if n >= rows {
		return d, nil
	}
	if n <= 0 {
		return nil, fmt.Errorf("model: sample of %d rows", n)
	}
	return d.Rows(data.SampleIndex(rows, n, r))
}
