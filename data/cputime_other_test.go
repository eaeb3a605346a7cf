//go:build !unix

package data

// cpuSeconds is 0 where the CPU time is not measured.
func cpuSeconds() float64 { return 0 }
