//go:build !unix

package experiment

// cpuSeconds returns 0: the process's CPU time is measured on Unix
// systems only.
func cpuSeconds() float64 { return 0 }
