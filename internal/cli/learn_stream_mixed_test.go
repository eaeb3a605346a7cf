package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLearnStreamMixed: learn --stream on a mixed CSV fits the
// conditional-Gaussian model by EM passes over the file, with the tree,
// start and E-steps of the in-memory fit with the threshold rule (the
// contraction of a stream), so the same log-likelihood; score reads the
// streamed model and gives it again. All-continuous data still refuse
// --stream, and so do weights.
func TestLearnStreamMixed(t *testing.T) {
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	mustRun(t, "simulate", "--topology", "binary", "--leaves", "9", "--model", "mixed", "-n", "1500", "--seed", "5", "--out", p("m.csv"))
	streamed := mustRun(t, "learn", p("m.csv"), "--stream", "--out", p("s.json"))
	memory := mustRun(t, "learn", p("m.csv"), "--contraction", "threshold", "--out", p("i.json"))
	ll := logLikLine(streamed)
	if ll == "" || ll != logLikLine(memory) || !strings.Contains(streamed, "conditional-Gaussian (mixed) model") {
		t.Fatalf("--stream:\n%s\nin memory:\n%s", streamed, memory)
	}
	// "log-likelihood -X (-Y per row), ..." and score's "log-likelihood -X ...".
	want := strings.Fields(ll)[1]
	if sc := mustRun(t, "score", p("s.json"), p("m.csv")); !strings.Contains(sc, want) {
		t.Errorf("score of the streamed model:\n%s\nwant log-likelihood %s", sc, want)
	}
	mustRun(t, "simulate", "--topology", "binary", "--leaves", "5", "--model", "gaussian", "-n", "300", "--seed", "5", "--out", p("g.csv"))
	if code, _, errs := run(t, "", "learn", p("g.csv"), "--stream"); code != ExitUsage || !strings.Contains(errs, "all-continuous") {
		t.Errorf("--stream on continuous data: exit %d (%s)", code, errs)
	}
	if code, _, errs := run(t, "", "learn", p("m.csv"), "--stream", "--weights", "x1"); code != ExitUsage {
		t.Errorf("--stream --weights: exit %d (%s)", code, errs)
	}
}
