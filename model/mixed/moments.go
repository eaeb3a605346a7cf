package mixed

import (
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/model"
)

// exactMoments holds the exact marginal moments of every node of a model: the
// state probabilities of a discrete node, and the mean and second moment
// E[x²] of a continuous one.
type exactMoments struct {
	m    *Model
	prob [][]float64
	mu   []float64
	sq   []float64
	dep  []int // depth below the root
}

// newExactMoments computes the marginal moments of m, from the root down.
func newExactMoments(m *Model) *exactMoments {
	n := m.Tree.MaxID()
	mo := &exactMoments{m: m, prob: make([][]float64, n), mu: make([]float64, n), sq: make([]float64, n), dep: make([]int, n)}
	r := m.Rooted()
	for _, v := range r.Order {
		p := r.Parent[v]
		if p >= 0 {
			mo.dep[v] = mo.dep[p] + 1
		}
		switch {
		case m.Kinds[v] == data.Discrete && p < 0:
			mo.prob[v] = append([]float64(nil), m.Prior...)
		case m.Kinds[v] == data.Discrete:
			k := m.States[v]
			out := make([]float64, k)
			for a, pa := range mo.prob[p] {
				for b := range k {
					out[b] += pa * m.CPT[v][a*k+b]
				}
			}
			mo.prob[v] = out
		case p < 0:
			mo.mu[v] = m.Mean[v][0]
			mo.sq[v] = m.Var[v][0] + m.Mean[v][0]*m.Mean[v][0]
		case m.Kinds[p] == data.Discrete:
			for a, pa := range mo.prob[p] {
				mu := m.Mean[v][a]
				mo.mu[v] += pa * mu
				mo.sq[v] += pa * (m.Var[v][a] + mu*mu)
			}
		default:
			a, b := m.Mean[v][0], m.Coef[v]
			mo.mu[v] = a + b*mo.mu[p]
			mo.sq[v] = m.Var[v][0] + a*a + 2*a*b*mo.mu[p] + b*b*mo.sq[p]
		}
	}
	return mo
}

// dim is the number of raw features of v: its states, or 1.
func (mo *exactMoments) dim(v int) int {
	if mo.m.Kinds[v] == data.Discrete {
		return mo.m.States[v]
	}
	return 1
}

// mean returns E[f_v] of the raw features (state indicators or value).
func (mo *exactMoments) mean(v int) []float64 {
	if mo.m.Kinds[v] == data.Discrete {
		return mo.prob[v]
	}
	return []float64{mo.mu[v]}
}

// given returns E[f_v | w] for an ancestor w of v (w ≠ v): for a discrete
// w the States[w]×dim(v) table whose row c is E[f_v | w = c]; for a
// continuous w (v is then continuous, and E[x_v | x_w] = A + B·x_w) the
// pair [A, B].
func (mo *exactMoments) given(w, v int) []float64 {
	m := mo.m
	r := m.Rooted()
	var path []int // v up to w's child
	for x := v; x != w; x = r.Parent[x] {
		path = append(path, x)
	}
	if m.Kinds[w] == data.Continuous {
		a, b := 0.0, 1.0
		for i := len(path) - 1; i >= 0; i-- {
			c := path[i]
			a, b = m.Mean[c][0]+m.Coef[c]*a, m.Coef[c]*b
		}
		return []float64{a, b}
	}
	kw := m.States[w]
	// g is kw × cols: row c is E[f_x | w = c] for the current node x.
	g := make([]float64, kw*kw)
	for c := range kw {
		g[c*kw+c] = 1
	}
	cols := kw
	x := w
	for i := len(path) - 1; i >= 0; i-- {
		c := path[i]
		switch {
		case m.Kinds[c] == data.Discrete:
			k := m.States[c]
			next := make([]float64, kw*k)
			for row := range kw {
				for a := range cols {
					p := g[row*cols+a]
					if p == 0 {
						continue
					}
					for b := range k {
						next[row*k+b] += p * m.CPT[c][a*k+b]
					}
				}
			}
			g, cols = next, k
		case m.Kinds[x] == data.Discrete:
			next := make([]float64, kw)
			for row := range kw {
				for a := range cols {
					next[row] += g[row*cols+a] * m.Mean[c][a]
				}
			}
			g, cols = next, 1
		default:
			for row := range kw {
				g[row] = m.Mean[c][0] + m.Coef[c]*g[row]
			}
		}
		x = c
	}
	return g
}

// cross returns E[f_u f_vᵀ] of the raw features, dim(u)×dim(v), for u ≠ v.
func (mo *exactMoments) cross(u, v int) []float64 {
	m := mo.m
	r := m.Rooted()
	// The lowest common ancestor.
	a, b := u, v
	for mo.dep[a] > mo.dep[b] {
		a = r.Parent[a]
	}
	for mo.dep[b] > mo.dep[a] {
		b = r.Parent[b]
	}
	for a != b {
		a, b = r.Parent[a], r.Parent[b]
	}
	w := a
	du, dv := mo.dim(u), mo.dim(v)
	out := make([]float64, du*dv)
	switch {
	case w == v:
		t := mo.cross(v, u)
		for i := range du {
			for j := range dv {
				out[i*dv+j] = t[j*du+i]
			}
		}
	case w == u && m.Kinds[u] == data.Discrete:
		g := mo.given(u, v)
		for c, p := range mo.prob[u] {
			for j := range dv {
				out[c*dv+j] = p * g[c*dv+j]
			}
		}
	case w == u:
		ab := mo.given(u, v)
		out[0] = ab[0]*mo.mu[u] + ab[1]*mo.sq[u]
	case m.Kinds[w] == data.Discrete:
		gu, gv := mo.given(w, u), mo.given(w, v)
		for c, p := range mo.prob[w] {
			for i := range du {
				for j := range dv {
					out[i*dv+j] += p * gu[c*du+i] * gv[c*dv+j]
				}
			}
		}
	default:
		pu, pv := mo.given(w, u), mo.given(w, v)
		out[0] = pu[0]*pv[0] + (pu[0]*pv[1]+pv[0]*pu[1])*mo.mu[w] + pu[1]*pv[1]*mo.sq[w]
	}
	return out
}

// features returns the raw features of v kept as canonical features: for
// a discrete node the states of positive probability but the last of them
// (the indicators of all states are linearly dependent), for a continuous
// node its value.
func (mo *exactMoments) features(v int) []int {
	if mo.m.Kinds[v] == data.Continuous {
		return []int{0}
	}
	var keep []int
	for c, p := range mo.prob[v] {
		if p > 0 {
			keep = append(keep, c)
		}
	}
	if len(keep) > 0 {
		keep = keep[:len(keep)-1]
	}
	return keep
}

// cov returns the covariance of the kept features of u and v (u may equal
// v), row-major len(fu)×len(fv).
func (mo *exactMoments) cov(u, v int, fu, fv []int) []float64 {
	du, dv := mo.dim(u), mo.dim(v)
	var e []float64
	if u == v {
		e = make([]float64, du*dv)
		if mo.m.Kinds[u] == data.Discrete {
			for c, p := range mo.prob[u] {
				e[c*dv+c] = p
			}
		} else {
			e[0] = mo.sq[u]
		}
	} else {
		e = mo.cross(u, v)
	}
	mu, mv := mo.mean(u), mo.mean(v)
	out := make([]float64, len(fu)*len(fv))
	for i, a := range fu {
		for j, b := range fv {
			out[i*len(fv)+j] = e[a*dv+b] - mu[a]*mv[b]
		}
	}
	return out
}

// InformationDistances returns the exact information distances between
// all pairs of the given nodes (observed or hidden), row-major
// len(nodes)×len(nodes): the Mixed distance of the distance package with
// one canonical correlation (its default, for two hidden states), −log ρ₁
// of the nodes' features (the indicators of a discrete node's states, a
// continuous node's value), computed by distance.Canonical from the exact
// covariances of the features. It is additive along the tree when every
// discrete hidden node is binary and every observed internal node binary
// or continuous (see the distance package); pairs of independent nodes,
// or with a node of one possible state, are at +Inf.
func (m *Model) InformationDistances(nodes []int) ([]float64, error) {
	if err := model.CheckNodes(m.Tree, nodes); err != nil {
		return nil, err
	}
	mo := newExactMoments(m)
	n := len(nodes)
	out := make([]float64, n*n)
	feat := make([][]int, n)
	self := make([][]float64, n)
	for i, v := range nodes {
		feat[i] = mo.features(v)
		self[i] = mo.cov(v, v, feat[i], feat[i])
	}
	for i, u := range nodes {
		for j := i + 1; j < n; j++ {
			v := nodes[j]
			var d float64
			switch {
			case u == v:
			case len(feat[i]) == 0 || len(feat[j]) == 0:
				d = math.Inf(1)
			default:
				var err error
				d, _, err = distance.Canonical(self[i], mo.cov(u, v, feat[i], feat[j]), self[j], len(feat[i]), len(feat[j]), 1)
				if err != nil {
					return nil, fmt.Errorf("mixed: distance between %s and %s: %w", m.Tree.Name(u), m.Tree.Name(v), err)
				}
			}
			out[i*n+j], out[j*n+i] = d, d
		}
	}
	return out, nil
}
