package data

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// This file holds the one column builder of both CSV readers: ReadCSV,
// which types a column from the whole input, and OpenBlocks, which types it
// from a first pass over every row (or from the first block, with
// FirstBlockTyping) and then fixes its kind. The rules:
//
//   - A column is discrete if forced so, or if some value is not a number,
//     or if it has at most MaxDiscreteStates distinct values; else it is
//     continuous (unless forced). An infinite or NaN value in a column that
//     would be numeric is an error.
//   - Values are interned: each distinct label gets a 16-bit code, found by
//     a scan of the labels while there are few of them (a one-byte label by
//     comparing bytes), by a map after that.
//   - A column that is numeric so far and not forced discrete switches to
//     storing float64 values once it has more than max(1024,
//     MaxDiscreteStates) distinct values; a non-numeric value after that
//     point is an error.
//   - The states of a discrete column are ordered numerically when every
//     label is a number (ties, such as "1" and "1.0", by label), and
//     lexicographically otherwise.

// linearLookup is the number of distinct values up to which a column finds
// a value's code by scanning its labels instead of using a map.
const linearLookup = 8

// minSwitch is the smallest number of distinct numeric values after which a
// column stores float64 values instead of codes.
const minSwitch = 1024

// valueClass classifies a non-missing cell value.
type valueClass uint8

const (
	classFinite valueClass = iota
	classInfinite
	classNaN
	classText
)

func classify(s string) (float64, valueClass) {
	if f, ok := parseDecimal(s); ok {
		return f, classFinite
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) {
			return f, classInfinite
		}
		return math.NaN(), classText
	}
	switch {
	case math.IsInf(f, 0):
		return f, classInfinite
	case math.IsNaN(f):
		return f, classNaN
	}
	return f, classFinite
}

// typing is what the columns of an input share: the input's name, for
// errors, and the thresholds of type inference.
type typing struct {
	name     string
	maxDisc  int // MaxDiscreteStates, resolved
	switchAt int // distinct numeric values after which a column stores floats
}

// newTyping resolves the type-inference options of opt.
func newTyping(opt ReadOptions) (typing, error) {
	t := typing{name: opt.Name, maxDisc: opt.MaxDiscreteStates}
	if t.name == "" {
		t.name = "<input>"
	}
	if t.maxDisc < 0 {
		return t, fmt.Errorf("data: MaxDiscreteStates is negative (%d)", opt.MaxDiscreteStates)
	}
	if t.maxDisc == 0 {
		t.maxDisc = DefaultMaxDiscreteStates
	}
	t.maxDisc = min(t.maxDisc, MaxStates)
	t.switchAt = min(max(minSwitch, t.maxDisc), MaxStates)
	return t, nil
}

// errorf returns a *ParseError at the given line of the input, in column c
// if c is not nil.
func (t *typing) errorf(line int, c *column, format string, args ...any) *ParseError {
	e := &ParseError{File: t.name, Line: line, Err: fmt.Errorf(format, args...)}
	if c != nil {
		e.Column = c.pos
		e.ColumnName = c.name
	}
	return e
}

// missingError is the error for a missing cell s (at the given line, in
// column c) under MissingError.
func (t *typing) missingError(line int, c *column, s string) *ParseError {
	what := "empty cell"
	if s != "" {
		what = QuoteCell(s)
	}
	return t.errorf(line, c, "missing value (%s); use --missing drop-rows to drop rows with missing cells or --missing keep to keep them", what)
}

// liner gives the line (CSV) or row (Parquet) of field j of the current
// record, for errors: it is only asked when a value is new or bad.
type liner interface {
	line(j int) int
}

// column builds one column while reading: it interns the labels of its
// values as 16-bit codes, infers its kind, and switches to storing float64
// values when it turns out to be a numeric column with many values.
type column struct {
	name   string
	pos    int // 1-based field in the current file
	forced bool
	kind   Kind // forced kind if forced; the kind decided once fixed
	fixed  bool // kind decided (OpenBlocks, after the first block)
	closed bool // kind and states decided from every row (OpenBlocks): no value may extend them

	// Interning: labels[c] is the label of code c and values[c] its
	// numeric value (NaN if not a number).
	labels []string
	values []float64
	index  map[string]uint16
	codes  []uint16
	text   bool // some label is not a number

	// First infinite or NaN value of a column that is numeric so far.
	badLine  int
	badValue string
	badClass valueClass

	// Storing floats (float): values stored directly.
	float      bool
	floats     []float64
	floatStart int // distinct values when the column switched to floats, 0 if decided

	// Over the whole input.
	first     float64 // first value stored as a float
	haveFirst bool
	varied    bool // some value stored as a float differs from first
	missing   int  // missing cells, dropped rows included (ReadCSV)
	observed  int64

	pq    pqCache     // codes of the Parquet values seen, by value (OpenBlocks)
	pqSig pqSignature // how the values of pq are keyed
	// Values that Parquet column statistics gave instead of the rows
	// (typeFromStats), checked by the data pass.
	claims []pqClaim
}

// lookup returns the code of label s while interning.
func (c *column) lookup(s string) (uint16, bool) {
	if c.index == nil {
		if len(s) == 1 {
			for k, l := range c.labels {
				if len(l) == 1 && l[0] == s[0] {
					return uint16(k), true
				}
			}
			return 0, false
		}
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

// addMissing appends a missing cell.
func (c *column) addMissing() {
	if c.float {
		c.floats = append(c.floats, math.NaN())
	} else {
		c.codes = append(c.codes, Missing)
	}
}

// add appends the non-missing value s (field c.pos-1 of the record at) to c.
func (c *column) add(t *typing, s string, at liner) error {
	c.observed++
	if c.float {
		return c.addFloat(t, s, at)
	}
	if code, ok := c.lookup(s); ok {
		c.codes = append(c.codes, code)
		return nil
	}
	if c.closed {
		why := "a file changed since"
		if len(c.claims) > 0 {
			why += ", or the Parquet column statistics the states were read from are wrong"
		}
		return t.errorf(at.line(c.pos-1), c, "value %s is not among the column's %d states when the files were first read: %s", QuoteCell(s), len(c.labels), why)
	}
	f, class := classify(s)
	if !c.fixed && class != classFinite {
		if c.forced && c.kind == Continuous {
			return t.numberError(c, at.line(c.pos-1), s, class)
		}
		if class == classText {
			c.text = true
		} else if c.badLine == 0 {
			c.badLine, c.badValue, c.badClass = at.line(c.pos-1), strings.Clone(s), class
		}
	}
	n := len(c.labels)
	if c.fixed && !c.forced && c.kind == Discrete && !c.text && class == classFinite && n >= t.maxDisc {
		return t.errorf(at.line(c.pos-1), c, "value %s makes more than %d distinct values in a numeric column typed discrete from the first block, which a whole file would make continuous: force its kind with --continuous %s or --discrete %s (ReadOptions.Continuous, Discrete)",
			QuoteCell(s), t.maxDisc, ignoreArg(c.name), ignoreArg(c.name))
	}
	if !c.fixed && n >= t.switchAt && !c.text && c.badLine == 0 && !(c.forced && c.kind == Discrete) {
		c.toFloat(floatBuffer(c.floats, max(cap(c.codes), 16)), t.switchAt)
		return c.addFloat(t, s, at)
	}
	if n >= MaxStates {
		return t.errorf(at.line(c.pos-1), c, "more than %d distinct values, the most a discrete column can have; if it identifies the rows, skip it with --ignore %s (ReadOptions.Ignore)", MaxStates, ignoreArg(c.name))
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

// addFloat appends the value s to a column storing floats.
func (c *column) addFloat(t *typing, s string, at liner) error {
	f, class := classify(s)
	if class != classFinite {
		return t.numberError(c, at.line(c.pos-1), s, class)
	}
	c.addNumber(f)
	return nil
}

// addNumber appends the finite value f to a column storing floats.
func (c *column) addNumber(f float64) {
	if !c.haveFirst {
		c.first, c.haveFirst = f, true
	} else if f != c.first {
		c.varied = true
	}
	c.floats = append(c.floats, f)
}

// settle switches c to storing floats as soon as its kind is known to be
// continuous, for the fast CSV path (fastcsv.go): that path reads only
// inputs whose every cell read is a finite number or missing, and falls
// back to the general path otherwise, so a column numeric so far stays
// numeric, and one with more than MaxDiscreteStates distinct values (or
// forced continuous) ends continuous whatever follows. Storing floats then
// spares interning every distinct value of a continuous column. A column
// whose values are all equal so far keeps its labels, so that a constant
// column is reported by its first label, as the general path reports it.
func (c *column) settle(t *typing) {
	if c.float || c.text || c.badLine != 0 || c.forced && c.kind == Discrete {
		return
	}
	if !(c.forced && c.kind == Continuous) && len(c.labels) <= t.maxDisc {
		return
	}
	if !slices.ContainsFunc(c.values, func(v float64) bool { return v != c.values[0] }) {
		return
	}
	c.toFloat(make([]float64, 0, max(cap(c.codes), 16)), 0)
}

// floatBuffer returns buf emptied if it can hold n values, else a new
// buffer of capacity n.
func floatBuffer(buf []float64, n int) []float64 {
	if cap(buf) >= n {
		return buf[:0]
	}
	return make([]float64, 0, n)
}

// toFloat switches c from interning to storing floats, appending the values
// of its cells to buf; floatStart is its number of distinct values if it
// switches because it has too many, 0 if its kind was decided continuous.
func (c *column) toFloat(buf []float64, floatStart int) {
	for _, code := range c.codes {
		if code == Missing {
			buf = append(buf, math.NaN())
		} else {
			buf = append(buf, c.values[code])
		}
	}
	for _, v := range c.values {
		if !c.haveFirst {
			c.first, c.haveFirst = v, true
		} else if v != c.first {
			c.varied = true
		}
	}
	c.floats, c.codes, c.labels, c.values, c.index = buf, nil, nil, nil, nil
	c.float, c.floatStart = true, floatStart
	c.pq = pqCache{}
}

// numberError returns the error for value s of class other than
// classFinite, found on the given line, in a column that must be numeric.
func (t *typing) numberError(c *column, line int, s string, class valueClass) *ParseError {
	switch class {
	case classText:
		why := "in a column forced continuous"
		switch {
		case c.forced:
		case c.closed:
			why = "in a column found continuous when the files were first read: a file changed since"
		case c.floatStart > 0:
			why = fmt.Sprintf("in a numeric column with more than %d distinct values (force the column discrete, or list the value as a missing token)", c.floatStart)
		default:
			why = "in a column found continuous in the first block (force the column discrete, or list the value as a missing token)"
		}
		return t.errorf(line, c, "non-numeric value %s %s", QuoteCell(s), why)
	case classInfinite:
		return t.errorf(line, c, "infinite value %s in a numeric column", QuoteCell(s))
	}
	return t.errorf(line, c, "not-a-number value %s in a numeric column (list it as a missing token to treat it as missing)", QuoteCell(s))
}

// decide returns the kind of c from the values it has seen.
func (c *column) decide(t *typing) (Kind, error) {
	switch {
	case c.float:
		return Continuous, nil
	case c.forced:
		return c.kind, nil
	case c.text:
		return Discrete, nil
	case c.badLine != 0:
		return 0, t.numberError(c, c.badLine, c.badValue, c.badClass)
	case len(c.labels) > t.maxDisc:
		return Continuous, nil
	}
	return Discrete, nil
}

// constant reports whether c, of the given kind, has a single distinct
// observed value, and that value.
func (c *column) constant(kind Kind) (bool, string) {
	if c.float {
		return !c.varied, strconv.FormatFloat(c.first, 'g', -1, 64)
	}
	if len(c.labels) == 0 {
		return false, ""
	}
	if kind == Discrete {
		return len(c.labels) == 1, c.labels[0]
	}
	for _, v := range c.values[1:] {
		if v != c.values[0] {
			return false, ""
		}
	}
	return true, c.labels[0]
}

// sortStates orders c's labels as states (see sortLabels) and returns the
// new code of each old code; the cells are not recoded.
func (c *column) sortStates() []uint16 {
	n := len(c.labels)
	order := make([]int, n)
	for k := range order {
		order[k] = k
	}
	sortLabels(order, c.labels, c.values)
	recode := make([]uint16, n)
	labels := make([]string, n)
	values := make([]float64, n)
	for rank, k := range order {
		labels[rank], values[rank] = c.labels[k], c.values[k]
		recode[k] = uint16(rank)
	}
	c.labels, c.values = labels, values
	if c.index != nil {
		for k, l := range c.labels {
			c.index[l] = uint16(k)
		}
	}
	return recode
}

// recodeCells writes the cells src recoded by recode into dst, which may be
// src, and returns dst.
func recodeCells(dst, src, recode []uint16) []uint16 {
	for i, code := range src {
		if code != Missing {
			code = recode[code]
		}
		dst[i] = code
	}
	return dst
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
