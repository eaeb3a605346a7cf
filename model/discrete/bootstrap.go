package discrete

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
)

// BootstrapOptions configure Bootstrap.
type BootstrapOptions struct {
	// Replicates is the number of bootstrap replicates B (at least 2).
	Replicates int
	// EM configures each replicate's refit: its Tol, MaxIter, Accel and
	// Stop apply (zero: the defaults of FitEM). Every replicate starts
	// from the model's parameters alone, on one goroutine, without
	// warm-up on samples.
	EM model.EMOptions
	// Src draws the replicates' rows (nil: the fixed seed's
	// seed.Bootstrap stream). Replicate i draws from its own generator,
	// seeded by one number from Src and i, so the result does not depend
	// on Workers.
	Src rand.Source
	// Workers is the number of replicates refitted at once (0:
	// GOMAXPROCS).
	Workers int
}

// Bootstrap returns bootstrap standard errors of the model's
// probabilities, the model being a fit to d: each of B replicates draws
// d's rows with replacement, refits the model by EM from its parameters,
// and renames each hidden node's states to match the model's (the
// labelling of the full-data fit: state a of the replicate is matched to
// the model's state whose distributions P(x | state) of the observed
// variables x are nearest in total absolute difference, greedily); the
// standard error of a probability is the standard deviation of its B
// replicate values (divisor B − 1).
func (m *Model) Bootstrap(d *data.Dataset, opt BootstrapOptions) (*StdErrors, error) {
	if opt.Replicates < 2 {
		return nil, fmt.Errorf("model: %d bootstrap replicates: want at least 2", opt.Replicates)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.Regression != nil {
		return nil, errors.New("model: bootstrap standard errors of a model with covariates are not implemented (use the Hessian's, StandardErrors)")
	}
	if d == nil || d.NumRows() == 0 {
		return nil, errors.New("model: no rows to bootstrap")
	}
	if _, err := m.bind(d); err != nil {
		return nil, err
	}
	base := seed.Rand(opt.Src, seed.Bootstrap).Uint64()
	em := model.EMOptions{Tol: opt.EM.Tol, MaxIter: opt.EM.MaxIter, Accel: opt.EM.Accel, Stop: opt.EM.Stop,
		Restarts: -1, KeepInit: true, Sample: -1, Workers: 1}
	n := d.NumRows()
	// With frequency weights, the replicates resample the expanded rows:
	// n = Σ w draws, row r with probability w_r/n.
	var cum []float64
	if d.Weighted() {
		if d.WeightKind() != data.Frequency {
			return nil, errors.New("model: the bootstrap of rows with sampling weights is not supported (use frequency weights or unweighted rows)")
		}
		cum = make([]float64, n)
		acc := 0.0
		for r, w := range d.Weights() {
			acc += w
			cum[r] = acc
		}
		n = int(acc)
	}
	B := opt.Replicates
	reps := make([][]float64, B)
	errs := make([]error, B)
	parallel.For(model.Workers(opt.Workers), B, func(_, i int) {
		rng := rand.New(rand.NewPCG(base, uint64(i)))
		idx := make([]int, n)
		for j := range idx {
			if cum == nil {
				idx[j] = rng.IntN(n)
				continue
			}
			u := float64(rng.IntN(n)) + 0.5
			idx[j], _ = slices.BinarySearch(cum, u)
		}
		dr, err := d.Rows(idx)
		if err == nil && cum != nil {
			err = dr.SetWeights(nil, data.Frequency)
		}
		if err != nil {
			errs[i] = err
			return
		}
		rep := m.Clone()
		if _, err := rep.FitEM(dr, em); err != nil {
			errs[i] = fmt.Errorf("model: bootstrap replicate %d: %w", i+1, err)
			return
		}
		rep.alignTo(m)
		reps[i] = rep.flatParams()
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	P := len(reps[0])
	sd := make([]float64, P)
	for j := 0; j < P; j++ {
		mean := 0.0
		for _, x := range reps {
			mean += x[j]
		}
		mean /= float64(B)
		ss := 0.0
		for _, x := range reps {
			ss += (x[j] - mean) * (x[j] - mean)
		}
		sd[j] = math.Sqrt(ss / float64(B-1))
	}
	se := &StdErrors{Method: SEBootstrap, Replicates: B, CPT: make([][]float64, len(m.CPT))}
	off := 0
	for _, v := range m.Rooted().Order {
		if v == m.Root {
			se.Prior = sd[off : off+len(m.Prior)]
			off += len(m.Prior)
			continue
		}
		se.CPT[v] = sd[off : off+len(m.CPT[v])]
		off += len(m.CPT[v])
	}
	return se, nil
}

// flatParams returns the prior and the CPTs in the rooted order, one
// slice.
func (m *Model) flatParams() []float64 {
	out := append([]float64(nil), m.Prior...)
	for _, v := range m.Rooted().Order {
		if v != m.Root {
			out = append(out, m.CPT[v]...)
		}
	}
	return out
}

// alignTo renames the states of every hidden node of m to match ref's,
// a model of the same structure and numbers of states (see Bootstrap):
// the distributions of the observed variables given a hidden node's
// state do not depend on how the other hidden nodes' states are named,
// so each node is matched on its own.
func (m *Model) alignTo(ref *Model) {
	t := m.Tree
	obs := t.Observed()
	for _, v := range t.Hidden() {
		k := m.States[v]
		if k < 2 {
			continue
		}
		pm := m.transitions(v, m.Marginals())
		pr := ref.transitions(v, ref.Marginals())
		// cost[a][b]: distance between m's state a and ref's state b.
		cost := make([]float64, k*k)
		for _, x := range obs {
			kx := m.States[x]
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					for s := 0; s < kx; s++ {
						cost[a*k+b] += math.Abs(pm[x][a*kx+s] - pr[x][b*kx+s])
					}
				}
			}
		}
		perm := make([]int, k) // ref state b ← m's state perm[b]
		for _, p := range greedyMatch(k, k, func(a, b int) float64 { return -cost[a*k+b] }) {
			perm[p[1]] = p[0]
		}
		m.permuteStates(v, perm)
	}
}
