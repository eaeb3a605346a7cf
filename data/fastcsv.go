package data

import (
	"bytes"
	"io"
	"unsafe"
)

// fastLimit is the largest input, in bytes, that ReadCSV holds whole to try
// the fast path on: small inputs are the ones whose time goes to parsing,
// and holding a large one whole would double the memory of reading it.
const fastLimit = 32 << 20

// read reads the CSV text of in: an input of at most fastLimit bytes is
// read whole and given to the fast path, and to the general path
// (readStream) if the fast path declines it; a larger one is streamed.
func (rd *reader) read(in io.Reader) (*Dataset, *ReadReport, error) {
	// The row limit applies while the input is held, so that one long row
	// is refused with memory bounded by the limit.
	buf, err := io.ReadAll(io.LimitReader(newRowLimiter(in, rd.lim.line), fastLimit+1))
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
	for ; len(rest) > 0; line++ {
		n := bytes.IndexByte(rest, '\n')
		l := rest
		if n >= 0 {
			l, rest = rest[:n], rest[n+1:]
		} else {
			rest = nil
		}
		if len(l) > rd.lim.line {
			return nil, nil, nil, false
		}
		if k := len(l); k > 0 && l[k-1] == '\r' {
			l = l[:k-1]
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
			labels := len(c.labels)
			if err := c.add(&rd.typing, s, at); err != nil || c.text || c.badLine != 0 {
				return nil, nil, nil, false
			}
			if len(c.labels) != labels {
				c.settle(&rd.typing)
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
