package learn_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
)

// TestBLRTReference compares BLRT, replicates in parallel, with a slow
// reference loop written from its documentation: replicate b draws from
// rand.NewPCG(seed, b) the rows of the null model (missing cells blanked
// where the data's are), then the seeds of the k−1 and k-class fits; the
// p-value is (1 + #{LR_b ≥ LR}) / (B + 1). Same seeds, so the statistics
// must agree exactly, on 1 and 2 workers.
func TestBLRTReference(t *testing.T) {
	d, _ := simulateLCM(t, lcmCase{rows: 150, classes: 1, states: []int{2, 2, 3, 2, 2}, missing: 0.05, seed: 31})
	const B, starts, seed = 9, 2, 12345
	null, r1, _, err := learn.FitLCM(d, 1, learn.LCMFitOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, r2, _, err := learn.FitLCM(d, 2, learn.LCMFitOptions{Starts: 3, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	lr := 2 * (r2.LogLik - r1.LogLik)

	// The reference: one replicate after the other.
	ref := make([]float64, B)
	exceed := 0
	for b := range B {
		src := rand.NewPCG(seed, uint64(b))
		sim, err := null.Sample(src, d.NumRows())
		if err != nil {
			t.Fatal(err)
		}
		cols := make([][]uint16, d.NumVars())
		for j := range cols {
			cols[j] = slices.Clone(sim.Discrete(j))
			for r := range cols[j] {
				if d.Discrete(j)[r] == data.Missing {
					cols[j][r] = data.Missing
				}
			}
		}
		rep, err := data.FromDiscrete(d.Vars(), cols)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(src)
		s0, s1 := rng.Uint64(), rng.Uint64()
		_, f0, _, err := learn.FitLCM(rep, 1, learn.LCMFitOptions{Starts: starts, Seed: s0, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, f1, _, err := learn.FitLCM(rep, 2, learn.LCMFitOptions{Starts: starts, Seed: s1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		ref[b] = 2 * (f1.LogLik - f0.LogLik)
		if ref[b] >= lr {
			exceed++
		}
	}
	p := float64(1+exceed) / float64(B+1)
	for _, w := range []int{1, 2} {
		got, err := learn.BLRT(d, null, 2, lr, learn.BLRTOptions{Replicates: B, Starts: starts, Seed: seed, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.LRs, ref) || got.Exceed != exceed || got.P != p || got.LR != lr {
			t.Errorf("workers %d: LRs %v, exceed %d, p %v; reference %v, %d, %v", w, got.LRs, got.Exceed, got.P, ref, exceed, p)
		}
	}
	// As two tasks of a job array, merged.
	a, err := learn.BLRT(d, null, 2, lr, learn.BLRTOptions{Replicates: 4, Starts: starts, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	b, err := learn.BLRT(d, null, 2, lr, learn.BLRTOptions{Replicates: B - 4, First: 4, Starts: starts, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	m, err := learn.MergeBLRT(b, a)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.LRs, ref) || m.Exceed != exceed || m.P != p || m.Replicates != B {
		t.Errorf("merged parts: LRs %v, exceed %d, p %v; reference %v, %d, %v", m.LRs, m.Exceed, m.P, ref, exceed, p)
	}
	if _, err := learn.MergeBLRT(a, a); err == nil {
		t.Error("overlapping parts merged")
	}
	// One true class: the data's LR is one more draw of the null's
	// distribution, so some replicates exceed it and some do not (the
	// case checks the count, not only its extremes).
	t.Logf("LR %.3f, replicates %v, p %.3f", lr, ref, p)
	if exceed == 0 || exceed == B || math.IsNaN(p) {
		t.Errorf("the case does not test the count: LR %v, %d of %d replicates exceed it", lr, exceed, B)
	}
}
