package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/tree"
)

// writeStarModel writes a model with hidden h and observed ball, goal,
// team: a discrete one (h uniform, P(word | h) = [[0.9, 0.1], [0.2, 0.8]])
// or a Gaussian one (correlation 0.8 on every edge, ball with mean 10 and
// starTree returns a hidden node h joined to observed ball, goal and team.
func starTree(t *testing.T) (tr *tree.Tree, h int) {
	t.Helper()
	tr = tree.New()
	h = tr.AddHidden()
	for _, w := range []string{"ball", "goal", "team"} {
		x, err := tr.AddObserved(w)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.AddEdge(h, x, math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	return tr, h
}

// variance 4).
func writeStarModel(t *testing.T, dir string, isGaussian bool) string {
	t.Helper()
	tr, h := starTree(t)
	var m model.Model
	if isGaussian {
		g, err := gaussian.New(tr, h, 0.8)
		if err != nil {
			t.Fatal(err)
		}
		ball, _ := tr.Lookup("ball")
		g.Mean[ball], g.Var[ball] = 10, 4
		m = g
	} else {
		d, err := discrete.New(tr, h, []int{2, 2, 2, 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range tr.Observed() {
			d.CPT[x] = []float64{0.9, 0.1, 0.2, 0.8}
		}
		m = d
	}
	path := filepath.Join(dir, "model.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WriteJSON(f, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeTestFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScoreMismatchNamesVariables: a model/data mismatch names the
// variables missing on each side (it said "columns forced discrete are not
// in the header" before).
func TestScoreMismatchNamesVariables(t *testing.T) {
	dir := t.TempDir()
	for _, isGaussian := range []bool{false, true} {
		mp := writeStarModel(t, dir, isGaussian)
		// The data lack "goal" and have "id" and "note".
		dp := writeTestFile(t, dir, "d.csv", "id,ball,team,note\n1,0,1,a\n2,1,1,b\n3,1,0,c\n")
		for _, cmd := range []string{"score", "infer"} {
			code, _, errs := run(t, "", cmd, mp, dp)
			if code != ExitFailure || !strings.Contains(errs, `"goal"`) || !strings.Contains(errs, `"id", "note"`) ||
				!strings.Contains(errs, "d.csv") || strings.Contains(errs, "forced") {
				t.Errorf("%s (gaussian %v): exit %d, %q", cmd, isGaussian, code, errs)
			}
		}
		// All model variables present, one extra column.
		dp = writeTestFile(t, dir, "e.csv", "id,ball,goal,team\n1,0,1,1\n2,1,1,0\n3,1,0,1\n")
		code, _, errs := run(t, "", "score", mp, dp)
		if code != ExitFailure || !strings.Contains(errs, `"id"`) || !strings.Contains(errs, "--ignore") {
			t.Errorf("extra column (gaussian %v): exit %d, %q", isGaussian, code, errs)
		}
		if code, out, errs := run(t, "", "score", "--ignore", "id", mp, dp); code != ExitOK || !strings.Contains(out, "3 rows") {
			t.Errorf("--ignore id (gaussian %v): exit %d, %q %q", isGaussian, code, out, errs)
		}
	}
}

// TestInferImputeProbabilities: infer --impute writes the completed data,
// and --probabilities and --json the distribution of every filled cell.
func TestInferImputeProbabilities(t *testing.T) {
	dir := t.TempDir()
	mp := writeStarModel(t, dir, false)
	// Row 1: ball missing, goal = team = 1. Row 2: team missing, the rest 0.
	dp := writeTestFile(t, dir, "d.csv", "ball,goal,team\n,1,1\n0,0,\n1,1,1\n")
	out := filepath.Join(dir, "completed.csv")
	probs := filepath.Join(dir, "probs.csv")
	code, stdout, errs := run(t, "", "infer", "--impute", "--probabilities", probs, "--out", out, mp, dp)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "imputed 2 missing cells; average probability of the imputed values 0.8281") || stdout != "" {
		t.Errorf("summary %q, stdout %q", errs, stdout)
	}
	completed, _ := os.ReadFile(out)
	if string(completed) != "ball,goal,team\n1,1,1\n0,0,0\n1,1,1\n" {
		t.Errorf("completed data:\n%s", completed)
	}
	// P(ball = 1 | goal = team = 1) = (0.1·0.005 + 0.8·0.32)/0.325;
	// P(team = 1 | ball = goal = 0) = (0.1·0.405 + 0.8·0.02)/0.425.
	p, _ := os.ReadFile(probs)
	want := "row,column,value,prob\n1,ball,0,0.210769\n1,ball,1,0.789231\n2,team,0,0.867059\n2,team,1,0.132941\n"
	if string(p) != want {
		t.Errorf("probabilities:\n%s\nwant\n%s", p, want)
	}
	// --json: the summary (on standard error, since the data go to
	// standard output) with every cell's distribution.
	code, stdout, errs = run(t, "", "infer", "--impute", "--json", mp, dp)
	if code != ExitOK || stdout != string(completed) {
		t.Fatalf("exit %d, stdout %q, %s", code, stdout, errs)
	}
	var doc struct {
		Imputed int `json:"imputed"`
		Cells   []struct {
			Row    int     `json:"row"`
			Column string  `json:"column"`
			Value  string  `json:"value"`
			Prob   float64 `json:"prob"`
			Probs  []struct {
				State string  `json:"state"`
				Prob  float64 `json:"prob"`
			} `json:"probs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(errs), &doc); err != nil {
		t.Fatalf("%v: %s", err, errs)
	}
	if doc.Imputed != 2 || len(doc.Cells) != 2 || doc.Cells[0].Column != "ball" || doc.Cells[0].Row != 0 || doc.Cells[0].Value != "1" ||
		math.Abs(doc.Cells[0].Prob-0.256500/0.325) > 1e-9 || len(doc.Cells[1].Probs) != 2 || doc.Cells[1].Probs[1].State != "1" {
		t.Errorf("JSON %+v", doc)
	}
}

func TestInferImputeGaussian(t *testing.T) {
	dir := t.TempDir()
	mp := writeStarModel(t, dir, true)
	// Row 1: ball missing, goal = 1, team = 0.5.
	dp := writeTestFile(t, dir, "d.csv", "ball,goal,team\nNA,1,0.5\n9,-1,0\n11,0.2,0.1\n")
	probs := filepath.Join(dir, "probs.csv")
	code, stdout, errs := run(t, "", "infer", "--impute", "--probabilities", probs, mp, dp)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// Conditional of ball given goal and team: standardised, the
	// correlations are 0.64 among all three, so E[z_ball] = c·(1 + 0.5)
	// with c = 0.64/(1 + 0.64), Var = 1 − 2·0.64·c.
	c := 0.64 / 1.64
	mean := 10 + 2*c*1.5
	sd := 2 * math.Sqrt(1-2*0.64*c)
	p, _ := os.ReadFile(probs)
	want := "row,column,mean,sd\n1,ball," + formatFloat(mean) + "," + formatFloat(sd) + "\n"
	if string(p) != want {
		t.Errorf("probabilities:\n%s\nwant\n%s", p, want)
	}
	if !strings.HasPrefix(stdout, "ball,goal,team\n11.17") || !strings.Contains(errs, "imputed 1 missing cells") {
		t.Errorf("stdout %q, stderr %q", stdout, errs)
	}
}

func TestInferFlagsThatDoNotApply(t *testing.T) {
	dir := t.TempDir()
	mp := writeStarModel(t, dir, false)
	dp := writeTestFile(t, dir, "d.csv", "ball,goal,team\n,1,1\n0,0,1\n")
	for _, args := range [][]string{
		{"--probabilities", filepath.Join(dir, "p.csv")},
		{"--json"},
		{"--impute", "--map"},
		{"--impute", "--probabilities", "-"}, // data and probabilities both on standard output
		{"--impute", "--out", dp},            // the output is the input
	} {
		code, _, errs := run(t, "", append(append([]string{"infer"}, args...), mp, dp)...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
	if data, _ := os.ReadFile(dp); string(data) != "ball,goal,team\n,1,1\n0,0,1\n" {
		t.Error("the input was changed")
	}
}

// TestInferPosteriors: hidden posteriors for both model types.
func TestInferPosteriors(t *testing.T) {
	dir := t.TempDir()
	mp := writeStarModel(t, dir, false)
	dp := writeTestFile(t, dir, "d.csv", "ball,goal,team\n1,1,1\n0,0,\n")
	code, out, errs := run(t, "", "infer", "--missing", "keep", mp, dp)
	// P(h = 1 | 1,1,1) = 0.256/(0.0005+0.256); P(h = 1 | 0,0) = 0.02/0.425.
	if code != ExitOK || out != "h1=0,h1=1\n0.00194932,0.998051\n0.952941,0.0470588\n" {
		t.Errorf("exit %d, %q %s", code, out, errs)
	}
	if code, out, _ := run(t, "", "infer", "--missing", "keep", "--map", mp, dp); code != ExitOK || out != "h1\n1\n0\n" {
		t.Errorf("--map: exit %d, %q", code, out)
	}
	gp := writeStarModel(t, t.TempDir(), true)
	gd := writeTestFile(t, dir, "g.csv", "ball,goal,team\n10,0,0\n")
	if code, out, errs := run(t, "", "infer", gp, gd); code != ExitOK || !strings.HasPrefix(out, "h1_mean,h1_sd\n0,") {
		t.Errorf("gaussian: exit %d, %q %s", code, out, errs)
	}
}

// rowsCSV parses score --rows output: the header and, per row, the row
// number, prob and loglik (NaN where the cell is empty).
func rowsCSV(t *testing.T, s string) (rows []int, prob, ll []float64) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if lines[0] != "row,prob,loglik" {
		t.Fatalf("header %q", lines[0])
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != 3 {
			t.Fatalf("line %q", l)
		}
		r, err1 := strconv.Atoi(f[0])
		p, err2 := strconv.ParseFloat(f[1], 64)
		x := math.NaN()
		var err3 error
		if f[2] != "" {
			x, err3 = strconv.ParseFloat(f[2], 64)
		}
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("line %q", l)
		}
		rows, prob, ll = append(rows, r), append(prob, p), append(ll, x)
	}
	return rows, prob, ll
}

// TestScoreRowsDiscrete: one line per input row, in order, rows from 1,
// P(row's observed cells) by hand with missing cells marginalised, and
// loglik its log; the summary goes to standard error, or to standard
// output with --out.
func TestScoreRowsDiscrete(t *testing.T) {
	dir := t.TempDir()
	mp := writeStarModel(t, dir, false)
	dp := writeTestFile(t, dir, "d.csv", "ball,goal,team\n1,1,1\n0,0,\n,1,\n0,0,0\n,,\n")
	code, out, errs := run(t, "", "score", "--rows", "--missing", "keep", mp, dp)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// h uniform; P(x = 1 | h) = 0.1, 0.8.
	want := []float64{
		0.5*0.001 + 0.5*0.512, // 1,1,1
		0.5*0.81 + 0.5*0.04,   // 0,0,·
		0.5*0.1 + 0.5*0.8,     // ·,1,·
		0.5*0.729 + 0.5*0.008, // 0,0,0
		1,                     // nothing observed
	}
	rows, prob, ll := rowsCSV(t, out)
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(want), out)
	}
	for i := range want {
		if rows[i] != i+1 || math.Abs(prob[i]-want[i]) > 1e-12 || math.Abs(ll[i]-math.Log(want[i])) > 1e-12 {
			t.Errorf("row %d: %d,%g,%g; want %d,%g,%g", i, rows[i], prob[i], ll[i], i+1, want[i], math.Log(want[i]))
		}
	}
	if !strings.Contains(errs, "5 rows") || !strings.Contains(errs, "log-likelihood") || strings.Contains(errs, "P̂") {
		t.Errorf("summary on standard error: %q", errs)
	}
	// --out: the same rows in the file, the summary on standard output.
	rp := filepath.Join(dir, "rows.csv")
	code, stdout, errs := run(t, "", "score", "--rows", "--missing", "keep", "--out", rp, mp, dp)
	if b, _ := os.ReadFile(rp); code != ExitOK || string(b) != out || !strings.Contains(stdout, "5 rows") || errs != "" {
		t.Errorf("--out: exit %d, file %q, stdout %q, stderr %q", code, b, stdout, errs)
	}
	// --json: one object with the score and the rows, nothing else.
	code, stdout, errs = run(t, "", "score", "--rows", "--json", "--missing", "keep", mp, dp)
	var doc struct {
		Score struct {
			Rows   int     `json:"rows"`
			LogLik float64 `json:"loglik"`
		} `json:"score"`
		Rows []struct {
			Row    int      `json:"row"`
			Prob   float64  `json:"prob"`
			LogLik *float64 `json:"loglik"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); code != ExitOK || err != nil || errs != "" {
		t.Fatalf("--json: exit %d, %v, %q %q", code, err, stdout, errs)
	}
	sum := 0.0
	for i, r := range doc.Rows {
		if r.Row != i+1 || r.Prob != prob[i] || r.LogLik == nil || *r.LogLik != ll[i] {
			t.Errorf("--json row %d: %+v", i, r)
		}
		sum += ll[i]
	}
	if len(doc.Rows) != 5 || doc.Score.Rows != 5 || math.Abs(doc.Score.LogLik-sum) > 1e-9 {
		t.Errorf("--json: %+v", doc)
	}
	// --json --out: the document in the file, the JSON summary on
	// standard output.
	jp := filepath.Join(dir, "rows.json")
	code, stdout, _ = run(t, "", "score", "--rows", "--json", "--missing", "keep", "--out", jp, mp, dp)
	if b, _ := os.ReadFile(jp); code != ExitOK || !json.Valid(b) || !strings.Contains(string(b), `"rows": [`) ||
		!strings.Contains(stdout, `"loglik"`) || strings.Contains(stdout, `"rows": [`) {
		t.Errorf("--json --out: exit %d, file %s, stdout %s", code, b, stdout)
	}
}

// TestScoreRowsGaussian: densities, a missing cell marginalised, and a
// row whose density underflows to 0 keeps its finite log.
func TestScoreRowsGaussian(t *testing.T) {
	dir := t.TempDir()
	mp := writeStarModel(t, dir, true)
	dp := writeTestFile(t, dir, "g.csv", "ball,goal,team\n10,0,0\nNA,1,0.5\n1e6,0,0\n12,-1,2\n")
	code, out, errs := run(t, "", "score", "--rows", "--missing", "keep", mp, dp)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows, prob, ll := rowsCSV(t, out)
	if len(rows) != 4 || rows[0] != 1 || rows[3] != 4 {
		t.Fatalf("rows %v:\n%s", rows, out)
	}
	// Row 2: goal and team standard normal with correlation 0.64.
	det := 1 - 0.64*0.64
	q := (1 - 2*0.64*0.5 + 0.25) / det
	if want := math.Exp(-q/2) / (2 * math.Pi * math.Sqrt(det)); math.Abs(prob[1]-want) > 1e-12*want {
		t.Errorf("row 2: density %g, want %g", prob[1], want)
	}
	for i := range rows {
		if i != 2 && math.Abs(prob[i]-math.Exp(ll[i])) > 1e-12*prob[i] {
			t.Errorf("row %d: prob %g, exp(loglik) %g", i+1, prob[i], math.Exp(ll[i]))
		}
	}
	if prob[2] != 0 || !(ll[2] < -1e9) {
		t.Errorf("row 3: prob %g, loglik %g; want 0 and a finite log", prob[2], ll[2])
	}
	// The rows' log-likelihoods add up to score's.
	_, sout, _ := run(t, "", "score", "--json", "--missing", "keep", mp, dp)
	var doc struct {
		Score struct {
			LogLik float64 `json:"loglik"`
		} `json:"score"`
	}
	if err := json.Unmarshal([]byte(sout), &doc); err != nil {
		t.Fatal(err)
	}
	if sum := ll[0] + ll[1] + ll[2] + ll[3]; math.Abs(sum-doc.Score.LogLik) > 1e-6*math.Abs(sum) {
		t.Errorf("rows add up to %g, score says %g", sum, doc.Score.LogLik)
	}
}

func TestScoreRowsBadFlags(t *testing.T) {
	dir := t.TempDir()
	mp := writeStarModel(t, dir, false)
	dp := writeTestFile(t, dir, "d.csv", "ball,goal,team\n1,1,1\n0,0,\n")
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--rows", "--missing", "drop-rows"}, "--missing"},
		{[]string{"--rows", "--out", dp}, "--out"},
		{[]string{"--rows", "--out", filepath.Join(dir, "no", "such", "r.csv")}, "--out"},
	} {
		code, _, errs := run(t, "", append(append([]string{"score"}, c.args...), mp, dp)...)
		if code != ExitUsage || !strings.Contains(errs, c.flag) {
			t.Errorf("score %v: exit %d, want 2 naming %s: %s", c.args, code, c.flag, errs)
		}
	}
	if b, _ := os.ReadFile(dp); string(b) != "ball,goal,team\n1,1,1\n0,0,\n" {
		t.Error("the input was changed")
	}
}
