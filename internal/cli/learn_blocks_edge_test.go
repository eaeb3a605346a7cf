package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLearnBlocksFitOptions: a gzip copy of a CSV file is read into a
// data.Packed; fit options that need the rows in memory (spectral
// parameters, --hidden-states auto, --init spectral) work on the CSV file
// read into memory; on the same rows read in blocks into memory they
// should work too (the Packed can be materialized).
func TestLearnBlocksFitOptions(t *testing.T) {
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	mustRun(t, "simulate", "--topology", "binary", "--leaves", "8", "--model", "symmetric", "-n", "1500", "--seed", "3", "--out", p("d.csv"))
	gzipFile(t, p("d.csv"), p("d.csv.gz"))
	for _, extra := range [][]string{
		{"--params", "spectral", "--hidden-states", "2"},
		{"--hidden-states", "auto"},
		{"--init", "spectral"},
	} {
		args := append([]string{"learn", "CSV", "--contraction", "threshold"}, extra...)
		args[1] = p("d.csv")
		if code, _, errs := run(t, "", args...); code != ExitOK {
			t.Fatalf("%v in memory: exit %d: %s", extra, code, errs)
		}
		args[1] = p("d.csv.gz")
		if code, _, errs := run(t, "", args...); code != ExitOK {
			t.Errorf("%v on gzip (held in memory as a Packed): exit %d: %s", extra, code, errs)
		}
	}
}

// TestLearnStreamReport: learn --stream --report (no rows kept for
// the report).
func TestLearnStreamReport(t *testing.T) {
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	mustRun(t, "simulate", "--topology", "binary", "--leaves", "6", "--model", "symmetric", "-n", "800", "--seed", "4", "--out", p("d.csv"))
	code, _, errs := run(t, "", "learn", p("d.csv"), "--stream", "--report", p("r.html"), "--contraction", "threshold")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(p("r.html")); err != nil {
		t.Fatal(err)
	}
}

// TestLearnContinuousParquet: continuous Parquet data are fitted in
// memory (Gaussian), with --report, and so are mixed data (a mixed
// model).
func TestLearnContinuousParquet(t *testing.T) {
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	mustRun(t, "simulate", "--topology", "binary", "--leaves", "6", "--model", "gaussian", "-n", "800", "--seed", "4", "--out", p("g.parquet"))
	mustRun(t, "simulate", "--topology", "binary", "--leaves", "6", "--model", "gaussian", "-n", "800", "--seed", "4", "--out", p("g.csv"))
	want := mustRun(t, "learn", p("g.csv"), "--contraction", "threshold")
	got := mustRun(t, "learn", p("g.parquet"), "--contraction", "threshold", "--report", p("r.html"))
	strip := func(s string) string {
		s = strings.ReplaceAll(s, p("g.csv"), "DATA")
		return stripTimes(strings.ReplaceAll(s, p("g.parquet"), "DATA"))
	}
	if strip(got) != strip(want) {
		t.Errorf("parquet:\n%s\ncsv:\n%s", got, want)
	}
	// --stream with continuous data and a fit: usage error.
	if code, _, errs := run(t, "", "learn", p("g.parquet"), "--stream"); code != ExitUsage {
		t.Errorf("--stream on continuous data: exit %d (%s)", code, errs)
	}
	// Mixed data: a discrete and a continuous file as columns is not
	// possible with shards; make a mixed CSV by hand.
	var b strings.Builder
	b.WriteString("a,b,c,x\n")
	for i := 0; i < 400; i++ {
		b.WriteString([]string{"0", "1"}[i%2] + "," + []string{"0", "1"}[(i/2)%2] + "," + []string{"0", "1"}[(i/3)%2] + "," + strconv.FormatFloat(float64(i)*0.37+float64(i%3), 'g', -1, 64) + "\n")
	}
	if err := os.WriteFile(p("mixed.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	gzipFile(t, p("mixed.csv"), p("mixed.csv.gz"))
	c1, _, e1 := run(t, "", "learn", p("mixed.csv"), "--structure-only")
	c2, _, e2 := run(t, "", "learn", p("mixed.csv.gz"), "--structure-only")
	if c1 != c2 || e1 != e2 {
		t.Errorf("mixed: csv exit %d %q, gzip exit %d %q", c1, e1, c2, e2)
	}
	// Mixed data with a fit: a mixed model, the same for the file and its
	// gzip (read in memory and in blocks).
	o1 := stripTimes(strings.ReplaceAll(mustRun(t, "learn", p("mixed.csv")), p("mixed.csv"), "DATA"))
	o2 := stripTimes(strings.ReplaceAll(mustRun(t, "learn", p("mixed.csv.gz")), p("mixed.csv.gz"), "DATA"))
	if o1 != o2 || !strings.Contains(o1, "conditional-Gaussian model") {
		t.Errorf("mixed fit: csv\n%s\ngzip\n%s", o1, o2)
	}
	// --stream fits them by EM passes over the file: the in-memory fit
	// with the threshold rule (the contraction of a stream).
	o3 := mustRun(t, "learn", p("mixed.csv.gz"), "--stream")
	o4 := mustRun(t, "learn", p("mixed.csv"), "--contraction", "threshold")
	if ll3, ll4 := logLikLine(o3), logLikLine(o4); ll3 == "" || ll3 != ll4 || !strings.Contains(o3, "conditional-Gaussian model") {
		t.Errorf("--stream on mixed data:\n%s\nin memory:\n%s", o3, o4)
	}
}

// logLikLine returns the line of learn's summary that starts with
// "log-likelihood".
func logLikLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "log-likelihood") {
			return l
		}
	}
	return ""
}

// TestLearnReportSample: --report on more than 100,000 rows read in
// blocks explains a sample of them and says so.
func TestLearnReportSample(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	mustRun(t, "simulate", "--topology", "binary", "--leaves", "6", "--model", "symmetric", "-n", "120000", "--seed", "4", "--out", p("d.parquet"))
	out := mustRun(t, "learn", p("d.parquet"), "--report", p("r.html"), "--out", p("m.json"))
	raw, err := os.ReadFile(p("r.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "100000 of its 120000 rows") {
		t.Errorf("report does not name the sample:\n%s", out)
	}
	m, err := os.ReadFile(p("m.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m), "120000") {
		t.Errorf("model provenance lacks the row count: %.400s", m)
	}
}
