package data

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MissingPolicy says what ReadCSV does with missing cells.
type MissingPolicy uint8

const (
	// MissingError makes any missing cell an error (the zero value).
	MissingError MissingPolicy = iota
	// MissingDropRows drops every row that has a missing cell.
	MissingDropRows
	// MissingKeep keeps missing cells, as Missing (discrete) or NaN
	// (continuous), for methods that marginalise over them.
	MissingKeep
)

// String returns the policy's command-line spelling: "error", "drop-rows"
// or "keep".
func (p MissingPolicy) String() string {
	switch p {
	case MissingError:
		return "error"
	case MissingDropRows:
		return "drop-rows"
	case MissingKeep:
		return "keep"
	}
	return fmt.Sprintf("MissingPolicy(%d)", uint8(p))
}

// ParseMissing returns the policy with the given command-line spelling:
// error, drop-rows (or drop) or keep.
func ParseMissing(s string) (MissingPolicy, error) {
	switch s {
	case "error":
		return MissingError, nil
	case "drop-rows", "drop":
		return MissingDropRows, nil
	case "keep":
		return MissingKeep, nil
	}
	return 0, fmt.Errorf("data: unknown missing-cell policy %q (want error, drop-rows or keep)", s)
}

// DefaultMaxDiscreteStates is the value ReadOptions.MaxDiscreteStates takes
// when it is zero.
const DefaultMaxDiscreteStates = 10

// DefaultMissingTokens returns the cell values that ReadCSV treats as
// missing when ReadOptions.MissingTokens is nil: "", "NA", "N/A", "NaN",
// "nan", "?" and "null". Each call returns a new slice.
func DefaultMissingTokens() []string {
	return []string{"", "NA", "N/A", "NaN", "nan", "?", "null"}
}

// ReadOptions configure ReadCSV. The zero value reads every column of a
// comma- or tab-separated file (detected) with a header, infers column
// types, and fails on missing cells and on constant columns.
type ReadOptions struct {
	// Name is the input's name in error messages; "<input>" when empty.
	// A name ending in ".tsv" or ".tab" makes the zero Delimiter a tab.
	Name string
	// Columns, if not empty, selects the columns to read, by header name,
	// in the order the dataset will have them; the other columns are
	// skipped without being checked. Ignore names columns to skip (an ID
	// column, a free-text note). Naming a column that is not in the
	// header, naming one twice, or naming one in both lists is an error.
	// Only the columns read must have unique, non-empty names.
	Columns []string
	Ignore  []string
	// Discrete and Continuous force the kind of the named columns. Naming
	// a column that is not read (not in the header, or not selected by
	// Columns and Ignore), or naming one in both lists, is an error.
	Discrete   []string
	Continuous []string
	// MaxDiscreteStates decides the kind of the other columns: a column
	// whose non-missing values all parse as finite numbers and which has
	// more than MaxDiscreteStates distinct values is continuous; every
	// other column is discrete. Zero means DefaultMaxDiscreteStates;
	// negative values are an error.
	MaxDiscreteStates int
	// Weights names a column of row weights (see Dataset.SetWeights) of
	// kind WeightKind: it is read (also when Columns does not list it),
	// never dropped as constant, and becomes the dataset's weights instead
	// of a variable. A missing, negative or non-finite weight, or a
	// frequency weight that is not a whole number, is an error naming its
	// row.
	Weights    string
	WeightKind WeightKind
	// Missing says what to do with missing cells.
	Missing MissingPolicy
	// MissingTokens are the cell values that mean "missing", compared
	// after trimming white space from cell and token. Nil means
	// DefaultMissingTokens(); with an empty non-nil slice only empty cells
	// are missing. An empty cell is always missing.
	MissingTokens []string
	// DropConstant drops columns with a single distinct observed value
	// (recording them in the report and logging a warning) instead of
	// failing; with MissingKeep it also drops columns whose every cell is
	// missing.
	DropConstant bool
	// KeepConstant keeps columns with a single distinct observed value
	// without error or warning: right when the data are to be scored or
	// completed with a model rather than learned from.
	KeepConstant bool
	// Delimiter is the field delimiter, e.g. ',', ';' or '\t'. Zero
	// detects it from the delimiters outside quotes on the header line: a
	// comma if it has one, else a tab if it has one, else ';' or '|' if it
	// has one of them and not the other, else a comma; but a tab when Name
	// ends in ".tsv" or ".tab" (any case), unless the header has no tab
	// and exactly one of the others. ReadReport.Delimiter says which was
	// used. A header line that the delimiter leaves as one column while
	// it holds another of these delimiters is an error naming it.
	Delimiter rune
	// MaxLineBytes bounds the length of a row in bytes (a quoted
	// field's line breaks included): a longer row is an error naming its
	// line, so that memory stays bounded whatever the input (a stream
	// without line breaks, such as /dev/zero, fails at the limit). Zero
	// means DefaultMaxLineBytes; negative values are an error.
	MaxLineBytes int
	// MaxFieldBytes bounds the length of a cell of a column read, in
	// bytes, before white space is trimmed (in a Parquet file, of a string
	// value): a longer cell is an error naming its line and column. With at most MaxStates states, it
	// bounds the memory of a discrete column's labels. Zero means
	// DefaultMaxFieldBytes; negative values are an error.
	MaxFieldBytes int
	// Logger, if not nil, receives warnings about dropped rows and
	// columns.
	Logger *slog.Logger
}

// ColumnReport describes what ReadCSV decided about one column it read.
type ColumnReport struct {
	Name string
	// Kind is the column's kind (for a dropped column, the kind it would
	// have had).
	Kind Kind
	// Forced reports whether the kind was forced by ReadOptions.
	Forced bool
	// States is the number of states of a discrete column, 0 otherwise.
	States int
	// MissingCells counts the missing cells of the column in every data
	// row read, including rows that were later dropped.
	MissingCells int
	// Dropped reports whether the column was dropped.
	Dropped bool
}

// DroppedColumn names a column that ReadCSV dropped and why.
type DroppedColumn struct {
	Name   string
	Reason string
}

// MaxReportedLines is the number of dropped rows whose line numbers a
// ReadReport lists.
const MaxReportedLines = 10

// ReadReport summarises what ReadCSV read and dropped.
type ReadReport struct {
	// Rows is the number of data rows read (not counting the header),
	// including dropped rows.
	Rows int
	// RowsDropped is the number of rows dropped for having a missing cell.
	RowsDropped int
	// DroppedLines are the line numbers (the header is line 1) of the
	// first MaxReportedLines dropped rows.
	DroppedLines []int
	// Columns has one entry per column read (every header column not
	// skipped by ReadOptions.Columns or Ignore), in the dataset's order.
	Columns []ColumnReport
	// Skipped names the header columns that were not read, in header
	// order (a column without a usable name is listed as "#k", its
	// 1-based position).
	Skipped []string
	// Delimiter is the field delimiter used.
	Delimiter rune
	// ColumnsDropped lists the dropped columns.
	ColumnsDropped []DroppedColumn
}

// ParseError is the error ReadCSV returns for bad input.
type ParseError struct {
	// File is the input's name.
	File string
	// Line is the 1-based line number (the header is line 1), or 0 when
	// the problem is not tied to a line.
	Line int
	// Column is the 1-based column (field) number, or 0 when not known.
	Column int
	// ColumnName is the column's header name, if known.
	ColumnName string
	// Err describes the problem.
	Err error
}

// Error formats the error as file:line: column "name": problem.
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":")
		b.WriteString(strconv.Itoa(e.Line))
	}
	switch {
	case e.ColumnName != "":
		fmt.Fprintf(&b, ": column %s", QuoteCell(e.ColumnName))
	case e.Column > 0:
		fmt.Fprintf(&b, ": column %d", e.Column)
	}
	b.WriteString(": ")
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString("invalid input")
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// MaxQuotedCell is the number of bytes of a cell (or header name) that
// error messages and reports quote; longer text is cut, with an ellipsis
// and its total length.
const MaxQuotedCell = 40

// QuoteCell quotes s as Go would (strconv.Quote), cutting it to
// MaxQuotedCell bytes at a character boundary, followed by an ellipsis and
// the length in bytes, when it is longer: a 50 MB cell in an error message
// reads "xxxx…" (52428800 bytes).
func QuoteCell(s string) string {
	if len(s) <= MaxQuotedCell {
		return strconv.Quote(s)
	}
	cut := MaxQuotedCell
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s (%d bytes)", strconv.Quote(s[:cut]+"…"), len(s))
}

// quoteNames quotes names for an error message: at most max of them, then
// the count of the others.
func quoteNames(names []string, max int) string {
	var b strings.Builder
	for i, n := range names {
		if i == max {
			fmt.Fprintf(&b, ", … (%d more)", len(names)-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteCell(n))
	}
	return b.String()
}
