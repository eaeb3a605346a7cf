package data

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// MinIdentifierRows is the least number of observed values a column needs
// for CheckIdentifiers to take it for a row identifier.
const MinIdentifierRows = 20

// An IdentifierError names a column that looks like a row identifier
// rather than a variable: a key, a name or a row number, which tells
// every row apart and so carries nothing a model can learn from.
type IdentifierError struct {
	// Column is the column's name.
	Column string
	// Kind is the column's kind: a discrete column has a distinct value
	// in every row where it is observed; a continuous one has integers
	// that increase (or decrease) down the rows, with few gaps.
	Kind Kind
	// Values is the number of rows where the column is observed, and of
	// its distinct values; Rows the number of rows.
	Values, Rows int
	// First and Last are a continuous column's first and last values.
	First, Last float64
}

func (e *IdentifierError) Error() string {
	var what string
	if e.Kind == Discrete {
		what = fmt.Sprintf("%d distinct values in %d rows", e.Values, e.Rows)
		if e.Values < e.Rows {
			what = fmt.Sprintf("%d distinct values in the %d rows where it has one", e.Values, e.Values)
		}
	} else {
		what = fmt.Sprintf("%d integers from %g to %g in row order, none repeated", e.Values, e.First, e.Last)
	}
	return fmt.Sprintf("data: column %s looks like an identifier (%s), not a variable to learn from; skip it with --ignore %s (ReadOptions.Ignore)",
		QuoteCell(e.Column), what, ignoreArg(e.Column))
}

// ignoreArg is name as the value of the command line's --ignore, a
// comma-separated list: quoted for a shell when it holds anything but
// letters, digits and "._-".
func ignoreArg(name string) string {
	plain := name != ""
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			plain = false
			break
		}
	}
	if plain {
		return name
	}
	if strings.ContainsAny(name, `,"`) { // --ignore reads CSV: quote the name in it
		name = `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	return "'" + strings.ReplaceAll(name, "'", `'\''`) + "'"
}

// idCheck follows one column through the blocks of a Source while it can
// still be an identifier.
type idCheck struct {
	out    bool     // cannot be an identifier
	values int      // observed values
	seen   []uint64 // discrete: the codes seen, as a bit set
	// Continuous: the first and last values, and the direction of the
	// steps between consecutive values (+1 or -1; 0 before the second).
	first, last float64
	dir         float64
}

// maxExactInt is the largest float64 below which every integer is exact.
const maxExactInt = 1 << 53

func (c *idCheck) addCodes(codes []uint16) {
	for _, code := range codes {
		if code == Missing {
			continue
		}
		w, bit := int(code)/64, uint64(1)<<(code%64)
		if w >= len(c.seen) {
			c.seen = append(c.seen, make([]uint64, w+1-len(c.seen))...)
		}
		if c.seen[w]&bit != 0 {
			c.out = true
			return
		}
		c.seen[w] |= bit
		c.values++
	}
}

func (c *idCheck) addFloats(vals []float64) {
	for _, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		if v != math.Trunc(v) || math.Abs(v) >= maxExactInt {
			c.out = true
			return
		}
		if c.values > 0 {
			step := v - c.last
			if step == 0 || c.dir != 0 && (step > 0) != (c.dir > 0) {
				c.out = true
				return
			}
			c.dir = math.Copysign(1, step)
		} else {
			c.first = v
		}
		c.last = v
		c.values++
	}
}

// identifier reports whether the column, of the given kind, looks like an
// identifier after every row: at least MinIdentifierRows observed values,
// all distinct; for a continuous column, in order and spanning at most
// twice as many integers as there are values.
func (c *idCheck) identifier(kind Kind) bool {
	if c.out || c.values < MinIdentifierRows {
		return false
	}
	return kind == Discrete || math.Abs(c.last-c.first)+1 <= 2*float64(c.values)
}

// errIDStop stops the scan of CheckIdentifiers when no column can be an
// identifier any more.
var errIDStop = errors.New("data: no identifier")

// CheckIdentifiers returns an *IdentifierError naming the first column of
// src that looks like a row identifier, and nil if there is none: a
// column observed in at least MinIdentifierRows rows whose values are all
// distinct, and that is discrete (a key, a name), or continuous with
// integer values in increasing (or decreasing) order that span at most
// twice as many integers as there are values (row numbers, perhaps after
// some rows were deleted). A method learning a model from src should
// refuse such a column, which tells every row apart: it would be taken for
// a variable with as many states as rows.
//
// It scans src, stopping as soon as every column has repeated a value or
// broken the order, which for most data is within the first block; an
// error of src is returned as it is.
func CheckIdentifiers(src Source) error {
	var checks []idCheck
	var vars []Variable
	rows := 0
	err := src.Scan(func(b *Dataset) error {
		if checks == nil {
			vars = b.Vars()
			checks = make([]idCheck, len(vars))
		}
		rows += b.NumRows()
		open := 0
		for j := range checks {
			c := &checks[j]
			if c.out {
				continue
			}
			if vars[j].Kind == Discrete {
				c.addCodes(b.disc[j])
			} else {
				c.addFloats(b.cont[j])
			}
			if !c.out {
				open++
			}
		}
		if open == 0 {
			return errIDStop
		}
		return nil
	})
	if err == errIDStop {
		return nil
	}
	if err != nil {
		return err
	}
	for j := range checks {
		c := &checks[j]
		if c.identifier(vars[j].Kind) {
			return &IdentifierError{Column: vars[j].Name, Kind: vars[j].Kind, Values: c.values, Rows: rows, First: c.first, Last: c.last}
		}
	}
	return nil
}

// DistinctIntegers returns the names of the continuous columns of src
// whose observed values (two or more) are integers and all distinct: row
// identifiers in any order, or integer measurements that never repeat.
// It is weaker evidence than CheckIdentifiers', for error messages that
// ask whether such a column is meant to be a variable; it scans src once,
// holding the values of each column until it repeats one.
func DistinctIntegers(src Source) ([]string, error) {
	var vars []Variable
	var seen []map[float64]struct{} // nil once the column is out
	err := src.Scan(func(b *Dataset) error {
		if vars == nil {
			vars = b.Vars()
			seen = make([]map[float64]struct{}, len(vars))
			for j, v := range vars {
				if v.Kind == Continuous {
					seen[j] = make(map[float64]struct{})
				}
			}
		}
		open := 0
		for j, m := range seen {
			if m == nil {
				continue
			}
			for _, v := range b.cont[j] {
				if math.IsNaN(v) {
					continue
				}
				if _, dup := m[v]; dup || v != math.Trunc(v) || math.Abs(v) >= maxExactInt {
					m = nil
					break
				}
				m[v] = struct{}{}
			}
			if seen[j] = m; m != nil {
				open++
			}
		}
		if open == 0 {
			return errIDStop
		}
		return nil
	})
	if err != nil && err != errIDStop {
		return nil, err
	}
	var names []string
	for j, m := range seen {
		if len(m) >= 2 {
			names = append(names, vars[j].Name)
		}
	}
	return names, nil
}
