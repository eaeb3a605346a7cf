package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExperimentSpectral(t *testing.T) {
	for _, args := range [][]string{
		{"--models", "0"},
		{"--sizes", "5"},
		{"--settings", "16,4,4"},
		{"--settings", "16,4,1,2"},
		{"--topologies", "star"},
		{"--methods", "gibbs"},
		{"--mu", "-1"},
		{"--large-size", "-1"},
	} {
		code, _, errs := run(t, "", append([]string{"experiment", "spectral"}, args...)...)
		flag := strings.TrimPrefix(args[0], "--")
		if code != ExitUsage || !strings.Contains(errs, flag) {
			t.Errorf("%v: exit %d, %q (want %d naming --%s)", args, code, errs, ExitUsage, flag)
		}
	}
	out := filepath.Join(t.TempDir(), "sp")
	code, stdout, errs := run(t, "", "experiment", "spectral", "--sizes", "200", "--models", "1", "--test-rows", "50",
		"--topologies", "hmm", "--settings", "6,3,2,2", "--methods", "mstar,em-paper", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "### hmm {6,3,2,2}") || !strings.Contains(stdout, "| 200 |") {
		t.Errorf("table:\n%s", stdout)
	}
	for _, ext := range []string{"csv", "md", "svg", "png"} {
		if _, err := os.Stat(out + "." + ext); err != nil {
			t.Error(err)
		}
	}
}
