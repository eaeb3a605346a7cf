package stats

// scratchMax is the largest table, in cells, counted through a per-worker
// scratch table with an extra row and column for missing codes; larger
// tables of pairs with missing cells are counted with a branch per row.
const scratchMax = 1 << 16

// generalPairs fills the tables of the discrete pairs that are not both
// bit-packed binary variables, by counting combined state indices
// x·nb + y over row blocks.
func (c *computer) generalPairs() {
	s := c.s
	nd := len(s.lay.dvars)
	if nd < 2 {
		return
	}
	general := func(a, b int) bool { return c.bit1[a] == nil || c.bit1[b] == nil }
	var colBytes int
	for a := 0; a < nd; a++ {
		if c.bit1[a] == nil {
			colBytes = 2 * nd // some pair uses every column
			break
		}
	}
	if colBytes == 0 {
		return
	}
	rb := blockSize(c.budget/colBytes, 1024, c.rows)
	blocks := int64((c.rows + rb - 1) / rb)
	bounds := splitTri(nd, c.workers, func(a, b int) int64 {
		if !general(a, b) {
			return 0
		}
		cells := int64(s.lay.states(a)+1) * int64(s.lay.states(b)+1)
		return int64(c.rows) + blocks*cells/4 + 1
	})
	runRanges(bounds, func(lo, hi int) {
		var scratch []int64
		for r0 := 0; r0 < c.rows; r0 += rb {
			r1 := min(r0+rb, c.rows)
			a, b := triDecode(lo, nd)
			for t := lo; t < hi; t++ {
				if general(a, b) {
					scratch = c.countPair(a, b, r0, r1, scratch)
				}
				a, b = triNext(a, b, nd)
			}
		}
	})
}

// countPair adds the counts of rows [r0, r1) to the table of discrete
// positions a < b and returns the (possibly grown) scratch table.
func (c *computer) countPair(a, b, r0, r1 int, scratch []int64) []int64 {
	s := c.s
	ca := &c.cols[s.lay.dvars[a]]
	cb := &c.cols[s.lay.dvars[b]]
	na, nb := s.lay.states(a), s.lay.states(b)
	off := s.lay.offset(a, b)
	tab := s.dtab[off : off+int64(na*nb)]
	x, y := ca.codes[r0:r1], cb.codes[r0:r1]
	if ca.missing == 0 && cb.missing == 0 {
		countCombined(x, y, nb, tab)
		return scratch
	}
	cells := (na + 1) * (nb + 1)
	if cells > scratchMax {
		y = y[:len(x)]
		for r, u := range x {
			v := y[r]
			if int(u) < na && int(v) < nb {
				tab[int(u)*nb+int(v)]++
			}
		}
		return scratch
	}
	if cap(scratch) < cells {
		scratch = make([]int64, cells)
	}
	sc := scratch[:cells]
	clear(sc)
	countCombined(x, y, nb+1, sc)
	for u := 0; u < na; u++ {
		row := sc[u*(nb+1) : u*(nb+1)+nb]
		dst := tab[u*nb : u*nb+nb]
		for k, n := range row {
			dst[k] += n
		}
	}
	return scratch
}

// countCombined adds one to tab[x[r]·stride + y[r]] for every r.
func countCombined(x, y []uint16, stride int, tab []int64) {
	y = y[:len(x)]
	for r, u := range x {
		tab[int(u)*stride+int(y[r])]++
	}
}
