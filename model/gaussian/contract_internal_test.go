package gaussian

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The gradient of a contraction's local log-likelihood (star.eval) is its
// central finite difference, for one and two centres, with the merged node
// hidden and observed, at random correlations and second moments.
func TestStarGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 3))
	for trial := range 8 {
		two, off := trial%2 == 1, trial/2%2
		m := 4
		k := m + off
		// Y: the sample moments of 50 random rows of a random covariance.
		Y := make([]float64, k*k)
		for range 50 {
			x := make([]float64, k)
			base := rng.NormFloat64()
			for i := range x {
				x[i] = 0.7*base + rng.NormFloat64()
			}
			for i := range k {
				for j := range k {
					Y[i*k+j] += x[i] * x[j] / 50
				}
			}
		}
		nus := make([]float64, k)
		for i := off; i < k; i++ {
			if rng.IntN(3) > 0 {
				nus[i] = rng.Float64()
			}
		}
		s := &star{Y: Y, nus: nus, k: k, off: off, n: 50, two: two, far: []bool{false, true, false, true}}
		r := make([]float64, m)
		if two {
			r = append(r, 0)
		}
		for i := range r {
			r[i] = 1.6*rng.Float64() - 0.8
		}
		g := make([]float64, len(r))
		if _, err := s.eval(r, g); err != nil {
			t.Fatal(err)
		}
		for i := range r {
			const h = 1e-6
			up := append([]float64(nil), r...)
			dn := append([]float64(nil), r...)
			up[i] += h
			dn[i] -= h
			lu, err := s.eval(up, nil)
			if err != nil {
				t.Fatal(err)
			}
			ld, err := s.eval(dn, nil)
			if err != nil {
				t.Fatal(err)
			}
			if fd := (lu - ld) / (2 * h); math.Abs(fd-g[i]) > 1e-5*max(1, math.Abs(fd)) {
				t.Fatalf("trial %d (two %v, observed %v): ∂ℓ/∂r_%d %g, finite difference %g", trial, two, off == 1, i, g[i], fd)
			}
		}
	}
}
