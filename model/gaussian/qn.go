package gaussian

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// The quasi-Newton phase of Gaussian EM. EM converges linearly, at the
// rate of the fraction of missing information, which on trees with many
// hidden variables is close to 1: thousands of E-steps for the last nats.
// BFGS converges superlinearly near the optimum and needs the gradient of
// the log-likelihood, which every E-step gives for free: by Fisher's
// identity it is the gradient of the expected complete-data
// log-likelihood Q(θ′|θ) at θ′ = θ, a function of the expected sufficient
// statistics (gradient).

// qnCoords are the coordinates of the quasi-Newton phase, in the order of
// save: for every observed node μ_v/s_v (s_v its standard deviation when
// the phase starts, so that every coordinate is on the scale of a
// correlation), unless fixMean, and log σ²_v, for every edge atanh ρ_v,
// bounded by ±atanh(rhoMax).
//
// fixMean leaves the means out when no cell is missing and every observed
// mean is the sample mean: then it is their maximum whatever the other
// parameters (the gradient in them is zero and the mixed second
// derivatives vanish there, as Σ⁻¹(x̄ − μ) = 0), so that BFGS would never
// move them, and dropping them shrinks its k² inverse-Hessian work (by
// nearly half on trees with few hidden nodes) without changing its steps.
type qnCoords struct {
	em      *gaussEM
	scale   []float64 // per node: s_v
	grad    []float64 // gradient's scratch, six entries per node
	amax    float64
	fixMean bool
}

func newQNCoords(em *gaussEM) *qnCoords {
	g := em.g
	c := &qnCoords{em: em, scale: make([]float64, g.Tree.MaxID()), amax: math.Atanh(rhoMax), fixMean: em.meansAtSample()}
	for _, v := range em.nodes {
		c.scale[v] = math.Sqrt(g.Var[v])
	}
	return c
}

// meansAtSample reports whether no cell is missing (one pattern, dense)
// and every observed node's mean is the sample mean, to within rounding.
func (em *gaussEM) meansAtSample() bool {
	if len(em.pats) != 1 {
		return false
	}
	pt := em.pats[0]
	if !pt.dense || len(pt.idx) != len(em.b.obs) || len(pt.mean) != len(pt.idx) {
		return false
	}
	for a, i := range pt.idx {
		mu, xbar := em.g.Mean[em.b.obs[i]], pt.mean[a]
		if math.Abs(mu-xbar) > 1e-12*(math.Abs(xbar)+math.Sqrt(em.g.Var[em.b.obs[i]])) {
			return false
		}
	}
	return true
}

// size is the number of coordinates.
func (c *qnCoords) size() int {
	per := 2 // μ_v/s_v and log σ²_v
	if c.fixMean {
		per = 1
	}
	return per*c.em.g.Tree.NumObserved() + len(c.em.nodes) - 1
}

// edges reports, for every coordinate in the order of save, whether it is
// an edge's atanh ρ (bounded by ±amax).
func (c *qnCoords) edges() []bool {
	g := c.em.g
	out := make([]bool, 0, c.size())
	for _, v := range c.em.nodes {
		if !g.Tree.IsHidden(v) {
			out = append(out, false)
			if !c.fixMean {
				out = append(out, false)
			}
		}
		if v != g.Root {
			out = append(out, true)
		}
	}
	return out
}

func (c *qnCoords) save(x []float64) {
	g := c.em.g
	k := 0
	for _, v := range c.em.nodes {
		if !g.Tree.IsHidden(v) {
			if !c.fixMean {
				x[k] = g.Mean[v] / c.scale[v]
				k++
			}
			x[k] = math.Log(g.Var[v])
			k++
		}
		if v != g.Root {
			x[k] = math.Atanh(max(-rhoMax, min(rhoMax, g.Rho[v])))
			k++
		}
	}
}

func (c *qnCoords) load(x []float64) {
	g := c.em.g
	k := 0
	for _, v := range c.em.nodes {
		if !g.Tree.IsHidden(v) {
			if !c.fixMean {
				g.Mean[v] = x[k] * c.scale[v]
				k++
			}
			g.Var[v] = math.Exp(max(-700, min(700, x[k])))
			k++
		}
		if v != g.Root {
			g.Rho[v] = max(-rhoMax, min(rhoMax, math.Tanh(x[k])))
			k++
		}
	}
}

// gradient writes to grad the gradient of the log-likelihood in the
// coordinates of c at the model's parameters, from st, their expected
// statistics. In standardised values z_v = (x_v − μ_v)/σ_v, with
// w_v = 1 − ρ_v², the expected complete-data log-likelihood is
//
//	Q = −n Σ_v log σ_v − n/2 Σ_{v≠root} log w_v + Σ_v c_v Z2_v + Σ_{v≠root} (ρ_v/w_v) ZP_v
//
// (up to a constant) where Z1_v, Z2_v and ZP_v are the sums over rows of
// E[z_v], E[z_v²] and E[z_v z_parent(v)], and c_v = −1/(2w_v) (−½ at the
// root) − Σ_{children u} ρ_u²/(2w_u). Its derivatives, with the
// statistics held fixed, are the gradient of the log-likelihood.
func (c *qnCoords) gradient(st *gaussStats, grad []float64) {
	em := c.em
	g := em.g
	r := g.Rooted()
	n := em.b.n
	size := g.Tree.MaxID()
	if len(c.grad) != 6*size {
		c.grad = make([]float64, 6*size)
	}
	clear(c.grad)
	sd := c.grad[:size]
	z1 := c.grad[size : 2*size]
	z2 := c.grad[2*size : 3*size]
	zp := c.grad[3*size : 4*size]
	coef := c.grad[4*size : 5*size] // c_v
	kap := c.grad[5*size:]          // ρ_v/w_v
	for _, v := range em.nodes {
		sd[v] = math.Sqrt(g.Var[v])
		mu := g.Mean[v]
		z1[v] = (st.s1[v] - n*mu) / sd[v]
		z2[v] = (st.s2[v] - 2*mu*st.s1[v] + n*mu*mu) / g.Var[v]
		coef[v] = -0.5
	}
	for _, v := range em.nodes {
		p := r.Parent[v]
		if p < 0 {
			continue
		}
		rho := g.Rho[v]
		w := 1 - rho*rho
		zp[v] = (st.sp[v] - g.Mean[v]*st.s1[p] - g.Mean[p]*st.s1[v] + n*g.Mean[v]*g.Mean[p]) / (sd[v] * sd[p])
		coef[v] += -0.5/w + 0.5 // replaces the root's −½
		coef[p] -= rho * rho / (2 * w)
		kap[v] = rho / w
	}
	k := 0
	for _, v := range em.nodes {
		p := r.Parent[v]
		if !g.Tree.IsHidden(v) {
			dmu := -2 * coef[v] * z1[v]
			deta := -n/2 - coef[v]*z2[v]
			if p >= 0 {
				dmu -= kap[v] * z1[p]
				deta -= kap[v] * zp[v] / 2
			}
			for _, u := range r.Children[v] {
				dmu -= kap[u] * z1[u]
				deta -= kap[u] * zp[u] / 2
			}
			// ∂/∂(μ_v/s_v) = s_v ∂/∂μ_v.
			if !c.fixMean {
				grad[k] = c.scale[v] * dmu / sd[v]
				k++
			}
			grad[k] = deta
			k++
		}
		if p >= 0 {
			rho := g.Rho[v]
			w := 1 - rho*rho
			nres := z2[v] - 2*rho*zp[v] + rho*rho*z2[p]
			grad[k] = n*rho + zp[v] - rho*z2[p] - rho*nres/w
			k++
		}
	}
}

// qnShrink scales the tolerance of quasiNewton's stopping rule: BFGS
// learns the curvature of the log-likelihood along the directions it has
// stepped in, so that ½gᵀHg underestimates the remaining gain along flat
// ridges it has not explored (on random binary trees of 10 to 80 observed
// variables at n = 200 to 10,000, stopping at ½gᵀHg ≤ 1e-4 nat left up to
// 0.5 nat, at 1e-7 up to 0.03 nat, at 1e-9 up to 0.003 nat); near the
// optimum BFGS converges superlinearly, so that the smaller bound costs few
// E-steps, and the rounding error of L (qnNoise) floors it.
const qnShrink = 1e-7

// boundGain bounds the gain of moving the edges whose |ρ| exceeds 0.99
// to the bound, in the direction of the gradient: (1 − |ρ|)|∂L/∂ρ| =
// |∂L/∂atanh ρ|/(1 + |ρ|) each (exact if L is concave in ρ there). Near
// the bound atanh ρ flattens the log-likelihood, and BFGS's curvature
// estimate there is poor, so that ½gᵀHg misses such gains.
func (c *qnCoords) boundGain(x, g []float64, active []bool) float64 {
	isEdge := c.edges()
	sum := 0.0
	for i, e := range isEdge {
		if !e || active[i] || g[i]*x[i] <= 0 {
			continue
		}
		if r := math.Abs(math.Tanh(x[i])); r > 0.99 {
			sum += math.Abs(g[i]) / (1 + r)
		}
	}
	return sum
}

// qnNoise is the relative rounding error of a log-likelihood: 1e-13·|L|,
// about 500 units in the last place.
const qnNoise = 1e-13

// qnMaxStep bounds the largest change of any coordinate in one
// quasi-Newton step (a factor e of a variance, a unit of atanh ρ).
const qnMaxStep = 1.0

// qnPool holds the memory of quasiNewton's inverse Hessian estimates.
var qnPool = sync.Pool{New: func() any { return new([]float64) }}

// quasiNewton maximises the log-likelihood by BFGS from the model's
// parameters (whose statistics and log-likelihood are l.st and l.cur),
// each evaluation one E-step, with a backtracking (Armijo) line search and
// steps of at most qnMaxStep in any coordinate, and
// the edges' atanh ρ projected onto ±atanh(rhoMax). It stops when the
// quadratic model's predicted remaining gain, ½ gᵀHg over the
// coordinates not held at a bound (H the BFGS estimate of the inverse of
// the negative Hessian), and the gain of the last step are both at most
// eps·qnShrink (or the rounding error of L), and boundGain is at most eps;
// it reports convergence (false when maxIter ended it). The line search
// backtracks to the maximum of a parabola, within [t/10, t/2].
func (l *gaussLoop) quasiNewton(eps float64) (bool, error) {
	c := newQNCoords(l.em)
	isEdge := c.edges()
	k := len(isEdge)
	// The vectors, in one pooled buffer.
	vecs := getBuf(11 * k)
	defer putBuf(vecs)
	clear(vecs)
	vec := func(i int) []float64 { return vecs[i*k : (i+1)*k : (i+1)*k] }
	x, g := vec(0), vec(1)
	c.save(x)
	c.gradient(l.st, g)
	// The inverse Hessian estimate, in the memory of an earlier call's
	// when there is one (resetH clears it first), not k² fresh floats
	// (800 kB for 300 parameters) on every call.
	hbuf := qnPool.Get().(*[]float64)
	defer qnPool.Put(hbuf)
	if cap(*hbuf) < k*k {
		*hbuf = make([]float64, k*k)
	}
	h := mat.NewSymDense(k, (*hbuf)[:k*k])
	raw := h.RawSymmetric() // upper triangle, row-major
	n := l.em.b.n
	// w is H g at the current point, kept through every change of H and
	// g, so that each iteration needs one product of H with a vector
	// (H gn, from which H y = w − H gn and the updated H gn follow)
	// rather than two.
	w := vec(2)
	resetH := func(scale float64) {
		h.Zero()
		for i := range k {
			raw.Data[i*raw.Stride+i] = scale
			w[i] = scale * g[i]
		}
	}
	resetH(1 / n)
	first := true
	d, xn, gn, s, y, hy, gm, u := vec(3), vec(4), vec(5), vec(6), vec(7), vec(8), vec(9), vec(10)
	uv, gnv := mat.NewVecDense(k, u), mat.NewVecDense(k, gn)
	active := make([]bool, k)
	for l.it < l.maxIter {
		// Edges held at a bound: at ±amax with the gradient pointing out.
		for i := range k {
			active[i] = isEdge[i] && math.Abs(x[i]) >= c.amax*(1-1e-12) && g[i]*x[i] > 0
		}
		// d = H g over the free coordinates: H g less g_i times the
		// column of H of each held coordinate i.
		copy(d, w)
		for i := range k {
			gm[i] = g[i]
			if !active[i] {
				continue
			}
			gm[i] = 0
			gi := g[i]
			for j := range i {
				d[j] -= gi * raw.Data[j*raw.Stride+i]
			}
			row := raw.Data[i*raw.Stride : i*raw.Stride+k]
			for j := i; j < k; j++ {
				d[j] -= gi * row[j]
			}
		}
		pred := 0.0
		for i := range k {
			if active[i] {
				d[i] = 0
			}
			pred += gm[i] * d[i]
		}
		slope := pred
		if !(slope > 0) {
			if first {
				return true, nil // a zero gradient
			}
			resetH(1 / n)
			first = true
			continue
		}
		// Predicted remaining gain of the quadratic model, against the
		// tolerance or, if larger, the rounding error of the
		// log-likelihood (below which no line search can see a gain).
		tol := max(eps*qnShrink, qnNoise*math.Abs(l.cur))
		if pred/2 <= tol && l.lastGain <= tol && c.boundGain(x, g, active) <= eps {
			return true, nil
		}
		big := 0.0
		for i := range k {
			big = max(big, math.Abs(d[i]))
		}
		t := 1.0
		if big > qnMaxStep {
			t = qnMaxStep / big
		}
		st0, ll0 := l.st, l.cur
		accepted := false
		for range 20 {
			if l.it >= l.maxIter {
				break
			}
			for i := range k {
				xn[i] = x[i] + t*d[i]
				if isEdge[i] {
					xn[i] = max(-c.amax, min(c.amax, xn[i]))
				}
			}
			c.load(xn)
			lln, err := l.estep()
			if err != nil {
				l.it++
				lln = math.Inf(-1)
			}
			// A step must raise L: where 1e-4·t·slope is below L's
			// last place the Armijo test alone would take an equal L
			// for a gain, and BFGS would go on taking such steps (an
			// edge at the bound, seen at 30,000 E-steps).
			if lln >= ll0+1e-4*t*slope && lln > ll0 && !math.IsInf(lln, 0) {
				l.emit(lln)
				accepted = true
				break
			}
			l.st, l.cur = st0, ll0
			l.emit(ll0)
			// The maximum of the parabola through L(0), its slope and
			// L(t), kept within [t/10, t/2].
			tq := 0.5 * t
			if !math.IsInf(lln, 0) {
				if den := lln - ll0 - t*slope; den < 0 {
					tq = -slope * t * t / (2 * den)
				}
			}
			t = max(t/10, min(t/2, tq))
		}
		if !accepted {
			c.load(x)
			l.st, l.cur = st0, ll0
			if first {
				// No ascent even from a scaled gradient step: the
				// optimum to machine precision.
				return l.it < l.maxIter, nil
			}
			resetH(1 / n)
			first = true
			continue
		}
		l.lastGain = l.cur - ll0
		c.gradient(l.st, gn)
		// H gn with H as it is, and the secant pair for −L: s = Δx,
		// y = −Δg, H y = w − H gn.
		uv.MulVec(h, gnv)
		sy := 0.0
		for i := range k {
			s[i] = xn[i] - x[i]
			y[i] = g[i] - gn[i]
			hy[i] = w[i] - u[i]
			sy += s[i] * y[i]
		}
		copy(x, xn)
		copy(g, gn)
		copy(w, u)
		yy := 0.0
		for i := range k {
			yy += y[i] * y[i]
		}
		if !(sy > 1e-12*math.Sqrt(yy)*norm(s)) {
			continue // no positive curvature: keep H (w = H g already)
		}
		if first {
			resetH(sy / yy) // w = H g for the new H
			for i := range k {
				hy[i] = sy / yy * y[i]
			}
			first = false
		}
		// H ← (I − ρsyᵀ) H (I − ρysᵀ) + ρssᵀ, ρ = 1/sᵀy, that is
		// H + a ssᵀ − b (Hy sᵀ + s (Hy)ᵀ) with a = (1 + yᵀHy/sᵀy)/sᵀy and
		// b = 1/sᵀy, row by row over the upper triangle; and w = H g
		// for the new H from the old one's.
		yhy, sg, hyg := 0.0, 0.0, 0.0
		for i := range k {
			yhy += y[i] * hy[i]
			sg += s[i] * g[i]
			hyg += hy[i] * g[i]
		}
		a, b := (1+yhy/sy)/sy, 1/sy
		impl := blas64.Implementation()
		for i := range k {
			// Row i from the diagonal on: (a s_i − b Hy_i) s + (−b s_i) Hy.
			row := raw.Data[i*raw.Stride+i : i*raw.Stride+k]
			impl.Daxpy(k-i, a*s[i]-b*hy[i], s[i:], 1, row, 1)
			impl.Daxpy(k-i, -b*s[i], hy[i:], 1, row, 1)
			w[i] += a*s[i]*sg - b*(hy[i]*sg+s[i]*hyg)
		}
	}
	return false, nil
}

func norm(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}
