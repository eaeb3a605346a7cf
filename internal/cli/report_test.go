package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "d.csv")
	if code, _, errs := run(t, "", "simulate", "--topology", "double-star", "--leaves", "4", "--model", "symmetric",
		"-n", "500", "--seed", "3", "--out", csv); code != ExitOK {
		t.Fatalf("simulate: %s", errs)
	}
	mpath, learned := filepath.Join(dir, "m.json"), filepath.Join(dir, "learned.html")
	if code, _, errs := run(t, "", "learn", csv, "--out", mpath, "--report", learned); code != ExitOK {
		t.Fatalf("learn --report: exit %d: %s", code, errs)
	}
	page, err := os.ReadFile(learned)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="model-data"`, "d.csv", "time: total", "EM trace", "Data quality", `"names":[`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("learn --report page lacks %q", want)
		}
	}
	out := filepath.Join(dir, "r.html")
	if code, _, errs := run(t, "", "report", mpath, csv, "--out", out, "--title", "A <test>"); code != ExitOK {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	page, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, want := range []string{"<title>A &lt;test&gt;</title>", `"from_data":true`, "missing cells", "clnj"} {
		if !strings.Contains(s, want) {
			t.Errorf("report page lacks %q", want)
		}
	}
	// A Gaussian model without data, on standard output.
	gcsv := filepath.Join(dir, "g.csv")
	gm := filepath.Join(dir, "g.json")
	if code, _, errs := run(t, "", "simulate", "--topology", "double-star", "--leaves", "4", "--model", "gaussian",
		"-n", "300", "--seed", "4", "--out", gcsv); code != ExitOK {
		t.Fatalf("simulate: %s", errs)
	}
	if code, _, errs := run(t, "", "learn", gcsv, "--out", gm); code != ExitOK {
		t.Fatalf("learn: %s", errs)
	}
	if code, stdout, errs := run(t, "", "report", gm, "--out", "-"); code != ExitOK || !strings.Contains(stdout, `"kind":"gaussian"`) {
		t.Errorf("report of a Gaussian model: exit %d: %s", code, errs)
	}
}

func TestReportUsage(t *testing.T) {
	dir := t.TempDir()
	csv := writeTestFile(t, dir, "d.csv", "a,b,c\n0,1,0\n1,1,0\n0,0,1\n")
	mpath := writeStarModel(t, dir, false)
	for _, args := range [][]string{
		{"report", mpath},                                  // no --out
		{"report", mpath, "--out", mpath},                  // output is the input
		{"report", mpath, "--out", "r.html", "--top", "0"}, // bad --top
		{"report", mpath, "a", "b", "--out", "r.html"},     // too many arguments
		{"report", mpath, "--out", filepath.Join(dir, "missing", "r.html")},
		{"learn", csv, "--structure-only", "--report", filepath.Join(dir, "r.html")},
		{"learn", csv, "--out", filepath.Join(dir, "same.html"), "--report", filepath.Join(dir, "same.html")},
	} {
		if code, _, errs := run(t, "", args...); code != ExitUsage {
			t.Errorf("%q: exit %d, want %d: %s", args, code, ExitUsage, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.html")); err == nil {
		t.Error("a failed command wrote its report")
	}
}
