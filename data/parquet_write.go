package data

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// parquetGroupCells is about the number of cells of a row group written by
// a ParquetWriter.
const parquetGroupCells = 1 << 24

// parquetWriteBatch is the number of values handed to a column writer at
// once.
const parquetWriteBatch = 4096

// ParquetWriter writes datasets with the same variables as one Parquet
// file, block after block; memory is bounded by a row group (about 2²⁴
// cells), whatever the number of rows.
//
// The file's columns are in the variables' order (not sorted by name, as
// the fields of a parquet.Group are), which is the column order OpenBlocks
// gives. Every column is optional (nullable) and Snappy-compressed, and
// discrete columns are dictionary-encoded. A discrete variable whose every
// state label given to NewParquetWriter is a decimal int32 in canonical
// form (as strconv.FormatInt writes it: "7" and "-3", not "07" or "+3") is
// an INT32 column of its labels' values, any other discrete variable a
// UTF-8 string column of its labels (BYTE_ARRAY, String logical type), and
// a continuous variable a DOUBLE column; missing cells (Missing codes,
// NaN) are nulls.
//
// OpenBlocks reads the file back as ReadCSV reads the CSV text WriteCSV
// writes for the same data: the cells read are the same text, and so read
// options (forced kinds, MaxDiscreteStates, missing tokens) act alike on
// both. As with WriteCSV, a state label that is a missing token, or that
// has leading or trailing white space, does not read back as itself.
type ParquetWriter struct {
	vars      []Variable
	ints      []bool // discrete column written as INT32
	pw        *parquet.GenericWriter[any]
	groupRows int // rows per row group (tests set it before the first Write)
	inGroup   int // rows in the current row group
	// The value of each state code of a discrete column, for the states of
	// the last block written.
	states [][]string
	table  [][]parquet.Value
	bad    [][]bool // states an INT32 column cannot hold
	buf    []parquet.Value
	err    error // a failed write to the Parquet writer: the file is unusable
	closed bool
}

// pqOrderedGroup is a Parquet group whose fields are in a given order
// rather than sorted by name as those of a parquet.Group are.
type pqOrderedGroup struct {
	parquet.Group
	fields []parquet.Field
}

// Fields returns the fields in the group's order.
func (g pqOrderedGroup) Fields() []parquet.Field { return g.fields }

// pqInt32 returns the value of a state label that is a decimal int32 in
// canonical form.
func pqInt32(s string) (int32, bool) {
	x, err := strconv.ParseInt(s, 10, 32)
	if err != nil || strconv.FormatInt(x, 10) != s {
		return 0, false
	}
	return int32(x), true
}

// checkLabel checks that a state label reads back as a state: not empty
// after trimming white space (it would read as missing), and valid UTF-8
// in a string column.
func checkLabel(v Variable, s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("variable %q has an empty state label, which would read back as missing", v.Name)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("variable %q has a state label that is not valid UTF-8: %q", v.Name, s)
	}
	return nil
}

// NewParquetWriter returns a writer of datasets with variables vars to w
// as one Parquet file. The type of each discrete column is decided by the
// state labels of vars (see ParquetWriter). Variable names must be
// non-empty and unique, and discrete variables need at least one state;
// there must be at least one variable. Nothing is written to w before the
// first call to Write or Close.
func NewParquetWriter(w io.Writer, vars []Variable) (p *ParquetWriter, err error) {
	if w == nil {
		return nil, errors.New("data: NewParquetWriter: nil writer")
	}
	if len(vars) == 0 {
		return nil, errors.New("data: NewParquetWriter: no variables (a Parquet file needs a column)")
	}
	p = &ParquetWriter{
		vars:   make([]Variable, len(vars)),
		ints:   make([]bool, len(vars)),
		states: make([][]string, len(vars)),
		table:  make([][]parquet.Value, len(vars)),
		bad:    make([][]bool, len(vars)),
	}
	g := parquet.Group{}
	pos := make(map[string]int, len(vars))
	for j, v := range vars {
		if v.Name == "" {
			return nil, fmt.Errorf("data: NewParquetWriter: variable %d has no name", j+1)
		}
		if _, dup := pos[v.Name]; dup {
			return nil, fmt.Errorf("data: NewParquetWriter: duplicate variable name %q", v.Name)
		}
		pos[v.Name] = j
		var leaf parquet.Node
		switch v.Kind {
		case Discrete:
			if len(v.States) == 0 {
				return nil, fmt.Errorf("data: NewParquetWriter: discrete variable %q has no states", v.Name)
			}
			if len(v.States) > MaxStates {
				return nil, fmt.Errorf("data: NewParquetWriter: discrete variable %q has %d states, more than the maximum %d", v.Name, len(v.States), MaxStates)
			}
			v.States = slices.Clone(v.States)
			p.ints[j] = true
			for _, s := range v.States {
				if err := checkLabel(v, s); err != nil {
					return nil, fmt.Errorf("data: NewParquetWriter: %w", err)
				}
				if _, ok := pqInt32(s); !ok {
					p.ints[j] = false
				}
			}
			if p.ints[j] {
				leaf = parquet.Leaf(parquet.Int32Type)
			} else {
				leaf = parquet.String()
			}
			leaf = parquet.Encoded(leaf, &parquet.RLEDictionary)
		case Continuous:
			v.States = nil
			leaf = parquet.Leaf(parquet.DoubleType)
		default:
			return nil, fmt.Errorf("data: NewParquetWriter: variable %q has unknown kind %d", v.Name, v.Kind)
		}
		g[v.Name] = parquet.Optional(leaf)
		p.vars[j] = v
	}
	defer recoveredWrite(&err)
	fields := g.Fields() // sorted by name
	slices.SortFunc(fields, func(a, b parquet.Field) int { return pos[a.Name()] - pos[b.Name()] })
	schema := parquet.NewSchema("latentree", pqOrderedGroup{Group: g, fields: fields})
	p.pw = parquet.NewGenericWriter[any](w, schema, parquet.Compression(&parquet.Snappy))
	if cw := p.pw.ColumnWriters(); len(cw) != len(vars) {
		return nil, fmt.Errorf("data: NewParquetWriter: the Parquet schema has %d columns for %d variables", len(cw), len(vars))
	}
	p.groupRows = max(1, parquetGroupCells/len(vars))
	return p, nil
}

// recoveredWrite turns a panic of the Parquet library into an error.
func recoveredWrite(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("data: writing Parquet: %v", r)
	}
}

// prepare checks that d has the writer's variables and can be written,
// and builds the value of each state code of its discrete columns. It
// writes nothing.
func (p *ParquetWriter) prepare(d *Dataset) error {
	if d.NumVars() != len(p.vars) {
		return fmt.Errorf("the dataset has %d variables, the writer %d", d.NumVars(), len(p.vars))
	}
	for j, w := range p.vars {
		v := d.Var(j)
		if v.Name != w.Name || v.Kind != w.Kind {
			return fmt.Errorf("column %d of the dataset is %s variable %q, the writer's is %s variable %q", j+1, v.Kind, v.Name, w.Kind, w.Name)
		}
		if v.Kind == Continuous {
			for i, x := range d.Continuous(j) {
				if math.IsInf(x, 0) {
					return fmt.Errorf("row %d, variable %q: infinite value", i+1, v.Name)
				}
			}
			continue
		}
		if !slices.Equal(v.States, p.states[j]) {
			if err := p.buildTable(j, v); err != nil {
				return err
			}
		}
		k, bad := uint16(len(v.States)), p.bad[j]
		for i, c := range d.Discrete(j) {
			switch {
			case c == Missing:
			case c >= k:
				return fmt.Errorf("row %d, variable %q: state code %d out of range (%d states)", i+1, v.Name, c, k)
			case bad != nil && bad[c]:
				return fmt.Errorf("row %d, variable %q: state %q is not a decimal int32 in canonical form, but the column is written as INT32 since every state given to NewParquetWriter is; give NewParquetWriter every state", i+1, v.Name, v.States[c])
			}
		}
	}
	return nil
}

// buildTable builds the Parquet value of each state of discrete column j
// for the states of v.
func (p *ParquetWriter) buildTable(j int, v Variable) error {
	tab := make([]parquet.Value, len(v.States))
	var bad []bool
	for c, s := range v.States {
		if err := checkLabel(v, s); err != nil {
			return err
		}
		if !p.ints[j] {
			tab[c] = parquet.ByteArrayValue([]byte(s)).Level(0, 1, j)
			continue
		}
		x, ok := pqInt32(s)
		if !ok {
			if bad == nil {
				bad = make([]bool, len(v.States))
			}
			bad[c] = true
			continue
		}
		tab[c] = parquet.Int32Value(x).Level(0, 1, j)
	}
	p.states[j], p.table[j], p.bad[j] = slices.Clone(v.States), tab, bad
	return nil
}

// Write appends the rows of d to the file. d must have the writer's
// variables: the same names and kinds in the same order. The states of its
// discrete variables may differ from those given to NewParquetWriter (a
// block may extend them, as those of a BlockReader do): cells are written
// as the labels of d's own states, with one restriction: a column written
// as INT32 can only hold states that are decimal int32s in canonical form.
// A dataset that cannot be written (other variables, a code out of range,
// an infinite value, such a state) is an error before anything of it is
// written, and the writer remains usable; after an error of the Parquet
// library or of the underlying writer, every call returns that error.
func (p *ParquetWriter) Write(d *Dataset) (err error) {
	switch {
	case p.err != nil:
		return p.err
	case p.closed:
		return errors.New("data: ParquetWriter: Write after Close")
	case d == nil:
		return errors.New("data: ParquetWriter: nil dataset")
	}
	if err := p.prepare(d); err != nil {
		return fmt.Errorf("data: ParquetWriter: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("data: writing Parquet: %v", r)
		}
		if err != nil {
			p.err = err
		}
	}()
	cws := p.pw.ColumnWriters()
	if p.buf == nil {
		p.buf = make([]parquet.Value, parquetWriteBatch)
	}
	n := d.NumRows()
	for lo := 0; lo < n; {
		hi := min(n, lo+p.groupRows-p.inGroup)
		for j := range p.vars {
			if err := p.writeColumn(cws[j], d, j, lo, hi); err != nil {
				return fmt.Errorf("data: writing Parquet column %q: %w", p.vars[j].Name, err)
			}
		}
		p.inGroup += hi - lo
		lo = hi
		if p.inGroup >= p.groupRows {
			if err := p.pw.Flush(); err != nil {
				return fmt.Errorf("data: writing Parquet: %w", err)
			}
			p.inGroup = 0
		}
	}
	return nil
}

// writeColumn writes rows [lo, hi) of column j of d, checked by prepare.
func (p *ParquetWriter) writeColumn(cw *parquet.ColumnWriter, d *Dataset, j, lo, hi int) error {
	null := parquet.NullValue().Level(0, 0, j)
	for lo < hi {
		m := min(hi-lo, len(p.buf))
		buf := p.buf[:m]
		if codes := d.Discrete(j); codes != nil {
			tab := p.table[j]
			for i, c := range codes[lo : lo+m] {
				if c == Missing {
					buf[i] = null
				} else {
					buf[i] = tab[c]
				}
			}
		} else {
			for i, x := range d.Continuous(j)[lo : lo+m] {
				if math.IsNaN(x) {
					buf[i] = null
				} else {
					buf[i] = parquet.DoubleValue(x).Level(0, 1, j)
				}
			}
		}
		if _, err := cw.WriteRowValues(buf); err != nil {
			return err
		}
		lo += m
	}
	clear(p.buf) // drop references to the labels
	return nil
}

// Close writes the buffered rows and the file's footer. It does not close
// the underlying writer. A file closed without rows is a valid Parquet
// file with the columns and no row (which OpenBlocks rejects, as ReadCSV
// rejects a CSV file without data rows). Calls after the first return nil.
func (p *ParquetWriter) Close() (err error) {
	if p.closed {
		return nil
	}
	p.closed = true
	if p.err != nil {
		return p.err
	}
	defer recoveredWrite(&err)
	if err := p.pw.Close(); err != nil {
		return fmt.Errorf("data: writing Parquet: %w", err)
	}
	return nil
}

// WriteParquet writes d to w as a Parquet file, as a ParquetWriter does
// (see ParquetWriter for the column types and how the file reads back).
// It does not close w.
func WriteParquet(w io.Writer, d *Dataset) error {
	if d == nil {
		return errors.New("data: WriteParquet: nil dataset")
	}
	p, err := NewParquetWriter(w, d.vars)
	if err != nil {
		return err
	}
	if err := p.Write(d); err != nil {
		return err
	}
	return p.Close()
}
