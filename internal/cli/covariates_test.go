package cli

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// writeCovariateSurvey writes 600 rows of four binary items from two
// classes whose log-odds depends on age (continuous) and sex
// (categorical).
func writeCovariateSurvey(t *testing.T) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 9))
	var b strings.Builder
	b.WriteString("q1,q2,q3,q4,age,sex\n")
	for range 600 {
		age := 40 + 10*rng.NormFloat64()
		sex := []string{"f", "m"}[rng.IntN(2)]
		eta := -2 + 0.05*age
		if sex == "m" {
			eta += 0.8
		}
		p := 0.2
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			p = 0.85
		}
		for range 4 {
			v := 0
			if rng.Float64() < p {
				v = 1
			}
			fmt.Fprintf(&b, "%d,", v)
		}
		fmt.Fprintf(&b, "%.1f,%s\n", age, sex)
	}
	path := filepath.Join(t.TempDir(), "survey.csv")
	writeFile(t, path, b.String())
	return path
}

// TestCovariatesCommands runs learn --method lcm --covariates and fit
// --covariates to the same model, explain's coefficients, infer on the
// data, and the errors: a covariate column missing from infer's data, and
// --covariates with another method.
func TestCovariatesCommands(t *testing.T) {
	path := writeCovariateSurvey(t)
	dir := t.TempDir()
	learned, plain, fitted := filepath.Join(dir, "lcm.json"), filepath.Join(dir, "plain.json"), filepath.Join(dir, "fit.json")
	code, _, errs := run(t, "", "learn", path, "--method", "lcm", "--hidden-states", "2", "--covariates", "age,sex", "--se", "--out", learned)
	if code != ExitOK {
		t.Fatalf("learn: exit %d: %s", code, errs)
	}
	code, out, errs := run(t, "", "explain", learned)
	if code != ExitOK {
		t.Fatalf("explain: exit %d: %s", code, errs)
	}
	for _, want := range []string{"covariates of h1 (multinomial logit", "odds ratio (95% CI)", "(intercept)", "age", "sex=m"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in explain's output\n%s", want, out)
		}
	}
	// fit from the model without covariates reaches the same optimum.
	if code, _, errs = run(t, "", "learn", path, "--method", "lcm", "--hidden-states", "2", "--ignore", "age,sex", "--out", plain); code != ExitOK {
		t.Fatalf("learn without covariates: exit %d: %s", code, errs)
	}
	if code, _, errs = run(t, "", "fit", plain, path, "--covariates", "age,sex", "--out", fitted); code != ExitOK {
		t.Fatalf("fit: exit %d: %s", code, errs)
	}
	_, a, _ := run(t, "", "score", learned, path)
	_, b, _ := run(t, "", "score", fitted, path)
	// (The first line names the model file.)
	_, a, _ = strings.Cut(a, "\n")
	_, b, _ = strings.Cut(b, "\n")
	if a != b || !strings.Contains(a, "log-likelihood") {
		t.Errorf("learn and fit with covariates score differently:\n%s\n%s", a, b)
	}
	if code, out, errs = run(t, "", "infer", learned, path); code != ExitOK || !strings.HasPrefix(out, "h1=0,h1=1\n") {
		t.Errorf("infer: exit %d: %s%s", code, out, errs)
	}
	items := filepath.Join(dir, "items.csv")
	writeFile(t, items, "q1,q2,q3,q4,age\n1,1,0,1,40\n")
	if code, _, errs = run(t, "", "infer", learned, items); code == ExitOK || !strings.Contains(errs, `"sex"`) {
		t.Errorf("infer without the covariate sex: exit %d: %s", code, errs)
	}
	if code, _, errs = run(t, "", "learn", path, "--covariates", "age"); code == ExitOK || !strings.Contains(errs, "covariates") {
		t.Errorf("--covariates with clnj: exit %d: %s", code, errs)
	}
}

// TestSimulateCovariate: simulate --covariate writes the covariate column
// z after the observed ones and a model file with the root regression
// whose slope is the flag's (read back by explain); learn --method lcm
// --covariates z on the rows then estimates it within 4 standard errors;
// a Gaussian model and --distances are refused.
func TestSimulateCovariate(t *testing.T) {
	dir := t.TempDir()
	csv, truth, fitted := filepath.Join(dir, "lca.csv"), filepath.Join(dir, "truth.json"), filepath.Join(dir, "fit.json")
	code, _, errs := run(t, "", "simulate", "--topology", "star", "--leaves", "6", "--model", "symmetric", "--covariate", "1.2", "-n", "1500", "--seed", "4", "--out", csv, "--model-json", truth)
	if code != ExitOK {
		t.Fatalf("simulate: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	if header, _, _ := strings.Cut(string(b), "\n"); header != "x1,x2,x3,x4,x5,x6,z" {
		t.Fatalf("header %q", header)
	}
	code, out, errs := run(t, "", "explain", truth)
	if code != ExitOK || !regexp.MustCompile(`(?m)^  1 +z +1\.2000 `).MatchString(out) {
		t.Fatalf("explain of the true model: exit %d: %s\n%s", code, errs, out)
	}
	code, _, errs = run(t, "", "learn", csv, "--method", "lcm", "--hidden-states", "2", "--covariates", "z", "--se", "--out", fitted)
	if code != ExitOK {
		t.Fatalf("learn: exit %d: %s", code, errs)
	}
	code, out, errs = run(t, "", "explain", fitted)
	m := regexp.MustCompile(`(?m)^  1 +z +(-?[0-9.]+) +([0-9.]+) `).FindStringSubmatch(out)
	if code != ExitOK || m == nil {
		t.Fatalf("explain: exit %d: %s\n%s", code, errs, out)
	}
	beta, _ := strconv.ParseFloat(m[1], 64)
	se, _ := strconv.ParseFloat(m[2], 64)
	if math.Abs(math.Abs(beta)-1.2) > 4*se {
		t.Errorf("slope %g (SE %g), want ±1.2", beta, se)
	}
	// The data with their covariate: explain's residuals and the report.
	if code, out, errs = run(t, "", "explain", "--residuals", fitted, csv); code != ExitOK || !strings.Contains(out, "bivariate residuals of 15 pairs") {
		t.Errorf("explain --residuals with the covariate's column: exit %d: %s\n%s", code, errs, out)
	}
	page := filepath.Join(dir, "report.html")
	if code, _, errs = run(t, "", "report", fitted, csv, "--out", page); code != ExitOK {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	if b, err = os.ReadFile(page); err != nil || !strings.Contains(string(b), `<section id="covariates">`) || !strings.Contains(string(b), `<section id="residuals">`) {
		t.Errorf("report: no covariates or residuals section (%v)", err)
	}
	for _, args := range [][]string{
		{"simulate", "--model", "gaussian", "--covariate", "1", "-n", "10"},
		{"simulate", "--model", "symmetric", "--covariate", "1", "-n", "10", "--distances", filepath.Join(dir, "d.csv")},
	} {
		if code, _, errs := run(t, "", args...); code != ExitUsage || !strings.Contains(errs, "--covariate") {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
}
