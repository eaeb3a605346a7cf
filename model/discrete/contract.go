package discrete

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// Contractor scores contractions of the edges of a fitted model's tree
// locally: the model with one edge contracted keeps every parameter away
// from the merged node and re-fits only those at it (the prior of the
// merged node and the transitions to its neighbours) by EM, with the
// evidence of the rest of the tree entering through messages computed once
// from the fitted model. Since the contracted model with the rest held is
// a model on the contracted tree, its log-likelihood is exact, and a lower
// bound of the contracted tree's maximum likelihood.
//
// A Contractor holds, for every row and every directed edge a → b of the
// tree, the likelihood of the evidence on a's side given a's state: memory
// of 2 × edges × states × distinct rows numbers. It may be used from
// several goroutines at once.
type Contractor struct {
	m    *Model
	b    *binding
	r    *tree.Rooted
	marg [][]float64
	// up[v] is β_{v|parent(v)}, dn[v] is β_{parent(v)|v}: for each row
	// (row-major, k states each) the likelihood of the evidence on the
	// first node's side of the edge given its state, scaled to a maximum
	// of 1; upS and dnS hold the logarithms of the scales, per row.
	up, dn   [][]float64
	upS, dnS [][]float64
	// LogLik is the model's log-likelihood on the data (rows of
	// probability 0 left out, as EM does).
	LogLik float64
}

// contractorBlock is the number of rows of a block of Contractor's work.
const contractorBlock = 256

// Contractor computes the messages of m on d for local scoring of
// contractions (see Contractor) on workers goroutines (0: GOMAXPROCS);
// the result does not depend on workers.
func (m *Model) Contractor(d *data.Dataset, workers int) (*Contractor, error) {
	return m.contractor(d, workers, nil)
}

// Reuse returns m.Contractor(d, workers) made in c's memory (its messages
// take 2 × edges × states × distinct rows numbers, which a search that
// moves from model to model would otherwise allocate anew each time). c
// must not be used afterwards.
func (c *Contractor) Reuse(m *Model, d *data.Dataset, workers int) (*Contractor, error) {
	var free [][]float64
	for _, ls := range [][][]float64{c.up, c.dn, c.upS, c.dnS} {
		for _, x := range ls {
			if x != nil {
				free = append(free, x)
			}
		}
	}
	*c = Contractor{}
	return m.contractor(d, workers, free)
}

// contractor is Contractor, taking the messages' slices from free (any
// lengths) when they are long enough.
func (m *Model) contractor(d *data.Dataset, workers int, free [][]float64) (*Contractor, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	b, err := m.bind(d)
	if err != nil {
		return nil, err
	}
	b = b.compress()
	r := m.Rooted()
	n := m.Tree.MaxID()
	c := &Contractor{m: m, b: b, r: r, marg: m.Marginals(),
		up: make([][]float64, n), dn: make([][]float64, n), upS: make([][]float64, n), dnS: make([][]float64, n)}
	// Every entry is written below: a slice from free needs no clearing.
	alloc := func(n int) []float64 {
		for i := len(free) - 1; i >= 0; i-- {
			if x := free[i]; cap(x) >= n {
				free[i] = free[len(free)-1]
				free = free[:len(free)-1]
				return x[:n]
			}
		}
		return make([]float64, n)
	}
	for _, v := range r.Order {
		if p := r.Parent[v]; p >= 0 {
			c.up[v] = alloc(b.rows * m.States[v])
			c.dn[v] = alloc(b.rows * m.States[p])
			c.upS[v] = alloc(b.rows)
			c.dnS[v] = alloc(b.rows)
		}
	}
	// rev[v] = P(parent | v) for the downward messages.
	rev := make([][]float64, n)
	for _, v := range r.Order {
		if p := r.Parent[v]; p >= 0 {
			rev[v] = m.Transition(r, v, p, c.marg)
		}
	}
	kmax := 0
	for _, v := range r.Order {
		kmax = max(kmax, m.States[v])
	}
	// Rows are independent: blocks of contractorBlock rows in parallel,
	// the log-likelihood summed block by block in order (the same sum
	// whatever the number of workers).
	nblocks := (b.rows + contractorBlock - 1) / contractorBlock
	blockLL := make([]float64, nblocks)
	if kmax == 2 {
		// Every node binary: the same messages node by node over a block
		// of rows, the downward ones from prefix and suffix products.
		nw := min(workers, nblocks)
		scratch := make([]*binScratch, nw)
		parallel.For(nw, nblocks, func(w, blk int) {
			if scratch[w] == nil {
				scratch[w] = c.newBinScratch()
			}
			r0 := blk * contractorBlock
			blockLL[blk] = c.binBlock(r0, min(b.rows, r0+contractorBlock), rev, scratch[w])
		})
		for _, x := range blockLL {
			c.LogLik += x
		}
		return c, nil
	}
	parallel.For(min(workers, nblocks), nblocks, func(_, blk int) {
		f := make([]float64, kmax)
		g := make([]float64, kmax)
		for row := blk * contractorBlock; row < min(b.rows, (blk+1)*contractorBlock); row++ {
			// Upward: β_{v|p}(x) = ev_v(x) Π_children M_{c→v}(x).
			for i := len(r.Order) - 1; i >= 0; i-- {
				v := r.Order[i]
				k := m.States[v]
				fv := f[:k]
				s := c.evidence(v, row, fv)
				for _, ch := range r.Children[v] {
					s += c.msgInto(ch, v, row, m.CPT[ch], c.up[ch], c.upS[ch], fv)
				}
				if r.Parent[v] < 0 {
					l := 0.0
					for x, y := range fv {
						l += m.Prior[x] * y
					}
					if l > 0 {
						blockLL[blk] += b.w(row) * (math.Log(l) + s)
					}
					continue
				}
				c.store(c.up[v][row*k:(row+1)*k], fv, s, &c.upS[v][row])
			}
			// Downward: β_{p|v}(x) = ev_p(x) Π_{c ≠ v} M_{c→p}(x) M_{pp→p}(x).
			for _, p := range r.Order {
				kp := m.States[p]
				for _, v := range r.Children[p] {
					fp := g[:kp]
					s := c.evidence(p, row, fp)
					for _, ch := range r.Children[p] {
						if ch != v {
							s += c.msgInto(ch, p, row, m.CPT[ch], c.up[ch], c.upS[ch], fp)
						}
					}
					if pp := r.Parent[p]; pp >= 0 {
						s += c.msgInto(pp, p, row, rev[p], c.dn[p], c.dnS[p], fp)
					}
					c.store(c.dn[v][row*kp:(row+1)*kp], fp, s, &c.dnS[v][row])
				}
			}
		}
	})
	for _, x := range blockLL {
		c.LogLik += x
	}
	return c, nil
}

// binScratch is one goroutine's work space for binBlock.
type binScratch struct {
	f0, f1, s []float64
	// m[i] holds M_{c→p}(0) and M_{c→p}(1) of a node's i-th child,
	// interleaved, for every row of the block.
	m [][]float64
}

func (c *Contractor) newBinScratch() *binScratch {
	deg := 0
	for _, ch := range c.r.Children {
		deg = max(deg, len(ch))
	}
	sc := &binScratch{f0: make([]float64, contractorBlock), f1: make([]float64, contractorBlock), s: make([]float64, contractorBlock), m: make([][]float64, deg)}
	for i := range sc.m {
		sc.m[i] = make([]float64, 2*contractorBlock)
	}
	return sc
}

// binBlock computes the messages of rows [r0, r1) when every node is
// binary, node by node, and returns the rows' log-likelihood (summed in
// row order). The upward messages are those of the general loop; a
// downward message β_{p|v} is p's evidence times the messages into p from
// its children before v (a prefix product), from those after v and from
// p's parent (a suffix product), so that a node of degree δ costs O(δ)
// per row instead of O(δ²).
func (c *Contractor) binBlock(r0, r1 int, rev [][]float64, sc *binScratch) float64 {
	m, r := c.m, c.r
	n := r1 - r0
	f0, f1, s := sc.f0[:n], sc.f1[:n], sc.s[:n]
	ll := 0.0
	for i := len(r.Order) - 1; i >= 0; i-- {
		v := r.Order[i]
		c.binEvidence(v, r0, f0, f1, s)
		for _, ch := range r.Children[v] {
			t := m.CPT[ch][:4]
			up, us := c.up[ch][2*r0:2*r1], c.upS[ch][r0:r1]
			for j := range f0 {
				b0, b1 := up[2*j], up[2*j+1]
				f0[j] *= t[0]*b0 + t[1]*b1
				f1[j] *= t[2]*b0 + t[3]*b1
				s[j] += us[j]
			}
		}
		if r.Parent[v] < 0 {
			p0, p1 := m.Prior[0], m.Prior[1]
			for j := range f0 {
				if l := p0*f0[j] + p1*f1[j]; l > 0 {
					ll += c.b.w(r0+j) * (math.Log(l) + s[j])
				}
			}
			continue
		}
		storeBin(c.up[v][2*r0:2*r1], c.upS[v][r0:r1], f0, f1, s)
	}
	for _, p := range r.Order {
		kids := r.Children[p]
		if len(kids) == 0 {
			continue
		}
		// The messages into p from its children.
		for i, ch := range kids {
			t := m.CPT[ch][:4]
			up, mi := c.up[ch][2*r0:2*r1], sc.m[i][:2*n]
			for j := range n {
				b0, b1 := up[2*j], up[2*j+1]
				mi[2*j], mi[2*j+1] = t[0]*b0+t[1]*b1, t[2]*b0+t[3]*b1
			}
		}
		// Prefix products (with p's evidence), kept in the children's
		// downward messages until the suffix pass.
		c.binEvidence(p, r0, f0, f1, s)
		for i, ch := range kids {
			dn, ds := c.dn[ch][2*r0:2*r1], c.dnS[ch][r0:r1]
			mi, us := sc.m[i][:2*n], c.upS[ch][r0:r1]
			for j := range n {
				dn[2*j], dn[2*j+1], ds[j] = f0[j], f1[j], s[j]
				f0[j] *= mi[2*j]
				f1[j] *= mi[2*j+1]
				s[j] += us[j]
			}
		}
		// Suffix products, starting from the message of p's parent.
		if pp := r.Parent[p]; pp >= 0 {
			t := rev[p][:4]
			dn, ds := c.dn[p][2*r0:2*r1], c.dnS[p][r0:r1]
			for j := range n {
				b0, b1 := dn[2*j], dn[2*j+1]
				f0[j], f1[j], s[j] = t[0]*b0+t[1]*b1, t[2]*b0+t[3]*b1, ds[j]
			}
		} else {
			for j := range n {
				f0[j], f1[j], s[j] = 1, 1, 0
			}
		}
		for i := len(kids) - 1; i >= 0; i-- {
			ch := kids[i]
			dn, ds := c.dn[ch][2*r0:2*r1], c.dnS[ch][r0:r1]
			mi, us := sc.m[i][:2*n], c.upS[ch][r0:r1]
			for j := range n {
				x0, x1 := dn[2*j]*f0[j], dn[2*j+1]*f1[j]
				storeBin1(dn[2*j:2*j+2], &ds[j], x0, x1, ds[j]+s[j])
				f0[j] *= mi[2*j]
				f1[j] *= mi[2*j+1]
				s[j] += us[j]
			}
		}
	}
	return ll
}

// binEvidence sets f0, f1 to the 0/1 evidence of binary node v in rows
// r0, r0+1, … (all 1 when v is hidden or the cell missing) and s to 0.
func (c *Contractor) binEvidence(v, r0 int, f0, f1, s []float64) {
	codes := c.b.codes[v]
	if codes == nil {
		for j := range f0 {
			f0[j], f1[j], s[j] = 1, 1, 0
		}
		return
	}
	remap := c.b.remap[v]
	codes = codes[r0 : r0+len(f0)]
	for j, code := range codes {
		s[j] = 0
		switch {
		case code == data.Missing:
			f0[j], f1[j] = 1, 1
		case remap[code] == 0:
			f0[j], f1[j] = 1, 0
		default:
			f0[j], f1[j] = 0, 1
		}
	}
}

// storeBin stores the binary messages f0, f1 with log-scales s as store
// does, row by row.
func storeBin(dst, ls, f0, f1, s []float64) {
	for j := range f0 {
		storeBin1(dst[2*j:2*j+2], &ls[j], f0[j], f1[j], s[j])
	}
}

// storeBin1 is store for one binary message (x0, x1) of log-scale s,
// reading the exponent of the maximum from its bits (math.Frexp and
// math.Ldexp give the same numbers, slower).
func storeBin1(dst []float64, ls *float64, x0, x1, s float64) {
	mx := max(x0, x1)
	if mx <= 0 {
		dst[0], dst[1], *ls = x0, x1, 0
		return
	}
	e := int(math.Float64bits(mx)>>52&0x7ff) - 1022
	if e <= -1022 || e > 1022 {
		// Subnormal or huge: the general way.
		_, e = math.Frexp(mx)
		dst[0], dst[1], *ls = math.Ldexp(x0, -e), math.Ldexp(x1, -e), s+float64(e)*math.Ln2
		return
	}
	f := math.Float64frombits(uint64(1023-e) << 52) // 2^−e, exact
	dst[0], dst[1], *ls = x0*f, x1*f, s+float64(e)*math.Ln2
}

// evidence sets f to the 0/1 evidence of node v in row (all 1 when v is
// hidden or its cell missing) and returns 0, the log-scale it adds.
func (c *Contractor) evidence(v, row int, f []float64) float64 {
	codes := c.b.codes[v]
	if codes == nil || codes[row] == data.Missing {
		for x := range f {
			f[x] = 1
		}
		return 0
	}
	s := int(c.b.remap[v][codes[row]])
	for x := range f {
		f[x] = 0
	}
	f[s] = 1
	return 0
}

// msgInto multiplies f (states of b) by M_{a→b}(x) = Σ_y T(x, y) β_a(y),
// with T = P(a | b) row-major k_b × k_a and β the scaled message of a
// (row's slice of beta), and returns its log-scale.
func (c *Contractor) msgInto(a, b, row int, t, beta, scale []float64, f []float64) float64 {
	ka := c.m.States[a]
	ba := beta[row*ka : (row+1)*ka]
	for x := range f {
		tx := t[x*ka : (x+1)*ka]
		s := 0.0
		for y, by := range ba {
			s += tx[y] * by
		}
		f[x] *= s
	}
	return scale[row]
}

// store writes f scaled to a maximum of 1 into dst and its log-scale (s
// plus the logarithm of the maximum) into *ls; all-zero f is stored as is
// with log-scale 0.
func (c *Contractor) store(dst, f []float64, s float64, ls *float64) {
	mx := 0.0
	for _, y := range f {
		mx = max(mx, y)
	}
	if mx <= 0 {
		copy(dst, f)
		*ls = 0
		return
	}
	// Scale by a power of 2 (exact, and no logarithm per message).
	_, e := math.Frexp(mx)
	for x, y := range f {
		dst[x] = math.Ldexp(y, -e)
	}
	*ls = s + float64(e)*math.Ln2
}

// beta returns the message β_{w|u} of adjacent nodes w, u and its scales.
func (c *Contractor) beta(w, u int) ([]float64, []float64) {
	if c.r.Parent[w] == u {
		return c.up[w], c.upS[w]
	}
	return c.dn[u], c.dnS[u]
}

// Contract returns the model on ct, the tree of the Contractor's model
// with the edge keep–drop contracted (drop merged into keep, node
// identifiers kept), whose parameters away from keep are those of the
// model and whose prior of keep and transitions from keep to its
// neighbours are fitted by at most iters iterations of EM from the
// model's own pairwise marginals (stopping sooner when no parameter moves
// by more than tol in an iteration), and its log-likelihood (rows of
// probability 0 left out). pseudo is EM's pseudo-count (model.EMOptions).
// The returned model is rooted at model.DefaultRoot(ct).
func (c *Contractor) Contract(ct *tree.Tree, keep, drop, iters int, tol, pseudo float64) (*Model, float64, error) {
	loc, ll, err := c.FitLocal(ct, keep, drop, iters, tol, pseudo)
	if err != nil {
		return nil, 0, err
	}
	nm, err := c.m.WithLocal(ct, loc, c.r, c.marg)
	if err != nil {
		return nil, 0, err
	}
	return nm, ll, nil
}

// FitLocal is Contract without the model: the fitted prior of keep and
// transitions to its neighbours, and the contracted model's
// log-likelihood. Contract's model is c's model WithLocal those; a search
// that keeps few of the candidates it scores builds only the models it
// keeps.
func (c *Contractor) FitLocal(ct *tree.Tree, keep, drop, iters int, tol, pseudo float64) (*Local, float64, error) {
	return c.FitLocalWith(ct, keep, drop, LocalOptions{Iters: iters, Tol: tol, Pseudo: pseudo})
}

// LocalOptions configures Contractor.FitLocalWith.
type LocalOptions struct {
	// Iters bounds the passes over the rows: EM iterations and the pass
	// that scores the last parameters (at least 1).
	Iters int
	// Tol ends EM sooner, once no parameter moves by more than Tol in an
	// iteration; Pseudo is EM's pseudo-count (model.EMOptions).
	Tol, Pseudo float64
	// From, when not nil, is the start of EM instead of the model's own
	// pairwise marginals: a local fit of the same contraction against
	// another model (typically the one a search scored it on before), so
	// that the fit continues it. It is ignored when its node or
	// neighbours are not those of keep in the contracted tree, or its
	// numbers of states are not the model's.
	From *Local
	// Floor, when Screen is set, ends EM early for a fit that cannot
	// reach a log-likelihood of Floor: with Iters of at least 6, the
	// log-likelihoods L1 and L3 after 1 and 3 iterations are computed,
	// and when L3 + 2·r·(L3 − L1)/2, with r the iterations left, is below
	// Floor (EM's gains per iteration, taken as at most twice their
	// average over iterations 2 and 3, cannot reach it), the fit ends
	// there with the parameters and log-likelihood of L3.
	Floor  float64
	Screen bool
}

// FitLocalWith is FitLocal with options (a start, and screening).
func (c *Contractor) FitLocalWith(ct *tree.Tree, keep, drop int, opt LocalOptions) (*Local, float64, error) {
	iters, tol, pseudo := opt.Iters, opt.Tol, opt.Pseudo
	m, old := c.m, c.m.Tree
	if !old.HasEdge(keep, drop) || ct.Has(drop) || !ct.Has(keep) {
		return nil, 0, fmt.Errorf("model: %d–%d is not an edge contracted in the tree given", keep, drop)
	}
	if iters < 1 {
		return nil, 0, errors.New("model: local contraction needs at least one iteration")
	}
	nb := ct.Neighbors(keep)
	k := m.States[keep]
	pi := append([]float64(nil), c.marg[keep]...)
	trans := make([][]float64, len(nb))
	betas := make([][]float64, len(nb))
	cst := make([]float64, c.b.rows)
	for i, w := range nb {
		var bs []float64
		switch {
		case old.HasEdge(keep, w):
			trans[i] = append([]float64(nil), m.Transition(c.r, keep, w, c.marg)...)
			betas[i], bs = c.beta(w, keep)
		case old.HasEdge(drop, w):
			kd := m.States[drop]
			trans[i] = matMul(m.Transition(c.r, keep, drop, c.marg), m.Transition(c.r, drop, w, c.marg), k, kd, m.States[w])
			betas[i], bs = c.beta(w, drop)
		default:
			return nil, 0, fmt.Errorf("model: node %d is next to %d in the contracted tree but not in the model's", w, keep)
		}
		for row, s := range bs {
			cst[row] += s
		}
	}
	c.startFrom(opt.From, keep, nb, pi, trans)
	scr := newLocalScreen(opt)
	if k == 2 && slices.IndexFunc(nb, func(w int) bool { return m.States[w] != 2 }) < 0 {
		ll := c.fitLocalBin(keep, pi, trans, betas, cst, iters, tol, pseudo, scr)
		return &Local{Keep: keep, Prior: pi, Neighbors: nb, Trans: trans}, ll, nil
	}
	// Gather the neighbours' messages row by row into one flat array, and
	// keep's evidence as a state (−1: none).
	off := make([]int, len(nb)+1)
	for i, w := range nb {
		off[i+1] = off[i] + m.States[w]
	}
	kw := off[len(nb)]
	rows := c.b.rows
	bflat := make([]float64, rows*kw)
	for i, w := range nb {
		ks := m.States[w]
		src := betas[i]
		for row := 0; row < rows; row++ {
			copy(bflat[row*kw+off[i]:row*kw+off[i]+ks], src[row*ks:(row+1)*ks])
		}
	}
	evs := make([]int32, rows)
	codes := c.b.codes[keep]
	for row := range evs {
		evs[row] = -1
		if codes != nil && codes[row] != data.Missing {
			evs[row] = int32(c.b.remap[keep][codes[row]])
		}
	}
	a := make([]float64, k)
	mw := make([]float64, len(nb)*k) // M_i(x) at i*k+x
	cpi := make([]float64, k)
	ctr := make([][]float64, len(nb))
	for i, w := range nb {
		ctr[i] = make([]float64, k*m.States[w])
	}
	ll := 0.0
	last := iters == 1
	for it := 0; it < iters; it++ {
		ll = 0
		scoring := scr.scores(it)
		for x := range cpi {
			cpi[x] = pseudo
		}
		for i := range ctr {
			for j := range ctr[i] {
				ctr[i][j] = pseudo
			}
		}
		for row := 0; row < rows; row++ {
			ev := evs[row]
			for x := range a {
				a[x] = pi[x]
				if ev >= 0 && int32(x) != ev {
					a[x] = 0
				}
			}
			br := bflat[row*kw : (row+1)*kw]
			for i := range nb {
				bw := br[off[i]:off[i+1]]
				ks := len(bw)
				tr := trans[i]
				for x := 0; x < k; x++ {
					if a[x] == 0 {
						mw[i*k+x] = 0
						continue
					}
					tx := tr[x*ks : (x+1)*ks]
					s := 0.0
					for y, by := range bw {
						s += tx[y] * by
					}
					mw[i*k+x] = s
					a[x] *= s
				}
			}
			l := 0.0
			for _, y := range a {
				l += y
			}
			if last || scoring {
				ll += c.scoreRow(row, l, cst)
			}
			if l <= 0 || last {
				continue
			}
			il := c.b.w(row) / l
			for x, y := range a {
				cpi[x] += y * il
			}
			for i := range nb {
				bw := br[off[i]:off[i+1]]
				ks := len(bw)
				tr, cx := trans[i], ctr[i]
				for x := 0; x < k; x++ {
					// π(x) ev(x) Π_{j≠i} M_j(x): a(x)/M_i(x), or the
					// product itself when M_i(x) is 0.
					var e float64
					if mi := mw[i*k+x]; mi > 0 {
						e = a[x] / mi
					} else {
						if e = pi[x]; e == 0 || ev >= 0 && int32(x) != ev {
							continue
						}
						for j := range nb {
							if j != i {
								e *= mw[j*k+x]
							}
						}
					}
					if e == 0 {
						continue
					}
					e *= il
					tx := tr[x*ks : (x+1)*ks]
					cxx := cx[x*ks : (x+1)*ks]
					for y, by := range bw {
						cxx[y] += e * tx[y] * by
					}
				}
			}
		}
		if last || scoring && scr.hopeless(it, ll) {
			break
		}
		change := normalizeChange(pi, cpi, 1, k)
		for i, w := range nb {
			change = max(change, normalizeChange(trans[i], ctr[i], k, m.States[w]))
		}
		// The next pass scores only, after the last M-step or once no
		// parameter moves by more than tol.
		last = it+2 >= iters || change <= tol
	}
	return &Local{Keep: keep, Prior: pi, Neighbors: nb, Trans: trans}, ll, nil
}

// localScreen applies LocalOptions.Floor to a local fit's passes.
type localScreen struct {
	on    bool
	floor float64
	iters int
	ll1   float64
}

func newLocalScreen(opt LocalOptions) localScreen {
	return localScreen{on: opt.Screen && opt.Iters >= 6, floor: opt.Floor, iters: opt.Iters}
}

// scores reports whether pass it (its E-step at the parameters of it
// iterations) sums the log-likelihood for screening.
func (s *localScreen) scores(it int) bool { return s.on && (it == 1 || it == 3) }

// hopeless records ll, the log-likelihood after it iterations (a pass for
// which scores holds), and reports whether the fit cannot reach the floor.
func (s *localScreen) hopeless(it int, ll float64) bool {
	if it == 1 {
		s.ll1 = ll
		return false
	}
	// Passes it+1 … iters−1 are EM iterations but the last, which scores.
	left := float64(s.iters - 1 - it)
	return ll+2*left*(ll-s.ll1)/2 < s.floor
}

// startFrom copies the prior of keep and the transitions to its
// neighbours nb from from into pi and trans when from is a local fit at
// keep with the same neighbours (in any order) and shapes.
func (c *Contractor) startFrom(from *Local, keep int, nb []int, pi []float64, trans [][]float64) {
	if from == nil || from.Keep != keep || len(from.Neighbors) != len(nb) || len(from.Prior) != len(pi) {
		return
	}
	idx := make([]int, len(nb))
	for i, w := range nb {
		j := slices.Index(from.Neighbors, w)
		if j < 0 || len(from.Trans[j]) != len(trans[i]) {
			return
		}
		idx[i] = j
	}
	copy(pi, from.Prior)
	for i, j := range idx {
		copy(trans[i], from.Trans[j])
	}
}

// blockLogLik returns the sum of scoreRow over the rows r0, r0+1, … of a
// block whose likelihoods (up to the scales cst) are a0 + a1, using buf
// (as long as a0) for them: without row weights, the logarithm of their
// product, kept as a mantissa and a power of 2, plus the scales (one
// logarithm per block instead of one per row).
func (c *Contractor) blockLogLik(r0 int, a0, a1, cst, buf []float64) float64 {
	if c.b.weight != nil {
		s := 0.0
		for j := range a0 {
			if l := a0[j] + a1[j]; l > 0 {
				s += c.b.weight[r0+j] * (math.Log(l) + cst[j])
			}
		}
		return s
	}
	l := buf[:len(a0)]
	sc := 0.0
	for j := range a0 {
		l[j] = a0[j] + a1[j]
		if l[j] > 0 {
			sc += cst[j]
		}
	}
	return logSum(l) + sc
}

// logSum returns Σ log x over the entries x > 0 of xs: their product as a
// mantissa in [1, 2) and a power of 2, read from its bits after each
// factor (a subnormal product is renormalised by math.Frexp).
func logSum(xs []float64) float64 {
	m, e := 1.0, 0
	for _, x := range xs {
		if !(x > 0) {
			continue
		}
		m *= x
		b := math.Float64bits(m)
		ex := int(b >> 52 & 0x7ff)
		if ex == 0 || ex == 0x7ff {
			// Subnormal (or, for x beyond 2^1023, infinite: not a
			// likelihood here).
			f, fe := math.Frexp(m)
			m, e = f*2, e+fe-1
			continue
		}
		m = math.Float64frombits(b&^(0x7ff<<52) | 1023<<52)
		e += ex - 1023
	}
	return math.Log(m) + float64(e)*math.Ln2
}

// scoreRow is a row's term of a local EM pass's log-likelihood, which
// only the last pass sums: its weighted logarithm of the likelihood l (up
// to the scale cst[row]), or 0 for a row of probability 0 (left out, as EM
// does).
func (c *Contractor) scoreRow(row int, l float64, cst []float64) float64 {
	if l <= 0 {
		return 0
	}
	return c.b.w(row) * (math.Log(l) + cst[row])
}

// fitLocalBin is FitLocal's EM when keep and its neighbours are binary:
// pi and trans (2 × 2 each) start at the model's and end fitted, betas
// are the neighbours' messages and cst the sum of their log-scales by
// row; it returns the log-likelihood. A pass works through blocks of
// localBlock rows, one neighbour at a time over the block's rows (short
// loops without dependencies from row to row): the messages M_i into keep
// from its neighbours, then the evidence on the other neighbours of a
// neighbour's edge, π(x) ev(x) Π_{j≠i} M_j(x), as a prefix product (kept
// per neighbour and row) times a suffix product (no division, exact when a
// message is 0). The expected count of the transition entry (x, y) to
// neighbour i is T_i(x, y) times Σ_rows w π(x) ev(x) Π_{j≠i} M_j(x) β_i(y)
// / l: the sum is accumulated and multiplied by T_i once per pass.
func (c *Contractor) fitLocalBin(keep int, pi []float64, trans, betas [][]float64, cst []float64, iters int, tol, pseudo float64, scr localScreen) float64 {
	nb, rows := len(trans), c.b.rows
	// Evidence of keep by row: 1 where state 0 is allowed, 2 where 1 is.
	evs := make([]uint8, rows)
	codes := c.b.codes[keep]
	for row := range evs {
		evs[row] = 3
		if codes != nil && codes[row] != data.Missing {
			evs[row] = 1 << c.b.remap[keep][codes[row]]
		}
	}
	t := make([]float64, 4*nb)   // the transitions, flat
	cx := make([]float64, 4*nb)  // their expected counts
	acc := make([]float64, 4*nb) // the sums above, by transition entry
	for i, tr := range trans {
		copy(t[4*i:4*i+4], tr[:4])
	}
	const blk = localBlock
	// Per block: the prefix products (pre0, pre1) and the messages (m0,
	// m1) of neighbour i at [i*blk, (i+1)*blk), and by row the running
	// products a0, a1 and suffix products s0, s1.
	buf := make([]float64, 4*nb*blk+4*blk)
	pre0, pre1 := buf[:nb*blk], buf[nb*blk:2*nb*blk]
	m0s, m1s := buf[2*nb*blk:3*nb*blk], buf[3*nb*blk:4*nb*blk]
	tail := buf[4*nb*blk:]
	a0, a1, s0, s1 := tail[:blk], tail[blk:2*blk], tail[2*blk:3*blk], tail[3*blk:4*blk]
	var cpi [2]float64
	ll := 0.0
	last := iters == 1
	for it := 0; it < iters; it++ {
		ll = 0
		scoring := scr.scores(it)
		cpi[0], cpi[1] = pseudo, pseudo
		clear(acc)
		for r0 := 0; r0 < rows; r0 += blk {
			n := min(blk, rows-r0)
			a0, a1, s0, s1 := a0[:n], a1[:n], s0[:n], s1[:n]
			for j, ev := range evs[r0 : r0+n] {
				a0[j], a1[j] = pi[0], pi[1]
				if ev&1 == 0 {
					a0[j] = 0
				}
				if ev&2 == 0 {
					a1[j] = 0
				}
			}
			for i := range nb {
				b := betas[i][2*r0 : 2*(r0+n)]
				ti := t[4*i : 4*i+4]
				t0, t1, t2, t3 := ti[0], ti[1], ti[2], ti[3]
				p0, p1 := pre0[i*blk:i*blk+n], pre1[i*blk:i*blk+n]
				q0, q1 := m0s[i*blk:i*blk+n], m1s[i*blk:i*blk+n]
				for j := range a0 {
					b0, b1 := b[2*j], b[2*j+1]
					x0, x1 := t0*b0+t1*b1, t2*b0+t3*b1
					p0[j], p1[j] = a0[j], a1[j]
					q0[j], q1[j] = x0, x1
					a0[j] *= x0
					a1[j] *= x1
				}
			}
			if last || scoring {
				ll += c.blockLogLik(r0, a0, a1, cst[r0:r0+n], s0)
			}
			if last {
				continue
			}
			// s starts at w/l (0 for a row of probability 0, which adds
			// nothing to the counts).
			for j := range a0 {
				il := 0.0
				if l := a0[j] + a1[j]; l > 0 {
					il = c.b.w(r0+j) / l
				}
				cpi[0] += a0[j] * il
				cpi[1] += a1[j] * il
				s0[j], s1[j] = il, il
			}
			for i := nb - 1; i >= 0; i-- {
				b := betas[i][2*r0 : 2*(r0+n)]
				p0, p1 := pre0[i*blk:i*blk+n], pre1[i*blk:i*blk+n]
				q0, q1 := m0s[i*blk:i*blk+n], m1s[i*blk:i*blk+n]
				var c00, c01, c10, c11 float64
				for j := range s0 {
					b0, b1 := b[2*j], b[2*j+1]
					f0, f1 := p0[j]*s0[j], p1[j]*s1[j]
					c00 += f0 * b0
					c01 += f0 * b1
					c10 += f1 * b0
					c11 += f1 * b1
					s0[j] *= q0[j]
					s1[j] *= q1[j]
				}
				ai := acc[4*i : 4*i+4]
				ai[0] += c00
				ai[1] += c01
				ai[2] += c10
				ai[3] += c11
			}
		}
		if last || scoring && scr.hopeless(it, ll) {
			break
		}
		for j, x := range acc {
			cx[j] = pseudo + t[j]*x
		}
		change := normalizeChange(pi, cpi[:], 1, 2)
		for i := range trans {
			change = max(change, normalizeChange(t[4*i:4*i+4], cx[4*i:4*i+4], 2, 2))
		}
		// The next pass scores only, after the last M-step or once no
		// parameter moves by more than tol.
		last = it+2 >= iters || change <= tol
	}
	for i, tr := range trans {
		copy(tr[:4], t[4*i:4*i+4])
	}
	return ll
}

// localBlock is the number of rows of a block of fitLocalBin's passes.
const localBlock = 256

// Local is the part of a model at one node that Contractor.Contract
// fitted: the node's prior and the transitions P(w | Keep) to its
// neighbours w, row-major.
type Local struct {
	Keep      int
	Prior     []float64
	Neighbors []int
	Trans     [][]float64
}

// LocalFit returns the local parameters a model returned by
// Contractor.Contract or WithLocal was built from, or nil.
func (m *Model) LocalFit() *Local { return m.local }

// WithLocal returns the model on ct (a tree whose edges away from
// loc.Keep are edges of m's tree) rooted at model.DefaultRoot(ct) whose
// joint distribution is loc's prior of Keep times its transitions from
// Keep to its neighbours times m's transitions on every other edge,
// directed away from Keep. r and marg are m's rooting and marginals (nil:
// computed).
func (m *Model) WithLocal(ct *tree.Tree, loc *Local, r *tree.Rooted, marg [][]float64) (*Model, error) {
	if r == nil {
		r = m.Rooted()
	}
	if marg == nil {
		marg = m.Marginals()
	}
	keep, pi, nb, trans := loc.Keep, loc.Prior, loc.Neighbors, loc.Trans
	if a, b := slices.Sorted(slices.Values(ct.Neighbors(keep))), slices.Sorted(slices.Values(nb)); !slices.Equal(a, b) {
		return nil, fmt.Errorf("model: node %d's neighbours in the tree given are not those of the local fit", keep)
	}
	states := make([]int, ct.MaxID())
	copy(states, m.States)
	nm, err := New(ct, model.DefaultRoot(ct), states)
	if err != nil {
		return nil, err
	}
	copy(nm.Labels, m.Labels)
	// cond[v] = P(v | from[v]) with from[v] v's neighbour towards keep.
	n := ct.MaxID()
	cond := make([][]float64, n)
	from := make([]int, n)
	nmarg := make([][]float64, n)
	for i := range from {
		from[i] = -1
	}
	nmarg[keep] = pi
	queue := []int{keep}
	for i, w := range nb {
		cond[w], from[w] = trans[i], keep
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, z := range ct.Neighbors(u) {
			if z == keep || nmarg[z] != nil {
				continue
			}
			if u != keep {
				if !m.Tree.HasEdge(u, z) {
					return nil, fmt.Errorf("model: edge %d–%d of the tree given is not in the model's", u, z)
				}
				cond[z], from[z] = m.Transition(r, u, z, marg), u
			}
			nmarg[z] = matMul(nmarg[u], cond[z], 1, states[u], states[z])
			queue = append(queue, z)
		}
	}
	marg = nmarg
	nr := nm.Rooted()
	copy(nm.Prior, marg[nm.Root])
	for _, v := range nr.Order {
		p := nr.Parent[v]
		if p < 0 {
			continue
		}
		kp, kv := states[p], states[v]
		cpt := nm.CPT[v]
		if from[v] == p {
			copy(cpt, cond[v])
		} else {
			// P(v=a | p=b) = P(p=b | v=a) P(v=a) / P(p=b).
			cp := cond[p]
			for b := 0; b < kp; b++ {
				for a := 0; a < kv; a++ {
					if marg[p][b] > 0 {
						cpt[b*kv+a] = cp[a*kp+b] * marg[v][a] / marg[p][b]
					} else {
						cpt[b*kv+a] = 1 / float64(kv)
					}
				}
			}
		}
		// Rows of a state of probability 0 may not sum to 1 down the
		// held transitions: make them uniform.
		for b := 0; b < kp; b++ {
			row := cpt[b*kv : (b+1)*kv]
			s := 0.0
			for _, y := range row {
				s += y
			}
			if s <= 0 || math.Abs(s-1) > 1e-9 {
				if s > 0 {
					for a := range row {
						row[a] /= s
					}
				} else {
					for a := range row {
						row[a] = 1 / float64(kv)
					}
				}
			}
		}
	}
	s := 0.0
	for _, y := range nm.Prior {
		s += y
	}
	for x := range nm.Prior {
		nm.Prior[x] /= s
	}
	nm.local = loc
	return nm, nm.Validate()
}

// normalizeChange normalizes the rows of the counts src into dst (as
// normalizeInto without a pseudo-count) and returns the largest absolute
// change of an entry of dst.
func normalizeChange(dst, src []float64, rows, k int) float64 {
	change := 0.0
	for a := 0; a < rows; a++ {
		s := 0.0
		for x := 0; x < k; x++ {
			s += max(src[a*k+x], 0)
		}
		if !(s > 0) {
			continue
		}
		for x := 0; x < k; x++ {
			y := max(src[a*k+x], 0) / s
			change = max(change, math.Abs(y-dst[a*k+x]))
			dst[a*k+x] = y
		}
	}
	return change
}
