package gaussian

import (
	"errors"
	"math"
)

// The log-likelihood of a contraction's star (star.eval) in O(k²) for k
// measurements, where a Cholesky factor of Σ costs k³: Σ is a diagonal
// plus a matrix of rank one or two (the measurements are noisy copies of
// one centre, or of two correlated ones), so that Σ⁻¹ = Δ + W K Wᵀ with Δ
// diagonal and W k×m for m ≤ 4 (Woodbury's identity, after conditioning
// on the measurement of least noise: see setLowRank), and every product
// with Σ⁻¹ costs O(k·m).

// lowRank is Σ⁻¹ = diag(dinv) + W K Wᵀ (W k×m by columns, K m×m) and
// log|Σ|; v is scratch.
type lowRank struct {
	dinv, wbuf, v []float64
	m             int
	kk            [16]float64
	logdet        float64
}

// col returns column x of W.
func (lr *lowRank) col(x int) []float64 {
	k := len(lr.dinv)
	return lr.wbuf[x*k : (x+1)*k]
}

// errDense is setLowRank's report that two measurements are nearly free
// of noise, where Woodbury's identity loses digits as 1/(1 − r²): eval
// then factorises Σ (evalDense).
var errDense = errors.New("model: star too close to deterministic for the low-rank form")

// denseBelow is the noise variance of a second nearly noise-free
// measurement below which eval factorises Σ: the low-rank form loses
// about log₁₀(1/d) digits.
const denseBelow = 1e-5

// setLowRank sets s.lr to the Σ⁻¹ of the star at r. With Σ = D + V Vᵀ
// (V k×c: the loadings times a factor of the centres' correlations) and
// p the measurement of least noise d_p (keep itself when observed, d = 0),
// Σ⁻¹ = Tᵀ diag(1/Σ_pp, S⁻¹) T, where T takes the others to their
// residuals s_a − β_a s_p given s_p, whose covariance is
// S = D_r + V_r U Uᵀ V_rᵀ with U the symmetric square root of
// I − v_p v_pᵀ/Σ_pp, and S⁻¹ is Woodbury's.
func (s *star) setLowRank(r []float64) error {
	k, off := s.k, s.off
	lr := &s.lr
	nm := len(r)
	rho := 0.0
	if s.two {
		nm--
		rho = r[nm]
	}
	c := 1
	if s.two {
		c = 2
	}
	if cap(lr.dinv) < k {
		lr.dinv, lr.wbuf, lr.v = make([]float64, k), make([]float64, 4*k), make([]float64, 2*k)
	}
	lr.dinv, lr.wbuf, lr.v = lr.dinv[:k], lr.wbuf[:4*k], lr.v[:2*k]
	clear(lr.wbuf)
	// d (in dinv for now) and the rows v_a of V.
	q := math.Sqrt(1 - rho*rho)
	v := lr.v
	p, d2 := -1, math.Inf(1)
	for a := range k {
		lam, d := 1.0, 0.0
		far := false
		if a >= off {
			i := a - off
			lam, d = r[i], 1+s.nus[a]-r[i]*r[i]
			far = s.two && s.far[i]
			if !(d > 0) {
				return errors.New("model: a contraction's local covariance is singular")
			}
		}
		v[a*c] = lam
		if far {
			v[a*c], v[a*c+1] = lam*rho, lam*q
		} else if c == 2 {
			v[a*c+1] = 0
		}
		lr.dinv[a] = d
		switch {
		case p < 0 || d < lr.dinv[p]:
			if p >= 0 {
				d2 = lr.dinv[p]
			}
			p = a
		case d < d2:
			d2 = d
		}
	}
	if d2 < denseBelow {
		return errDense
	}
	dp := lr.dinv[p]
	vp := v[p*c : p*c+c]
	spp := dp
	for _, x := range vp {
		spp += x * x
	}
	// U = I − α u uᵀ, u = v_p/√Σ_pp, α = (1 − √(1 − |u|²))/|u|², with
	// 1 − |u|² = d_p/Σ_pp.
	var U [4]float64
	uu := (spp - dp) / spp
	sq := math.Sqrt(dp / spp)
	if c == 1 {
		U[0] = sq
	} else {
		alpha := 0.5
		if uu > 0 {
			alpha = (1 - sq) / uu
		}
		for x := range 2 {
			for y := range 2 {
				U[x*2+y] = -alpha * vp[x] * vp[y] / spp
				if x == y {
					U[x*2+y]++
				}
			}
		}
	}
	// log|Σ| = log Σ_pp + Σ log d_a + log|M|, the d's multiplied
	// (one log per star, rescaled before the product leaves the range).
	logdet, prod := math.Log(spp), 1.0
	// Columns of W: e_p, g = D_r⁻¹β, then B = D_r⁻¹ V_r U (row p: −βᵀB).
	ep, g := lr.col(0), lr.col(1)
	ep[p] = 1
	var M [4]float64
	bsum := 0.0
	for a := range k {
		if a == p {
			lr.dinv[a] = 0
			continue
		}
		d := lr.dinv[a]
		if prod *= d; prod > 1e200 || prod < 1e-200 {
			logdet += math.Log(prod)
			prod = 1
		}
		di := 1 / d
		lr.dinv[a] = di
		va := v[a*c : a*c+c]
		beta := 0.0
		for x := range c {
			beta += va[x] * vp[x]
		}
		beta /= spp
		g[a] = beta * di
		bsum += beta * beta * di
		var vu [2]float64
		for y := range c {
			for x := range c {
				vu[y] += va[x] * U[x*c+y]
			}
		}
		for x := range c {
			for y := range c {
				M[x*c+y] += vu[x] * vu[y] * di
			}
			b := lr.col(2 + x)
			b[a] = vu[x] * di
			b[p] -= beta * b[a]
		}
	}
	logdet += math.Log(prod)
	var Minv [4]float64
	switch c {
	case 1:
		M[0]++
		logdet += math.Log(M[0])
		Minv[0] = 1 / M[0]
	case 2:
		M[0]++
		M[3]++
		det := M[0]*M[3] - M[1]*M[2]
		if !(det > 0) {
			return errors.New("model: a contraction's local covariance is singular")
		}
		logdet += math.Log(det)
		Minv[0], Minv[1], Minv[2], Minv[3] = M[3]/det, -M[1]/det, -M[2]/det, M[0]/det
	}
	lr.logdet = logdet
	m := 2 + c
	lr.m = m
	lr.kk = [16]float64{}
	lr.kk[0], lr.kk[1], lr.kk[m], lr.kk[m+1] = 1/spp+bsum, -1, -1, 0
	for x := range c {
		for y := range c {
			lr.kk[(2+x)*m+2+y] = -Minv[x*c+y]
		}
	}
	return nil
}

// apply sets out to Σ⁻¹ x, from s.lr.
func (s *star) apply(out, x []float64) {
	lr := &s.lr
	m := lr.m
	var coef [4]float64
	for y := range m {
		t := 0.0
		for a, v := range lr.col(y) {
			t += v * x[a]
		}
		coef[y] = t
	}
	for a, d := range lr.dinv {
		out[a] = d * x[a]
	}
	for z := range m {
		t := 0.0
		for y := range m {
			t += lr.kk[z*m+y] * coef[y]
		}
		for a, v := range lr.col(z) {
			out[a] += v * t
		}
	}
}

// eval returns the log-likelihood at r and, when grad is not nil, writes
// its gradient: with G = −n/2 (Σ⁻¹ − Σ⁻¹ Y Σ⁻¹), ∂ℓ/∂θ = Σ_ab G_ab
// ∂Σ_ab/∂θ, where off the diagonal Σ_ab = λ_a λ_b C_{side a, side b} (λ
// the correlation of a measurement with its centre, 1 for keep itself; C
// the centres' correlations, ρ between keep and drop) and the diagonal
// does not depend on θ.
func (s *star) eval(r, grad []float64) (float64, error) {
	ll, dense, err := s.evalValue(r, grad)
	if err != nil || grad == nil || dense {
		return ll, err
	}
	s.gradient(r, grad)
	return ll, nil
}

// evalValue is the log-likelihood of eval; dense reports that it was
// computed by evalDense, which then wrote the gradient into grad (when not
// nil). Otherwise gradient, called next with the same r, writes it.
func (s *star) evalValue(r, grad []float64) (ll float64, dense bool, err error) {
	k := s.k
	if err := s.setLowRank(r); err == errDense {
		ll, err := s.evalDense(r, grad)
		return ll, true, err
	} else if err != nil {
		return 0, false, err
	}
	lr := &s.lr
	m := lr.m
	Y := s.Y
	if cap(s.work) < 10*k {
		s.work = make([]float64, 10*k)
	}
	work := s.work[:10*k]
	// YW (k×m, by columns) and WᵀYW.
	yw := work[:4*k]
	for x := range m {
		wx, col := lr.col(x), yw[x*k:(x+1)*k]
		for a := range k {
			t := 0.0
			for b, v := range Y[a*k : (a+1)*k] {
				t += v * wx[b]
			}
			col[a] = t
		}
	}
	wyw := &s.wyw
	for x := range m {
		for y := range m {
			t := 0.0
			for a, v := range lr.col(x) {
				t += v * yw[y*k+a]
			}
			wyw[x*m+y] = t
		}
	}
	tr := 0.0
	for a, d := range lr.dinv {
		tr += d * Y[a*k+a]
	}
	for x := range m {
		for y := range m {
			tr += lr.kk[x*m+y] * wyw[y*m+x]
		}
	}
	return -0.5 * s.n * (float64(k)*math.Log(2*math.Pi) + lr.logdet + tr), false, nil
}

// gradient writes the gradient of eval at r into grad, after evalValue(r)
// in the low-rank form.
func (s *star) gradient(r, grad []float64) {
	k, off := s.k, s.off
	lr := &s.lr
	m := lr.m
	Y := s.Y
	work := s.work[:10*k]
	yw := work[:4*k]
	wyw := &s.wyw
	nm := len(r)
	rho := 0.0
	if s.two {
		nm--
		rho = r[nm]
	}
	side := func(a int) int {
		if a < off || !s.two || !s.far[a-off] {
			return 0
		}
		return 1
	}
	// GΛ = −n/2 (Z − Σ⁻¹ Y Z) with Z = Σ⁻¹Λ, for the loadings Λ (by
	// columns: keep's centre, drop's).
	nc := 1
	if s.two {
		nc = 2
	}
	lam, z, yz, gl, lam0 := work[4*k:5*k], work[5*k:6*k], work[6*k:7*k], work[7*k:9*k], work[9*k:10*k]
	for c := range nc {
		for a := range k {
			lam[a] = 0
			if side(a) == c {
				lam[a] = 1
				if a >= off {
					lam[a] = r[a-off]
				}
			}
		}
		s.apply(z, lam)
		for a := range k {
			t := 0.0
			for b, v := range Y[a*k : (a+1)*k] {
				t += v * z[b]
			}
			yz[a] = t
		}
		gc := gl[c*k : (c+1)*k]
		s.apply(gc, yz)
		for a := range k {
			gc[a] = -0.5 * s.n * (z[a] - gc[a])
		}
		if c == 0 && s.two {
			// Keep lam's near column for ρ's derivative: Λ₀ᵀ G Λ₁.
			copy(lam0, lam)
		}
	}
	clear(grad)
	// The diagonal of G, with Σ⁻¹e_a = Δ_a e_a + W K W_aᵀ.
	for a := off; a < k; a++ {
		var kw [4]float64
		for x := range m {
			t := 0.0
			for y := range m {
				t += lr.kk[x*m+y] * lr.wbuf[y*k+a]
			}
			kw[x] = t
		}
		da := lr.dinv[a]
		sinv := da
		q := da * da * Y[a*k+a]
		for x := range m {
			sinv += lr.wbuf[x*k+a] * kw[x]
			q += 2 * da * yw[x*k+a] * kw[x]
			for y := range m {
				q += kw[x] * wyw[x*m+y] * kw[y]
			}
		}
		gaa := -0.5 * s.n * (sinv - q)
		i, sa := a-off, side(a)
		// Σ_{b≠a} G_ab λ_b C_{sa, side b}.
		t := gl[sa*k+a]
		if s.two {
			t += rho * gl[(1-sa)*k+a]
		}
		grad[i] = 2 * (t - gaa*r[i])
	}
	if s.two {
		// Σ_{a,b on different sides} G_ab λ_a λ_b = 2 Λ₀ᵀ G Λ₁.
		t := 0.0
		for a := range k {
			t += lam0[a] * gl[k+a]
		}
		grad[nm] = 2 * t
	}
}
