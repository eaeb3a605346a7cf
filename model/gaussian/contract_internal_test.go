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

// The low-rank evaluation of a star (star.eval) gives the log-likelihood
// and gradient of the dense one (star.evalDense), for one and two
// centres, with the merged node hidden and observed, at random
// correlations (some near ±1), noise and second moments, for 1 to 30
// measurements.
func TestStarLowRankMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 12))
	maxDiff, maxGrad, fallbacks := 0.0, 0.0, 0
	const trials = 64
	for trial := range trials {
		two, off := trial%2 == 1, trial/2%2
		m := 1 + rng.IntN(30)
		k := m + off
		Y := make([]float64, k*k)
		const rows = 40
		for range rows {
			x := make([]float64, k)
			base := rng.NormFloat64()
			for i := range x {
				x[i] = rng.Float64()*base + rng.NormFloat64()
			}
			for i := range k {
				for j := range k {
					Y[i*k+j] += x[i] * x[j] / rows
				}
			}
		}
		nus := make([]float64, k)
		for i := off; i < k; i++ {
			if rng.IntN(3) > 0 {
				nus[i] = 2 * rng.Float64()
			}
		}
		far := make([]bool, m)
		for i := range far {
			far[i] = rng.IntN(2) == 0
		}
		r := make([]float64, m)
		if two {
			r = append(r, 0)
		}
		for i := range r {
			r[i] = 1.98*rng.Float64() - 0.99
			if rng.IntN(3*m) == 0 {
				r[i] = math.Copysign(rhoMax, r[i])
			}
		}
		s := &star{Y: Y, nus: nus, k: k, off: off, n: rows, two: two, far: far}
		d := &star{Y: Y, nus: nus, k: k, off: off, n: rows, two: two, far: far}
		g, gd := make([]float64, len(r)), make([]float64, len(r))
		ll, err := s.eval(r, g)
		if err != nil {
			t.Fatal(err)
		}
		lld, err := d.evalDense(r, gd)
		if err != nil {
			t.Fatal(err)
		}
		l0, err := s.eval(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s.setLowRank(r) == errDense {
			fallbacks++
		}
		if math.Abs(ll-lld) > 1e-9*math.Abs(lld) || math.Abs(l0-ll) > 1e-12*math.Abs(ll) {
			t.Fatalf("trial %d (two %v, observed %v, %d measurements): log-likelihood %.12g (%.12g without the gradient), dense %.12g; r %v far %v nu %v", trial, two, off == 1, m, ll, l0, lld, r, far, nus)
		}
		// Both lose digits as 1/(1 − r²) grows (a measurement without
		// noise at the bound |r| = rhoMax).
		scale, tol := 0.0, 1e-9
		for _, v := range gd {
			scale = max(scale, math.Abs(v))
		}
		for i := range r[:m] {
			tol = max(tol, 1e-13/(1+nus[i+off]-r[i]*r[i]))
		}
		maxDiff = max(maxDiff, math.Abs(ll-lld)/math.Abs(lld))
		for i := range g {
			maxGrad = max(maxGrad, math.Abs(g[i]-gd[i])/max(1, scale))
			if math.Abs(g[i]-gd[i]) > 100*tol*max(1, scale) {
				t.Fatalf("trial %d (two %v, observed %v, %d measurements): ∂ℓ/∂r_%d %.10g, dense %.10g", trial, two, off == 1, m, i, g[i], gd[i])
			}
		}
	}
	t.Logf("largest relative differences: log-likelihood %.2g, gradient %.2g; %d of %d stars dense", maxDiff, maxGrad, fallbacks, trials)
	if fallbacks > trials/4 {
		t.Fatalf("%d of %d stars were evaluated dense: the low-rank form is not tested", fallbacks, trials)
	}
}
