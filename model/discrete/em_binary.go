package discrete

import (
	"math"
	"runtime"
	"slices"

	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
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
// Subtrees with few observed nodes, none missing, are collapsed into
// tables of their evidence patterns (binGroups).

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

// binPrep is what the binary E-step reads of a binding, prepared once per
// binding (binPrepare) for the model's rooted tree.
type binPrep struct {
	tree *tree.Tree
	root int
	// x holds the model states of the observed nodes outside the
	// collapsed subtrees, one byte per row (binMissing for a missing
	// cell); nil for the others.
	x    [][]uint8
	miss []bool // miss[v]: the column of node v has a missing cell
	g    *binGroups
	// pats holds each collapsed subtree's row patterns.
	pats [][]uint8
}

// bytes returns the size of the prepared codes.
func (p *binPrep) bytes() int {
	n := 0
	for _, x := range p.x {
		n += len(x)
	}
	for _, x := range p.pats {
		n += len(x)
	}
	return n
}

// binPrepare returns the binding's codes for the binary E-step, computed
// once per binding and tree: columns are first checked for missing cells,
// which decides the collapsed subtrees (binGroups); then, in parallel,
// each collapsed subtree's patterns are built from its columns and every
// other column is converted to one byte per row, without branches: a code
// is 0, 1 or Missing, and min(code, 2) indexes a table of the model
// states.
func (e *engine) binPrepare(b *binding) *binPrep {
	if p := b.bin; p != nil && p.tree == e.m.Tree && p.root == e.m.Root {
		return p
	}
	p := &binPrep{tree: e.m.Tree, root: e.m.Root, x: make([][]uint8, len(b.codes)), miss: make([]bool, len(b.codes))}
	var nodes []int
	for v, codes := range b.codes {
		if codes != nil {
			nodes = append(nodes, v)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if b.rows*len(nodes) < 1<<16 {
		workers = 1 // not worth the goroutines
	}
	parallel.For(workers, len(nodes), func(_, i int) {
		var any uint16
		for _, c := range b.codes[nodes[i]][:b.rows] {
			any |= min(c, 2)
		}
		p.miss[nodes[i]] = any&2 != 0
	})
	p.g = e.binGroups(b.codes, p.miss, b.rows)
	p.pats = make([][]uint8, len(p.g.list))
	lut := func(v int) [3]uint8 {
		t := [3]uint8{binMissing, binMissing, binMissing}
		for c, s := range b.remap[v][:min(len(b.remap[v]), 2)] {
			t[c] = uint8(s)
		}
		return t
	}
	var items []int // groups (−1 − index), then the other columns
	for i := range p.g.list {
		items = append(items, -1-i)
	}
	for _, v := range nodes {
		if p.g.grp[v] < 0 {
			items = append(items, v)
		}
	}
	parallel.For(workers, len(items), func(_, i int) {
		if v := items[i]; v >= 0 {
			t := lut(v)
			x := make([]uint8, b.rows)
			for r, c := range b.codes[v][:b.rows] {
				x[r] = t[min(c, 2)]
			}
			p.x[v] = x
			return
		}
		gi := -1 - items[i]
		pat := make([]uint8, b.rows)
		for bit, v := range p.g.list[gi].obs {
			// No missing cell: every code is 0 or 1.
			t := lut(v)
			u := [2]uint8{t[0] << bit, t[1] << bit}
			codes := b.codes[v][:b.rows]
			codes = codes[:len(pat)]
			for r, c := range codes {
				pat[r] |= u[c&1]
			}
		}
		p.pats[gi] = pat
	})
	b.bin = p
	return p
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

// binChunkBlocks returns the number of blocks of a chunk, the rows whose
// counts one worker sums before they are added to the others in chunk
// order: up to 16 blocks, at least 16 chunks when there are that many
// blocks. It depends on the rows only, so the counts do not depend on the
// number of workers.
func binChunkBlocks(nblocks int) int { return max(1, min(16, nblocks/16)) }

// expectedBinary is expected for binary models.
func (e *engine) expectedBinary(b *binding, nw int) *counts {
	nblocks := (b.rows + binBlock - 1) / binBlock
	if nblocks == 0 {
		return e.newCounts()
	}
	bp := e.binPrepare(b)
	x, g := bp.x, bp.g
	tab := e.binTables(g)
	leaf := e.binLeaves(x)
	thr := e.binRescale(leaf)
	per := binChunkBlocks(nblocks)
	chunk := per * binBlock
	nchunks := (b.rows + chunk - 1) / chunk
	parts := make([]*counts, nchunks)
	accs := make([][]float64, nchunks)
	pool := make([]*binWork, model.Workers(nw))
	e.forBlockRange(b.rows, chunk, model.Workers(nw), func(wk int, r0, n int) {
		if pool[wk] == nil {
			pool[wk] = e.getBinWork(leaf)
		}
		c := e.newCounts()
		acc := make([]float64, g.size)
		for lo := 0; lo < n; lo += binBlock {
			e.estepBinary(b, bp, tab, leaf, thr, pool[wk], r0+lo, min(binBlock, n-lo), c, acc)
		}
		parts[r0/chunk], accs[r0/chunk] = c, acc
	})
	e.putBinWork(leaf, pool)
	for i, p := range parts[1:] {
		parts[0].add(p)
		for j, a := range accs[i+1] {
			accs[0][j] += a
		}
	}
	g.counts(e, accs[0], parts[0])
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
func (e *engine) estepBinary(b *binding, bp *binPrep, tab *binTables, leaf []bool, thr []float64, w *binWork, r0, nb int, c *counts, acc []float64) {
	x, miss, g := bp.x, bp.miss, bp.g
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
		if leaf[v] || g.grp[v] >= 0 {
			continue
		}
		e.binLambda(bp, tab, leaf, w, v, r0, nb)
		if e.parent[v] < 0 {
			l0 := w.lam[v][:nb]
			l1 := w.lam[v][binBlock : binBlock+nb]
			p0, p1 := e.m.Prior[0], e.m.Prior[1]
			for i := range l0 {
				// (Most rows' scale is 1: one logarithm.)
				if sc := scale[i]; sc == 1 {
					logZ[i] += safeLog(p0*l0[i] + p1*l1[i])
				} else {
					logZ[i] += safeLog(p0*l0[i]+p1*l1[i]) + safeLog(sc)
				}
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
		if gi := g.grp[v]; gi >= 0 {
			if gr := &g.list[gi]; gr.top == v {
				gr.accumulate(bp.pats[gi][r0:r0+nb], w.post[p][:nb], w.post[p][binBlock:binBlock+nb], acc)
			}
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
func (e *engine) binLambda(bp *binPrep, tab *binTables, leaf []bool, w *binWork, v, r0, nb int) {
	x, g := bp.x, bp.g
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
		} else if gi := g.grp[ch]; gi >= 0 {
			// A collapsed subtree: its message by the row's pattern,
			// normalised (the normaliser's log goes to logZ).
			msg, logz := tab.msg[gi], tab.logz[gi]
			pat := bp.pats[gi][r0 : r0+nb]
			pat = pat[:len(l0)]
			logZ := w.logZ[:len(l0)]
			if set {
				for i, q := range pat {
					l0[i] *= msg[2*int(q)]
					l1[i] *= msg[2*int(q)+1]
					logZ[i] += logz[q]
				}
			} else {
				for i, q := range pat {
					l0[i] = msg[2*int(q)]
					l1[i] = msg[2*int(q)+1]
					logZ[i] += logz[q]
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
