package discrete

import (
	"math"
	"runtime"
	"slices"

	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/model"
)

// The E-step for models whose every variable is binary, the common case of
// large data sets, is specialised: the 2×2 tables are unrolled, observed
// leaves send their message straight from a lookup of their CPT column
// (nothing is stored for them), and the downward pass propagates
// normalised posteriors instead of messages. For an edge p → v,
//
//	P(p = a, v = s | row) = P(p = a | row) · P(s|a) λ_v(s) / Σ_s' P(s'|a) λ_v(s'),
//
// where λ_v is the evidence below v; the posterior of v is the sum over a.
// This needs no products over siblings and no rescaling, and it gives the
// expected counts of every edge directly; an observed leaf in state x
// simply adds its parent's posterior to column x of its counts. The root's
// posterior is multiplied by the row's weight (compressed rows), so every
// posterior below it, and every count, is weighted without further work.

// binBlock is the number of rows of a block of the binary E-step (64 was
// no faster on 200 variables).
const binBlock = 256

// binMissing marks a missing cell in binding.bin.
const binMissing = 2

// binaryModel reports whether every variable of the engine's model has two
// states.
func (e *engine) binaryModel() bool {
	if len(e.order) == 0 {
		return false
	}
	for _, v := range e.order {
		if e.k[v] != 2 {
			return false
		}
	}
	return true
}

// binCodes returns the model states of the observed nodes, one byte per
// row (binMissing for a missing cell), computed once per binding; it also
// sets b.binMiss. Columns are converted in parallel, each without
// branches: a code is 0, 1 or Missing, min(code, 2) indexes a table of
// the model states, and missing cells are found by OR-ing.
func (b *binding) binCodes() [][]uint8 {
	if b.bin != nil {
		return b.bin
	}
	bin := make([][]uint8, len(b.codes))
	miss := make([]bool, len(b.codes))
	var nodes []int
	for v, codes := range b.codes {
		if codes != nil {
			nodes = append(nodes, v)
		}
	}
	convert := func(v int) {
		lut := [3]uint8{binMissing, binMissing, binMissing}
		for c, s := range b.remap[v][:min(len(b.remap[v]), 2)] {
			lut[c] = uint8(s)
		}
		codes := b.codes[v][:b.rows]
		x := make([]uint8, len(codes))
		var any uint16
		for r, c := range codes {
			m := min(c, 2)
			x[r] = lut[m]
			any |= m
		}
		bin[v], miss[v] = x, any&2 != 0
	}
	workers := runtime.GOMAXPROCS(0)
	if b.rows*len(nodes) < 1<<16 {
		workers = 1 // not worth the goroutines
	}
	parallel.For(workers, len(nodes), func(_, i int) { convert(nodes[i]) })
	b.bin, b.binMiss = bin, miss
	return bin
}

// binWork holds one worker's buffers for the binary E-step: λ, the message
// to the parent and the posterior of every node that is not an observed
// leaf, each 2×binBlock (state-major).
type binWork struct {
	lam, up, post [][]float64
	logZ, scale   []float64
	wt            []float64
}

func (e *engine) newBinWork(leaf []bool) *binWork {
	n := len(e.k)
	w := &binWork{lam: make([][]float64, n), up: make([][]float64, n), post: make([][]float64, n),
		logZ: make([]float64, binBlock), scale: make([]float64, binBlock), wt: make([]float64, binBlock)}
	for _, v := range e.order {
		if leaf[v] {
			continue
		}
		w.lam[v] = make([]float64, 2*binBlock)
		w.post[v] = make([]float64, 2*binBlock)
		if e.parent[v] >= 0 {
			w.up[v] = make([]float64, 2*binBlock)
		}
	}
	return w
}

// binRescale returns, for every node, the sum below which its message
// to the parent is rescaled: 1e-20, or +Inf (always) when the parent has
// more than 6 children that are not observed leaves, so that λ, a product
// of such messages, stays far from underflow.
func (e *engine) binRescale(leaf []bool) []float64 {
	thr := make([]float64, len(e.k))
	for _, v := range e.order {
		p := e.parent[v]
		if p < 0 {
			continue
		}
		n := 0
		for _, c := range e.children[p] {
			if !leaf[c] {
				n++
			}
		}
		thr[v] = 1e-20
		if n > 6 {
			thr[v] = math.Inf(1)
		}
	}
	return thr
}

// binLeaves marks the observed leaves other than the root.
func (e *engine) binLeaves(x [][]uint8) []bool {
	leaf := make([]bool, len(e.k))
	for _, v := range e.order {
		leaf[v] = x[v] != nil && len(e.children[v]) == 0 && e.parent[v] >= 0
	}
	return leaf
}

// expectedBinary is expected for binary models.
func (e *engine) expectedBinary(b *binding, nw int) *counts {
	nblocks := (b.rows + binBlock - 1) / binBlock
	if nblocks == 0 {
		return e.newCounts()
	}
	x := b.binCodes()
	leaf := e.binLeaves(x)
	thr := e.binRescale(leaf)
	miss := b.binMiss
	parts := make([]*counts, nblocks)
	pool := make([]*binWork, model.Workers(nw))
	e.forBlockRange(b.rows, binBlock, model.Workers(nw), func(wk int, r0, nb int) {
		if pool[wk] == nil {
			pool[wk] = e.getBinWork(leaf)
		}
		c := e.newCounts()
		e.estepBinary(b, x, leaf, thr, miss, pool[wk], r0, nb, c)
		parts[r0/binBlock] = c
	})
	e.putBinWork(leaf, pool)
	for _, p := range parts[1:] {
		parts[0].add(p)
	}
	return parts[0]
}

// getBinWork returns work buffers for the observed leaves leaf: kept from
// an earlier E-step of the engine when there is one (EM runs hundreds of
// E-steps, each of which would otherwise allocate every worker's buffers
// anew), else new ones.
func (e *engine) getBinWork(leaf []bool) *binWork {
	e.binMu.Lock()
	defer e.binMu.Unlock()
	if n := len(e.binFree); n > 0 && slices.Equal(e.binLeaf, leaf) {
		w := e.binFree[n-1]
		e.binFree = e.binFree[:n-1]
		return w
	}
	return e.newBinWork(leaf)
}

// putBinWork keeps the buffers of pool (nil entries skipped), made for
// leaf, for later E-steps.
func (e *engine) putBinWork(leaf []bool, pool []*binWork) {
	e.binMu.Lock()
	defer e.binMu.Unlock()
	if !slices.Equal(e.binLeaf, leaf) {
		e.binFree, e.binLeaf = nil, leaf
	}
	for _, w := range pool {
		if w != nil {
			e.binFree = append(e.binFree, w)
		}
	}
}

// estepBinary adds the expected counts of rows [r0, r0+nb) to c: an
// upward pass (λ and the messages to the parents, and each row's
// log-likelihood), then a downward pass (posteriors and expected counts).
// The model is binary, so each node's two states are written out.
func (e *engine) estepBinary(b *binding, x [][]uint8, leaf []bool, thr []float64, miss []bool, w *binWork, r0, nb int, c *counts) {
	logZ, scale, wt := w.logZ[:nb], w.scale[:nb], w.wt[:nb]
	for i := range logZ {
		logZ[i] = 0
		scale[i] = 1
	}
	if b.weight != nil {
		copy(wt, b.weight[r0:r0+nb])
	} else {
		for i := range wt {
			wt[i] = 1
		}
	}
	// Upward: λ and the messages to the parents. A message is rescaled
	// to sum 1 only when its sum falls below thr[v] (always for children
	// of nodes with many non-leaf children, whose λ multiplies many
	// messages); the scales are kept in w.scale and folded into logZ
	// when they get small.
	for y := len(e.order) - 1; y >= 0; y-- {
		v := e.order[y]
		if leaf[v] {
			continue
		}
		e.binLambda(x, leaf, w, v, r0, nb)
		if e.parent[v] < 0 {
			l0 := w.lam[v][:nb]
			l1 := w.lam[v][binBlock : binBlock+nb]
			p0, p1 := e.m.Prior[0], e.m.Prior[1]
			for i := range l0 {
				logZ[i] += safeLog(p0*l0[i]+p1*l1[i]) + safeLog(scale[i])
			}
			continue
		}
		e.binMessage(w, v, thr[v], nb)
	}
	for i, z := range logZ {
		if !math.IsInf(z, -1) {
			c.ll += wt[i] * z
		} else {
			c.impossible += wt[i]
		}
	}
	// Downward: posteriors and expected counts.
	for _, v := range e.order {
		p := e.parent[v]
		if p < 0 {
			e.binRootCounts(w, v, nb, c)
			continue
		}
		pp0 := w.post[p][:nb]
		pp1 := w.post[p][binBlock : binBlock+nb]
		if leaf[v] {
			binLeafCounts(x[v][r0:r0+nb], miss[v], pp0, pp1, e.m.CPT[v], c.cpt[v])
		} else {
			e.binInnerCounts(w, v, pp0, pp1, c.cpt[v])
		}
	}
}

// binLambda sets λ of the non-leaf node v for the block: its evidence
// times the messages of its children (a leaf child's message is read
// from its CPT by the cell's code).
func (e *engine) binLambda(x [][]uint8, leaf []bool, w *binWork, v, r0, nb int) {
	l0 := w.lam[v][:nb]
	l1 := w.lam[v][binBlock : binBlock+nb]
	set := false // λ holds a first factor
	if xv := x[v]; xv != nil {
		xv = xv[r0 : r0+nb]
		for i, s := range xv {
			l0[i] = float64((s ^ 1) & 1) // 1 for state 0 and missing
			l1[i] = float64(s>>1 | s&1)  // 1 for states 1 and missing
		}
		set = true
	}
	for _, ch := range e.children[v] {
		if leaf[ch] {
			t := e.m.CPT[ch]
			u0 := [4]float64{t[0], t[1], 1, 1}
			u1 := [4]float64{t[2], t[3], 1, 1}
			xc := x[ch][r0 : r0+nb]
			xc = xc[:len(l0)]
			if set {
				for i, s := range xc {
					l0[i] *= u0[s&3]
					l1[i] *= u1[s&3]
				}
			} else {
				for i, s := range xc {
					l0[i] = u0[s&3]
					l1[i] = u1[s&3]
				}
			}
		} else {
			u0 := w.up[ch][:nb]
			u1 := w.up[ch][binBlock : binBlock+nb]
			if set {
				for i := range l0 {
					l0[i] *= u0[i]
					l1[i] *= u1[i]
				}
			} else {
				copy(l0, u0)
				copy(l1, u1)
			}
		}
		set = true
	}
	if !set {
		for i := range l0 {
			l0[i] = 1
			l1[i] = 1
		}
	}
}

// binMessage computes v's message to its parent from λ, rescaling a row's
// message to sum 1 when its sum falls below lo.
func (e *engine) binMessage(w *binWork, v int, lo float64, nb int) {
	logZ, scale := w.logZ[:nb], w.scale[:nb]
	l0 := w.lam[v][:nb]
	l1 := w.lam[v][binBlock : binBlock+nb]
	t := e.m.CPT[v]
	c00, c01, c10, c11 := t[0], t[1], t[2], t[3]
	u0 := w.up[v][:nb]
	u1 := w.up[v][binBlock : binBlock+nb]
	for i := range l0 {
		a, bb := c00*l0[i]+c01*l1[i], c10*l0[i]+c11*l1[i]
		u0[i], u1[i] = a, bb
		if s := a + bb; s < lo {
			if s > 0 {
				inv := 1 / s
				u0[i], u1[i] = a*inv, bb*inv
				sc := scale[i] * s
				if sc < 1e-200 {
					logZ[i] += math.Log(sc)
					sc = 1
				}
				scale[i] = sc
			} else {
				scale[i] = 0
			}
		}
	}
}

// binRootCounts sets the root's posteriors, times each row's weight
// (every posterior below is then weighted too, and so are the counts),
// and adds them to the prior's counts.
func (e *engine) binRootCounts(w *binWork, v, nb int, c *counts) {
	wt := w.wt[:nb]
	l0 := w.lam[v][:nb]
	l1 := w.lam[v][binBlock : binBlock+nb]
	q0 := w.post[v][:nb]
	q1 := w.post[v][binBlock : binBlock+nb]
	p0, p1 := e.m.Prior[0], e.m.Prior[1]
	var s0, s1 float64
	for i := range l0 {
		a, bb := p0*l0[i], p1*l1[i]
		z := a + bb
		if z > 0 {
			a, bb = a/z, bb/z
		} else {
			a, bb = 0, 0
		}
		a, bb = wt[i]*a, wt[i]*bb
		q0[i], q1[i] = a, bb
		s0 += a
		s1 += bb
	}
	c.prior[0] += s0
	c.prior[1] += s1
}

// binLeafCounts adds to dst the expected counts of an observed leaf with
// CPT t, whose codes in the block are xv (missing cells only if miss),
// from its parent's posteriors pp0, pp1.
func binLeafCounts(xv []uint8, miss bool, pp0, pp1, t, dst []float64) {
	c00, c01, c10, c11 := t[0], t[1], t[2], t[3]
	// t sums the weighted parent posteriors of all rows, o those of rows
	// in state 1, u those of rows whose cell is missing (state 0: the
	// rest); indicators instead of branches.
	var t0, t1, o0, o1, u0, u1 float64
	if !miss {
		for i, s := range xv {
			f1 := float64(s)
			a0, a1 := pp0[i], pp1[i]
			t0 += a0
			t1 += a1
			o0 += f1 * a0
			o1 += f1 * a1
		}
		dst[0] += t0 - o0
		dst[1] += o0
		dst[2] += t1 - o1
		dst[3] += o1
		return
	}
	for i, s := range xv {
		f1, f2 := float64(s&1), float64(s>>1)
		a0, a1 := pp0[i], pp1[i]
		t0 += a0
		t1 += a1
		o0 += f1 * a0
		o1 += f1 * a1
		u0 += f2 * a0
		u1 += f2 * a1
	}
	// t0 − o0 − u0 is the mass of observed state-0 rows; when there are
	// none it is 0 up to round-off, which may be negative.
	dst[0] += max(t0-o0-u0, 0) + u0*c00
	dst[1] += o0 + u0*c01
	dst[2] += max(t1-o1-u1, 0) + u1*c10
	dst[3] += o1 + u1*c11
}

// binInnerCounts sets the posteriors of the non-leaf, non-root node v and
// adds its expected counts to dst, from λ and its parent's posteriors
// pp0, pp1.
func (e *engine) binInnerCounts(w *binWork, v int, pp0, pp1, dst []float64) {
	nb := len(pp0)
	t := e.m.CPT[v]
	c00, c01, c10, c11 := t[0], t[1], t[2], t[3]
	l0 := w.lam[v][:nb]
	l1 := w.lam[v][binBlock : binBlock+nb]
	q0 := w.post[v][:nb]
	q1 := w.post[v][binBlock : binBlock+nb]
	var n00, n01, n10, n11 float64
	for i := range l0 {
		x0, x1 := l0[i], l1[i]
		r0, r1 := c00*x0+c01*x1, c10*x0+c11*x1
		var f0, f1 float64
		if d := r0 * r1; d > 0 {
			inv := 1 / d
			f0, f1 = pp0[i]*r1*inv, pp1[i]*r0*inv
		} else {
			if r0 > 0 {
				f0 = pp0[i] / r0
			}
			if r1 > 0 {
				f1 = pp1[i] / r1
			}
		}
		a00, a01 := f0*c00*x0, f0*c01*x1
		a10, a11 := f1*c10*x0, f1*c11*x1
		q0[i], q1[i] = a00+a10, a01+a11
		n00 += a00
		n01 += a01
		n10 += a10
		n11 += a11
	}
	dst[0] += n00
	dst[1] += n01
	dst[2] += n10
	dst[3] += n11
}
