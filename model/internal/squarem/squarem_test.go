package squarem

import (
	"math"
	"testing"
)

// On a linear map θ ↦ ρθ (fixed point 0), α = −1/(1−ρ) and the
// extrapolation lands on the fixed point exactly; α is clamped to
// [−stepMax, −1].
func TestStepLengthLinear(t *testing.T) {
	const rho = 0.9
	p0 := []float64{1, -2}
	p1 := []float64{rho * p0[0], rho * p0[1]}
	p2 := []float64{rho * p1[0], rho * p1[1]}
	a := StepLength(p0, p1, p2, 1e9)
	if math.Abs(a+1/(1-rho)) > 1e-9 {
		t.Fatalf("α = %g, want %g", a, -1/(1-rho))
	}
	pe := make([]float64, 2)
	Extrapolate(p0, p1, p2, pe, a)
	for i, x := range pe {
		if math.Abs(x) > 1e-9 {
			t.Errorf("pe[%d] = %g, want 0", i, x)
		}
	}
	if a := StepLength(p0, p1, p2, 4); a != -4 {
		t.Errorf("clamped α = %g, want −4", a)
	}
	if a := StepLength(p0, p0, p0, 4); a != -1 {
		t.Errorf("no movement: α = %g, want −1", a)
	}
}
