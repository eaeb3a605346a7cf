package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExperimentMixed(t *testing.T) {
	for _, args := range [][]string{
		{"--runs", "-1"},
		{"--likelihood-runs", "-2"},
		{"--bins", "1"},
		{"--test-rows", "0"},
		{"--leaves", "3,5"},
		{"--likelihood-leaves", "9,8"},
		{"--sizes", "5"},
		{"--methods", "quartet"},
		{"--methods", "nope"},
		{"--thresholds", "-1"},
	} {
		code, _, errs := run(t, "", append([]string{"experiment", "mixed"}, args...)...)
		flag := strings.TrimPrefix(args[0], "--")
		if code != ExitUsage || !strings.Contains(errs, flag) && !strings.Contains(errs, args[1]) {
			t.Errorf("%v: exit %d, %q (want %d naming --%s)", args, code, errs, ExitUsage, flag)
		}
	}
	out := filepath.Join(t.TempDir(), "mx")
	code, stdout, errs := run(t, "", "experiment", "mixed", "--runs", "3", "--sizes", "1000", "--methods", "nj",
		"--likelihood-runs", "1", "--likelihood-leaves", "5,6", "--likelihood-sizes", "500", "--test-rows", "200", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"| exact distances | nj | 3 |", "| 1000 | nj | 3 |", "| 500 | mixed | 1 |", "| 500 | discretised | 1 |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	for _, ext := range []string{"csv", "md", "svg", "png"} {
		if _, err := os.Stat(out + "." + ext); err != nil {
			t.Error(err)
		}
	}
}
