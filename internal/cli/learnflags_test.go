package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// simulated writes a small discrete and a small continuous dataset.
func simulated(t *testing.T) (disc, cont string) {
	t.Helper()
	dir := t.TempDir()
	disc, cont = filepath.Join(dir, "d.csv"), filepath.Join(dir, "g.csv")
	if code, _, errs := run(t, "", "simulate", "--topology", "double-star", "--leaves", "4", "--model", "symmetric", "-n", "300", "--seed", "2", "--out", disc); code != ExitOK {
		t.Fatal(errs)
	}
	if code, _, errs := run(t, "", "simulate", "--topology", "double-star", "--leaves", "4", "-n", "300", "--seed", "2", "--out", cont); code != ExitOK {
		t.Fatal(errs)
	}
	return disc, cont
}

// Flags that do not apply to the method or the data, and values out of
// range, are usage errors naming the flag; they used to be ignored or
// silently replaced by defaults.
func TestLearnRejectsFlags(t *testing.T) {
	disc, cont := simulated(t)
	cases := []struct {
		args []string
		flag string
	}{
		// Ignored before: RG, contraction, EM-start flags for regclnj/regclrg.
		{[]string{disc, "--method", "regclnj", "--tau", "3"}, "--tau"},
		{[]string{disc, "--method", "regclrg", "--eps", "0.1"}, "--eps"},
		{[]string{disc, "--method", "regclnj", "--grouping", "threshold"}, "--grouping"},
		{[]string{disc, "--method", "regclnj", "--contract", "0.2"}, "--contract"},
		{[]string{disc, "--method", "regclrg", "--restarts", "3"}, "--restarts"},
		{[]string{disc, "--method", "regclnj", "--random-init"}, "--random-init"},
		{[]string{disc, "--method", "clnj", "--tau", "3"}, "--tau"},
		{[]string{disc, "--method", "clnj", "--test", "spectral"}, "--test"},
		{[]string{disc, "--method", "rg", "--max-hidden", "3"}, "--max-hidden"},
		{[]string{disc, "--method", "quartet", "--rank", "2"}, "--rank"},
		{[]string{disc, "--method", "chowliu", "--contract", "0.1"}, "--contract"},
		{[]string{disc, "--method", "quartet", "--k", "3"}, "--k"},
		// Ignored before: discrete-only flags on Gaussian data.
		{[]string{cont, "--hidden-states", "3"}, "--hidden-states"},
		{[]string{cont, "--restarts", "2"}, "--restarts"},
		{[]string{cont, "--em-pseudo", "1"}, "--em-pseudo"},
		{[]string{cont, "--random-init"}, "--random-init"},
		// Replaced by defaults or accepted before.
		{[]string{disc, "--tol", "0"}, "--tol"},
		{[]string{disc, "--tol", "-1"}, "--tol"},
		{[]string{disc, "--max-iter", "0"}, "--max-iter"},
		{[]string{disc, "--table-pseudo", "-5"}, "--table-pseudo"},
		{[]string{disc, "--rank", "0"}, "--rank"},
		{[]string{disc, "--rank", "-1"}, "--rank"},
		{[]string{disc, "--em-pseudo", "-1"}, "--em-pseudo"},
		{[]string{disc, "--method", "quartet", "--representatives", "0"}, "--representatives"},
		{[]string{disc, "--method", "quartet", "--candidates", "0"}, "--candidates"},
		{[]string{disc, "--method", "rg", "--tau", "-1"}, "--tau"},
		{[]string{disc, "--samples", "100"}, "--samples"},
		{[]string{"--distance-matrix", disc, "--columns", "x1,x2"}, "--columns"},
		{[]string{"--distance-matrix", disc, "--hidden-states", "3"}, "--hidden-states"},
		{[]string{disc, "--structure-only", "--tol", "1e-3"}, "--tol"},
		{[]string{disc, "--structure-only", "--out", "m.json"}, "--out"},
		{[]string{disc, "--contraction", "bic", "--contract", "0.1"}, "--contract"},
		{[]string{disc, "--contraction", "aic", "--keep-hidden-edges"}, "--keep-hidden-edges"},
		{[]string{disc, "--contraction", "often"}, "often"},
		{[]string{disc, "--method", "mst", "--contraction", "bic"}, "--contraction"},
	}
	for _, c := range cases {
		code, _, errs := run(t, "", append([]string{"learn"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errs, c.flag) {
			t.Errorf("learn %v: exit %d, want 2 naming %s: %s", c.args, code, c.flag, errs)
		}
	}
	// BIC without parameters comes from the covariance: discrete data
	// have none to give (a failure naming what it needs, not a usage
	// error: the kinds are known once the data are read).
	if code, _, errs := run(t, "", "learn", disc, "--contraction", "bic", "--structure-only"); code != ExitFailure || !strings.Contains(errs, "all-continuous data without missing cells") {
		t.Errorf("learn --contraction bic --structure-only on discrete data: exit %d: %s", code, errs)
	}
	// The same flags are accepted where they apply.
	for _, args := range [][]string{
		{disc, "--method", "clrg", "--tau", "3", "--eps", "0.2", "--structure-only"},
		{disc, "--method", "regclrg", "--hidden-states", "2", "--max-hidden", "1", "--tol", "1e-4"},
		{disc, "--method", "quartet", "--test", "spectral", "--k", "2", "--structure-only"},
		{cont, "--tol", "1e-4", "--max-iter", "50"},
	} {
		if code, _, errs := run(t, "", append([]string{"learn"}, args...)...); code != ExitOK {
			t.Errorf("learn %v: exit %d: %s", args, code, errs)
		}
	}
}

// fit rejects flags that do not apply to continuous data and bad values.
func TestFitRejectsFlags(t *testing.T) {
	disc, cont := simulated(t)
	dir := t.TempDir()
	nwk := filepath.Join(dir, "t.nwk")
	if code, _, errs := run(t, "", "learn", cont, "--structure-only", "--newick", nwk); code != ExitOK {
		t.Fatal(errs)
	}
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{nwk, cont, "--tol", "1e-3", "--restarts", "2"}, "--restarts"},
		{[]string{nwk, cont, "--em-pseudo", "1"}, "--em-pseudo"},
		{[]string{nwk, cont, "--hidden-states", "3"}, "--hidden-states"},
		{[]string{nwk, disc, "--tol", "0"}, "--tol"},
		{[]string{nwk, disc, "--max-iter", "0"}, "--max-iter"},
		{[]string{nwk, disc, "--hidden-states", "0"}, "--hidden-states"},
	} {
		code, _, errs := run(t, "", append([]string{"fit"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errs, c.flag) {
			t.Errorf("fit %v: exit %d, want 2 naming %s: %s", c.args, code, c.flag, errs)
		}
	}
}

// The --method help and its error list every method; the help groups the
// flags by stage.
func TestLearnHelpListsMethodsAndGroups(t *testing.T) {
	_, out, _ := run(t, "", "learn", "--help")
	_, _, errs := run(t, "a,b\n0,1\n", "learn", "-", "--method", "magic")
	for _, m := range []string{"clnj", "clrg", "nj", "rg", "clblind", "chowliu", "mst", "quartet", "regclnj", "regclrg"} {
		if !strings.Contains(out, "  "+m+" ") {
			t.Errorf("learn --help does not describe %s", m)
		}
		if !strings.Contains(errs, m) {
			t.Errorf("unknown-method error does not list %s: %s", m, errs)
		}
	}
	for _, h := range []string{"Input:", "Distances", "Recursive grouping", "Quartet tests", "Regularized CLGrouping", "Parameters (EM):", "Output:"} {
		if !strings.Contains(out, h) {
			t.Errorf("learn --help has no %q group", h)
		}
	}
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "--seed uint random seed of EM") || !strings.Contains(flat, "--order random of the quartet method") {
		t.Errorf("--seed does not say it drives --order random")
	}
	// No near-identical flag names with different meanings.
	for _, old := range []string{"--distances ", "--pseudo ", "--reps "} {
		if strings.Contains(out, old) {
			t.Errorf("learn --help still has %s", old)
		}
	}
}

// --newick - with --json: the tree alone on standard output, the JSON
// summary on standard error (it used to be dropped).
func TestLearnTreeOnStdoutKeepsSummary(t *testing.T) {
	disc, _ := simulated(t)
	code, out, errs := run(t, "", "learn", disc, "--newick", "-", "--json", "--structure-only")
	if code != ExitOK {
		t.Fatal(errs)
	}
	if !strings.HasSuffix(strings.TrimSpace(out), ";") || strings.Contains(out, "{") {
		t.Errorf("standard output is not the Newick tree alone: %q", out)
	}
	if !strings.Contains(errs, `"method": "clnj"`) {
		t.Errorf("the JSON summary is missing: %q", errs)
	}
}

// learn and fit refuse to write over their input, before any work.
func TestLearnFitNeverOverwriteInput(t *testing.T) {
	disc, _ := simulated(t)
	before, err := os.ReadFile(disc)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"learn", disc, "--out", disc},
		{"learn", disc, "--newick", disc},
		{"learn", disc, "--newick", disc + ".nwk", "--dot", disc + ".nwk"},
		{"fit", disc + ".nwk", disc, "--out", disc},
	} {
		if code, _, errs := run(t, "", args...); code != ExitUsage {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
	after, err := os.ReadFile(disc)
	if err != nil || string(after) != string(before) {
		t.Errorf("the input was changed")
	}
	// A bad --newick path is found before EM, and --out is not written.
	out := filepath.Join(t.TempDir(), "m.json")
	if code, _, _ := run(t, "", "learn", disc, "--out", out, "--newick", filepath.Join(t.TempDir(), "no", "such", "dir", "t.nwk")); code != ExitUsage {
		t.Errorf("bad --newick directory: exit %d", code)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out was written although another output path was bad")
	}
}

// Quartet tests on continuous columns are a clear error (they used to be
// read as discrete variables with one state per distinct value).
func TestQuartetContinuousIsAnError(t *testing.T) {
	_, cont := simulated(t)
	code, _, errs := run(t, "", "quartet", cont, "--vars", "x1,x2,x5,x6")
	if code != ExitFailure || !strings.Contains(errs, "continuous") || !strings.Contains(errs, "x1") {
		t.Errorf("quartet on continuous data: exit %d: %s", code, errs)
	}
	code, _, errs = run(t, "", "learn", cont, "--method", "quartet", "--structure-only")
	if code != ExitFailure || !strings.Contains(errs, "continuous") {
		t.Errorf("learn --method quartet on continuous data: exit %d: %s", code, errs)
	}
}
