package quartetlearn

import (
	"math"
	"slices"
)

// singular4 returns the singular values of the 4×4 matrix a (row-major),
// in decreasing order, by one-sided Jacobi rotations. One-sided Jacobi
// gives small singular values to an absolute accuracy of a few ulps of the
// largest, which the rank test needs: with exact moments the third
// singular value of a singly-coupled quartet is zero to rounding.
func singular4(a *[16]float64) [4]float64 {
	// Work on columns: col[j][i] = a[i][j].
	var col [4][4]float64
	for i := range 4 {
		for j := range 4 {
			col[j][i] = a[4*i+j]
		}
	}
	for sweep := 0; sweep < 40; sweep++ {
		rotated := false
		for i := 0; i < 3; i++ {
			for j := i + 1; j < 4; j++ {
				var alpha, beta, gamma float64
				for k := range 4 {
					alpha += col[i][k] * col[i][k]
					beta += col[j][k] * col[j][k]
					gamma += col[i][k] * col[j][k]
				}
				if gamma == 0 || math.Abs(gamma) <= 1e-17*math.Sqrt(alpha*beta) {
					continue
				}
				rotated = true
				zeta := (beta - alpha) / (2 * gamma)
				t := 1 / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
				if zeta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(1+t*t)
				s := c * t
				for k := range 4 {
					x, y := col[i][k], col[j][k]
					col[i][k] = c*x - s*y
					col[j][k] = s*x + c*y
				}
			}
		}
		if !rotated {
			break
		}
	}
	var sv [4]float64
	for j := range 4 {
		var s float64
		for k := range 4 {
			s += col[j][k] * col[j][k]
		}
		sv[j] = math.Sqrt(s)
	}
	slices.SortFunc(sv[:], func(x, y float64) int {
		switch {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	})
	return sv
}

// unfoldings returns the third singular values of the three 4×4 unfoldings
// (ab|cd), (ac|bd), (ad|bc) of a 2×2×2×2 joint table (index a<<3|b<<2|c<<1|d).
func unfoldings(joint *[16]float64) [3]float64 {
	out, _ := unfoldingsBelow(joint, math.Inf(1))
	return out
}

// unfoldingsBelow is unfoldings that stops, returning false, at the first
// third singular value above bound (the later ones are left 0).
func unfoldingsBelow(joint *[16]float64, bound float64) ([3]float64, bool) {
	var out [3]float64
	var m [16]float64
	for u := range 3 {
		for idx, v := range joint {
			a, b, c, d := idx>>3&1, idx>>2&1, idx>>1&1, idx&1
			var r, col int
			switch u {
			case 0:
				r, col = a<<1|b, c<<1|d
			case 1:
				r, col = a<<1|c, b<<1|d
			default:
				r, col = a<<1|d, b<<1|c
			}
			m[4*r+col] = v
		}
		out[u] = singular4(&m)[2]
		if out[u] > bound {
			return out, false
		}
	}
	return out, true
}
