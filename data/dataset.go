package data

import (
	"errors"
	"fmt"
	"math"
)

// Kind says whether a variable is discrete or continuous.
type Kind uint8

const (
	// Discrete variables take one of a finite set of labelled states.
	Discrete Kind = iota
	// Continuous variables take real values.
	Continuous
	// Mixed is the kind of a model over variables of both kinds (see
	// model/mixed); no variable has it.
	Mixed
)

func (k Kind) String() string {
	switch k {
	case Discrete:
		return "discrete"
	case Continuous:
		return "continuous"
	case Mixed:
		return "mixed"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Missing is the state code of a missing discrete cell.
const Missing uint16 = 0xFFFF

// MaxStates is the largest number of states a discrete variable may have.
const MaxStates = int(Missing)

// Variable describes one column of a Dataset.
type Variable struct {
	Name string
	Kind Kind
	// States are the labels of a discrete variable's states; code c in the
	// data means States[c]. Nil for continuous variables.
	States []string
}

// NumStates returns the number of states of a discrete variable (0 for a
// continuous one).
func (v Variable) NumStates() int { return len(v.States) }

// StateIndex returns the code of the state with the given label.
func (v Variable) StateIndex(label string) (int, bool) {
	for i, s := range v.States {
		if s == label {
			return i, true
		}
	}
	return -1, false
}

// Dataset is a table of rows over named variables, stored by column.
type Dataset struct {
	vars  []Variable
	index map[string]int
	disc  [][]uint16
	cont  [][]float64
	rows  int
	// weights are the row weights as given (nil: every row counts 1), of
	// kind wkind (see SetWeights).
	weights []float64
	wkind   WeightKind
}

// New returns a dataset with the given variables and number of rows. Every
// discrete cell is initialised to state 0 and every continuous cell to 0.
// Variable names must be non-empty and unique; discrete variables need at
// least one state and at most MaxStates.
func New(vars []Variable, rows int) (*Dataset, error) {
	if rows < 0 {
		return nil, errors.New("data: negative number of rows")
	}
	d := &Dataset{
		vars:  make([]Variable, len(vars)),
		index: make(map[string]int, len(vars)),
		disc:  make([][]uint16, len(vars)),
		cont:  make([][]float64, len(vars)),
		rows:  rows,
	}
	for j, v := range vars {
		if v.Name == "" {
			return nil, fmt.Errorf("data: variable %d has no name", j+1)
		}
		if _, dup := d.index[v.Name]; dup {
			return nil, fmt.Errorf("data: duplicate variable name %q", v.Name)
		}
		d.index[v.Name] = j
		switch v.Kind {
		case Discrete:
			if len(v.States) == 0 {
				return nil, fmt.Errorf("data: discrete variable %q has no states", v.Name)
			}
			if len(v.States) > MaxStates {
				return nil, fmt.Errorf("data: discrete variable %q has %d states, more than the maximum %d", v.Name, len(v.States), MaxStates)
			}
			v.States = append([]string(nil), v.States...)
			d.disc[j] = make([]uint16, rows)
		case Continuous:
			v.States = nil
			d.cont[j] = make([]float64, rows)
		default:
			return nil, fmt.Errorf("data: variable %q has unknown kind %d", v.Name, v.Kind)
		}
		d.vars[j] = v
	}
	return d, nil
}

// NumRows returns the number of rows.
func (d *Dataset) NumRows() int { return d.rows }

// NumVars returns the number of variables (columns).
func (d *Dataset) NumVars() int { return len(d.vars) }

// Var returns variable j.
func (d *Dataset) Var(j int) Variable { return d.vars[j] }

// Vars returns a copy of the variables.
func (d *Dataset) Vars() []Variable { return append([]Variable(nil), d.vars...) }

// Names returns the variable names in column order.
func (d *Dataset) Names() []string {
	out := make([]string, len(d.vars))
	for j, v := range d.vars {
		out[j] = v.Name
	}
	return out
}

// Index returns the column of the variable with the given name.
func (d *Dataset) Index(name string) (int, bool) {
	j, ok := d.index[name]
	return j, ok
}

// Discrete returns the codes of discrete column j (shared, not copied).
// It returns nil if the column is continuous.
func (d *Dataset) Discrete(j int) []uint16 { return d.disc[j] }

// Continuous returns the values of continuous column j (shared, not
// copied). It returns nil if the column is discrete.
func (d *Dataset) Continuous(j int) []float64 { return d.cont[j] }

// AllDiscrete reports whether every variable is discrete.
func (d *Dataset) AllDiscrete() bool {
	for _, v := range d.vars {
		if v.Kind != Discrete {
			return false
		}
	}
	return true
}

// AllContinuous reports whether every variable is continuous.
func (d *Dataset) AllContinuous() bool {
	for _, v := range d.vars {
		if v.Kind != Continuous {
			return false
		}
	}
	return true
}

// MissingCount returns the number of missing cells of column j.
func (d *Dataset) MissingCount(j int) int {
	n := 0
	if c := d.disc[j]; c != nil {
		for _, x := range c {
			if x == Missing {
				n++
			}
		}
		return n
	}
	for _, x := range d.cont[j] {
		if math.IsNaN(x) {
			n++
		}
	}
	return n
}

// HasMissing reports whether any cell of the dataset is missing.
func (d *Dataset) HasMissing() bool {
	for j := range d.vars {
		if d.MissingCount(j) > 0 {
			return true
		}
	}
	return false
}

// Validate checks that every discrete code is a valid state or Missing and
// every continuous value is finite or NaN (missing).
func (d *Dataset) Validate() error {
	for j, v := range d.vars {
		if c := d.disc[j]; c != nil {
			if len(c) != d.rows {
				return fmt.Errorf("data: column %q has %d cells, want %d", v.Name, len(c), d.rows)
			}
			k := uint16(len(v.States))
			for i, x := range c {
				if x != Missing && x >= k {
					return fmt.Errorf("data: row %d, variable %q: state code %d out of range (%d states)", i+1, v.Name, x, k)
				}
			}
			continue
		}
		c := d.cont[j]
		if len(c) != d.rows {
			return fmt.Errorf("data: column %q has %d cells, want %d", v.Name, len(c), d.rows)
		}
		for i, x := range c {
			if math.IsInf(x, 0) {
				return fmt.Errorf("data: row %d, variable %q: infinite value", i+1, v.Name)
			}
		}
	}
	return nil
}

// Select returns a dataset with the given columns, in that order. Column
// data and row weights are shared with d.
func (d *Dataset) Select(cols []int) (*Dataset, error) {
	out := &Dataset{rows: d.rows, index: make(map[string]int, len(cols)), weights: d.weights, wkind: d.wkind}
	for _, j := range cols {
		if j < 0 || j >= len(d.vars) {
			return nil, fmt.Errorf("data: column %d out of range", j)
		}
		v := d.vars[j]
		if _, dup := out.index[v.Name]; dup {
			return nil, fmt.Errorf("data: column %q selected twice", v.Name)
		}
		out.index[v.Name] = len(out.vars)
		out.vars = append(out.vars, v)
		out.disc = append(out.disc, d.disc[j])
		out.cont = append(out.cont, d.cont[j])
	}
	return out, nil
}

// SelectNames is Select by variable name.
func (d *Dataset) SelectNames(names []string) (*Dataset, error) {
	cols := make([]int, len(names))
	for k, n := range names {
		j, ok := d.index[n]
		if !ok {
			return nil, fmt.Errorf("data: no variable named %q", n)
		}
		cols[k] = j
	}
	return d.Select(cols)
}

// Rows returns a new dataset holding copies of the given rows, in order,
// with their weights.
func (d *Dataset) Rows(rows []int) (*Dataset, error) {
	out, err := New(d.vars, len(rows))
	if err != nil {
		return nil, err
	}
	if d.weights != nil {
		out.weights, out.wkind = make([]float64, len(rows)), d.wkind
		for k, i := range rows {
			if i < 0 || i >= d.rows {
				return nil, fmt.Errorf("data: row %d out of range", i)
			}
			out.weights[k] = d.weights[i]
		}
	}
	for j := range d.vars {
		for k, i := range rows {
			if i < 0 || i >= d.rows {
				return nil, fmt.Errorf("data: row %d out of range", i)
			}
			if d.disc[j] != nil {
				out.disc[j][k] = d.disc[j][i]
			} else {
				out.cont[j][k] = d.cont[j][i]
			}
		}
	}
	return out, nil
}

// FromDiscrete builds a dataset from discrete columns of state codes. The
// columns are used, not copied, and are validated.
func FromDiscrete(vars []Variable, cols [][]uint16) (*Dataset, error) {
	if len(vars) != len(cols) {
		return nil, fmt.Errorf("data: %d variables but %d columns", len(vars), len(cols))
	}
	d, err := withColumns(vars, colRows(cols), cols, nil)
	if err != nil {
		return nil, err
	}
	for _, v := range d.vars {
		if v.Kind != Discrete {
			return nil, fmt.Errorf("data: variable %q is not discrete", v.Name)
		}
	}
	return d, d.Validate()
}

// FromContinuous builds a dataset from continuous columns. The columns are
// used, not copied, and are validated.
func FromContinuous(names []string, cols [][]float64) (*Dataset, error) {
	if len(names) != len(cols) {
		return nil, fmt.Errorf("data: %d names but %d columns", len(names), len(cols))
	}
	vars := make([]Variable, len(names))
	for j, n := range names {
		vars[j] = Variable{Name: n, Kind: Continuous}
	}
	d, err := withColumns(vars, colRows(cols), nil, cols)
	if err != nil {
		return nil, err
	}
	return d, d.Validate()
}

// colRows returns the length of the first column, 0 if there is none.
func colRows[T any](cols [][]T) int {
	if len(cols) == 0 {
		return 0
	}
	return len(cols[0])
}

// withColumns returns a dataset of the variables vars and rows rows whose
// column j is disc[j] for a discrete variable and cont[j] for a continuous
// one (used, not copied; nil disc or cont leaves those columns nil). It
// checks the variables as New does, not the columns.
func withColumns(vars []Variable, rows int, disc [][]uint16, cont [][]float64) (*Dataset, error) {
	d, err := New(vars, 0)
	if err != nil {
		return nil, err
	}
	d.rows = rows
	for j, v := range d.vars {
		switch {
		case v.Kind == Discrete && disc != nil:
			d.disc[j] = disc[j]
		case v.Kind == Continuous && cont != nil:
			d.cont[j] = cont[j]
		}
	}
	return d, nil
}
