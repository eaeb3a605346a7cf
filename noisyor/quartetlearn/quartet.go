package quartetlearn

import (
	"math"
	"slices"
)

// negOf returns N(members) from a negative-moment tensor of k effects:
// the entry whose index bits are 0 exactly at the members' positions.
func negOf(t []float64, k int, members ...int) float64 {
	mask := 1<<k - 1
	for _, i := range members {
		mask &^= 1 << (k - 1 - i)
	}
	return t[mask]
}

// pmiGap returns PMI(i,j) − CPMI(i,j | l) from a negative-moment tensor of
// k effects (positions i, j, l): PMI(a,b) = P(ā,b̄)/(P(ā)P(b̄)) and
// CPMI(a,b|x) = P(ā,b̄|x̄)/(P(ā|x̄)P(b̄|x̄)) (Lemma 2: the gap is positive
// exactly when a, b and x share a parent). NaN when a moment is zero.
func pmiGap(t []float64, k, i, j, l int) (pmi, cpmi float64) {
	ni, nj, nl := negOf(t, k, i), negOf(t, k, j), negOf(t, k, l)
	nij, nil_, njl := negOf(t, k, i, j), negOf(t, k, i, l), negOf(t, k, j, l)
	nijl := negOf(t, k, i, j, l)
	if !(ni > 0 && nj > 0 && nil_ > 0 && njl > 0) {
		return math.NaN(), math.NaN()
	}
	return nij / (ni * nj), nijl * nl / (nil_ * njl)
}

// gapRule decides whether a PMI − CPMI gap shows a shared parent: the gap
// must exceed tau, rel·(PMI − 1) (the gap is about (1 − f_x)·(PMI − 1)
// for a child x of the pair's shared parent, and 0 for any other effect,
// whatever the parent's prior) and, when z > 0, z standard errors of the
// gap estimated from the counts (raw: the unadjusted negative-moment tensor, rows: the
// rows it rests on).
type gapRule struct {
	tau, z, rel float64
	raw         []float64
	rows        int64
}

// shares applies the rule to positions i, j (the pair) and l (the
// conditioning effect) of the adjusted tensor t of k effects.
func (g gapRule) shares(t []float64, k, i, j, l int) (bool, float64, float64) {
	pmi, cpmi := pmiGap(t, k, i, j, l)
	gap := pmi - cpmi
	if !(gap > g.tau) || !(gap > g.rel*(pmi-1)) {
		return false, pmi, cpmi
	}
	if g.z <= 0 || g.raw == nil {
		return true, pmi, cpmi
	}
	// Delta-method variances of log PMI and log CPMI from the counts
	// (multinomial; a multiplicative adjustment does not change them).
	n := float64(g.rows)
	c := func(members ...int) float64 { return negOf(g.raw, k, members...) * n }
	inv := func(x float64) float64 {
		if x <= 0 {
			return math.Inf(1)
		}
		return 1 / x
	}
	vp := inv(c(i, j)) - inv(c(i)) - inv(c(j)) + 1/n
	vc := inv(c(i, j, l)) + inv(c(l)) - inv(c(i, l)) - inv(c(j, l))
	se := math.Sqrt(math.Max(0, pmi*pmi*vp) + math.Max(0, cpmi*cpmi*vc))
	return gap > g.z*se, pmi, cpmi
}

// tripletShares is the triplet part of PRETEST: whether the three effects
// at positions i, j, l of t share a parent, judged by the PMI − CPMI gap
// over the three ways to pick the conditioning effect.
func tripletShares(t []float64, k, i, j, l int, g gapRule) bool {
	for _, c := range [3][3]int{{i, j, l}, {i, l, j}, {j, l, i}} {
		if ok, _, _ := g.shares(t, k, c[0], c[1], c[2]); ok {
			return true
		}
	}
	return false
}

// others returns the members of a quartet other than o, in increasing
// order: the triplet that leaves o out.
func others(o int) [3]int {
	var m [3]int
	n := 0
	for i := range 4 {
		if i != o {
			m[n] = i
			n++
		}
	}
	return m
}

// pretest is PRETEST: every triplet of the quartet shares a parent.
func pretest(t *[16]float64, g gapRule) bool {
	for o := range 4 {
		m := others(o)
		if !tripletShares(t[:], 4, m[0], m[1], m[2], g) {
			return false
		}
	}
	return true
}

// triplet8 marginalises a quartet joint (index a<<3|b<<2|c<<1|d) onto the
// ordered positions x, y, z: out index vx<<2|vy<<1|vz.
func triplet8(joint *[16]float64, x, y, z int) [8]float64 {
	var out [8]float64
	for idx, v := range joint {
		bit := func(p int) int { return idx >> (3 - p) & 1 }
		out[bit(x)<<2|bit(y)<<1|bit(z)] += v
	}
	return out
}

// mixture3 is MIXTURE (eq. 2) on a singly-coupled triplet with joint j
// (index a<<2|b<<1|c): with M1 = P(b,c,a=0), M2 = P(b,c,a=1) and λ1 < λ2
// the eigenvalues of M2·M1⁻¹, the shared parent's prior is
// (1+λ2)/(λ2−λ1)·1ᵀ(M2−λ1M1)1 and its failure on a is (1+λ1)/(1+λ2).
func mixture3(j *[8]float64) (prior, fail float64, ok bool) {
	m1 := [4]float64{j[0], j[1], j[2], j[3]}
	m2 := [4]float64{j[4], j[5], j[6], j[7]}
	det := m1[0]*m1[3] - m1[1]*m1[2]
	if det == 0 || !finite(det) {
		return 0, 0, false
	}
	inv := [4]float64{m1[3] / det, -m1[1] / det, -m1[2] / det, m1[0] / det}
	m3 := [4]float64{
		m2[0]*inv[0] + m2[1]*inv[2], m2[0]*inv[1] + m2[1]*inv[3],
		m2[2]*inv[0] + m2[3]*inv[2], m2[2]*inv[1] + m2[3]*inv[3],
	}
	tr := m3[0] + m3[3]
	dt := m3[0]*m3[3] - m3[1]*m3[2]
	disc := tr*tr/4 - dt
	if !(disc > 0) {
		return 0, 0, false
	}
	sq := math.Sqrt(disc)
	l1, l2 := tr/2-sq, tr/2+sq
	if !(1+l1 > 0) || !(l2 > l1) {
		return 0, 0, false
	}
	s := 0.0
	for i := range 4 {
		s += m2[i] - l1*m1[i]
	}
	prior = (1 + l2) / (l2 - l1) * s
	fail = (1 + l1) / (1 + l2)
	if !finite(prior) || !finite(fail) {
		return 0, 0, false
	}
	return prior, fail, true
}

// quartetMixture applies MIXTURE to all four triplets of a quartet, each
// member in turn as the conditioning effect (12 estimates of the prior,
// three of each failure), and returns the medians.
func quartetMixture(joint *[16]float64) (prior float64, fail [4]float64, ok bool) {
	priors := make([]float64, 0, 12)
	var fails [4][]float64
	for o := range 4 {
		m := others(o)
		for r := range 3 {
			a, b, c := m[r], m[(r+1)%3], m[(r+2)%3]
			j := triplet8(joint, a, b, c)
			p, f, good := mixture3(&j)
			if !good {
				continue
			}
			priors = append(priors, p)
			fails[a] = append(fails[a], f)
		}
	}
	if len(priors) == 0 {
		return 0, fail, false
	}
	prior = median(priors)
	for i := range 4 {
		if len(fails[i]) == 0 {
			return 0, fail, false
		}
		fail[i] = median(fails[i])
	}
	return prior, fail, true
}

// median returns the median of x (the mean of the middle two for even
// lengths); it sorts x.
func median(x []float64) float64 {
	slices.Sort(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// extendFailure solves eq. 5 for p_{A|x̄} given R = CPMI(a,b|x) and the
// source's failures fa, fb on a, b, taking the smaller root, and returns
// the failure of the edge A→x by eq. 6.
func extendFailure(r, fa, fb, prior float64) float64 {
	qa := r * (fa - 1) * (fb - 1)
	qb := r*(fa+fb-2) - (fa*fb - 1)
	qc := r - 1
	var y float64
	if math.Abs(qa) < 1e-300 {
		if qb == 0 {
			return 1
		}
		y = -qc / qb
	} else {
		disc := qb*qb - 4*qa*qc
		if disc < 0 {
			disc = 0
		}
		q := -(qb + math.Copysign(math.Sqrt(disc), qb)) / 2
		y1 := q / qa
		y2 := y1
		if q != 0 {
			y2 = qc / q
		}
		y = math.Min(y1, y2)
		if y < 0 {
			y = math.Max(y1, y2)
			if y > prior {
				y = 0
			}
		}
	}
	y = math.Max(0, math.Min(y, prior))
	if prior >= 1 {
		return 0
	}
	return y * (1 - prior) / (prior * (1 - y))
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
