package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
)

// colSpec describes one random column: states > 0 for a discrete variable
// with that many states, 0 for a continuous one; miss is the probability
// of a missing cell.
type colSpec struct {
	states int
	miss   float64
}

// randDataset draws a dataset with the given columns. Discrete states are
// drawn with unequal probabilities; continuous values are correlated with
// the previous continuous column and offset from zero, to make centring
// matter.
func randDataset(t testing.TB, rng *rand.Rand, rows int, specs []colSpec) *data.Dataset {
	t.Helper()
	vars := make([]data.Variable, len(specs))
	for j, sp := range specs {
		vars[j].Name = fmt.Sprintf("v%d", j)
		if sp.states > 0 {
			vars[j].Kind = data.Discrete
			for k := 0; k < sp.states; k++ {
				vars[j].States = append(vars[j].States, fmt.Sprintf("s%d", k))
			}
		} else {
			vars[j].Kind = data.Continuous
		}
	}
	d, err := data.New(vars, rows)
	if err != nil {
		t.Fatal(err)
	}
	var prev []float64
	for j, sp := range specs {
		if sp.states > 0 {
			col := d.Discrete(j)
			for r := range col {
				// Skewed: state k with weight k+1.
				u := rng.IntN(sp.states * (sp.states + 1) / 2)
				k := 0
				for u >= k+1 {
					u -= k + 1
					k++
				}
				col[r] = uint16(k)
				if rng.Float64() < sp.miss {
					col[r] = data.Missing
				}
			}
			continue
		}
		col := d.Continuous(j)
		off := 1000 * rng.NormFloat64()
		for r := range col {
			x := off + rng.NormFloat64()
			if prev != nil && !math.IsNaN(prev[r]) {
				x += 0.7 * (prev[r] - prev[0])
			}
			col[r] = x
		}
		prev = append([]float64(nil), col...)
		for r := range col {
			if rng.Float64() < sp.miss {
				col[r] = math.NaN()
			}
		}
	}
	return d
}

// naivePair counts the joint table of discrete columns i and j directly.
func naivePair(d *data.Dataset, i, j int) []int64 {
	ni, nj := d.Var(i).NumStates(), d.Var(j).NumStates()
	tab := make([]int64, ni*nj)
	x, y := d.Discrete(i), d.Discrete(j)
	for r := range x {
		if x[r] == data.Missing || y[r] == data.Missing {
			continue
		}
		tab[int(x[r])*nj+int(y[r])]++
	}
	return tab
}

// observed reports whether cell r of column j is observed.
func observed(d *data.Dataset, j, r int) bool {
	if c := d.Discrete(j); c != nil {
		return c[r] != data.Missing
	}
	return !math.IsNaN(d.Continuous(j)[r])
}

// naiveMoments computes the pairwise-complete moments of continuous
// columns i and j by the two-pass definition.
func naiveMoments(d *data.Dataset, i, j int) (n int64, mi, mj, m2i, m2j, c float64) {
	x, y := d.Continuous(i), d.Continuous(j)
	var si, sj float64
	for r := range x {
		if math.IsNaN(x[r]) || math.IsNaN(y[r]) {
			continue
		}
		n++
		si += x[r]
		sj += y[r]
	}
	if n == 0 {
		return
	}
	mi, mj = si/float64(n), sj/float64(n)
	for r := range x {
		if math.IsNaN(x[r]) || math.IsNaN(y[r]) {
			continue
		}
		m2i += (x[r] - mi) * (x[r] - mi)
		m2j += (y[r] - mj) * (y[r] - mj)
		c += (x[r] - mi) * (y[r] - mj)
	}
	return
}

// close reports whether got is within relative tolerance tol of want
// (absolute near zero, relative to scale).
func closeTo(got, want, tol, scale float64) bool {
	if math.IsNaN(got) || math.IsNaN(want) {
		return math.IsNaN(got) && math.IsNaN(want)
	}
	return math.Abs(got-want) <= tol*math.Max(math.Abs(want), scale)
}

// checkNaive compares every statistic of s with a direct computation on d.
func checkNaive(t *testing.T, d *data.Dataset, s *Stats) {
	t.Helper()
	const tol = 1e-12
	p := d.NumVars()
	if s.NumVars() != p || s.Rows() != int64(d.NumRows()) {
		t.Fatalf("NumVars %d Rows %d, want %d %d", s.NumVars(), s.Rows(), p, d.NumRows())
	}
	var buf []int64
	for i := 0; i < p; i++ {
		v := d.Var(i)
		if got := s.Var(i); got.Name != v.Name || got.Kind != v.Kind || fmt.Sprint(got.States) != fmt.Sprint(v.States) {
			t.Fatalf("Var(%d) = %+v, want %+v", i, got, v)
		}
		if k, ok := s.Index(v.Name); !ok || k != i {
			t.Fatalf("Index(%q) = %d, %v", v.Name, k, ok)
		}
		cnt := int64(d.NumRows() - d.MissingCount(i))
		if s.Count(i) != cnt {
			t.Fatalf("Count(%d) = %d, want %d", i, s.Count(i), cnt)
		}
		if v.Kind == data.Discrete {
			m := make([]int64, v.NumStates())
			for _, x := range d.Discrete(i) {
				if x != data.Missing {
					m[x]++
				}
			}
			if fmt.Sprint(s.Marginal(i)) != fmt.Sprint(m) {
				t.Fatalf("Marginal(%d) = %v, want %v", i, s.Marginal(i), m)
			}
			if !math.IsNaN(s.Mean(i)) || !math.IsNaN(s.Cov(i, i)) {
				t.Fatalf("Mean/Cov of discrete %d not NaN", i)
			}
		} else {
			if s.Marginal(i) != nil {
				t.Fatalf("Marginal of continuous %d not nil", i)
			}
			var sum float64
			for _, x := range d.Continuous(i) {
				if !math.IsNaN(x) {
					sum += x
				}
			}
			mean := sum / float64(cnt)
			var m2 float64
			for _, x := range d.Continuous(i) {
				if !math.IsNaN(x) {
					m2 += (x - mean) * (x - mean)
				}
			}
			if cnt == 0 {
				mean = math.NaN()
			}
			if !closeTo(s.Mean(i), mean, tol, 1e-300) {
				t.Fatalf("Mean(%d) = %v, want %v", i, s.Mean(i), mean)
			}
			variance := math.NaN()
			if cnt >= 2 {
				variance = m2 / float64(cnt-1)
			}
			if !closeTo(s.Cov(i, i), variance, tol, 1e-300) {
				t.Fatalf("Cov(%d,%d) = %v, want %v", i, i, s.Cov(i, i), variance)
			}
		}
		for j := 0; j < p; j++ {
			if i == j {
				continue
			}
			var pc int64
			for r := 0; r < d.NumRows(); r++ {
				if observed(d, i, r) && observed(d, j, r) {
					pc++
				}
			}
			if got := s.PairCount(i, j); got != pc {
				t.Fatalf("PairCount(%d,%d) = %d, want %d", i, j, got, pc)
			}
			vj := d.Var(j)
			if v.Kind == data.Discrete && vj.Kind == data.Discrete {
				buf = s.Pair(i, j, buf)
				want := naivePair(d, i, j)
				if fmt.Sprint(buf) != fmt.Sprint(want) {
					t.Fatalf("Pair(%d,%d) (%d×%d states) = %v, want %v", i, j, v.NumStates(), vj.NumStates(), buf, want)
				}
			} else if s.Pair(i, j, nil) != nil {
				t.Fatalf("Pair(%d,%d) of non-discrete not nil", i, j)
			}
			if v.Kind == data.Continuous && vj.Kind == data.Continuous {
				n, mi, mj, m2i, m2j, c := naiveMoments(d, i, j)
				gn, gmi, gmj, gm2i, gm2j, gc, ok := s.PairMoments(i, j)
				// Scale for the co-moment: Cauchy–Schwarz bound.
				cs := math.Sqrt(m2i*m2j) + 1e-300
				if !ok || gn != n || !closeTo(gmi, mi, tol, 1e-300) || !closeTo(gmj, mj, tol, 1e-300) ||
					!closeTo(gm2i, m2i, tol, 1e-300) || !closeTo(gm2j, m2j, tol, 1e-300) || !closeTo(gc, c, tol, cs) {
					t.Fatalf("PairMoments(%d,%d) = %v %v %v %v %v %v %v, want %v %v %v %v %v %v", i, j, gn, gmi, gmj, gm2i, gm2j, gc, ok, n, mi, mj, m2i, m2j, c)
				}
				cov, corr := math.NaN(), math.NaN()
				if n >= 2 {
					cov = c / float64(n-1)
					if m2i > 0 && m2j > 0 {
						corr = c / math.Sqrt(m2i*m2j)
					}
				}
				if !closeTo(s.Cov(i, j), cov, tol, cs/float64(max(n-1, 1))) {
					t.Fatalf("Cov(%d,%d) = %v, want %v", i, j, s.Cov(i, j), cov)
				}
				if !closeTo(s.Corr(i, j), corr, tol, 1) {
					t.Fatalf("Corr(%d,%d) = %v, want %v", i, j, s.Corr(i, j), corr)
				}
			} else if !math.IsNaN(s.Cov(i, j)) || !math.IsNaN(s.Corr(i, j)) {
				t.Fatalf("Cov/Corr(%d,%d) with a discrete variable not NaN", i, j)
			}
			gn, gmean, gm2, ok := s.StateMoments(i, j)
			if v.Kind == vj.Kind {
				if ok {
					t.Fatalf("StateMoments(%d,%d) of one kind: ok", i, j)
				}
				continue
			}
			dv, cv := i, j
			if v.Kind == data.Continuous {
				dv, cv = j, i
			}
			n, mean, m2 := naiveStateMoments(d, dv, cv)
			if !ok || fmt.Sprint(gn) != fmt.Sprint(n) {
				t.Fatalf("StateMoments(%d,%d) counts = %v %v, want %v", i, j, gn, ok, n)
			}
			for x := range n {
				if !closeTo(gmean[x], mean[x], tol, 1e-300) || !closeTo(gm2[x], m2[x], tol, 1e-300) {
					t.Fatalf("StateMoments(%d,%d) state %d: mean %v m2 %v, want %v %v", i, j, x, gmean[x], gm2[x], mean[x], m2[x])
				}
			}
		}
	}
}

// naiveStateMoments returns the moments of continuous column c within each
// state of discrete column dv, over the rows where both are observed, by
// the two-pass definition.
func naiveStateMoments(d *data.Dataset, dv, c int) (n []int64, mean, m2 []float64) {
	k := d.Var(dv).NumStates()
	n, mean, m2 = make([]int64, k), make([]float64, k), make([]float64, k)
	codes, vals := d.Discrete(dv), d.Continuous(c)
	for r, x := range codes {
		if x != data.Missing && !math.IsNaN(vals[r]) {
			n[x]++
			mean[x] += vals[r]
		}
	}
	for x := range k {
		if n[x] > 0 {
			mean[x] /= float64(n[x])
		}
	}
	for r, x := range codes {
		if x != data.Missing && !math.IsNaN(vals[r]) {
			m2[x] += (vals[r] - mean[x]) * (vals[r] - mean[x])
		}
	}
	return n, mean, m2
}

// sameStats checks that got and want describe the same statistics, aligning
// variables by name and discrete states by label; moments must agree
// within relative tolerance tol (0: exactly).
func sameStats(t *testing.T, got, want *Stats, tol float64) {
	t.Helper()
	if got.NumVars() != want.NumVars() || got.Rows() != want.Rows() || got.HasPairs() != want.HasPairs() {
		t.Fatalf("got %d vars %d rows pairs %v, want %d %d %v", got.NumVars(), got.Rows(), got.HasPairs(), want.NumVars(), want.Rows(), want.HasPairs())
	}
	p := want.NumVars()
	gj := make([]int, p)     // want var -> got var
	code := make([][]int, p) // want state -> got state
	for j := 0; j < p; j++ {
		v := want.Var(j)
		k, ok := got.Index(v.Name)
		if !ok {
			t.Fatalf("variable %q missing", v.Name)
		}
		gv := got.Var(k)
		if gv.Kind != v.Kind || gv.NumStates() != v.NumStates() {
			t.Fatalf("variable %q: got %v %d states, want %v %d", v.Name, gv.Kind, gv.NumStates(), v.Kind, v.NumStates())
		}
		gj[j] = k
		for _, l := range v.States {
			c, ok := gv.StateIndex(l)
			if !ok {
				t.Fatalf("variable %q: state %q missing", v.Name, l)
			}
			code[j] = append(code[j], c)
		}
		if got.Count(k) != want.Count(j) {
			t.Fatalf("Count(%q) = %d, want %d", v.Name, got.Count(k), want.Count(j))
		}
		if v.Kind == data.Discrete {
			for c, n := range want.Marginal(j) {
				if got.Marginal(k)[code[j][c]] != n {
					t.Fatalf("Marginal(%q)[%q] = %d, want %d", v.Name, v.States[c], got.Marginal(k)[code[j][c]], n)
				}
			}
		} else if !closeTo(got.Mean(k), want.Mean(j), tol, 1e-300) || !closeTo(got.Cov(k, k), want.Cov(j, j), tol, 1e-300) {
			t.Fatalf("%q: mean %v var %v, want %v %v", v.Name, got.Mean(k), got.Cov(k, k), want.Mean(j), want.Cov(j, j))
		}
	}
	if !want.HasPairs() {
		return
	}
	if got.HasStateMoments() != want.HasStateMoments() {
		t.Fatalf("HasStateMoments %v, want %v", got.HasStateMoments(), want.HasStateMoments())
	}
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			if i == j {
				continue
			}
			gi, gjj := gj[i], gj[j]
			if got.PairCount(gi, gjj) != want.PairCount(i, j) {
				t.Fatalf("PairCount(%q,%q) = %d, want %d", want.Var(i).Name, want.Var(j).Name, got.PairCount(gi, gjj), want.PairCount(i, j))
			}
			vi, vj := want.Var(i), want.Var(j)
			if vi.Kind == data.Discrete && vj.Kind == data.Discrete {
				w := want.Pair(i, j, nil)
				g := got.Pair(gi, gjj, nil)
				nj, gnj := vj.NumStates(), got.Var(gjj).NumStates()
				for x := 0; x < vi.NumStates(); x++ {
					for y := 0; y < nj; y++ {
						if g[code[i][x]*gnj+code[j][y]] != w[x*nj+y] {
							t.Fatalf("Pair(%q,%q)[%q,%q] = %d, want %d", vi.Name, vj.Name, vi.States[x], vj.States[y], g[code[i][x]*gnj+code[j][y]], w[x*nj+y])
						}
					}
				}
			}
			if vi.Kind == data.Discrete && vj.Kind == data.Continuous && want.HasStateMoments() {
				n, mean, m2, _ := want.StateMoments(i, j)
				gn, gmean, gm2, ok := got.StateMoments(gi, gjj)
				if !ok {
					t.Fatalf("StateMoments(%q,%q) missing", vi.Name, vj.Name)
				}
				for x := range n {
					gx := code[i][x]
					if gn[gx] != n[x] || !closeTo(gmean[gx], mean[x], tol, 1e-300) || !closeTo(gm2[gx], m2[x], tol, 1e-300) {
						t.Fatalf("StateMoments(%q,%q)[%q] = %d %v %v, want %d %v %v", vi.Name, vj.Name, vi.States[x], gn[gx], gmean[gx], gm2[gx], n[x], mean[x], m2[x])
					}
				}
			}
			if vi.Kind == data.Continuous && vj.Kind == data.Continuous {
				n, mi, mj, m2i, m2j, c, _ := want.PairMoments(i, j)
				gn, gmi, gmj, gm2i, gm2j, gc, ok := got.PairMoments(gi, gjj)
				cs := math.Sqrt(m2i*m2j) + 1e-300
				if !ok || gn != n || !closeTo(gmi, mi, tol, 1e-300) || !closeTo(gmj, mj, tol, 1e-300) ||
					!closeTo(gm2i, m2i, tol, 1e-300) || !closeTo(gm2j, m2j, tol, 1e-300) || !closeTo(gc, c, tol, cs) {
					t.Fatalf("PairMoments(%q,%q) = %v %v %v %v %v %v, want %v %v %v %v %v %v", vi.Name, vj.Name, gn, gmi, gmj, gm2i, gm2j, gc, n, mi, mj, m2i, m2j, c)
				}
			}
		}
	}
}
