// Package squarem holds the step of SQUAREM (Varadhan & Roland 2008,
// scheme SqS3) and the EM stopping rule that the EMs of the model families
// share: the step length
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

// SlowK is StopAuto's bound on the ratio of EM's remaining gain to the
// gain of one plain EM step.
const SlowK = 1000

// Stopper applies an EM stopping rule to the objectives (the
// log-likelihood, or a penalised one) at cycle boundaries: model.StopAuto,
// or model.StopRelative when Relative is set.
type Stopper struct {
	Relative bool
	Tol      float64
	// Scale, when positive, caps the |L| of StopAuto's tolerance
	// Tol·min(|L|, Scale); zero means Tol·|L|.
	Scale float64
	// Abs is a floor on StopAuto's tolerance, in nats: the tolerance is
	// the larger of Abs and Tol·|L| (or Tol·min(|L|, Scale)).
	Abs  float64
	prev float64 // the previous boundary's objective
	n    int     // boundaries seen
}

// Done records the objective at a new boundary and gEM, the gain of the
// last plain EM step, and reports convergence: under the relative rule when the
// change is at most Tol times the mean |objective|; otherwise when
// there is no gain at all (a fixed point up to rounding), or when both the
// cycle's gain and SlowK times gEM are at most Eps(obj).
func (s *Stopper) Done(obj, gEM float64) bool {
	prev := s.prev
	s.prev = obj
	s.n++
	if s.n < 2 {
		return false
	}
	if s.Relative {
		return math.Abs(obj-prev) <= s.Tol*(math.Abs(obj)+math.Abs(prev))/2
	}
	g := obj - prev
	if !(g > 0) {
		return true
	}
	eps := s.Eps(obj)
	return g <= eps && SlowK*gEM <= eps
}

// Prev is the objective at the last boundary recorded.
func (s *Stopper) Prev() float64 { return s.prev }

// Eps is StopAuto's tolerance at objective obj.
func (s *Stopper) Eps(obj float64) float64 {
	l := math.Abs(obj)
	if s.Scale > 0 {
		l = min(l, s.Scale)
	}
	return max(s.Tol*l, s.Abs)
}
