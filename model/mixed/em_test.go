package mixed

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latentree/latentree/model"
)

// TestStandardise checks that re-standardising hidden continuous nodes
// leaves the likelihood unchanged and gives them mean 0 and variance 1.
func TestStandardise(t *testing.T) {
	for ci, nodes := range [][]node{mixedNodes, gaussNodes, gaussObsRoot} {
		rng := rand.New(rand.NewPCG(20, uint64(ci)))
		m := build(t, nodes, rng)
		d := sample(t, m, rng, 50, 0.2)
		ll0, _, err := m.LogLikelihood(d, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, mean, variance := m.marginals()
		moved := false
		for _, h := range m.Tree.Hidden() {
			if m.Kinds[h] == C && (math.Abs(mean[h]) > 0.01 || math.Abs(variance[h]-1) > 0.01) {
				moved = true
			}
		}
		if !moved {
			t.Fatalf("case %d: hidden continuous nodes already standard", ci)
		}
		m.standardise()
		ll1, _, err := m.LogLikelihood(d, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for r := range ll0 {
			if !near(ll0[r], ll1[r], 1e-10) {
				t.Errorf("case %d row %d: %.12g, was %.12g", ci, r, ll1[r], ll0[r])
			}
		}
		_, mean, variance = m.marginals()
		for _, h := range m.Tree.Hidden() {
			if m.Kinds[h] == C && (math.Abs(mean[h]) > 1e-12 || math.Abs(variance[h]-1) > 1e-12) {
				t.Errorf("case %d node %d: mean %g variance %g", ci, h, mean[h], variance[h])
			}
		}
	}
}

// TestEMMonotone runs plain EM steps and checks that the log-likelihood
// never decreases and ends well above the start.
func TestEMMonotone(t *testing.T) {
	for ci, nodes := range [][]node{mixedNodes, gaussNodes, discNodes} {
		rng := rand.New(rand.NewPCG(21, uint64(ci)))
		truth := build(t, nodes, rng)
		d := sample(t, truth, rng, 400, 0.15)
		m := build(t, nodes, rng) // another random model: the start
		prev := math.Inf(-1)
		first := 0.0
		for it := range 40 {
			x, err := m.EStep(d, model.InferOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if it == 0 {
				first = x.LogLik
			}
			if x.LogLik < prev-1e-9*math.Abs(prev) {
				t.Errorf("case %d iteration %d: log-likelihood fell from %.12g to %.12g", ci, it, prev, x.LogLik)
			}
			prev = x.LogLik
			if _, err := m.MStep(x); err != nil {
				t.Fatal(err)
			}
		}
		if !(prev > first+1) {
			t.Errorf("case %d: EM went from %g to %g", ci, first, prev)
		}
	}
}

func TestExpectedAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 1))
	a := build(t, mixedNodes, rng).NewExpected()
	b := build(t, gaussNodes, rng).NewExpected()
	if err := a.Add(b); err == nil {
		t.Error("statistics of different models added")
	}
	c := build(t, mixedNodes, rng)
	x := c.NewExpected()
	x.W[2][0], x.Rows = 3, 4
	if err := a.Add(x); err != nil || a.W[2][0] != 3 || a.Rows != 4 {
		t.Errorf("add: %v %v", err, a.W[2])
	}
}

// expectedQ is the expected complete-data log-likelihood of m's
// parameters given statistics x.
func expectedQ(m *Model, x *Expected) float64 {
	r := m.Rooted()
	q := 0.0
	for _, v := range r.Order {
		p := r.Parent[v]
		if m.Kinds[v] == D {
			tab := m.Prior
			if p >= 0 {
				tab = m.CPT[v]
			}
			for i, c := range x.Counts[v] {
				if c > 0 {
					q += c * math.Log(tab[i])
				}
			}
			continue
		}
		if p >= 0 && m.Kinds[p] == C {
			mu, b, vr := m.Mean[v][0], m.Coef[v], m.Var[v][0]
			w := x.W[v][0]
			ss := x.S2[v][0] - 2*mu*x.S1[v][0] - 2*b*x.Cross[v] + mu*mu*w + 2*mu*b*x.P1[v] + b*b*x.P2[v]
			q += -0.5*w*math.Log(2*math.Pi*vr) - ss/(2*vr)
			continue
		}
		for a, w := range x.W[v] {
			mu, vr := m.Mean[v][a], m.Var[v][a]
			ss := x.S2[v][a] - 2*mu*x.S1[v][a] + mu*mu*w
			q += -0.5*w*math.Log(2*math.Pi*vr) - ss/(2*vr)
		}
	}
	return q
}

// TestMaximise checks that the M-step maximises the expected
// complete-data log-likelihood: no small perturbation of its parameters
// does better.
func TestMaximise(t *testing.T) {
	for ci, nodes := range [][]node{mixedNodes, gaussNodes, discNodes} {
		rng := rand.New(rand.NewPCG(23, uint64(ci)))
		m := build(t, nodes, rng)
		d := sample(t, m, rng, 300, 0.2)
		start := build(t, nodes, rng)
		x, err := start.EStep(d, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if fl := start.maximise(x); len(fl) > 0 {
			t.Fatalf("floored %v", fl)
		}
		best := expectedQ(start, x)
		for range 200 {
			pert := build(t, nodes, rng) // only for its shape
			copyParams(pert, start)
			eps := 1e-3
			for _, v := range pert.Tree.Nodes() {
				if pert.CPT[v] != nil {
					jitterDist(pert.CPT[v], pert.States[v], eps, rng)
				}
				for a := range pert.Mean[v] {
					pert.Mean[v][a] += eps * rng.NormFloat64()
					pert.Var[v][a] *= math.Exp(eps * rng.NormFloat64())
				}
				pert.Coef[v] += eps * rng.NormFloat64()
			}
			if pert.Prior != nil {
				jitterDist(pert.Prior, len(pert.Prior), eps, rng)
			}
			if q := expectedQ(pert, x); q > best+1e-9*math.Abs(best) {
				t.Fatalf("case %d: perturbed parameters have Q %.12g > %.12g", ci, q, best)
			}
		}
	}
}

func copyParams(dst, src *Model) {
	dst.Prior = append([]float64(nil), src.Prior...)
	for v := range src.CPT {
		dst.CPT[v] = append([]float64(nil), src.CPT[v]...)
		dst.Mean[v] = append([]float64(nil), src.Mean[v]...)
		dst.Var[v] = append([]float64(nil), src.Var[v]...)
	}
	copy(dst.Coef, src.Coef)
}

// jitterDist multiplies each probability by a random factor near 1 and
// renormalises each row of k.
func jitterDist(p []float64, k int, eps float64, rng *rand.Rand) {
	for a := 0; a < len(p)/k; a++ {
		s := 0.0
		for x := range k {
			p[a*k+x] *= math.Exp(eps * rng.NormFloat64())
			s += p[a*k+x]
		}
		for x := range k {
			p[a*k+x] /= s
		}
	}
}

// recoveryTruth is a hand-set model with well separated states: a binary
// hidden root, a binary discrete hidden child, a continuous hidden node
// with two continuous children, and leaves of both kinds.
func recoveryTruth(t *testing.T) *Model {
	t.Helper()
	nodes := []node{
		{"", D, 2, -1}, // 0 root
		{"a", D, 3, 0}, // 1
		{"b", C, 0, 0}, // 2
		{"", D, 2, 0},  // 3
		{"c", C, 0, 3}, // 4
		{"d", D, 2, 3}, // 5
		{"", C, 0, 0},  // 6
		{"e", C, 0, 6}, // 7
		{"f", C, 0, 6}, // 8
		{"g", C, 0, 3}, // 9
	}
	m := build(t, nodes, rand.New(rand.NewPCG(1, 1)))
	id := func(i int) int { return i } // build adds nodes in order
	m.Prior = []float64{0.4, 0.6}
	m.CPT[id(1)] = []float64{0.7, 0.2, 0.1, 0.1, 0.3, 0.6}
	m.Mean[id(2)], m.Var[id(2)] = []float64{-1, 1.5}, []float64{0.5, 0.8}
	m.CPT[id(3)] = []float64{0.8, 0.2, 0.25, 0.75}
	m.Mean[id(4)], m.Var[id(4)] = []float64{0, 2}, []float64{1, 0.5}
	m.CPT[id(5)] = []float64{0.85, 0.15, 0.2, 0.8}
	m.Mean[id(6)], m.Var[id(6)] = []float64{-0.8, 0.8}, []float64{0.36, 0.36}
	m.Mean[id(7)], m.Coef[id(7)], m.Var[id(7)] = []float64{1}, 2, []float64{0.5}
	m.Mean[id(8)], m.Coef[id(8)], m.Var[id(8)] = []float64{-1}, -1.5, []float64{0.3}
	m.Mean[id(9)], m.Var[id(9)] = []float64{3, 1}, []float64{0.4, 0.4}
	m.standardise()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

// permuted returns m with the states of binary discrete hidden nodes
// swapped and continuous hidden nodes negated as flip's bits say.
func permuted(m *Model, flip int) *Model {
	c := m.clone()
	r := c.Rooted()
	bit := 0
	for _, h := range c.Tree.Hidden() {
		f := flip>>bit&1 == 1
		bit++
		if !f {
			continue
		}
		if c.Kinds[h] == C {
			for a := range c.Mean[h] {
				c.Mean[h][a] = -c.Mean[h][a]
			}
			c.Coef[h] = -c.Coef[h]
			for _, ch := range r.Children[h] {
				c.Coef[ch] = -c.Coef[ch]
			}
			continue
		}
		k := c.States[h]
		if r.Parent[h] < 0 {
			c.Prior[0], c.Prior[1] = c.Prior[1], c.Prior[0]
		} else {
			for a := 0; a < len(c.CPT[h])/k; a++ {
				c.CPT[h][a*k], c.CPT[h][a*k+1] = c.CPT[h][a*k+1], c.CPT[h][a*k]
			}
		}
		for _, ch := range r.Children[h] {
			if c.Kinds[ch] == D {
				kc := c.States[ch]
				row := slices.Clone(c.CPT[ch][:kc])
				copy(c.CPT[ch][:kc], c.CPT[ch][kc:2*kc])
				copy(c.CPT[ch][kc:2*kc], row)
				continue
			}
			c.Mean[ch][0], c.Mean[ch][1] = c.Mean[ch][1], c.Mean[ch][0]
			c.Var[ch][0], c.Var[ch][1] = c.Var[ch][1], c.Var[ch][0]
		}
	}
	return c
}

// paramDiff returns the largest differences between two models'
// probabilities, means and coefficients, and relative differences of
// variances.
func paramDiff(a, b *Model) (prob, mean, rvar float64) {
	for i := range a.Prior {
		prob = math.Max(prob, math.Abs(a.Prior[i]-b.Prior[i]))
	}
	for v := range a.CPT {
		for i := range a.CPT[v] {
			prob = math.Max(prob, math.Abs(a.CPT[v][i]-b.CPT[v][i]))
		}
		for i := range a.Mean[v] {
			mean = math.Max(mean, math.Abs(a.Mean[v][i]-b.Mean[v][i]))
			rvar = math.Max(rvar, math.Abs(a.Var[v][i]/b.Var[v][i]-1))
		}
		mean = math.Max(mean, math.Abs(a.Coef[v]-b.Coef[v]))
	}
	return prob, mean, rvar
}

// TestFitRecovers fits the structure of a simulated model and compares
// the parameters, up to relabelling hidden states and the signs of
// hidden continuous nodes. With 5000 rows the standard errors are about
// 0.01 for probabilities and 0.03 for means: the tolerances are 0.05
// (probabilities), 0.12 (means and coefficients) and 15% (variances).
func TestFitRecovers(t *testing.T) {
	truth := recoveryTruth(t)
	rng := rand.New(rand.NewPCG(30, 1))
	d := sample(t, truth, rng, 5000, 0.1)
	m, res, err := Fit(truth.Tree, d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || res.Rows != 5000 || len(res.Trace) != res.Iterations {
		t.Errorf("result %+v", res)
	}
	for i := 1; i < len(res.Trace); i++ {
		if res.Trace[i] < res.Trace[i-1]-1e-9*math.Abs(res.Trace[i-1]) {
			t.Errorf("trace falls at %d: %g after %g", i, res.Trace[i], res.Trace[i-1])
		}
	}
	_, ll, err := m.LogLikelihood(d, model.InferOptions{})
	if err != nil || !near(ll, res.LogLik, 1e-12) {
		t.Errorf("LogLik %.12g, model's %.12g (%v)", res.LogLik, ll, err)
	}
	_, llTrue, _ := truth.LogLikelihood(d, model.InferOptions{})
	if ll < llTrue {
		t.Errorf("fit %g below the truth's %g", ll, llTrue)
	}
	best := math.Inf(1)
	var bp, bm, bv float64
	for flip := range 8 {
		p, mu, v := paramDiff(permuted(m, flip), truth)
		if s := p + mu + v; s < best {
			best, bp, bm, bv = s, p, mu, v
		}
	}
	t.Logf("%d iterations; largest errors: probability %.3f, mean %.3f, variance %.1f%%", res.Iterations, bp, bm, 100*bv)
	if bp > 0.05 || bm > 0.12 || bv > 0.15 {
		t.Errorf("errors: probability %.3f, mean %.3f, variance %.3f", bp, bm, bv)
	}
}

// TestFitWorkersRestarts checks that results do not depend on Workers
// and that restarts are reproducible and reported.
func TestFitWorkersRestarts(t *testing.T) {
	truth := recoveryTruth(t)
	d := sample(t, truth, rand.New(rand.NewPCG(31, 1)), 700, 0.1)
	var lls []float64
	for _, w := range []int{1, 3} {
		_, res, err := Fit(truth.Tree, d, Options{Workers: w, Restarts: 2, RestartIter: 5, Src: rand.NewPCG(5, 5), MaxIter: 30})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Starts) != 3 || res.Iterations > 30 {
			t.Errorf("starts %v iterations %d", res.Starts, res.Iterations)
		}
		lls = append(lls, res.LogLik)
	}
	if lls[0] != lls[1] {
		t.Errorf("log-likelihood depends on Workers: %v", lls)
	}
	if _, _, err := Fit(truth.Tree, d, Options{Tol: -1}); err == nil {
		t.Error("negative tolerance accepted")
	}
}

// TestFitBudget checks, for every small MaxIter and both accelerations,
// that EM stops within the budget at a model whose log-likelihood is
// EMResult.LogLik, and that SQUAREM and plain EM converge to the same
// log-likelihood.
func TestFitBudget(t *testing.T) {
	truth := recoveryTruth(t)
	d := sample(t, truth, rand.New(rand.NewPCG(32, 1)), 400, 0.1)
	for _, acc := range []model.Accel{model.AccelSQUAREM, model.AccelNone} {
		for it := 1; it <= 9; it++ {
			m, res, err := Fit(truth.Tree, d, Options{MaxIter: it, Accel: acc})
			if err != nil {
				t.Fatal(err)
			}
			_, ll, _ := m.LogLikelihood(d, model.InferOptions{})
			if res.Iterations > it || len(res.Trace) != res.Iterations || !near(ll, res.LogLik, 1e-12) || res.Trace[len(res.Trace)-1] != res.LogLik {
				t.Errorf("%v MaxIter %d: %d iterations, LogLik %.12g, model's %.12g", acc, it, res.Iterations, res.LogLik, ll)
			}
		}
	}
	var lls []float64
	for _, acc := range []model.Accel{model.AccelSQUAREM, model.AccelNone} {
		_, res, err := Fit(truth.Tree, d, Options{Accel: acc, Tol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(res.Trace); i++ {
			if res.Trace[i] < res.Trace[i-1]-1e-9*math.Abs(res.Trace[i-1]) {
				t.Errorf("%v: trace falls at %d", acc, i)
			}
		}
		lls = append(lls, res.LogLik)
	}
	if math.Abs(lls[0]-lls[1]) > 1e-3 {
		t.Errorf("SQUAREM reached %.6f, plain EM %.6f", lls[0], lls[1])
	}
}

// TestFitDegenerate fits data with a constant continuous column, a
// column with every cell missing and a one-state discrete column: EM must
// end at a valid model with a finite log-likelihood, and report the
// floored variance of the constant column.
func TestFitDegenerate(t *testing.T) {
	truth := recoveryTruth(t)
	d := sample(t, truth, rand.New(rand.NewPCG(33, 1)), 300, 0.1)
	jb, _ := d.Index("b")
	je, _ := d.Index("e")
	for r := range d.NumRows() {
		d.Continuous(jb)[r] = 2.5
		d.Continuous(je)[r] = math.NaN()
	}
	m, res, err := Fit(truth.Tree, d, Options{Restarts: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil || math.IsInf(res.LogLik, 0) || math.IsNaN(res.LogLik) {
		t.Fatalf("model %v, log-likelihood %g", err, res.LogLik)
	}
	if !slices.Contains(res.Floored, "b") {
		t.Errorf("floored %v, want b among them", res.Floored)
	}
}
