package quartet

import (
	"fmt"
	"math"

	"github.com/latentree/latentree/distance"
)

// ErrNumerical is wrapped by Result.Err, and by the errors of the oracles
// and Build, when a quartet test could not compute its scores: a singular
// value decomposition did not converge, the table holds a NaN or infinite
// cell, or a score came out NaN. Such a test picks no pairing. It is
// distance.ErrNumerical, so that one errors.Is test finds the numerical
// failures of both packages.
var ErrNumerical = distance.ErrNumerical

// Pairing identifies one of the three ways of splitting four variables
// (indexed 0..3) into two pairs.
type Pairing int

const (
	// P01 is {0,1 | 2,3} (unfolding A).
	P01 Pairing = iota
	// P02 is {0,2 | 1,3} (unfolding B).
	P02
	// P03 is {0,3 | 1,2} (unfolding C).
	P03
	// Unresolved means the test's margin was below the threshold.
	Unresolved Pairing = -1
)

// Pairs returns the two pairs of the pairing.
func (p Pairing) Pairs() ([2]int, [2]int) {
	switch p {
	case P01:
		return [2]int{0, 1}, [2]int{2, 3}
	case P02:
		return [2]int{0, 2}, [2]int{1, 3}
	case P03:
		return [2]int{0, 3}, [2]int{1, 2}
	}
	return [2]int{-1, -1}, [2]int{-1, -1}
}

func (p Pairing) String() string {
	if p == Unresolved {
		return "unresolved"
	}
	a, b := p.Pairs()
	return fmt.Sprintf("{%d,%d|%d,%d}", a[0], a[1], b[0], b[1])
}

// Result is the outcome of a quartet test.
type Result struct {
	// Pairing is the chosen pairing, or Unresolved when the margin is
	// below the threshold asked for.
	Pairing Pairing
	// Best is the pairing with the best score, even when unresolved.
	Best Pairing
	// Scores are the test's scores of the three pairings (P01, P02, P03);
	// the chosen pairing has the best score (smallest for nuclear norms
	// and distance sums, largest for Spectral@k).
	Scores [3]float64
	// Margin is the gap between the best and the second-best score,
	// relative to the best score's magnitude.
	Margin float64
	// Err is not nil when the test failed numerically (it wraps
	// ErrNumerical and says which step failed). Pairing and Best are then
	// Unresolved, Margin is 0, and the score of each pairing that could not
	// be computed is NaN: a failed score never wins.
	Err error
}

// FourPoint resolves a quartet from distances: the pairing {i,j|k,l}
// minimising d_ij + d_kl (the four-point condition). d(i,j) gives the
// distance between quartet members i and j. A NaN distance makes the
// result a failure (Result.Err).
func FourPoint(d func(i, j int) float64, minMargin float64) Result {
	var r Result
	for p := P01; p <= P03; p++ {
		a, b := p.Pairs()
		r.Scores[p] = d(a[0], a[1]) + d(b[0], b[1])
	}
	return decide(r, false, minMargin)
}

// decide picks the best score and computes the margin. A result whose Err
// is already set, or with a NaN score, is a failure: it picks no pairing.
func decide(r Result, larger bool, minMargin float64) Result {
	if r.Err == nil {
		for p, s := range r.Scores {
			if math.IsNaN(s) {
				r.Err = fmt.Errorf("quartet: the score of pairing %v is NaN: %w", Pairing(p), ErrNumerical)
				break
			}
		}
	}
	if r.Err != nil {
		r.Pairing, r.Best, r.Margin = Unresolved, Unresolved, 0
		return r
	}
	better := func(a, b float64) bool {
		if larger {
			return a > b
		}
		return a < b
	}
	best, second := 0, -1
	for p := 1; p < 3; p++ {
		switch {
		case better(r.Scores[p], r.Scores[best]):
			second, best = best, p
		case second < 0 || better(r.Scores[p], r.Scores[second]):
			second = p
		}
	}
	r.Pairing, r.Best = Pairing(best), Pairing(best)
	gap := math.Abs(r.Scores[second] - r.Scores[best])
	if den := math.Abs(r.Scores[best]); den > 0 && !math.IsInf(den, 0) {
		r.Margin = gap / den
	} else {
		r.Margin = gap
	}
	if math.IsNaN(r.Margin) || r.Margin < minMargin {
		r.Pairing = Unresolved
	}
	return r
}
