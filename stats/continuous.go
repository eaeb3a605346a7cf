package stats

// continuousPairs fills the pairwise moments of the continuous pairs. Values
// are centred on the means of their variables before multiplying. When
// neither variable has missing cells only the cross products are summed (the
// centred Gram matrix); otherwise the sums of the centred values, of their
// squares and of their products over the rows where both are observed are
// summed and corrected to the means of those rows.
//
// During accumulation a contPair holds n and the sums Σdx, Σdy, Σdx²,
// Σdy², Σdx·dy in its fields n, mi, mj, m2i, m2j, c.
func (c *computer) continuousPairs() {
	s := c.s
	q := len(s.lay.cvars)
	if q < 2 {
		return
	}
	cols := make([]*column, q)
	means := make([]float64, q)
	for a, j := range s.lay.cvars {
		cols[a] = &c.cols[j]
		means[a] = s.mean[j]
	}
	rb := blockSize(c.budget/(8*q), 256, c.rows)
	bounds := splitTri(q, c.workers, func(a, b int) int64 {
		if cols[a].missing == 0 && cols[b].missing == 0 {
			return 1
		}
		return 3
	})
	anyMissing := false
	for _, col := range cols {
		anyMissing = anyMissing || col.missing > 0
	}
	// A row block's sums are accumulated over chunks of at most
	// chunkRows rows, each sum carried from chunk to chunk in acc, so
	// that they are those of the whole block added in row order (the
	// dot product's four partial sums each in theirs: chunks are a
	// multiple of four rows long) while the centred columns held are of
	// a chunk.
	cb := min(rb, chunkRows)
	stride := 4 // the dot product's four partial sums
	if anyMissing {
		stride = 6 // or n, Σx, Σy, Σx², Σy², Σxy
	}
	runRanges(bounds, func(lo, hi int) {
		// Per-worker buffers holding a chunk of every column this
		// worker reads, centred, with missing cells set to 0, and for
		// the columns with missing cells an observed mask of 1s and 0s.
		first, _ := triDecode(lo, q)
		z := make([]float64, (q-first)*cb)
		var mask []float64
		if anyMissing {
			mask = make([]float64, (q-first)*cb)
		}
		acc := make([]float64, (hi-lo)*stride)
		for r0 := 0; r0 < c.rows; r0 += rb {
			r1 := min(r0+rb, c.rows)
			clear(acc)
			for c0 := r0; c0 < r1; c0 += cb {
				c1 := min(c0+cb, r1)
				n := c1 - c0
				for a := first; a < q; a++ {
					zb := z[(a-first)*cb : (a-first)*cb+n]
					mean := means[a]
					vals := cols[a].vals[c0:c1]
					if cols[a].missing == 0 {
						for r, x := range vals {
							zb[r] = x - mean
						}
						continue
					}
					mb := mask[(a-first)*cb : (a-first)*cb+n]
					for r, x := range vals {
						if x == x {
							zb[r], mb[r] = x-mean, 1
						} else {
							zb[r], mb[r] = 0, 0
						}
					}
				}
				col := func(a int) (zc, mc []float64) {
					k := (a - first) * cb
					if cols[a].missing > 0 {
						mc = mask[k : k+n]
					}
					return z[k : k+n], mc
				}
				last := c1 == r1
				a, b := triDecode(lo, q)
				for t := lo; t < hi; t++ {
					x, mx := col(a)
					y, my := col(b)
					p := &s.cp[t]
					sums := acc[(t-lo)*stride : (t-lo+1)*stride]
					if mx == nil && my == nil && t+1 < hi && b+1 < q {
						// The next pair is (a, b+1): both dot products in
						// one pass over x, each summed as dotInto would.
						if y2, my2 := col(b + 1); my2 == nil {
							sums2 := acc[(t+1-lo)*stride : (t+2-lo)*stride]
							dot2Into(sums, sums2, x, y, y2)
							if last {
								p.c += dotTotal(sums)
								s.cp[t+1].c += dotTotal(sums2)
							}
							t++
							a, b = triNext(a, b+1, q)
							continue
						}
					}
					switch {
					case mx == nil && my == nil:
						dotInto(sums, x, y)
						if last {
							p.c += dotTotal(sums)
						}
					case my == nil:
						addMasked1(sums, x, y, mx)
						if last {
							p.add(sums[0], sums[1], sums[2], sums[3], sums[4], sums[5])
						}
					case mx == nil:
						addMasked1(sums, y, x, my)
						if last {
							p.add(sums[0], sums[2], sums[1], sums[4], sums[3], sums[5])
						}
					default:
						addMasked2(sums, x, y, mx, my)
						if last {
							p.add(sums[0], sums[1], sums[2], sums[3], sums[4], sums[5])
						}
					}
					a, b = triNext(a, b, q)
				}
			}
		}
		// Finish.
		a, b := triDecode(lo, q)
		for t := lo; t < hi; t++ {
			ja, jb := s.lay.cvars[a], s.lay.cvars[b]
			p := &s.cp[t]
			if cols[a].missing == 0 && cols[b].missing == 0 {
				*p = contPair{n: s.rows, mi: s.mean[ja], mj: s.mean[jb], m2i: s.m2[ja], m2j: s.m2[jb], c: p.c}
			} else {
				*p = finishMoments(p.n, p.mi, p.mj, p.m2i, p.m2j, p.c, means[a], means[b])
			}
			a, b = triNext(a, b, q)
		}
	})
}

// chunkRows is the most rows of centred columns continuousPairs holds
// at once (a multiple of four).
const chunkRows = 128

// dotInto adds Σ x[r]·y[r] to sums, four partial sums: sums[k] gets the
// rows r ≡ k (mod 4) but for the rows after the last multiple of four,
// which sums[0] gets. Over chunks of a multiple of four rows but the last
// it adds the same as over all their rows at once, in the same order.
func dotInto(sums, x, y []float64) {
	y = y[:len(x)]
	s0, s1, s2, s3 := sums[0], sums[1], sums[2], sums[3]
	r := 0
	for ; r+4 <= len(x); r += 4 {
		s0 += x[r] * y[r]
		s1 += x[r+1] * y[r+1]
		s2 += x[r+2] * y[r+2]
		s3 += x[r+3] * y[r+3]
	}
	for ; r < len(x); r++ {
		s0 += x[r] * y[r]
	}
	sums[0], sums[1], sums[2], sums[3] = s0, s1, s2, s3
}

// dotTotal is the dot product of dotInto's four partial sums.
func dotTotal(sums []float64) float64 { return (sums[0] + sums[1]) + (sums[2] + sums[3]) }

// dot2Into is dotInto(sums1, x, y1) and dotInto(sums2, x, y2) in one pass
// over x, each sum added in the same order as by dotInto.
func dot2Into(sums1, sums2, x, y1, y2 []float64) {
	y1, y2 = y1[:len(x)], y2[:len(x)]
	a0, a1, a2, a3 := sums1[0], sums1[1], sums1[2], sums1[3]
	b0, b1, b2, b3 := sums2[0], sums2[1], sums2[2], sums2[3]
	r := 0
	for ; r+4 <= len(x); r += 4 {
		x0, x1, x2, x3 := x[r], x[r+1], x[r+2], x[r+3]
		a0 += x0 * y1[r]
		a1 += x1 * y1[r+1]
		a2 += x2 * y1[r+2]
		a3 += x3 * y1[r+3]
		b0 += x0 * y2[r]
		b1 += x1 * y2[r+1]
		b2 += x2 * y2[r+2]
		b3 += x3 * y2[r+3]
	}
	for ; r < len(x); r++ {
		a0 += x[r] * y1[r]
		b0 += x[r] * y2[r]
	}
	sums1[0], sums1[1], sums1[2], sums1[3] = a0, a1, a2, a3
	sums2[0], sums2[1], sums2[2], sums2[3] = b0, b1, b2, b3
}

// addMasked1 adds to sums (n, Σx, Σy, Σx², Σy², Σxy) those over a chunk
// where x, with mask m, has missing cells and y has none.
func addMasked1(sums, x, y, m []float64) {
	y = y[:len(x)]
	m = m[:len(x)]
	n, sx, sy, sxx, syy, sxy := sums[0], sums[1], sums[2], sums[3], sums[4], sums[5]
	for r, u := range x {
		v, w := y[r], m[r]
		n += w
		sx += u
		sy += v * w
		sxx += u * u
		syy += v * v * w
		sxy += u * v
	}
	sums[0], sums[1], sums[2], sums[3], sums[4], sums[5] = n, sx, sy, sxx, syy, sxy
}

// add adds to p the sums over a block: the number of rows where both
// columns are observed, the sums of each column and of its squares over
// those rows, and the sum of products.
func (p *contPair) add(n, sx, sy, sxx, syy, sxy float64) {
	p.n += int64(n)
	p.mi += sx
	p.mj += sy
	p.m2i += sxx
	p.m2j += syy
	p.c += sxy
}

// addMasked2 adds to sums (n, Σx, Σy, Σx², Σy², Σxy) those over a chunk
// where both columns have missing cells.
func addMasked2(sums, x, y, mx, my []float64) {
	y = y[:len(x)]
	mx = mx[:len(x)]
	my = my[:len(x)]
	n, sx, sy, sxx, syy, sxy := sums[0], sums[1], sums[2], sums[3], sums[4], sums[5]
	for r, u := range x {
		v, wx, wy := y[r], mx[r], my[r]
		n += wx * wy
		sx += u * wy
		sy += v * wx
		sxx += u * u * wy
		syy += v * v * wx
		sxy += u * v
	}
	sums[0], sums[1], sums[2], sums[3], sums[4], sums[5] = n, sx, sy, sxx, syy, sxy
}

// finishMoments turns sums of values centred on the shifts mx, my over n
// rows into means and centred second moments over those rows.
func finishMoments(n int64, sx, sy, sxx, syy, sxy, mx, my float64) contPair {
	if n == 0 {
		return contPair{}
	}
	fn := float64(n)
	return contPair{
		n:   n,
		mi:  mx + sx/fn,
		mj:  my + sy/fn,
		m2i: max(0, sxx-sx*sx/fn),
		m2j: max(0, syy-sy*sy/fn),
		c:   sxy - sx*sy/fn,
	}
}
