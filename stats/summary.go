package stats

import (
	"math"

	"github.com/latentree/latentree/data"
)

// A VarSummary describes one variable: its states and their counts
// (discrete), or its mean and sample standard deviation (continuous), and
// how many of its cells are missing.
type VarSummary struct {
	Name   string   `json:"name"`
	Kind   string   `json:"kind"`
	States []string `json:"states,omitempty"`
	Counts []int    `json:"counts,omitempty"`
	// Mean and SD are nil for a discrete variable. SD is the unbiased
	// (n−1) standard deviation over the observed cells, NaN below two.
	Mean    *float64 `json:"mean,omitempty"`
	SD      *float64 `json:"sd,omitempty"`
	Missing int      `json:"missing"`
}

// Summarize describes every column of d.
func Summarize(d *data.Dataset) []VarSummary {
	vars := make([]VarSummary, d.NumVars())
	for j := range vars {
		v := d.Var(j)
		s := VarSummary{Name: v.Name, Kind: v.Kind.String(), Missing: d.MissingCount(j)}
		if v.Kind == data.Discrete {
			s.States = v.States
			s.Counts = make([]int, len(v.States))
			for _, x := range d.Discrete(j) {
				if x != data.Missing {
					s.Counts[x]++
				}
			}
		} else {
			m, sd := meanSD(d.Continuous(j))
			s.Mean, s.SD = &m, &sd
		}
		vars[j] = s
	}
	return vars
}

// Summary describes every variable of s, as Summarize does its dataset
// (the mean of a continuous variable never observed is 0).
func (s *Stats) Summary() []VarSummary {
	vars := make([]VarSummary, s.NumVars())
	for j := range vars {
		v := s.Var(j)
		vs := VarSummary{Name: v.Name, Kind: v.Kind.String(), Missing: int(s.Rows() - s.Count(j))}
		if v.Kind == data.Discrete {
			vs.States = v.States
			vs.Counts = make([]int, len(v.States))
			for k, c := range s.Marginal(j) {
				vs.Counts[k] = int(c)
			}
		} else {
			m, sd := s.Mean(j), math.Sqrt(s.Cov(j, j))
			if s.Count(j) == 0 {
				m = 0
			}
			vs.Mean, vs.SD = &m, &sd
		}
		vars[j] = vs
	}
	return vars
}

// meanSD returns the mean and sample standard deviation of the non-NaN
// values (Welford's update): a NaN deviation below two values, a 0 mean
// for none.
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
