package learn

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
)

// BLRTOptions configures BLRT.
type BLRTOptions struct {
	// Replicates is the number B of bootstrap data sets (≥ 1).
	Replicates int
	// Starts is the number of random starts of each of a replicate's two
	// fits (0: DefaultBLRTStarts), each run to convergence (FitLCM).
	Starts int
	// Seed seeds the replicates (see BLRT).
	Seed uint64
	// First is the index of the first replicate (0: 0): a run of
	// replicates First to First+Replicates−1 is the same as those of a
	// run from 0, so that parts of one test can run as the tasks of a job
	// array and be merged (MergeBLRT).
	First int
	// EM runs every start, as LCMFitOptions.EM.
	EM model.EMOptions
	// Workers bounds the goroutines (0: EM.Workers, then GOMAXPROCS): the
	// replicates run in parallel, one goroutine each. The result does not
	// depend on it.
	Workers int
}

// BLRTResult is a parametric bootstrap likelihood-ratio test of k−1
// against k classes.
type BLRTResult struct {
	// LR is the data's statistic 2 (L_k − L_{k−1}).
	LR float64 `json:"lr"`
	// Replicates, First and Starts are BLRTOptions'.
	Replicates int `json:"replicates"`
	First      int `json:"first,omitempty"`
	Starts     int `json:"starts"`
	// Exceed counts the replicates with LR_b ≥ LR, and P = (1 + Exceed) /
	// (Replicates + 1) is the test's p-value.
	Exceed int     `json:"exceed"`
	P      float64 `json:"p"`
	// LRs are the replicates' statistics, in replicate order.
	LRs []float64 `json:"replicate_lrs"`
}

// BLRT is the parametric bootstrap likelihood-ratio test (McLachlan 1987;
// Nylund, Asparouhov & Muthén 2007) of k−1 classes, the fitted model null
// (a latent class model over d's columns, as FitLCM returns), against k
// classes, whose fit to d gave the statistic lr = 2 (L_k − L_{k−1}).
//
// Replicate b (opt.First to opt.First+B−1) draws from the source rand.NewPCG(opt.Seed, b):
// first d.NumRows() rows of null (with frequency weights, the expanded
// rows: see BootstrapRows) (discrete.Model.Sample with that
// source), whose cells are then blanked wherever d's are missing; then two
// seeds s₀ and s₁ (its Uint64, in that order). It fits k−1 classes with
// seed s₀ and k classes with seed s₁ (FitLCM, opt.Starts random starts
// each, every one run to convergence) and computes LR_b = 2 (L_k − L_{k−1})
// on the replicate. A k-class fit that misses its best optimum can make
// LR_b small, even negative; more starts guard against that. The
// p-value is (1 + #{b : LR_b ≥ lr}) / (B + 1).
func BLRT(d *data.Dataset, null *discrete.Model, k int, lr float64, opt BLRTOptions) (*BLRTResult, error) {
	switch {
	case d == nil || null == nil:
		return nil, errors.New("learn: BLRT needs data and the fitted model of k−1 classes")
	case k < 2:
		return nil, fmt.Errorf("learn: BLRT tests k−1 against k ≥ 2 classes, got k = %d", k)
	case opt.Replicates < 1:
		return nil, fmt.Errorf("learn: BLRT needs at least 1 replicate, got %d", opt.Replicates)
	case opt.First < 0:
		return nil, fmt.Errorf("learn: BLRT first replicate %d is negative", opt.First)
	case opt.Starts < 0:
		return nil, fmt.Errorf("learn: BLRT starts %d is negative", opt.Starts)
	}
	starts := opt.Starts
	if starts == 0 {
		starts = DefaultBLRTStarts
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = opt.EM.Workers
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	r := &BLRTResult{LR: lr, Replicates: opt.Replicates, First: opt.First, Starts: starts, LRs: make([]float64, opt.Replicates)}
	errs := make([]error, opt.Replicates)
	parallel.For(workers, opt.Replicates, func(_, b int) {
		r.LRs[b], errs[b] = blrtReplicate(d, null, k, starts, rand.NewPCG(opt.Seed, uint64(opt.First+b)), opt.EM)
	})
	for b, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("learn: BLRT of %d against %d classes, replicate %d: %w", k-1, k, opt.First+b, err)
		}
	}
	for _, x := range r.LRs {
		if x >= lr {
			r.Exceed++
		}
	}
	r.P = float64(1+r.Exceed) / float64(opt.Replicates+1)
	return r, nil
}

// MergeBLRT merges the results of parts of one test (the same data,
// models, seed and starts; replicates First to First+Replicates−1 each)
// into the test over all their replicates, in replicate order: the
// p-value is (1 + #{LR_b ≥ LR}) / (B + 1) over them. Parts of another
// statistic, starts or overlapping replicates are an error.
func MergeBLRT(parts ...*BLRTResult) (*BLRTResult, error) {
	if len(parts) == 0 {
		return nil, errors.New("learn: no BLRT results to merge")
	}
	ps := slices.Clone(parts)
	slices.SortFunc(ps, func(a, b *BLRTResult) int { return a.First - b.First })
	m := &BLRTResult{LR: ps[0].LR, First: ps[0].First, Starts: ps[0].Starts}
	for _, p := range ps {
		switch {
		case p.LR != m.LR || p.Starts != m.Starts:
			return nil, fmt.Errorf("learn: BLRT parts of different tests (LR %v with %d starts, and %v with %d)", m.LR, m.Starts, p.LR, p.Starts)
		case p.First < m.First+m.Replicates:
			return nil, fmt.Errorf("learn: BLRT parts overlap at replicate %d", p.First)
		case len(p.LRs) != p.Replicates:
			return nil, fmt.Errorf("learn: a BLRT part has %d statistics for %d replicates", len(p.LRs), p.Replicates)
		}
		m.Replicates = p.First + p.Replicates - m.First
		m.LRs = append(m.LRs, p.LRs...)
	}
	if len(m.LRs) != m.Replicates {
		return nil, fmt.Errorf("learn: BLRT parts leave a gap: %d of replicates %d to %d", len(m.LRs), m.First, m.First+m.Replicates-1)
	}
	for _, x := range m.LRs {
		if x >= m.LR {
			m.Exceed++
		}
	}
	m.P = float64(1+m.Exceed) / float64(m.Replicates+1)
	return m, nil
}

// blrtReplicate is one replicate of BLRT, drawn from src, on one
// goroutine.
func blrtReplicate(d *data.Dataset, null *discrete.Model, k, starts int, src *rand.PCG, em model.EMOptions) (float64, error) {
	sim, err := BootstrapRows(d, null, src)
	if err != nil {
		return 0, err
	}
	rng := rand.New(src)
	s0, s1 := rng.Uint64(), rng.Uint64()
	_, r0, _, err := FitLCM(sim, k-1, LCMFitOptions{Starts: starts, Seed: s0, EM: em, Workers: 1})
	if err != nil {
		return 0, err
	}
	_, r1, _, err := FitLCM(sim, k, LCMFitOptions{Starts: starts, Seed: s1, EM: em, Workers: 1})
	if err != nil {
		return 0, err
	}
	return 2 * (r1.LogLik - r0.LogLik), nil
}

// BootstrapRows draws d.NumRows() rows of the discrete model m over d's
// columns (discrete.Model.Sample with src) and blanks their cells wherever
// d's are missing: a parametric bootstrap replicate of d with its
// missingness pattern. The columns keep d's variables (names and states).
// With frequency weights, the replicate has the expanded rows of d (each
// row repeated by its weight, in order; unweighted), so that a table of
// distinct rows with counts gives the expanded data's replicates;
// sampling weights are an error.
func BootstrapRows(d *data.Dataset, m *discrete.Model, src rand.Source) (*data.Dataset, error) {
	var rowOf []int // replicate row → row of d, when weighted
	n := d.NumRows()
	if d.Weighted() {
		if d.WeightKind() != data.Frequency {
			return nil, errors.New("learn: the parametric bootstrap of rows with sampling weights is not supported (use frequency weights or unweighted rows)")
		}
		rowOf = make([]int, 0, int(d.SampleSize()))
		for r, w := range d.Weights() {
			for range int(w) {
				rowOf = append(rowOf, r)
			}
		}
		n = len(rowOf)
	}
	sim, err := m.Sample(src, n)
	if err != nil {
		return nil, err
	}
	vars := d.Vars()
	cols := make([][]uint16, len(vars))
	for j, v := range vars {
		i, ok := sim.Index(v.Name)
		if !ok || sim.Var(i).Kind != data.Discrete || sim.Var(i).NumStates() != v.NumStates() {
			return nil, fmt.Errorf("learn: the model has no discrete variable %q with %d states", v.Name, v.NumStates())
		}
		col := append([]uint16(nil), sim.Discrete(i)...)
		dc := d.Discrete(j)
		for r := range col {
			x := r
			if rowOf != nil {
				x = rowOf[r]
			}
			if dc[x] == data.Missing {
				col[r] = data.Missing
			}
		}
		cols[j] = col
	}
	return data.FromDiscrete(vars, cols)
}
