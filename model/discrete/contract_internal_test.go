package discrete

import (
	"math"
	"math/rand/v2"
	"testing"
)

// logSum is Σ log x over the positive entries, to rounding, for products
// far below the smallest normal number (factors down to 1e-300, and
// subnormal ones) and with zeros left out.
func TestLogSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for trial := range 20 {
		xs := make([]float64, 300)
		want := 0.0
		for i := range xs {
			switch {
			case i%50 == 7:
				xs[i] = 0
				continue
			case trial%4 == 3 && i%60 == 11:
				xs[i] = 3e-310 // subnormal
			default:
				xs[i] = math.Pow(10, -300*rng.Float64()*rng.Float64())
			}
			// (math.Log on amd64 is wrong on subnormal numbers,
			// golang/go#56600: scale first.)
			want += math.Log(xs[i]*0x1p100) - 100*math.Ln2
		}
		if got := logSum(xs); math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("trial %d: logSum %.15g, Σ log %.15g", trial, got, want)
		}
	}
	if got := logSum(nil); got != 0 {
		t.Errorf("logSum(nil) = %g", got)
	}
}
