package data

import (
	"bytes"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// fastLimit is the largest input, in bytes, that ReadCSV holds whole to try
// the fast path on: small inputs are the ones whose time goes to parsing,
// and holding a large one whole would double the memory of reading it.
const fastLimit = 32 << 20

// read reads the CSV text of in: an input of at most fastLimit bytes is
// read whole and given to the fast path, and to the general path
// (readStream) if the fast path declines it; a larger one is streamed.
// size, if positive, is the input's expected size (that of a file).
func (rd *reader) read(in io.Reader, size int) (*Dataset, *ReadReport, error) {
	// The row limit applies while the input is held, so that one long row
	// is refused with memory bounded by the limit.
	buf, err := readWhole(io.LimitReader(newRowLimiter(in, rd.lim.line), fastLimit+1), size)
	switch {
	case err != nil:
		return rd.readStream(io.MultiReader(bytes.NewReader(buf), errReader{err}))
	case len(buf) > fastLimit:
		return rd.readStream(io.MultiReader(bytes.NewReader(buf), in))
	}
	fast := *rd
	if d, rep, err, ok := fast.readFast(buf); ok {
		return d, rep, err
	}
	return rd.readStream(bytes.NewReader(buf))
}

// readWhole is io.ReadAll, into a buffer of size bytes (and one more, so
// that the end is read without growing it) when size is positive.
func readWhole(r io.Reader, size int) ([]byte, error) {
	if size <= 0 {
		return io.ReadAll(r)
	}
	b := make([]byte, size+1)
	n, err := io.ReadFull(r, b)
	switch err {
	case io.EOF, io.ErrUnexpectedEOF:
		return b[:n], nil
	case nil:
		// Longer than size: the rest as io.ReadAll reads it.
		rest, err := io.ReadAll(r)
		return append(b, rest...), err
	}
	return b[:n], err
}

// errReader returns its error.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// fastLine is the liner of the fast path: the line of the current row.
type fastLine struct{ n int }

func (l *fastLine) line(int) int { return l.n }

// readFast is the fast path of ReadCSV for the common case of a numeric
// file: it splits the lines of buf itself instead of through encoding/csv,
// and stores the values of a continuous column as floats as soon as it is
// known to be continuous (column.settle) instead of interning each. It
// takes only what it can read exactly as the general path reads it: rows
// of unquoted ASCII fields without NUL bytes and line breaks other than LF
// and CRLF, within the size limits, with the header's number of fields,
// whose cells are finite numbers or missing (and no missing cell under
// MissingError). On anything else (quotes, labels, infinite or NaN values,
// any error before the end) it reports false, and the general path reads
// the input again from the start and gives the dataset or the error. The
// header is read by the general path's code.
func (rd *reader) readFast(buf []byte) (*Dataset, *ReadReport, error, bool) {
	bom := 0
	if bytes.HasPrefix(buf, []byte("\ufeff")) {
		bom = 3
	}
	if rd.start(bytes.NewReader(buf)) != nil || rd.opt.Delimiter >= 0x80 || rd.readHeader() != nil {
		return nil, nil, nil, false
	}
	off := bom + int(rd.cr.InputOffset())
	if off > len(buf) {
		return nil, nil, nil, false
	}
	head, rest := buf[:off], buf[off:]
	if len(head) > rd.lim.line {
		return nil, nil, nil, false // maybe a row too long
	}
	line := 1 + bytes.Count(head, []byte{'\n'})
	if len(head) > 0 && head[len(head)-1] != '\n' {
		return nil, nil, nil, false // the header ends the input
	}
	delim := byte(rd.opt.Delimiter)
	rows := bytes.Count(rest, []byte{'\n'}) + 1
	for _, c := range rd.cols {
		c.codes = make([]uint16, 0, rows)
	}
	// cells[2j], cells[2j+1]: the bounds of field j in the current line.
	cells := make([]int, 2*rd.fields)
	isMiss := make([]bool, len(rd.cols))
	rep := &ReadReport{Delimiter: rd.opt.Delimiter, Skipped: rd.skipped}
	at := &fastLine{}
	// floats counts the columns that store floats (a column never stops).
	floats := 0
	for _, c := range rd.cols {
		if c.float {
			floats++
		}
	}
	for ; len(rest) > 0; line++ {
		if floats == len(rd.cols) && len(rest) >= bulkMin {
			// Every column stores floats: the rest goes to readFloats.
			if !rd.readFloats(rest, line, rep) {
				return nil, nil, nil, false
			}
			break
		}
		var l []byte
		var ok bool
		if l, rest, ok = cutLine(rest, rd.lim.line); !ok {
			return nil, nil, nil, false
		}
		if len(l) == 0 {
			continue // encoding/csv skips empty lines
		}
		// Split at the delimiter, refusing what encoding/csv or cleanField
		// would treat otherwise.
		f, start := 0, 0
		for i, b := range l {
			switch {
			case b == delim:
				if f == rd.fields-1 {
					return nil, nil, nil, false
				}
				cells[2*f], cells[2*f+1] = start, i
				f++
				start = i + 1
			case b == '"' || b == '\r' || b == 0 || b >= 0x80:
				return nil, nil, nil, false
			}
		}
		if f != rd.fields-1 {
			return nil, nil, nil, false
		}
		cells[2*f], cells[2*f+1] = start, len(l)
		rep.Rows++
		at.n = line
		anyMissing := false
		for k, c := range rd.cols {
			j := c.pos - 1
			cell := l[cells[2*j]:cells[2*j+1]]
			if len(cell) > rd.lim.field {
				return nil, nil, nil, false
			}
			cell = trimASCII(cell)
			m := rd.isMissing(unsafe.String(unsafe.SliceData(cell), len(cell)))
			isMiss[k] = m
			if m {
				if rd.opt.Missing == MissingError {
					return nil, nil, nil, false
				}
				c.missing++
				anyMissing = true
			}
		}
		if anyMissing && rd.opt.Missing == MissingDropRows {
			rep.dropped(line)
			continue
		}
		for k, c := range rd.cols {
			if isMiss[k] {
				c.addMissing()
				continue
			}
			j := c.pos - 1
			cell := trimASCII(l[cells[2*j]:cells[2*j+1]])
			// The cell is a view of buf, which is not changed while the
			// columns are built; add clones the labels it keeps.
			s := unsafe.String(unsafe.SliceData(cell), len(cell))
			labels, was := len(c.labels), c.float
			if err := c.add(&rd.typing, s, at); err != nil || c.text || c.badLine != 0 {
				return nil, nil, nil, false
			}
			if len(c.labels) != labels {
				c.settle(&rd.typing)
			}
			if c.float && !was {
				floats++
			}
		}
	}
	// The checks of the whole input see the same columns as on the general
	// path (a column that settled is continuous and not constant either
	// way), and give the same errors.
	d, rep, err := rd.finish(rep)
	return d, rep, err, true
}

// trimASCII trims the ASCII white space strings.TrimSpace trims from a
// cell without bytes of 0x80 and above.
func trimASCII(b []byte) []byte {
	for len(b) > 0 && asciiSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && asciiSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func asciiSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\v' || b == '\f' || b == '\r'
}

// bulkMin is the least input left for which readFast hands the rest to
// readFloats, bulkChunk the least input readFloats gives each goroutine,
// and bulkParts, if positive, the number of goroutines instead of
// GOMAXPROCS (variables for tests).
var (
	bulkMin   = 64 << 10
	bulkChunk = 256 << 10
	bulkParts = 0
)

// cutLine returns the first line of b without its line end ("\n" or
// "\r\n") and the rest of b after it; ok is false when the line is longer
// than limit bytes.
func cutLine(b []byte, limit int) (line, rest []byte, ok bool) {
	line = b
	if n := bytes.IndexByte(b, '\n'); n >= 0 {
		line, rest = b[:n], b[n+1:]
	}
	if len(line) > limit {
		return nil, nil, false
	}
	if k := len(line); k > 0 && line[k-1] == '\r' {
		line = line[:k-1]
	}
	return line, rest, true
}

// byteClass classifies the bytes of a line for readFloats: 0 plain, 1 the
// delimiter, 2 a byte the fast path refuses (see readFast).
func byteClass(delim byte) *[256]byte {
	var cl [256]byte
	cl['"'], cl['\r'], cl[0] = 2, 2, 2
	for b := 0x80; b < 0x100; b++ {
		cl[b] = 2
	}
	cl[delim] = 1
	return &cl
}

// floatPart is what readFloats reads of one part of the input (its values
// go to the columns' floats) and per column what column.addNumber and add
// keep.
type floatPart struct {
	rows      int // rows read, dropped ones included
	kept      int // rows stored
	dropped   []int
	missing   []int
	observed  []int64
	first     []float64
	haveFirst []bool
	varied    []bool
	ok        bool
}

// readFloats reads the rest of the input, rest (whose first line is line),
// once every column stores floats: it reads the same rows, cells and values
// as readFast's loop would, and refuses what it refuses, but in parts on
// up to GOMAXPROCS goroutines (the lines split at line ends) whose values
// are put together in order. It reports false where readFast would (the
// general path then reads the input).
func (rd *reader) readFloats(rest []byte, line int, rep *ReadReport) bool {
	n := bulkParts
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	n = max(1, min(n, len(rest)/bulkChunk))
	// The parts, split after a line end, their first lines, and where
	// their rows go in the columns' floats: after those of the parts
	// before, as if each of their lines made a row (a part's lines end at
	// its line ends and at its end).
	bounds := make([]int, n+1)
	lines := make([]int, n+1)
	base := make([]int, n+1)
	bounds[n] = len(rest)
	lines[0] = line
	if len(rd.cols) > 0 {
		base[0] = len(rd.cols[0].floats)
	}
	for i := 1; i < n; i++ {
		at := max(bounds[i-1], len(rest)*i/n)
		if k := bytes.IndexByte(rest[at:], '\n'); k >= 0 {
			at += k + 1
		} else {
			at = len(rest)
		}
		bounds[i] = at
	}
	for i := range n {
		b := rest[bounds[i]:bounds[i+1]]
		ends := bytes.Count(b, []byte{'\n'})
		lines[i+1] = lines[i] + ends
		if len(b) > 0 && b[len(b)-1] != '\n' {
			ends++
		}
		base[i+1] = base[i] + ends
	}
	// The parts write their values in place: the columns' floats grow to
	// their most rows (settle gave them room for every line) without
	// zeroing what the parts write, and close up after.
	for _, c := range rd.cols {
		if len(c.floats) != base[0] {
			return false // not one value per row: left to the general path
		}
		c.floats = slices.Grow(c.floats, base[n]-base[0])[:base[n]]
	}
	parts := make([]floatPart, n)
	cl := byteClass(byte(rd.opt.Delimiter))
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { parts[i] = rd.floatPart(rest[bounds[i]:bounds[i+1]], lines[i], base[i], base[i+1], cl) })
	}
	wg.Wait()
	for i := range parts {
		if !parts[i].ok {
			return false
		}
	}
	end := base[0]
	for i := range parts {
		if kept := parts[i].kept; end != base[i] && kept > 0 {
			for _, c := range rd.cols {
				copy(c.floats[end:end+kept], c.floats[base[i]:base[i]+kept])
			}
		}
		end += parts[i].kept
	}
	for k, c := range rd.cols {
		c.floats = c.floats[:end]
		for i := range parts {
			pt := &parts[i]
			c.missing += pt.missing[k]
			c.observed += pt.observed[k]
			switch {
			case !pt.haveFirst[k]:
			case !c.haveFirst:
				c.first, c.haveFirst = pt.first[k], true
				c.varied = c.varied || pt.varied[k]
			default:
				c.varied = c.varied || pt.varied[k] || pt.first[k] != c.first
			}
		}
	}
	for i := range parts {
		rep.Rows += parts[i].rows
		for _, l := range parts[i].dropped {
			rep.dropped(l)
		}
	}
	return true
}

// floatPart reads the lines of b, the first of them line, for readFloats,
// into the columns' floats from index from on (to is past the last line's
// index).
func (rd *reader) floatPart(b []byte, line, from, to int, cl *[256]byte) floatPart {
	nc := len(rd.cols)
	pt := floatPart{missing: make([]int, nc), observed: make([]int64, nc),
		first: make([]float64, nc), haveFirst: make([]bool, nc), varied: make([]bool, nc)}
	dst := make([][]float64, nc)
	for k, c := range rd.cols {
		dst[k] = c.floats[from:to:to]
	}
	cells := make([]int, 2*rd.fields)
	isMiss := make([]bool, nc)
	row := make([]float64, nc)
	drop := rd.opt.Missing == MissingDropRows
	fused := rd.decimalLines()
	for ; len(b) > 0; line++ {
		var l []byte
		var ok bool
		if l, b, ok = cutLine(b, rd.lim.line); !ok {
			return pt
		}
		if len(l) == 0 {
			continue
		}
		if fused && rd.decimalLine(l, row) {
			// Every cell a plain decimal: no byte refused, none missing.
			pt.rows++
			clear(isMiss)
		} else {
			f, start := 0, 0
			for i, c := range l {
				switch cl[c] {
				case 0:
					continue
				case 1:
					if f == rd.fields-1 {
						return pt
					}
					cells[2*f], cells[2*f+1] = start, i
					f++
					start = i + 1
				default:
					return pt
				}
			}
			if f != rd.fields-1 {
				return pt
			}
			cells[2*f], cells[2*f+1] = start, len(l)
			pt.rows++
			anyMissing := false
			for k, c := range rd.cols {
				j := c.pos - 1
				cell := l[cells[2*j]:cells[2*j+1]]
				if len(cell) > rd.lim.field {
					return pt
				}
				cell = trimASCII(cell)
				s := unsafe.String(unsafe.SliceData(cell), len(cell))
				if rd.isMissing(s) {
					if rd.opt.Missing == MissingError {
						return pt
					}
					pt.missing[k]++
					isMiss[k], anyMissing = true, true
					continue
				}
				isMiss[k] = false
				v, class := classify(s)
				if class != classFinite {
					return pt
				}
				row[k] = v
			}
			if anyMissing && drop {
				pt.dropped = append(pt.dropped, line)
				continue
			}
		}
		r := pt.kept
		pt.kept++
		for k, v := range row {
			if isMiss[k] {
				dst[k][r] = math.NaN()
				continue
			}
			pt.observed[k]++
			if !pt.haveFirst[k] {
				pt.first[k], pt.haveFirst[k] = v, true
			} else if v != pt.first[k] {
				pt.varied[k] = true
			}
			dst[k][r] = v
		}
	}
	pt.ok = true
	return pt
}

// decimalLines reports whether readFloats may try decimalLine on every
// line: the columns are the fields, in order, and the delimiter is not a
// byte of a decimal number.
func (rd *reader) decimalLines() bool {
	if len(rd.cols) != rd.fields || strings.IndexByte("0123456789+-.eE", byte(rd.opt.Delimiter)) >= 0 {
		return false
	}
	for k, c := range rd.cols {
		if c.pos != k+1 {
			return false
		}
	}
	return true
}

// decimalLine reads line l into row when each of its fields is a plain
// decimal number (parseDecimal), within the field size limit and not a
// missing token, and reports whether it did: such a line has no byte the
// fast path refuses, no white space to trim, and the values classify
// gives its cells. On other lines it reports false, and readFloats reads
// the line field by field.
func (rd *reader) decimalLine(l []byte, row []float64) bool {
	delim := byte(rd.opt.Delimiter)
	s := unsafe.String(unsafe.SliceData(l), len(l))
	last := len(row) - 1
	for k := range row {
		v, n, ok := decimalPrefix(s)
		if !ok || n == 0 || n > rd.lim.field {
			return false
		}
		if k < last {
			if n == len(s) || s[n] != delim {
				return false
			}
		} else if n != len(s) {
			return false
		}
		if rd.tokenStart[s[0]] && rd.isMissing(s[:n]) {
			return false
		}
		row[k] = v
		if k < last {
			s = s[n+1:]
		}
	}
	return true
}
