package cli

import (
	"fmt"
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
		{[]string{"draw", "-", "--out", "-", "--format", "png", "--width", "65536", "--height", "65536"}, "--width"},
		{[]string{"simulate", "-n", "1000000000000"}, "--rows"},
		{[]string{"simulate", "-n", "-1"}, "--rows"},
	} {
		code, out, errs := run(t, nwk, c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.flag) || out != "" {
			t.Errorf("%v: exit %d, stderr %q, %d bytes out; want exit %d naming %s", c.args, code, errs, len(out), ExitUsage, c.flag)
		}
	}
}

// learn --hidden-states above data.MaxStates, or large enough that the
// model's tables exceed model.MaxModelCells, is a usage error naming the
// flag, found before the model is allocated.
func TestHiddenStatesRange(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("a,b,c,d,e\n")
	for i := range 60 {
		fmt.Fprintf(&csv, "%d,%d,%d,%d,%d\n", i%2, i/2%2, i/4%2, (i+1)/3%2, i/5%2)
	}
	for _, k := range []string{"65535", "65536", "-1"} {
		code, _, errs := run(t, csv.String(), "learn", "-", "--hidden-states", k)
		if code != ExitUsage || !strings.Contains(errs, "--hidden-states") {
			t.Errorf("--hidden-states %s: exit %d, stderr %q", k, code, errs)
		}
	}
}

// learn --distance-matrix - on endless input stops at the line limit
// (--max-line-bytes), and the field limit applies to its cells.
func TestDistanceMatrixLimits(t *testing.T) {
	zeros := strings.Repeat("0", 2<<20)
	code, _, errs := run(t, zeros, "learn", "--distance-matrix", "-", "--max-line-bytes", "1MiB")
	if code == ExitOK || !strings.Contains(errs, "line longer than 1048576 bytes") {
		t.Errorf("zeros: exit %d, stderr %q", code, errs)
	}
	long := strings.Repeat("x", 100)
	code, _, errs = run(t, ",a,"+long+"\na,0,1\n"+long+",1,0\n", "learn", "--distance-matrix", "-", "--max-field-bytes", "99")
	if code == ExitOK || !strings.Contains(errs, "cell of 100 bytes") {
		t.Errorf("long cell: exit %d, stderr %q", code, errs)
	}
}
