// Package squarem holds the step of SQUAREM (Varadhan & Roland 2008,
// scheme SqS3) that the EMs of the model families share: the step length
// and the extrapolated point, on parameters laid out as one vector (see
// model.AccelSQUAREM for the scheme and its step-length control).
package squarem

import "math"

// StepGrow is the factor by which SQUAREM's largest step length grows
// after an accepted extrapolation that used it, and shrinks after a
// rejected one.
const StepGrow = 4

// StepLength returns SqS3's α = −‖r‖/‖v‖ for θ0 = p0, θ1 = p1, θ2 = p2
// (r = θ1 − θ0, v = θ2 − 2θ1 + θ0), clamped to [−stepMax, −1].
func StepLength(p0, p1, p2 []float64, stepMax float64) float64 {
	var rr, vv float64
	for i := range p0 {
		r := p1[i] - p0[i]
		v := p2[i] - 2*p1[i] + p0[i]
		rr += r * r
		vv += v * v
	}
	if !(rr > 0 && vv > 0) {
		return -1
	}
	return min(-1, max(-math.Sqrt(rr/vv), -stepMax))
}

// Extrapolate sets pe to θ0 − 2αr + α²v.
func Extrapolate(p0, p1, p2, pe []float64, alpha float64) {
	for i := range p0 {
		r := p1[i] - p0[i]
		v := p2[i] - 2*p1[i] + p0[i]
		pe[i] = p0[i] - 2*alpha*r + alpha*alpha*v
	}
}
