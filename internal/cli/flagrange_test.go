package cli

import (
	"strings"
	"testing"
)

// Flag values out of range are usage errors (exit 2) naming the flag,
// found before anything is allocated or written.
func TestFlagRanges(t *testing.T) {
	nwk := "((a,b),(c,d),e);"
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"draw", "-", "--out", "-", "--width", "NaN"}, "--width"},
		{[]string{"draw", "-", "--out", "-", "--width", "1e12"}, "--width"},
		{[]string{"draw", "-", "--out", "-", "--format", "png", "--height", "Inf"}, "--height"},
		{[]string{"draw", "-", "--out", "-", "--height", "-3"}, "--height"},
		{[]string{"simulate", "-n", "1000000000000"}, "--rows"},
		{[]string{"simulate", "-n", "-1"}, "--rows"},
	} {
		code, out, errs := run(t, nwk, c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.flag) || out != "" {
			t.Errorf("%v: exit %d, stderr %q, %d bytes out; want exit %d naming %s", c.args, code, errs, len(out), ExitUsage, c.flag)
		}
	}
}
