package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestContinuousChunksExact checks that continuousPairs, which holds the
// centred columns of chunkRows rows at a time, gives every pair the sums
// of its row blocks to the bit as summed over each whole block at once
// (the cross products in four partial sums, the masked sums in row
// order), on blocks of several chunks, the last ending off a multiple of
// four, with and without missing cells.
func TestContinuousChunksExact(t *testing.T) {
	const rows, q, rb = 1003, 9, 3 * 256
	if rb <= chunkRows || rows%4 == 0 {
		t.Fatal("the blocks are not several chunks, or end on a multiple of four")
	}
	rng := rand.New(rand.NewPCG(7, 7))
	d := randDataset(t, rng, rows, specs(q, []int{0}, []float64{0, 0, 0.2}))
	s, err := compute(d, Options{Workers: 2}, rb*8*q)
	if err != nil {
		t.Fatal(err)
	}
	cv := s.lay.cvars
	masked := 0
	for a := range cv {
		for b := a + 1; b < len(cv); b++ {
			ja, jb := cv[a], cv[b]
			x, y := d.Continuous(ja), d.Continuous(jb)
			mx, my := s.mean[ja], s.mean[jb]
			dot := 0.0
			var sums contPair
			for r0 := 0; r0 < rows; r0 += rb {
				r1 := min(r0+rb, rows)
				tail := r0 + (r1-r0)/4*4
				var s4 [4]float64
				var n, sx, sy, sxx, syy, sxy float64
				for r := r0; r < r1; r++ {
					wx, wy := 1.0, 1.0
					u, v := x[r]-mx, y[r]-my
					if math.IsNaN(x[r]) {
						u, wx = 0, 0
					}
					if math.IsNaN(y[r]) {
						v, wy = 0, 0
					}
					k := (r - r0) % 4
					if r >= tail {
						k = 0
					}
					s4[k] += u * v
					n += wx * wy
					sx += u * wy
					sy += v * wx
					sxx += u * u * wy
					syy += v * v * wx
					sxy += u * v
				}
				dot += (s4[0] + s4[1]) + (s4[2] + s4[3])
				sums.add(n, sx, sy, sxx, syy, sxy)
			}
			want := contPair{n: int64(rows), mi: mx, mj: my, m2i: s.m2[ja], m2j: s.m2[jb], c: dot}
			if d.MissingCount(ja) > 0 || d.MissingCount(jb) > 0 {
				masked++
				want = finishMoments(sums.n, sums.mi, sums.mj, sums.m2i, sums.m2j, sums.c, mx, my)
			}
			tt := a*len(cv) - a*(a+1)/2 + (b - a - 1) // the pair's place in the triangle
			if got := s.cp[tt]; got != want {
				t.Fatalf("pair %d,%d: %+v, summed over whole blocks %+v", a, b, got, want)
			}
		}
	}
	if masked == 0 || masked == len(cv)*(len(cv)-1)/2 {
		t.Fatalf("%d of the pairs have missing cells: want some", masked)
	}
}

// TestDot2Into: the two-pair kernel adds each pair's sums exactly as
// dotInto does (the same partial sums in the same order), for lengths
// around multiples of four and sums carried in.
func TestDot2Into(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 14 {
		x, y1, y2 := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			x[i], y1[i], y2[i] = rng.NormFloat64(), rng.NormFloat64()*1e3, rng.NormFloat64()*1e-3
		}
		init := []float64{rng.Float64(), -rng.Float64(), 1e9, 1e-9}
		w1, w2 := slices.Clone(init), slices.Clone(init)
		dotInto(w1, x, y1)
		dotInto(w2, x, y2)
		g1, g2 := slices.Clone(init), slices.Clone(init)
		dot2Into(g1, g2, x, y1, y2)
		if !slices.Equal(g1, w1) || !slices.Equal(g2, w2) {
			t.Fatalf("n=%d: dot2Into %v %v, dotInto %v %v", n, g1, g2, w1, w2)
		}
	}
}
