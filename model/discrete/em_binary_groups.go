package discrete

import "math"

// Subtrees with few observed nodes are collapsed in the binary E-step.
// Below a node h (not the root) whose subtree holds n ≤ binGroupMax observed
// nodes, none with a missing cell in the binding, a row's evidence is one of
// 2ⁿ patterns, so h's message to its parent is a function of the pattern:
// it is tabulated once per E-step, and a row costs a lookup instead of an
// upward pass through the subtree. Given the parent's state a, the subtree
// is independent of the rest of the row, so every expected count of the
// subtree's edges (and of the edge into h) is linear in the parent's
// posterior: the rows only accumulate, per pattern, the parent's weighted
// posteriors, and the counts are read off the tables at the end. On data
// of 100 binary variables this takes most of the work of a pass out of the
// per-row loops.

// binGroupMax bounds the observed nodes of a collapsed subtree (its table
// has 2^binGroupMax patterns).
const binGroupMax = 8

// binGroup is a collapsed subtree.
type binGroup struct {
	top   int   // the subtree's root (its parent is outside)
	nodes []int // the subtree's nodes, parents before children, top first
	// bit[i] is the bit of nodes[i]'s state in a row's pattern, or −1
	// (hidden node).
	bit []int
	obs []int // the observed nodes, by bit
	off int   // offset of the group's accumulator (2 per pattern)
}

// binTables hold, for each group and pattern, the group's top's message
// to its parent at the current parameters: msg (2 entries a pattern,
// normalised to sum 1, or 0 for an impossible pattern) and logz, the log
// of its normaliser.
type binTables struct {
	msg, logz [][]float64
}

// binGroups are the collapsed subtrees of one binding.
type binGroups struct {
	list []binGroup
	grp  []int // node → index of the group holding it, −1 none
	at   []int // node → its index in its group's nodes
	size int   // length of an accumulator of every group
}

// binGroupBits returns the largest number of observed nodes of a collapsed
// subtree for a binding of rows rows: tables of 2ⁿ patterns are only worth
// building when there are many more rows.
func binGroupBits(rows int) int {
	n := 0
	for n < binGroupMax && 32<<(n+1) <= rows {
		n++
	}
	return n
}

// binGroups finds the largest subtrees that can be collapsed: at least 2
// observed nodes (those with codes), none with a missing cell; see
// binGroupMax.
func (e *engine) binGroups(codes [][]uint16, miss []bool, rows int) *binGroups {
	n := len(e.k)
	g := &binGroups{grp: make([]int, n), at: make([]int, n)}
	for i := range g.grp {
		g.grp[i] = -1
	}
	maxObs := binGroupBits(rows)
	if maxObs < 2 {
		return g
	}
	// Observed nodes below each node, and whether one has a missing cell.
	obs := make([]int, n)
	dirty := make([]bool, n)
	for y := len(e.order) - 1; y >= 0; y-- {
		v := e.order[y]
		if codes[v] != nil {
			obs[v]++
			dirty[v] = dirty[v] || miss[v]
		}
		if p := e.parent[v]; p >= 0 {
			obs[p] += obs[v]
			dirty[p] = dirty[p] || dirty[v]
		}
	}
	for _, v := range e.order {
		if e.parent[v] < 0 || g.grp[v] >= 0 || obs[v] < 2 || obs[v] > maxObs || dirty[v] {
			continue
		}
		gr := binGroup{top: v, off: g.size}
		var walk func(u int)
		walk = func(u int) {
			g.grp[u], g.at[u] = len(g.list), len(gr.nodes)
			gr.nodes = append(gr.nodes, u)
			b := -1
			if codes[u] != nil {
				b = len(gr.obs)
				gr.obs = append(gr.obs, u)
			}
			gr.bit = append(gr.bit, b)
			for _, c := range e.children[u] {
				walk(c)
			}
		}
		walk(v)
		g.size += 2 << len(gr.obs)
		g.list = append(g.list, gr)
	}
	return g
}

// binTables builds the groups' tables at the current parameters.
func (e *engine) binTables(g *binGroups) *binTables {
	t := &binTables{msg: make([][]float64, len(g.list)), logz: make([][]float64, len(g.list))}
	n := len(e.k)
	lam := make([]float64, 0, 2*n)
	up := make([]float64, 0, 2*n)
	for i := range g.list {
		gr := &g.list[i]
		np := 1 << len(gr.obs)
		msg, logz := make([]float64, 2*np), make([]float64, np)
		lam, up = lam[:2*len(gr.nodes)], up[:2*len(gr.nodes)]
		for pat := range np {
			lz := e.binGroupUp(g, gr, pat, lam, up)
			logz[pat] = lz
			if !math.IsInf(lz, -1) {
				msg[2*pat], msg[2*pat+1] = up[0], up[1]
			}
		}
		t.msg[i], t.logz[i] = msg, logz
	}
	return t
}

// binGroupUp runs the upward pass through the group's subtree for the
// pattern pat: lam and up get each node's λ and message to its parent (2
// entries each, by the node's index in gr.nodes), both divided by the
// message's sum, and it returns the log of the product of those sums (−∞
// if the pattern is impossible).
func (e *engine) binGroupUp(g *binGroups, gr *binGroup, pat int, lam, up []float64) float64 {
	lz := 0.0
	for i := len(gr.nodes) - 1; i >= 0; i-- {
		v := gr.nodes[i]
		l0, l1 := 1.0, 1.0
		if b := gr.bit[i]; b >= 0 {
			if pat>>b&1 == 0 {
				l1 = 0
			} else {
				l0 = 0
			}
		}
		for _, c := range e.children[v] {
			j := g.at[c]
			l0 *= up[2*j]
			l1 *= up[2*j+1]
		}
		t := e.m.CPT[v]
		m0, m1 := t[0]*l0+t[1]*l1, t[2]*l0+t[3]*l1
		if s := m0 + m1; s > 0 {
			inv := 1 / s
			m0, m1, l0, l1 = m0*inv, m1*inv, l0*inv, l1*inv
			lz += math.Log(s)
		} else {
			lz = math.Inf(-1)
		}
		lam[2*i], lam[2*i+1] = l0, l1
		up[2*i], up[2*i+1] = m0, m1
	}
	return lz
}

// counts adds to c the expected counts of every group's edges (the edge
// into its top included) from acc, which holds for each group and pattern
// the sums of the parent's posteriors (state 0, state 1) over the rows of
// that pattern.
func (g *binGroups) counts(e *engine, acc []float64, c *counts) {
	n := len(e.k)
	lam := make([]float64, 0, 2*n)
	up := make([]float64, 0, 2*n)
	q := make([]float64, 0, 2*n)
	for i := range g.list {
		gr := &g.list[i]
		k := 2 * len(gr.nodes)
		lam, up, q = lam[:k], up[:k], q[:k]
		for pat := range 1 << len(gr.obs) {
			w0, w1 := acc[gr.off+2*pat], acc[gr.off+2*pat+1]
			if w0 == 0 && w1 == 0 {
				continue
			}
			e.binGroupUp(g, gr, pat, lam, up)
			for j, v := range gr.nodes {
				// The posteriors of the parent's states, then this edge's
				// counts and v's posteriors.
				p0, p1 := w0, w1
				if j > 0 {
					a := g.at[e.parent[v]]
					p0, p1 = q[2*a], q[2*a+1]
				}
				var f0, f1 float64
				if up[2*j] > 0 {
					f0 = p0 / up[2*j]
				}
				if up[2*j+1] > 0 {
					f1 = p1 / up[2*j+1]
				}
				t := e.m.CPT[v]
				l0, l1 := lam[2*j], lam[2*j+1]
				a00, a01 := f0*t[0]*l0, f0*t[1]*l1
				a10, a11 := f1*t[2]*l0, f1*t[3]*l1
				dst := c.cpt[v]
				dst[0] += a00
				dst[1] += a01
				dst[2] += a10
				dst[3] += a11
				q[2*j], q[2*j+1] = a00+a10, a01+a11
			}
		}
	}
}

// accumulate adds the parent's posteriors pp0, pp1 of each row to the
// group's accumulator in acc, at the row's pattern.
func (gr *binGroup) accumulate(pats []uint8, pp0, pp1, acc []float64) {
	a := acc[gr.off : gr.off+2<<len(gr.obs)]
	pp0 = pp0[:len(pats)]
	pp1 = pp1[:len(pats)]
	for i, q := range pats {
		a[2*int(q)] += pp0[i]
		a[2*int(q)+1] += pp1[i]
	}
}
