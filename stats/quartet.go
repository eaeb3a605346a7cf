package stats

import (
	"errors"
	"fmt"

	"github.com/latentree/latentree/data"
)

// maxQuartetCells bounds the size of a four-way table (512 MiB of counts).
const maxQuartetCells = 1 << 26

// quartetSpec is a checked quartet: its columns and state counts.
type quartetSpec struct {
	cols  [4][]uint16
	n     [4]int
	cells int
}

// checkQuartet validates vars against d. Errors of checkQuartet and
// countQuartet lack the package prefix, which callers add.
func checkQuartet(d *data.Dataset, vars [4]int) (quartetSpec, error) {
	var q quartetSpec
	if d == nil {
		return q, errors.New("nil dataset")
	}
	cells := 1
	for k, j := range vars {
		if j < 0 || j >= d.NumVars() {
			return q, fmt.Errorf("quartet variable %d out of range [0, %d)", j, d.NumVars())
		}
		v := d.Var(j)
		if v.Kind != data.Discrete {
			return q, fmt.Errorf("quartet variable %q is not discrete", v.Name)
		}
		for _, i := range vars[:k] {
			if i == j {
				return q, fmt.Errorf("quartet repeats variable %q", v.Name)
			}
		}
		col := d.Discrete(j)
		if len(col) != d.NumRows() {
			return q, fmt.Errorf("column %q has %d cells, want %d", v.Name, len(col), d.NumRows())
		}
		q.cols[k] = col
		q.n[k] = v.NumStates()
		cells *= q.n[k]
		if cells > maxQuartetCells {
			return q, fmt.Errorf("quartet table of %v would exceed %d cells", vars, maxQuartetCells)
		}
	}
	q.cells = cells
	return q, nil
}

// Quartet returns the joint counts of the four discrete variables vars over
// the rows where all four are observed, as a row-major n0×n1×n2×n3 table
// (the index of states (s0, s1, s2, s3) is ((s0·n1+s1)·n2+s2)·n3+s3). It
// writes into dst when its capacity suffices and allocates otherwise. It
// returns an error if a variable is out of range, not discrete, repeated, or
// holds an invalid state code, or if the table would be too large.
func Quartet(d *data.Dataset, vars [4]int, dst []int64) ([]int64, error) {
	q, err := checkQuartet(d, vars)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	if cap(dst) >= q.cells {
		dst = dst[:q.cells]
		clear(dst)
	} else {
		dst = make([]int64, q.cells)
	}
	if err := countQuartet(d, vars, &q, dst); err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	return dst, nil
}

// countQuartet adds the counts of q into tab.
func countQuartet(d *data.Dataset, vars [4]int, q *quartetSpec, tab []int64) error {
	c0, c1, c2, c3 := q.cols[0], q.cols[1], q.cols[2], q.cols[3]
	n := len(c0)
	c1, c2, c3 = c1[:n], c2[:n], c3[:n]
	n0, n1, n2, n3 := uint(q.n[0]), uint(q.n[1]), uint(q.n[2]), uint(q.n[3])
	for r, x0 := range c0 {
		x1, x2, x3 := c1[r], c2[r], c3[r]
		if uint(x0) < n0 && uint(x1) < n1 && uint(x2) < n2 && uint(x3) < n3 {
			tab[((uint(x0)*n1+uint(x1))*n2+uint(x2))*n3+uint(x3)]++
			continue
		}
		for k, x := range [4]uint16{x0, x1, x2, x3} {
			if x != data.Missing && int(x) >= q.n[k] {
				v := d.Var(vars[k])
				return fmt.Errorf("row %d, variable %q: state code %d out of range (%d states)", r+1, v.Name, x, q.n[k])
			}
		}
	}
	return nil
}
