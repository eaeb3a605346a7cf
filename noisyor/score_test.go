package noisyor

import (
	"math"
	"testing"
)

// TestScore checks the scores' formulas on a likelihood with a row of
// probability 0: κ = sources + edges + effects, PerRow over the rows of
// positive probability, BIC and BICPaper with the log of all rows.
func TestScore(t *testing.T) {
	ch := func(effects ...int) []Child {
		var c []Child
		for _, a := range effects {
			c = append(c, Child{Effect: a, Failure: 0.1})
		}
		return c
	}
	n := &Network{Effects: []string{"a", "b", "c", "d", "e"}, Leak: []float64{0.01, 0.01, 0.01, 0.01, 0.01},
		Sources: []Source{{Name: "X1", Prior: 0.3, Children: ch(0, 1, 2, 3)}, {Name: "X2", Prior: 0.2, Children: ch(2, 3, 4)}}}
	l := &Likelihood{LogLik: math.Inf(-1), FiniteLogLik: -12, StdErr: 0.5, Exact: 3, Approx: 1, Zero: 1, FirstZero: 2}
	s := n.Score(l, 4)
	k := 2 + 7 + 5
	if s.Params != k || n.NumParams() != k {
		t.Fatalf("params %d (NumParams %d), want %d", s.Params, n.NumParams(), k)
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s %v, want %v", name, got, want)
		}
	}
	near("PerRow", s.PerRow, -4)
	near("BIC", s.BIC, 24+float64(k)*math.Log(4))
	near("BICPaper", s.BICPaper, -12-0.5*float64(k)*math.Log(4))
	near("AIC", s.AIC, 24+2*float64(k))
	if s.Rows != 4 || s.Hidden != 2 || s.NonPositive != 1 || s.FirstZero != 3 || s.Exact != 3 || s.Estimated != 1 || s.StdErr != 0.5 {
		t.Errorf("score %+v", s)
	}
	l.Zero, l.FirstZero = 0, -1
	if s := n.Score(l, 4); s.FirstZero != 0 || s.PerRow != -3 {
		t.Errorf("no zero row: first zero %d, per row %v", s.FirstZero, s.PerRow)
	}
}
