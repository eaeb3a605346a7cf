package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Merging the same statistics or counts file twice (by one name, two
// names, or a copy) is an error unless --force: stats merge a.lts a.lts
// and fit --mstep m c1 c1 added the counts twice without a word.
func TestRepeatedInputsRefused(t *testing.T) {
	nwk, disc := simulatedTree(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.lts"), filepath.Join(dir, "b.lts")
	mustRun(t, "stats", disc, "--out", a)
	raw, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(b, raw, 0o600)
	other := filepath.Join(dir, "sub", "..", "a.lts")
	os.Mkdir(filepath.Join(dir, "sub"), 0o700)
	out := filepath.Join(dir, "all.lts")
	for _, args := range [][]string{
		{"stats", "merge", a, a, "--out", out},
		{"stats", "merge", a, other, "--out", out},
		{"stats", "merge", a, b, "--out", out},
		{"stats", a, b},
	} {
		code, _, errs := run(t, "", args...)
		if code != ExitUsage || !strings.Contains(errs, "added twice") || !strings.Contains(errs, "--force") {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}
	if s := mustRun(t, "stats", "merge", a, b, "--out", out, "--force"); !strings.Contains(s, "4000 rows") {
		t.Errorf("--force: %s", s)
	}
	// Counts files of fit --estep.
	m := filepath.Join(dir, "m.json")
	mustRun(t, "fit", "--max-iter", "1", nwk, disc, "--out", m)
	c1, c2 := filepath.Join(dir, "c1.json"), filepath.Join(dir, "c2.json")
	mustRun(t, "fit", "--estep", m, disc, "--out", c1)
	mustRun(t, "fit", "--estep", m, disc, "--out", c2)
	next := filepath.Join(dir, "next.json")
	for _, cs := range [][]string{{c1, c1}, {c1, c2}} {
		code, _, errs := run(t, "", "fit", "--mstep", m, cs[0], cs[1], "--out", next)
		if code != ExitUsage || !strings.Contains(errs, "COUNTS 1") || !strings.Contains(errs, "COUNTS 2") {
			t.Errorf("--mstep %v: exit %d, %s", cs, code, errs)
		}
	}
	if code, _, errs := run(t, "", "fit", "--mstep", m, c1, c2, "--out", next, "--force"); code != ExitOK {
		t.Errorf("--mstep --force: exit %d, %s", code, errs)
	}
}
