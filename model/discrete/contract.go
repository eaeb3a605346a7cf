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
	for _, v := range r.Order {
		if p := r.Parent[v]; p >= 0 {
			c.up[v] = make([]float64, b.rows*m.States[v])
			c.dn[v] = make([]float64, b.rows*m.States[p])
			c.upS[v] = make([]float64, b.rows)
			c.dnS[v] = make([]float64, b.rows)
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
	bin := k == 2 && kw == 2*len(nb)
	ll := 0.0
	last := iters == 1
	for it := 0; it < iters; it++ {
		ll = 0
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
			if bin {
				// Every node binary: the same sums unrolled.
				br := bflat[row*kw : (row+1)*kw]
				a0, a1 := pi[0], pi[1]
				if ev == 1 {
					a0 = 0
				} else if ev == 0 {
					a1 = 0
				}
				zero := false
				for i := range nb {
					b0, b1 := br[2*i], br[2*i+1]
					t := trans[i][:4]
					m0, m1 := t[0]*b0+t[1]*b1, t[2]*b0+t[3]*b1
					mw[2*i], mw[2*i+1] = m0, m1
					a0 *= m0
					a1 *= m1
					zero = zero || m0 == 0 || m1 == 0
				}
				l := a0 + a1
				if l <= 0 {
					continue
				}
				wt := c.b.w(row)
				if last {
					ll += wt * (math.Log(l) + cst[row])
					continue
				}
				if !zero {
					il := wt / l
					cpi[0] += a0 * il
					cpi[1] += a1 * il
					e0, e1 := a0*il, a1*il
					for i := range nb {
						b0, b1 := br[2*i], br[2*i+1]
						t := trans[i][:4]
						cx := ctr[i][:4]
						f0, f1 := e0/mw[2*i], e1/mw[2*i+1]
						cx[0] += f0 * t[0] * b0
						cx[1] += f0 * t[1] * b1
						cx[2] += f1 * t[2] * b0
						cx[3] += f1 * t[3] * b1
					}
					continue
				}
				// A zero message: the general sums below.
			}
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
			if l <= 0 {
				continue // probability 0: left out, as EM does
			}
			wt := c.b.w(row)
			if last {
				ll += wt * (math.Log(l) + cst[row])
				continue // the last pass only scores
			}
			il := wt / l
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
		if last {
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
	loc := &Local{Keep: keep, Prior: pi, Neighbors: nb, Trans: trans}
	nm, err := m.WithLocal(ct, loc, c.r, c.marg)
	if err != nil {
		return nil, 0, err
	}
	nm.local = loc
	return nm, ll, nil
}

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
// Contractor.Contract was built from, or nil.
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
