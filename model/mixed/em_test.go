package mixed

import (
	"math"
	"math/rand/v2"
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
