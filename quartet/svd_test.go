package quartet

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// referenceValues returns the singular values of the m×n row-major a by
// gonum's mat.SVD.
func referenceValues(t *testing.T, m, n int, a []float64) []float64 {
	t.Helper()
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(m, n, append([]float64(nil), a...)), mat.SVDNone) {
		t.Fatalf("mat.SVD failed on a %d×%d matrix", m, n)
	}
	return svd.Values(nil)
}

// TestSVDWorkMatchesSVD checks the bidiagonalization + dqds singular
// values against mat.SVD on random full-rank, rank-deficient, graded and
// non-square matrices, to 1e-12 relative to the largest singular value.
func TestSVDWorkMatchesSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	shapes := [][2]int{{100, 100}, {20, 30}, {30, 20}, {40, 20}, {20, 40}, {7, 7}, {1, 5}, {5, 1}, {2, 2}, {1, 1}, {3, 100}, {100, 3}}
	var w svdWork
	for _, sh := range shapes {
		m, n := sh[0], sh[1]
		k := min(m, n)
		for _, kind := range []string{"full", "rank1", "rank3", "rank-half", "graded", "zero", "sparse", "table"} {
			a := make([]float64, m*n)
			switch kind {
			case "full":
				for i := range a {
					a[i] = rng.NormFloat64()
				}
			case "rank1", "rank3", "rank-half":
				r := map[string]int{"rank1": 1, "rank3": 3, "rank-half": max(1, k/2)}[kind]
				u, v := make([]float64, m*r), make([]float64, r*n)
				for i := range u {
					u[i] = rng.NormFloat64()
				}
				for i := range v {
					v[i] = rng.NormFloat64()
				}
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						for l := 0; l < r; l++ {
							a[i*n+j] += u[i*r+l] * v[l*n+j]
						}
					}
				}
			case "graded":
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						a[i*n+j] = rng.NormFloat64() * math.Pow(10, -8*float64(j)/float64(n))
					}
				}
			case "zero":
			case "sparse":
				for i := range a {
					if rng.IntN(4) == 0 {
						a[i] = rng.Float64()
					}
				}
			case "table":
				// Probabilities from counts, as the quartet tests see them.
				total := 0.0
				for i := range a {
					a[i] = float64(rng.IntN(3))
					total += a[i]
				}
				for i := range a {
					a[i] /= max(total, 1)
				}
			}
			want := referenceValues(t, m, n, a)
			w.reserve(m, n)
			copy(w.a, a)
			w.bidiagonalize()
			got, ok := w.bidiagonalValues(nil)
			if !ok {
				t.Fatalf("%d×%d %s: dqds failed", m, n, kind)
			}
			if len(got) != len(want) {
				t.Fatalf("%d×%d %s: %d values, want %d", m, n, kind, len(got), len(want))
			}
			tol := 1e-12 * want[0]
			for i := range want {
				if math.Abs(got[i]-want[i]) > tol || (want[0] == 0 && got[i] != 0) {
					t.Fatalf("%d×%d %s: σ_%d = %g, mat.SVD %g (σ_1 %g)", m, n, kind, i, got[i], want[i], want[0])
				}
			}
		}
	}
}

// randomTable returns a probability table of random sparse counts.
func randomTable(t *testing.T, rng *rand.Rand, n [4]int) *Table {
	t.Helper()
	counts := make([]int64, n[0]*n[1]*n[2]*n[3])
	for i := range counts {
		counts[i] = int64(rng.IntN(4))
	}
	counts[0]++
	tb, err := NewTable(n, counts)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestNuclearMatchesSVD checks Nuclear's scores against the nuclear norms
// of the unfoldings by mat.SVD, for small (sequential) and large
// (concurrent) tables, tables needing scaling, and concurrent callers.
func TestNuclearMatchesSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	check := func(tb *Table, scale float64) {
		t.Helper()
		r := tb.Nuclear(0)
		for p := P01; p <= P03; p++ {
			m, n := tb.unfoldingShape(p)
			want := 0.0
			for _, v := range referenceValues(t, m, n, tb.Unfolding(p).RawMatrix().Data) {
				want += v
			}
			if math.Abs(r.Scores[p]-want) > 1e-12*want {
				t.Fatalf("table %v×%g: score %v = %.17g, mat.SVD %.17g", tb.N, scale, p, r.Scores[p], want)
			}
		}
	}
	for _, n := range [][4]int{{2, 2, 2, 2}, {2, 3, 4, 2}, {10, 10, 10, 10}, {3, 10, 7, 4}, {10, 2, 10, 3}, {4, 4, 4, 4}} {
		for _, scale := range []float64{1, 1e-200, 1e200} {
			tb := randomTable(t, rng, n)
			for i := range tb.P {
				tb.P[i] *= scale
			}
			check(tb, scale)
		}
	}
	// Concurrent callers share the workspace pool.
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		tb := randomTable(t, rand.New(rand.NewPCG(uint64(g), 9)), [4]int{10, 10, 10, 10})
		want := tb.Nuclear(0).Scores
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := 0; it < 20; it++ {
				if got := tb.Nuclear(0).Scores; got != want {
					t.Errorf("concurrent Nuclear: %v, want %v", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestUnfoldIntoMatchesFormula checks the raw-slice unfoldings against the
// index formula on an uneven table.
func TestUnfoldIntoMatchesFormula(t *testing.T) {
	n := [4]int{2, 3, 4, 5}
	tb := &Table{N: n, P: make([]float64, 120)}
	for i := range tb.P {
		tb.P[i] = float64(i)
	}
	dst := make([]float64, 120)
	for p := P01; p <= P03; p++ {
		rows, cols := tb.unfoldingShape(p)
		tb.unfoldInto(p, dst)
		for a := 0; a < n[0]; a++ {
			for b := 0; b < n[1]; b++ {
				for c := 0; c < n[2]; c++ {
					for d := 0; d < n[3]; d++ {
						var i, j int
						switch p {
						case P01:
							i, j = a*n[1]+b, c*n[3]+d
						case P02:
							i, j = a*n[2]+c, b*n[3]+d
						default:
							i, j = a*n[3]+d, b*n[2]+c
						}
						if i >= rows || j >= cols || dst[i*cols+j] != tb.P[((a*n[1]+b)*n[2]+c)*n[3]+d] {
							t.Fatalf("%v: cell %d%d%d%d misplaced", p, a, b, c, d)
						}
					}
				}
			}
		}
	}
}

func TestCheckForSVD(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		a            []float64
		finite, safe bool
	}{
		{nil, true, true},
		{[]float64{0, 0, 0, 0, 0}, true, true},
		{[]float64{0.5, -0.25, 1e-3}, true, true},
		{[]float64{1, 2, 3, 4, -1e100}, true, true},
		{[]float64{1e-300, 0, 0, 0}, true, false},
		{[]float64{1, 1, 1, 1, 1e300}, true, false},
		{[]float64{1e308, 1e308, 1e308, 1e308, 1e308}, true, false},
		{[]float64{1, 1, 1, 1, nan}, false, false},
		{[]float64{nan, 1, 1, 1}, false, false},
		{[]float64{1, -inf, 1, 1}, false, false},
		{[]float64{1, 1, 1, 1, inf}, false, false},
	} {
		if finite, safe := checkForSVD(c.a); finite != c.finite || safe != c.safe {
			t.Errorf("checkForSVD(%v) = %v, %v, want %v, %v", c.a, finite, safe, c.finite, c.safe)
		}
	}
}
