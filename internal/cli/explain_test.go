package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latentree/latentree/explain"
)

// explainDoc is explain --json's document.
type explainDoc struct {
	Model string `json:"model"`
	Data  string `json:"data"`
	explain.Explanation
}

func explainJSON(t *testing.T, args ...string) explainDoc {
	t.Helper()
	code, out, errs := run(t, "", append([]string{"explain", "--json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("explain --json %v: exit %d: %s", args, code, errs)
	}
	var doc explainDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return doc
}

// TestExplainDiscrete: the star model (h uniform, P(word = 1 | h) = 0.1 or
// 0.8 for ball, goal and team) gives P(word = 1) = 0.45; with the rows
// 1,1,1 and 0,0,0 the share of state 1 is the mean of 0.512/0.513 and
// 0.008/0.737.
func TestExplainDiscrete(t *testing.T) {
	dir := t.TempDir()
	mpath := writeStarModel(t, dir, false)
	code, out, errs := run(t, "", "explain", mpath)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"discrete model, 1 hidden variable; state shares are the model's probabilities\n",
		" (ball · goal · team), depth 0\n",
		"  state 1 (50%): ball 0.80 (0.45), goal 0.80 (0.45), team 0.80 (0.45)\n",
		"  state 0 (50%): ball=0 0.90 (0.55), goal=0 0.90 (0.55), team=0 0.90 (0.55)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	doc := explainJSON(t, mpath, "--top", "2", "--label-words", "1")
	if doc.Kind != "discrete" || doc.FromData || len(doc.Hidden) != 1 {
		t.Fatalf("%+v", doc)
	}
	h := doc.Hidden[0]
	if h.Label != "ball" || len(h.Related) != 2 || len(h.States) != 2 || len(h.States[1].Rising) != 2 || h.Related[0].MI <= 0 {
		t.Errorf("--top 2 --label-words 1: %+v", h)
	}
	csv := writeTestFile(t, dir, "rows.csv", "team,goal,ball\n1,1,1\n0,0,0\n")
	doc = explainJSON(t, mpath, csv)
	want := (0.512/0.513 + 0.008/0.737) / 2
	if !doc.FromData || doc.Rows != 2 || doc.Data != csv || math.Abs(doc.Hidden[0].States[1].Share-want) > 1e-9 {
		t.Errorf("from data: %+v, want share %g", doc, want)
	}
	// --out writes the text to a file and nothing to standard output.
	outPath := filepath.Join(dir, "explain.txt")
	if code, out, errs := run(t, "", "explain", mpath, csv, "--out", outPath); code != ExitOK || out != "" {
		t.Fatalf("--out: exit %d, stdout %q, %s", code, out, errs)
	}
	raw, err := os.ReadFile(outPath)
	if err != nil || !strings.Contains(string(raw), "state shares are mean posteriors over 2 rows") || !strings.Contains(string(raw), "(50% of rows)") {
		t.Errorf("--out file: %v\n%s", err, raw)
	}
}

func TestExplainGaussian(t *testing.T) {
	mpath := writeStarModel(t, t.TempDir(), true)
	code, out, errs := run(t, "", "explain", mpath)
	if code != ExitOK || !strings.Contains(out, "related (correlation): ball +0.80, goal +0.80, team +0.80\n") || strings.Contains(out, "state") {
		t.Errorf("exit %d: %s\n%s", code, errs, out)
	}
	doc := explainJSON(t, mpath)
	if doc.Kind != "gaussian" || math.Abs(doc.Hidden[0].Related[0].Corr-0.8) > 1e-12 || doc.Hidden[0].States != nil {
		t.Errorf("%+v", doc)
	}
}

// TestExplainNoisyor: flu's effects by failure (fever 0.2, cough 0.4,
// ache 0.5); with the score test data, whose fourth row has probability
// 0, the shares are means over the other four rows.
func TestExplainNoisyor(t *testing.T) {
	dir := t.TempDir()
	npath, _ := writeScoreNet(t, dir, scoreTestNet())
	code, out, errs := run(t, "", "explain", npath)
	if code != ExitOK || !strings.Contains(out, "noisy-or model, 2 sources") ||
		!strings.Contains(out, "flu (fever · cough · ache)\n  related (failure probability): fever 0.20, cough 0.40, ache 0.50\n") ||
		!strings.Contains(out, "  state on (10%): ") {
		t.Errorf("exit %d: %s\n%s", code, errs, out)
	}
	csv := writeTestFile(t, dir, "findings.csv", scoreTestCSV)
	doc := explainJSON(t, npath, csv, "--missing", "keep")
	if doc.Kind != "noisy-or" || !doc.FromData || doc.Rows != 4 || doc.Hidden[1].Name != "cold" || doc.Hidden[1].States[1].Label != "on" {
		t.Errorf("%+v", doc)
	}
	if s := doc.Hidden[0].States; math.Abs(s[0].Share+s[1].Share-1) > 1e-12 || s[1].Share == 0.1 {
		t.Errorf("flu shares from data %+v", s)
	}
	// Data that are not the network's effects name the difference.
	bad := writeTestFile(t, dir, "bad.csv", "fever,cough\n1,0\n")
	if code, _, errs := run(t, "", "explain", npath, bad); code != ExitFailure || !strings.Contains(errs, "ache") {
		t.Errorf("mismatch: exit %d: %s", code, errs)
	}
}

func TestExplainUsage(t *testing.T) {
	dir := t.TempDir()
	mpath := writeStarModel(t, dir, false)
	for _, args := range [][]string{
		{"explain"},
		{"explain", mpath, "a.csv", "b.csv"},
		{"explain", mpath, "--top", "0"},
		{"explain", mpath, "--label-words", "-1"},
		{"explain", mpath, "--out", mpath},
		{"explain", mpath, "--max-exact", "3"},
	} {
		if code, _, errs := run(t, "", args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, code, ExitUsage, errs)
		}
	}
	if code, _, errs := run(t, "", "explain", filepath.Join(dir, "missing.json")); code != ExitFailure || !strings.Contains(errs, "missing.json") {
		t.Errorf("missing model: exit %d: %s", code, errs)
	}
	bad := writeTestFile(t, dir, "bad.csv", "ball,goal\n1,0\n")
	if code, _, errs := run(t, "", "explain", mpath, bad); code != ExitFailure || !strings.Contains(errs, "team") {
		t.Errorf("mismatched data: exit %d: %s", code, errs)
	}
	code, out, _ := run(t, "", "explain", "--help")
	if code != ExitOK || !strings.Contains(out, "latentree explain model.json docs.csv") {
		t.Errorf("help: exit %d\n%s", code, out)
	}
}

// TestExplainSpectralModel: a spectral model (which fit writes) has no
// parameters for its hidden variables; explain says so and fails, in text
// and JSON, instead of crashing or printing an empty explanation (the
// error of explain.Model was lost to a shadowed variable).
func TestExplainSpectralModel(t *testing.T) {
	dir := t.TempDir()
	csvPath, nwk, sp := filepath.Join(dir, "d.csv"), filepath.Join(dir, "t.nwk"), filepath.Join(dir, "sp.json")
	if code, _, errs := run(t, "", "simulate", "--topology", "double-star", "--leaves", "3", "--model", "symmetric",
		"--states", "2", "-n", "300", "--seed", "3", "--out", csvPath, "--newick", nwk); code != ExitOK {
		t.Fatalf("simulate: %s", errs)
	}
	if code, _, errs := run(t, "", "fit", "--params", "spectral", nwk, csvPath, "--out", sp); code != ExitOK {
		t.Fatalf("fit: %s", errs)
	}
	for _, args := range [][]string{{"explain", sp}, {"explain", "--json", sp}, {"explain", sp, csvPath}} {
		code, out, errs := run(t, "", args...)
		if code != ExitFailure || out != "" || !strings.Contains(errs, "sp.json") || !strings.Contains(errs, "spectral model has no parameters for its hidden variables") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want a failure naming the file and saying why", args, code, out, errs)
		}
	}
}
