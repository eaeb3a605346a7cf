package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/noisyor"
)

// scoreTestNet is a small noisy-or network: "rash" has no parent and no
// leak, so a row with rash = 1 has probability 0.
func scoreTestNet() *noisyor.Network {
	return &noisyor.Network{
		Effects: []string{"fever", "cough", "ache", "rash"},
		Leak:    []float64{0.01, 0.05, 0.02, 0},
		Sources: []noisyor.Source{
			{Name: "flu", Prior: 0.1, Children: []noisyor.Child{{Effect: 0, Failure: 0.2}, {Effect: 1, Failure: 0.4}, {Effect: 2, Failure: 0.5}}},
			{Name: "cold", Prior: 0.3, Children: []noisyor.Child{{Effect: 1, Failure: 0.3}, {Effect: 2, Failure: 0.8}}},
		},
	}
}

func writeScoreNet(t *testing.T, dir string, n *noisyor.Network) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := n.WriteJSON(&buf, nil); err != nil {
		t.Fatal(err)
	}
	return writeTestFile(t, dir, "net.json", buf.String()), buf.String()
}

// scoreTestCSV are the test data: columns in another order than the
// network's effects, a missing cell, and (row 4) rash = 1.
const scoreTestCSV = "cough,rash,ache,fever\n1,0,1,1\n0,0,0,0\n1,0,,0\n0,1,0,0\n1,0,1,0\n"

// scoreTestLik is the library's answer for the test data.
func scoreTestLik(t *testing.T, n *noisyor.Network, opt noisyor.LikOptions) *noisyor.Likelihood {
	t.Helper()
	vars := make([]data.Variable, 4)
	cols := make([][]uint16, 4)
	lines := strings.Split(strings.TrimSpace(scoreTestCSV), "\n")
	for j, name := range strings.Split(lines[0], ",") {
		vars[j] = data.Variable{Name: name, Kind: data.Discrete, States: []string{"0", "1"}}
		for _, line := range lines[1:] {
			v := strings.Split(line, ",")[j]
			c := data.Missing
			if v != "" {
				c = uint16(v[0] - '0')
			}
			cols[j] = append(cols[j], c)
		}
	}
	d, err := data.FromDiscrete(vars, cols)
	if err != nil {
		t.Fatal(err)
	}
	b, err := noisyor.NewBinary(d)
	if err != nil {
		t.Fatal(err)
	}
	opt.Rows, opt.Posteriors = true, true
	l, err := n.LogLikelihood(b, opt)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestScoreNoisyor: score of a noisy-or model: the summary (text and
// JSON), per-row output, the zero-probability row, the model on standard
// input.
func TestScoreNoisyor(t *testing.T) {
	dir := t.TempDir()
	n := scoreTestNet()
	mp, doc := writeScoreNet(t, dir, n)
	dp := writeTestFile(t, dir, "d.csv", scoreTestCSV)
	want := scoreTestLik(t, n, noisyor.LikOptions{})
	if want.Zero != 1 || want.Exact != 5 {
		t.Fatalf("library: %+v", want)
	}

	code, out, errs := run(t, "", "score", "--missing", "keep", mp, dp)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{"5 rows", fmt.Sprintf("log-likelihood  %.2f", want.FiniteLogLik),
		fmt.Sprintf("per row         %.4f", want.FiniteLogLik/4), "rows with P = 0 1 (left out of the log-likelihood; the first is row 4)",
		"parameters      11", "hidden          2", "exact rows      5", "estimated rows  0"} {
		if !strings.Contains(out, s) {
			t.Errorf("summary lacks %q:\n%s", s, out)
		}
	}
	// Missing cells are an error by default, as for other models.
	if code, _, errs := run(t, "", "score", mp, dp); code != ExitFailure || !strings.Contains(errs, "missing") {
		t.Errorf("missing cells without --missing keep: exit %d, %s", code, errs)
	}

	code, out, errs = run(t, "", "score", "--missing", "keep", "--json", mp, dp)
	if code != ExitOK {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	var sum struct {
		Score struct {
			Rows      int     `json:"rows"`
			LogLik    float64 `json:"loglik"`
			Zero      int     `json:"nonpositive_rows"`
			FirstZero int     `json:"first_zero_row"`
			Exact     int     `json:"exact_rows"`
			Estimated int     `json:"estimated_rows"`
			SE        float64 `json:"loglik_se"`
			Params    int     `json:"params"`
		} `json:"score"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if s := sum.Score; s.Rows != 5 || s.LogLik != want.FiniteLogLik || s.Zero != 1 || s.FirstZero != 4 || s.Exact != 5 || s.Estimated != 0 || s.SE != 0 || s.Params != 11 {
		t.Errorf("JSON summary %+v", s)
	}

	// --rows: row,prob,loglik with full precision, empty for P = 0.
	code, out, errs = run(t, "", "score", "--missing", "keep", "--rows", mp, dp)
	if code != ExitOK {
		t.Fatalf("--rows: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "row,prob,loglik" || len(lines) != 6 || !strings.Contains(errs, "5 rows") {
		t.Fatalf("--rows output:\n%s\nstderr %s", out, errs)
	}
	for r, line := range lines[1:] {
		f := strings.Split(line, ",")
		if f[0] != strconv.Itoa(r+1) {
			t.Fatalf("line %q", line)
		}
		if r == 3 {
			if f[1] != "0" || f[2] != "" {
				t.Errorf("zero row: %q", line)
			}
			continue
		}
		ll, _ := strconv.ParseFloat(f[2], 64)
		p, _ := strconv.ParseFloat(f[1], 64)
		if ll != want.Rows[r] || math.Abs(p-math.Exp(ll)) > 1e-15 {
			t.Errorf("row %d: %q, want loglik %v", r+1, line, want.Rows[r])
		}
	}
	// --rows --json: one document.
	code, out, _ = run(t, "", "score", "--missing", "keep", "--rows", "--json", mp, dp)
	var rowsDoc struct {
		Rows []struct {
			Row    int      `json:"row"`
			LogLik *float64 `json:"loglik"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rowsDoc); code != ExitOK || err != nil || len(rowsDoc.Rows) != 5 || rowsDoc.Rows[3].LogLik != nil || *rowsDoc.Rows[0].LogLik != want.Rows[0] {
		t.Errorf("--rows --json: exit %d, %v:\n%s", code, err, out)
	}

	// The model on standard input.
	code, out, errs = run(t, doc, "score", "--missing", "keep", "-", dp)
	if code != ExitOK || !strings.Contains(out, fmt.Sprintf("log-likelihood  %.2f", want.FiniteLogLik)) {
		t.Errorf("model on stdin: exit %d, %s %s", code, out, errs)
	}
}

// TestScoreNoisyorEstimated: with --max-exact 1 every row with a positive
// finding is estimated; the summary says how many and the standard error,
// and the estimate is within 5 standard errors of the exact value.
func TestScoreNoisyorEstimated(t *testing.T) {
	dir := t.TempDir()
	n := scoreTestNet()
	n.Effects[3] = "rash"
	n.Leak[3] = 0.01
	mp, _ := writeScoreNet(t, dir, n)
	dp := writeTestFile(t, dir, "d.csv", scoreTestCSV)
	exact := scoreTestLik(t, n, noisyor.LikOptions{})
	code, out, errs := run(t, "", "score", "--missing", "keep", "--json", "--max-exact", "1", "--samples", "4000", "--seed", "3", mp, dp)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var sum struct {
		Score struct {
			LogLik    float64 `json:"loglik"`
			Exact     int     `json:"exact_rows"`
			Estimated int     `json:"estimated_rows"`
			SE        float64 `json:"loglik_se"`
		} `json:"score"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	s := sum.Score
	// Rows 1, 3 and 5 couple flu and cold through cough or ache; rows 2
	// and 4 have no such finding.
	if s.Estimated != 3 || s.Exact != 2 || s.SE <= 0 || math.Abs(s.LogLik-exact.LogLik) > 5*s.SE {
		t.Errorf("estimated summary %+v, exact loglik %v", s, exact.LogLik)
	}
	code, out, _ = run(t, "", "score", "--missing", "keep", "--max-exact", "1", mp, dp)
	if code != ExitOK || !strings.Contains(out, "estimated rows  3 (importance sampling; standard error") {
		t.Errorf("text summary:\n%s", out)
	}
	if code, _, errs := run(t, "", "score", "--samples", "1", mp, dp); code != ExitUsage {
		t.Errorf("--samples 1: exit %d, %s", code, errs)
	}
}

// TestInferNoisyor: infer writes the sources' posteriors (CSV, --map,
// --json), empty for a row with probability 0.
func TestInferNoisyor(t *testing.T) {
	dir := t.TempDir()
	n := scoreTestNet()
	mp, _ := writeScoreNet(t, dir, n)
	dp := writeTestFile(t, dir, "d.csv", scoreTestCSV)
	want := scoreTestLik(t, n, noisyor.LikOptions{})

	code, out, errs := run(t, "", "infer", "--missing", "keep", mp, dp)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "flu,cold" || len(lines) != 6 {
		t.Fatalf("output:\n%s", out)
	}
	for r, line := range lines[1:] {
		f := strings.Split(line, ",")
		for s := range 2 {
			p := want.Posteriors[r][s]
			if math.IsNaN(p) {
				if f[s] != "" {
					t.Errorf("row %d: %q, want empty cells", r+1, line)
				}
				continue
			}
			if f[s] != strconv.FormatFloat(p, 'g', 6, 64) {
				t.Errorf("row %d source %d: %q, want %v", r+1, s, f[s], p)
			}
		}
	}
	if !strings.Contains(errs, "row 4 has probability 0") {
		t.Errorf("stderr %q", errs)
	}

	code, out, _ = run(t, "", "infer", "--missing", "keep", "--map", mp, dp)
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if code != ExitOK || lines[0] != "flu,cold" || lines[4] != "," {
		t.Fatalf("--map output:\n%s", out)
	}
	for r, line := range lines[1:] {
		if r == 3 {
			continue
		}
		wantLine := ""
		for s := range 2 {
			if s > 0 {
				wantLine += ","
			}
			if want.Posteriors[r][s] >= 0.5 {
				wantLine += "1"
			} else {
				wantLine += "0"
			}
		}
		if line != wantLine {
			t.Errorf("--map row %d: %q, want %q", r+1, line, wantLine)
		}
	}

	outFile := filepath.Join(dir, "post.json")
	code, _, errs = run(t, "", "infer", "--missing", "keep", "--json", "--out", outFile, mp, dp)
	if code != ExitOK {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	raw, _ := os.ReadFile(outFile)
	var doc struct {
		Rows       int          `json:"rows"`
		Sources    []string     `json:"sources"`
		Exact      int          `json:"exact_rows"`
		Zero       int          `json:"zero_rows"`
		Posteriors [][]*float64 `json:"posteriors"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%v:\n%s", err, raw)
	}
	if doc.Rows != 5 || len(doc.Sources) != 2 || doc.Sources[1] != "cold" || doc.Exact != 5 || doc.Zero != 1 || len(doc.Posteriors) != 5 || doc.Posteriors[3] != nil {
		t.Fatalf("JSON document:\n%s", raw)
	}
	if *doc.Posteriors[0][0] != want.Posteriors[0][0] || *doc.Posteriors[4][1] != want.Posteriors[4][1] {
		t.Errorf("JSON posteriors %v, want %v", doc.Posteriors, want.Posteriors)
	}

	if code, _, errs := run(t, "", "infer", "--impute", mp, dp); code != ExitUsage || !strings.Contains(errs, "noisy-or") {
		t.Errorf("--impute: exit %d, %s", code, errs)
	}
}

// TestNoisyorDataMismatch: the data's columns must be the network's
// effects; errors name the differences and suggest --ignore; the
// noisy-or flags are refused for other models.
func TestNoisyorDataMismatch(t *testing.T) {
	dir := t.TempDir()
	mp, _ := writeScoreNet(t, dir, scoreTestNet())
	lack := writeTestFile(t, dir, "lack.csv", "fever,cough,ache\n1,0,1\n")
	for _, cmd := range []string{"score", "infer"} {
		if code, _, errs := run(t, "", cmd, mp, lack); code != ExitFailure || !strings.Contains(errs, `"rash"`) || !strings.Contains(errs, "lack.csv") {
			t.Errorf("%s, missing effect: exit %d, %s", cmd, code, errs)
		}
	}
	extra := writeTestFile(t, dir, "extra.csv", "id,fever,cough,ache,rash\n7,1,0,1,0\n")
	if code, _, errs := run(t, "", "score", mp, extra); code != ExitFailure || !strings.Contains(errs, `"id"`) || !strings.Contains(errs, "--ignore") {
		t.Errorf("extra column: exit %d, %s", code, errs)
	}
	if code, out, errs := run(t, "", "score", "--ignore", "id", mp, extra); code != ExitOK || !strings.Contains(out, "1 rows") {
		t.Errorf("--ignore id: exit %d, %s %s", code, out, errs)
	}
	notBinary := writeTestFile(t, dir, "nb.csv", "fever,cough,ache,rash\n1,0,2,0\n")
	if code, _, errs := run(t, "", "score", mp, notBinary); code != ExitFailure || !strings.Contains(errs, `"ache"`) {
		t.Errorf("non-binary column: exit %d, %s", code, errs)
	}
	tm := writeStarModel(t, dir, false)
	dp := writeTestFile(t, dir, "d.csv", "ball,goal,team\n0,1,1\n")
	if code, _, errs := run(t, "", "score", "--seed", "2", tm, dp); code != ExitUsage || !strings.Contains(errs, "noisy-or") {
		t.Errorf("--seed with a tree model: exit %d, %s", code, errs)
	}
	if code, _, errs := run(t, "", "score", tm, dp); code != ExitOK {
		t.Errorf("tree model: exit %d, %s", code, errs)
	}
}
