package stats

import "math/bits"

// binaryPairs fills the 2×2 tables of every pair of bit-packed binary
// variables. During accumulation the four cells of a table hold
//
//	[0] rows where both are observed      (only when both have missing cells)
//	[1] rows with b = 1 and a observed    (only when a has missing cells)
//	[2] rows with a = 1 and b observed    (only when b has missing cells)
//	[3] rows with a = 1 and b = 1
//
// and finishBinary turns them into the counts n00, n01, n10, n11; the
// quantities not accumulated are known from the marginals.
func (c *computer) binaryPairs() {
	s := c.s
	nd := len(s.lay.dvars)
	if nd < 2 {
		return
	}
	var colBytes int
	for a := range c.bit1 {
		if c.bit1[a] != nil {
			colBytes += 8
			if c.obs[a] != nil {
				colBytes += 8
			}
		}
	}
	if colBytes == 0 {
		return
	}
	bw := blockSize(c.budget/colBytes, 8, c.words)
	bounds := splitTri(nd, c.workers, func(a, b int) int64 {
		if c.bit1[a] == nil || c.bit1[b] == nil {
			return 0
		}
		k := int64(1)
		if c.obs[a] != nil {
			k++
		}
		if c.obs[b] != nil {
			k++
		}
		if k == 3 && c.obs[a] != nil && c.obs[b] != nil {
			k = 4
		}
		return k
	})
	runRanges(bounds, func(lo, hi int) {
		for w0 := 0; w0 < c.words; w0 += bw {
			w1 := min(w0+bw, c.words)
			c.binaryBlock(lo, hi, w0, w1)
		}
		c.finishBinary(lo, hi)
	})
}

// blockSize returns want rounded down to a multiple of unit, clamped to
// [unit, max(n, unit)].
func blockSize(want, unit, n int) int {
	want -= want % unit
	if want < unit {
		want = unit
	}
	if want > n && n > 0 {
		want = n
	}
	return want
}

// binaryBlock accumulates words [w0, w1) for the pairs with linear indices
// [lo, hi).
func (c *computer) binaryBlock(lo, hi, w0, w1 int) {
	s := c.s
	nd := len(s.lay.dvars)
	a, b := triDecode(lo, nd)
	for t := lo; t < hi; {
		// Pairs (a, b..bEnd-1) of this row of the triangle.
		bEnd := min(nd, b+(hi-t))
		t += bEnd - b
		x1 := c.bit1[a]
		if x1 != nil {
			x := x1[w0:w1]
			xo := c.obs[a]
			var xob []uint64
			if xo != nil {
				xob = xo[w0:w1]
			}
			base := s.lay.offset(a, b)
			// Tables of (a, b), (a, b+1), ... are consecutive, 4 cells
			// per binary b, more for a non-binary b (skipped).
			for ; b < bEnd; b++ {
				y1 := c.bit1[b]
				if y1 == nil {
					base += 2 * int64(s.lay.states(b))
					continue
				}
				tab := s.dtab[base : base+4 : base+4]
				base += 4
				y := y1[w0:w1]
				yo := c.obs[b]
				switch {
				case xo == nil && yo == nil:
					tab[3] += popAnd(x, y)
				case yo == nil:
					n11, ny1 := popAnd2(y, x, xob)
					tab[3] += n11
					tab[1] += ny1
				case xo == nil:
					n11, nx1 := popAnd2(x, y, yo[w0:w1])
					tab[3] += n11
					tab[2] += nx1
				default:
					n11, nx1, ny1, nb := popAnd4(x, y, xob, yo[w0:w1])
					tab[3] += n11
					tab[2] += nx1
					tab[1] += ny1
					tab[0] += nb
				}
			}
		}
		if bEnd == nd {
			a++
			b = a + 1
		} else {
			b = bEnd
		}
	}
}

// finishBinary turns the accumulators of the binary pairs with linear
// indices [lo, hi) into counts.
func (c *computer) finishBinary(lo, hi int) {
	s := c.s
	nd := len(s.lay.dvars)
	a, b := triDecode(lo, nd)
	for t := lo; t < hi; t++ {
		if c.bit1[a] != nil && c.bit1[b] != nil {
			off := s.lay.offset(a, b)
			tab := s.dtab[off : off+4 : off+4]
			ja, jb := s.lay.dvars[a], s.lay.dvars[b]
			xo, yo := c.obs[a] != nil, c.obs[b] != nil
			n11 := tab[3]
			nx1, ny1, nb := tab[2], tab[1], tab[0]
			if !yo {
				nx1 = s.marg[ja][1]
			}
			if !xo {
				ny1 = s.marg[jb][1]
			}
			switch {
			case !xo && !yo:
				nb = s.rows
			case !yo:
				nb = s.count[ja]
			case !xo:
				nb = s.count[jb]
			}
			tab[0] = nb - nx1 - ny1 + n11
			tab[1] = ny1 - n11
			tab[2] = nx1 - n11
			tab[3] = n11
		}
		a, b = triNext(a, b, nd)
	}
}

// popAnd returns Σ popcount(x[k] & y[k]); len(y) ≥ len(x). (A plain loop
// with one accumulator beats unrolled ones when the popcount instruction
// is selected at run time, as with the default GOAMD64=v1.)
func popAnd(x, y []uint64) int64 {
	y = y[:len(x)]
	s := 0
	for k, w := range x {
		s += bits.OnesCount64(w & y[k])
	}
	return int64(s)
}

// popAnd2 returns Σ popcount(x & y) and Σ popcount(x & z).
func popAnd2(x, y, z []uint64) (xy, xz int64) {
	y = y[:len(x)]
	z = z[:len(x)]
	var s0, s1 int
	for k, w := range x {
		s0 += bits.OnesCount64(w & y[k])
		s1 += bits.OnesCount64(w & z[k])
	}
	return int64(s0), int64(s1)
}

// popAnd4 returns, for bits x1, y1 and observed masks xo, yo,
// Σ popcount(x1 & y1), Σ popcount(x1 & yo), Σ popcount(y1 & xo) and
// Σ popcount(xo & yo).
func popAnd4(x1, y1, xo, yo []uint64) (n11, nx1, ny1, nb int64) {
	y1 = y1[:len(x1)]
	xo = xo[:len(x1)]
	yo = yo[:len(x1)]
	var s0, s1, s2, s3 int
	for k, a := range x1 {
		b, ao, bo := y1[k], xo[k], yo[k]
		s0 += bits.OnesCount64(a & b)
		s1 += bits.OnesCount64(a & bo)
		s2 += bits.OnesCount64(b & ao)
		s3 += bits.OnesCount64(ao & bo)
	}
	return int64(s0), int64(s1), int64(s2), int64(s3)
}
