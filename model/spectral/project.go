package spectral

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/model/discrete"
)

// projectFloor is the smallest probability a projected CPT entry gets, so
// that EM can move every parameter.
const projectFloor = 1e-3

// Project overwrites the parameters of dst, a discrete model on the same
// tree with the same observed states, with conditional probability tables
// recovered from the spectral estimate, wherever the estimate determines
// them, and returns how many nodes' CPTs (or prior) it set; the others keep
// their values (use a deterministic start such as InitSurrogate first).
//
// The tensor network fixes the joint of the observed variables, not the
// hidden variables' states; Project recovers them node by node with the
// method of moments for three conditionally independent views (Anandkumar,
// Hsu & Kakade 2012): for a hidden node h with representatives a, b, c in
// three directions, the eigenvectors of (Uᵀ P_{ab;η} V)(Uᵀ P_{ab} V)⁻¹
// give P(x_a | h), and then P(h) and P(x_r | h) for every representative
// r of h. An edge (u, v) gets P(v | u) = (O_{b|v}⁺ O_{b|u})ᵀ through a
// representative b on v's side known to both; negative entries are
// clipped at a floor and rows renormalised. A hidden node of degree 2, or
// one whose eigenproblem is degenerate, keeps dst's values.
func (s *Model) Project(dst *discrete.Model) (int, error) {
	if err := s.Validate(); err != nil {
		return 0, err
	}
	if dst == nil || dst.Tree != s.Tree {
		return 0, errors.New("model: Project needs a discrete model on the spectral model's tree")
	}
	for _, v := range s.Tree.Observed() {
		if dst.States[v] != s.States[v] {
			return 0, fmt.Errorf("model: %s has %d states in the discrete model and %d in the spectral one", s.Tree.Name(v), dst.States[v], s.States[v])
		}
	}
	// views[node][rep] = P(x_rep | node) as an n_rep×k matrix; prior[node].
	views := make([]map[int]*mat.Dense, s.Tree.MaxID())
	prior := make([][]float64, s.Tree.MaxID())
	for f := range s.net.factors {
		fac := &s.net.factors[f]
		if fac.node < 0 {
			continue
		}
		v, pi := s.nodeViews(f, dst.States[fac.node])
		if v != nil {
			views[fac.node], prior[fac.node] = v, pi
		}
	}
	// A copy of a split node is the same variable: its representatives'
	// views follow from the original's view of the copy's parent-side
	// representative (parents before children, so chains work).
	for _, f := range s.net.order {
		fac := &s.net.factors[f]
		u := fac.copyOf
		if u < 0 || views[u] == nil || views[u][fac.modes[0].rep] == nil {
			continue
		}
		more, _ := s.viewsFrom(fac, 0, views[u][fac.modes[0].rep])
		for r, o := range more {
			if views[u][r] == nil {
				views[u][r] = o
			}
		}
	}
	set := 0
	r := dst.Rooted()
	for _, v := range r.Order {
		if v == dst.Root {
			if p := prior[v]; p != nil {
				copy(dst.Prior, p)
				set++
			}
			continue
		}
		u := r.Parent[v]
		cpt := s.edgeCPT(u, v, views, dst.States)
		if cpt != nil {
			copy(dst.CPT[v], cpt)
			set++
		}
	}
	dst.Refresh()
	if err := dst.Validate(); err != nil {
		return 0, fmt.Errorf("model: projected parameters: %w", err)
	}
	return set, nil
}

// nodeViews recovers P(x_r | node) for every representative r of factor
// f's modes, and P(node); nil when it cannot.
func (s *Model) nodeViews(f, k int) (map[int]*mat.Dense, []float64) {
	fac := &s.net.factors[f]
	d := len(fac.modes)
	var oa *mat.Dense
	ia := 0
	if !s.Tree.IsHidden(fac.node) {
		// The node's own mode is its state: P(x_self | self) = I.
		for i, m := range fac.modes {
			if m.kind == modeLeaf && m.rep == fac.node {
				ia = i
			}
		}
		oa = mat.NewDense(k, k, nil)
		for x := 0; x < k; x++ {
			oa.Set(x, x, 1)
		}
	} else {
		if d < 3 {
			return nil, nil
		}
		oa = s.eigenView(fac, 0, 1, 2, k, uint64(f))
		if oa == nil {
			return nil, nil
		}
	}
	return s.viewsFrom(fac, ia, oa)
}

// viewsFrom derives the views of every mode of fac from the view oa of
// mode ia: diag(π) O_xᵀ = O_a⁺ P_{a,x}.
func (s *Model) viewsFrom(fac *specFactor, ia int, oa *mat.Dense) (map[int]*mat.Dense, []float64) {
	_, k := oa.Dims()
	d := len(fac.modes)
	var pinv mat.Dense
	if err := pseudoInverse(&pinv, oa, 1e-9); err != nil {
		return nil, nil
	}
	views := map[int]*mat.Dense{}
	var pi []float64
	for x := 0; x < d; x++ {
		nx := fac.shape[x]
		if x == ia {
			views[fac.modes[x].rep] = oa
			continue
		}
		pax := marginal(fac.table, fac.shape, ia, x)
		var q mat.Dense
		q.Mul(&pinv, mat.NewDense(fac.shape[ia], nx, pax)) // k×nx
		o := mat.NewDense(nx, k, nil)
		rowPi := make([]float64, k)
		for h := 0; h < k; h++ {
			row := make([]float64, nx)
			for y := 0; y < nx; y++ {
				row[y] = q.At(h, y)
			}
			t := 0.0
			for _, y := range row {
				t += y
			}
			rowPi[h] = t
			clipFloor(row)
			for y := 0; y < nx; y++ {
				o.Set(y, h, row[y])
			}
		}
		views[fac.modes[x].rep] = o
		if pi == nil {
			pi = rowPi
			clipFloor(pi)
		}
	}
	return views, pi
}

// eigenView recovers P(x_i | h) (n_i×k) from the table's modes i, j, l.
func (s *Model) eigenView(fac *specFactor, i, j, l, k int, seed uint64) *mat.Dense {
	ni, nj, nl := fac.shape[i], fac.shape[j], fac.shape[l]
	if k > ni || k > nj {
		return nil // fewer observed states than hidden ones: not identifiable this way
	}
	pij := mat.NewDense(ni, nj, marginal(fac.table, fac.shape, i, j))
	var svd mat.SVD
	if !svd.Factorize(pij, mat.SVDThin) {
		return nil
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	uk, vk := u.Slice(0, ni, 0, k), v.Slice(0, nj, 0, k)
	var base mat.Dense
	base.Product(uk.T(), pij, vk)
	var baseInv mat.Dense
	if err := baseInv.Inverse(&base); err != nil {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	trip := marginal(fac.table, fac.shape, i, j, l)
	var best *mat.Dense
	bestGap := 0.0
	for try := 0; try < 5; try++ {
		eta := make([]float64, nl)
		for x := range eta {
			eta[x] = rng.Float64()
		}
		pe := mat.NewDense(ni, nj, nil)
		for a := 0; a < ni; a++ {
			for b := 0; b < nj; b++ {
				t := 0.0
				for c := 0; c < nl; c++ {
					t += trip[(a*nj+b)*nl+c] * eta[c]
				}
				pe.Set(a, b, t)
			}
		}
		var bm mat.Dense
		bm.Product(uk.T(), pe, vk, &baseInv)
		var eig mat.Eigen
		if !eig.Factorize(&bm, mat.EigenRight) {
			continue
		}
		vals := eig.Values(nil)
		gap := math.Inf(1)
		for p := range vals {
			if math.Abs(imag(vals[p])) > 1e-9*(1+cmplx.Abs(vals[p])) {
				gap = 0
			}
			for q := p + 1; q < len(vals); q++ {
				gap = min(gap, cmplx.Abs(vals[p]-vals[q]))
			}
		}
		if k == 1 {
			gap = 1
		}
		if gap <= bestGap {
			continue
		}
		var vec mat.CDense
		eig.VectorsTo(&vec)
		o := mat.NewDense(ni, k, nil)
		ok := true
		for h := 0; h < k; h++ {
			col := make([]float64, ni)
			t := 0.0
			for a := 0; a < ni; a++ {
				x := 0.0
				for c := 0; c < k; c++ {
					x += uk.At(a, c) * real(vec.At(c, h))
				}
				col[a] = x
				t += x
			}
			if math.Abs(t) < 1e-12 {
				ok = false
				break
			}
			for a := range col {
				col[a] /= t
			}
			clipFloor(col)
			for a := range col {
				o.Set(a, h, col[a])
			}
		}
		if ok {
			best, bestGap = o, gap
		}
	}
	return best
}

// edgeCPT returns P(v | u) (k_u×k_v row-major) through a representative
// whose view is known from both u and v and lies on v's side; nil if none.
func (s *Model) edgeCPT(u, v int, views []map[int]*mat.Dense, states []int) []float64 {
	vu, vv := views[u], views[v]
	if vu == nil {
		return nil
	}
	if !s.Tree.IsHidden(v) {
		// v's own view is the identity.
		if vv == nil {
			vv = map[int]*mat.Dense{}
		}
		id := mat.NewDense(states[v], states[v], nil)
		for x := 0; x < states[v]; x++ {
			id.Set(x, x, 1)
		}
		vv[v] = id
	}
	if vv == nil {
		return nil
	}
	best, bestLen := -1, 0
	for b := range vu {
		if vv[b] == nil {
			continue
		}
		path := s.Tree.Path(u, b)
		if len(path) < 2 || path[1] != v {
			continue
		}
		if best < 0 || len(path) < bestLen || (len(path) == bestLen && b < best) {
			best, bestLen = b, len(path)
		}
	}
	if best < 0 {
		return nil
	}
	var pinv mat.Dense
	if err := pseudoInverse(&pinv, vv[best], 1e-9); err != nil {
		return nil
	}
	var ct mat.Dense
	ct.Mul(&pinv, vu[best]) // k_v×k_u: column a is P(v | u = a)
	ku, kv := states[u], states[v]
	if r, c := ct.Dims(); r != kv || c != ku {
		return nil
	}
	cpt := make([]float64, ku*kv)
	for a := 0; a < ku; a++ {
		row := cpt[a*kv : (a+1)*kv]
		for b := 0; b < kv; b++ {
			row[b] = ct.At(b, a)
		}
		clipFloor(row)
	}
	return cpt
}

// clipFloor makes p a distribution with every entry at least
// projectFloor (NaN and negative entries become the floor).
func clipFloor(p []float64) {
	t := 0.0
	for i, x := range p {
		if !(x > 0) {
			x = 0
		}
		p[i] = x
		t += x
	}
	n := float64(len(p))
	for i := range p {
		if t > 0 {
			p[i] /= t
		} else {
			p[i] = 1 / n
		}
		p[i] = (p[i] + projectFloor) / (1 + n*projectFloor)
	}
}

// pseudoInverse sets dst to the pseudo-inverse of a with singular values
// below tol relative cut.
func pseudoInverse(dst *mat.Dense, a mat.Matrix, tol float64) error {
	u, sv, v, err := factorSVD(a)
	if err != nil {
		return err
	}
	r := cutRank(sv, tol)
	if r == 0 {
		return errors.New("zero matrix")
	}
	rows, cols := a.Dims()
	dst.ReuseAs(cols, rows)
	dst.Copy(mat.NewDense(cols, rows, truncatedPinv(u, sv, v, r)))
	return nil
}

// marginal sums a table over every mode but those listed: a table over
// the listed modes, row-major in their order (marginal(t, shape, i, j) is
// the n_i×n_j matrix).
func marginal(t []float64, shape []int, modes ...int) []float64 {
	size := 1
	for _, m := range modes {
		size *= shape[m]
	}
	out := make([]float64, size)
	idx := make([]int, len(shape))
	for _, x := range t {
		o := 0
		for _, m := range modes {
			o = o*shape[m] + idx[m]
		}
		out[o] += x
		for m := len(shape) - 1; m >= 0; m-- {
			idx[m]++
			if idx[m] < shape[m] {
				break
			}
			idx[m] = 0
		}
	}
	return out
}
