package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
)

// parquetBatch is the number of rows decoded from a Parquet file at once,
// column by column.
const parquetBatch = 4096

// parquetSource reads a Parquet file with a flat schema column by column:
// each column chunk's pages are decoded into a batch of values, and the
// rows of the batch are then read across the columns.
type parquetSource struct {
	name     string
	f        *os.File
	pf       *parquet.File
	names    []string
	unsigned []bool
	lim      limits
	scale    []int  // DECIMAL stored as an integer: its scale; else -1
	date     []bool // DATE: days since 1970-01-01
	want     []bool // columns read (all until use is called)
	groups   []parquet.RowGroup
	g        int   // next row group
	left     int64 // rows left in the current row group
	pages    []parquet.Pages
	vr       []parquet.ValueReader // current page's values, per column
	cur      []parquet.Page        // current page, per column (see release)
	required []bool                // current page is plain and without nulls
	kinds    []parquet.Kind        // physical types
	bytes    []bool                // byte array columns
	null     [][]bool              // the batch, per column: nulls,
	raw      [][]uint64            // values but byte arrays (see pqKey),
	vals     [][]parquet.Value     // byte arrays
	scratch  []pqScratch           // per column, of the typed readers
	page     []pqPage              // per column, the current page decoded whole
	optional []bool                // nullable columns (definition level 1)
	errs     []error               // per column, of the last fill
	n, i     int                   // rows in the batch, next row
	row      int64                 // 1-based number of the current row
	buf      []byte
}

// pqPage is a page of a column of numbers read from its data rather than
// through the Parquet library's values: the definition levels of its rows
// (nil without nulls), the dictionary indexes of its values (nil without a
// dictionary), the keys (see pqKey) of its values or of its dictionary's,
// and the next row and value. Pages of numbers and of dictionary indexes,
// with or without nulls, are read this way; the others through the
// library's values. The slices are the page's own, valid until the next
// page is read.
type pqPage struct {
	on       bool
	n        int // rows
	pos, v   int // next row, next value
	defs     []byte
	idx      []int32
	keys     []uint64
	i32      []int32  // the values of an INT32 page without dictionary, instead of keys
	buf      []uint64 // the keys of a page without dictionary
	dictOK   bool     // dictKeys holds the keys of the column chunk's dictionary
	dictKeys []uint64
}

// take copies the keys and nulls of the page's next rows into raw and
// null, as many as fit, and returns their number.
func (pg *pqPage) take(raw []uint64, null []bool) int {
	k := min(len(raw), pg.n-pg.pos)
	raw, null = raw[:k], null[:k]
	// Rows without a null are read as those of a page without levels.
	full := pg.defs == nil || bytes.IndexByte(pg.defs[pg.pos:pg.pos+k], 0) < 0
	switch {
	case full && pg.i32 != nil:
		for t, x := range pg.i32[pg.v : pg.v+k] {
			raw[t] = uint64(uint32(x))
		}
		clear(null)
		pg.v += k
	case full && pg.idx == nil:
		copy(raw, pg.keys[pg.v:pg.v+k])
		clear(null)
		pg.v += k
	case full:
		keys := pg.keys
		for t, x := range pg.idx[pg.v : pg.v+k] {
			raw[t] = keys[x]
		}
		clear(null)
		pg.v += k
	default:
		for t, d := range pg.defs[pg.pos : pg.pos+k] {
			null[t] = d == 0
			if d == 0 {
				raw[t] = 0
				continue
			}
			switch {
			case pg.idx != nil:
				raw[t] = pg.keys[pg.idx[pg.v]]
			case pg.i32 != nil:
				raw[t] = uint64(uint32(pg.i32[pg.v]))
			default:
				raw[t] = pg.keys[pg.v]
			}
			pg.v++
		}
	}
	pg.pos += k
	return k
}

// takeCodes appends to codes the codes in dense (a pqCache's, of keys
// below pqDense) of the next values of the page, an INT32 page without
// nulls, at most k, while they have one; it returns codes and their number.
func (pg *pqPage) takeCodes(k int, dense []int32, codes []uint16) ([]uint16, int) {
	d := (*[pqDense]int32)(dense)
	at := len(codes)
	codes = slices.Grow(codes, k)[:at+k]
	xs := pg.i32[pg.v : pg.v+k]
	out := codes[at:][:len(xs)]
	c := len(xs)
	binary := false
	if d[0] == 0 && d[1] == 1 {
		// Values 0 and 1 are codes 0 and 1 (binary data): the values are
		// the codes if none is larger, else the loop below redoes them.
		var or uint32
		for i, x := range xs {
			or |= uint32(x)
			out[i] = uint16(x)
		}
		binary = or <= 1
	}
	if !binary {
		for i, x := range xs {
			u := uint32(x)
			e := d[u&(pqDense-1)]
			if u >= pqDense || e < 0 {
				c = i
				break
			}
			out[i] = uint16(e)
		}
	}
	pg.v += c
	pg.pos += c
	return codes[:at+c], c
}

// pqScratch is the scratch space of the typed readers of one column.
type pqScratch struct {
	sb   []bool
	si32 []int32
	si64 []int64
	sf32 []float32
	sf64 []float64
	sv   []parquet.Value
}

// columnWorkers, if positive, is the number of goroutines of forColumns
// instead of GOMAXPROCS (for tests).
var columnWorkers = 0

// forColumns calls f(k) for every k in [0, n) on up to GOMAXPROCS
// goroutines, which take the indices in increasing order as they become
// free. Each k is a column whose work touches only that column's state, so
// the result does not depend on the number of goroutines. (data is below
// internal/parallel's level in docs/architecture.md's table, hence this
// loop of its own.)
func forColumns(n int, f func(k int)) {
	w := columnWorkers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	w = min(w, n)
	if w <= 1 {
		for k := range n {
			f(k)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= n {
					return
				}
				f(k)
			}
		})
	}
	wg.Wait()
}

// recovered turns a panic of the Parquet library on corrupt input into an
// error naming the file.
func recovered(name string, err *error) {
	if r := recover(); r != nil {
		*err = &ParseError{File: name, Err: fmt.Errorf("corrupt Parquet file: %v", r)}
	}
}

func openParquet(name string, f *os.File) (src *parquetSource, err error) {
	defer recovered(name, &err)
	fi, err := f.Stat()
	if err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	if err := checkParquetFooter(f, fi.Size()); err != nil {
		return nil, &ParseError{File: name, Err: fmt.Errorf("not a valid Parquet file: %w", err)}
	}
	pf, err := parquet.OpenFile(f, fi.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, &ParseError{File: name, Err: fmt.Errorf("not a valid Parquet file: %w", err)}
	}
	if err := checkParquetMetadata(pf.Metadata(), fi.Size()); err != nil {
		return nil, &ParseError{File: name, Err: fmt.Errorf("corrupt Parquet file: %w", err)}
	}
	s := &parquetSource{name: name, f: f, pf: pf, groups: pf.RowGroups()}
	for j, fld := range pf.Schema().Fields() {
		if !fld.Leaf() || fld.Repeated() {
			return nil, &ParseError{File: name, Column: j + 1, ColumnName: fld.Name(), Err: errors.New("nested or repeated Parquet column: only flat columns can be read")}
		}
		switch fld.Type().Kind() {
		case parquet.Boolean, parquet.Int32, parquet.Int64, parquet.Float, parquet.Double, parquet.ByteArray, parquet.FixedLenByteArray:
		default:
			return nil, &ParseError{File: name, Column: j + 1, ColumnName: fld.Name(), Err: fmt.Errorf("unsupported Parquet type %v", fld.Type())}
		}
		scale, date, err := pqAnnotation(fld.Type())
		if err != nil {
			return nil, &ParseError{File: name, Column: j + 1, ColumnName: fld.Name(), Err: err}
		}
		s.scale, s.date = append(s.scale, scale), append(s.date, date)
		lt := fld.Type().LogicalType()
		it, isInt := logicalInt(lt)
		s.unsigned = append(s.unsigned, isInt && !it.IsSigned)
		s.names = append(s.names, fld.Name())
		s.optional = append(s.optional, fld.Optional())
		s.want = append(s.want, true)
		k := fld.Type().Kind()
		s.kinds = append(s.kinds, k)
		s.bytes = append(s.bytes, k == parquet.ByteArray || k == parquet.FixedLenByteArray)
	}
	if len(s.names) == 0 {
		return nil, &ParseError{File: name, Err: errors.New("the Parquet file has no columns")}
	}
	for _, g := range s.groups {
		if len(g.ColumnChunks()) != len(s.names) {
			return nil, &ParseError{File: name, Err: fmt.Errorf("corrupt Parquet file: a row group has %d columns, the schema %d", len(g.ColumnChunks()), len(s.names))}
		}
	}
	s.pages = make([]parquet.Pages, len(s.names))
	s.vr = make([]parquet.ValueReader, len(s.names))
	s.cur = make([]parquet.Page, len(s.names))
	s.vals = make([][]parquet.Value, len(s.names))
	s.required = make([]bool, len(s.names))
	s.null = make([][]bool, len(s.names))
	s.raw = make([][]uint64, len(s.names))
	s.scratch = make([]pqScratch, len(s.names))
	s.page = make([]pqPage, len(s.names))
	s.errs = make([]error, len(s.names))
	return s, nil
}

// use restricts reading to the given 0-based fields.
func (s *parquetSource) use(fields []int) {
	for j := range s.want {
		s.want[j] = false
	}
	for _, j := range fields {
		s.want[j] = true
	}
}

// pqAnnotation tells how the values of a column of type t are read: a
// DECIMAL stored as a 32- or 64-bit integer as its value (scale ≥ 0), a
// DATE as its day, yyyy-mm-dd (date); the other annotations that change
// what a value means (DECIMAL in a byte array, TIME, TIMESTAMP, INTERVAL,
// FLOAT16, UUID) are errors rather than numbers read wrong.
func pqAnnotation(t parquet.Type) (scale int, date bool, err error) {
	const convert = "convert the column to a number (DOUBLE, INT64) or a string"
	k := t.Kind()
	if lt := t.LogicalType(); lt != nil {
		switch v := lt.Value.(type) {
		case *format.DecimalType:
			if k != parquet.Int32 && k != parquet.Int64 || v.Scale < 0 || v.Scale > 18 {
				return -1, false, fmt.Errorf("unsupported Parquet type %v (a DECIMAL is read from INT32 or INT64 with a scale of at most 18): %s", t, convert)
			}
			return int(v.Scale), false, nil
		case *format.DateType:
			return -1, k == parquet.Int32, nil
		case *format.TimestampType, *format.TimeType, *format.Float16Type, *format.UUIDType:
			return -1, false, fmt.Errorf("unsupported Parquet type %v (its values would be read as raw numbers or bytes): %s", t, convert)
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.Date:
			return -1, k == parquet.Int32, nil
		case deprecated.Decimal, deprecated.TimeMillis, deprecated.TimeMicros, deprecated.TimestampMillis, deprecated.TimestampMicros, deprecated.Interval:
			return -1, false, fmt.Errorf("unsupported Parquet type %v (converted type %v, whose values would be read as raw numbers or bytes): %s", t, *ct, convert)
		}
	}
	return -1, false, nil
}

// logicalInt returns the integer annotation of a logical type, if any.
func logicalInt(lt *format.LogicalType) (*format.IntType, bool) {
	if lt == nil {
		return nil, false
	}
	it, ok := lt.Value.(*format.IntType)
	return it, ok && it != nil
}

func (s *parquetSource) header() []string { return s.names }

// closePages closes the column chunks of the current row group.
func (s *parquetSource) closePages() {
	for j := range s.pages {
		s.closeColumn(j)
	}
}

// closeColumn closes column j's chunk of the current row group.
func (s *parquetSource) closeColumn(j int) {
	if p := s.pages[j]; p != nil {
		p.Close()
	}
	s.release(j)
	s.pages[j], s.vr[j] = nil, nil
	s.page[j].on, s.page[j].dictOK = false, false
}

// openColumn closes column j's current chunk and opens its chunk of row
// group g.
func (s *parquetSource) openColumn(j, g int) (err error) {
	defer recovered(s.name, &err)
	s.closeColumn(j)
	s.pages[j] = s.groups[g].ColumnChunks()[j].Pages()
	return nil
}

// release hands the current page of column j, read whole, back to the
// Parquet library's buffer pool, which otherwise allocates (and clears)
// every page's buffers afresh. The batch holds copies of the values of
// numbers, but byte arrays point into their page: those pages are left to
// the garbage collector.
func (s *parquetSource) release(j int) {
	if p := s.cur[j]; p != nil {
		s.cur[j] = nil
		if !s.bytes[j] {
			parquet.Release(p)
		}
	}
}

// fill decodes the next batch of rows, the columns concurrently; it
// returns io.EOF after the last row group, and the error of the first
// column (in file order) that fails.
func (s *parquetSource) fill() (err error) {
	defer recovered(s.name, &err)
	for s.left == 0 {
		s.closePages()
		if s.g >= len(s.groups) {
			return io.EOF
		}
		g := s.groups[s.g]
		s.g++
		s.left = g.NumRows()
		if s.left < 0 {
			return &ParseError{File: s.name, Line: int(s.row) + 1, Err: fmt.Errorf("corrupt Parquet file: row group of %d rows", s.left)}
		}
		for j, c := range g.ColumnChunks() {
			if s.want[j] {
				s.pages[j] = c.Pages()
			}
		}
	}
	m := int(min(s.left, parquetBatch))
	forColumns(len(s.names), func(j int) {
		s.errs[j] = nil
		if s.want[j] {
			s.errs[j] = s.fillColumn(j, m, s.row)
		}
	})
	for _, err := range s.errs {
		if err != nil {
			return err
		}
	}
	s.left -= int64(m)
	s.n, s.i = m, 0
	return nil
}

// fillColumn decodes the m values of column j of the next batch, which
// follows row (0-based) of the file.
func (s *parquetSource) fillColumn(j, m int, row int64) error {
	return s.fillColumnFast(j, m, row, nil)
}

// pqFast is where fillColumnFast puts the codes of the leading values of
// a batch straight from their pages: while the values are those of INT32
// pages without nulls read whole (see pqPage) and have codes in dense (a
// pqCache's), at most limit of them, their codes are appended to codes and
// counted in n, and they are not decoded into the batch.
type pqFast struct {
	dense []int32
	codes []uint16
	limit int
	n     int
}

// fillColumnFast is fillColumn with the leading values of the batch
// turned into codes when fast is not nil (see pqFast): their places in the
// batch are left as they were.
func (s *parquetSource) fillColumnFast(j, m int, row int64, fast *pqFast) (err error) {
	defer recovered(s.name, &err)
	if s.null[j] == nil {
		s.null[j] = make([]bool, parquetBatch)
		if s.bytes[j] {
			s.vals[j] = make([]parquet.Value, parquetBatch)
		} else {
			s.raw[j] = make([]uint64, parquetBatch)
		}
	}
	got := 0
	for got < m {
		if pg := &s.page[j]; pg.on {
			if fast != nil && pg.pos < pg.n {
				if pg.i32 == nil || pg.defs != nil {
					fast = nil
				} else {
					k := min(fast.limit-got, pg.n-pg.pos)
					var c int
					fast.codes, c = pg.takeCodes(k, fast.dense, fast.codes)
					got += c
					fast.n += c
					if c < k || got == fast.limit {
						fast = nil
					}
					continue
				}
			}
			if pg.pos < pg.n {
				got += pg.take(s.raw[j][got:m], s.null[j][got:m])
				continue
			}
			pg.on = false
		}
		if s.vr[j] == nil {
			s.release(j)
			p, err := s.pages[j].ReadPage()
			if err != nil {
				if err == io.EOF {
					err = fmt.Errorf("%d values fewer than the row group's rows", m-got)
				}
				return &ParseError{File: s.name, Line: int(row) + got + 1, Column: j + 1, ColumnName: s.names[j], Err: fmt.Errorf("reading Parquet column: %w", err)}
			}
			s.cur[j] = p
			if s.decodePage(j, p) {
				continue
			}
			s.vr[j] = p.Values()
			s.required[j] = p.DefinitionLevels() == nil && p.Dictionary() == nil
		}
		fast = nil // the values follow in the batch
		k, err := s.read(j, got, m)
		got += k
		if err == io.EOF {
			s.vr[j] = nil
		} else if err != nil {
			return &ParseError{File: s.name, Line: int(row) + got + 1, Column: j + 1, ColumnName: s.names[j], Err: fmt.Errorf("reading Parquet column: %w", err)}
		} else if k == 0 {
			return &ParseError{File: s.name, Line: int(row) + got + 1, Column: j + 1, ColumnName: s.names[j], Err: errors.New("reading Parquet column: no progress")}
		}
	}
	return nil
}

// decodePage makes page p of column j the current pqPage of the column
// when it is a page of numbers or of dictionary indexes, with or without
// nulls, whose levels, counts and indexes are valid; it reports false,
// leaving the page to the Parquet library's values, otherwise.
func (s *parquetSource) decodePage(j int, p parquet.Page) bool {
	k := s.kinds[j]
	if !pqDecodePages || s.bytes[j] || k == parquet.Boolean {
		return false
	}
	n := int(p.NumValues())
	defs := p.DefinitionLevels()
	if defs == nil && p.NumNulls() != 0 || defs != nil && (len(defs) != n || !s.optional[j]) {
		return false
	}
	vals := n
	if defs != nil {
		// Levels are 0 (null) or 1.
		vals = bytes.Count(defs, []byte{1})
		if vals+bytes.Count(defs, []byte{0}) != n {
			return false
		}
	}
	pg := &s.page[j]
	data := p.Data()
	var idx, i32 []int32
	var keys []uint64
	if dict := p.Dictionary(); dict != nil {
		if data.Kind() != encoding.Int32 {
			return false
		}
		if !pg.dictOK {
			// The pages of a column chunk share its dictionary.
			dd := dict.Page().Data()
			var ok bool
			if pg.dictKeys, ok = pqDataKeys(k, &dd, pg.dictKeys[:0]); !ok {
				return false
			}
			pg.dictOK = true
		}
		idx, keys = data.Int32(), pg.dictKeys
		if len(idx) != vals {
			return false
		}
		for _, x := range idx {
			if x < 0 || int(x) >= len(keys) {
				return false
			}
		}
	} else if k == parquet.Int32 && data.Kind() == encoding.Int32 {
		// Read in place: the page is released only once read.
		if i32 = data.Int32(); len(i32) != vals {
			return false
		}
	} else {
		var ok bool
		if pg.buf, ok = pqDataKeys(k, &data, pg.buf[:0]); !ok || len(pg.buf) != vals {
			return false
		}
		keys = pg.buf
	}
	pg.on, pg.n, pg.pos, pg.v = true, n, 0, 0
	pg.defs, pg.idx, pg.keys, pg.i32 = defs, idx, keys, i32
	return true
}

// pqDecodePages turns decodePage on (off in tests, to compare).
var pqDecodePages = true

// pqDataKeys appends the keys (see pqKey) of the numbers of a page's data,
// of physical type k, to keys; it reports false if the data are of another
// type.
func pqDataKeys(k parquet.Kind, data *encoding.Values, keys []uint64) ([]uint64, bool) {
	switch {
	case k == parquet.Int32 && data.Kind() == encoding.Int32:
		xs := data.Int32()
		keys = slices.Grow(keys, len(xs))
		for _, x := range xs {
			keys = append(keys, uint64(uint32(x)))
		}
	case k == parquet.Int64 && data.Kind() == encoding.Int64:
		xs := data.Int64()
		keys = slices.Grow(keys, len(xs))
		for _, x := range xs {
			keys = append(keys, uint64(x))
		}
	case k == parquet.Float && data.Kind() == encoding.Float:
		xs := data.Float()
		keys = slices.Grow(keys, len(xs))
		for _, x := range xs {
			keys = append(keys, uint64(math.Float32bits(x)))
		}
	case k == parquet.Double && data.Kind() == encoding.Double:
		xs := data.Double()
		keys = slices.Grow(keys, len(xs))
		for _, x := range xs {
			keys = append(keys, math.Float64bits(x))
		}
	default:
		return keys, false
	}
	return keys, true
}

// read decodes values lo to at most hi of the batch of column j from the
// current page: with the typed readers of the Parquet library when the
// page holds plain values without nulls, else as parquet.Values.
func (s *parquetSource) read(j, lo, hi int) (int, error) {
	vr, null := s.vr[j], s.null[j][lo:hi]
	if s.bytes[j] {
		vals := s.vals[j][lo:hi]
		k, err := vr.ReadValues(vals)
		for i, v := range vals[:k] {
			null[i] = v.IsNull()
		}
		return k, err
	}
	raw := s.raw[j][lo:hi]
	sc := &s.scratch[j]
	w := hi - lo
	k, err, typed := 0, error(nil), false
	if s.required[j] {
		typed = true
		switch r := vr.(type) {
		case parquet.BooleanReader:
			if len(sc.sb) < w {
				sc.sb = make([]bool, parquetBatch)
			}
			k, err = r.ReadBooleans(sc.sb[:w])
			for i := range sc.sb[:k] {
				// A bool is one byte, 0 or 1: read without a branch, which
				// random bits would mispredict half the time.
				raw[i] = uint64(*(*byte)(unsafe.Pointer(&sc.sb[i])))
			}
		case parquet.Int32Reader:
			if len(sc.si32) < w {
				sc.si32 = make([]int32, parquetBatch)
			}
			k, err = r.ReadInt32s(sc.si32[:w])
			for i, x := range sc.si32[:k] {
				raw[i] = uint64(uint32(x))
			}
		case parquet.Int64Reader:
			if len(sc.si64) < w {
				sc.si64 = make([]int64, parquetBatch)
			}
			k, err = r.ReadInt64s(sc.si64[:w])
			for i, x := range sc.si64[:k] {
				raw[i] = uint64(x)
			}
		case parquet.FloatReader:
			if len(sc.sf32) < w {
				sc.sf32 = make([]float32, parquetBatch)
			}
			k, err = r.ReadFloats(sc.sf32[:w])
			for i, x := range sc.sf32[:k] {
				raw[i] = uint64(math.Float32bits(x))
			}
		case parquet.DoubleReader:
			if len(sc.sf64) < w {
				sc.sf64 = make([]float64, parquetBatch)
			}
			k, err = r.ReadDoubles(sc.sf64[:w])
			for i, x := range sc.sf64[:k] {
				raw[i] = math.Float64bits(x)
			}
		default:
			typed = false
		}
		if typed {
			clear(null[:k])
			return k, err
		}
	}
	if len(sc.sv) < w {
		sc.sv = make([]parquet.Value, parquetBatch)
	}
	k, err = vr.ReadValues(sc.sv[:w])
	vals := sc.sv[:k]
	for i, v := range vals {
		null[i] = v.IsNull()
		if !null[i] && v.Kind() != s.kinds[j] {
			return i, fmt.Errorf("value of kind %v in a column of kind %v", v.Kind(), s.kinds[j])
		}
	}
	// The keys of the values (pqKey), the column's kind chosen once.
	switch s.kinds[j] {
	case parquet.Int32:
		for i, v := range vals {
			raw[i] = uint64(v.Uint32())
		}
	case parquet.Int64:
		for i, v := range vals {
			raw[i] = v.Uint64()
		}
	default:
		for i, v := range vals {
			if !null[i] {
				raw[i] = pqKey(v)
			}
		}
	}
	return k, err
}

// next moves to the next row.
func (s *parquetSource) next() error {
	if s.i >= s.n {
		if err := s.fill(); err != nil {
			return err
		}
	}
	s.i++
	s.row++
	return nil
}

// value returns field j of the current row.
func (s *parquetSource) value(j int) parquet.Value { return s.valueAt(j, s.i-1) }

// valueAt returns field j of row i of the batch.
func (s *parquetSource) valueAt(j, i int) parquet.Value {
	if s.null[j][i] {
		return parquet.NullValue()
	}
	if s.bytes[j] {
		return s.vals[j][i]
	}
	return s.rawValue(j, s.raw[j][i])
}

// text returns the text a CSV file would hold for v, cleaned as a CSV
// field is, formatted into buf (returned for reuse): the string is valid
// until buf is reused. Errors name the current row.
func (s *parquetSource) text(buf []byte, j int, v parquet.Value) (string, []byte, error) {
	return s.textAt(buf, j, v, int(s.row))
}

// textAt is text for a value of the given 1-based row.
func (s *parquetSource) textAt(buf []byte, j int, v parquet.Value, row int) (string, []byte, error) {
	if v.IsNull() {
		return "", buf, nil
	}
	b := buf[:0]
	switch v.Kind() {
	case parquet.Boolean:
		b = strconv.AppendBool(b, v.Boolean())
	case parquet.Int32, parquet.Int64:
		if s.scale[j] >= 0 || s.date[j] {
			b = s.annotated(b, j, v)
			break
		}
		if v.Kind() == parquet.Int64 {
			if s.unsigned[j] {
				b = strconv.AppendUint(b, v.Uint64(), 10)
			} else {
				b = strconv.AppendInt(b, v.Int64(), 10)
			}
			break
		}
		if s.unsigned[j] {
			b = strconv.AppendUint(b, uint64(v.Uint32()), 10)
		} else {
			b = strconv.AppendInt(b, int64(v.Int32()), 10)
		}
	case parquet.Float:
		b = strconv.AppendFloat(b, float64(v.Float()), 'g', -1, 32)
	case parquet.Double:
		b = strconv.AppendFloat(b, v.Double(), 'g', -1, 64)
	case parquet.ByteArray, parquet.FixedLenByteArray:
		if n := len(v.ByteArray()); n > s.lim.field {
			return "", b, &ParseError{File: s.name, Line: row, Column: j + 1, ColumnName: s.names[j], Err: s.lim.fieldError(n)}
		}
		b = append(b, v.ByteArray()...)
	default:
		return "", b, &ParseError{File: s.name, Line: row, Column: j + 1, ColumnName: s.names[j], Err: fmt.Errorf("unsupported Parquet value kind %v", v.Kind())}
	}
	if len(b) == 0 {
		return "", b, nil
	}
	// Callers clone what they keep.
	t, err := cleanField(unsafe.String(&b[0], len(b)))
	if err != nil {
		return "", b, &ParseError{File: s.name, Line: row, Column: j + 1, ColumnName: s.names[j], Err: err}
	}
	return t, b, nil
}

func (s *parquetSource) cell(j int) (string, error) {
	t, b, err := s.text(s.buf, j, s.value(j))
	s.buf = b
	return strings.Clone(t), err
}

func (s *parquetSource) line(int) int { return int(s.row) }

func (s *parquetSource) close() (err error) {
	defer recovered(s.name, &err)
	s.closePages()
	return s.f.Close()
}

// asFloat returns the number a CSV reader would parse from the text of the
// non-null value raw of column j when that is the value itself: finite
// doubles and integers.
func (s *parquetSource) asFloat(j int, raw uint64) (float64, bool) {
	if s.scale[j] >= 0 || s.date[j] {
		return 0, false // read from the text
	}
	switch s.kinds[j] {
	case parquet.Double:
		f := math.Float64frombits(raw)
		return f, !math.IsInf(f, 0) && !math.IsNaN(f)
	case parquet.Int32:
		if s.unsigned[j] {
			return float64(uint32(raw)), true
		}
		return float64(int32(uint32(raw))), true
	case parquet.Int64:
		// Go's conversion and strconv.ParseFloat both round to nearest even.
		if s.unsigned[j] {
			return float64(raw), true
		}
		return float64(int64(raw)), true
	}
	return 0, false
}

// annotated appends the text of the integer v of column j, a DECIMAL (its
// value: 12345 of scale 2 is 123.45) or a DATE (days since 1970-01-01 as
// yyyy-mm-dd).
func (s *parquetSource) annotated(b []byte, j int, v parquet.Value) []byte {
	n := v.Int64()
	if v.Kind() == parquet.Int32 {
		n = int64(v.Int32())
	}
	if s.date[j] {
		return time.Unix(n*86400, 0).UTC().AppendFormat(b, time.DateOnly)
	}
	scale := s.scale[j]
	if scale == 0 {
		return strconv.AppendInt(b, n, 10)
	}
	u := uint64(n)
	if n < 0 {
		b = append(b, '-')
		u = -u
	}
	digits := strconv.FormatUint(u, 10)
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	cut := len(digits) - scale
	b = append(b, digits[:cut]...)
	b = append(b, '.')
	return append(b, digits[cut:]...)
}

// checkParquetFooter checks the magic bytes and the footer length of a
// Parquet file against its size before the Parquet library reads (and
// allocates) what the footer declares.
func checkParquetFooter(f io.ReaderAt, size int64) error {
	if size < 12 {
		return fmt.Errorf("file of %d bytes is too short", size)
	}
	var head [4]byte
	var tail [8]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return err
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(head[:]) != "PAR1" || string(tail[4:]) != "PAR1" {
		return errors.New("missing PAR1 magic bytes")
	}
	n := int64(tail[0]) | int64(tail[1])<<8 | int64(tail[2])<<16 | int64(tail[3])<<24
	if n <= 0 || n > size-12 {
		return fmt.Errorf("footer of %d bytes in a file of %d bytes", n, size)
	}
	return nil
}

// checkParquetMetadata rejects row groups and column chunks whose declared
// sizes, offsets or counts do not fit in a file of size bytes.
func checkParquetMetadata(md *format.FileMetaData, size int64) error {
	if md.NumRows < 0 {
		return fmt.Errorf("%d rows", md.NumRows)
	}
	var rows int64
	for g, rg := range md.RowGroups {
		if rg.NumRows < 0 {
			return fmt.Errorf("row group %d has %d rows", g, rg.NumRows)
		}
		rows += rg.NumRows
		for _, cc := range rg.Columns {
			m := &cc.MetaData
			col := fmt.Sprintf("row group %d, column %v", g, []string(m.PathInSchema))
			switch {
			case m.NumValues < 0:
				return fmt.Errorf("%s: %d values", col, m.NumValues)
			case m.TotalCompressedSize < 0 || m.TotalCompressedSize > size:
				return fmt.Errorf("%s: %d compressed bytes in a file of %d bytes", col, m.TotalCompressedSize, size)
			case m.TotalUncompressedSize < 0:
				return fmt.Errorf("%s: %d uncompressed bytes", col, m.TotalUncompressedSize)
			case m.DataPageOffset < 0 || m.DataPageOffset >= size:
				return fmt.Errorf("%s: data page offset %d in a file of %d bytes", col, m.DataPageOffset, size)
			case m.DictionaryPageOffset < 0 || m.DictionaryPageOffset >= size:
				return fmt.Errorf("%s: dictionary page offset %d in a file of %d bytes", col, m.DictionaryPageOffset, size)
			}
		}
	}
	if rows != md.NumRows {
		return fmt.Errorf("the row groups have %d rows, the file declares %d", rows, md.NumRows)
	}
	return nil
}
