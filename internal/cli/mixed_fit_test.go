package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mixedCSV writes a mixed table: two binary hidden variables h1 (root)
// and h2 (a noisy copy of h1), each with two discrete leaves and two
// continuous ones (means by the hidden state), and a continuous hidden
// variable under h2 with two continuous leaves.
func mixedCSV(t *testing.T, n int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 4))
	var b strings.Builder
	b.WriteString("a1,b1,x1,y1,a2,b2,x2,y2,u,v\n")
	noisy := func(h int, p float64) int {
		if rng.Float64() < p {
			return 1 - h
		}
		return h
	}
	for range n {
		h1 := rng.IntN(2)
		h2 := noisy(h1, 0.15)
		k := 1.2*float64(h2) - 0.6 + 0.8*rng.NormFloat64()
		fmt.Fprintf(&b, "%d,%d,%.5f,%.5f,%d,%d,%.5f,%.5f,%.5f,%.5f\n",
			noisy(h1, 0.2), noisy(h1, 0.3), 2*float64(h1)+rng.NormFloat64(), -1.5*float64(h1)+rng.NormFloat64(),
			noisy(h2, 0.2), noisy(h2, 0.25), 2*float64(h2)+rng.NormFloat64(), float64(h2)+0.7*rng.NormFloat64(),
			0.9*k+0.5*rng.NormFloat64(), -0.8*k+0.6*rng.NormFloat64())
	}
	p := filepath.Join(t.TempDir(), "mixed.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// learn on a mixed table fits a conditional-Gaussian model without flags
// and says so (text and --json); fit refits its tree, and flags that do
// not apply to mixed data are usage errors. 600 rows (1,500 before): the
// checks are on what the commands say and write, which the rows do not
// change; the model's quality is for the tests of learn and model/mixed.
func TestLearnFitMixed(t *testing.T) {
	csv := mixedCSV(t, 600)
	dir := t.TempDir()
	nwk, m := filepath.Join(dir, "t.nwk"), filepath.Join(dir, "m.json")
	out := mustRun(t, "learn", csv, "--newick", nwk, "--out", m)
	if !strings.Contains(out, "mixed data (6 continuous columns, 4 discrete columns): conditional-Gaussian model with") || !strings.Contains(out, "distance: mixed canonical-correlation distance") {
		t.Errorf("learn summary:\n%s", out)
	}
	raw, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"type": "mixed"`) {
		t.Errorf("model file is not a mixed model: %.200s", raw)
	}
	js := mustRun(t, "learn", csv, "--json")
	var doc struct {
		Mixed *struct {
			Continuous, Discrete int
		} `json:"mixed"`
		Score struct {
			BIC float64 `json:"bic"`
		} `json:"score"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Mixed == nil || doc.Mixed.Continuous != 6 || doc.Mixed.Discrete != 4 || !(doc.Score.BIC > 0) {
		t.Errorf("learn --json: %s", js)
	}
	for _, args := range [][]string{{"fit", nwk, csv}, {"fit", "--params", "em", nwk, csv}, {"fit", m, csv, "--restarts", "2", "--hidden-states", "3", "--em-accel", "none", "--em-stop", "relative"}} {
		out := mustRun(t, args...)
		if !strings.Contains(out, "conditional-Gaussian (mixed) model: moment-based start") {
			t.Errorf("%v:\n%s", args, out)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", "--params", "spectral", nwk, csv}, "--params does not apply to mixed data"},
		{[]string{"fit", "--em-pseudo", "1", nwk, csv}, "--em-pseudo does not apply to mixed data"},
		{[]string{"learn", "--random-init", csv}, "--random-init does not apply to mixed data"},
		{[]string{"learn", "--em-stop", "auto", csv}, "--em-stop auto does not apply to mixed data"},
		{[]string{"fit", "--init", "random", nwk, csv}, "--init does not apply to mixed data"},
	} {
		if code, _, errs := run(t, "", c.args...); code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %s", c.args, code, errs)
		}
	}
	// --hidden-states auto chooses the number by BIC.
	if out := mustRun(t, "learn", csv, "--hidden-states", "auto"); !strings.Contains(out, "states each, chosen by BIC among 2 to 5") {
		t.Errorf("learn --hidden-states auto:\n%s", out)
	}
	// Methods that fit discrete or Gaussian models only name themselves.
	if code, _, errs := run(t, "", "learn", "--method", "regclnj", csv); code != ExitFailure || !strings.Contains(errs, "regclnj fits parameters to all-discrete or all-continuous data only") {
		t.Errorf("regclnj on mixed data: exit %d, %s", code, errs)
	}
}

// mixedParams reads a mixed model file's parameters by node name.
func mixedParams(t *testing.T, path string) map[string][]float64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Nodes []struct {
			Name     string      `json:"name"`
			Prior    []float64   `json:"prior"`
			CPT      [][]float64 `json:"cpt"`
			Mean     []float64   `json:"mean"`
			Variance []float64   `json:"variance"`
			Coef     *float64    `json:"coef"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]float64{}
	for _, n := range doc.Nodes {
		p := append(append(append([]float64(nil), n.Prior...), n.Mean...), n.Variance...)
		for _, row := range n.CPT {
			p = append(p, row...)
		}
		if n.Coef != nil {
			p = append(p, *n.Coef)
		}
		out[n.Name] = p
	}
	return out
}

// Three iterations of fit --estep over two shards and fit --mstep on a
// mixed model equal the same steps over the whole file (one shard) and
// fit's plain EM (--em-accel none) for three iterations from the same
// start, to 1e-12; wrong counts are refused.
func TestFitEStepMStepMixed(t *testing.T) {
	csv := mixedCSV(t, 600)
	dir := t.TempDir()
	nwk := filepath.Join(dir, "t.nwk")
	mustRun(t, "learn", csv, "--structure-only", "--newick", nwk)
	// The start: the moment-based start (one E-step, no M-step); the
	// reference: plain EM from there for 3 iterations.
	start, ref := filepath.Join(dir, "m0.json"), filepath.Join(dir, "ref.json")
	mustRun(t, "fit", "--em-accel", "none", "--max-iter", "1", nwk, csv, "--out", start)
	if out := mustRun(t, "fit", "--em-accel", "none", "--max-iter", "4", nwk, csv, "--out", ref); !strings.Contains(out, "4 E-steps (stopped at --max-iter)") {
		t.Fatalf("the reference did not run 4 E-steps:\n%s", out)
	}
	shards := shardCSV(t, csv, 2)
	step := func(cur string, parts []string, tag string, it int) string {
		var counts []string
		for i, s := range parts {
			c := filepath.Join(dir, fmt.Sprintf("%s-counts%d.%d.json", tag, it, i))
			if out := mustRun(t, "fit", "--estep", cur, s, "--out", c); !strings.Contains(out, "E-step of") {
				t.Fatalf("estep summary: %q", out)
			}
			counts = append(counts, c)
		}
		next := filepath.Join(dir, fmt.Sprintf("%s-m%d.json", tag, it))
		out := mustRun(t, append([]string{"fit", "--mstep", cur, "--out", next}, counts...)...)
		if !strings.Contains(out, fmt.Sprintf("M-step from %s: 600 rows, log-likelihood", plural(len(parts), "counts file"))) {
			t.Fatalf("mstep summary: %q", out)
		}
		return next
	}
	whole, sharded := start, start
	for it := 1; it <= 3; it++ {
		whole, sharded = step(whole, []string{csv}, "whole", it), step(sharded, shards, "sharded", it)
	}
	for _, c := range []struct{ name, path string }{{"EM on the whole file", whole}, {"fit's plain EM", ref}} {
		want, got := mixedParams(t, c.path), mixedParams(t, sharded)
		worst := 0.0
		for name, w := range want {
			g := got[name]
			if len(g) != len(w) {
				t.Fatalf("node %s: %d parameters, want %d", name, len(g), len(w))
			}
			for i := range w {
				worst = max(worst, math.Abs(w[i]-g[i])/math.Max(1, math.Abs(w[i])))
			}
		}
		if len(want) < 10 || worst > 1e-12 {
			t.Errorf("sharded EM differs from %s by %g (%d nodes)", c.name, worst, len(want))
		}
	}
	// --em-pseudo applies to discrete models only; counts of a mixed
	// model are not a discrete model's.
	c := filepath.Join(dir, "c.json")
	mustRun(t, "fit", "--estep", start, csv, "--out", c)
	if code, _, errs := run(t, "", "fit", "--mstep", "--em-pseudo", "1", start, c, "--out", filepath.Join(dir, "x.json")); code != ExitUsage || !strings.Contains(errs, "--em-pseudo does not apply to a mixed model") {
		t.Errorf("--em-pseudo on a mixed model: exit %d, %s", code, errs)
	}
	if code, _, errs := run(t, "", "fit", "--mstep", sharded, c, "--out", filepath.Join(dir, "x.json")); code != ExitFailure || !strings.Contains(errs, "other parameters") {
		t.Errorf("counts of another iteration: exit %d, %s", code, errs)
	}
}
