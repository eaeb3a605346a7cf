package quartet

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

// productWeights are the integer weights w(a,b)·w(c,d) of a 2×3×4×5 table
// that is the product of a table of variables 0, 1 and one of 2, 3: its
// P01 unfolding has rank one, so the nuclear test picks P01 by far.
func productWeights() (n [4]int, w []int) {
	n = [4]int{2, 3, 4, 5}
	for a := range 2 {
		for b := range 3 {
			for c := range 4 {
				for d := range 5 {
					w = append(w, (1+a+2*b)*(1+(c*d)%3+c))
				}
			}
		}
	}
	return n, w
}

func productTable() *Table {
	n, w := productWeights()
	counts := make([]int64, len(w))
	for i, x := range w {
		counts[i] = int64(x)
	}
	t, err := NewTable(n, counts)
	if err != nil {
		panic(err)
	}
	return t
}

// productData has one row per unit of weight of productWeights, so that
// its 4-way table is productTable.
func productData(t *testing.T) *data.Dataset {
	t.Helper()
	n, w := productWeights()
	vars := make([]data.Variable, 4)
	cols := make([][]uint16, 4)
	for v := range vars {
		vars[v] = data.Variable{Name: "v" + strconv.Itoa(v), Kind: data.Discrete}
		for s := range n[v] {
			vars[v].States = append(vars[v].States, strconv.Itoa(s))
		}
	}
	for idx, k := range w {
		x := [4]int{}
		r := idx
		for v := 3; v >= 0; v-- {
			x[v] = r % n[v]
			r /= n[v]
		}
		for range k {
			for v := range 4 {
				cols[v] = append(cols[v], uint16(x[v]))
			}
		}
	}
	d, err := data.FromDiscrete(vars, cols)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkFailed checks that r is a failure: Err wraps ErrNumerical and
// contains want, no pairing is chosen, and the failed scores are NaN.
func checkFailed(t *testing.T, what string, r Result, want string, nanScores ...Pairing) {
	t.Helper()
	if !errors.Is(r.Err, ErrNumerical) || !strings.Contains(r.Err.Error(), want) {
		t.Errorf("%s: Err = %v, want ErrNumerical containing %q", what, r.Err, want)
	}
	if r.Pairing != Unresolved || r.Best != Unresolved || r.Margin != 0 {
		t.Errorf("%s: pairing %v, best %v, margin %g after a failure", what, r.Pairing, r.Best, r.Margin)
	}
	for _, p := range nanScores {
		if !math.IsNaN(r.Scores[p]) {
			t.Errorf("%s: failed score of %v is %g, want NaN", what, p, r.Scores[p])
		}
	}
}

// TestNuclearSVDFailure: an unfolding whose SVD does not converge got the
// score 0 (an empty list of singular values), which won the test; it is
// now reported. A dqds failure alone falls back to the general SVD.
func TestNuclearSVDFailure(t *testing.T) {
	tb := productTable()
	good := tb.Nuclear(0)
	if good.Err != nil || good.Pairing != P01 {
		t.Fatalf("fixture: %+v, want P01", good)
	}

	// dqds fails for P01 (6×20): the general SVD gives the same score.
	tb.failSVD = func(m, n int, dqds bool) bool { return dqds && m == 6 && n == 20 }
	r := tb.Nuclear(0)
	if r.Err != nil || r.Pairing != P01 || math.Abs(r.Scores[P01]-good.Scores[P01]) > 1e-12 {
		t.Errorf("dqds failure: %+v, want %+v", r, good)
	}

	// Both fail for P02 (8×15), the losing pairing: still a failure.
	tb.failSVD = func(m, n int, dqds bool) bool { return m == 8 && n == 15 }
	checkFailed(t, "P02 fails", tb.Nuclear(0), "8×15 unfolding of {0,2|1,3} did not converge", P02)

	// Both fail for P01, the winner.
	tb.failSVD = func(m, n int, dqds bool) bool { return m == 6 && n == 20 }
	for _, conc := range []bool{true, false} {
		r := tb.nuclear(0, conc)
		checkFailed(t, "P01 fails", r, "6×20 unfolding of {0,1|2,3} did not converge", P01)
		if r.Scores[P02] != good.Scores[P02] || r.Scores[P03] != good.Scores[P03] {
			t.Errorf("other scores %v, want %v", r.Scores, good.Scores)
		}
	}

	// The direct path (a table that needs scaling) fails the same way.
	small := &Table{N: tb.N, P: make([]float64, len(tb.P)), failSVD: tb.failSVD}
	for i, p := range tb.P {
		small.P[i] = p * 1e-300
	}
	checkFailed(t, "scaled", small.Nuclear(0), "6×20 unfolding", P01)

	// The pooled job does not carry the failure over.
	tb.failSVD = nil
	if r := tb.Nuclear(0); r != good {
		t.Errorf("after a failure: %+v, want %+v", r, good)
	}
}

// TestSpectralSVDFailure: a pair table whose SVD failed contributed log 1
// = 0 to its pairings' scores; it is now reported.
func TestSpectralSVDFailure(t *testing.T) {
	tb := productTable()
	tb.failSVD = func(m, n int, dqds bool) bool { return m == 2 && n == 3 } // variables 0 and 1
	checkFailed(t, "spectral", tb.Spectral(1, 0), "2×3 table of variables 0 and 1", P01)
}

// TestNonFiniteTable: a NaN cell made gonum panic ("cfrom is NaN"); a
// NaN or infinite cell is now a failure naming the cell.
func TestNonFiniteTable(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		tb := productTable()
		tb.P[1*60+2*20+3*5+4] = bad // cell (1,2,3,4)
		want := "table cell (1,2,3,4) is " + strconv.FormatFloat(bad, 'g', -1, 64)
		checkFailed(t, "nuclear", tb.Nuclear(0), want, P01, P02, P03)
		checkFailed(t, "spectral", tb.Spectral(2, 0), want)
	}
}

// TestMalformedTable: a Table whose cells do not match its shape panicked
// (slice bounds); it is now a failed result.
func TestMalformedTable(t *testing.T) {
	for _, tb := range []*Table{
		{N: [4]int{2, 2, 2, 2}, P: make([]float64, 15)},
		{N: [4]int{2, 0, 2, 2}},
	} {
		for _, r := range []Result{tb.Nuclear(0), tb.Spectral(1, 0)} {
			if r.Err == nil || r.Best != Unresolved {
				t.Errorf("%v: %+v, want an error", tb.N, r)
			}
		}
	}
}

// TestFourPointNaN: a NaN distance made its pairing lose silently.
func TestFourPointNaN(t *testing.T) {
	r := FourPoint(func(i, j int) float64 {
		if i == 0 && j == 2 {
			return math.NaN()
		}
		return 1
	}, 0)
	checkFailed(t, "four-point", r, "score of pairing {0,2|1,3} is NaN", P02)
}

// TestOraclesReportFailure: the oracles and Build return the failure as an
// error naming the variables, instead of a pairing.
func TestOraclesReportFailure(t *testing.T) {
	d := productData(t)
	o, err := NewDataOracle(d, TestNuclear, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := o.Resolve([4]int{0, 1, 2, 3}); err != nil || r.Pairing != P01 {
		t.Fatalf("fixture: %+v, %v", r, err)
	}
	o.failSVD = func(m, n int, dqds bool) bool { return m == 6 && n == 20 }
	wantMsg := `quartet test of "v0", "v1", "v2", "v3": quartet: the singular value decomposition of the 6×20 unfolding of {0,1|2,3} did not converge: latentree: numerical failure`
	if _, err := o.Resolve([4]int{0, 1, 2, 3}); !errors.Is(err, ErrNumerical) || err.Error() != wantMsg {
		t.Errorf("DataOracle.Resolve: %v\nwant %s", err, wantMsg)
	}
	for _, workers := range []int{1, 2} {
		if _, err := o.ResolveAll([][4]int{{3, 2, 1, 0}, {0, 1, 2, 3}}, workers); !errors.Is(err, ErrNumerical) || !strings.Contains(err.Error(), `"v0", "v1", "v2", "v3"`) {
			t.Errorf("ResolveAll, %d workers: %v", workers, err)
		}
	}
	so, err := NewDataOracle(d, TestSpectral, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	always := func(m, n int, dqds bool) bool { return true }
	so.failSVD, o.failSVD = always, always
	if _, err := so.Resolve([4]int{0, 1, 2, 3}); !errors.Is(err, ErrNumerical) {
		t.Errorf("spectral DataOracle.Resolve: %v", err)
	}
	if _, err := Build(d.Names(), o, BuildOptions{}); !errors.Is(err, ErrNumerical) {
		t.Errorf("Build: %v, want ErrNumerical", err)
	}

	rng := rand.New(rand.NewPCG(5, 5))
	tr, err := simulate.RandomBinary(rng, 6, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := simulate.General(rng, tr, simulate.GeneralOptions{ObservedStates: 3, HiddenMin: 2, HiddenMax: 2, Scheme: simulate.Perturbed, Mu: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	obs := mod.Tree.Observed()
	mo := &ModelOracle{Model: mod, Nodes: obs, failSVD: always}
	if _, err := mo.Resolve([4]int{0, 1, 2, 3}); !errors.Is(err, ErrNumerical) || !strings.Contains(err.Error(), strconv.Quote(mod.Tree.Name(obs[0]))) {
		t.Errorf("ModelOracle.Resolve: %v", err)
	}
	if _, err := Build(mod.Tree.ObservedNames(), mo, BuildOptions{}); !errors.Is(err, ErrNumerical) {
		t.Errorf("Build from a model: %v, want ErrNumerical", err)
	}
}

// badOracle returns what a faulty Oracle might: a failed Result with a
// nil error, or no best pairing at all.
type badOracle struct{ r Result }

func (b badOracle) Resolve([4]int) (Result, error) { return b.r, nil }

// TestBuildRejectsBadResults: a Result without a best pairing made Build
// index with -1 (a panic); it is now an error.
func TestBuildRejectsBadResults(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	for _, r := range []Result{
		{Pairing: Unresolved, Best: Unresolved},
		{Pairing: Unresolved, Best: Unresolved, Err: ErrNumerical},
		{Pairing: 7, Best: 7},
	} {
		_, err := Build(names, badOracle{r}, BuildOptions{})
		if err == nil {
			t.Errorf("%+v accepted", r)
		}
		if r.Err != nil && !errors.Is(err, ErrNumerical) {
			t.Errorf("%+v: %v does not wrap the result's error", r, err)
		}
		if errors.Is(err, tree.ErrInternal) {
			t.Errorf("%+v: a bad oracle reported as an internal error: %v", r, err)
		}
	}
}

// TestNewDataOracleContinuous: continuous columns are an error naming
// them all (the CLI forced them discrete, one state per distinct value).
func TestNewDataOracleContinuous(t *testing.T) {
	bin := []string{"0", "1"}
	vars := []data.Variable{
		{Name: "a", Kind: data.Discrete, States: bin}, {Name: "x", Kind: data.Continuous},
		{Name: "b", Kind: data.Discrete, States: bin}, {Name: "y", Kind: data.Continuous},
	}
	d, err := data.New(vars, 3)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewDataOracle(d, TestNuclear, 0, 0)
	want := `quartet: 2 variables are continuous ("x", "y"); quartet tests need discrete variables`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	var many []data.Variable
	for i := range 14 {
		many = append(many, data.Variable{Name: "c" + strconv.Itoa(i), Kind: data.Continuous})
	}
	dm, err := data.New(many, 2)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewDataOracle(dm, TestNuclear, 0, 0)
	if err == nil || !strings.Contains(err.Error(), `14 variables are continuous ("c0", `) || !strings.Contains(err.Error(), `"c9", ...)`) || strings.Contains(err.Error(), "c10") {
		t.Errorf("14 continuous: %v", err)
	}
	dd, err := data.New([]data.Variable{vars[0], vars[1], vars[2], {Name: "c", Kind: data.Discrete, States: bin}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewDataOracle(dd, TestNuclear, 0, 0)
	if want := `quartet: variable "x" is continuous; quartet tests need discrete variables`; err == nil || err.Error() != want {
		t.Errorf("one continuous: %v, want %s", err, want)
	}
	if _, err := NewDataOracle(nil, TestNuclear, 0, 0); err == nil {
		t.Error("nil dataset accepted")
	}
}
