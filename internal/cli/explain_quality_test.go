package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/latentree/latentree/explain"
)

// TestExplainClassificationAndResiduals: on the star model (h uniform,
// P(word = 1 | h) = 0.1 or 0.8) and the rows 1,1,1 and 0,0,0, the posterior
// of state 1 is 0.512/0.513 and 0.008/0.737 (so each row is assigned to
// the state it points at), and every pair's table, observed (1, 0; 0, 1)
// against 2·P(a, b) = 2·(0.425, 0.125; 0.125, 0.325), has χ² by hand.
func TestExplainClassificationAndResiduals(t *testing.T) {
	dir := t.TempDir()
	mpath := writeStarModel(t, dir, false)
	csv := writeTestFile(t, dir, "rows.csv", "team,goal,ball\n1,1,1\n0,0,0\n")
	code, out, errs := run(t, "", "explain", "--json", "--residuals", mpath, csv)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		explain.Explanation
		Residuals []explain.Residual `json:"residuals"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	q := doc.Hidden[0].Classification
	if q == nil {
		t.Fatalf("no classification:\n%s", out)
	}
	p1, p2 := 0.512/0.513, 0.008/0.737
	h := func(p float64) float64 { return -p*math.Log(p) - (1-p)*math.Log(1-p) }
	e := (h(p1) + h(p2)) / 2
	pi := (p1 + p2) / 2
	want := map[string][2]float64{
		"model share of 1": {q.ModelShares[1], pi},
		"modal share of 1": {q.ModalShares[1], 0.5},
		"entropy R²":       {q.EntropyR2, 1 - e/h(pi)},
		"relative entropy": {q.RelativeEntropy, 1 - e/math.Log(2)},
		"error":            {q.Error, 1 - (p1+1-p2)/2},
		"AvePP of 1":       {q.AvePP[1][1], p1},
		"table[0][1]":      {q.Table[0][1], 1 - p1},
	}
	for what, x := range want {
		if math.Abs(x[0]-x[1]) > 1e-9 {
			t.Errorf("%s: %.12g, want %.12g", what, x[0], x[1])
		}
	}
	chi2 := (1-0.85)*(1-0.85)/0.85 + 2*0.25 + (1-0.65)*(1-0.65)/0.65
	if len(doc.Residuals) != 3 {
		t.Fatalf("%d residuals, want 3", len(doc.Residuals))
	}
	for _, r := range doc.Residuals {
		if math.Abs(r.BVR-chi2) > 1e-9 || r.DF != 1 || r.Rows != 2 {
			t.Errorf("%s–%s: BVR %g df %d rows %d, want %g 1 2", r.A, r.B, r.BVR, r.DF, r.Rows, chi2)
		}
	}
	code, out, errs = run(t, "", "explain", "--residuals", mpath, csv)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"classification of 2 rows: entropy R² ", "bivariate residuals of 3 pairs, largest first"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	// The residuals need the data.
	if code, _, errs := run(t, "", "explain", "--residuals", mpath); code != ExitUsage || !strings.Contains(errs, "needs DATA.csv") {
		t.Errorf("--residuals without data: exit %d, %s", code, errs)
	}
}

// TestReportClassificationAndResiduals: report with data has the
// classification and local-dependence sections; without data, neither.
func TestReportClassificationAndResiduals(t *testing.T) {
	dir := t.TempDir()
	mpath := writeStarModel(t, dir, false)
	csv := writeTestFile(t, dir, "rows.csv", "team,goal,ball\n1,1,1\n0,0,0\n1,0,1\n")
	code, out, errs := run(t, "", "report", mpath, csv, "--out", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{`<section id="classification">`, `<section id="residuals">`, "Bivariate residuals of the 3 pairs"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	code, out, errs = run(t, "", "report", mpath, "--out", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, `id="classification"`) || strings.Contains(out, `id="residuals"`) {
		t.Error("report without data has classification or residuals")
	}
}
