package spectral

import (
	"math"
	"sync"

	"github.com/latentree/latentree/data"
)

// mvec is the vector contracted with one mode: a state (one-hot) or a
// dense vector (a message, or ones for a summed-out variable).
type mvec struct {
	hot int // ≥ 0: one-hot at hot; hotDense: v
	v   []float64
}

const hotDense = -1

func (m mvec) at(s int) float64 {
	if m.hot >= 0 {
		if s == m.hot {
			return 1
		}
		return 0
	}
	return m.v[s]
}

// contractExcept contracts the table t of the given shape with vecs[i] on
// every mode i ≠ j and writes the vector over mode j to out (len
// shape[j]). buf is scratch of at least 2·len(t).
func contractExcept(t []float64, shape []int, vecs []mvec, j int, out, buf []float64) {
	if j == 0 && len(shape) == 3 {
		contract3(t, shape, vecs[1], vecs[2], out)
		return
	}
	// Contract the trailing modes j+1.. from the last, alternating
	// between the two halves of buf.
	half := len(buf) / 2
	cur := t
	size := len(t)
	for step, i := 0, len(shape)-1; i > j; step, i = step+1, i-1 {
		n := shape[i]
		size /= n
		dst := buf[(step%2)*half : (step%2)*half+size]
		v := vecs[i]
		switch {
		case v.hot >= 0:
			for x := 0; x < size; x++ {
				dst[x] = cur[x*n+v.hot]
			}
		default:
			for x := 0; x < size; x++ {
				s := 0.0
				for y, c := range cur[x*n : (x+1)*n] {
					s += c * v.v[y]
				}
				dst[x] = s
			}
		}
		cur = dst
	}
	// cur is now shape[0..j] row-major; contract the leading modes.
	nj := shape[j]
	for x := range out[:nj] {
		out[x] = 0
	}
	lead := size / nj
	if j == 0 {
		copy(out, cur[:nj])
		return
	}
	var idxBuf [16]int
	idx := idxBuf[:0]
	if j > len(idxBuf) {
		idx = make([]int, j)
	}
	idx = idx[:j]
	for p := 0; p < lead; p++ {
		w := 1.0
		for i := 0; i < j; i++ {
			w *= vecs[i].at(idx[i])
			if w == 0 {
				break
			}
		}
		if w != 0 {
			row := cur[p*nj : (p+1)*nj]
			for x, c := range row {
				out[x] += w * c
			}
		}
		for i := j - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < shape[i] {
				break
			}
			idx[i] = 0
		}
	}
}

// contract3 is contractExcept for a 3-mode table and mode 0, the common
// case of binary trees.
func contract3(t []float64, shape []int, v1, v2 mvec, out []float64) {
	n0, n1, n2 := shape[0], shape[1], shape[2]
	// (modeVecs gives summed-out leaves as dense vectors of ones.)
	switch {
	case v1.hot >= 0 && v2.hot >= 0:
		off := v1.hot*n2 + v2.hot
		for x := 0; x < n0; x++ {
			out[x] = t[x*n1*n2+off]
		}
	case v2.hot >= 0:
		a := v1.v[:n1]
		for x := 0; x < n0; x++ {
			s := 0.0
			base := x*n1*n2 + v2.hot
			for y, w := range a {
				s += t[base+y*n2] * w
			}
			out[x] = s
		}
	case v1.hot >= 0:
		b := v2.v[:n2]
		for x := 0; x < n0; x++ {
			row := t[(x*n1+v1.hot)*n2 : (x*n1+v1.hot+1)*n2]
			s := 0.0
			for z, c := range row {
				s += c * b[z]
			}
			out[x] = s
		}
	default:
		a, b := v1.v[:n1], v2.v[:n2]
		for x := 0; x < n0; x++ {
			s := 0.0
			for y, w := range a {
				row := t[(x*n1+y)*n2 : (x*n1+y+1)*n2]
				r := 0.0
				for z, c := range row {
					r += c * b[z]
				}
				s += w * r
			}
			out[x] = s
		}
	}
}

// specEngine evaluates a network on bound rows.
type specEngine struct {
	net    *specNet
	maxLen int
	shapes [][]int // per factor: the folded table's shape
	ones   []float64
}

func newSpecEngine(net *specNet) *specEngine {
	e := &specEngine{net: net, shapes: make([][]int, len(net.factors))}
	for f := range net.factors {
		fac := &net.factors[f]
		e.maxLen = max(e.maxLen, len(fac.folded), len(fac.table))
		e.shapes[f] = foldedShape(fac, nil)
		for _, n := range fac.shape {
			for len(e.ones) < n {
				e.ones = append(e.ones, 1)
			}
		}
	}
	return e
}

// specRow holds one row's messages.
type specRow struct {
	up   [][]float64 // per factor: message to the parent (over the bond)
	dn   [][]float64 // per factor: message from the parent
	vecs []mvec
	buf  []float64
	root []float64
}

func (e *specEngine) newRow() *specRow {
	w := &specRow{up: make([][]float64, len(e.net.factors)), dn: make([][]float64, len(e.net.factors)), buf: make([]float64, 2*e.maxLen), root: make([]float64, e.net.factors[e.net.root].shape[0])}
	for f, fac := range e.net.factors {
		if fac.parent >= 0 {
			nb := len(fac.folded) / (len(fac.table) / fac.shape[0])
			w.up[f] = make([]float64, nb)
			w.dn[f] = make([]float64, nb)
		}
	}
	return w
}

// foldedShape returns the shape of a factor's folded table.
func foldedShape(fac *specFactor, dst []int) []int {
	dst = append(dst[:0], fac.shape...)
	if fac.parent >= 0 {
		dst[0] = len(fac.folded) / (len(fac.table) / fac.shape[0])
	}
	return dst
}

// modeVecs fills w.vecs with factor f's mode vectors for row r: leaves
// from the data (skip: treat node skip as summed out), children from
// their upward messages, the parent mode from the downward message.
func (e *specEngine) modeVecs(w *specRow, f int, d *specData, r int, skip int) []mvec {
	fac := &e.net.factors[f]
	w.vecs = w.vecs[:0]
	for _, m := range fac.modes {
		switch m.kind {
		case modeParent:
			w.vecs = append(w.vecs, mvec{hot: hotDense, v: w.dn[f]})
		case modeChild:
			w.vecs = append(w.vecs, mvec{hot: hotDense, v: w.up[m.child]})
		default:
			c := d.cols[m.rep][r]
			if c == data.Missing || m.rep == skip {
				w.vecs = append(w.vecs, mvec{hot: hotDense, v: e.ones[:e.net.states[m.rep]]})
			} else {
				w.vecs = append(w.vecs, mvec{hot: int(c)})
			}
		}
	}
	return w.vecs
}

// rowProb returns the sign (−1, 0, +1) and log|P̂| of row r, leaving the
// normalised upward messages in w. skip (a node or −1) is summed out.
func (e *specEngine) rowProb(w *specRow, d *specData, r, skip int) (float64, float64) {
	net := e.net
	exp2 := 0 // P̂ = root value · 2^exp2
	zero := false
	for i := len(net.order) - 1; i >= 0; i-- {
		f := net.order[i]
		fac := &net.factors[f]
		vecs := e.modeVecs(w, f, d, r, skip)
		shape := e.shapes[f]
		if fac.parent < 0 {
			res := w.root[:shape[0]]
			contractExcept(fac.folded, shape, vecs, 0, res, w.buf)
			s := 0.0
			for x, y := range res {
				s += y * vecs[0].at(x)
			}
			if zero || s == 0 || math.IsNaN(s) {
				return 0, math.Inf(-1)
			}
			return math.Copysign(1, s), math.Log(math.Abs(s)) + float64(exp2)*math.Ln2
		}
		up := w.up[f]
		contractExcept(fac.folded, shape, vecs, 0, up, w.buf)
		mx := 0.0
		for _, y := range up {
			mx = max(mx, math.Abs(y))
		}
		if mx == 0 || math.IsNaN(mx) {
			zero = true
			continue
		}
		// Rescale by an exact power of two only when the message drifts
		// far from 1 (messages are signed: no logs needed).
		if mx < 0x1p-200 || mx > 0x1p200 {
			_, e2 := math.Frexp(mx)
			for x := range up {
				up[x] = math.Ldexp(up[x], -e2)
			}
			exp2 += e2
		}
	}
	return 0, math.Inf(-1)
}

// downward computes the normalised downward messages of row r after
// rowProb.
func (e *specEngine) downward(w *specRow, d *specData, r int) {
	net := e.net
	for _, f := range net.order {
		fac := &net.factors[f]
		shape := e.shapes[f]
		var vecs []mvec
		for j, m := range fac.modes {
			if m.kind != modeChild {
				continue
			}
			if vecs == nil {
				// (writing a child's downward message leaves f's mode
				// vectors unchanged)
				vecs = e.modeVecs(w, f, d, r, -1)
			}
			dn := w.dn[m.child]
			contractExcept(fac.folded, shape, vecs, j, dn, w.buf)
			normaliseMax(dn)
		}
	}
}

func normaliseMax(v []float64) {
	mx := 0.0
	for _, y := range v {
		mx = max(mx, math.Abs(y))
	}
	if mx > 0 {
		for x := range v {
			v[x] /= mx
		}
	}
}

// leafVector writes to out the unnormalised P̂(x_v = s, rest of row r)
// for every state s of observed node v (after rowProb with skip v and
// downward).
func (e *specEngine) leafVector(w *specRow, d *specData, r, v int, out []float64) {
	f := e.net.leafOf[v]
	fac := &e.net.factors[f]
	shape := e.shapes[f]
	vecs := e.modeVecs(w, f, d, r, v)
	for j, m := range fac.modes {
		if m.kind == modeLeaf && m.rep == v {
			contractExcept(fac.folded, shape, vecs, j, out, w.buf)
			return
		}
	}
}

// forRows runs fn over the rows in parallel blocks, each worker with its
// own row buffers.
func (e *specEngine) forRows(rows, nw int, fn func(w *specRow, r int)) {
	const block = 256
	nblocks := (rows + block - 1) / block
	nw = max(1, min(nw, nblocks))
	next := make(chan int, nblocks)
	for b := 0; b < nblocks; b++ {
		next <- b
	}
	close(next)
	var wg sync.WaitGroup
	for k := 0; k < nw; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := e.newRow()
			for b := range next {
				for r := b * block; r < min(rows, (b+1)*block); r++ {
					fn(w, r)
				}
			}
		}()
	}
	wg.Wait()
}
