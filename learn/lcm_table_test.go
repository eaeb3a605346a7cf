package learn_test

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
)

// TestLCMFitTable checks every row of the fit table against the formulas
// by hand from its log-likelihood, its parameters (counted by hand) and
// the rows, and the kept row's log-likelihood, entropy R² and smallest
// class share against a hand computation from the model's parameters
// (posteriors by Bayes' rule in lcmLogLik).
func TestLCMFitTable(t *testing.T) {
	c := lcmCase{rows: 400, classes: 3, states: []int{2, 3, 2, 4, 2, 3}, missing: 0.05, sep: 0.6, seed: 21}
	d, x := simulateLCM(t, c)
	n := float64(c.rows)
	res, err := learn.Learn(d, learn.Options{Method: learn.LCM, LCM: learn.LCMOptions{MaxClasses: 4, Restarts: 4}, Src: rand.NewPCG(3, 4)})
	if err != nil {
		t.Fatal(err)
	}
	l := res.LCM
	if len(l.Fits) != 4 {
		t.Fatalf("%d rows, want 4 (MaxClasses given: every number fitted)", len(l.Fits))
	}
	bestBIC := math.Inf(1)
	for i, f := range l.Fits {
		k := i + 1
		params := k - 1
		for _, s := range c.states {
			params += k * (s - 1)
		}
		if f.Classes != k || f.Params != params {
			t.Fatalf("row %d: %d classes, %d params; want %d, %d", i, f.Classes, f.Params, k, params)
		}
		kp := float64(params)
		for _, cr := range []struct {
			name      string
			got, want float64
		}{
			{"AIC", f.AIC, -2*f.LogLik + 2*kp},
			{"BIC", f.BIC, -2*f.LogLik + kp*math.Log(n)},
			{"aBIC", f.ABIC, -2*f.LogLik + kp*math.Log((n+2)/24)},
			{"CAIC", f.CAIC, -2*f.LogLik + kp*(math.Log(n)+1)},
		} {
			if math.Abs(cr.got-cr.want) > 1e-9*math.Abs(cr.want) {
				t.Errorf("%d classes: %s %.6f, by hand %.6f", k, cr.name, cr.got, cr.want)
			}
		}
		if k == 1 && (f.Starts != 0 || f.EntropyR2 != 1 || f.SmallestShare != 1) {
			t.Errorf("1 class: %+v", f)
		}
		if k > 1 {
			best := slices.Max(f.StartLogLiks)
			want := 0
			for _, s := range f.StartLogLiks {
				if s >= best-learn.LCMReplicateTol {
					want++
				}
			}
			if f.Starts != 4 || len(f.StartLogLiks) != 4 || f.Replicated != want || f.BestReplicated != (want >= 2) || math.Abs(best-f.LogLik) > 1e-9 {
				t.Errorf("%d classes: starts %d %v, replicated %d (%v), LL %.6f; want 4 starts, %d replicated, best LL", k, f.Starts, f.StartLogLiks, f.Replicated, f.BestReplicated, f.LogLik, want)
			}
		}
		bestBIC = min(bestBIC, f.BIC)
	}
	kept := l.Fits[l.Classes-1]
	if kept.BIC != bestBIC || l.Rule != "smallest BIC" {
		t.Errorf("kept %d classes (BIC %.2f, rule %q), smallest BIC %.2f", l.Classes, kept.BIC, l.Rule, bestBIC)
	}
	checkRowByHand(t, res.Model.(*discrete.Model), d, x, kept)

	// A given number of classes: its row, and its model to check by hand.
	res, err = learn.Learn(d, learn.Options{Method: learn.LCM, Fit: model.FitOptions{HiddenStates: 4}, LCM: learn.LCMOptions{Restarts: 3}, Src: rand.NewPCG(3, 5)})
	if err != nil {
		t.Fatal(err)
	}
	if res.LCM.Rule != "given" || res.LCM.Classes != 4 || len(res.LCM.Fits) != 1 {
		t.Fatalf("given 4 classes: %+v", res.LCM)
	}
	checkRowByHand(t, res.Model.(*discrete.Model), d, x, res.LCM.Fits[0])
}

// checkRowByHand checks f's log-likelihood, entropy R² (1 − E/E₀ with E
// the mean posterior entropy and E₀ the entropy of the mean posterior)
// and smallest share against m's parameters.
func checkRowByHand(t *testing.T, m *discrete.Model, d *data.Dataset, x [][]uint16, f learn.LCMFit) {
	t.Helper()
	k := f.Classes
	post := make([][]float64, len(x))
	for r := range post {
		post[r] = make([]float64, k)
	}
	ll := lcmLogLik(paramsOf(t, m, d), x, post)
	if math.Abs(ll-f.LogLik) > 1e-6*math.Abs(ll) {
		t.Errorf("%d classes: table LL %.6f, its parameters give %.6f", k, f.LogLik, ll)
	}
	shares := make([]float64, k)
	e := 0.0
	for _, p := range post {
		for a, q := range p {
			shares[a] += q / float64(len(x))
			if q > 0 {
				e -= q * math.Log(q) / float64(len(x))
			}
		}
	}
	e0 := 0.0
	for _, s := range shares {
		e0 -= s * math.Log(s)
	}
	if r2 := 1 - e/e0; math.Abs(r2-f.EntropyR2) > 1e-9 {
		t.Errorf("%d classes: entropy R² %.12f, by hand %.12f", k, f.EntropyR2, r2)
	}
	if s := slices.Min(shares); math.Abs(s-f.SmallestShare) > 1e-9 {
		t.Errorf("%d classes: smallest share %.12f, by hand %.12f", k, f.SmallestShare, s)
	}
}

// TestLCMStartsDeterministic checks that FitLCM's starts give the same
// log-likelihoods and parameters, bit for bit, on 1 and 2 workers, and
// that Learn's fit table is the same for the same seed.
func TestLCMStartsDeterministic(t *testing.T) {
	d, _ := simulateLCM(t, lcmCase{rows: 300, classes: 3, states: []int{3, 2, 4, 2, 3}, missing: 0.05, sep: 0.4, seed: 22})
	var ref []float64
	var refModel *discrete.Model
	for _, w := range []int{1, 2} {
		m, em, lls, err := learn.FitLCM(d, 3, learn.LCMFitOptions{Starts: 5, Seed: 77, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if len(lls) != 5 || !slices.Equal(lls, em.Starts) || em.LogLik != slices.Max(lls) {
			t.Fatalf("workers %d: starts %v, EM starts %v, LL %v", w, lls, em.Starts, em.LogLik)
		}
		if !slices.IsSortedFunc(m.Prior, func(a, b float64) int { return -cmp.Compare(a, b) }) {
			t.Errorf("workers %d: classes not in canonical order (decreasing share): %v", w, m.Prior)
		}
		if ref == nil {
			ref, refModel = lls, m
			continue
		}
		if !slices.Equal(lls, ref) || !slices.Equal(m.Prior, refModel.Prior) {
			t.Errorf("workers %d: starts %v prior %v; workers 1: %v %v", w, lls, m.Prior, ref, refModel.Prior)
		}
	}
	var first *learn.LCMReport
	for _, w := range []int{1, 2} {
		res, err := learn.Learn(d, learn.Options{Method: learn.LCM, LCM: learn.LCMOptions{MaxClasses: 3, Restarts: 3}, Workers: w,
			Fit: model.FitOptions{EM: model.EMOptions{Src: rand.NewPCG(5, 6)}}})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res.LCM
			continue
		}
		for i, f := range res.LCM.Fits {
			if !slices.Equal(f.StartLogLiks, first.Fits[i].StartLogLiks) || f.LogLik != first.Fits[i].LogLik {
				t.Errorf("%d classes: workers 2 starts %v, workers 1 %v", f.Classes, f.StartLogLiks, first.Fits[i].StartLogLiks)
			}
		}
	}
}

// TestLCMNotReplicated constructs a case whose best log-likelihood one
// start only reaches: rows of independent uniform answers fitted with 5
// classes from 3 starts, where every start ends on its own flat optimum.
// The report must say so.
func TestLCMNotReplicated(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	vars := make([]data.Variable, 6)
	cols := make([][]uint16, 6)
	for j := range vars {
		vars[j] = data.Variable{Name: string(rune('a' + j)), Kind: data.Discrete, States: []string{"1", "2", "3", "4"}}
		cols[j] = make([]uint16, 150)
		for r := range cols[j] {
			cols[j][r] = uint16(rng.IntN(4))
		}
	}
	d, err := data.FromDiscrete(vars, cols)
	if err != nil {
		t.Fatal(err)
	}
	res, err := learn.Learn(d, learn.Options{Method: learn.LCM, Fit: model.FitOptions{HiddenStates: 5}, LCM: learn.LCMOptions{Restarts: 3}, Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	f := res.LCM.Fits[0]
	lls := slices.Clone(f.StartLogLiks)
	slices.Sort(lls)
	if lls[2]-lls[1] <= learn.LCMReplicateTol {
		t.Fatalf("the case does not separate the starts: %v", f.StartLogLiks)
	}
	if f.Replicated != 1 || f.BestReplicated || !slices.Equal(res.LCM.NotReplicated(), []int{5}) {
		t.Errorf("starts %v: replicated %d (%v), not replicated %v; want 1, false, [5]", f.StartLogLiks, f.Replicated, f.BestReplicated, res.LCM.NotReplicated())
	}
}

// TestAutoStatesTable checks the fit table of Fit.AutoStates on a learned
// tree: every uniform count from 2 to 5, criteria by the formulas, and the
// start of the per-variable search the count of smallest BIC among the
// rows fitted in full (a screened row's BIC is an upper bound of a count
// that could not win).
func TestAutoStatesTable(t *testing.T) {
	d, _ := simulateLCM(t, lcmCase{rows: 500, classes: 3, states: []int{3, 3, 3, 3, 3, 3}, missing: 0, sep: 0.5, seed: 23})
	n := float64(d.NumRows())
	for _, rule := range []learn.ContractRule{learn.ContractBIC, learn.ContractThreshold} {
		res, err := learn.Learn(d, learn.Options{Method: learn.CLNJ, Fit: model.FitOptions{AutoStates: true}, Contract: learn.ContractOptions{Rule: rule}})
		if err != nil {
			t.Fatal(err)
		}
		h := res.HiddenStates
		if h == nil || len(h.Fits) != 4 || h.Rule != learn.UniformRule {
			t.Fatalf("%v: %+v", rule, h)
		}
		best, bestBIC := 0, math.Inf(1)
		for i, f := range h.Fits {
			if f.States != i+2 {
				t.Fatalf("%v: row %d has %d states", rule, i, f.States)
			}
			kp := float64(f.Params)
			if math.Abs(f.BIC-(-2*f.LogLik+kp*math.Log(n))) > 1e-9*math.Abs(f.BIC) || math.Abs(f.ABIC-(-2*f.LogLik+kp*math.Log((n+2)/24))) > 1e-9*math.Abs(f.ABIC) ||
				math.Abs(f.CAIC-(-2*f.LogLik+kp*(math.Log(n)+1))) > 1e-9*math.Abs(f.CAIC) || math.Abs(f.AIC-(-2*f.LogLik+2*kp)) > 1e-9*math.Abs(f.AIC) {
				t.Errorf("%v: %d states: %+v off the formulas", rule, f.States, f.FitCriteria)
			}
			if f.EntropyR2 < 0 || f.EntropyR2 > 1 || f.SmallestShare <= 0 || f.SmallestShare > 1.0/float64(f.States)+1e-12 {
				t.Errorf("%v: %d states: entropy R² %v, smallest share %v", rule, f.States, f.EntropyR2, f.SmallestShare)
			}
			if !f.Screened && f.BIC < bestBIC {
				best, bestBIC = f.States, f.BIC
			}
		}
		if h.Uniform != best {
			t.Errorf("%v: search started from %d states, smallest BIC at %d", rule, h.Uniform, best)
		}
	}
}
