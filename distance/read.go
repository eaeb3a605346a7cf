package distance

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ReadOptions controls ReadMatrix and ReadMatrixFile. The zero value reads
// a finite matrix, checked with DefaultTol, and names no input in messages.
type ReadOptions struct {
	// Name names the input in error messages, typically its file name.
	Name string
	// Tol is the tolerance for symmetry and the zero diagonal, as in
	// ValidateOptions.
	Tol float64
	// AllowInf accepts +Inf off the diagonal, as in ValidateOptions.
	AllowInf bool
	// MaxBytes is the longest input read (0: DefaultMaxMatrixBytes),
	// MaxLineBytes the longest line (0: data.DefaultMaxLineBytes) and
	// MaxFieldBytes the longest cell or PHYLIP word (0:
	// data.DefaultMaxFieldBytes): longer input is an error naming the
	// input, the line and the limit, found before it is all held in
	// memory.
	MaxBytes      int64
	MaxLineBytes  int
	MaxFieldBytes int
}

// ReadMatrix reads a distance matrix in CSV or PHYLIP format, telling them
// apart by the first non-blank line: a line holding only an unsigned integer
// starts a PHYLIP matrix, anything else is a CSV header.
//
// CSV: the header names the m variables; it may start with an empty cell or
// a label such as "name" for a column of row labels, in which case every row
// starts with its variable's name, which must equal the header name at that
// position. Then come m rows of m numbers. Cells are separated by commas, or
// by semicolons or tabs when the header uses those rather than commas;
// quoting follows RFC 4180, and space around cells is ignored. Numbers use a
// decimal point; "inf", "Inf" and "+Inf" stand for +Inf.
//
// PHYLIP: the first line holds m; each of the next m rows starts with the
// variable's name and continues with its distances, possibly over several
// lines. A name is either the first 10 characters of the row (strict PHYLIP,
// which allows spaces inside names) or, when that reads correctly, the first
// whitespace-separated word (relaxed PHYLIP). Rows hold either m distances
// (square), or the distances to the preceding variables only (lower
// triangular, row i holding i numbers), or those followed by the zero
// diagonal entry (row i holding i+1 numbers). The layout is decided by the
// first row: m numbers mean square, none lower triangular, one (when m > 1)
// lower triangular with diagonal, and between 2 and m-1 a square matrix whose
// rows continue on further lines.
//
// The matrix is checked as Validate does with opt.Tol and opt.AllowInf, and
// errors name the input, the line and the variables involved. The matrix
// returned is exactly symmetric with a zero diagonal: entries that agree
// within the tolerance are replaced by their mean.
func ReadMatrix(r io.Reader, opt ReadOptions) (*Matrix, error) {
	tol, err := tolerance(opt.Tol)
	if err != nil {
		return nil, err
	}
	lim, err := newMatrixLimits(opt)
	if err != nil {
		return nil, err
	}
	src := source(opt.Name)
	data, err := readLimited(r, lim, src)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	text := string(data)

	first, firstLine := "", 0
	for i, l := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			first, firstLine = t, i+1
			break
		}
	}
	if firstLine == 0 {
		if opt.Name != "" {
			return nil, fmt.Errorf("distance: %s: empty input (no distance matrix)", opt.Name)
		}
		return nil, errors.New("distance: empty input (no distance matrix)")
	}

	var (
		m     *Matrix
		lines []lineRef
		lower bool
	)
	if isUnsigned(first) {
		m, lines, lower, err = readPHYLIP(text, src, lim)
	} else {
		m, lines, err = readCSV(data, first, src, lim)
	}
	if err != nil {
		return nil, err
	}
	if err := checkEntries(m, tol, opt.AllowInf, lines, lower); err != nil {
		return nil, err
	}
	normalize(m)
	return m, nil
}

// ReadMatrixFile reads a distance matrix from the named file as ReadMatrix
// does. When opt.Name is empty, messages name the file by path.
func ReadMatrixFile(path string, opt ReadOptions) (*Matrix, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("distance: %w", err)
	}
	defer f.Close() // read only: closing cannot lose data
	if opt.Name == "" {
		opt.Name = path
	}
	return ReadMatrix(f, opt)
}

// source names an input in messages.
type source string

func (s source) at(line int) lineRef { return lineRef{src: s, line: line} }

// lineRef is a line of an input.
type lineRef struct {
	src  source
	line int
}

// errorf returns an error prefixed with the input's name and the line.
func (l lineRef) errorf(format string, args ...any) error {
	if l.src == "" {
		return fmt.Errorf("distance: line %d: "+format, append([]any{l.line}, args...)...)
	}
	return fmt.Errorf("distance: %s:%d: "+format, append([]any{string(l.src), l.line}, args...)...)
}

// isUnsigned reports whether s is a non-empty string of ASCII digits.
func isUnsigned(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseNum parses one distance. On failure it returns a description of the
// problem ending a sentence whose subject is the cell.
func parseNum(s string) (float64, string) {
	x, err := strconv.ParseFloat(s, 64)
	if err == nil {
		return x, ""
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, "is out of range"
	}
	if s == "" {
		return 0, "is empty"
	}
	return 0, "is not a number"
}

// detectSep returns the cell separator a CSV header line uses: whichever of
// ',', ';' and '\t' occurs most often outside quotes, with ties (including
// none at all) going to the earlier of them in that list.
func detectSep(header string) rune {
	var comma, semi, tab int
	quoted := false
	for _, r := range header {
		switch {
		case r == '"':
			quoted = !quoted
		case quoted:
		case r == ',':
			comma++
		case r == ';':
			semi++
		case r == '\t':
			tab++
		}
	}
	switch {
	case comma >= semi && comma >= tab:
		return ','
	case semi >= tab:
		return ';'
	}
	return '\t'
}

// readCSV parses a CSV distance matrix; header is the first non-blank line.
// The entries are not checked beyond being numbers.
func readCSV(data []byte, header string, src source, lim matrixLimits) (*Matrix, []lineRef, error) {
	sep := detectSep(header)
	cr := csv.NewReader(bytes.NewReader(data))
	cr.Comma = sep
	cr.FieldsPerRecord = -1
	// With tabs as separators leading-space trimming would merge empty
	// cells; cells are trimmed below anyway.
	cr.TrimLeadingSpace = sep != '\t'

	var (
		recs     [][]string
		recLines []lineRef
		lastLine = 1
		raw      = strings.Split(string(data), "\n")
	)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, nil, src.at(pe.Line).errorf("%v", pe.Err)
			}
			return nil, nil, fmt.Errorf("distance: %s: %w", src, err)
		}
		line, _ := cr.FieldPos(0)
		lastLine, _ = cr.FieldPos(len(rec) - 1)
		for i, c := range rec {
			if len(c) > lim.field {
				return nil, nil, lim.fieldError(src.at(line), len(c))
			}
			rec[i] = strings.TrimSpace(c)
		}
		if len(rec) == 1 && rec[0] == "" && line <= len(raw) && strings.TrimSpace(raw[line-1]) == "" {
			continue // a line of white space
		}
		recs = append(recs, rec)
		recLines = append(recLines, src.at(line))
	}
	if len(recs) == 0 {
		// Only possible when the first non-blank line is not a record,
		// which csv does not allow; kept for safety.
		return nil, nil, src.at(1).errorf("no header row")
	}

	head, rows := recs[0], recs[1:]
	h := len(head)
	// A row-label column is present when the header starts with an empty
	// cell, or when the shape or the first row says so: m+1 header cells
	// over m rows, with the first row starting with a name rather than a
	// number (or with the header's first variable name).
	label := head[0] == ""
	if !label && len(rows) != h && len(rows) > 0 && h > 1 {
		c := rows[0][0]
		_, bad := parseNum(c)
		label = bad != "" || c == head[1]
	}
	off := 0
	if label {
		off = 1
	}
	names := head[off:]
	m := len(names)
	if m == 0 {
		return nil, nil, recLines[0].errorf("the header names no variables")
	}
	seen := make(map[string]int, m)
	for j, name := range names {
		if name == "" {
			return nil, nil, recLines[0].errorf("header cell %d is empty (every variable needs a name)", j+1+off)
		}
		if k, dup := seen[name]; dup {
			return nil, nil, recLines[0].errorf("duplicate variable name %q (header cells %d and %d)", name, k+1+off, j+1+off)
		}
		seen[name] = j
	}

	d := make([]float64, 0)
	for i, rec := range rows {
		at := recLines[i+1]
		if i >= m {
			return nil, nil, at.errorf("extra row: the header names %d variables, so %d rows are expected", m, m)
		}
		rowName := names[i]
		if label {
			if rec[0] != rowName {
				return nil, nil, at.errorf("row label %q does not match the header name %q of variable %d", rec[0], rowName, i+1)
			}
		}
		if len(rec) != m+off {
			return nil, nil, at.errorf("row of %q has %d cells, want %d", rowName, len(rec), m+off)
		}
		for j, cell := range rec[off:] {
			x, bad := parseNum(cell)
			if bad != "" {
				return nil, nil, at.errorf("cell d(%s,%s) = %q %s", rowName, names[j], cell, bad)
			}
			d = append(d, x)
		}
	}
	if len(rows) < m {
		return nil, nil, src.at(lastLine).errorf("input ends after %d of %d rows; the row of %q is missing", len(rows), m, names[len(rows)])
	}
	return &Matrix{Names: names, D: d}, recLines[1:], nil
}

// PHYLIP row layouts.
const (
	square    = iota // m numbers per row
	lowerTri         // i numbers in row i
	lowerDiag        // i+1 numbers in row i
)

// strictWidth is the width of the name field of strict PHYLIP.
const strictWidth = 10

// phylipRow is a row's name line split into a name and numbers.
type phylipRow struct {
	name string
	nums []float64
}

// splitRelaxed splits a line into its first word and the numbers after it.
// bad describes the first token that is not a number (its index in tok).
func splitRelaxed(line string) (row phylipRow, tok []string, badAt int, bad string) {
	f := strings.Fields(line)
	row.name = f[0]
	return parseTokens(row, f[1:])
}

// splitStrict splits a line into a name of strictWidth characters and the
// numbers after it.
func splitStrict(line string) (row phylipRow, tok []string, badAt int, bad string) {
	n, cut := 0, len(line)
	for i := range line {
		if n == strictWidth {
			cut = i
			break
		}
		n++
	}
	row.name = strings.TrimSpace(line[:cut])
	if row.name == "" {
		return row, nil, -1, "has no name"
	}
	return parseTokens(row, strings.Fields(line[cut:]))
}

func parseTokens(row phylipRow, tok []string) (phylipRow, []string, int, string) {
	row.nums = make([]float64, 0, len(tok))
	for k, t := range tok {
		x, bad := parseNum(t)
		if bad != "" {
			return row, tok, k, bad
		}
		row.nums = append(row.nums, x)
	}
	return row, tok, -1, ""
}

// readPHYLIP parses a PHYLIP distance matrix whose first non-blank line is
// an unsigned integer. The entries are not checked beyond being numbers.
// lower reports a triangular layout, in which only entries (i,j) with j ≤ i
// came from the input.
func readPHYLIP(text string, src source, lim matrixLimits) (m *Matrix, rowLines []lineRef, lower bool, err error) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if err := lim.checkFields(src.at(i+1), l); err != nil {
			return nil, nil, false, err
		}
	}
	next := 0 // index of the next line to look at
	last := 1 // number of the last non-blank line returned
	// nextLine returns the next non-blank line and its 1-based number, or
	// at the end of the input ok false and the last non-blank line's number.
	nextLine := func() (string, int, bool) {
		for next < len(lines) {
			l := strings.TrimSuffix(lines[next], "\r")
			next++
			if strings.TrimSpace(l) != "" {
				last = next
				return l, next, true
			}
		}
		return "", last, false
	}

	first, firstNo, _ := nextLine() // there is one: ReadMatrix saw a number
	first = strings.TrimSpace(first)
	n, convErr := strconv.Atoi(first)
	if convErr != nil {
		return nil, nil, false, src.at(firstNo).errorf("number of variables %s is too large", first)
	}
	if n < 1 {
		return nil, nil, false, src.at(firstNo).errorf("number of variables is %d, want at least 1", n)
	}

	layout := square
	var (
		names  []string
		rows   [][]float64
		seenAt = make(map[string]int)
	)
	for i := 0; i < n; i++ {
		line, no, ok := nextLine()
		if !ok {
			return nil, nil, false, src.at(no).errorf("input ends after %d of %d rows (the first line says %d variables)", i, n, n)
		}
		at := src.at(no)
		need := n
		if i > 0 {
			switch layout {
			case lowerTri:
				need = i
			case lowerDiag:
				need = i + 1
			}
		}
		// Relaxed names are tried first; strict ones when that fails and
		// the strict reading gives a complete row (or, in the first row,
		// one of the counts that decide the layout).
		row, tok, badAt, bad := splitRelaxed(line)
		if bad != "" || len(row.nums) > need {
			r2, _, _, bad2 := splitStrict(line)
			c := len(r2.nums)
			if bad2 == "" && (c == need || i == 0 && (c == 1 || c == 0 && !hasNumber(line))) {
				row, bad = r2, ""
			}
		}
		if bad != "" {
			return nil, nil, false, at.errorf("%s", entryError(row.name, names, badAt, tok[badAt], bad))
		}
		if j, dup := seenAt[row.name]; dup {
			return nil, nil, false, at.errorf("duplicate variable name %q (also on line %d)", row.name, j)
		}
		seenAt[row.name] = no
		if i == 0 {
			switch c := len(row.nums); {
			case c == 0:
				layout, need = lowerTri, 0
			case c == 1 && n > 1:
				layout, need = lowerDiag, 1
			}
		}
		if len(row.nums) > need {
			return nil, nil, false, at.errorf("row of %q has %d distances, want %d", row.name, len(row.nums), need)
		}
		// The row may continue on further lines.
		for len(row.nums) < need {
			cont, cno, ok := nextLine()
			var f []string
			if ok {
				f = strings.Fields(cont)
			}
			if _, bad := parseNum(f0(f)); !ok || bad != "" {
				return nil, nil, false, at.errorf("row of %q has %d distances, want %d", row.name, len(row.nums), need)
			}
			for k, t := range f {
				x, bad := parseNum(t)
				if bad != "" {
					return nil, nil, false, src.at(cno).errorf("%s", entryError(row.name, names, len(row.nums), t, bad))
				}
				if len(row.nums) == need {
					return nil, nil, false, src.at(cno).errorf("row of %q has more than %d distances (%q is one too many)", row.name, need, f[k])
				}
				row.nums = append(row.nums, x)
			}
		}
		names = append(names, row.name)
		rows = append(rows, row.nums)
		rowLines = append(rowLines, at)
	}
	if extra, no, ok := nextLine(); ok {
		return nil, nil, false, src.at(no).errorf("unexpected line %q after the end of the matrix (%d rows)", shorten(strings.TrimSpace(extra)), n)
	}

	d := make([]float64, n*n)
	for i, r := range rows {
		switch layout {
		case square:
			copy(d[i*n:], r)
		default:
			for j, x := range r {
				d[i*n+j] = x
				d[j*n+i] = x
			}
		}
	}
	return &Matrix{Names: names, D: d}, rowLines, layout != square, nil
}

// entryError describes bad entry k of the row of variable row; names holds
// the names read so far, which name the entry's column when it is known.
func entryError(row string, names []string, k int, cell, bad string) string {
	if k < len(names) {
		return fmt.Sprintf("d(%s,%s) = %q %s", row, names[k], cell, bad)
	}
	if k == len(names) {
		return fmt.Sprintf("d(%s,%s) = %q %s", row, row, cell, bad)
	}
	return fmt.Sprintf("row of %q, entry %d = %q %s", row, k+1, cell, bad)
}

// hasNumber reports whether a word of line is a number.
func hasNumber(line string) bool {
	for _, w := range strings.Fields(line) {
		if _, bad := parseNum(w); bad == "" {
			return true
		}
	}
	return false
}

func f0(f []string) string {
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// shorten truncates s for quoting in a message.
func shorten(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
