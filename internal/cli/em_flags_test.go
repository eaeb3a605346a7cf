package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// --em-accel and --em-stop take only their listed values, apply to
// discrete and continuous data, and select the paper's protocol.
func TestEMAccelStopFlags(t *testing.T) {
	disc, cont := simulated(t)
	dir := t.TempDir()
	nwk := filepath.Join(dir, "t.nwk")
	if code, _, errs := run(t, "", "learn", disc, "--structure-only", "--newick", nwk); code != ExitOK {
		t.Fatal(errs)
	}
	cnwk := filepath.Join(dir, "c.nwk")
	if code, _, errs := run(t, "", "learn", cont, "--structure-only", "--newick", cnwk); code != ExitOK {
		t.Fatal(errs)
	}
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"fit", nwk, disc, "--em-accel", "fast"}, "--em-accel"},
		{[]string{"fit", nwk, disc, "--em-stop", "never"}, "--em-stop"},
		{[]string{"fit", cnwk, cont, "--em-accel", "fast"}, "--em-accel"},
		{[]string{"learn", disc, "--em-stop", "sometimes"}, "--em-stop"},
	} {
		code, _, errs := run(t, "", c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.flag) {
			t.Errorf("%v: exit %d, want 2 naming %s: %s", c.args, code, c.flag, errs)
		}
	}
	for _, args := range [][]string{
		{"fit", nwk, disc, "--em-accel", "none", "--em-stop", "relative", "--tol", "1e-4", "--random-init"},
		{"fit", nwk, disc, "--em-accel", "squarem", "--em-stop", "auto"},
		{"learn", disc, "--em-accel", "none"},
		{"fit", cnwk, cont, "--em-accel", "none", "--em-stop", "relative"},
	} {
		if code, _, errs := run(t, "", args...); code != ExitOK {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
}
