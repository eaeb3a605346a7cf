package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLearnRecoversSimulatedTree(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	truth := filepath.Join(dir, "true.nwk")
	if code, _, errs := run(t, "", "simulate", "--topology", "double-star", "--leaves", "10", "-n", "20000", "--seed", "3",
		"--out", data, "--newick", truth); code != ExitOK {
		t.Fatalf("simulate: %s", errs)
	}
	for _, m := range []string{"clrg", "rg"} {
		learned := filepath.Join(dir, m+".nwk")
		code, out, errs := run(t, "", "learn", data, "--method", m, "--newick", learned, "--json")
		if code != ExitOK {
			t.Fatalf("learn %s: exit %d: %s", m, code, errs)
		}
		var sum struct {
			Observed int `json:"observed"`
			Hidden   int `json:"hidden"`
		}
		if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Observed != 20 {
			t.Fatalf("learn %s summary: %v %s", m, err, out)
		}
		code, out, _ = run(t, "", "compare", "--json", truth, learned)
		if code != ExitOK || !strings.Contains(out, `"rf": 0`) {
			t.Errorf("%s did not recover the double star: %s", m, out)
		}
	}
	// From a distance matrix: exact distances give the exact tree.
	dist := filepath.Join(dir, "dist.csv")
	tr2 := filepath.Join(dir, "t2.nwk")
	run(t, "", "simulate", "--topology", "minimal", "--leaves", "30", "-n", "0", "--seed", "9", "--distances", dist, "--newick", tr2)
	learned := filepath.Join(dir, "fromd.nwk")
	if code, _, errs := run(t, "", "learn", "--distance-matrix", dist, "--method", "clrg", "--contract", "1e-9", "--newick", learned); code != ExitOK {
		t.Fatalf("learn --distance-matrix: %s", errs)
	}
	if _, out, _ := run(t, "", "compare", "--json", tr2, learned); !strings.Contains(out, `"rf": 0`) {
		t.Errorf("CLRG from exact distances: %s", out)
	}
}

func TestLearnDegenerateData(t *testing.T) {
	cases := map[string]string{
		"independent": "a,b,c,d\n0,0,0,0\n0,1,1,0\n1,0,1,1\n1,1,0,1\n0,0,1,1\n1,1,1,0\n0,1,0,1\n1,0,0,0\n",
		"duplicated":  "a,b,c,d\n0,0,1,1\n1,1,0,1\n0,0,1,0\n1,1,1,1\n0,0,0,0\n1,1,0,0\n1,1,1,0\n0,0,0,1\n",
		"two vars":    "a,b\n0,1\n1,0\n0,0\n1,1\n1,1\n",
		"perfect":     "a,b,c\n0,1,0\n1,0,0\n0,1,1\n1,0,1\n0,1,1\n",
	}
	for name, csv := range cases {
		for _, m := range []string{"clnj", "clrg", "nj", "rg", "clblind", "chowliu"} {
			code, out, errs := run(t, csv, "learn", "-", "--method", m, "--newick", "-")
			if code != ExitOK {
				t.Errorf("%s/%s: exit %d: %s", name, m, code, errs)
				continue
			}
			if !strings.HasSuffix(strings.TrimSpace(out), ";") {
				t.Errorf("%s/%s: no Newick tree: %q", name, m, out)
			}
		}
	}
	// Mixed kinds: a conditional-Gaussian model, said so.
	mixed := "a,b\n0,0.5\n1,1.5\n0,2.5\n1,3.5\n0,4.5\n1,5.5\n0,6.5\n1,7.5\n0,8.5\n1,9.5\n0,10.5\n1,11.5\n"
	if code, out, errs := run(t, mixed, "learn", "-"); code != ExitOK || !strings.Contains(out, "conditional-Gaussian model") {
		t.Errorf("mixed kinds: exit %d, %q %q", code, out, errs)
	}
	if code, _, _ := run(t, "", "learn"); code != ExitUsage {
		t.Errorf("learn without input: exit %d", code)
	}
	if code, _, _ := run(t, "a,b\n0,1\n1,0\n", "learn", "-", "--method", "magic"); code != ExitUsage {
		t.Errorf("unknown method: exit %d", code)
	}
}

// BenchmarkLearnNewsgroups runs the whole "latentree learn --method clnj"
// command on the 20 Newsgroups train split: structure only (target ≤ 0.5 s;
// the MATLAB toolbox takes 0.75 s under Octave), and with EM.
func BenchmarkLearnNewsgroups(b *testing.B) {
	path := "../../examples/newsgroups/newsgroups100-train.csv"
	if _, err := os.Stat(path); err != nil {
		b.Skip("newsgroups data not available")
	}
	out := filepath.Join(b.TempDir(), "t.nwk")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"structure", []string{"--structure-only"}},
		{"with-EM", nil},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				args := append([]string{"learn", path, "--method", "clnj", "--newick", out}, c.args...)
				if code := Main(args, strings.NewReader(""), &discard{}, &discard{}); code != ExitOK {
					b.Fatal("learn failed")
				}
			}
		})
	}
}

// BenchmarkLearnGaussianSmall runs the whole "latentree learn
// --structure-only" command, in process, on 80 Gaussian variables × 1,000
// rows of CSV written by simulate (an HMM, as in JMLR 2011 §7.1). Issue
// 25's target is ≤ 20 ms for the command, process start included (about
// 5 ms of it, outside this benchmark, as is the deferral of garbage
// collection by cmd/latentree). On the 2-core test machine, under a load
// of 2 to 5 from other jobs, it took 37–48 ms/op (more as the load
// grew), 33 MB and 55,000 allocations before the work on issue 25, and
// 21–30 ms/op, 11 MB and 23,000 allocations after.
func BenchmarkLearnGaussianSmall(b *testing.B) {
	path := filepath.Join(b.TempDir(), "hmm.csv")
	if code := Main([]string{"simulate", "--topology", "hmm", "--hidden", "78", "-n", "1000", "--seed", "1", "--out", path}, strings.NewReader(""), &discard{}, &discard{}); code != ExitOK {
		b.Fatal("simulate failed")
	}
	b.ReportAllocs()
	for b.Loop() {
		if code := Main([]string{"learn", "--structure-only", path}, strings.NewReader(""), &discard{}, &discard{}); code != ExitOK {
			b.Fatal("learn failed")
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestFitScoreInfer(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.csv")
	test := filepath.Join(dir, "test.csv")
	truth := filepath.Join(dir, "true.nwk")
	args := []string{"simulate", "--topology", "double-star", "--leaves", "4", "--model", "symmetric", "--states", "2", "--seed", "4"}
	if code, _, errs := run(t, "", append(args, "-n", "3000", "--out", train, "--newick", truth)...); code != ExitOK {
		t.Fatal(errs)
	}
	// The same model (same seed) gives the test rows.
	if code, _, errs := run(t, "", append(args, "-n", "3500", "--out", test)...); code != ExitOK {
		t.Fatal(errs)
	}
	modelPath := filepath.Join(dir, "m.json")
	code, out, errs := run(t, "", "fit", truth, train, "--out", modelPath, "--json")
	if code != ExitOK {
		t.Fatalf("fit: %s", errs)
	}
	var fit struct {
		Score struct {
			LogLik float64 `json:"loglik"`
			Params int     `json:"params"`
		} `json:"score"`
	}
	if err := json.Unmarshal([]byte(out), &fit); err != nil || fit.Score.Params != 1+2*9 {
		t.Fatalf("fit summary: %v %s", err, out)
	}
	code, out, errs = run(t, "", "score", "--json", modelPath, test)
	if code != ExitOK {
		t.Fatalf("score: %s", errs)
	}
	var sc struct {
		Score struct {
			Rows   int     `json:"rows"`
			PerRow float64 `json:"loglik_per_row"`
		} `json:"score"`
	}
	if err := json.Unmarshal([]byte(out), &sc); err != nil || sc.Score.Rows != 3500 {
		t.Fatalf("score: %v %s", err, out)
	}
	// Held-out likelihood per row close to the training one.
	if d := sc.Score.PerRow - fit.Score.LogLik/3000; d < -0.05 || d > 0.05 {
		t.Errorf("test per-row log-likelihood %g vs train %g", sc.Score.PerRow, fit.Score.LogLik/3000)
	}
	// Posteriors: two hidden nodes, two states each, rows sum to 1.
	code, out, errs = run(t, "", "infer", modelPath, test)
	if code != ExitOK {
		t.Fatalf("infer: %s", errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3501 || strings.Count(lines[0], ",") != 3 {
		t.Fatalf("infer output: %d lines, header %q", len(lines), lines[0])
	}
	// Imputation fills every missing cell with a state.
	code, out, errs = run(t, "x1,x2,x3,x4,x5,x6,x7,x8\n0,0,,0,1,1,1,1\n1,1,1,1,,0,0,0\n", "infer", "--impute", modelPath, "-")
	if code != ExitOK || strings.Contains(out, ",,") || !strings.Contains(errs, "imputed 2") {
		t.Errorf("impute: exit %d, %q, %q", code, out, errs)
	}
	// Data that does not match the model: clear errors naming the problem.
	code, _, errs = run(t, "x1,x2\n0,1\n1,0\n", "score", modelPath, "-")
	if code != ExitFailure || !strings.Contains(errs, `"x3"`) {
		t.Errorf("missing variable: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, "x1,x2,x3,x4,x5,x6,x7,x8\n0,0,0,0,1,1,1,7\n1,1,1,1,0,0,0,0\n", "score", modelPath, "-")
	if code != ExitFailure || !strings.Contains(errs, `"7"`) {
		t.Errorf("unknown state: exit %d, %q", code, errs)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"format":"latentree-model","version":1,"type":"discrete","root":"zz","tree":{"format":"latentree-tree","version":1,"nodes":[],"edges":[]},"nodes":[]}`), 0o644)
	if code, _, errs := run(t, "", "score", bad, test); code != ExitFailure || !strings.Contains(errs, "bad.json") {
		t.Errorf("invalid model: exit %d, %q", code, errs)
	}
}

func TestGaussianLearnScoreInfer(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "g.csv")
	if code, _, errs := run(t, "", "simulate", "--topology", "double-star", "--leaves", "4", "-n", "4000", "--seed", "2", "--out", d); code != ExitOK {
		t.Fatal(errs)
	}
	m := filepath.Join(dir, "g.json")
	code, out, errs := run(t, "", "learn", d, "-m", "clrg", "--out", m, "--json")
	if code != ExitOK {
		t.Fatalf("learn: %s", errs)
	}
	var sum struct {
		Hidden int `json:"hidden"`
		Score  struct {
			Params int `json:"params"`
		} `json:"score"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Hidden < 1 || sum.Score.Params != (8+sum.Hidden-1)+16 {
		t.Fatalf("learn summary: %v %s", err, out)
	}
	if code, out, errs = run(t, "", "score", "--json", m, d); code != ExitOK || !strings.Contains(out, `"loglik"`) {
		t.Fatalf("score: %s %s", out, errs)
	}
	code, out, errs = run(t, "", "infer", m, d)
	header, _, _ := strings.Cut(out, "\n")
	if code != ExitOK || !strings.HasPrefix(header, "h1_mean,h1_sd,") || strings.Count(header, ",") != 2*sum.Hidden-1 {
		t.Fatalf("infer: %q %s", out[:min(len(out), 80)], errs)
	}
	code, out, errs = run(t, "x1,x2,x3,x4,x5,x6,x7,x8\n0.1,,0.3,0.2,1,1.2,0.9,1.1\n0.2,0.1,0.3,0.2,1,1.2,0.9,1.1\n", "infer", "--impute", m, "-")
	if code != ExitOK || strings.Contains(out, ",,") || !strings.Contains(errs, "imputed 1") {
		t.Fatalf("impute: %q %s", out, errs)
	}
}

func TestQuartetCommands(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "q.csv")
	truth := filepath.Join(dir, "q.nwk")
	if code, _, errs := run(t, "", "simulate", "--topology", "binary", "--leaves", "8", "--model", "general", "--observed-states", "3",
		"--hidden-states", "2", "--cpt", "dirichlet", "-n", "20000", "--seed", "11", "--out", d, "--newick", truth); code != ExitOK {
		t.Fatal(errs)
	}
	code, out, errs := run(t, "", "quartet", d, "--vars", "x1,x2,x3,x4", "--json")
	if code != ExitOK || !strings.Contains(out, `"pairing"`) {
		t.Fatalf("quartet: %s %s", out, errs)
	}
	if code, _, _ := run(t, "", "quartet", d, "--vars", "x1,x2,x3"); code != ExitUsage {
		t.Errorf("three variables: exit %d", code)
	}
	if code, _, _ := run(t, "", "quartet", d, "--vars", "x1,x2,x3,x3"); code != ExitUsage {
		t.Errorf("duplicated variable: exit %d", code)
	}
	code, out, errs = run(t, "", "quartet", d, "--vars", "x1,x2,x3,x4,x5,x6", "--json")
	var all []struct {
		Vars    [4]string `json:"vars"`
		Pairing string    `json:"pairing"`
	}
	if err := json.Unmarshal([]byte(out), &all); err != nil || code != ExitOK || len(all) != 15 {
		t.Fatalf("six variables: %d quartets, %v %s", len(all), err, errs)
	}
	if code, _, _ := run(t, "", "learn", d, "-m", "quartet", "--order", "sideways"); code != ExitUsage {
		t.Errorf("bad --order: exit %d", code)
	}
	learned := filepath.Join(dir, "l.nwk")
	code, out, errs = run(t, "", "learn", d, "-m", "quartet", "--newick", learned, "--out", filepath.Join(dir, "m.json"))
	if code != ExitOK || !strings.Contains(out, "quartet tests") {
		t.Fatalf("learn quartet: %s %s", out, errs)
	}
	code, out, errs = run(t, "", "learn", d, "-m", "quartet", "--structure-only", "--json")
	var lj struct {
		Tests int `json:"quartet_tests"`
	}
	if err := json.Unmarshal([]byte(out), &lj); err != nil || code != ExitOK || lj.Tests < 5 {
		t.Fatalf("learn quartet --json: %d tests, %v %s", lj.Tests, err, errs)
	}
	code, out, _ = run(t, "", "compare", "--json", truth, learned)
	var cmp struct {
		RF int `json:"rf"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil || code != ExitOK {
		t.Fatalf("compare: %v", err)
	}
	t.Logf("quartet tree RF %d on 8 leaves", cmp.RF)
	if cmp.RF > 2 {
		t.Errorf("quartet tree RF %d on 8 leaves from 20,000 rows", cmp.RF)
	}
}
