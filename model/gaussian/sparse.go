package gaussian

import (
	"errors"
	"math"
	"math/bits"
	"sync"
)

// The E-step of a dense pattern (many rows with the same observed cells,
// entering through their sample moments) in the precision of the tree.
//
// In standardised values s_v = (x_v − μ_v)/σ_v the joint precision J of
// all nodes has the tree's sparsity: J_vv = 1/w_v (1 at the root) plus
// ρ_c²/w_c for every child c, and J_{v,parent} = −ρ_v/w_v, with
// w_v = 1 − ρ_v². Given the pattern's observed nodes O, the others H
// (hidden nodes and missing cells) have precision K = J_HH, a forest, and
// mean −K⁻¹ B s_O with B = J_HO. Eliminating the forest from its leaves
// (K = L D Lᵀ, L with one entry below the diagonal per column) creates no
// fill, so that a solve with K costs O(|H|). With X = Σ_rows s_O s_Oᵀ and
// G = K⁻¹ B X, every sum the M-step needs is then an entry of X, of G or
// of K⁻¹ B X Bᵀ K⁻¹ + n K⁻¹ (whose needed entries come from |H| solves
// and the forest's selected inverse): about |H|·(|O| + |H|) operations in
// all, where the covariance of the observed variables costs |O|³ to
// factorise and |O|²·(nodes) to solve.
//
// The log-likelihood is not taken from the precision, whose entries of
// order 1/w cancel near |ρ| = 1 (a hidden node nearly equal to an
// observed one, where EM often goes) and cost the quasi-Newton phase its
// stopping rule; it comes from messages in covariance form
// (msgLogLik), in O(|O|²).

// forestPattern is what the E-step of a dense pattern reuses across
// iterations: the pattern's split of the nodes and the forest's shape.
type forestPattern struct {
	hid  []int // H, children before parents (the forest's elimination order)
	hpar []int // per position in hid: the position of its parent in hid, or −1
	hpos []int // node → position in hid, −1 for observed nodes
	opos []int // node → position in the pattern's columns, −1 for H
	ho   []fedge
	msg  *msgPattern // set by messages
	// scratch, per iteration
	jd, ldl, d, bx, pt, bm, sel []float64
	x, m, sd                    []float64
}

// fedge is a tree edge between a node of H at position a and an observed
// node at column b, whose child node is v.
type fedge struct{ a, b, v int }

// forest returns the forest pattern of pt (cached).
func (em *gaussEM) forest(i int) *forestPattern {
	if em.fp == nil {
		em.fp = make([]*forestPattern, len(em.pats))
	}
	if em.fp[i] != nil {
		return em.fp[i]
	}
	g, b := em.g, em.b
	r := g.Rooted()
	n := g.Tree.MaxID()
	// The slices are pooled (gaussEM.release gives them back).
	fp := &forestPattern{hpos: getInts(n), opos: getInts(n), hid: getInts(n)[:0]}
	for v := range fp.hpos {
		fp.hpos[v], fp.opos[v] = -1, -1
	}
	for a, j := range em.pats[i].idx {
		fp.opos[b.obs[j]] = a
	}
	for k := len(r.Order) - 1; k >= 0; k-- {
		if v := r.Order[k]; fp.opos[v] < 0 {
			fp.hpos[v] = len(fp.hid)
			fp.hid = append(fp.hid, v)
		}
	}
	fp.hpar = getInts(len(fp.hid))
	for k, v := range fp.hid {
		fp.hpar[k] = -1
		if p := r.Parent[v]; p >= 0 {
			fp.hpar[k] = fp.hpos[p]
		}
	}
	for _, v := range r.Order {
		p := r.Parent[v]
		if p < 0 {
			continue
		}
		switch hv, hp := fp.hpos[v] >= 0, fp.hpos[p] >= 0; {
		case hv && !hp:
			fp.ho = append(fp.ho, fedge{fp.hpos[v], fp.opos[p], v})
		case !hv && hp:
			fp.ho = append(fp.ho, fedge{fp.hpos[p], fp.opos[v], v})
		}
	}
	h, q := len(fp.hid), len(em.pats[i].idx)
	fp.jd = zeroBuf(n)
	fp.ldl, fp.d, fp.bm, fp.sel = zeroBuf(h), zeroBuf(h), zeroBuf(h), zeroBuf(2*h)
	// Scratch every E-step overwrites before reading (bx and pt are
	// cleared, x is written whole), possibly of an earlier fit.
	fp.bx, fp.pt = getBuf(h*q), getBuf(h*h)
	fp.x, fp.m, fp.sd = getBuf(q*q), zeroBuf(q), zeroBuf(q)
	em.fp[i] = fp
	return fp
}

// factor sets the forest's factor K = L D Lᵀ at the model's parameters
// (fp.ldl: L's entry below each column; fp.d: D) and the diagonal of J
// (fp.jd).
func (fp *forestPattern) factor(g *Model, order, parent []int) error {
	jd := fp.jd
	for _, v := range order {
		jd[v] = 0
	}
	for _, v := range order {
		p := parent[v]
		if p < 0 {
			jd[v] += 1
			continue
		}
		rho := g.Rho[v]
		w := 1 - rho*rho
		if !(w > 0) {
			return errors.New("model: the model's covariance of the observed variables is singular (a correlation of ±1)")
		}
		jd[v] += 1 / w
		jd[p] += rho * rho / w
	}
	for k, v := range fp.hid {
		fp.d[k] = jd[v]
	}
	for k, v := range fp.hid {
		dk := fp.d[k]
		if !(dk > 0) || math.IsInf(dk, 0) {
			return errors.New("model: EM reached a singular covariance of the observed variables")
		}
		fp.ldl[k] = 0
		if pk := fp.hpar[k]; pk >= 0 {
			rho := g.Rho[v]
			kvp := -rho / (1 - rho*rho)
			fp.ldl[k] = kvp / dk
			fp.d[pk] -= kvp * fp.ldl[k]
		}
	}
	return nil
}

// solve overwrites the rows of b (one per position in hid, of length
// cols, row-major) with K⁻¹ b.
func (fp *forestPattern) solve(b []float64, cols int) {
	h := len(fp.hid)
	for k := range h {
		bk := b[k*cols : (k+1)*cols]
		if pk := fp.hpar[k]; pk >= 0 {
			l := fp.ldl[k]
			bp := b[pk*cols : (pk+1)*cols]
			for j, x := range bk {
				bp[j] -= l * x
			}
		}
	}
	for k := h - 1; k >= 0; k-- {
		bk := b[k*cols : (k+1)*cols]
		inv := 1 / fp.d[k]
		if pk := fp.hpar[k]; pk >= 0 {
			l := fp.ldl[k]
			bp := b[pk*cols : (pk+1)*cols]
			for j := range bk {
				bk[j] = bk[j]*inv - l*bp[j]
			}
			continue
		}
		for j := range bk {
			bk[j] *= inv
		}
	}
}

// selected sets fp.sel to K⁻¹'s entries on its diagonal (sel[2k]) and
// with each node's parent in the forest (sel[2k+1]), from the factor.
func (fp *forestPattern) selected() {
	for k := len(fp.hid) - 1; k >= 0; k-- {
		pk := fp.hpar[k]
		if pk < 0 {
			fp.sel[2*k], fp.sel[2*k+1] = 1/fp.d[k], 0
			continue
		}
		l, spp := fp.ldl[k], fp.sel[2*pk]
		fp.sel[2*k+1] = -l * spp
		fp.sel[2*k] = 1/fp.d[k] + l*l*spp
	}
}

// forestPattern adds to st the expected statistics of the rows of the
// dense pattern i (see the comment at the top of this file), and their
// log-likelihood.
func (em *gaussEM) forestPattern(i int, st *gaussStats) error {
	g, b := em.g, em.b
	pt := em.pats[i]
	fp := em.forest(i)
	r := g.Rooted()
	idx := pt.idx
	q, h := len(idx), len(fp.hid)
	cnt := pt.cnt
	if err := fp.factor(g, r.Order, r.Parent); err != nil {
		return err
	}
	// X and m: the standardised moments about the model's means.
	X, m := fp.x, fp.m
	sd := fp.sd
	for a, j := range idx {
		v := b.obs[j]
		sd[a] = math.Sqrt(g.Var[v])
		m[a] = pt.mean[a] - g.Mean[v] // δ for now
	}
	for a := range q {
		for c := a; c < q; c++ {
			x := (pt.scatter[a*q+c] + cnt*m[a]*m[c]) / (sd[a] * sd[c])
			X[a*q+c], X[c*q+a] = x, x
		}
	}
	for a := range q {
		m[a] *= cnt / sd[a]
	}
	// G = K⁻¹ B X in bx; K⁻¹ B m in bm.
	bx, bm := fp.bx, fp.bm
	clear(bx)
	clear(bm)
	for _, e := range fp.ho {
		rho := g.Rho[e.v]
		j := -rho / (1 - rho*rho)
		row := bx[e.a*q : (e.a+1)*q]
		for c, x := range X[e.b*q : (e.b+1)*q] {
			row[c] += j * x
		}
		bm[e.a] += j * m[e.b]
	}
	fp.solve(bx, q)
	fp.solve(bm, 1)
	// Q = K⁻¹ B X Bᵀ K⁻¹ = K⁻¹ (G Bᵀ)ᵀ in pt, and tr(Bᵀ K⁻¹ B X) = tr(G Bᵀ).
	pq := fp.pt
	clear(pq)
	trP := 0.0
	for _, e := range fp.ho {
		rho := g.Rho[e.v]
		j := -rho / (1 - rho*rho)
		row := pq[e.a*h : (e.a+1)*h]
		for k := range h {
			row[k] += j * bx[k*q+e.b]
		}
		trP += j * bx[e.a*q+e.b]
	}
	fp.solve(pq, h)
	fp.selected()
	// The log-likelihood, in the units of the data.
	ll, err := em.msgLogLik(i, X, cnt)
	if err != nil {
		return err
	}
	for a := range q {
		ll -= cnt * math.Log(sd[a])
	}
	st.ll += ll
	// The sums over rows of E[s_v] (es) and of E[s_v s_u] for u = v and
	// u = v's parent (ss), then of the unstandardised values.
	es := func(v int) float64 {
		if a := fp.opos[v]; a >= 0 {
			return m[a]
		}
		return -bm[fp.hpos[v]]
	}
	ss := func(v, u int) float64 {
		av, au := fp.opos[v], fp.opos[u]
		kv, ku := fp.hpos[v], fp.hpos[u]
		switch {
		case av >= 0 && au >= 0:
			return X[av*q+au]
		case av >= 0:
			return -bx[ku*q+av]
		case au >= 0:
			return -bx[kv*q+au]
		case v == u:
			return pq[kv*h+kv] + cnt*fp.sel[2*kv]
		case fp.hpar[kv] == ku:
			return pq[kv*h+ku] + cnt*fp.sel[2*kv+1]
		default:
			return pq[ku*h+kv] + cnt*fp.sel[2*ku+1]
		}
	}
	for _, v := range em.nodes {
		mv, sv := g.Mean[v], math.Sqrt(g.Var[v])
		ev := es(v)
		st.s1[v] += cnt*mv + sv*ev
		st.s2[v] += cnt*mv*mv + 2*mv*sv*ev + sv*sv*ss(v, v)
		if p := r.Parent[v]; p >= 0 {
			mp, sp := g.Mean[p], math.Sqrt(g.Var[p])
			st.sp[v] += cnt*mv*mp + mv*sp*es(p) + mp*sv*ev + sv*sp*ss(v, p)
		}
	}
	return nil
}

// msgPattern is the shape of the log-likelihood's upward pass for a dense
// pattern (msgLogLik): the pattern's observed nodes in depth-first order,
// so that those of every subtree are a contiguous range.
type msgPattern struct {
	post   []int // nodes, children before parents
	lo, hi []int // node → its subtree's range of depth-first positions
	col    []int // depth-first position → the pattern's column
	off    []int // node → offset of its coefficients in y
	// scratch, per iteration
	x, y, nu, gram []float64
	kids           []int
	gk, u, c, l    []float64
}

// messages returns the message shape of pattern i (cached).
func (em *gaussEM) messages(i int) *msgPattern {
	fp := em.forest(i)
	if fp.msg != nil {
		return fp.msg
	}
	g := em.g
	r := g.Rooted()
	n := g.Tree.MaxID()
	// The slices are pooled (gaussEM.release gives them back).
	mp := &msgPattern{lo: getInts(n), hi: getInts(n), off: getInts(n), nu: zeroBuf(n), gram: zeroBuf(n), post: getInts(n)[:0], col: getInts(n)[:0]}
	for k := len(r.Order) - 1; k >= 0; k-- {
		mp.post = append(mp.post, r.Order[k])
	}
	// Depth-first preorder, children in the rooted tree's order.
	stack := []int{g.Root}
	pos := 0
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		mp.lo[v] = pos
		if a := fp.opos[v]; a >= 0 {
			mp.col = append(mp.col, a)
			pos++
		}
		for k := len(r.Children[v]) - 1; k >= 0; k-- {
			stack = append(stack, r.Children[v][k])
		}
	}
	size := 0
	for _, v := range mp.post {
		hi := mp.lo[v]
		if fp.opos[v] >= 0 {
			hi++
		}
		for _, c := range r.Children[v] {
			hi = max(hi, mp.hi[c])
		}
		mp.hi[v] = hi
		mp.off[v] = size
		size += hi - mp.lo[v]
	}
	q := len(mp.col)
	// Scratch: msgLogLik writes x whole and clears each node's part of y
	// before reading it.
	mp.x, mp.y = getBuf(q*q), getBuf(size)
	fp.msg = mp
	return mp
}

// bufPools hold the scratch of finished E-steps (gaussEM.release) for
// later ones: a search fits and scores dozens of models of the same size
// one after another, and fresh memory costs a page fault per 4 kB.
var (
	bufPools sizedPools[float64]
	intPools sizedPools[int]
)

// sizedPools pools slices by capacity: one of capacity c is in the pool
// of class bits.Len(c) − 1 (c at least 1 << class), so that one of a
// size is not taken for a larger one and dropped: every E-step needs
// buffers of several sizes.
type sizedPools[T any] [64]sync.Pool // of *[]T

// bufReach is how many classes from the smallest that holds n get looks
// in: a buffer up to 2^bufReach times larger is taken rather than fresh
// memory.
const bufReach = 8

// get returns a slice of n elements of undefined contents.
func (ps *sizedPools[T]) get(n int) []T {
	if n <= 0 {
		return make([]T, 0)
	}
	// Every buffer of the smallest class at least n holds n, or of a
	// larger one; one of the class below may (one of the same size as
	// before).
	up := bits.Len(uint(n - 1))
	for c := up; c < min(up+bufReach, len(ps)); c++ {
		if b, ok := ps[c].Get().(*[]T); ok {
			return (*b)[:n]
		}
	}
	if lo := bits.Len(uint(n)) - 1; lo < up {
		if b, ok := ps[lo].Get().(*[]T); ok {
			if cap(*b) >= n {
				return (*b)[:n]
			}
			ps[lo].Put(b)
		}
	}
	return make([]T, n)
}

// put gives b to later get calls.
func (ps *sizedPools[T]) put(b []T) {
	if c := cap(b); c > 0 {
		ps[bits.Len(uint(c))-1].Put(&b)
	}
}

// getBuf returns a slice of n floats of undefined contents.
func getBuf(n int) []float64 { return bufPools.get(n) }

// zeroBuf returns a slice of n zero floats.
func zeroBuf(n int) []float64 {
	b := bufPools.get(n)
	clear(b)
	return b
}

// putBuf gives b to later getBuf calls.
func putBuf(b []float64) { bufPools.put(b) }

// getInts returns a slice of n zero ints.
func getInts(n int) []int {
	b := intPools.get(n)
	clear(b)
	return b
}

// release gives em's E-step scratch to later E-steps; em must not be
// used after.
func (em *gaussEM) release() {
	for _, fp := range em.fp {
		if fp == nil {
			continue
		}
		for _, b := range [][]float64{fp.bx, fp.pt, fp.x, fp.jd, fp.ldl, fp.d, fp.bm, fp.sel, fp.m, fp.sd} {
			putBuf(b)
		}
		for _, b := range [][]int{fp.hid, fp.hpar, fp.hpos, fp.opos} {
			intPools.put(b)
		}
		if mp := fp.msg; mp != nil {
			for _, b := range [][]float64{mp.x, mp.y, mp.nu, mp.gram, mp.gk, mp.u, mp.c, mp.l} {
				putBuf(b)
			}
			for _, b := range [][]int{mp.post, mp.lo, mp.hi, mp.col, mp.off} {
				intPools.put(b)
			}
			*mp = msgPattern{}
		}
		*fp = forestPattern{}
	}
	em.fp = nil
	if em.bp != nil {
		putBuf(em.bp.slab)
		em.bp = nil
	}
}

// msgLogLik returns the log-likelihood of the standardised moments X
// (q×q in the pattern's column order, sums over cnt rows) of pattern i,
// less the Σ log σ of its observed columns, by an upward pass of
// messages in covariance form: the data of the subtree below a node c
// say about c's value s_c what one measurement m_c = y_cᵀ s_O with noise
// variance ν_c does (ν_c = 0 when c is observed), times a factor that
// does not depend on s_c. A hidden node combines its children's
// measurements, m_k = ρ_k s + e_k with var e_k = d_k = w_k + ν_k, into
// one (precision P = Σ ρ_k²/d_k), and the factor collects the
// likelihood of their contrasts. Every determinant is a product of
// positive terms and the contrasts are taken against the child of
// largest weight, so that edges near |ρ| = 1 do not cancel terms of
// order 1/w, as the precision of the tree does.
func (em *gaussEM) msgLogLik(i int, X []float64, cnt float64) (float64, error) {
	g := em.g
	fp := em.forest(i)
	mp := em.messages(i)
	r := g.Rooted()
	q := len(mp.col)
	xp := mp.x
	for a, ca := range mp.col {
		for b, cb := range mp.col {
			xp[a*q+b] = X[ca*q+cb]
		}
	}
	// cross returns y_uᵀ X y_v for u and v with disjoint ranges.
	cross := func(u, v int) float64 {
		yu := mp.y[mp.off[u] : mp.off[u]+mp.hi[u]-mp.lo[u]]
		yv := mp.y[mp.off[v] : mp.off[v]+mp.hi[v]-mp.lo[v]]
		s := 0.0
		for a, ya := range yu {
			if ya == 0 {
				continue
			}
			row := xp[(mp.lo[u]+a)*q+mp.lo[v] : (mp.lo[u]+a)*q+mp.hi[v]]
			t := 0.0
			for b, yb := range yv {
				t += row[b] * yb
			}
			s += ya * t
		}
		return s
	}
	const log2Pi = 2 * halfLog2Pi
	ll := 0.0
	for _, v := range mp.post {
		y := mp.y[mp.off[v] : mp.off[v]+mp.hi[v]-mp.lo[v]]
		clear(y)
		kids := mp.kids[:0]
		for _, c := range r.Children[v] {
			if !math.IsInf(mp.nu[c], 1) {
				kids = append(kids, c)
			}
		}
		mp.kids = kids
		k := len(kids)
		// Gram of the children's measurements, k×k.
		if cap(mp.gk) < k*k {
			putBuf(mp.gk)
			mp.gk = zeroBuf(k * k)
		}
		gk := mp.gk[:k*k]
		for a, c := range kids {
			gk[a*k+a] = mp.gram[c]
			for b := a + 1; b < k; b++ {
				x := cross(c, kids[b])
				gk[a*k+b], gk[b*k+a] = x, x
			}
		}
		d := func(c int) float64 { return 1 - g.Rho[c]*g.Rho[c] + mp.nu[c] }
		for _, c := range kids {
			if !(d(c) > 0) {
				return 0, errors.New("model: the model's covariance of the observed variables is singular (a correlation of ±1)")
			}
			ll -= 0.5 * cnt * (log2Pi + math.Log(d(c)))
		}
		if a := fp.opos[v]; a >= 0 {
			// Observed: the children measure a known value; v's own
			// measurement is itself (ν = 0).
			at := mp.lo[v]
			y[0] = 1
			for b, c := range kids {
				rho := g.Rho[c]
				ll -= 0.5 * (gk[b*k+b] - 2*rho*cross(c, v) + rho*rho*xp[at*q+at]) / d(c)
			}
			mp.nu[v], mp.gram[v] = 0, xp[at*q+at]
			continue
		}
		prec, anchor, best := 0.0, -1, 0.0
		for b, c := range kids {
			wt := g.Rho[c] * g.Rho[c] / d(c)
			prec += wt
			if wt > best {
				anchor, best = b, wt
			}
		}
		if !(prec > 0) {
			// Nothing said about v (or only by children uncorrelated
			// with it): their measurements are pure noise.
			for b, c := range kids {
				ll -= 0.5 * gk[b*k+b] / d(c)
			}
			mp.nu[v], mp.gram[v] = math.Inf(1), 0
			continue
		}
		ll += 0.5 * cnt * (log2Pi - math.Log(prec))
		// The contrasts u_c = m_c − (ρ_c/ρ_*) m_* of the other children
		// with the anchor *: covariance C = diag(d_c) + (d_*/ρ_*²) ρρᵀ,
		// Gram U; their log-likelihood's quadratic term is tr(C⁻¹ U).
		if k > 1 {
			ks := k - 1
			if cap(mp.u) < ks*ks || cap(mp.c) < ks*ks || cap(mp.l) < ks*ks+ks {
				putBuf(mp.u)
				putBuf(mp.c)
				putBuf(mp.l)
				mp.u, mp.c, mp.l = zeroBuf(ks*ks), zeroBuf(ks*ks), zeroBuf(ks*ks+ks)
			}
			U, C, L := mp.u[:ks*ks], mp.c[:ks*ks], mp.l[:ks*ks]
			cs := g.Rho[kids[anchor]]
			ds := d(kids[anchor]) / (cs * cs)
			idx := func(b int) int {
				if b >= anchor {
					return b + 1
				}
				return b
			}
			for a := range ks {
				ka := idx(a)
				fa := g.Rho[kids[ka]] / cs
				for b := a; b < ks; b++ {
					kb := idx(b)
					fb := g.Rho[kids[kb]] / cs
					u := gk[ka*k+kb] - fb*gk[ka*k+anchor] - fa*gk[anchor*k+kb] + fa*fb*gk[anchor*k+anchor]
					U[a*ks+b], U[b*ks+a] = u, u
					c := ds * g.Rho[kids[ka]] * g.Rho[kids[kb]]
					if a == b {
						c += d(kids[ka])
					}
					C[a*ks+b], C[b*ks+a] = c, c
				}
			}
			// tr(C⁻¹ U) by the Cholesky factor of C.
			q2, _, err := smallLogLik(C, U, ks, 1, false, L, nil, mp.l[ks*ks:ks*ks+ks])
			if err != nil {
				return 0, err
			}
			// smallLogLik gives −½ [k log 2π + log|C| + tr(C⁻¹U)]; only
			// the trace is wanted (the determinants are P and the d's).
			ll += q2 + 0.5*(float64(ks)*log2Pi+logDetChol(L, ks))
		}
		// The combined measurement m_v = Σ (ρ_c/d_c) m_c / P, ν_v = 1/P.
		gv := 0.0
		for a, c := range kids {
			fa := g.Rho[c] / d(c) / prec
			yc := mp.y[mp.off[c] : mp.off[c]+mp.hi[c]-mp.lo[c]]
			base := mp.lo[c] - mp.lo[v]
			for j, x := range yc {
				y[base+j] = fa * x
			}
			for b, c2 := range kids {
				gv += fa * g.Rho[c2] / d(c2) / prec * gk[a*k+b]
			}
		}
		mp.nu[v], mp.gram[v] = 1/prec, gv
	}
	// The root's own distribution, N(0, 1).
	rt := g.Root
	switch {
	case fp.opos[rt] >= 0:
		at := mp.lo[rt]
		ll -= 0.5 * (cnt*log2Pi + xp[at*q+at])
	case !math.IsInf(mp.nu[rt], 1):
		v := 1 + mp.nu[rt]
		ll -= 0.5 * (cnt*(log2Pi+math.Log(v)) + mp.gram[rt]/v)
	}
	return ll, nil
}

// logDetChol returns log|C| from its Cholesky factor L (k×k, row-major).
func logDetChol(L []float64, k int) float64 {
	s := 0.0
	for i := range k {
		s += 2 * math.Log(L[i*k+i])
	}
	return s
}
