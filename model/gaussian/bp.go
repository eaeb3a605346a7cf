package gaussian

import "math"

// gaussBP runs exact belief propagation on one row of a Gaussian latent
// tree model at a time, in standardised coordinates s_v = (x_v − μ_v)/σ_v
// (every node has mean 0 and variance 1 and s_v = ρ_v s_parent + noise of
// variance w_v = 1 − ρ_v²). Observed cells clamp their nodes; messages are
// Gaussian factors exp(c − ½ J s² + h s) in the parent's value. The cost
// is O(nodes) per row whatever cells are missing, which is what EM and
// imputation need when nearly every row has its own missingness pattern.
//
// It needs every edge to have |ρ| < 1 (w > 0); usable reports whether it
// does.
type gaussBP struct {
	g        *Model
	order    []int // parents before children
	parent   []int
	rho, w   []float64
	mu, sd   []float64
	logSD    []float64 // log σ_v
	obsConst []float64 // −½ log 2π − ½ log w_v: constant of an observed node's message
	col      []int     // node → column of the binding, −1 for hidden nodes
	j, h, c  []float64
	m, v, cp []float64 // posterior mean, variance, covariance with the parent (standardised)
	y        []float64 // standardised observed value (NaN: unobserved)
	slab     []float64 // the memory of the float vectors, pooled
}

const halfLog2Pi = 0.9189385332046728 // ½ log 2π

// minNoise is the smallest 1 − ρ² that belief propagation accepts.
const minNoise = 1e-12

func newGaussBP(g *Model, obs []int) *gaussBP {
	r := g.Rooted()
	n := g.Tree.MaxID()
	// The per-node vectors in one pooled slab (gaussEM.release gives it
	// back).
	full := zeroBuf(13 * n)
	slab := full
	next := func() []float64 {
		b := slab[:n:n]
		slab = slab[n:]
		return b
	}
	e := &gaussBP{g: g, order: r.Order, parent: r.Parent, slab: full,
		rho: next(), w: next(), mu: next(), sd: next(), col: make([]int, n),
		logSD: next(), obsConst: next(),
		j: next(), h: next(), c: next(),
		m: next(), v: next(), cp: next(), y: next()}
	for i := range e.col {
		e.col[i] = -1
	}
	for j, v := range obs {
		e.col[v] = j
	}
	e.refresh()
	return e
}

// refresh reads the model's current parameters.
func (e *gaussBP) refresh() {
	g := e.g
	for _, v := range e.order {
		e.mu[v], e.sd[v] = g.Mean[v], math.Sqrt(g.Var[v])
		e.logSD[v] = 0.5 * math.Log(g.Var[v])
		if v != g.Root {
			e.rho[v] = g.Rho[v]
			e.w[v] = 1 - g.Rho[v]*g.Rho[v]
			e.obsConst[v] = -halfLog2Pi - 0.5*math.Log(e.w[v])
		}
	}
}

// usable reports whether every edge has 1 − ρ² ≥ minNoise.
func (e *gaussBP) usable() bool {
	for _, v := range e.order {
		if v != e.g.Root && !(e.w[v] >= minNoise) {
			return false
		}
	}
	return true
}

// row runs belief propagation on row r of cols (columns in the order of
// the binding's observed nodes; NaN is missing). It returns the row's
// log-density of its observed cells and leaves in e.m, e.v and e.cp the
// standardised posterior mean and variance of every node and its
// posterior covariance with its parent.
func (e *gaussBP) row(cols [][]float64, r int) float64 {
	ll := 0.0
	for _, v := range e.order {
		e.j[v], e.h[v], e.c[v] = 0, 0, 0
		e.y[v] = math.NaN()
		if j := e.col[v]; j >= 0 {
			if x := cols[j][r]; !math.IsNaN(x) {
				e.y[v] = (x - e.mu[v]) / e.sd[v]
				ll -= e.logSD[v]
			}
		}
	}
	// prod collects the factors 1 + w J whose logs enter ll, so that
	// one log serves many nodes.
	prod := 1.0
	for k := len(e.order) - 1; k >= 0; k-- {
		v := e.order[k]
		p := e.parent[v]
		if y := e.y[v]; !math.IsNaN(y) {
			// Clamped: the children's messages are numbers now.
			ll += e.c[v] - 0.5*e.j[v]*y*y + e.h[v]*y
			if p < 0 {
				ll += -halfLog2Pi - 0.5*y*y
				continue
			}
			rho, w := e.rho[v], e.w[v]
			e.j[p] += rho * rho / w
			e.h[p] += rho * y / w
			e.c[p] += e.obsConst[v] - 0.5*y*y/w
			continue
		}
		if p < 0 {
			prec := 1 + e.j[v]
			ll += e.c[v] + 0.5*e.h[v]*e.h[v]/prec
			prod *= prec
			continue
		}
		rho, w := e.rho[v], e.w[v]
		den := 1 + w*e.j[v]
		e.j[p] += rho * rho * e.j[v] / den
		e.h[p] += rho * e.h[v] / den
		e.c[p] += e.c[v] + 0.5*w*e.h[v]*e.h[v]/den
		if prod *= den; prod > 1e200 {
			ll -= 0.5 * math.Log(prod)
			prod = 1
		}
	}
	ll -= 0.5 * math.Log(prod)
	for _, v := range e.order {
		p := e.parent[v]
		if y := e.y[v]; !math.IsNaN(y) {
			e.m[v], e.v[v], e.cp[v] = y, 0, 0
			continue
		}
		if p < 0 {
			prec := 1 + e.j[v]
			e.m[v], e.v[v], e.cp[v] = e.h[v]/prec, 1/prec, 0
			continue
		}
		rho, w := e.rho[v], e.w[v]
		den := 1 + w*e.j[v]
		beta := rho / den
		e.m[v] = beta*e.m[p] + w*e.h[v]/den
		e.v[v] = beta*beta*e.v[p] + w/den
		e.cp[v] = beta * e.v[p]
	}
	return ll
}
