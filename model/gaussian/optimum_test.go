package gaussian_test

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/tree"
)

// refOptimum is an implementation of the maximum likelihood of a Gaussian
// latent tree that shares no code with package gaussian: it maximises the
// log-likelihood of complete data, −n/2 (p log 2π + log|Σ| + tr(Σ⁻¹S)) with
// S the sample covariance and the means at the sample means, directly over
// the implied covariance Σ_ij = σ_i σ_j ∏ ρ_e (the product over the edges
// on the path from i to j), by BFGS with the analytic gradient, from
// several random starts, each run until the gradient is below 1e-8 per
// row. It returns the best log-likelihood found and the number of starts
// that came within 1e-3 nat of it; and, when from is not nil, the maximum
// reached from the parameters of from (a model on t).
func refOptimum(t *tree.Tree, d *data.Dataset, starts int, rng *rand.Rand, from *gaussian.Model) (best float64, agree int, fromFit float64) {
	obs := t.Observed()
	p := len(obs)
	n := d.NumRows()
	// Edges, and the edges on the path between every pair of observed
	// nodes (by parent pointers from an arbitrary root).
	edgeOf := map[[2]int]int{}
	for k, e := range t.Edges() {
		edgeOf[[2]int{e.U, e.V}], edgeOf[[2]int{e.V, e.U}] = k, k
	}
	ne := len(edgeOf) / 2
	nodes := t.Nodes()
	parent := map[int]int{nodes[0]: -1}
	depth := map[int]int{nodes[0]: 0}
	queue := []int{nodes[0]}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, w := range t.Neighbors(u) {
			if _, ok := parent[w]; !ok {
				parent[w], depth[w] = u, depth[u]+1
				queue = append(queue, w)
			}
		}
	}
	path := func(a, b int) []int {
		var out []int
		for a != b {
			if depth[a] < depth[b] {
				a, b = b, a
			}
			out = append(out, edgeOf[[2]int{a, parent[a]}])
			a = parent[a]
		}
		return out
	}
	paths := make([][]int, p*p)
	for i := range p {
		for j := range p {
			paths[i*p+j] = path(obs[i], obs[j])
		}
	}
	// Sample covariance (divisor n) of the columns of the observed nodes.
	cols := make([][]float64, p)
	for i, v := range obs {
		j, _ := d.Index(t.Name(v))
		cols[i] = d.Continuous(j)
	}
	S := mat.NewSymDense(p, nil)
	mean := make([]float64, p)
	for i := range p {
		for _, x := range cols[i] {
			mean[i] += x / float64(n)
		}
	}
	for i := range p {
		for j := i; j < p; j++ {
			s := 0.0
			for r := range n {
				s += (cols[i][r] - mean[i]) * (cols[j][r] - mean[j])
			}
			S.SetSym(i, j, s/float64(n))
		}
	}
	// x = (atanh ρ_e for every edge, log σ²_i for every observed node).
	sigma := func(x []float64) (*mat.SymDense, []float64) {
		rho := make([]float64, ne)
		for k := range ne {
			rho[k] = math.Tanh(x[k])
		}
		sd := make([]float64, p)
		for i := range p {
			sd[i] = math.Exp(x[ne+i] / 2)
		}
		out := mat.NewSymDense(p, nil)
		for i := range p {
			for j := i; j < p; j++ {
				c := sd[i] * sd[j]
				for _, k := range paths[i*p+j] {
					c *= rho[k]
				}
				out.SetSym(i, j, c)
			}
		}
		return out, rho
	}
	nll := func(x []float64) (float64, *mat.Dense, bool) {
		sg, _ := sigma(x)
		var ch mat.Cholesky
		if !ch.Factorize(sg) {
			return math.Inf(1), nil, false
		}
		var inv mat.SymDense
		if err := ch.InverseTo(&inv); err != nil {
			return math.Inf(1), nil, false
		}
		var is mat.Dense
		is.Mul(&inv, S)
		f := 0.5 * float64(n) * (float64(p)*math.Log(2*math.Pi) + ch.LogDet() + mat.Trace(&is))
		// ∂(−L)/∂Σ = n/2 (Σ⁻¹ − Σ⁻¹SΣ⁻¹).
		var g mat.Dense
		g.Mul(&is, &inv)
		g.Sub(&inv, &g)
		g.Scale(0.5*float64(n), &g)
		return f, &g, true
	}
	// fg returns −L at x and sets grad to its gradient.
	fg := func(x, grad []float64) float64 {
		clear(grad)
		f, g, ok := nll(x)
		if !ok || math.IsInf(f, 0) {
			return math.Inf(1)
		}
		sg, rho := sigma(x)
		for i := range p {
			for j := range p {
				gij, sij := g.At(i, j), sg.At(i, j)
				// Σ_ij ∝ ρ_e for each edge on the path: ∂/∂atanh ρ_e
				// = Σ_ij/ρ_e · (1 − ρ_e²), computed without dividing.
				for a, k := range paths[i*p+j] {
					c := sd2(sg, i, j) * (1 - rho[k]*rho[k])
					for b, k2 := range paths[i*p+j] {
						if b != a {
							c *= rho[k2]
						}
					}
					grad[k] += gij * c
				}
				// Σ_ij ∝ e^{x_i/2} e^{x_j/2}.
				grad[ne+i] += gij * sij / 2
				grad[ne+j] += gij * sij / 2
			}
		}
		return f
	}
	if from != nil {
		r := from.Rooted()
		x := make([]float64, ne+p)
		for k, e := range t.Edges() {
			c := e.V
			if r.Parent[e.U] == e.V {
				c = e.U
			}
			x[k] = math.Atanh(from.Rho[c])
		}
		for i, v := range obs {
			x[ne+i] = math.Log(from.Var[v])
		}
		fromFit = -bfgs(fg, x, 1e-8*float64(n), 20000)
	}
	best = math.Inf(-1)
	var finals []float64
	for range starts {
		x := make([]float64, ne+p)
		for k := range ne {
			x[k] = math.Atanh(0.2 + 0.7*rng.Float64())
		}
		for i := range p {
			x[ne+i] = math.Log(S.At(i, i) * (0.5 + rng.Float64()))
		}
		ll := -bfgs(fg, x, 1e-8*float64(n), 20000)
		finals = append(finals, ll)
		best = max(best, ll)
	}
	for _, f := range finals {
		if f >= best-1e-3 {
			agree++
		}
	}
	return best, agree, fromFit
}

// sd2 is σ_iσ_j, the product of the standard deviations in Σ.
func sd2(s *mat.SymDense, i, j int) float64 { return math.Sqrt(s.At(i, i) * s.At(j, j)) }

// bfgs minimises f (which returns its value and sets its gradient) from x,
// in place, by BFGS with a backtracking line search, until the gradient's
// largest entry is at most gtol or after maxIter iterations; it returns
// the minimum found.
func bfgs(f func(x, grad []float64) float64, x []float64, gtol float64, maxIter int) float64 {
	k := len(x)
	h := mat.NewDense(k, k, nil) // inverse Hessian approximation
	for i := range k {
		h.Set(i, i, 1e-3)
	}
	g := make([]float64, k)
	fx := f(x, g)
	dir, xn, gn, s, y := make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
	for range maxIter {
		if floats.Norm(g, math.Inf(1)) <= gtol {
			break
		}
		mat.NewVecDense(k, dir).MulVec(h, mat.NewVecDense(k, g))
		floats.Scale(-1, dir)
		slope := floats.Dot(dir, g)
		if !(slope < 0) {
			// Not a descent direction: restart from a scaled gradient.
			h.Zero()
			for i := range k {
				h.Set(i, i, 1e-3)
			}
			continue
		}
		t, fn := 1.0, math.Inf(1)
		for range 60 {
			floats.AddScaledTo(xn, x, t, dir)
			if fn = f(xn, gn); fn <= fx+1e-4*t*slope {
				break
			}
			t /= 2
		}
		if !(fn < fx) {
			break // no progress at machine precision
		}
		floats.SubTo(s, xn, x)
		floats.SubTo(y, gn, g)
		copy(x, xn)
		copy(g, gn)
		fx = fn
		sy := floats.Dot(s, y)
		if !(sy > 1e-300) {
			continue
		}
		// H ← (I − ρsyᵀ) H (I − ρysᵀ) + ρssᵀ, ρ = 1/sᵀy.
		hy := mat.NewVecDense(k, nil)
		hy.MulVec(h, mat.NewVecDense(k, y))
		yhy := floats.Dot(y, hy.RawVector().Data)
		for i := range k {
			for j := range k {
				v := h.At(i, j) - (hy.AtVec(i)*s[j]+s[i]*hy.AtVec(j))/sy + (1+yhy/sy)*s[i]*s[j]/sy
				h.Set(i, j, v)
			}
		}
	}
	return fx
}
