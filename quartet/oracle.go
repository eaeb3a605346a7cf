package quartet

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/model/discrete"
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
	return t.nuclear(minMargin, true)
}

// ResolveAll resolves many quartets of the oracle's dataset in parallel
// on the given number of goroutines (default GOMAXPROCS), each counting
// its quartets' 4-way tables into one reused buffer. The results are in
// the order of quartets; the first error, a numerical failure of a test
// included, stops the work and is returned.
func (o *DataOracle) ResolveAll(quartets [][4]int, workers int) ([]Result, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(quartets)))
	out := make([]Result, len(quartets))
	var next atomic.Int64
	var failed atomic.Bool
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			// Each worker has its own count buffer and table; with one
			// worker the test itself may use both cores.
			mine := &DataOracle{Data: o.Data, Test: o.Test, K: o.K, MinMargin: o.MinMargin, failSVD: o.failSVD}
			for !failed.Load() {
				i := int(next.Add(1)) - 1
				if i >= len(quartets) {
					return
				}
				if err := mine.fill(&mine.tab, quartets[i]); err != nil {
					errs[w] = err
					failed.Store(true)
					return
				}
				if o.Test == TestSpectral {
					out[i] = mine.tab.Spectral(o.K, o.MinMargin)
				} else {
					out[i] = mine.tab.nuclear(o.MinMargin, workers == 1)
				}
				if out[i].Err != nil {
					errs[w] = o.testError(quartets[i], out[i].Err)
					failed.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// maxNamed bounds the variables an error message lists.
const maxNamed = 10

// DataOracle resolves quartets of the discrete columns of a dataset from
// their 4-way counts (rows missing any of the four are left out).
type DataOracle struct {
	Data *data.Dataset
	// Test and K select the test; MinMargin marks quartets with a
	// smaller relative margin as unresolved.
	Test      Test
	K         int
	MinMargin float64
	// Stats, if not nil, holds pairwise statistics of Data already
	// computed (stats.Compute); ClosenessMatrix then uses them instead of
	// passing over the data again.
	Stats   *stats.Stats
	buf     []int64
	tab     Table
	pairBuf []int64
	mi      map[[2]int]float64
	miAll   []float64
	failSVD func(rows, cols int, dqds bool) bool // test hook, see Table
}

// NewDataOracle checks that every column of d is discrete with at least
// two states; the error names every continuous variable (the tests need
// the 4-way tables of discrete variables; a continuous column is not
// binned).
func NewDataOracle(d *data.Dataset, test Test, k int, minMargin float64) (*DataOracle, error) {
	if d == nil {
		return nil, errors.New("quartet: no dataset")
	}
	if d.NumVars() < 4 {
		return nil, fmt.Errorf("quartet: need at least 4 variables, got %d", d.NumVars())
	}
	var continuous []string
	for j := 0; j < d.NumVars(); j++ {
		if v := d.Var(j); v.Kind != data.Discrete {
			continuous = append(continuous, strconv.Quote(v.Name))
		}
	}
	if n := len(continuous); n > 0 {
		what := "variable " + continuous[0] + " is"
		if n > 1 {
			what = fmt.Sprintf("%d variables are", n)
			if n > maxNamed {
				what += fmt.Sprintf(" continuous (%s, ...);", strings.Join(continuous[:maxNamed], ", "))
			} else {
				what += fmt.Sprintf(" continuous (%s);", strings.Join(continuous, ", "))
			}
		} else {
			what += " continuous;"
		}
		return nil, fmt.Errorf("quartet: %s quartet tests need discrete variables", what)
	}
	for j := 0; j < d.NumVars(); j++ {
		if v := d.Var(j); v.NumStates() < 2 {
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
	t := new(Table)
	if err := o.fill(t, q); err != nil {
		return nil, err
	}
	return t, nil
}

func (o *DataOracle) fill(t *Table, q [4]int) error {
	var err error
	o.buf, err = stats.Quartet(o.Data, q, o.buf)
	if err != nil {
		return err
	}
	var n [4]int
	for i, j := range q {
		n[i] = o.Data.Var(j).NumStates()
	}
	t.failSVD = o.failSVD
	return t.setCounts(n, o.buf)
}

// Resolve implements Oracle. (It reuses one table; an oracle is not safe
// for concurrent use.)
func (o *DataOracle) Resolve(q [4]int) (Result, error) {
	if err := o.fill(&o.tab, q); err != nil {
		return Result{}, err
	}
	r := o.tab.run(o.Test, o.K, o.MinMargin)
	if r.Err != nil {
		return r, o.testError(q, r.Err)
	}
	return r, nil
}

// testError names the variables of a failed test.
func (o *DataOracle) testError(q [4]int, err error) error {
	d := o.Data
	return fmt.Errorf("quartet test of %q, %q, %q, %q: %w", d.Var(q[0]).Name, d.Var(q[1]).Name, d.Var(q[2]).Name, d.Var(q[3]).Name, err)
}

// Closeness implements Closer: the mutual information (nats) of columns i
// and j over the rows that observe both, cached.
func (o *DataOracle) Closeness(i, j int) (float64, error) {
	if i > j {
		i, j = j, i
	}
	if v, ok := o.mi[[2]int{i, j}]; ok {
		return v, nil
	}
	ni, nj := o.Data.Var(i).NumStates(), o.Data.Var(j).NumStates()
	o.pairBuf = slices.Grow(o.pairBuf[:0], ni*nj)[:ni*nj]
	clear(o.pairBuf)
	x, y := o.Data.Discrete(i), o.Data.Discrete(j)
	for r, a := range x {
		b := y[r]
		if a == data.Missing || b == data.Missing {
			continue
		}
		o.pairBuf[int(a)*nj+int(b)]++
	}
	p := make([]float64, ni*nj)
	for k, c := range o.pairBuf {
		p[k] = float64(c)
	}
	v := distance.TableMutualInformation(p, ni, nj)
	if o.mi == nil {
		o.mi = map[[2]int]float64{}
	}
	o.mi[[2]int{i, j}] = v
	return v, nil
}

// ClosenessMatrix implements ClosenessMatrix: all pairwise mutual
// informations from one pass of the statistics over the data (both cores),
// computed once per oracle (the oracle may be reused with another Test).
func (o *DataOracle) ClosenessMatrix() ([]float64, error) {
	if o.miAll != nil {
		return o.miAll, nil
	}
	st := o.Stats
	if st == nil {
		var err error
		if st, err = stats.Compute(o.Data, stats.Options{}); err != nil {
			return nil, err
		}
	} else if st.NumVars() != o.Data.NumVars() {
		return nil, fmt.Errorf("quartet: statistics of %d variables for data of %d", st.NumVars(), o.Data.NumVars())
	}
	mi, err := distance.MutualInformation(st, 0)
	if err != nil {
		return nil, err
	}
	m := o.Data.NumVars()
	if o.mi == nil {
		o.mi = make(map[[2]int]float64, m*(m-1)/2)
	}
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			o.mi[[2]int{i, j}] = mi[i*m+j]
		}
	}
	o.miAll = mi
	return mi, nil
}

// ModelOracle resolves quartets of a model's observed nodes from their
// exact 4-way tables.
type ModelOracle struct {
	Model *discrete.Model
	// Nodes maps variable indices to the model's observed nodes.
	Nodes     []int
	Test      Test
	K         int
	MinMargin float64
	failSVD   func(rows, cols int, dqds bool) bool // test hook, see Table
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
	t := &Table{N: n, P: p, failSVD: o.failSVD}
	r := t.run(o.Test, o.K, o.MinMargin)
	if r.Err != nil {
		tr := o.Model.Tree
		return r, fmt.Errorf("quartet test of %q, %q, %q, %q: %w", tr.Name(nodes[0]), tr.Name(nodes[1]), tr.Name(nodes[2]), tr.Name(nodes[3]), r.Err)
	}
	return r, nil
}

// Closeness implements Closer with the exact mutual information.
func (o *ModelOracle) Closeness(i, j int) (float64, error) {
	a, b := o.Nodes[i], o.Nodes[j]
	p, err := o.Model.JointMarginal([]int{a, b})
	if err != nil {
		return 0, err
	}
	return distance.TableMutualInformation(p, o.Model.States[a], o.Model.States[b]), nil
}

// DistanceOracle resolves quartets by the four-point condition on a
// distance matrix.
type DistanceOracle struct {
	D         *distance.Matrix
	MinMargin float64
}

// Resolve implements Oracle.
func (o *DistanceOracle) Resolve(q [4]int) (Result, error) {
	r := FourPoint(func(i, j int) float64 { return o.D.At(q[i], q[j]) }, o.MinMargin)
	if r.Err != nil {
		return r, fmt.Errorf("quartet test of %q, %q, %q, %q: %w", o.D.Names[q[0]], o.D.Names[q[1]], o.D.Names[q[2]], o.D.Names[q[3]], r.Err)
	}
	return r, nil
}

// Closeness implements Closer: the negated distance.
func (o *DistanceOracle) Closeness(i, j int) (float64, error) {
	return -o.D.At(i, j), nil
}
