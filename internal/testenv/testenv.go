// Package testenv holds what latentree's tests share about their
// environment: whether the long statistical runs are wanted.
//
// `go test ./...` runs every test in its short form, sized so that the
// whole suite passes in under three minutes on a loaded 2-core machine
// with no test over 30 s. The long forms (recovery over many random trees
// and networks, convergence to tight tolerances, large samples) run when
// the environment variable LATENTREE_LONG is 1:
//
//	LATENTREE_LONG=1 go test -timeout 60m ./...
//
// .ci/run runs them as a separate step. Every long test keeps a short form
// that still fails when its method is broken.
package testenv

import (
	"os"
	"testing"
)

// LongEnv is the environment variable that turns on the long tests.
const LongEnv = "LATENTREE_LONG"

// Long reports whether the long statistical tests are wanted
// (LATENTREE_LONG=1 or true) and -short is not set.
func Long() bool {
	if testing.Short() {
		return false
	}
	switch os.Getenv(LongEnv) {
	case "1", "true", "yes":
		return true
	}
	return false
}

// SkipUnlessLong skips the test unless Long reports true; why says what the
// long form runs.
func SkipUnlessLong(tb testing.TB, why string) {
	tb.Helper()
	if !Long() {
		tb.Skipf("long test (%s): set %s=1 to run it", why, LongEnv)
	}
}

// Pick returns long when the long tests are wanted and short otherwise, for
// tests whose size (trials, rows) differs between the two forms.
func Pick[T any](short, long T) T {
	if Long() {
		return long
	}
	return short
}
