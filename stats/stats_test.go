package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
)

// specs returns n column specs cycling through the given states and
// missing probabilities.
func specs(n int, states []int, miss []float64) []colSpec {
	out := make([]colSpec, n)
	for j := range out {
		out[j] = colSpec{states: states[j%len(states)], miss: miss[(j/len(states))%len(miss)]}
	}
	return out
}

var naiveCases = []struct {
	name string
	rows int
	cols []colSpec
}{
	{"binary", 1000, specs(13, []int{2}, []float64{0})},
	{"binary-missing", 777, specs(13, []int{2}, []float64{0, 0.1, 0.5})},
	{"binary-all-missing", 300, specs(5, []int{2}, []float64{0.05, 1})},
	{"multistate", 1500, specs(11, []int{3, 4, 7, 1}, []float64{0})},
	{"multistate-missing", 1501, specs(11, []int{3, 4, 7, 1}, []float64{0, 0.2})},
	{"binary-and-multistate", 1300, specs(12, []int{2, 2, 5, 300}, []float64{0, 0.15})},
	{"one-binary", 500, specs(4, []int{2, 3}, []float64{0.1})},
	{"continuous", 900, specs(7, []int{0}, []float64{0})},
	{"continuous-missing", 901, specs(9, []int{0}, []float64{0, 0.3, 0.99})},
	{"mixed", 1100, specs(12, []int{2, 0, 3, 0}, []float64{0})},
	{"mixed-missing", 1111, specs(14, []int{2, 0, 3, 0, 2}, []float64{0.1, 0, 0.4})},
	{"one-row", 1, specs(6, []int{2, 0, 3}, []float64{0, 0.5})},
	{"no-rows", 0, specs(6, []int{2, 0, 3}, []float64{0})},
	{"one-variable", 50, specs(1, []int{2}, []float64{0.1})},
	{"no-variables", 10, nil},
}

func TestComputeMatchesNaive(t *testing.T) {
	for ci, tc := range naiveCases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(ci)))
			d := randDataset(t, rng, tc.rows, tc.cols)
			s, err := Compute(d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !s.HasPairs() {
				t.Fatal("HasPairs false")
			}
			checkNaive(t, d, s)
		})
	}
}

// TestBlocksAndWorkers forces many row blocks with odd boundaries and
// checks that every worker count gives bit-for-bit the same statistics.
func TestBlocksAndWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	cols := specs(17, []int{2, 2, 0, 3, 2, 0}, []float64{0, 0.2})
	d := randDataset(t, rng, 5000, cols)
	for _, budget := range []int{1, 1000, cacheBudget} {
		one, err := compute(d, Options{Workers: 1}, budget)
		if err != nil {
			t.Fatal(err)
		}
		checkNaive(t, d, one)
		for _, w := range []int{2, 3, 8, 200} {
			s, err := compute(d, Options{Workers: w}, budget)
			if err != nil {
				t.Fatal(err)
			}
			sameStats(t, s, one, 0)
		}
	}
}

// TestFixture checks hand-computed statistics of a small dataset.
func TestFixture(t *testing.T) {
	M := data.Missing
	vars := []data.Variable{
		{Name: "a", Kind: data.Discrete, States: []string{"no", "yes"}},
		{Name: "b", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "c", Kind: data.Discrete, States: []string{"x", "y", "z"}},
	}
	cols := [][]uint16{
		{0, 1, 1, 0, 1, M, 1},
		{0, 1, 0, M, 1, 1, 1},
		{2, 0, 1, 2, M, 0, 0},
	}
	d, err := data.FromDiscrete(vars, cols)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compute(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Rows with both a and b observed: 0,1,2,4,6.
	// (a,b): (0,0) (1,1) (1,0) (1,1) (1,1) -> n00=1 n01=0 n10=1 n11=3.
	check := func(name string, got, want []int64) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("Pair(a,b)", s.Pair(0, 1, nil), []int64{1, 0, 1, 3})
	check("Pair(b,a)", s.Pair(1, 0, nil), []int64{1, 1, 0, 3})
	// (a,c) rows 0,1,2,3,6: (0,z) (1,x) (1,y) (0,z) (1,x).
	check("Pair(a,c)", s.Pair(0, 2, nil), []int64{0, 0, 2, 2, 1, 0})
	// (c,b) rows 0,1,2,5,6: (z,0) (x,1) (y,0) (x,1) (x,1).
	check("Pair(c,b)", s.Pair(2, 1, nil), []int64{0, 3, 1, 0, 1, 0})
	check("Pair(c,c)", s.Pair(2, 2, nil), []int64{3, 0, 0, 0, 1, 0, 0, 0, 2})
	check("Marginal(a)", s.Marginal(0), []int64{2, 4})
	check("Marginal(c)", s.Marginal(2), []int64{3, 1, 2})
	if s.Count(0) != 6 || s.Count(1) != 6 || s.Count(2) != 6 || s.Rows() != 7 {
		t.Errorf("counts %d %d %d rows %d", s.Count(0), s.Count(1), s.Count(2), s.Rows())
	}
	if s.PairCount(0, 1) != 5 || s.PairCount(2, 0) != 5 {
		t.Errorf("PairCount = %d %d, want 5 5", s.PairCount(0, 1), s.PairCount(2, 0))
	}
	// dst reuse.
	buf := make([]int64, 0, 10)
	got := s.Pair(0, 2, buf)
	if &got[0] != &buf[:1][0] {
		t.Error("Pair did not reuse dst")
	}

	// Continuous: x = 1 2 3 4 NaN, y = 2 4 7 NaN 5.
	nan := math.NaN()
	dc, err := data.FromContinuous([]string{"x", "y"}, [][]float64{{1, 2, 3, 4, nan}, {2, 4, 7, nan, 5}})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Compute(dc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Mean x = 2.5, var x = 5/3; mean y = 4.5, var y = (6.25+0.25+6.25+0.25)/3 = 13/3.
	// Pairwise rows 0..2: x̄ = 2, ȳ = 13/3; C = (−1)(−7/3)+0+(1)(8/3) = 5;
	// cov = 5/2; M2x = 2, M2y = 49/9+1/9+64/9 = 114/9; corr = 5/√(2·114/9).
	approx := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-14*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	approx("Mean(x)", sc.Mean(0), 2.5)
	approx("Mean(y)", sc.Mean(1), 4.5)
	approx("Var(x)", sc.Cov(0, 0), 5.0/3)
	approx("Var(y)", sc.Cov(1, 1), 13.0/3)
	approx("Cov(x,y)", sc.Cov(0, 1), 2.5)
	approx("Cov(y,x)", sc.Cov(1, 0), 2.5)
	approx("Corr(x,y)", sc.Corr(0, 1), 5/math.Sqrt(2*114.0/9))
	approx("Corr(x,x)", sc.Corr(0, 0), 1)
	if sc.PairCount(0, 1) != 3 {
		t.Errorf("PairCount(x,y) = %d, want 3", sc.PairCount(0, 1))
	}
	n, mx, my, m2x, m2y, c, ok := sc.PairMoments(1, 0)
	if !ok || n != 3 {
		t.Fatalf("PairMoments = %v %v", n, ok)
	}
	approx("pair mean y", mx, 13.0/3)
	approx("pair mean x", my, 2)
	approx("pair M2 y", m2x, 114.0/9)
	approx("pair M2 x", m2y, 2)
	approx("pair C", c, 5)
}

func TestNoPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	d := randDataset(t, rng, 400, specs(6, []int{2, 0, 3}, []float64{0.1}))
	s, err := Compute(d, Options{NoPairs: true})
	if err != nil {
		t.Fatal(err)
	}
	full, err := Compute(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.HasPairs() {
		t.Fatal("HasPairs true with NoPairs")
	}
	for j := 0; j < d.NumVars(); j++ {
		if s.Count(j) != full.Count(j) || fmt.Sprint(s.Marginal(j)) != fmt.Sprint(full.Marginal(j)) ||
			fmt.Sprint(s.Mean(j), s.Cov(j, j)) != fmt.Sprint(full.Mean(j), full.Cov(j, j)) {
			t.Errorf("variable %d differs without pairs", j)
		}
	}
	if s.Pair(0, 2, nil) != nil || s.PairCount(0, 1) != -1 || !math.IsNaN(s.Cov(1, 4)) || !math.IsNaN(s.Corr(1, 4)) {
		t.Error("pair accessors should report missing pairs")
	}
	if _, _, _, _, _, _, ok := s.PairMoments(1, 4); ok {
		t.Error("PairMoments ok without pairs")
	}
	if s.PairCount(2, 2) != s.Count(2) || s.Pair(0, 0, nil) == nil {
		t.Error("diagonal accessors should work without pairs")
	}
}

func TestComputeErrors(t *testing.T) {
	if _, err := Compute(nil, Options{}); err == nil {
		t.Error("nil dataset: no error")
	}
	d, err := data.New([]data.Variable{
		{Name: "a", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "b", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "c", Kind: data.Discrete, States: []string{"0", "1", "2"}},
		{Name: "x", Kind: data.Continuous},
	}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compute(d, Options{Workers: -1}); err == nil {
		t.Error("negative workers: no error")
	}
	cases := []struct {
		set  func()
		undo func()
		want string
	}{
		{func() { d.Discrete(0)[17] = 2 }, func() { d.Discrete(0)[17] = 0 }, `row 18, variable "a": state code 2`},
		{func() { d.Discrete(1)[5] = 0x8000 }, func() { d.Discrete(1)[5] = 0 }, `row 6, variable "b": state code 32768`},
		{func() { d.Discrete(2)[99] = 3 }, func() { d.Discrete(2)[99] = 0 }, `row 100, variable "c": state code 3`},
		{func() { d.Continuous(3)[3] = math.Inf(-1) }, func() { d.Continuous(3)[3] = 0 }, `row 4, variable "x": infinite`},
		{func() { d.Continuous(3)[3] = math.MaxFloat64; d.Continuous(3)[4] = math.MaxFloat64 }, func() { d.Continuous(3)[3] = 0; d.Continuous(3)[4] = 0 }, `"x": values too large`},
	}
	for _, c := range cases {
		c.set()
		for _, opt := range []Options{{}, {NoPairs: true}} {
			_, err := Compute(d, opt)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "stats: ") {
				t.Errorf("got error %v, want one containing %q", err, c.want)
			}
		}
		c.undo()
	}
	if _, err := Compute(d, Options{}); err != nil {
		t.Errorf("valid dataset: %v", err)
	}
	// Impossibly large tables.
	many := make([]string, data.MaxStates)
	for k := range many {
		many[k] = fmt.Sprint(k)
	}
	big, err := data.New([]data.Variable{
		{Name: "p", Kind: data.Discrete, States: many},
		{Name: "q", Kind: data.Discrete, States: many},
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compute(big, Options{}); err == nil || !strings.Contains(err.Error(), "more than the limit of 4.0 GiB") {
		t.Errorf("huge tables: got %v", err)
	}
	if _, err := Compute(big, Options{NoPairs: true}); err != nil {
		t.Errorf("huge tables with NoPairs: %v", err)
	}
}

// TestConstantAndDegenerate covers constant columns and single observed
// rows, where variances and correlations are undefined.
func TestConstantAndDegenerate(t *testing.T) {
	nan := math.NaN()
	d, err := data.FromContinuous([]string{"k", "x", "one"}, [][]float64{
		{3, 3, 3, 3},
		{1, 2, 4, 8},
		{nan, 5, nan, nan},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compute(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Cov(0, 0) != 0 || s.Cov(0, 1) != 0 || !math.IsNaN(s.Corr(0, 1)) || !math.IsNaN(s.Corr(0, 0)) {
		t.Errorf("constant: var %v cov %v corr %v %v", s.Cov(0, 0), s.Cov(0, 1), s.Corr(0, 1), s.Corr(0, 0))
	}
	if !math.IsNaN(s.Cov(2, 2)) || !math.IsNaN(s.Cov(1, 2)) || s.Mean(2) != 5 || s.PairCount(1, 2) != 1 {
		t.Errorf("single row: var %v cov %v mean %v n %d", s.Cov(2, 2), s.Cov(1, 2), s.Mean(2), s.PairCount(1, 2))
	}
	checkNaive(t, d, s)
}

func TestNames(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	d := randDataset(t, rng, 10, specs(3, []int{2, 0}, []float64{0}))
	s, err := Compute(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(s.Names()) != "[v0 v1 v2]" {
		t.Errorf("Names = %v", s.Names())
	}
	if _, ok := s.Index("nope"); ok {
		t.Error("Index of unknown name ok")
	}
	// The statistics own their variables: changing the dataset's later
	// does not matter, and Names returns a fresh slice.
	s.Names()[0] = "zzz"
	if s.Var(0).Name != "v0" {
		t.Error("Names shares storage")
	}
}

// Pair statistics too large to hold are refused before anything is
// allocated, with an error naming the size, the limit, the variable with
// the most states and the remedies a command-line user can follow: two
// 46,000-state columns (16 GiB of counts under the old cell limit) and
// 30,000 binary columns (m²/2 tables of 4 cells).
func TestPairTablesTooLarge(t *testing.T) {
	labels := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprint(i)
		}
		return s
	}
	binary := make([]data.Variable, 30000)
	for j := range binary {
		binary[j] = data.Variable{Name: fmt.Sprintf("v%d", j), Kind: data.Discrete, States: []string{"0", "1"}}
	}
	const remedy = "read fewer columns (--columns, --ignore; data.ReadOptions.Columns, Ignore), skip the columns with many states, or raise the limit if the machine has the memory (--max-pair-memory; stats.Options.MaxPairBytes)"
	for _, tc := range []struct {
		name string
		vars []data.Variable
		rows int
		want string
	}{
		{"46000 states", []data.Variable{
			{Name: "a", Kind: data.Discrete, States: labels(46000)},
			{Name: "b", Kind: data.Discrete, States: labels(46000)},
			{Name: "x", Kind: data.Continuous},
		}, 1, `stats: the pair statistics of 3 variables (2 discrete, 1 continuous), the most states being the 46000 of "a" would take 15.8 GiB, more than the limit of 4.0 GiB: ` + remedy},
		{"30000 binary", binary, 100, "stats: the pair statistics of 30000 variables (30000 discrete, 0 continuous) would take 13.4 GiB, more than the limit of 4.0 GiB: " + remedy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := data.New(tc.vars, tc.rows)
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = Compute(d, Options{})
			runtime.ReadMemStats(&after)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant %s", err, tc.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("the refusal allocated %d bytes", grew)
			}
			if _, err := Compute(d, Options{NoPairs: true}); err != nil {
				t.Errorf("NoPairs: %v", err)
			}
		})
	}
}

// MaxPairBytes is the limit: the pair statistics of two variables of 3
// and 4 states and one continuous variable take 8·12 bytes of table, 8·2
// of discrete–continuous counts and 48·7 of the continuous variable's
// moments within the 7 states: 448 bytes.
func TestMaxPairBytes(t *testing.T) {
	d, err := data.New([]data.Variable{
		{Name: "a", Kind: data.Discrete, States: []string{"0", "1", "2"}},
		{Name: "b", Kind: data.Discrete, States: []string{"0", "1", "2", "3"}},
		{Name: "x", Kind: data.Continuous},
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compute(d, Options{MaxPairBytes: 448}); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if _, err := Compute(d, Options{MaxPairBytes: 447}); err == nil || !strings.Contains(err.Error(), "would take 448 B, more than the limit of 447 B") {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := Compute(d, Options{MaxPairBytes: -1}); err == nil {
		t.Error("negative limit accepted")
	}
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 4 << 30: "4.0 GiB", 1 << 60: "1.0 EiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
