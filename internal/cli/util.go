package cli

import "math"

// meanSD returns the mean and sample standard deviation of the non-NaN
// values.
func meanSD(x []float64) (float64, float64) {
	n, mean, m2 := 0.0, 0.0, 0.0
	for _, v := range x {
		if math.IsNaN(v) {
			continue
		}
		n++
		d := v - mean
		mean += d / n
		m2 += d * (v - mean)
	}
	if n < 2 {
		return mean, math.NaN()
	}
	return mean, math.Sqrt(m2 / (n - 1))
}
