package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// weightFiles writes a simulated table as distinct rows with a count
// column n (table.csv) and as those rows repeated by their counts
// (expanded.csv, in the same order).
func weightFiles(t *testing.T) (dir, table, expanded string) {
	t.Helper()
	dir = t.TempDir()
	sim := filepath.Join(dir, "sim.csv")
	if code, _, errs := run(t, "", "simulate", "--topology", "double-star", "--leaves", "3", "--leaves2", "3", "--model", "symmetric", "--rows", "800", "--seed", "4", "-o", sim); code != ExitOK {
		t.Fatal(errs)
	}
	b, err := os.ReadFile(sim)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	count := map[string]int{}
	var order []string
	for _, l := range lines[1:] {
		if count[l] == 0 {
			order = append(order, l)
		}
		count[l]++
	}
	var tb, ex strings.Builder
	tb.WriteString(lines[0] + ",n\n")
	ex.WriteString(lines[0] + "\n")
	for _, l := range order {
		fmt.Fprintf(&tb, "%s,%d\n", l, count[l])
		ex.WriteString(strings.Repeat(l+"\n", count[l]))
	}
	table, expanded = filepath.Join(dir, "table.csv"), filepath.Join(dir, "expanded.csv")
	if err := os.WriteFile(table, []byte(tb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(expanded, []byte(ex.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(order) >= 800/2 {
		t.Fatalf("%d distinct rows of 800: not a table of counts", len(order))
	}
	return dir, table, expanded
}

func TestWeightsCommands(t *testing.T) {
	dir, table, expanded := weightFiles(t)
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a)) }
	type score struct {
		Score struct {
			Rows   int     `json:"rows"`
			LogLik float64 `json:"loglik"`
			BIC    float64 `json:"bic"`
			N      float64 `json:"n"`
		} `json:"score"`
	}
	// learn (default method), then score and fit of its model.
	for _, method := range []string{"clnj", "lcm"} {
		m1, m2 := filepath.Join(dir, method+"1.json"), filepath.Join(dir, method+"2.json")
		// lcm with 4 random starts a fit, not the default's: the weighted
		// and the expanded runs get the same starts either way, and its
		// starts took half the test's time.
		var starts []string
		if method == "lcm" {
			starts = []string{"--restarts", "4"}
		}
		if code, _, errs := run(t, "", append([]string{"learn", "--method", method, "--weights", "n", table, "-o", m1}, starts...)...); code != ExitOK {
			t.Fatal(errs)
		}
		if code, _, errs := run(t, "", append([]string{"learn", "--method", method, expanded, "-o", m2}, starts...)...); code != ExitOK {
			t.Fatal(errs)
		}
		var s1, s2 score
		for _, c := range []struct {
			args []string
			dst  *score
		}{{[]string{"score", "--json", "--weights", "n", m1, table}, &s1}, {[]string{"score", "--json", m2, expanded}, &s2}} {
			code, out, errs := run(t, "", c.args...)
			if code != ExitOK {
				t.Fatal(errs)
			}
			if err := json.Unmarshal([]byte(out), c.dst); err != nil {
				t.Fatal(err)
			}
		}
		if !close(s1.Score.LogLik, s2.Score.LogLik) || !close(s1.Score.BIC, s2.Score.BIC) || s1.Score.N != 800 || s2.Score.Rows != 800 || s1.Score.Rows >= 400 {
			t.Errorf("%s: score %+v weighted, %+v expanded", method, s1.Score, s2.Score)
		}
		// fit --se of the weighted model's tree on both files.
		code, out1, errs := run(t, "", "fit", "--weights", "n", "--se", m1, table)
		if code != ExitOK {
			t.Fatal(errs)
		}
		code, out2, errs := run(t, "", "fit", "--se", m1, expanded)
		if code != ExitOK {
			t.Fatal(errs)
		}
		if l1, l2 := lineWith(out1, "log-likelihood"), lineWith(out2, "log-likelihood"); l1 != l2 || !strings.Contains(out1, "rows weighted by frequency weights: n = 800") {
			t.Errorf("%s: fit\n%s\nweighted, \n%s\nexpanded", method, out1, out2)
		}
	}
	// stats: the same counts.
	type statsDoc struct {
		Rows    int               `json:"rows"`
		Columns []json.RawMessage `json:"columns"`
	}
	var sd [2]statsDoc
	for i, args := range [][]string{{"stats", "--json", "--weights", "n", table}, {"stats", "--json", expanded}} {
		code, out, errs := run(t, "", args...)
		if code != ExitOK {
			t.Fatal(errs)
		}
		if err := json.Unmarshal([]byte(out), &sd[i]); err != nil {
			t.Fatal(err)
		}
	}
	if sd[0].Rows != 800 || sd[1].Rows != 800 || len(sd[0].Columns) != 6 || len(sd[1].Columns) != 6 {
		t.Fatalf("stats: %d rows, %d columns weighted; %d, %d expanded", sd[0].Rows, len(sd[0].Columns), sd[1].Rows, len(sd[1].Columns))
	}
	for j := range sd[0].Columns {
		if string(sd[0].Columns[j]) != string(sd[1].Columns[j]) {
			t.Errorf("stats column %d: %s weighted, %s expanded", j, sd[0].Columns[j], sd[1].Columns[j])
		}
	}
	// infer: the weights change nothing.
	model := filepath.Join(dir, "lcm1.json")
	code, p1, errs := run(t, "", "infer", "--weights", "n", model, table)
	if code != ExitOK {
		t.Fatal(errs)
	}
	code, p2, errs := run(t, "", "infer", "--ignore", "n", model, table)
	if code != ExitOK || p1 != p2 {
		t.Errorf("infer with weights:\n%.300s\nwithout:\n%.300s\n%s", p1, p2, errs)
	}
	// explain: shares, classification and residuals as the expanded rows'.
	code, x1, errs := run(t, "", "explain", "--residuals", "--weights", "n", model, table)
	if code != ExitOK {
		t.Fatal(errs)
	}
	code, x2, errs := run(t, "", "explain", "--residuals", model, expanded)
	if code != ExitOK || x1 != x2 {
		t.Errorf("explain with weights:\n%s\nexpanded:\n%s\n%s", x1, x2, errs)
	}
	// --se with sampling weights: the sandwich estimator, in the model
	// file and explain.
	sw := filepath.Join(dir, "sandwich.json")
	code, out, errs := run(t, "", "fit", "--weights", "n", "--weight-kind", "sampling", "--se", "--out", sw, model, table)
	if code != ExitOK || !strings.Contains(out, "standard errors: sandwich for sampling weights (robust)") {
		t.Errorf("fit --se with sampling weights: exit %d: %s\n%s", code, errs, out)
	}
	if code, out, errs = run(t, "", "explain", sw); code != ExitOK || !strings.Contains(out, "standard errors (sandwich for sampling weights") {
		t.Errorf("explain of the sandwich: exit %d: %s\n%s", code, errs, out)
	}
	// Refusals.
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"fit", "--weights", "n", "--weight-kind", "sampling", "--bootstrap", "5", model, table}, ExitUsage, "--bootstrap does not apply to sampling weights"},
		{[]string{"stats", "--weights", "n", "--weight-kind", "sampling", table}, ExitFailure, "sampling weights are not supported"},
		{[]string{"learn", "--weights", "n", "--weight-kind", "odd", table}, ExitUsage, `unknown --weight-kind "odd"`},
		{[]string{"learn", "--weights", "count", table}, ExitFailure, `no weight column "count"`},
		{[]string{"learn", "--weights", "n", "--stream", table}, ExitUsage, "--weights needs the rows of one data file in memory"},
		{[]string{"learn", "--weights", "n", "--weight-kind", "sampling", table}, ExitUsage, "--method clnj learns from pair statistics"},
		{[]string{"infer", "--impute", "--weights", "n", model, table}, ExitUsage, "--weights does not apply to --impute"},
		{[]string{"fit", "--weights", "n", "--estep", "--out", filepath.Join(dir, "c.json"), model, table}, ExitUsage, "--weights does not apply to map-reduce EM"},
		{[]string{"score", "--weights", "x1", model, table}, ExitFailure, "variable(s) of the model are not columns of the data: \"x1\""},
	} {
		code, _, errs := run(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// lineWith returns the first line of s containing sub.
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
