package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// DefaultBlockRows is the number of rows per block when
// BlockOptions.BlockRows is zero.
const DefaultBlockRows = 65536

// BlockOptions configure OpenBlocks: the ReadOptions of every input file
// (Name is ignored: errors name each file by its path) and the block size.
type BlockOptions struct {
	ReadOptions
	// BlockRows is the largest number of rows in a block; zero means
	// DefaultBlockRows, negative values are an error.
	BlockRows int
}

// BlockReader reads a dataset as a sequence of row blocks. Each block is a
// *Dataset with the same variables, in the same order and of the same
// kinds; the states of a discrete variable in a block extend those of the
// previous block (labels seen for the first time are appended), so a state
// code means the same label in every block.
type BlockReader interface {
	// Next returns the next block, or io.EOF after the last one.
	Next() (*Dataset, error)
	// Names returns the variable names, in the blocks' column order.
	Names() []string
	// Close releases the open file.
	Close() error
}

// OpenBlocks opens CSV files (plain, or gzip-compressed), Parquet files
// (each told by DetectFormat) and directories (their regular files, except
// those whose names begin with "." or "_", in lexical order) as the shards
// of one dataset, to be read in blocks of at most opt.BlockRows rows. A
// block never spans two files. Only one file is open at a time, and memory
// is bounded by the block size whatever the number of rows.
//
// Every file must have the same columns (the order may differ: the first
// file's order is the dataset's); the columns read are selected by
// opt.Columns and opt.Ignore in each. Column kinds are forced by opt or
// inferred from the first block as ReadCSV infers them from a whole file,
// and then fixed: a later value that does not fit its column's kind is a
// *ParseError. The checks ReadCSV makes of a whole file are made of the
// whole stream: the last call to Next returns the error instead of io.EOF
// if a column was constant (unless opt.KeepConstant) or never observed, or
// if no rows were read. opt.DropConstant is not supported (a column can
// only be known to be constant at the end), nor is a column whose every
// value in the first block is missing and whose kind is not forced
// continuous.
//
// Errors are *ParseError values naming the file, line and column; in a
// Parquet file the "line" is the 1-based row number. Parquet columns must
// be flat (not nested or repeated) booleans, integers, floats or strings;
// their values are read as the text a CSV file would hold (true/false,
// decimal integers, shortest round-trip floats) and a null is missing.
func OpenBlocks(paths []string, opt BlockOptions) (BlockReader, error) {
	if opt.BlockRows < 0 {
		return nil, fmt.Errorf("data: BlockRows is negative (%d)", opt.BlockRows)
	}
	if opt.BlockRows == 0 {
		opt.BlockRows = DefaultBlockRows
	}
	if opt.DropConstant {
		return nil, errors.New("data: DropConstant is not supported when reading in blocks (a column is only known to be constant at the end); use KeepConstant")
	}
	if len(paths) == 0 {
		return nil, errors.New("data: no input files")
	}
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		n := len(files)
		for _, e := range ents { // os.ReadDir sorts by name
			name := e.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || !e.Type().IsRegular() {
				continue
			}
			files = append(files, filepath.Join(p, name))
		}
		if len(files) == n {
			return nil, fmt.Errorf("data: directory %s has no data files", p)
		}
	}
	opt.Name = ""
	base, err := newReader(opt.ReadOptions)
	if err != nil {
		return nil, err
	}
	br := &blockReader{opt: opt, base: base, files: files, fi: -1}
	if err := br.openNext(); err != nil {
		br.Close()
		return nil, err
	}
	return br, nil
}

// rowSource reads the rows of one file.
type rowSource interface {
	// header returns the file's column names.
	header() []string
	// next reads the next row; it returns io.EOF at the end.
	next() error
	// cell returns field j of the current row, cleaned (trimmed, valid
	// UTF-8): valid until the next call to next.
	cell(j int) (string, error)
	// line returns the line (CSV) or row (Parquet) of field j of the
	// current row.
	line(j int) int
	close() error
}

// bcol is one column of a block reader.
type bcol struct {
	name   string
	field  int // 0-based field of the column in the current file
	forced bool
	kind   Kind
	fixed  bool // kind decided (after the first block)

	labels []string
	values []float64
	index  map[string]uint16
	text   bool

	badLine  int
	badValue string
	badClass valueClass

	codes  []uint16
	floats []float64
	float  bool // storing floats (continuous, or switched in the first block)

	pq pqCache // codes of the Parquet values seen, by value

	// Over the whole stream.
	observed  int64
	first     float64
	haveFirst bool
	varied    bool
}

type blockReader struct {
	opt    BlockOptions
	base   *reader
	files  []string
	fi     int
	name   string // current file
	src    rowSource
	cols   []*bcol
	names  []string
	rows   int64 // data rows read, including dropped ones
	kept   int64
	miss   []bool
	pqRow  pqCells
	done   bool
	closed bool
}

// Names returns the variable names in column order.
func (b *blockReader) Names() []string { return slices.Clone(b.names) }

// Close closes the open file, if any.
func (b *blockReader) Close() error {
	b.closed = true
	if b.src == nil {
		return nil
	}
	err := b.src.close()
	b.src = nil
	return err
}

func (b *blockReader) errorf(line int, c *bcol, format string, args ...any) *ParseError {
	e := &ParseError{File: b.name, Line: line, Err: fmt.Errorf(format, args...)}
	if c != nil {
		e.Column = c.field + 1
		e.ColumnName = c.name
	}
	return e
}

// openNext closes the current file and opens the next one, checking its
// columns; it sets src to nil when there are no more files.
func (b *blockReader) openNext() error {
	if b.src != nil {
		err := b.src.close()
		b.src = nil
		if err != nil {
			return &ParseError{File: b.name, Err: err}
		}
	}
	b.fi++
	if b.fi >= len(b.files) {
		return nil
	}
	b.name = b.files[b.fi]
	src, err := openSource(b.name, b.base.opt)
	if err != nil {
		return err
	}
	b.src = src
	// Select the columns as ReadCSV would, from a header made of the names.
	rd, err := newReader(b.opt.ReadOptions)
	if err != nil {
		return err
	}
	rd.name = b.name
	var hb bytes.Buffer
	w := csv.NewWriter(&hb)
	if err := w.Write(src.header()); err != nil {
		return &ParseError{File: b.name, Err: err}
	}
	w.Flush()
	rd.cr = csv.NewReader(&hb)
	rd.cr.FieldsPerRecord = -1
	if err := rd.readHeader(); err != nil {
		return err
	}
	if b.cols == nil {
		for _, c := range rd.cols {
			b.cols = append(b.cols, &bcol{name: c.name, field: c.pos - 1, forced: c.forced, kind: c.kind})
			b.names = append(b.names, c.name)
		}
		b.miss = make([]bool, len(b.cols))
		b.useFields()
		return nil
	}
	pos := make(map[string]int, len(rd.cols))
	for _, c := range rd.cols {
		pos[c.name] = c.pos - 1
	}
	var only, lacks []string
	for _, c := range b.cols {
		if _, ok := pos[c.name]; !ok {
			lacks = append(lacks, c.name)
		}
	}
	for _, c := range rd.cols {
		if !slices.Contains(b.names, c.name) {
			only = append(only, c.name)
		}
	}
	if len(only) > 0 || len(lacks) > 0 {
		var why []string
		if len(lacks) > 0 {
			why = append(why, fmt.Sprintf("%s has no column %s", b.name, quoteNames(lacks, 12)))
		}
		if len(only) > 0 {
			why = append(why, fmt.Sprintf("only %s has column %s", b.name, quoteNames(only, 12)))
		}
		return &ParseError{File: b.name, Err: fmt.Errorf("columns differ from those of %s: %s", b.files[0], strings.Join(why, "; "))}
	}
	for _, c := range b.cols {
		c.field = pos[c.name]
	}
	b.useFields()
	return nil
}

// useFields tells a Parquet source which columns are read.
func (b *blockReader) useFields() {
	if ps, ok := b.src.(*parquetSource); ok {
		fields := make([]int, len(b.cols))
		for k, c := range b.cols {
			fields[k] = c.field
		}
		ps.use(fields)
	}
}

// Next reads the next block.
func (b *blockReader) Next() (*Dataset, error) {
	if b.closed {
		return nil, errors.New("data: Next on a closed BlockReader")
	}
	for !b.done {
		if b.src == nil {
			b.done = true
			break
		}
		n, err := b.readBlock()
		if err != nil {
			b.done = true
			return nil, err
		}
		if n > 0 {
			return b.build(n)
		}
		if err := b.openNext(); err != nil {
			b.done = true
			return nil, err
		}
	}
	b.Close()
	if err := b.finish(); err != nil {
		return nil, err
	}
	return nil, io.EOF
}

// finish makes the checks of the whole stream.
func (b *blockReader) finish() error {
	b.name = strings.Join(b.files, ", ")
	if len(b.files) > 3 {
		b.name = fmt.Sprintf("%s, … (%d files)", strings.Join(b.files[:3], ", "), len(b.files))
	}
	if b.rows == 0 {
		return b.errorf(0, nil, "no data rows")
	}
	if b.kept == 0 {
		return b.errorf(0, nil, "all %d rows have a missing cell; no rows left after dropping them", b.rows)
	}
	for _, c := range b.cols {
		e := &ParseError{File: b.name, ColumnName: c.name}
		if c.observed == 0 {
			e.Err = fmt.Errorf("all %d values are missing (skip the column with --ignore)", b.kept)
			return e
		}
		if b.opt.KeepConstant {
			continue
		}
		val := ""
		switch {
		case c.kind == Discrete && len(c.labels) == 1:
			val = c.labels[0]
		case c.kind == Continuous && !c.varied:
			val = strconv.FormatFloat(c.first, 'g', -1, 64)
		default:
			continue
		}
		e.Err = fmt.Errorf("constant column: every observed value is %s (remove the column, or keep it with KeepConstant)", QuoteCell(val))
		return e
	}
	return nil
}

// readBlock reads up to BlockRows rows of the current file into the
// columns' buffers and returns the number kept.
func (b *blockReader) readBlock() (int, error) {
	for _, c := range b.cols {
		c.codes, c.floats = c.codes[:0], c.floats[:0]
	}
	if ps, ok := b.src.(*parquetSource); ok {
		return b.readBlockParquet(ps)
	}
	rd := b.base
	n := 0
	cells := make([]string, len(b.cols))
	for n < b.opt.BlockRows {
		err := b.src.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
		b.rows++
		anyMissing := false
		for k, c := range b.cols {
			s, err := b.src.cell(c.field)
			if err != nil {
				return 0, err
			}
			cells[k] = s
			m := rd.isMissing(s)
			b.miss[k] = m
			if m {
				if rd.opt.Missing == MissingError {
					what := "empty cell"
					if s != "" {
						what = QuoteCell(s)
					}
					return 0, b.errorf(b.src.line(c.field), c,
						"missing value (%s); use --missing drop-rows to drop rows with missing cells or --missing keep to keep them", what)
				}
				anyMissing = true
			}
		}
		if anyMissing && rd.opt.Missing == MissingDropRows {
			continue
		}
		for k, c := range b.cols {
			if b.miss[k] {
				if c.float {
					c.floats = append(c.floats, math.NaN())
				} else {
					c.codes = append(c.codes, Missing)
				}
				continue
			}
			if err := b.add(c, cells[k]); err != nil {
				return 0, err
			}
		}
		n++
	}
	b.kept += int64(n)
	return n, nil
}

// add appends the non-missing value s to c.
func (b *blockReader) add(c *bcol, s string) error {
	c.observed++
	if c.float {
		f, class := classify(s)
		if class != classFinite {
			return b.numberError(c, s, class)
		}
		if !c.haveFirst {
			c.first, c.haveFirst = f, true
		} else if f != c.first {
			c.varied = true
		}
		c.floats = append(c.floats, f)
		return nil
	}
	if code, ok := c.lookup(s); ok {
		c.codes = append(c.codes, code)
		return nil
	}
	f, class := classify(s)
	if !c.fixed && class != classFinite {
		if c.forced && c.kind == Continuous {
			return b.numberError(c, s, class)
		}
		if class == classText {
			c.text = true
		} else if c.badLine == 0 {
			c.badLine, c.badValue, c.badClass = b.src.line(c.field), strings.Clone(s), class
		}
	}
	n := len(c.labels)
	if !c.fixed && n >= b.base.switchAt && !c.text && c.badLine == 0 && !(c.forced && c.kind == Discrete) {
		c.toFloat()
		c.observed--
		return b.add(c, s)
	}
	if n >= MaxStates {
		return b.errorf(b.src.line(c.field), c, "more than %d distinct values, the most a discrete column can have", MaxStates)
	}
	s = strings.Clone(s)
	c.labels = append(c.labels, s)
	c.values = append(c.values, f)
	code := uint16(n)
	if c.index != nil {
		c.index[s] = code
	} else if len(c.labels) > linearLookup {
		c.index = make(map[string]uint16, 2*len(c.labels))
		for k, l := range c.labels {
			c.index[l] = uint16(k)
		}
	}
	c.codes = append(c.codes, code)
	return nil
}

func (c *bcol) lookup(s string) (uint16, bool) {
	if c.index == nil {
		for k, l := range c.labels {
			if l == s {
				return uint16(k), true
			}
		}
		return 0, false
	}
	k, ok := c.index[s]
	return k, ok
}

// toFloat switches a column of the first block to storing floats.
func (c *bcol) toFloat() {
	for _, code := range c.codes {
		if code == Missing {
			c.floats = append(c.floats, math.NaN())
			continue
		}
		v := c.values[code]
		c.floats = append(c.floats, v)
		if !c.haveFirst {
			c.first, c.haveFirst = v, true
		} else if v != c.first {
			c.varied = true
		}
	}
	c.codes, c.labels, c.values, c.index = c.codes[:0], nil, nil, nil
	c.float = true
	c.pq = pqCache{}
}

func (b *blockReader) numberError(c *bcol, s string, class valueClass) *ParseError {
	line := b.src.line(c.field)
	switch class {
	case classText:
		why := "in a column forced continuous"
		if !c.forced {
			why = "in a column found continuous in the first block (force the column discrete, or list the value as a missing token)"
		}
		return b.errorf(line, c, "non-numeric value %s %s", QuoteCell(s), why)
	case classInfinite:
		return b.errorf(line, c, "infinite value %s in a numeric column", QuoteCell(s))
	}
	return b.errorf(line, c, "not-a-number value %s in a numeric column (list it as a missing token to treat it as missing)", QuoteCell(s))
}

// fix decides the kinds of the columns after the first block and sorts the
// states found in it as ReadCSV would.
func (b *blockReader) fix() error {
	for _, c := range b.cols {
		var kind Kind
		switch {
		case c.float:
			kind = Continuous
		case c.forced:
			kind = c.kind
		case len(c.labels) == 0:
			return b.errorf(0, c, "every value of the first block is missing: the column's kind cannot be inferred (force it continuous, or read larger blocks)")
		case c.text:
			kind = Discrete
		case c.badLine != 0:
			return b.errorf(c.badLine, c, "%s", b.numberErrorAt(c).Err)
		case len(c.labels) > b.base.maxDisc:
			kind = Continuous
		}
		c.kind, c.fixed = kind, true
		if kind == Continuous && !c.float {
			for _, code := range c.codes {
				v := math.NaN()
				if code != Missing {
					v = c.values[code]
					if !c.haveFirst {
						c.first, c.haveFirst = v, true
					} else if v != c.first {
						c.varied = true
					}
				}
				c.floats = append(c.floats, v)
			}
			c.codes, c.labels, c.values, c.index = nil, nil, nil, nil
			c.float = true
			c.pq = pqCache{}
			continue
		}
		if kind == Discrete && len(c.labels) == 0 {
			return b.errorf(0, c, "every value of the first block is missing: the column's states cannot be known (read larger blocks)")
		}
		if kind == Discrete {
			order := make([]int, len(c.labels))
			for k := range order {
				order[k] = k
			}
			sortLabels(order, c.labels, c.values)
			recode := make([]uint16, len(order))
			labels := make([]string, len(order))
			values := make([]float64, len(order))
			for rank, k := range order {
				labels[rank], values[rank] = c.labels[k], c.values[k]
				recode[k] = uint16(rank)
			}
			c.labels, c.values = labels, values
			for i, code := range c.codes {
				if code != Missing {
					c.codes[i] = recode[code]
				}
			}
			c.pq.recode(recode)
			if c.index != nil {
				for k, l := range c.labels {
					c.index[l] = uint16(k)
				}
			}
		}
	}
	return nil
}

func (b *blockReader) numberErrorAt(c *bcol) *ParseError {
	switch c.badClass {
	case classInfinite:
		return b.errorf(c.badLine, c, "infinite value %s in a numeric column", QuoteCell(c.badValue))
	}
	return b.errorf(c.badLine, c, "not-a-number value %s in a numeric column (list it as a missing token to treat it as missing)", QuoteCell(c.badValue))
}

// build returns the block of n rows held by the columns' buffers.
func (b *blockReader) build(n int) (*Dataset, error) {
	if !b.cols[0].fixed {
		if err := b.fix(); err != nil {
			return nil, err
		}
	}
	vars := make([]Variable, len(b.cols))
	for j, c := range b.cols {
		vars[j] = Variable{Name: c.name, Kind: c.kind, States: c.labels}
	}
	d, err := New(vars, 0)
	if err != nil {
		return nil, &ParseError{File: b.name, Err: err}
	}
	d.rows = n
	for j, c := range b.cols {
		if c.kind == Discrete {
			d.disc[j] = slices.Clone(c.codes)
		} else {
			d.cont[j] = slices.Clone(c.floats)
		}
	}
	return d, nil
}

// sortLabels orders the indices of labels as ReadCSV orders states:
// numerically when every value is a number (ties by label), else by label.
func sortLabels(order []int, labels []string, values []float64) {
	numeric := true
	for _, k := range order {
		if math.IsNaN(values[k]) {
			numeric = false
		}
	}
	slices.SortFunc(order, func(a, b int) int {
		if numeric {
			if x, y := values[a], values[b]; x != y {
				if x < y {
					return -1
				}
				return 1
			}
		}
		return strings.Compare(labels[a], labels[b])
	})
}

// SortStates sorts state labels in place in the order ReadCSV gives the
// states of a discrete column: numerically when every label is a number
// (ties, such as "1" and "1.0", by label), lexicographically otherwise.
func SortStates(labels []string) {
	order := make([]int, len(labels))
	values := make([]float64, len(labels))
	for k, l := range labels {
		order[k] = k
		values[k], _ = classify(l)
	}
	sortLabels(order, labels, values)
	sorted := make([]string, len(labels))
	for rank, k := range order {
		sorted[rank] = labels[k]
	}
	copy(labels, sorted)
}

// openSource opens one input file by its format (fileFormat).
func openSource(path string, opt ReadOptions) (rowSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var magic [4]byte
	m, _ := io.ReadFull(f, magic[:])
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, &ParseError{File: path, Err: err}
	}
	switch fileFormat(magic[:m], path) {
	case Parquet:
		src, err := openParquet(path, f)
		if err != nil {
			f.Close()
			return nil, err
		}
		return src, nil
	case GzipCSV:
		zr, err := gzip.NewReader(bufio.NewReaderSize(f, 64<<10))
		if err != nil {
			f.Close()
			return nil, &ParseError{File: path, Err: fmt.Errorf("not a valid gzip file: %w", err)}
		}
		src, err := openCSV(path, strings.TrimSuffix(path, filepath.Ext(path)), zr, opt, func() error { zr.Close(); return f.Close() })
		if err != nil {
			zr.Close()
			f.Close()
		}
		return src, err
	}
	src, err := openCSV(path, path, f, opt, f.Close)
	if err != nil {
		f.Close()
	}
	return src, err
}

// csvSource reads the rows of a CSV file.
type csvSource struct {
	rd     *reader
	names  []string
	rec    []string
	closer func() error
}

// openCSV reads the header of a CSV stream; extName is the name whose
// extension may select the tab delimiter.
func openCSV(name, extName string, in io.Reader, opt ReadOptions, closer func() error) (*csvSource, error) {
	opt.Name = extName
	rd, err := newReader(opt)
	if err != nil {
		return nil, err
	}
	rd.name = name
	br := bufio.NewReaderSize(in, 64<<10)
	if b, err := br.Peek(3); err == nil && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		if _, err := br.Discard(3); err != nil {
			return nil, rd.csvError(err)
		}
	}
	if rd.opt.Delimiter == 0 {
		rd.opt.Delimiter = detectDelimiter(extName, br)
	}
	cr := csv.NewReader(br)
	cr.Comma = rd.opt.Delimiter
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	rd.cr = cr
	header, err := cr.Read()
	if err == io.EOF {
		return nil, rd.errorf(0, nil, "empty input: no header line")
	}
	if err != nil {
		return nil, rd.csvError(err)
	}
	names := make([]string, len(header))
	for j, h := range header {
		s, ok := cleanField(h)
		if !ok {
			return nil, rd.errorf(rd.fieldLine(j), nil, "invalid UTF-8 in header name")
		}
		names[j] = strings.Clone(s)
	}
	return &csvSource{rd: rd, names: names, closer: closer}, nil
}

func (s *csvSource) header() []string { return s.names }

func (s *csvSource) next() error {
	rec, err := s.rd.cr.Read()
	if err == io.EOF {
		return err
	}
	if err != nil {
		return s.rd.csvError(err)
	}
	if len(rec) != len(s.names) {
		return s.rd.errorf(s.rd.fieldLine(0), nil, "row has %d fields, but the header has %d", len(rec), len(s.names))
	}
	s.rec = rec
	return nil
}

func (s *csvSource) cell(j int) (string, error) {
	v, ok := cleanField(s.rec[j])
	if !ok {
		return "", &ParseError{File: s.rd.name, Line: s.rd.fieldLine(j), Column: j + 1, ColumnName: s.names[j], Err: errors.New("invalid UTF-8")}
	}
	return v, nil
}

func (s *csvSource) line(j int) int { return s.rd.fieldLine(j) }

func (s *csvSource) close() error { return s.closer() }
