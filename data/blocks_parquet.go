package data

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Entries of a pqCache.
const (
	pqUnknown int32 = -1 // value not seen yet
	pqMissing int32 = -2 // value whose text is a missing token
)

// pqDense is the number of small keys held in a slice rather than a map.
const pqDense = 1024

// pqMaxEntries bounds the entries of a pqCache's maps.
const pqMaxEntries = 1 << 16

// pqCache maps the typed values of a discrete Parquet column to what their
// text maps to: a state code, or missing. The code of a value is that of
// its text, so the cache is only a shortcut past formatting and looking
// up the text; it is renumbered when the first block's states are sorted
// and dropped when the column turns continuous.
type pqCache struct {
	dense []int32          // keys below pqDense
	nums  map[uint64]int32 // other booleans, integers and floats, by bits
	bytes map[string]int32 // byte arrays
}

// pqKey returns the key of a non-null value that is not a byte array.
func pqKey(v parquet.Value) uint64 {
	switch v.Kind() {
	case parquet.Boolean:
		if v.Boolean() {
			return 1
		}
		return 0
	case parquet.Int32:
		return uint64(v.Uint32())
	case parquet.Int64:
		return v.Uint64()
	case parquet.Float:
		return uint64(math.Float32bits(v.Float()))
	case parquet.Double:
		return math.Float64bits(v.Double())
	}
	return math.MaxUint64
}

// num returns the entry of the number (boolean, integer or float) raw.
func (c *pqCache) num(raw uint64) int32 {
	if raw < pqDense {
		if c.dense == nil {
			return pqUnknown
		}
		return c.dense[raw]
	}
	if e, ok := c.nums[raw]; ok {
		return e
	}
	return pqUnknown
}

// byteArray returns the entry of a byte array.
func (c *pqCache) byteArray(b []byte) int32 {
	if e, ok := c.bytes[string(b)]; ok {
		return e
	}
	return pqUnknown
}

// pqSignature tells how the values of a Parquet column are keyed (see
// pqKey) and read as text: the cache of a column holds across files
// (shards, and the passes over them) only while it is the same, as the
// INT32 -1 and the INT64 4294967295, say, have the same key.
type pqSignature struct {
	kind           parquet.Kind
	unsigned, date bool
	scale          int
}

// signature returns the signature of field j.
func (s *parquetSource) signature(j int) pqSignature {
	return pqSignature{kind: s.kinds[j], unsigned: s.unsigned[j], date: s.date[j], scale: s.scale[j]}
}

// put records the entry of the non-null value of column j of row i of
// ps's batch.
func (c *pqCache) put(ps *parquetSource, j, i int, e int32) {
	if ps.bytes[j] {
		if c.bytes == nil {
			c.bytes = make(map[string]int32)
		}
		if len(c.bytes) < pqMaxEntries {
			c.bytes[string(ps.vals[j][i].ByteArray())] = e
		}
		return
	}
	k := ps.raw[j][i]
	if k < pqDense {
		if c.dense == nil {
			c.dense = make([]int32, pqDense)
			for i := range c.dense {
				c.dense[i] = pqUnknown
			}
		}
		c.dense[k] = e
		return
	}
	if c.nums == nil {
		c.nums = make(map[uint64]int32)
	}
	if len(c.nums) < pqMaxEntries {
		c.nums[k] = e
	}
}

// recode renumbers the codes of the cache: code c becomes recode[c].
func (c *pqCache) recode(recode []uint16) {
	re := func(e int32) int32 {
		if e >= 0 {
			return int32(recode[e])
		}
		return e
	}
	for i, e := range c.dense {
		c.dense[i] = re(e)
	}
	for k, e := range c.nums {
		c.nums[k] = re(e)
	}
	for k, e := range c.bytes {
		c.bytes[k] = re(e)
	}
}

// States of a cell while a Parquet batch is read.
const (
	pqCellMissing = iota
	pqCellCode
	pqCellFloat
	pqCellText
)

// pqColumn holds the cells of one column of a chunk of Parquet rows
// between the check for missing cells and their addition to the column,
// and the column's first error in the chunk.
type pqColumn struct {
	state []uint8
	code  []uint16
	f     []float64
	text  []string
	buf   []byte
	bulk  int      // cells given codes by pqBulkCodes
	at    fastLine // the row of the cell being added, for errors
	err   error
	errAt int // chunk row of err
}

// pqSegErr is a column's first error in a block of readBlockParquetWhole:
// the segment (-1 if none), and its decoding, check and add errors there
// (the latter two at segment rows checkAt and addAt).
type pqSegErr struct {
	seg                       int
	fillErr, checkErr, addErr error
	checkAt, addAt            int
}

// pqSegment is a run of rows of a block of readBlockParquetWhole: rows lo
// to hi of a batch, decoded first (of fill rows, after opening the row
// groups open) when batch is set, else of the current batch.
type pqSegment struct {
	open   []int
	batch  bool
	fill   int
	lo, hi int
}

// readBlockParquet is readBlock for a Parquet file, read column by column:
// it gives the same blocks and errors, but maps each distinct value to its
// state (or number) once, through its text, instead of formatting and
// parsing every value. Each batch of rows decoded is read in chunks, and
// each chunk in three steps: the columns concurrently tell their missing
// cells and the codes or numbers of the others (check); the rows with a
// missing cell are dropped if asked; the columns concurrently add their
// cells (add). A column's work is its own, so the blocks do not depend on
// the number of goroutines, and the error returned is the one reading row
// by row would meet first: the first row's, and in a row a check error
// before an add error, each in column order.
func (b *blockReader) readBlockParquet(ps *parquetSource) (int, error) {
	rd := b.base
	nc := len(b.cols)
	if len(b.pqCols) != nc {
		b.pqCols = make([]pqColumn, nc)
	}
	// Numbers may bypass their text unless a missing token is a number.
	numbers := true
	for _, t := range rd.tokens {
		if _, class := classify(t); class == classFinite {
			numbers = false
		}
	}
	if pqWhole && rd.opt.Missing != MissingDropRows {
		return b.readBlockParquetWhole(ps, numbers)
	}
	n := 0
	for n < b.opt.BlockRows {
		if ps.i >= ps.n {
			if err := ps.fill(); err != nil {
				if err == io.EOF {
					break
				}
				return 0, err
			}
		}
		lo := ps.i
		hi := min(ps.n, lo+b.opt.BlockRows-n)
		row0 := int(ps.row) // the chunk's row t is row0+t+1
		forColumns(nc, func(k int) { b.checkParquet(ps, k, lo, hi, row0, numbers) })
		// The first check error, and the rows before it.
		rows := hi - lo
		var err error
		for k := range b.pqCols {
			if e := &b.pqCols[k]; e.err != nil && e.errAt < rows {
				rows, err = e.errAt, e.err
			}
		}
		drop := b.pqDrop[:0]
		for t := range rows {
			d := false
			if rd.opt.Missing == MissingDropRows {
				for k := range b.pqCols {
					if b.pqCols[k].state[t] == pqCellMissing {
						d = true
						break
					}
				}
			}
			drop = append(drop, d)
		}
		b.pqDrop = drop
		dropped := slices.Contains(drop, true)
		forColumns(nc, func(k int) { b.addParquet(ps, k, lo, drop, dropped, row0) })
		addRow := rows
		for k := range b.pqCols {
			if e := &b.pqCols[k]; e.err != nil && e.errAt < addRow {
				addRow, err = e.errAt, e.err
			}
		}
		if err != nil {
			return 0, err
		}
		kept := 0
		for _, d := range drop {
			if !d {
				kept++
			}
		}
		b.rows += int64(rows)
		ps.i, ps.row = hi, ps.row+int64(rows)
		n += kept
	}
	b.kept += int64(n)
	return n, nil
}

// pqWhole turns readBlockParquetWhole on (off in tests, to compare).
var pqWhole = true

// readBlockParquetWhole is readBlockParquet when no row is dropped (the
// missing policy is not MissingDropRows): the block's rows are split into
// the same batches and chunks (segments), but each column decodes, checks
// and adds all of its segments in one unit of work, the columns
// concurrently, with one wait for them all per block instead of three per
// batch. A column stops at its first error; the error returned is the one
// readBlockParquet returns: that of the first segment with one, a
// decoding error (the first column in file order) before a check error,
// and a check error before an add error in the same or a later row.
func (b *blockReader) readBlockParquetWhole(ps *parquetSource, numbers bool) (int, error) {
	nc := len(b.cols)
	want := b.opt.BlockRows
	// The plan, as readBlockParquet's loop would meet the rows.
	segs := b.pqSegs[:0]
	n := 0
	if ps.i < ps.n {
		hi := min(ps.n, ps.i+want)
		segs = append(segs, pqSegment{lo: ps.i, hi: hi})
		n = hi - ps.i
	}
	g, left := ps.g, ps.left
	var groupErr error // a row group of a negative number of rows, after the segments
	for n < want {
		var open []int
		for left == 0 && g < len(ps.groups) {
			open = append(open, g)
			left = ps.groups[g].NumRows()
			g++
			if left < 0 {
				groupErr = &ParseError{File: ps.name, Line: int(ps.row) + n + 1, Err: fmt.Errorf("corrupt Parquet file: row group of %d rows", left)}
				break
			}
		}
		if groupErr != nil || left == 0 {
			if len(open) > 0 {
				// Empty row groups at the end are opened, as fill opens them.
				segs = append(segs, pqSegment{open: open})
			}
			break
		}
		m := int(min(left, parquetBatch))
		hi := min(m, want-n)
		segs = append(segs, pqSegment{open: open, batch: true, fill: m, hi: hi})
		left -= int64(m)
		n += hi
	}
	b.pqSegs = segs
	if len(b.pqNone) < parquetBatch {
		b.pqNone = make([]bool, parquetBatch)
	}
	none := b.pqNone
	if len(b.pqErrs) != nc {
		b.pqErrs = make([]pqSegErr, nc)
		b.pqFast = make([]pqFast, nc)
	}
	forColumns(nc, func(k int) {
		c, r, re := b.cols[k], &b.pqCols[k], &b.pqErrs[k]
		j := c.pos - 1
		*re = pqSegErr{seg: -1}
		row := ps.row // rows before the segment
		for si, sg := range segs {
			for _, g := range sg.open {
				if err := ps.openColumn(j, g); err != nil {
					re.seg, re.fillErr = si, err
					return
				}
			}
			lo := sg.lo
			if sg.batch {
				var fast *pqFast
				if pqBulk && !c.float && !ps.bytes[j] && c.pq.dense != nil && sg.hi > 0 {
					// The leading cells with cached codes go straight from
					// their pages to the column.
					fast = &b.pqFast[k]
					*fast = pqFast{dense: c.pq.dense, codes: c.codes, limit: sg.hi}
				}
				err := ps.fillColumnFast(j, sg.fill, row, fast)
				if fast != nil {
					c.codes = fast.codes
					c.observed += int64(fast.n)
					lo = fast.n
					fast.dense, fast.codes = nil, nil
				}
				if err != nil {
					re.seg, re.fillErr = si, err
					return
				}
			}
			if sg.hi == lo {
				row += int64(sg.hi - sg.lo)
				continue
			}
			b.checkParquet(ps, k, lo, sg.hi, int(row)+lo-sg.lo, numbers)
			rows := sg.hi - lo
			if r.err != nil {
				re.seg, re.checkErr, re.checkAt = si, r.err, lo-sg.lo+r.errAt
				rows = r.errAt
			}
			b.addParquet(ps, k, lo, none[:rows], false, int(row)+lo-sg.lo)
			if r.err != nil {
				re.seg, re.addErr, re.addAt = si, r.err, lo-sg.lo+r.errAt
			}
			if re.seg >= 0 {
				return
			}
			row += int64(sg.hi - sg.lo)
		}
	})
	first := -1
	for k := range b.pqErrs {
		if s := b.pqErrs[k].seg; s >= 0 && (first < 0 || s < first) {
			first = s
		}
	}
	if first >= 0 {
		return 0, b.pqSegmentError(first)
	}
	if groupErr != nil {
		return 0, groupErr
	}
	ps.g, ps.left = g, left
	ps.row += int64(n)
	for _, sg := range segs {
		switch {
		case sg.batch:
			ps.n, ps.i = sg.fill, sg.hi
		case len(sg.open) == 0:
			ps.i = sg.hi
		}
	}
	b.rows += int64(n)
	b.kept += int64(n)
	return n, nil
}

// pqSegmentError is the error of segment si of readBlockParquetWhole, as
// readBlockParquet orders them.
func (b *blockReader) pqSegmentError(si int) error {
	var fill error
	fillAt := 0
	for k := range b.pqErrs {
		r := &b.pqErrs[k]
		if j := b.cols[k].pos; r.seg == si && r.fillErr != nil && (fill == nil || j < fillAt) {
			fill, fillAt = r.fillErr, j
		}
	}
	if fill != nil {
		return fill
	}
	var check error
	at := 0
	for k := range b.pqErrs {
		if r := &b.pqErrs[k]; r.seg == si && r.checkErr != nil && (check == nil || r.checkAt < at) {
			check, at = r.checkErr, r.checkAt
		}
	}
	var add error
	addAt := 0
	for k := range b.pqErrs {
		r := &b.pqErrs[k]
		if r.seg != si || r.addErr == nil || check != nil && r.addAt >= at {
			continue
		}
		if add == nil || r.addAt < addAt {
			add, addAt = r.addErr, r.addAt
		}
	}
	if add != nil {
		return add
	}
	return check
}

// checkParquet is the check step of readBlockParquet for column k on rows
// lo to hi of the batch: it stops at the column's first error.
func (b *blockReader) checkParquet(ps *parquetSource, k, lo, hi, row0 int, numbers bool) {
	rd, c, r := b.base, b.cols[k], &b.pqCols[k]
	j := c.pos - 1
	if m := hi - lo; cap(r.state) < m {
		*r = pqColumn{state: make([]uint8, m), code: make([]uint16, m), f: make([]float64, m), text: make([]string, m), buf: r.buf}
	}
	r.state, r.code, r.f, r.text = r.state[:hi-lo], r.code[:hi-lo], r.f[:hi-lo], r.text[:hi-lo]
	r.err, r.bulk = nil, 0
	bulk := pqBulk && !c.float && !ps.bytes[j]
	for i := lo; i < hi; i++ {
		// Runs of cells of a column of numbers whose codes are cached are
		// read in bulk, without a call per cell; the rest of the loop
		// takes each other cell.
		if bulk && c.pq.dense != nil {
			t := i - lo
			m := pqBulkCodes(c.pq.dense, ps.raw[j][i:hi], ps.null[j][i:hi], r.state[t:], r.code[t:])
			i += m
			r.bulk += m
			if i == hi {
				break
			}
		}
		t := i - lo
		null := ps.null[j][i]
		if !null {
			e := pqUnknown
			switch {
			case c.float:
				if numbers && !ps.bytes[j] {
					if f, ok := ps.asFloat(j, ps.raw[j][i]); ok {
						r.state[t], r.f[t] = pqCellFloat, f
						continue
					}
				}
			case ps.bytes[j]:
				e = c.pq.byteArray(ps.vals[j][i].ByteArray())
			default:
				e = c.pq.num(ps.raw[j][i])
			}
			if e >= 0 {
				r.state[t], r.code[t] = pqCellCode, uint16(e)
				continue
			} else if e == pqMissing {
				r.state[t] = pqCellMissing
				continue
			}
		}
		s, buf, err := ps.textAt(r.buf, j, ps.valueAt(j, i), row0+t+1)
		r.buf = buf
		if err != nil {
			r.err, r.errAt = err, t
			return
		}
		if rd.isMissing(s) {
			if rd.opt.Missing == MissingError {
				r.err, r.errAt = rd.missingError(row0+t+1, c, s), t
				return
			}
			if !null && !c.float {
				c.pq.put(ps, j, i, pqMissing)
			}
			r.state[t] = pqCellMissing
			continue
		}
		r.state[t], r.text[t] = pqCellText, strings.Clone(s)
	}
}

// pqBulk turns the bulk loops of checkParquet and addParquet on (off in
// tests, to compare).
var pqBulk = true

// pqBulkCodes sets the states and codes of the leading cells of raw and
// null (keys and nulls of a column of numbers) that are not null and whose
// keys have a code in dense (a pqCache's), and returns their number.
func pqBulkCodes(dense []int32, raw []uint64, null []bool, state []uint8, code []uint16) int {
	dense = dense[:pqDense]
	state, code = state[:len(raw)], code[:len(raw)]
	null = null[:len(raw)]
	for t, k := range raw {
		if null[t] || k >= pqDense {
			return t
		}
		e := dense[k]
		if e < 0 {
			return t
		}
		state[t], code[t] = pqCellCode, uint16(e)
	}
	return len(raw)
}

// addParquet is the add step of readBlockParquet for column k on the rows
// of the chunk starting at row lo of the batch that are not dropped (drop;
// dropped tells if any is): it stops at the column's first error.
func (b *blockReader) addParquet(ps *parquetSource, k, lo int, drop []bool, dropped bool, row0 int) {
	rd, c, r := b.base, b.cols[k], &b.pqCols[k]
	j := c.pos - 1
	r.err = nil
	if pqBulk && !c.float && !dropped && r.bulk == len(r.state) {
		// Every cell has its code: the chunk is appended whole.
		c.codes = append(c.codes, r.code[:len(drop)]...)
		c.observed += int64(len(drop))
		return
	}
	for t := 0; t < len(drop); t++ {
		if pqBulk && !c.float {
			// A run of cells with codes, none dropped, is appended whole.
			u := t
			for u < len(drop) && !drop[u] && r.state[u] == pqCellCode {
				u++
			}
			if u > t {
				c.codes = append(c.codes, r.code[t:u]...)
				c.observed += int64(u - t)
				if t = u; t == len(drop) {
					break
				}
			}
		}
		if drop[t] {
			continue
		}
		i := lo + t
		st := r.state[t]
		if st == pqCellCode && c.float {
			// The column switched to floats in this chunk, after its code
			// was looked up: the value is added from its text, as it would
			// have been row by row.
			s, buf, err := ps.textAt(r.buf, j, ps.valueAt(j, i), row0+t+1)
			r.buf = buf
			if err != nil {
				r.err, r.errAt = err, t
				return
			}
			st, r.text[t] = pqCellText, s
		}
		switch st {
		case pqCellMissing:
			c.addMissing()
		case pqCellCode:
			c.observed++
			c.codes = append(c.codes, r.code[t])
		case pqCellFloat:
			c.observed++
			c.addNumber(r.f[t])
		default:
			r.at.n = row0 + t + 1
			if err := c.add(&rd.typing, r.text[t], &r.at); err != nil {
				r.err, r.errAt = err, t
				return
			}
			if !c.float {
				c.putCode(ps, j, i)
			}
		}
		r.text[t] = ""
	}
}

// pqStatsTyping turns typing from column statistics (typeFromStats) on
// (off in tests, to compare).
var pqStatsTyping = true

// pqStatsMaxValues bounds the distinct values of a column typed from its
// statistics.
const pqStatsMaxValues = 16

// pqClaim is a value that a Parquet file's column statistics say some row
// of the column holds (typeFromStats): the data pass checks it (seen).
type pqClaim struct {
	key  uint64 // see pqKey
	text string
	file string
	seen bool
}

// statsKeys returns the keys (see pqKey) of the distinct values of every
// field read, in the order the row groups' statistics first give them,
// when the column chunk statistics tell them exactly: each field read is a
// required (never null) flat column of booleans or plain signed integers
// (no DECIMAL, DATE or unsigned annotation), every chunk has as many
// values as its row group has rows and a minimum and maximum at most 1
// apart (so that both occur and nothing lies between), and the fields
// have at most pqStatsMaxValues values each. It reports false otherwise,
// and for a file without rows.
func (s *parquetSource) statsKeys() ([][]uint64, int64, bool) {
	md := s.pf.Metadata()
	if md == nil || md.NumRows <= 0 || len(md.RowGroups) != len(s.groups) {
		return nil, 0, false
	}
	keys := make([][]uint64, len(s.names))
	for j := range s.names {
		if !s.want[j] {
			continue
		}
		k := s.kinds[j]
		if s.optional[j] || s.unsigned[j] || s.scale[j] >= 0 || s.date[j] ||
			k != parquet.Boolean && k != parquet.Int32 && k != parquet.Int64 {
			return nil, 0, false
		}
		for _, rg := range md.RowGroups {
			if rg.NumRows == 0 {
				continue
			}
			if j >= len(rg.Columns) {
				return nil, 0, false
			}
			m := &rg.Columns[j].MetaData
			if len(m.PathInSchema) != 1 || m.PathInSchema[0] != s.names[j] || m.NumValues != rg.NumRows {
				return nil, 0, false
			}
			lo, hi, ok := pqStatsRange(k, m.Statistics.MinValue, m.Statistics.MaxValue)
			if !ok {
				return nil, 0, false
			}
			for _, x := range []uint64{lo, hi} {
				if !slices.Contains(keys[j], x) {
					if len(keys[j]) == pqStatsMaxValues {
						return nil, 0, false
					}
					keys[j] = append(keys[j], x)
				}
			}
		}
	}
	return keys, md.NumRows, true
}

// pqStatsRange returns the keys of the minimum and maximum of a column
// chunk of physical type k from its statistics, when they are well formed
// and at most 1 apart.
func pqStatsRange(k parquet.Kind, lo, hi []byte) (uint64, uint64, bool) {
	switch k {
	case parquet.Boolean:
		if len(lo) != 1 || len(hi) != 1 || lo[0] > 1 || hi[0] > 1 || lo[0] > hi[0] {
			return 0, 0, false
		}
		return uint64(lo[0]), uint64(hi[0]), true
	case parquet.Int32:
		if len(lo) != 4 || len(hi) != 4 {
			return 0, 0, false
		}
		a, b := int32(binary.LittleEndian.Uint32(lo)), int32(binary.LittleEndian.Uint32(hi))
		if int64(b)-int64(a) < 0 || int64(b)-int64(a) > 1 {
			return 0, 0, false
		}
		return uint64(uint32(a)), uint64(uint32(b)), true
	case parquet.Int64:
		if len(lo) != 8 || len(hi) != 8 {
			return 0, 0, false
		}
		a, b := int64(binary.LittleEndian.Uint64(lo)), int64(binary.LittleEndian.Uint64(hi))
		if b < a || b != a && b-1 != a {
			return 0, 0, false
		}
		return uint64(a), uint64(b), true
	}
	return 0, 0, false
}

// typeFromStats is the typing pass (typeAll) over the Parquet file ps
// without decoding it, when its column statistics tell every column's
// distinct values exactly (statsKeys): each column is given its values as
// if read (its labels, observed count and the rows), so that typing ends
// as reading every row would. It reports false, having changed nothing,
// when the statistics do not tell, or a column is forced or already
// stores floats, or a value's text is a missing token. The values are
// recorded as claims that the data pass checks: a value that is not among
// them is an error there (the columns are closed), and so is one of them
// that no row holds (checkClaims).
func (b *blockReader) typeFromStats(ps *parquetSource) (bool, error) {
	if !pqStatsTyping {
		return false, nil
	}
	keys, rows, ok := ps.statsKeys()
	if !ok {
		return false, nil
	}
	rd := b.base
	texts := make([][]string, len(b.cols))
	for k, c := range b.cols {
		j := c.pos - 1
		if c.forced || c.float {
			return false, nil
		}
		for _, x := range keys[j] {
			s, buf, err := ps.textAt(ps.buf, j, ps.rawValue(j, x), 1)
			ps.buf = buf
			if err != nil || rd.isMissing(s) {
				return false, nil
			}
			texts[k] = append(texts[k], strings.Clone(s))
		}
	}
	for k, c := range b.cols {
		j := c.pos - 1
		for i, s := range texts[k] {
			if err := c.add(&rd.typing, s, lineOne{}); err != nil {
				return false, err
			}
			// A value cached from the rows of a file read before is held.
			e := c.pq.num(keys[j][i])
			c.claims = append(c.claims, pqClaim{key: keys[j][i], text: s, file: ps.name, seen: e >= 0})
		}
		c.codes = c.codes[:0]
		c.observed += rows - int64(len(texts[k]))
	}
	b.rows += rows
	b.kept += rows
	return true, nil
}

// rawValue returns the value of key raw (see pqKey) of the non-byte-array
// column j.
func (s *parquetSource) rawValue(j int, raw uint64) parquet.Value {
	switch s.kinds[j] {
	case parquet.Boolean:
		return parquet.BooleanValue(raw != 0)
	case parquet.Int32:
		return parquet.Int32Value(int32(uint32(raw)))
	case parquet.Int64:
		return parquet.Int64Value(int64(raw))
	case parquet.Float:
		return parquet.FloatValue(math.Float32frombits(uint32(raw)))
	}
	return parquet.DoubleValue(math.Float64frombits(raw))
}

// checkClaims returns an error naming the first value that a file's column
// statistics gave (typeFromStats) and that no row held.
func (b *blockReader) checkClaims() error {
	for _, c := range b.cols {
		if c.float {
			continue // read as numbers, not through the cache
		}
		for _, cl := range c.claims {
			if !cl.seen {
				return &ParseError{File: cl.file, ColumnName: c.name, Err: fmt.Errorf("the Parquet file's column statistics give the value %s, which no row holds: the file's statistics are wrong (rewrite the file)", QuoteCell(cl.text))}
			}
		}
	}
	return nil
}

// putCode records in the cache the code just added for the value of
// column j of row i of ps's batch. A claim (typeFromStats) of the value is
// then known to be held by a row.
func (c *column) putCode(ps *parquetSource, j, i int) {
	c.pq.put(ps, j, i, int32(c.codes[len(c.codes)-1]))
	if c.claims != nil && !ps.bytes[j] {
		c.markClaim(ps.raw[j][i])
	}
}

// markClaim records that a row holds the value of key raw.
func (c *column) markClaim(raw uint64) {
	for i := range c.claims {
		if c.claims[i].key == raw {
			c.claims[i].seen = true
		}
	}
}
