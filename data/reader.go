package data

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ReadCSVFile reads a CSV file with ReadCSV, using path as the input's name
// in error messages unless opt.Name is set. A gzip-compressed file (detected
// by its magic bytes, whatever its name) is decompressed as it is read; its
// name without its last extension (x.tsv for x.tsv.gz) is the one whose
// extension may select the tab delimiter, as in OpenBlocks, so that a file
// and its gzip read alike.
func ReadCSVFile(path string, opt ReadOptions) (*Dataset, *ReadReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if opt.Name == "" {
		opt.Name = path
	}
	return ReadCSV(f, opt)
}

// ReadCSV reads a dataset from CSV text: a header line of unique, non-empty
// column names followed by data rows with as many fields. Cells are
// trimmed of white space; a leading UTF-8 byte order mark is skipped and
// CRLF line ends are accepted. Column kinds are forced by opt or inferred
// (see ReadOptions.MaxDiscreteStates). The states of a discrete column are
// its distinct observed values, ordered numerically when every label is a
// number and lexicographically otherwise.
//
// Text compressed with gzip (told by its first bytes, so also on standard
// input) is decompressed as it is read; the name without its last
// extension (x.tsv for x.tsv.gz) is the one whose extension may select the
// tab delimiter. Parquet data (told by "PAR1") is an error: a Parquet file
// is read from its end, so it must be given by its path (OpenBlocks).
//
// The input is read as a stream: each column keeps its distinct values and
// a 16-bit code per cell, so a discrete dataset takes about 2 bytes per cell
// while reading. A column whose values are all numeric switches to storing
// float64 values once it has more than max(1024, MaxDiscreteStates)
// distinct values; a non-numeric value appearing after that point is an
// error (force the column discrete, or list the value as a missing token).
//
// Bad input yields a *ParseError naming the input, line and column.
func ReadCSV(r io.Reader, opt ReadOptions) (*Dataset, *ReadReport, error) {
	if w := opt.Weights; w != "" {
		if slices.Contains(opt.Ignore, w) {
			name := opt.Name
			if name == "" {
				name = "<input>"
			}
			return nil, nil, &ParseError{File: name, ColumnName: w, Err: errors.New("the weight column is also ignored")}
		}
		if len(opt.Columns) > 0 && !slices.Contains(opt.Columns, w) {
			opt.Columns = append(slices.Clip(opt.Columns), w)
		}
	}
	rd, err := newReader(opt)
	if err != nil {
		return nil, nil, err
	}
	// A regular file's size, or the length of an input in memory
	// (bytes.Reader, strings.Reader, bytes.Buffer), sizes the buffer the
	// fast path reads it into.
	size := 0
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = int(min(fi.Size(), fastLimit))
		}
	} else if b, ok := r.(interface{ Len() int }); ok {
		size = min(b.Len(), fastLimit)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	magic, _ := br.Peek(4)
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, &ParseError{File: rd.name, Err: fmt.Errorf("not a valid gzip file: %w", err)}
		}
		defer zr.Close()
		rd.delimName = strings.TrimSuffix(rd.name, filepath.Ext(rd.name))
		return rd.read(zr, 0)
	case string(magic) == "PAR1":
		return nil, nil, &ParseError{File: rd.name, Err: errors.New("Parquet data, not CSV: a Parquet file is read from its end, so give it by its path, not on standard input")}
	}
	return rd.read(br, size)
}

type reader struct {
	typing
	opt        ReadOptions
	lim        limits
	delimName  string // the name whose extension may select the tab delimiter
	tokens     []string
	tokenStart [256]bool // first bytes of the tokens
	cr         *csv.Reader
	cols       []*column // the columns read, in dataset order
	fields     int       // fields in the header
	skipped    []string  // header columns not read
}

func newReader(opt ReadOptions) (*reader, error) {
	if c := opt.Delimiter; c != 0 && (c == '"' || c == '\r' || c == '\n' || c == utf8.RuneError || !utf8.ValidRune(c)) {
		return nil, fmt.Errorf("data: invalid field delimiter %q", c)
	}
	t, err := newTyping(opt)
	if err != nil {
		return nil, err
	}
	lim, err := newLimits(opt)
	if err != nil {
		return nil, err
	}
	rd := &reader{typing: t, opt: opt, lim: lim, delimName: t.name}
	if opt.Missing > MissingKeep {
		return nil, fmt.Errorf("data: unknown missing-value policy %d", uint8(opt.Missing))
	}
	toks := opt.MissingTokens
	if toks == nil {
		toks = DefaultMissingTokens()
	}
	for _, t := range toks {
		t = strings.TrimSpace(t)
		if t != "" && !slices.Contains(rd.tokens, t) {
			rd.tokens = append(rd.tokens, t)
			rd.tokenStart[t[0]] = true
		}
	}
	return rd, nil
}

func (rd *reader) isMissing(s string) bool {
	if len(s) == 0 {
		return true // an empty cell is always missing
	}
	if !rd.tokenStart[s[0]] {
		return false
	}
	for _, t := range rd.tokens {
		if len(t) == len(s) && t == s {
			return true
		}
	}
	return false
}

// line returns the line on which field j of the current record starts.
func (rd *reader) line(j int) int {
	line, _ := rd.cr.FieldPos(j)
	return line
}

// csvError translates an error from encoding/csv.
func (rd *reader) csvError(err error) error {
	var long *lineTooLong
	if errors.As(err, &long) {
		return rd.errorf(long.Line, nil, "%v", long)
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		hint := ""
		switch {
		case errors.Is(pe.Err, csv.ErrBareQuote):
			hint = ` (a field containing " must be enclosed in quotes, with each inner " doubled)`
		case errors.Is(pe.Err, csv.ErrQuote):
			hint = ` (a quoted field must end with " followed by a delimiter or the end of the line)`
		}
		where := ""
		if pe.StartLine != pe.Line && pe.StartLine > 0 {
			where = fmt.Sprintf(" in the row starting on line %d", pe.StartLine)
		}
		return rd.errorf(pe.Line, nil, "malformed CSV at byte %d of the line%s: %v%s", pe.Column, where, pe.Err, hint)
	}
	return rd.errorf(0, nil, "read error: %w", err)
}

// cleanField checks and normalises one raw field: valid UTF-8 without NUL
// bytes, CRLF inside quoted fields turned into LF, white space trimmed.
func cleanField(f string) (string, error) {
	if strings.IndexByte(f, 0) >= 0 {
		return "", errNUL
	}
	cr := false
	for i := 0; i < len(f); i++ {
		b := f[i]
		if b >= utf8.RuneSelf {
			if !utf8.ValidString(f[i:]) {
				return "", errInvalidUTF8
			}
			cr = cr || strings.IndexByte(f[i:], '\r') >= 0
			break
		}
		if b == '\r' {
			cr = true
		}
	}
	for cr && strings.Contains(f, "\r\n") {
		f = strings.ReplaceAll(f, "\r\n", "\n")
	}
	if n := len(f); n > 0 && f[0] > ' ' && f[0] < utf8.RuneSelf && f[n-1] > ' ' && f[n-1] < utf8.RuneSelf {
		return f, nil
	}
	return strings.TrimSpace(f), nil
}

// cleanCell checks the length of field j of the current record, raw, and
// cleans it (cleanField); name is the column's, for errors.
func (rd *reader) cleanCell(raw string, j int, name string) (string, error) {
	if len(raw) > rd.lim.field {
		return "", &ParseError{File: rd.name, Line: rd.line(j), Column: j + 1, ColumnName: name, Err: rd.lim.fieldError(len(raw))}
	}
	s, err := cleanField(raw)
	if err != nil {
		return "", &ParseError{File: rd.name, Line: rd.line(j), Column: j + 1, ColumnName: name, Err: err}
	}
	return s, nil
}

// start begins reading CSV text from in: it skips a byte order mark,
// detects the delimiter if the options leave it zero, checks that the
// header is not one column holding another delimiter, and makes the CSV
// reader.
func (rd *reader) start(in io.Reader) error {
	br := bufio.NewReaderSize(newRowLimiter(in, rd.lim.line), 64<<10)
	if b, err := br.Peek(3); err == nil && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		if _, err := br.Discard(3); err != nil {
			return rd.csvError(err)
		}
	}
	h := scanHeader(br, rd.opt.Delimiter)
	if rd.opt.Delimiter == 0 {
		rd.opt.Delimiter = detectDelimiter(rd.delimName, h)
	}
	if err := rd.singleColumnError(rd.opt.Delimiter, h); err != nil {
		return err
	}
	cr := csv.NewReader(br)
	cr.Comma = rd.opt.Delimiter
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	rd.cr = cr
	return nil
}

// dropped counts a row dropped for a missing cell, starting on the given
// line.
func (r *ReadReport) dropped(line int) {
	r.RowsDropped++
	if len(r.DroppedLines) < MaxReportedLines {
		r.DroppedLines = append(r.DroppedLines, line)
	}
}

// readStream is the general path of ReadCSV: it reads CSV text as a
// stream through encoding/csv.
func (rd *reader) readStream(in io.Reader) (*Dataset, *ReadReport, error) {
	if err := rd.start(in); err != nil {
		return nil, nil, err
	}
	cr := rd.cr
	if err := rd.readHeader(); err != nil {
		return nil, nil, err
	}
	nfield := rd.fields
	rep := &ReadReport{Delimiter: rd.opt.Delimiter, Skipped: rd.skipped}
	isMiss := make([]bool, len(rd.cols))
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, rd.csvError(err)
		}
		line := rd.line(0)
		if len(rec) != nfield {
			return nil, nil, rd.errorf(line, nil, "row has %d fields, but the header has %d", len(rec), nfield)
		}
		rep.Rows++
		anyMissing := false
		for k, c := range rd.cols {
			j := c.pos - 1
			s, err := rd.cleanCell(rec[j], j, c.name)
			if err != nil {
				return nil, nil, err
			}
			rec[j] = s
			m := rd.isMissing(s)
			isMiss[k] = m
			if m {
				if rd.opt.Missing == MissingError {
					return nil, nil, rd.missingError(rd.line(j), c, s)
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
			if err := c.add(&rd.typing, rec[c.pos-1], rd); err != nil {
				return nil, nil, err
			}
		}
	}
	return rd.finish(rep)
}

// readHeader reads the header line and selects the columns to read.
func (rd *reader) readHeader() error {
	header, err := rd.cr.Read()
	if err == io.EOF {
		return rd.errorf(0, nil, "empty input: no header line")
	}
	if err != nil {
		return rd.csvError(err)
	}
	return rd.selectColumns(header, rd)
}

// selectColumns checks the names of a header, uncleaned, and makes the
// columns to read (rd.cols) as the options select and force them; at gives
// the line of each name.
func (rd *reader) selectColumns(header []string, at liner) error {
	if len(header) == 0 { // a Parquet file without columns
		return rd.errorf(0, nil, "empty input: no header line")
	}
	rd.fields = len(header)
	h := cleanHeader(header)
	hline := at.line(0)
	read, err := rd.columnsToRead(h, hline)
	if err != nil {
		return err
	}
	seen, err := rd.makeColumns(h, read, at)
	if err != nil {
		return err
	}
	if err := rd.forceKind(h, seen, rd.opt.Discrete, Discrete); err != nil {
		return err
	}
	return rd.forceKind(h, seen, rd.opt.Continuous, Continuous)
}

// headerNames are the cleaned names of a header line.
type headerNames struct {
	names []string         // cleaned name of each field ("" when bad)
	bad   []error          // why a field's name is unusable, or nil
	where map[string][]int // name -> 0-based fields
}

// cleanHeader cleans every name of a header; a bad name is an error only
// if its column is read.
func cleanHeader(header []string) headerNames {
	h := headerNames{
		names: make([]string, len(header)),
		bad:   make([]error, len(header)),
		where: make(map[string][]int, len(header)),
	}
	for j, f := range header {
		s, err := cleanField(f)
		switch {
		case err != nil:
			h.bad[j] = fmt.Errorf("header name: %w", err)
		case s == "":
			h.bad[j] = errors.New("empty header name")
		default:
			s = strings.Clone(s)
			h.names[j] = s
			h.where[s] = append(h.where[s], j)
		}
	}
	return h
}

// describe lists the header's usable names for messages.
func (h headerNames) describe() string {
	var named []string
	for _, n := range h.names {
		if n != "" {
			named = append(named, n)
		}
	}
	return fmt.Sprintf("the header has %d columns: %s", len(h.names), quoteNames(named, 12))
}

// unknown is an error naming the listed columns that are not in the
// header, or nil.
func (rd *reader) unknown(h headerNames, hline int, what string, list []string) error {
	var unknown []string
	for _, n := range list {
		if _, ok := h.where[n]; !ok && !slices.Contains(unknown, n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	return &ParseError{File: rd.name, Line: hline,
		Err: fmt.Errorf("%s not in the header: %s (%s)", what, quoteNames(unknown, 12), h.describe())}
}

// trimNames returns the names of list with surrounding space removed.
func trimNames(list []string) []string {
	out := make([]string, len(list))
	for i, n := range list {
		out[i] = strings.TrimSpace(n)
	}
	return out
}

// columnsToRead applies Columns and Ignore: the 0-based fields read, in
// dataset order. Fields not read are listed in rd.skipped.
func (rd *reader) columnsToRead(h headerNames, hline int) ([]int, error) {
	ignore := trimNames(rd.opt.Ignore)
	columns := trimNames(rd.opt.Columns)
	if err := rd.unknown(h, hline, "columns to ignore are", ignore); err != nil {
		return nil, err
	}
	if err := rd.unknown(h, hline, "selected columns are", columns); err != nil {
		return nil, err
	}
	var read []int
	if len(columns) > 0 {
		for i, n := range columns {
			if slices.Contains(columns[:i], n) {
				return nil, &ParseError{File: rd.name, Line: hline, ColumnName: n, Err: errors.New("column selected twice")}
			}
			if slices.Contains(ignore, n) {
				return nil, &ParseError{File: rd.name, Line: hline, ColumnName: n, Err: errors.New("column both selected and ignored")}
			}
			read = append(read, h.where[n]...)
		}
	} else {
		for j, n := range h.names {
			if h.bad[j] != nil || !slices.Contains(ignore, n) {
				read = append(read, j)
			}
		}
	}
	if len(read) == 0 {
		return nil, &ParseError{File: rd.name, Line: hline, Err: fmt.Errorf("no columns left to read: every column is ignored (%s)", h.describe())}
	}
	isRead := make([]bool, len(h.names))
	for _, j := range read {
		isRead[j] = true
	}
	for j, n := range h.names {
		if !isRead[j] {
			if n == "" {
				n = "#" + strconv.Itoa(j+1)
			}
			rd.skipped = append(rd.skipped, n)
		}
	}
	return read, nil
}

// makeColumns makes rd.cols for the fields read, rejecting bad and
// duplicate names; it returns the index in rd.cols of each name.
func (rd *reader) makeColumns(h headerNames, read []int, at liner) (map[string]int, error) {
	seen := make(map[string]int, len(read))
	rd.cols = make([]*column, 0, len(read))
	for _, j := range read {
		line := at.line(j)
		if h.bad[j] != nil {
			return nil, &ParseError{File: rd.name, Line: line, Column: j + 1, Err: h.bad[j]}
		}
		s := h.names[j]
		if k, dup := seen[s]; dup {
			return nil, &ParseError{File: rd.name, Line: line, Column: j + 1, ColumnName: s,
				Err: fmt.Errorf("duplicate header name (columns %d and %d)", rd.cols[k].pos, j+1)}
		}
		seen[s] = len(rd.cols)
		rd.cols = append(rd.cols, &column{name: s, pos: j + 1})
	}
	return seen, nil
}

// forceKind forces the named columns (Discrete or Continuous options) to
// kind.
func (rd *reader) forceKind(h headerNames, seen map[string]int, names []string, kind Kind) error {
	var unknown, skipped []string
	for _, n := range names {
		k, ok := seen[n]
		if !ok {
			list := &unknown
			if _, inHeader := h.where[n]; inHeader {
				list = &skipped
			}
			if !slices.Contains(*list, n) {
				*list = append(*list, n)
			}
			continue
		}
		c := rd.cols[k]
		if c.forced && c.kind != kind {
			return &ParseError{File: rd.name, Column: c.pos, ColumnName: n,
				Err: errors.New("column is forced both discrete and continuous")}
		}
		c.forced, c.kind = true, kind
	}
	if len(unknown) > 0 {
		return &ParseError{File: rd.name,
			Err: fmt.Errorf("columns forced %s are not in the header: %s (%s)", kind, quoteNames(unknown, 12), h.describe())}
	}
	if len(skipped) > 0 {
		return &ParseError{File: rd.name,
			Err: fmt.Errorf("columns forced %s are not read (not selected, or ignored): %s", kind, quoteNames(skipped, 12))}
	}
	return nil
}

// delimiters are the field delimiters that detection tells apart, in
// order of precedence.
var delimiters = [...]rune{',', '\t', ';', '|'}

// headerScan counts the field delimiters on the header line, outside
// quotes.
type headerScan struct {
	line   int                  // the header's line: 1 plus the empty lines before it
	counts [len(delimiters)]int // of each of delimiters
	given  int                  // of the given delimiter, if not one of delimiters
}

// count returns the number of times c is on the header line; given is
// the delimiter the scan was made for.
func (h *headerScan) count(c, given rune) int {
	if i := slices.Index(delimiters[:], c); i >= 0 {
		return h.counts[i]
	}
	if c == given {
		return h.given
	}
	return 0
}

// scanHeader counts the delimiters (and given, if not zero) outside quotes
// on the header line: the first line that is not empty, as encoding/csv
// skips empty lines. It reads ahead only as far as the end of that line
// (at most the buffer's size), so a slow stream is not waited on for
// more.
func scanHeader(br *bufio.Reader, given rune) headerScan {
	var h headerScan
	for n := 1; n <= br.Size(); {
		_, err := br.Peek(n)
		b, _ := br.Peek(br.Buffered())
		var complete bool
		h, complete = scanHeaderLine(b, given)
		if complete || err != nil {
			break
		}
		n = len(b) + 1
	}
	return h
}

// scanHeaderLine scans the first non-empty line of b (see scanHeader) and
// reports whether b holds the whole line.
func scanHeaderLine(b []byte, given rune) (h headerScan, complete bool) {
	h.line = 1
	for len(b) > 0 && (b[0] == '\n' || b[0] == '\r' && len(b) > 1 && b[1] == '\n') {
		if b[0] == '\r' {
			b = b[1:]
		}
		b = b[1:]
		h.line++
	}
	quoted := false
	for i := 0; i < len(b); {
		c, size := rune(b[i]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRune(b[i:])
		}
		i += size
		switch {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '\n':
			return h, true
		default:
			if k := slices.Index(delimiters[:], c); k >= 0 {
				h.counts[k]++
			} else if c == given {
				h.given++
			}
		}
	}
	return h, false
}

// detectDelimiter returns the delimiter of a file whose options leave it
// zero, from its name and the scan of its header line. A name ending in
// ".tsv" or ".tab" means a tab, unless the header has no tab and exactly
// one other of the delimiters. Otherwise the header decides: a comma if it
// has one, else a tab if it has one, else ';' or '|' if it has one of them
// and not the other, else a comma.
func detectDelimiter(name string, h headerScan) rune {
	var present []rune
	for _, c := range delimiters {
		if h.count(c, 0) > 0 {
			present = append(present, c)
		}
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".tsv", ".tab":
		if len(present) == 1 {
			return present[0]
		}
		return '\t'
	}
	switch {
	case len(present) == 0:
		return ','
	case present[0] == ',' || present[0] == '\t':
		return present[0]
	case len(present) == 1: // ';' or '|'
		return present[0]
	}
	return ','
}

// singleColumnError is the error for a header line that, split at delim,
// is a single column although it holds other delimiters outside quotes: a
// file with another delimiter than the one given (or detected, when the
// header has several). It is nil when the header splits, or has no other
// delimiter.
func (rd *reader) singleColumnError(delim rune, h headerScan) error {
	if h.count(delim, delim) > 0 {
		return nil
	}
	var others []rune
	for _, c := range delimiters {
		if c != delim && h.count(c, delim) > 0 {
			others = append(others, c)
		}
	}
	if len(others) == 1 {
		c := others[0]
		return rd.errorf(h.line, nil, "the header line is one column with the field delimiter %s, but split at %s it has %d columns: set the delimiter with --delimiter %s (ReadOptions.Delimiter)",
			delimName(delim), delimName(c), h.count(c, delim)+1, delimFlag(c))
	}
	if len(others) == 0 {
		return nil
	}
	names := make([]string, len(others))
	for i, c := range others {
		names[i] = delimName(c)
	}
	return rd.errorf(h.line, nil, "the header line is one column with the field delimiter %s, but it has %s outside quotes: set the delimiter with --delimiter (ReadOptions.Delimiter)",
		delimName(delim), strings.Join(names, " and "))
}

// delimName names a delimiter in a message: "tab", or the quoted rune.
func delimName(c rune) string {
	if c == '\t' {
		return "tab"
	}
	return strconv.QuoteRune(c)
}

// delimFlag is the value of --delimiter that sets c, quoted for a shell.
func delimFlag(c rune) string {
	switch c {
	case '\t':
		return "tab"
	case ',':
		return ","
	}
	return "'" + string(c) + "'"
}

func (rd *reader) finish(rep *ReadReport) (*Dataset, *ReadReport, error) {
	if rep.Rows == 0 {
		return nil, nil, rd.errorf(0, nil, "no data rows after the header")
	}
	kinds := make([]Kind, len(rd.cols))
	allMissing := make([]bool, len(rd.cols))
	for j, c := range rd.cols {
		if c.missing == rep.Rows {
			if !rd.opt.DropConstant || rd.opt.Missing != MissingKeep {
				return nil, nil, rd.errorf(0, c, "all %d values are missing (skip the column with --ignore, or drop it with --missing keep --drop-constant)", rep.Rows)
			}
			allMissing[j] = true
			if c.forced {
				kinds[j] = c.kind
			}
			continue
		}
		k, err := c.decide(&rd.typing)
		if err != nil {
			return nil, nil, err
		}
		kinds[j] = k
	}
	kept := rep.Rows - rep.RowsDropped
	if kept == 0 {
		return nil, nil, rd.errorf(0, nil, "all %d rows have a missing cell; no rows left after dropping them (first at line %d)", rep.Rows, rep.DroppedLines[0])
	}
	if rep.RowsDropped > 0 && rd.opt.Logger != nil {
		rd.opt.Logger.Warn("dropped rows with missing cells", "file", rd.name, "rows", rep.RowsDropped, "of", rep.Rows, "first_lines", rep.DroppedLines)
	}
	var vars []Variable
	var disc [][]uint16
	var cont [][]float64
	for j, c := range rd.cols {
		cr := ColumnReport{Name: c.name, Kind: kinds[j], Forced: c.forced, MissingCells: c.missing}
		if kinds[j] == Discrete {
			cr.States = len(c.labels)
		}
		if isConst, val := c.constant(kinds[j]); allMissing[j] || isConst && !rd.opt.KeepConstant && c.name != rd.opt.Weights {
			if !rd.opt.DropConstant {
				return nil, nil, rd.errorf(0, c, "constant column: every observed value is %s (remove the column or use --drop-constant)", QuoteCell(val))
			}
			msg, reason := "dropped constant column", fmt.Sprintf("constant: every observed value is %s", QuoteCell(val))
			if allMissing[j] {
				msg, reason = "dropped column without values", fmt.Sprintf("all %d values are missing", rep.Rows)
			}
			cr.Dropped = true
			rep.ColumnsDropped = append(rep.ColumnsDropped, DroppedColumn{Name: c.name, Reason: reason})
			if rd.opt.Logger != nil {
				rd.opt.Logger.Warn(msg, "file", rd.name, "column", c.name, "reason", reason)
			}
			rep.Columns = append(rep.Columns, cr)
			c.codes, c.floats = nil, nil
			continue
		}
		rep.Columns = append(rep.Columns, cr)
		v := Variable{Name: c.name, Kind: kinds[j]}
		var dc []uint16
		var fc []float64
		switch {
		case c.float:
			fc = c.floats
		case kinds[j] == Continuous:
			c.toFloat(make([]float64, 0, len(c.codes)), 0)
			fc = c.floats
		default:
			c.index = nil
			recode := c.sortStates()
			// Recode into an exactly sized slice so the column does not
			// keep the spare capacity left by appending.
			v.States, dc = c.labels, recodeCells(make([]uint16, len(c.codes)), c.codes, recode)
		}
		c.codes, c.floats, c.index = nil, nil, nil
		vars = append(vars, v)
		disc = append(disc, dc)
		cont = append(cont, fc)
	}
	if len(vars) == 0 {
		return nil, nil, rd.errorf(0, nil, "no columns left after dropping constant columns")
	}
	d, err := withColumns(vars, kept, disc, cont)
	if err != nil {
		return nil, nil, &ParseError{File: rd.name, Err: err}
	}
	if w := rd.opt.Weights; w != "" {
		if d, err = d.WeightBy(w, rd.opt.WeightKind); err != nil {
			return nil, nil, &ParseError{File: rd.name, Err: err}
		}
	}
	return d, rep, nil
}
