package squarem

import (
	"math"
	"testing"
)

// TestStopperHandChecked runs the stopping rules on hand-made sequences.
func TestStopperHandChecked(t *testing.T) {
	// Plain EM with gains 8, 4, 2, 1, ½, … towards −1000; Tol 1e-3, so
	// Tol·|L| ≈ 1.
	seq := []float64{-1016}
	for g := 8.0; len(seq) < 30; g /= 2 {
		seq = append(seq, seq[len(seq)-1]+g)
	}
	at := func(s Stopper, xs []float64) int {
		prev := math.Inf(-1)
		for i, x := range xs {
			if s.Done(x, x-prev) {
				return i
			}
			prev = x
		}
		return -1
	}
	// The relative rule stops at the first gain ≤ 1, the fourth.
	if got := at(Stopper{Relative: true, Tol: 1e-3}, seq); got != 4 {
		t.Errorf("StopRelative stopped at value %d, want 4", got)
	}
	// StopAuto needs 1000·g ≤ Tol·|L| ≈ 1: the gain 8/8192, the
	// fourteenth.
	if got := at(Stopper{Tol: 1e-3}, seq); got != 14 {
		t.Errorf("StopAuto stopped at value %d, want 14", got)
	}
	// No gain at all is convergence.
	if got := at(Stopper{Tol: 1e-12}, []float64{-5, -4, -4}); got != 2 {
		t.Errorf("no gain: stopped at %d, want 2", got)
	}
	// SQUAREM: a small cycle gain is not enough while a plain EM step from
	// the cycle's start still gains more than Tol·|L|/1000 = 1e-3.
	s := Stopper{Tol: 1e-3}
	s.Done(-1000.5, math.Inf(1))
	if s.Done(-1000, 0.002) {
		t.Error("StopAuto stopped with a plain EM gain of 0.002")
	}
	if !s.Done(-999.9995, 0.0005) {
		t.Error("StopAuto did not stop with gains 0.0005")
	}
	// Abs is a floor on the tolerance Tol·|L| ≈ 1: at Abs 4, 1000·g ≤ 4
	// first at the gain 8/2048, the twelfth value; at Abs 1/4 the
	// fourteenth, as Tol alone.
	if got := at(Stopper{Tol: 1e-3, Abs: 4}, seq); got != 12 {
		t.Errorf("StopAuto with Abs 4 stopped at value %d, want 12", got)
	}
	if got := at(Stopper{Tol: 1e-3, Abs: 0.25}, seq); got != 14 {
		t.Errorf("StopAuto with Abs 0.25 stopped at value %d, want 14", got)
	}
}
