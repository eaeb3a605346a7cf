package distance

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/stats"
)

// mixedData draws rows of a small mixed tree: a binary hidden h, discrete
// leaves of 2, 3 and 4 states depending on h, two continuous leaves with
// means depending on h, and a continuous leaf linear in the second one.
// Cells are missing with probability miss.
func mixedData(t *testing.T, rng *rand.Rand, rows int, miss float64) *data.Dataset {
	t.Helper()
	vars := []data.Variable{
		{Name: "d2", Kind: data.Discrete, States: []string{"a", "b"}},
		{Name: "x1", Kind: data.Continuous},
		{Name: "d3", Kind: data.Discrete, States: []string{"a", "b", "c"}},
		{Name: "x2", Kind: data.Continuous},
		{Name: "d4", Kind: data.Discrete, States: []string{"a", "b", "c", "d"}},
		{Name: "x3", Kind: data.Continuous},
	}
	d, err := data.New(vars, rows)
	if err != nil {
		t.Fatal(err)
	}
	draw := func(p []float64) uint16 {
		u := rng.Float64()
		for k, q := range p {
			if u < q {
				return uint16(k)
			}
			u -= q
		}
		return uint16(len(p) - 1)
	}
	cpt := map[int][2][]float64{
		0: {{0.8, 0.2}, {0.3, 0.7}},
		2: {{0.6, 0.3, 0.1}, {0.1, 0.3, 0.6}},
		4: {{0.4, 0.3, 0.2, 0.1}, {0.1, 0.2, 0.3, 0.4}},
	}
	for r := range rows {
		h := 0
		if rng.Float64() < 0.4 {
			h = 1
		}
		for j, p := range cpt {
			d.Discrete(j)[r] = draw(p[h])
		}
		x1 := 1.5*float64(h) + rng.NormFloat64()
		x2 := 10 - 2*float64(h) + 0.8*rng.NormFloat64()
		x3 := 3 + 0.5*x2 + 0.5*rng.NormFloat64()
		d.Continuous(1)[r], d.Continuous(3)[r], d.Continuous(5)[r] = x1, x2, x3
		for j := range vars {
			if rng.Float64() < miss {
				if vars[j].Kind == data.Discrete {
					d.Discrete(j)[r] = data.Missing
				} else {
					d.Continuous(j)[r] = math.NaN()
				}
			}
		}
	}
	return d
}

// features returns the features of column j in row r (all state
// indicators but the last, or the value) and whether the cell is observed.
func features(d *data.Dataset, j, r int) ([]float64, bool) {
	v := d.Var(j)
	if v.Kind == data.Continuous {
		x := d.Continuous(j)[r]
		return []float64{x}, !math.IsNaN(x)
	}
	x := d.Discrete(j)[r]
	f := make([]float64, v.NumStates()-1)
	if x == data.Missing {
		return f, false
	}
	if int(x) < len(f) {
		f[x] = 1
	}
	return f, true
}

// sampleCanonical computes the distance of columns i and j by Canonical
// on the sample covariance of their features over the rows where both are
// observed.
func sampleCanonical(t *testing.T, d *data.Dataset, i, j, r int) float64 {
	t.Helper()
	var fi, fj [][]float64
	for row := range d.NumRows() {
		a, oa := features(d, i, row)
		b, ob := features(d, j, row)
		if oa && ob {
			fi, fj = append(fi, a), append(fj, b)
		}
	}
	ni, nj := len(fi[0]), len(fj[0])
	mean := func(f [][]float64, k int) float64 {
		s := 0.0
		for _, x := range f {
			s += x[k]
		}
		return s / float64(len(f))
	}
	cov := func(f, g [][]float64, p, q int) []float64 {
		out := make([]float64, p*q)
		for a := range p {
			ma := mean(f, a)
			for b := range q {
				mb := mean(g, b)
				for n := range f {
					out[a*q+b] += (f[n][a] - ma) * (g[n][b] - mb)
				}
			}
		}
		return out
	}
	dist, _, err := Canonical(cov(fi, fi, ni, ni), cov(fi, fj, ni, nj), cov(fj, fj, nj, nj), ni, nj, r)
	if err != nil {
		t.Fatal(err)
	}
	return dist
}

// The Mixed distance from statistics is Canonical on the sample moments of
// the features, for every pair of kinds, with and without missing cells.
func TestMixedIsCanonical(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	for _, miss := range []float64{0, 0.1} {
		d := mixedData(t, rng, 2000, miss)
		s, err := stats.Compute(d, stats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, deg, err := Information(s, InfoOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(deg) > 0 {
			t.Fatalf("degenerate pairs %v", deg)
		}
		for i := range d.NumVars() {
			for j := i + 1; j < d.NumVars(); j++ {
				want := sampleCanonical(t, d, i, j, 1)
				if got := m.At(i, j); math.Abs(got-want) > 1e-9*math.Max(1, want) {
					t.Errorf("miss %g: d(%s, %s) = %.12g, Canonical gives %.12g", miss, d.Var(i).Name, d.Var(j).Name, got, want)
				}
			}
		}
		if k := DefaultRank(s, 0); k != 2 {
			t.Errorf("DefaultRank of mixed statistics = %d, want 2", k)
		}
		mixed, _, err := Information(s, InfoOptions{Kind: Mixed, Rank: 2})
		if err != nil || !equalMatrices(mixed, m) {
			t.Errorf("Kind Mixed, Rank 2 differs from Auto: %v", err)
		}
	}
}

func equalMatrices(a, b *Matrix) bool {
	if len(a.D) != len(b.D) {
		return false
	}
	for k := range a.D {
		if a.D[k] != b.D[k] {
			return false
		}
	}
	return true
}

// On data of one kind the Mixed distance is the discrete distance of rank
// 2 or the Gaussian distance, bit for bit.
func TestMixedOneKind(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 2))
	d := mixedData(t, rng, 500, 0.05)
	for _, tc := range []struct {
		cols []int
		opt  InfoOptions
	}{
		{[]int{0, 2, 4}, InfoOptions{Kind: Discrete, Rank: 2}},
		{[]int{1, 3, 5}, InfoOptions{Kind: Gaussian}},
	} {
		sub, err := d.Select(tc.cols)
		if err != nil {
			t.Fatal(err)
		}
		s, err := stats.Compute(sub, stats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := Information(s, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := Information(s, InfoOptions{Kind: Mixed})
		if err != nil {
			t.Fatal(err)
		}
		if !equalMatrices(got, want) {
			t.Errorf("columns %v: Mixed %v, want %v", tc.cols, got.D, want.D)
		}
	}
}

func TestMixedErrorsAndDegenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	d := mixedData(t, rng, 300, 0)
	s, err := stats.Compute(d, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opt  InfoOptions
		want string
	}{
		{InfoOptions{Rank: 3}, "QuantileBins"},
		{InfoOptions{Rank: 1, Kind: Mixed}, "rank 1"},
	} {
		if _, _, err := Information(s, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one mentioning %q", tc.opt, err, tc.want)
		}
	}
	// Statistics without state moments (an old file) are refused.
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	old := string(b[:strings.Index(string(b), `,"mixed_moments"`)]) + "}"
	var o stats.Stats
	if err := o.UnmarshalJSON([]byte(old)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Information(&o, InfoOptions{}); err == nil || !strings.Contains(err.Error(), "older latentree") {
		t.Errorf("old statistics: %v", err)
	}
	// A constant continuous column and one whose mean is the same in
	// every state of a discrete column: infinite, reported.
	c, err := data.New([]data.Variable{
		{Name: "g", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "flat", Kind: data.Continuous},
		{Name: "even", Kind: data.Continuous},
	}, 4)
	if err != nil {
		t.Fatal(err)
	}
	copy(c.Discrete(0), []uint16{0, 0, 1, 1})
	copy(c.Continuous(1), []float64{2, 2, 2, 2})
	copy(c.Continuous(2), []float64{1, 3, 0, 4})
	cs, err := stats.Compute(c, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, deg, err := Information(cs, InfoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(m.At(0, 1), 1) || !math.IsInf(m.At(0, 2), 1) || !math.IsInf(m.At(1, 2), 1) || len(deg) != 3 {
		t.Errorf("degenerate pairs: %v, %v", m.D, deg)
	}
	for _, g := range deg {
		if g.A == "g" && g.B == "flat" && !strings.Contains(g.Reason, "constant") || g.A == "g" && g.B == "even" && !strings.Contains(g.Reason, "equal means") {
			t.Errorf("reason %+v", g)
		}
	}
}

// A hand-checked correlation ratio: states 0 and 1 with values {1, 3} and
// {5, 7}: means 2 and 6, grand mean 4, between 4·4 = 16, within 2+2 = 4,
// η² = 16/20.
func TestEtaHandChecked(t *testing.T) {
	c, err := data.New([]data.Variable{{Name: "g", Kind: data.Discrete, States: []string{"0", "1"}}, {Name: "x", Kind: data.Continuous}}, 4)
	if err != nil {
		t.Fatal(err)
	}
	copy(c.Discrete(0), []uint16{0, 0, 1, 1})
	copy(c.Continuous(1), []float64{1, 3, 5, 7})
	s, err := stats.Compute(c, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := Information(s, InfoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := -0.5 * math.Log(16.0/20); math.Abs(m.At(0, 1)-want) > 1e-15 {
		t.Errorf("d = %.17g, want %.17g", m.At(0, 1), want)
	}
	mi, err := MutualInformation(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := -0.5 * math.Log(1-16.0/20); math.Abs(mi[1]-want) > 1e-12 {
		t.Errorf("mutual information %.17g, want %.17g", mi[1], want)
	}
}

func TestQuantileBins(t *testing.T) {
	nan := math.NaN()
	d, err := data.New([]data.Variable{
		{Name: "x", Kind: data.Continuous}, {Name: "ties", Kind: data.Continuous},
		{Name: "flat", Kind: data.Continuous}, {Name: "g", Kind: data.Discrete, States: []string{"u", "v"}},
	}, 6)
	if err != nil {
		t.Fatal(err)
	}
	copy(d.Continuous(0), []float64{5, 1, 3, 2, 4, nan})
	copy(d.Continuous(1), []float64{1, 1, 1, 1, 2, 1})
	copy(d.Continuous(2), []float64{7, 7, 7, 7, 7, 7})
	copy(d.Discrete(3), []uint16{1, 0, data.Missing, 1, 0, 0})
	b, err := QuantileBins(d, 2)
	if err != nil {
		t.Fatal(err)
	}
	// x: 5 values, cut at the 3rd smallest (3): {1,2,3} and {4,5}.
	// ties: cut at the 3rd smallest of 6 (1): {1…} and {2}.
	// flat: one bin.
	for j, want := range [][]uint16{{1, 0, 0, 0, 1, data.Missing}, {0, 0, 0, 0, 1, 0}, {0, 0, 0, 0, 0, 0}, {1, 0, data.Missing, 1, 0, 0}} {
		if got := b.Discrete(j); !equalCodes(got, want) {
			t.Errorf("column %s: %v, want %v", d.Var(j).Name, got, want)
		}
	}
	if n := b.Var(2).NumStates(); n != 1 {
		t.Errorf("constant column: %d bins", n)
	}
	b4, err := QuantileBins(d, 4)
	if err != nil {
		t.Fatal(err)
	}
	// ties with 4 bins: every cut is 1, so two bins remain.
	if n := b4.Var(1).NumStates(); n != 2 || b4.Var(1).States[1] != "q2" {
		t.Errorf("ties in 4 bins: %v", b4.Var(1).States)
	}
	if _, err := QuantileBins(d, 1); err == nil {
		t.Error("one bin accepted")
	}
	if BinsFor(2) != 5 || BinsFor(7) != 7 {
		t.Error("BinsFor")
	}
}

func equalCodes(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}
