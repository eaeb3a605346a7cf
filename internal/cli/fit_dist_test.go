package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latentree/latentree/model/discrete"
)

// shardCSV splits a CSV file into n files of consecutive rows, each with
// the header.
func shardCSV(t *testing.T, path string, n int) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	head, rows := lines[0], lines[1:]
	var out []string
	for i := 0; i < n; i++ {
		p := filepath.Join(t.TempDir(), fmt.Sprintf("shard%d.csv", i))
		part := rows[i*len(rows)/n : (i+1)*len(rows)/n]
		if err := os.WriteFile(p, []byte(head+"\n"+strings.Join(part, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// modelParams reads a discrete model file's prior and CPTs by node name.
func modelParams(t *testing.T, path string) map[string][]float64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Nodes []struct {
			Name  string      `json:"name"`
			Prior []float64   `json:"prior"`
			CPT   [][]float64 `json:"cpt"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]float64{}
	for _, n := range doc.Nodes {
		p := append([]float64(nil), n.Prior...)
		for _, row := range n.CPT {
			p = append(p, row...)
		}
		out[n.Name] = p
	}
	return out
}

// K iterations of fit --estep over 3 shards and fit --mstep equal plain EM
// (--em-accel none) run for K iterations from the same start.
func TestFitEStepMStepShards(t *testing.T) {
	nwk, disc := simulatedTree(t)
	dir := t.TempDir()
	const k = 4
	// The start: the surrogate start and one plain EM iteration; the
	// reference: the same start and k more.
	start, ref := filepath.Join(dir, "m0.json"), filepath.Join(dir, "ref.json")
	if code, _, errs := run(t, "", "fit", "--em-accel", "none", "--max-iter", "1", nwk, disc, "--out", start); code != ExitOK {
		t.Fatal(errs)
	}
	code, outs, errs := run(t, "", "fit", "--em-accel", "none", "--max-iter", fmt.Sprint(k+1), nwk, disc, "--out", ref)
	if code != ExitOK {
		t.Fatal(errs)
	}
	if !strings.Contains(outs, fmt.Sprintf("%d E-steps (stopped at --max-iter)", k+1)) {
		t.Fatalf("the reference did not run %d iterations:\n%s", k+1, outs)
	}
	shards := shardCSV(t, disc, 3)
	cur := start
	var firstCounts string
	for it := 1; it <= k; it++ {
		var counts []string
		for i, s := range shards {
			c := filepath.Join(dir, fmt.Sprintf("counts%d.%d.json", it, i))
			code, outs, errs := run(t, "", "fit", "--estep", cur, s, "--out", c)
			if code != ExitOK {
				t.Fatal(errs)
			}
			if !strings.Contains(outs, "E-step of") {
				t.Fatalf("estep summary: %q", outs)
			}
			counts = append(counts, c)
		}
		if it == 1 {
			firstCounts = counts[0]
		}
		next := filepath.Join(dir, fmt.Sprintf("m%d.json", it))
		code, outs, errs := run(t, "", append([]string{"fit", "--mstep", cur, "--out", next}, counts...)...)
		if code != ExitOK {
			t.Fatal(errs)
		}
		if !strings.Contains(outs, "M-step from 3 counts files: 2000 rows, log-likelihood -") {
			t.Fatalf("mstep summary: %q", outs)
		}
		cur = next
	}
	want, got := modelParams(t, ref), modelParams(t, cur)
	if len(want) != 8 || len(got) != len(want) {
		t.Fatalf("%d nodes in the reference, %d in the sharded run", len(want), len(got))
	}
	worst := 0.0
	for name, w := range want {
		g := got[name]
		if len(g) != len(w) {
			t.Fatalf("node %s: %d parameters, want %d", name, len(g), len(w))
		}
		for i := range w {
			worst = max(worst, math.Abs(w[i]-g[i]))
		}
	}
	t.Logf("largest difference, sharded vs single-process plain EM after %d iterations: %.2g", k, worst)
	if worst > 1e-9 {
		t.Fatalf("sharded EM differs from plain EM by %g", worst)
	}
	// Counts of the first iteration with the last model: refused.
	code, _, errs = run(t, "", "fit", "--mstep", cur, firstCounts, "--out", filepath.Join(dir, "bad.json"))
	if code != ExitFailure || !strings.Contains(errs, "other parameters") {
		t.Fatalf("stale counts: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.json")); err == nil {
		t.Fatal("a refused M-step wrote its output")
	}
}

// Flags that do not apply, wrong numbers of arguments, missing --out and
// unsafe paths are usage errors; a Gaussian model is refused.
func TestFitEStepMStepUsage(t *testing.T) {
	nwk, disc := simulatedTree(t)
	dir := t.TempDir()
	m := filepath.Join(dir, "m.json")
	if code, _, errs := run(t, "", "fit", "--max-iter", "2", nwk, disc, "--out", m); code != ExitOK {
		t.Fatal(errs)
	}
	c := filepath.Join(dir, "c.json")
	if code, _, errs := run(t, "", "fit", "--estep", m, disc, "--out", c); code != ExitOK {
		t.Fatal(errs)
	}
	out := filepath.Join(dir, "out.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--estep", "--mstep", m, disc, "--out", out}, "give one"},
		{[]string{"--estep", m, "--out", out}, "MODEL and SHARD"},
		{[]string{"--estep", m, disc, disc, "--out", out}, "MODEL and SHARD"},
		{[]string{"--mstep", m, "--out", out}, "at least one counts file"},
		{[]string{"--estep", m, disc}, "needs --out"},
		{[]string{"--mstep", m, c}, "needs --out"},
		{[]string{"--estep", "--max-iter", "3", m, disc, "--out", out}, "--max-iter does not apply to fit --estep"},
		{[]string{"--estep", "--em-pseudo", "1", m, disc, "--out", out}, "--em-pseudo"},
		{[]string{"--mstep", "--missing", "keep", m, c, "--out", out}, "--missing does not apply to fit --mstep"},
		{[]string{"--mstep", "--em-accel", "none", m, c, "--out", out}, "--em-accel"},
		{[]string{"--mstep", "--em-pseudo", "-1", m, c, "--out", out}, "--em-pseudo"},
		{[]string{"--mstep", m, c, "--out", c}, "destroy the input"},
		{[]string{"--estep", m, disc, "--out", m}, "destroy the input"},
		{[]string{"--estep", m, disc, "--out", filepath.Join(dir, "no", "c.json")}, "--out"},
	} {
		code, _, errs := run(t, "", append([]string{"fit"}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("fit %s: exit %d, %q; want exit 2 mentioning %q", strings.Join(tc.args, " "), code, errs, tc.want)
		}
	}
	// A counts file that is not one, and a Gaussian model.
	code, _, errs := run(t, "", "fit", "--mstep", m, disc, "--out", out)
	if code != ExitFailure || !strings.Contains(errs, "not a latentree EM counts file") || !strings.Contains(errs, disc) {
		t.Errorf("a CSV as counts: exit %d, %s", code, errs)
	}
	_, cont := simulated(t)
	gm := filepath.Join(dir, "g.json")
	if code, _, errs := run(t, "", "learn", cont, "--out", gm); code != ExitOK {
		t.Fatal(errs)
	}
	code, _, errs = run(t, "", "fit", "--estep", gm, cont, "--out", out)
	if code != ExitFailure || !strings.Contains(errs, "needs a discrete or mixed model") {
		t.Errorf("Gaussian model: exit %d, %s", code, errs)
	}
	// With --out -, the counts go to standard output and the summary to
	// standard error.
	code, outs, errs := run(t, "", "fit", "--estep", m, disc, "--out", "-")
	if code != ExitOK || !strings.Contains(outs, `"format":"latentree-em-counts"`) || !strings.Contains(errs, "E-step of") {
		t.Errorf("--out -: exit %d, stdout %.80q, stderr %q", code, outs, errs)
	}
}

// TestEStepImpossibleRows: rows of probability 0 make the log-likelihood
// −∞ in fit --estep and --mstep, as in score, and are counted (the E-step
// used to leave them out and report the finite sum over the other rows);
// --json writes −∞ as null (score --json failed on it).
func TestEStepImpossibleRows(t *testing.T) {
	dir := t.TempDir()
	tr, h := starTree(t)
	dm, err := discrete.New(tr, h, []int{2, 2, 2, 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range tr.Observed() {
		dm.CPT[x] = []float64{0.5, 0.5, 0.5, 0.5}
	}
	ball, _ := tr.Lookup("ball")
	goal, _ := tr.Lookup("goal")
	dm.CPT[ball] = []float64{1, 0, 0, 1} // ball = h = goal
	dm.CPT[goal] = []float64{1, 0, 0, 1}
	m := filepath.Join(dir, "m.json")
	var b strings.Builder
	if err := dm.WriteJSON(&b, nil); err != nil {
		t.Fatal(err)
	}
	writeFile(t, m, b.String())
	d := filepath.Join(dir, "d.csv")
	writeFile(t, d, "ball,goal,team\n1,1,0\n0,1,0\n0,0,1\n1,0,1\n1,1,1\n")
	if code, out, errs := run(t, "", "score", "--json", m, d); code != ExitOK || !strings.Contains(out, `"loglik": null`) {
		t.Errorf("score --json: exit %d, %s%s", code, out, errs)
	}
	c := filepath.Join(dir, "c.json")
	code, out, errs := run(t, "", "fit", "--estep", m, d, "--out", c)
	if code != ExitOK || !strings.Contains(out, "log-likelihood -Inf (2 rows of probability 0; ") {
		t.Errorf("fit --estep: exit %d, %q %s", code, out, errs)
	}
	code, out, errs = run(t, "", "fit", "--estep", "--json", m, d, "--out", c)
	if code != ExitOK || !strings.Contains(out, `"loglik": null`) || !strings.Contains(out, `"impossible_rows": 2`) {
		t.Errorf("fit --estep --json: exit %d, %q %s", code, out, errs)
	}
	code, out, errs = run(t, "", "fit", "--mstep", "--json", m, c, "--out", filepath.Join(dir, "next.json"))
	if code != ExitOK || !strings.Contains(out, `"loglik": null`) || !strings.Contains(out, `"impossible_rows": 2`) {
		t.Errorf("fit --mstep --json: exit %d, %q %s", code, out, errs)
	}
}
