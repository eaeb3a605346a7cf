package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// simulatedTree writes discrete data from a double-star tree (two hidden
// nodes joined by an edge, three leaves each) and the tree.
func simulatedTree(t *testing.T) (nwk, disc string) {
	t.Helper()
	dir := t.TempDir()
	nwk, disc = filepath.Join(dir, "t.nwk"), filepath.Join(dir, "d.csv")
	if code, _, errs := run(t, "", "simulate", "--topology", "double-star", "--leaves", "3", "--model", "symmetric",
		"--states", "3", "-n", "2000", "--seed", "4", "--out", disc, "--newick", nwk); code != ExitOK {
		t.Fatal(errs)
	}
	return nwk, disc
}

// fit's spectral flags: bad values and combinations that do not apply are
// usage errors naming the flag.
func TestFitRejectsSpectralFlags(t *testing.T) {
	nwk, disc := simulatedTree(t)
	_, cont := simulated(t)
	cnwk := filepath.Join(t.TempDir(), "c.nwk")
	if code, _, errs := run(t, "", "learn", cont, "--structure-only", "--newick", cnwk); code != ExitOK {
		t.Fatal(errs)
	}
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{nwk, disc, "--params", "moments"}, "--params"},
		{[]string{nwk, disc, "--params", "spectral", "--linker", "qr"}, "--linker"},
		{[]string{nwk, disc, "--init", "best"}, "--init"},
		{[]string{nwk, disc, "--params", "spectral", "--hidden-states", "0"}, "--hidden-states"},
		{[]string{nwk, disc, "--params", "spectral", "--hidden-states", "auto"}, "--hidden-states"},
		{[]string{nwk, disc, "--params", "spectral", "--spectral-tol", "0"}, "--spectral-tol"},
		{[]string{nwk, disc, "--params", "spectral", "--spectral-tol", "1"}, "--spectral-tol"},
		{[]string{nwk, disc, "--params", "spectral", "--spectral-tol", "NaN"}, "--spectral-tol"},
		// EM flags with spectral parameters.
		{[]string{nwk, disc, "--params", "spectral", "--restarts", "2"}, "--restarts"},
		{[]string{nwk, disc, "--params", "spectral", "--tol", "1e-3"}, "--tol"},
		{[]string{nwk, disc, "--params", "spectral", "--max-iter", "5"}, "--max-iter"},
		{[]string{nwk, disc, "--params", "spectral", "--em-pseudo", "1"}, "--em-pseudo"},
		{[]string{nwk, disc, "--params", "spectral", "--seed", "3"}, "--seed"},
		{[]string{nwk, disc, "--params", "spectral", "--random-init"}, "--random-init"},
		{[]string{nwk, disc, "--params", "spectral", "--init", "spectral"}, "--init"},
		// Spectral options without spectral parameters or start.
		{[]string{nwk, disc, "--linker", "parikh"}, "--linker"},
		{[]string{nwk, disc, "--init", "random", "--spectral-tol", "1e-3"}, "--spectral-tol"},
		{[]string{nwk, disc, "--params", "em", "--linker", "mstar-full"}, "--linker"},
		{[]string{nwk, disc, "--init", "spectral", "--random-init"}, "--random-init"},
		// Continuous data.
		{[]string{cnwk, cont, "--params", "spectral"}, "--params"},
		{[]string{cnwk, cont, "--init", "spectral"}, "--init"},
		{[]string{cnwk, cont, "--init", "random"}, "--init"},
	} {
		code, _, errs := run(t, "", append([]string{"fit"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errs, c.flag) {
			t.Errorf("fit %v: exit %d, want 2 naming %s: %s", c.args, code, c.flag, errs)
		}
	}
	// --init random is --random-init.
	_, a, _ := run(t, "", "fit", nwk, disc, "--init", "random")
	_, b, _ := run(t, "", "fit", nwk, disc, "--random-init")
	_, c, _ := run(t, "", "fit", nwk, disc)
	secs := regexp.MustCompile(`[0-9.]+s\b`)
	tail := func(s string) string { return secs.ReplaceAllString(s, "") }
	if a == "" || tail(a) != tail(b) || tail(a) == tail(c) {
		t.Errorf("--init random, --random-init and the surrogate start:\n%s\n%s\n%s", a, b, c)
	}
}

// A spectral fit end to end: the summary, the model file, score (with
// --rows) and infer.
func TestFitSpectral(t *testing.T) {
	nwk, disc := simulatedTree(t)
	dir := t.TempDir()
	mp := filepath.Join(dir, "spectral.json")
	code, out, errs := run(t, "", "fit", "--params", "spectral", "--hidden-states", "3", nwk, disc, "--out", mp)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{"spectral model: k′ = 3, linker mstar, 2000 rows", "rows with P̂ > 0", "rows with P̂ ≤ 0", "1 linker: rank 3 on 1; 0 singular values cut"} {
		if !strings.Contains(out, s) {
			t.Errorf("summary lacks %q:\n%s", s, out)
		}
	}
	// --json.
	for _, linker := range []string{"mstar", "parikh", "mstar-full"} {
		code, out, errs = run(t, "", "fit", "--params", "spectral", "--hidden-states", "2", "--linker", linker, "--json", nwk, disc)
		var doc struct {
			Params string `json:"params"`
			K      int    `json:"hidden_states"`
			Linker string `json:"linker"`
			Score  struct {
				Rows        int `json:"rows"`
				NonPositive int `json:"nonpositive_rows"`
			} `json:"score"`
			Edges []struct {
				Parent   string    `json:"parent"`
				Child    string    `json:"child"`
				Rank     int       `json:"rank"`
				Singular []float64 `json:"singular"`
			} `json:"edges"`
		}
		if err := json.Unmarshal([]byte(out), &doc); code != ExitOK || err != nil {
			t.Fatalf("--linker %s --json: exit %d, %v: %s %s", linker, code, err, out, errs)
		}
		// Unnamed hidden nodes carry the names the model file gives them.
		for _, e := range doc.Edges {
			if strings.HasPrefix(e.Parent, "#") || strings.HasPrefix(e.Child, "#") {
				t.Errorf("--linker %s --json: edge %s–%s names a placeholder", linker, e.Parent, e.Child)
			}
		}
		if doc.Params != "spectral" || doc.K != 2 || doc.Linker != linker || doc.Score.Rows != 2000 || len(doc.Edges) != 1 || doc.Edges[0].Rank != 2 {
			t.Errorf("--linker %s --json: %+v", linker, doc)
		}
	}
	// score: the summary counts rows with P̂ ≤ 0; --rows leaves their
	// loglik empty.
	code, out, errs = run(t, "", "score", "--json", mp, disc)
	var sc struct {
		Score struct {
			NonPositive int     `json:"nonpositive_rows"`
			LogLik      float64 `json:"loglik"`
		} `json:"score"`
	}
	if err := json.Unmarshal([]byte(out), &sc); code != ExitOK || err != nil {
		t.Fatalf("score: exit %d, %v: %s", code, err, errs)
	}
	if code, out, _ := run(t, "", "score", mp, disc); code != ExitOK || !strings.Contains(out, "rows with P̂ ≤ 0") {
		t.Errorf("score summary: %s", out)
	}
	code, out, errs = run(t, "", "score", "--rows", mp, disc)
	if code != ExitOK {
		t.Fatalf("score --rows: exit %d: %s", code, errs)
	}
	rows, prob, ll := rowsCSV(t, out)
	nonpos, sum := 0, 0.0
	for i := range rows {
		switch {
		case rows[i] != i+1:
			t.Fatalf("row %d numbered %d", i+1, rows[i])
		case prob[i] <= 0 && !math.IsNaN(ll[i]):
			t.Errorf("row %d: prob %g with loglik %g", i+1, prob[i], ll[i])
		case prob[i] > 0 && math.Abs(math.Exp(ll[i])-prob[i]) > 1e-12*prob[i]:
			t.Errorf("row %d: prob %g, loglik %g", i+1, prob[i], ll[i])
		}
		if prob[i] <= 0 {
			nonpos++
		} else {
			sum += ll[i]
		}
	}
	if len(rows) != 2000 || nonpos != sc.Score.NonPositive || math.Abs(sum-sc.Score.LogLik) > 1e-6*math.Abs(sum) {
		t.Errorf("%d rows, %d with P̂ ≤ 0 (score: %d), log-likelihood %g (score: %g)", len(rows), nonpos, sc.Score.NonPositive, sum, sc.Score.LogLik)
	}
	// infer: no hidden posteriors, but imputation works.
	if code, _, errs := run(t, "", "infer", mp, disc); code != ExitFailure || !strings.Contains(errs, "no hidden-variable posteriors") {
		t.Errorf("infer: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(disc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	holes := lines[0] + "," + lines[1][strings.Index(lines[1], ",")+1:] + lines[2][:strings.LastIndex(lines[2], ",")+1] + "\n"
	code, out, errs = run(t, holes, "infer", "--impute", mp, "-")
	if code != ExitOK || !strings.Contains(errs, "imputed 2 missing cells") || strings.Count(out, "\n") != 3 || strings.Contains(out, ",\n") || strings.HasPrefix(strings.SplitAfter(out, "\n")[1], ",") {
		t.Errorf("infer --impute: exit %d: %q %s", code, out, errs)
	}
}

// EM from the spectral start prints the EM summary.
func TestFitInitSpectral(t *testing.T) {
	nwk, disc := simulatedTree(t)
	code, out, errs := run(t, "", "fit", "--init", "spectral", "--linker", "parikh", "--hidden-states", "3", nwk, disc)
	if code != ExitOK || !strings.HasPrefix(out, "EM: ") || !strings.Contains(out, "log-likelihood") {
		t.Errorf("exit %d: %s %s", code, out, errs)
	}
}

// TestLearnSpectral: learn takes --params spectral and --init spectral
// after structure learning, and refuses them where they do not apply.
func TestLearnSpectral(t *testing.T) {
	_, disc := simulatedTree(t)
	dir := t.TempDir()
	mp := filepath.Join(dir, "m.json")
	code, _, errs := run(t, "", "learn", "--params", "spectral", "--contraction", "threshold", disc, "--out", mp)
	if code != ExitOK {
		t.Fatalf("learn --params spectral: exit %d: %s", code, errs)
	}
	raw, err := os.ReadFile(mp)
	if err != nil || !strings.Contains(string(raw), `"type": "spectral"`) {
		t.Fatalf("model file: %v, %.200s", err, raw)
	}
	if code, _, errs = run(t, "", "learn", "--init", "spectral", "--json", disc); code != ExitOK {
		t.Fatalf("learn --init spectral: exit %d: %s", code, errs)
	}
	for _, args := range [][]string{
		{"learn", "--method", "regclnj", "--params", "spectral", disc},
		{"learn", "--params", "spectral", "--tol", "1e-3", disc},
		{"learn", "--structure-only", "--init", "spectral", disc},
		{"learn", "--linker", "parikh", disc},
	} {
		if code, _, errs := run(t, "", args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2: %s", args, code, errs)
		}
	}
}
