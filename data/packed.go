package data

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Packed holds a dataset compactly in memory for repeated passes over it,
// such as the iterations of EM on millions of rows. A discrete column with
// k states takes w bits per cell, w the smallest of 1, 2, 4, 8 and 16 with
// 2^w ≥ k (a binary column: 1 bit per cell, 16 times less than a Dataset),
// plus 1 bit per cell marking the missing cells if the column has any; a
// continuous column takes a float64 per cell (NaN missing).
//
// The states of every discrete variable are in the order data.SortStates
// gives them, so that a Packed of a file holds the variables and cells that
// ReadCSV gives for it. A Packed is a Source: Scan unpacks it block by
// block into reused buffers. It is not modified by Scan, Dataset or
// Sample, which may run concurrently; SetBlockRows must not run
// concurrently with them.
type Packed struct {
	vars      []Variable
	rows      int
	cols      []packedCol
	blockRows int
}

// packedCol is one column of a Packed.
type packedCol struct {
	// Discrete: cell i is bits [o, o+w) of words[i/c], with w = 1<<shift
	// bits per cell, c = 64/w cells per word and o = (i%c)*w; a missing
	// cell holds some code and is marked in miss (bit i%64 of word i/64),
	// which is nil when no cell is missing. Bits past the last cell are 0
	// until the states are reordered.
	shift uint
	words []uint64
	miss  []uint64
	// Continuous: the values, NaN missing.
	vals []float64
}

// widthShift returns the shift of the narrowest cell width for k states.
func widthShift(k int) uint {
	s := uint(0)
	for s < 4 && k > 1<<(1<<s) {
		s++
	}
	return s
}

// growWords extends s with zero words to length n.
func growWords(s []uint64, n int) []uint64 {
	if len(s) >= n {
		return s
	}
	return append(s, make([]uint64, n-len(s))...)
}

// get returns the stored code of discrete cell i (ignoring miss).
func (c *packedCol) get(i int) uint16 {
	s := c.shift
	lg := 6 - s
	off := uint(i) & (1<<lg - 1) << s
	return uint16(c.words[i>>lg] >> off & (1<<(1<<s) - 1))
}

// missing reports whether discrete cell i is missing.
func (c *packedCol) missing(i int) bool {
	return c.miss != nil && c.miss[i>>6]>>(uint(i)&63)&1 != 0
}

// pack stores codes as cells pos, pos+1, … of a column of k states whose
// width fits k, and returns the index in codes of the first code that is
// neither a state nor Missing, or -1.
func (c *packedCol) pack(codes []uint16, pos int, k uint16) int {
	s := c.shift
	lg := 6 - s
	cpw := 1 << lg
	n := len(codes)
	c.words = growWords(c.words, (pos+n+cpw-1)>>lg)
	if c.miss != nil {
		c.miss = growWords(c.miss, (pos+n+63)>>6)
	}
	for i := 0; i < n; {
		r := pos + i
		off := r & (cpw - 1)
		m := min(cpw-off, n-i)
		var x uint64
		for t, code := range codes[i : i+m] {
			if code >= k {
				if code != Missing {
					return i + t
				}
				if c.miss == nil {
					c.miss = make([]uint64, (pos+n+63)>>6)
				}
				c.miss[(r+t)>>6] |= 1 << (uint(r+t) & 63)
				continue
			}
			x |= uint64(code) << (uint(off+t) << s)
		}
		c.words[r>>lg] |= x
		i += m
	}
	return -1
}

// widen re-packs the first rows cells of the column at the width of the
// given shift.
func (c *packedCol) widen(shift uint, rows int) {
	old := *c
	lg := 6 - shift
	c.shift = shift
	c.words = make([]uint64, (rows+1<<lg-1)>>lg)
	for i := range rows {
		c.words[i>>lg] |= uint64(old.get(i)) << (uint(i) & (1<<lg - 1) << shift)
	}
}

// recode replaces every stored code x of the first rows cells by m[x].
func (c *packedCol) recode(m []uint16, rows int) {
	s := c.shift
	cpw := 64 >> s
	mask := uint64(1)<<(1<<s) - 1
	for wi, x := range c.words {
		var y uint64
		for t := range min(cpw, rows-wi*cpw) {
			o := uint(t) << s
			y |= uint64(m[x>>o&mask]) << o
		}
		c.words[wi] = y
	}
}

// Pack reads every block of src once into a Packed. The blocks must have
// the same variables (names and kinds, in the same order); the states of a
// discrete variable may grow from block to block, the codes of the states
// already known staying the same (as BlockReader gives them). At the end
// the states are put in data.SortStates order and the codes changed to
// match. Scan gives blocks of DefaultBlockRows rows until SetBlockRows is
// called.
//
// It is an error if src gives no block, if a block's variables differ from
// the first block's, or if a block holds a code that is not a state or
// Missing, an infinite value or a column of the wrong length.
func Pack(src Source) (*Packed, error) {
	if src == nil {
		return nil, errors.New("data: nil source")
	}
	p := &Packed{blockRows: DefaultBlockRows}
	started := false
	err := src.Scan(func(b *Dataset) error {
		if b == nil {
			return errors.New("data: nil block")
		}
		if !started {
			started = true
			p.vars = make([]Variable, len(b.vars))
			for j, v := range b.vars {
				v.States = slices.Clone(v.States)
				p.vars[j] = v
			}
			p.cols = make([]packedCol, len(b.vars))
		}
		return p.add(b)
	})
	if err != nil {
		return nil, err
	}
	if !started {
		return nil, errors.New("data: the source gave no blocks")
	}
	p.finish()
	return p, nil
}

// add appends the rows of block b.
func (p *Packed) add(b *Dataset) error {
	if len(b.vars) != len(p.vars) {
		return fmt.Errorf("data: a block has %d variables, the first block %d", len(b.vars), len(p.vars))
	}
	n := b.rows
	if n < 0 || p.rows > math.MaxInt-n {
		return fmt.Errorf("data: a block has %d rows", n)
	}
	for j, v := range b.vars {
		pv := &p.vars[j]
		if v.Name != pv.Name || v.Kind != pv.Kind {
			return fmt.Errorf("data: variable %d of a block is %s %q, of the first block %s %q", j+1, v.Kind, v.Name, pv.Kind, pv.Name)
		}
		c := &p.cols[j]
		if v.Kind == Continuous {
			col := b.cont[j]
			if len(col) != n {
				return fmt.Errorf("data: column %q of a block has %d cells, want %d", v.Name, len(col), n)
			}
			for i, x := range col {
				if math.IsInf(x, 0) {
					return fmt.Errorf("data: row %d, variable %q: infinite value", p.rows+i+1, v.Name)
				}
			}
			c.vals = append(c.vals, col...)
			continue
		}
		col := b.disc[j]
		if len(col) != n {
			return fmt.Errorf("data: column %q of a block has %d cells, want %d", v.Name, len(col), n)
		}
		known := len(pv.States)
		if len(v.States) < known || !slices.Equal(v.States[:known], pv.States) {
			return fmt.Errorf("data: the states of variable %q in a block do not extend those of the blocks before (%s)", v.Name, quoteNames(v.States, 8))
		}
		if len(v.States) > MaxStates {
			return fmt.Errorf("data: discrete variable %q has %d states, more than the maximum %d", v.Name, len(v.States), MaxStates)
		}
		pv.States = append(pv.States, v.States[known:]...)
		k := len(pv.States)
		if s := widthShift(k); s > c.shift {
			c.widen(s, p.rows)
		}
		if i := c.pack(col, p.rows, uint16(k)); i >= 0 {
			return fmt.Errorf("data: row %d, variable %q: state code %d out of range (%d states)", p.rows+i+1, v.Name, col[i], k)
		}
	}
	p.rows += n
	return nil
}

// finish sorts the states, recodes the cells and releases spare capacity.
func (p *Packed) finish() {
	for j := range p.vars {
		v := &p.vars[j]
		c := &p.cols[j]
		if v.Kind == Continuous {
			c.vals = trim(c.vals)
			continue
		}
		order := make([]int, len(v.States))
		values := make([]float64, len(v.States))
		for k, l := range v.States {
			order[k] = k
			values[k], _ = classify(l)
		}
		sortLabels(order, v.States, values)
		recode := make([]uint16, len(order))
		sorted := make([]string, len(order))
		same := true
		for rank, k := range order {
			recode[k] = uint16(rank)
			sorted[rank] = v.States[k]
			same = same && rank == k
		}
		if !same {
			v.States = sorted
			c.recode(recode, p.rows)
		}
		c.words = trim(c.words)
		c.miss = trim(c.miss)
	}
}

// trim returns s, or a copy of it without spare capacity if it has more
// than 1/16 of its length.
func trim[T any](s []T) []T {
	if cap(s)-len(s) <= len(s)/16 {
		return s
	}
	out := make([]T, len(s))
	copy(out, s)
	return out
}

// NumRows returns the number of rows.
func (p *Packed) NumRows() int { return p.rows }

// NumVars returns the number of variables.
func (p *Packed) NumVars() int { return len(p.vars) }

// Names returns the variable names in column order.
func (p *Packed) Names() []string {
	out := make([]string, len(p.vars))
	for j, v := range p.vars {
		out[j] = v.Name
	}
	return out
}

// Vars returns a copy of the variables (states included), the states of a
// discrete variable in data.SortStates order.
func (p *Packed) Vars() []Variable {
	out := make([]Variable, len(p.vars))
	for j, v := range p.vars {
		v.States = slices.Clone(v.States)
		out[j] = v
	}
	return out
}

// Bytes returns the number of bytes of cell storage held: packed codes,
// missing-cell bitmaps and continuous values.
func (p *Packed) Bytes() int64 {
	var n int64
	for _, c := range p.cols {
		n += 8 * int64(cap(c.words)+cap(c.miss)+cap(c.vals))
	}
	return n
}

// BlockRows returns the number of rows of the blocks Scan gives (the last
// one may have fewer).
func (p *Packed) BlockRows() int {
	if p.blockRows <= 0 {
		return DefaultBlockRows
	}
	return p.blockRows
}

// SetBlockRows sets the number of rows of the blocks Scan gives; n must be
// positive. Scan's buffers take about 2 bytes per discrete cell of a block.
func (p *Packed) SetBlockRows(n int) error {
	if n <= 0 {
		return fmt.Errorf("data: block rows must be positive, not %d", n)
	}
	p.blockRows = n
	return nil
}

// Scan calls fn with consecutive blocks of BlockRows rows (the last one
// shorter; one empty block if there are no rows), in row order. Every
// block has the final variables, all their states known. The block and
// its discrete columns are buffers allocated once per call of Scan and
// overwritten by the next block; its continuous columns are shared with p.
// fn must not keep or modify them. Scan returns the first error of fn.
func (p *Packed) Scan(fn func(block *Dataset) error) error {
	if fn == nil {
		return errors.New("data: nil function")
	}
	br := p.BlockRows()
	blk := &Dataset{
		vars:  p.Vars(),
		index: make(map[string]int, len(p.vars)),
		disc:  make([][]uint16, len(p.vars)),
		cont:  make([][]float64, len(p.vars)),
	}
	size := min(br, p.rows)
	bufs := make([][]uint16, len(p.vars))
	for j, v := range p.vars {
		blk.index[v.Name] = j
		if v.Kind == Discrete {
			bufs[j] = make([]uint16, size)
		}
	}
	var u unpacker
	for lo := 0; ; lo += br {
		hi := min(lo+br, p.rows)
		blk.rows = hi - lo
		for j := range p.cols {
			c := &p.cols[j]
			if bufs[j] == nil {
				blk.cont[j] = c.vals[lo:hi:hi]
				continue
			}
			blk.disc[j] = bufs[j][:hi-lo]
			u.unpack(c, blk.disc[j], lo)
		}
		if err := fn(blk); err != nil {
			return err
		}
		if hi >= p.rows {
			return nil
		}
	}
}

// Dataset returns every row in a new Dataset.
func (p *Packed) Dataset() (*Dataset, error) {
	d, err := New(p.vars, p.rows)
	if err != nil {
		return nil, err
	}
	var u unpacker
	for j := range p.cols {
		c := &p.cols[j]
		if p.vars[j].Kind == Continuous {
			copy(d.cont[j], c.vals)
		} else {
			u.unpack(c, d.disc[j], 0)
		}
	}
	return d, nil
}

// Sample returns n distinct rows drawn uniformly at random without
// replacement, in their order in p, as a new Dataset; n ≥ NumRows gives
// every row. It draws with sequential selection (Knuth's algorithm S: row
// i is taken with probability (n − taken)/(rows − i)), so memory is O(n)
// and the rows depend only on n, NumRows and the draws of r.
func (p *Packed) Sample(n int, r *rand.Rand) (*Dataset, error) {
	if n <= 0 {
		return nil, fmt.Errorf("data: sample size must be positive, not %d", n)
	}
	if r == nil {
		return nil, errors.New("data: nil random number generator")
	}
	if n >= p.rows {
		return p.Dataset()
	}
	idx := p.sampleIndex(n, r)
	d, err := New(p.vars, n)
	if err != nil {
		return nil, err
	}
	for j := range p.cols {
		c := &p.cols[j]
		if p.vars[j].Kind == Continuous {
			out := d.cont[j]
			for k, i := range idx {
				out[k] = c.vals[i]
			}
			continue
		}
		out := d.disc[j]
		for k, i := range idx {
			if c.missing(i) {
				out[k] = Missing
			} else {
				out[k] = c.get(i)
			}
		}
	}
	return d, nil
}

// sampleIndex draws the rows of Sample and SamplePacked (n < p.rows).
func (p *Packed) sampleIndex(n int, r *rand.Rand) []int { return SampleIndex(p.rows, n, r) }

// SampleIndex returns min(n, rows) distinct row indices in [0, rows) drawn
// uniformly without replacement, in increasing order, by sequential
// selection (Knuth's algorithm S: row i is taken with probability
// (n − taken)/(rows − i)): the indices depend only on rows, n and the
// draws of r. Every sample of rows in latentree is drawn with it.
func SampleIndex(rows, n int, r *rand.Rand) []int {
	n = max(0, min(n, rows))
	idx := make([]int, 0, n)
	for i := 0; i < rows && len(idx) < n; i++ {
		if r.IntN(rows-i) < n-len(idx) {
			idx = append(idx, i)
		}
	}
	return idx
}

// SamplePacked is Sample that returns the rows as a Packed (the same rows
// for the same draws), so that a large sample takes no more memory per
// cell than p. n ≥ NumRows gives p itself.
func (p *Packed) SamplePacked(n int, r *rand.Rand) (*Packed, error) {
	if n <= 0 {
		return nil, fmt.Errorf("data: sample size must be positive, not %d", n)
	}
	if r == nil {
		return nil, errors.New("data: nil random number generator")
	}
	if n >= p.rows {
		return p, nil
	}
	idx := p.sampleIndex(n, r)
	out := &Packed{vars: p.vars, rows: n, cols: make([]packedCol, len(p.cols)), blockRows: p.blockRows}
	for j := range p.cols {
		c, o := &p.cols[j], &out.cols[j]
		if p.vars[j].Kind == Continuous {
			o.vals = make([]float64, n)
			for k, i := range idx {
				o.vals[k] = c.vals[i]
			}
			continue
		}
		s := c.shift
		lg := 6 - s
		o.shift = s
		o.words = make([]uint64, (n+1<<lg-1)>>lg)
		if c.miss != nil {
			o.miss = make([]uint64, (n+63)>>6)
		}
		for k, i := range idx {
			o.words[k>>lg] |= uint64(c.get(i)) << (uint(k) & (1<<lg - 1) << s)
			if c.missing(i) {
				o.miss[k>>6] |= 1 << (uint(k) & 63)
			}
		}
	}
	return out, nil
}

// unpacker unpacks discrete columns; its tables are built on first use.
type unpacker struct {
	lut1 *[256][8]uint16 // the 8 1-bit cells of a byte
	lut2 *[256][4]uint16 // the 4 2-bit cells of a byte
}

// unpack writes cells lo, lo+1, … of c into dst, Missing for a missing
// cell.
func (u *unpacker) unpack(c *packedCol, dst []uint16, lo int) {
	n := len(dst)
	if n == 0 {
		return
	}
	s := c.shift
	lg := 6 - s
	cpw := 1 << lg
	// Cells before the first whole word, the whole words, the rest.
	i := 0
	for ; i < n && (lo+i)&(cpw-1) != 0; i++ {
		dst[i] = c.get(lo + i)
	}
	full := (n - i) &^ (cpw - 1)
	if full > 0 {
		words := c.words[(lo+i)>>lg : (lo+i+full)>>lg]
		out := dst[i : i+full]
		switch s {
		case 0:
			u.unpack1(words, out)
		case 1:
			u.unpack2(words, out)
		case 2:
			unpack4(words, out)
		case 3:
			unpack8(words, out)
		default:
			unpack16(words, out)
		}
		i += full
	}
	for ; i < n; i++ {
		dst[i] = c.get(lo + i)
	}
	if c.miss == nil {
		return
	}
	hi := lo + n
	for wi := lo >> 6; wi<<6 < hi; wi++ {
		x := c.miss[wi]
		if base := wi << 6; base < lo {
			x &= ^uint64(0) << uint(lo-base)
		}
		if end := wi<<6 + 64; end > hi {
			x &= ^uint64(0) >> uint(end-hi)
		}
		for x != 0 {
			dst[wi<<6+bits.TrailingZeros64(x)-lo] = Missing
			x &= x - 1
		}
	}
}

// unpack1 unpacks words of 64 1-bit cells into out (64 cells a word).
func (u *unpacker) unpack1(words []uint64, out []uint16) {
	if u.lut1 == nil {
		u.lut1 = new([256][8]uint16)
		for b := range u.lut1 {
			for t := range 8 {
				u.lut1[b][t] = uint16(b >> t & 1)
			}
		}
	}
	lut := u.lut1
	for k, x := range words {
		o := out[64*k : 64*k+64 : 64*k+64]
		*(*[8]uint16)(o[0:8]) = lut[byte(x)]
		*(*[8]uint16)(o[8:16]) = lut[byte(x>>8)]
		*(*[8]uint16)(o[16:24]) = lut[byte(x>>16)]
		*(*[8]uint16)(o[24:32]) = lut[byte(x>>24)]
		*(*[8]uint16)(o[32:40]) = lut[byte(x>>32)]
		*(*[8]uint16)(o[40:48]) = lut[byte(x>>40)]
		*(*[8]uint16)(o[48:56]) = lut[byte(x>>48)]
		*(*[8]uint16)(o[56:64]) = lut[byte(x>>56)]
	}
}

// unpack2 unpacks words of 32 2-bit cells.
func (u *unpacker) unpack2(words []uint64, out []uint16) {
	if u.lut2 == nil {
		u.lut2 = new([256][4]uint16)
		for b := range u.lut2 {
			for t := range 4 {
				u.lut2[b][t] = uint16(b >> (2 * t) & 3)
			}
		}
	}
	lut := u.lut2
	for k, x := range words {
		o := out[32*k : 32*k+32 : 32*k+32]
		for t := range 8 {
			*(*[4]uint16)(o[4*t : 4*t+4]) = lut[byte(x>>(8*t))]
		}
	}
}

// unpack4 unpacks words of 16 4-bit cells.
func unpack4(words []uint64, out []uint16) {
	for k, x := range words {
		o := out[16*k : 16*k+16 : 16*k+16]
		for t := range o {
			o[t] = uint16(x >> (4 * t) & 15)
		}
	}
}

// unpack8 unpacks words of 8 8-bit cells.
func unpack8(words []uint64, out []uint16) {
	for k, x := range words {
		o := out[8*k : 8*k+8 : 8*k+8]
		for t := range o {
			o[t] = uint16(byte(x >> (8 * t)))
		}
	}
}

// unpack16 unpacks words of 4 16-bit cells.
func unpack16(words []uint64, out []uint16) {
	for k, x := range words {
		o := out[4*k : 4*k+4 : 4*k+4]
		o[0] = uint16(x)
		o[1] = uint16(x >> 16)
		o[2] = uint16(x >> 32)
		o[3] = uint16(x >> 48)
	}
}
