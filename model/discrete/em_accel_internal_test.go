package discrete

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/internal/testenv"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// binaryModel returns a random model on a caterpillar tree with m observed
// leaves of obs states and m−2 hidden nodes of hid states, with CPTs
// mixing a permutation-free diagonal and noise (well separated).
func binaryModel(t *testing.T, rng *rand.Rand, m, obs, hid int) *Model {
	t.Helper()
	tr := tree.New()
	var hidden []int
	for i := 0; i < m-2; i++ {
		hidden = append(hidden, tr.AddHidden())
		if i > 0 {
			if err := tr.AddEdge(hidden[i-1], hidden[i], math.NaN()); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < m; i++ {
		v, err := tr.AddObserved("x" + string(rune('a'+i)))
		if err != nil {
			t.Fatal(err)
		}
		h := hidden[max(0, min(len(hidden)-1, i-1))]
		if err := tr.AddEdge(h, v, math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	states := make([]int, tr.MaxID())
	for _, v := range tr.Nodes() {
		states[v] = obs
		if tr.IsHidden(v) {
			states[v] = hid
		}
	}
	md, err := New(tr, hidden[0], states)
	if err != nil {
		t.Fatal(err)
	}
	fill := func(p []float64, k int) {
		for a := 0; a < len(p)/k; a++ {
			s := 0.0
			for b := 0; b < k; b++ {
				p[a*k+b] = rng.Float64()
				if b == a%k {
					p[a*k+b] += 1.5
				}
				s += p[a*k+b]
			}
			for b := 0; b < k; b++ {
				p[a*k+b] /= s
			}
		}
	}
	fill(md.Prior, len(md.Prior))
	for _, v := range tr.Nodes() {
		if v != md.Root {
			fill(md.CPT[v], states[v])
		}
	}
	return md
}

// TestEMTraceNeverDecreases checks EM's objective per E-step, for both
// accelerations, with and without missing cells and pseudo-counts, on
// random models: every trace entry is at least the previous one (up to
// rounding, 1e-12 relative), the first is the start's objective, and the
// reported log-likelihood is that of the final parameters and at least
// the last trace entry's (without pseudo-counts). The properties hold
// exactly on any data, so the short form only has fewer rows: 1,000 per
// model (3,000 in the long form, LATENTREE_LONG=1).
func TestEMTraceNeverDecreases(t *testing.T) {
	rows := testenv.Pick(1000, 3000)
	rng := rand.New(rand.NewPCG(7, 7))
	for rep := 0; rep < 8; rep++ {
		var m *Model
		if rep%2 == 0 {
			m = smallModel(t, rng)
		} else {
			m = binaryModel(t, rng, 6+rep/2, 3, 2)
		}
		missing := []float64{0, 0.2}[rep/2%2]
		d := randomData(t, m, rng, rows, missing)
		start := m.Clone()
		start.Randomize(rng)
		for _, accel := range []model.Accel{model.AccelSQUAREM, model.AccelNone} {
			for _, pseudo := range []float64{0, 0.5} {
				fit := start.Clone()
				res, err := fit.FitEM(d, model.EMOptions{Restarts: -1, Accel: accel, Pseudo: pseudo, Tol: 1e-12, MaxIter: 150, Workers: 2})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Trace) != res.Iterations {
					t.Fatalf("%d trace entries for %d E-steps", len(res.Trace), res.Iterations)
				}
				for i := 1; i < len(res.Trace); i++ {
					if res.Trace[i] < res.Trace[i-1]-1e-12*math.Abs(res.Trace[i-1]) {
						t.Fatalf("rep %d %v pseudo %g: objective decreased at E-step %d: %.10g → %.10g", rep, accel, pseudo, i+1, res.Trace[i-1], res.Trace[i])
					}
				}
				_, ll0, _ := start.LogLikelihood(d, model.InferOptions{})
				if want := ll0 + pseudo*start.logParams(); math.Abs(res.Trace[0]-want) > 1e-9*math.Abs(want) {
					t.Errorf("first trace entry %g, the start's objective %g", res.Trace[0], want)
				}
				_, ll, _ := fit.LogLikelihood(d, model.InferOptions{})
				if math.Abs(ll-res.LogLik) > 1e-9*math.Abs(ll) {
					t.Errorf("reported log-likelihood %g, recomputed %g", res.LogLik, ll)
				}
				last := res.Trace[len(res.Trace)-1]
				if pseudo > 0 {
					last -= pseudo * fit.logParams()
				}
				if pseudo == 0 && ll < last-1e-9*math.Abs(last) {
					t.Errorf("final log-likelihood %g below the last trace entry %g", ll, last)
				}
			}
		}
	}
}

// TestSQUAREMShortRunsArePlainEM: with budgets of one or two E-steps
// SQUAREM cannot extrapolate, and gives plain EM's parameters exactly
// (regularized CLGrouping runs EM with MaxIter 2).
func TestSQUAREMShortRunsArePlainEM(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	m := binaryModel(t, rng, 6, 3, 2)
	d := randomData(t, m, rng, 500, 0.1)
	for _, n := range []int{1, 2} {
		a, b := m.Clone(), m.Clone()
		a.Randomize(rand.NewPCG(1, 1))
		b.Randomize(rand.NewPCG(1, 1))
		ra, err := a.FitEM(d, model.EMOptions{Restarts: -1, MaxIter: n})
		if err != nil {
			t.Fatal(err)
		}
		rb, err := b.FitEM(d, model.EMOptions{Restarts: -1, MaxIter: n, Accel: model.AccelNone})
		if err != nil {
			t.Fatal(err)
		}
		if ra.LogLik != rb.LogLik || ra.Iterations != n || rb.Iterations != n {
			t.Errorf("MaxIter %d: SQUAREM %g in %d, plain %g in %d", n, ra.LogLik, ra.Iterations, rb.LogLik, rb.Iterations)
		}
		for v := range a.CPT {
			for i := range a.CPT[v] {
				if a.CPT[v][i] != b.CPT[v][i] {
					t.Fatalf("MaxIter %d: CPT of %d differs", n, v)
				}
			}
		}
	}
}

func TestParseAccelStop(t *testing.T) {
	for _, a := range []model.Accel{model.AccelSQUAREM, model.AccelNone} {
		if got, err := model.ParseAccel(a.String()); err != nil || got != a {
			t.Errorf("ParseAccel(%q) = %v, %v", a.String(), got, err)
		}
	}
	for _, s := range []model.Stop{model.StopAuto, model.StopRelative} {
		if got, err := model.ParseStop(s.String()); err != nil || got != s {
			t.Errorf("ParseStop(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := model.ParseAccel("fast"); err == nil {
		t.Error("ParseAccel accepted fast")
	}
	if _, err := model.ParseStop("never"); err == nil {
		t.Error("ParseStop accepted never")
	}
	rng := rand.New(rand.NewPCG(1, 5))
	m := smallModel(t, rng)
	d := randomData(t, m, rng, 50, 0)
	for _, opt := range []model.EMOptions{{Accel: 7}, {Stop: -1}, {Tol: math.NaN()}, {Pseudo: -1}, {Gain: -1}, {Gain: math.Inf(1)}} {
		if _, err := m.FitEM(d, opt); err == nil {
			t.Errorf("FitEM accepted %+v", opt)
		}
	}
}

// EM's result does not depend on the number of workers: E-step sums are
// added in block order (the safeguard and the stopping rule compare
// nearby likelihoods, so rounding differences could change the path).
func TestEMSameForAnyWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	m := binaryModel(t, rng, 9, 4, 2)
	d := randomData(t, m, rng, 3000, 0.05)
	var ref *model.EMResult
	var refM *Model
	for _, w := range []int{1, 2, 3} {
		fit := m.Clone()
		res, err := fit.FitEM(d, model.EMOptions{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref, refM = res, fit
			continue
		}
		if res.LogLik != ref.LogLik || res.Iterations != ref.Iterations {
			t.Errorf("%d workers: %v in %d E-steps; 1 worker: %v in %d", w, res.LogLik, res.Iterations, ref.LogLik, ref.Iterations)
		}
		for v := range fit.CPT {
			for i := range fit.CPT[v] {
				if fit.CPT[v][i] != refM.CPT[v][i] {
					t.Fatalf("%d workers: CPT of node %d differs", w, v)
				}
			}
		}
	}
}

// EMOptions.Gain is a floor on StopAuto's tolerance Tol·|L| in nats: a
// Gain larger than any gain stops SQUAREM at its second cycle boundary (4
// E-steps: the start and one cycle), a smaller one later, and the default
// rule later still (|L| ≈ 2·10⁴ here, so Tol·|L| ≈ 0.02 nat); a Gain
// below Tol·|L| changes nothing.
func TestEMGain(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 7))
	m := binaryModel(t, rng, 9, 4, 2)
	d := randomData(t, m, rng, 3000, 0.05)
	steps := func(gain float64) int {
		fit := m.Clone()
		fit.Randomize(rand.NewPCG(1, 1))
		res, err := fit.FitEM(d, model.EMOptions{Restarts: -1, Gain: gain})
		if err != nil {
			t.Fatal(err)
		}
		return res.Iterations
	}
	huge, some, none := steps(1e9), steps(1), steps(0)
	if tiny := steps(1e-9); tiny != none {
		t.Errorf("Gain 1e-9: %d E-steps, the default rule %d", tiny, none)
	}
	if huge != 4 {
		t.Errorf("Gain 1e9: %d E-steps, want 4", huge)
	}
	if !(huge < some && some < none) {
		t.Errorf("E-steps with Gain 1e9, 1 and 0 (default): %d, %d, %d; want increasing", huge, some, none)
	}
}
