package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// writeStarModel writes a model with hidden h and observed ball, goal,
// team: a discrete one (h uniform, P(word | h) = [[0.9, 0.1], [0.2, 0.8]])
// or a Gaussian one (correlation 0.8 on every edge, ball with mean 10 and
// variance 4).
func writeStarModel(t *testing.T, dir string, gaussian bool) string {
	t.Helper()
	tr := tree.New()
	h := tr.AddHidden()
	for _, w := range []string{"ball", "goal", "team"} {
		x, err := tr.AddObserved(w)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.AddEdge(h, x, math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	var m model.Model
	if gaussian {
		g, err := model.NewGaussian(tr, h, 0.8)
		if err != nil {
			t.Fatal(err)
		}
		ball, _ := tr.Lookup("ball")
		g.Mean[ball], g.Var[ball] = 10, 4
		m = g
	} else {
		d, err := model.NewDiscrete(tr, h, []int{2, 2, 2, 2})
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
	for _, gaussian := range []bool{false, true} {
		mp := writeStarModel(t, dir, gaussian)
		// The data lack "goal" and have "id" and "note".
		dp := writeTestFile(t, dir, "d.csv", "id,ball,team,note\n1,0,1,a\n2,1,1,b\n3,1,0,c\n")
		for _, cmd := range []string{"score", "infer"} {
			code, _, errs := run(t, "", cmd, mp, dp)
			if code != ExitFailure || !strings.Contains(errs, `"goal"`) || !strings.Contains(errs, `"id", "note"`) ||
				!strings.Contains(errs, "d.csv") || strings.Contains(errs, "forced") {
				t.Errorf("%s (gaussian %v): exit %d, %q", cmd, gaussian, code, errs)
			}
		}
		// All model variables present, one extra column.
		dp = writeTestFile(t, dir, "e.csv", "id,ball,goal,team\n1,0,1,1\n2,1,1,0\n3,1,0,1\n")
		code, _, errs := run(t, "", "score", mp, dp)
		if code != ExitFailure || !strings.Contains(errs, `"id"`) || !strings.Contains(errs, "--ignore") {
			t.Errorf("extra column (gaussian %v): exit %d, %q", gaussian, code, errs)
		}
		if code, out, errs := run(t, "", "score", "--ignore", "id", mp, dp); code != ExitOK || !strings.Contains(out, "3 rows") {
			t.Errorf("--ignore id (gaussian %v): exit %d, %q %q", gaussian, code, out, errs)
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
	code, out, errs := run(t, "", "infer", mp, dp)
	// P(h = 1 | 1,1,1) = 0.256/(0.0005+0.256); P(h = 1 | 0,0) = 0.02/0.425.
	if code != ExitOK || out != "h1=0,h1=1\n0.00194932,0.998051\n0.952941,0.0470588\n" {
		t.Errorf("exit %d, %q %s", code, out, errs)
	}
	if code, out, _ := run(t, "", "infer", "--map", mp, dp); code != ExitOK || out != "h1\n1\n0\n" {
		t.Errorf("--map: exit %d, %q", code, out)
	}
	gp := writeStarModel(t, t.TempDir(), true)
	gd := writeTestFile(t, dir, "g.csv", "ball,goal,team\n10,0,0\n")
	if code, out, errs := run(t, "", "infer", gp, gd); code != ExitOK || !strings.HasPrefix(out, "h1_mean,h1_sd\n0,") {
		t.Errorf("gaussian: exit %d, %q %s", code, out, errs)
	}
}
