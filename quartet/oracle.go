package quartet

import (
	"fmt"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/stats"
)

// Test names a quartet test.
type Test int

const (
	// TestNuclear is the nuclear-norm test of Ishteva et al. (2013).
	TestNuclear Test = iota
	// TestSpectral is Spectral@k (needs K).
	TestSpectral
)

// ParseTest returns the test with the given name (nuclear or spectral).
func ParseTest(s string) (Test, error) {
	switch s {
	case "nuclear":
		return TestNuclear, nil
	case "spectral":
		return TestSpectral, nil
	}
	return 0, fmt.Errorf("quartet: unknown test %q (want nuclear or spectral)", s)
}

func (t *Table) run(test Test, k int, minMargin float64) Result {
	if test == TestSpectral {
		return t.Spectral(k, minMargin)
	}
	return t.Nuclear(minMargin)
}

// DataOracle resolves quartets of the discrete columns of a dataset from
// their 4-way counts (rows missing any of the four are left out).
type DataOracle struct {
	Data *data.Dataset
	// Test and K select the test; MinMargin marks quartets with a
	// smaller relative margin as unresolved.
	Test      Test
	K         int
	MinMargin float64
	buf       []int64
}

// NewDataOracle checks that every column of d is discrete with at least
// two states.
func NewDataOracle(d *data.Dataset, test Test, k int, minMargin float64) (*DataOracle, error) {
	if d.NumVars() < 4 {
		return nil, fmt.Errorf("quartet: need at least 4 variables, got %d", d.NumVars())
	}
	for j := 0; j < d.NumVars(); j++ {
		v := d.Var(j)
		if v.Kind != data.Discrete {
			return nil, fmt.Errorf("quartet: variable %q is continuous; quartet tests need discrete variables", v.Name)
		}
		if v.NumStates() < 2 {
			return nil, fmt.Errorf("quartet: variable %q has a single state", v.Name)
		}
	}
	if test == TestSpectral && k < 1 {
		return nil, fmt.Errorf("quartet: Spectral@k needs k ≥ 1")
	}
	return &DataOracle{Data: d, Test: test, K: k, MinMargin: minMargin}, nil
}

// Table returns the 4-way probability table of the columns q.
func (o *DataOracle) Table(q [4]int) (*Table, error) {
	var err error
	o.buf, err = stats.Quartet(o.Data, q, o.buf)
	if err != nil {
		return nil, err
	}
	var n [4]int
	for i, j := range q {
		n[i] = o.Data.Var(j).NumStates()
	}
	return NewTable(n, o.buf)
}

// Resolve implements Oracle.
func (o *DataOracle) Resolve(q [4]int) (Result, error) {
	t, err := o.Table(q)
	if err != nil {
		return Result{}, err
	}
	return t.run(o.Test, o.K, o.MinMargin), nil
}

// ModelOracle resolves quartets of a model's observed nodes from their
// exact 4-way tables.
type ModelOracle struct {
	Model *model.Discrete
	// Nodes maps variable indices to the model's observed nodes.
	Nodes     []int
	Test      Test
	K         int
	MinMargin float64
}

// Resolve implements Oracle.
func (o *ModelOracle) Resolve(q [4]int) (Result, error) {
	nodes := []int{o.Nodes[q[0]], o.Nodes[q[1]], o.Nodes[q[2]], o.Nodes[q[3]]}
	p, err := o.Model.JointMarginal(nodes)
	if err != nil {
		return Result{}, err
	}
	var n [4]int
	for i, v := range nodes {
		n[i] = o.Model.States[v]
	}
	t := &Table{N: n, P: p}
	return t.run(o.Test, o.K, o.MinMargin), nil
}

// DistanceOracle resolves quartets by the four-point condition on a
// distance matrix.
type DistanceOracle struct {
	D         *distance.Matrix
	MinMargin float64
}

// Resolve implements Oracle.
func (o *DistanceOracle) Resolve(q [4]int) (Result, error) {
	return FourPoint(func(i, j int) float64 { return o.D.At(q[i], q[j]) }, o.MinMargin), nil
}
