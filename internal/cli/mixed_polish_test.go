package cli

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fit on a tree that puts a continuous variable between discrete ones
// refuses it with advice naming the variable and --repair; with --repair
// it hangs the variable under a new discrete hidden variable, says so,
// and fits. --repair on data of one kind is a usage error.
func TestFitRepairMixed(t *testing.T) {
	csv := mixedCSV(t, 400)
	dir := t.TempDir()
	nwk := filepath.Join(dir, "bad.nwk")
	// x1 (continuous) is internal, with a1, b1 and the rest in its branches.
	if err := os.WriteFile(nwk, []byte("((a1,b1,y1)x1,a2,b2,x2,y2,u,v);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, "", "fit", nwk, csv)
	if code == 0 || !strings.Contains(errs, `1 continuous variable between discrete variables: "x1"`) || !strings.Contains(errs, "--repair") {
		t.Errorf("fit without --repair: exit %d, %s", code, errs)
	}
	out := mustRun(t, "fit", "--repair", nwk, csv, "--out", filepath.Join(dir, "m.json"))
	if !strings.Contains(out, `1 continuous variable between discrete ones in the tree, each hung under a new discrete hidden variable (--repair): "x1"`) ||
		!strings.Contains(out, "conditional-Gaussian (mixed) model") {
		t.Errorf("fit --repair:\n%s", out)
	}
	js := mustRun(t, "fit", "--repair", "--json", nwk, csv)
	if !strings.Contains(js, `"repaired":["x1"]`) && !strings.Contains(js, `"repaired": [`) {
		t.Errorf("fit --repair --json: %s", js)
	}
	// A tree that needs no repair is fitted alike with and without it.
	good := filepath.Join(dir, "good.nwk")
	if err := os.WriteFile(good, []byte("((a1,b1,x1,y1),a2,b2,x2,y2,(u,v));\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if a, b := mustRun(t, "fit", good, csv), mustRun(t, "fit", "--repair", good, csv); firstLines(a, 2) != firstLines(b, 2) || strings.Contains(b, "--repair") {
		t.Errorf("fit and fit --repair differ on a good tree:\n%s\n%s", a, b)
	}
	disc := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(disc, []byte("a,b,c\n0,1,0\n1,1,0\n0,0,1\n1,0,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dn := filepath.Join(dir, "d.nwk")
	if err := os.WriteFile(dn, []byte("(a,b,c);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "", "fit", "--repair", dn, disc); code != ExitUsage || !strings.Contains(errs, "--repair applies only to data that mix") {
		t.Errorf("fit --repair on discrete data: exit %d, %s", code, errs)
	}
}

// firstLines returns the first n lines of s but the timing in them.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	out := strings.Join(lines, "\n")
	if i := strings.LastIndex(out, "rows, "); i >= 0 {
		if j := strings.Index(out[i:], "s\n"); j >= 0 {
			out = out[:i] + out[i+j:]
		}
	}
	return out
}

// learn --dot marks the continuous nodes of a mixed model (double teal
// outline and the legend), one per continuous node, and none on
// discrete data.
func TestLearnDOTMixed(t *testing.T) {
	csv := mixedCSV(t, 800)
	dir := t.TempDir()
	m := filepath.Join(dir, "m.json")
	dot := mustRun(t, "learn", csv, "--dot", "-", "--out", m)
	marked := strings.Count(dot, "peripheries=2")
	if !strings.Contains(dot, "legend") || marked < 6 {
		t.Fatalf("learn --dot on mixed data marks %d nodes:\n%s", marked, dot)
	}
	// Each marked node is continuous in the model: the six continuous
	// columns and the continuous hidden variables.
	for _, name := range []string{"x1", "y1", "x2", "y2", "u", "v"} {
		found := false
		for _, line := range strings.Split(dot, "\n") {
			if strings.Contains(line, fmt.Sprintf("label=%q", name)) && strings.Contains(line, "peripheries=2") {
				found = true
			}
		}
		if !found {
			t.Errorf("continuous column %s is not marked:\n%s", name, dot)
		}
	}
	for _, line := range strings.Split(dot, "\n") {
		for _, name := range []string{"a1", "b1", "a2", "b2"} {
			if strings.Contains(line, fmt.Sprintf("label=%q", name)) && strings.Contains(line, "peripheries=2") {
				t.Errorf("discrete column %s is marked: %s", name, line)
			}
		}
	}
}

// When learn's search by BIC keeps the trees of each kind, joined, the
// summary says that EM started from the Gaussian fit of the continuous
// tree, not from the moment-based start.
func TestLearnKindsStartSummary(t *testing.T) {
	// Two correlated Gaussian factors and three independent categorical
	// columns; on this fixed table (seed) the kinds baseline wins.
	rng := rand.New(rand.NewPCG(2, 5))
	var b strings.Builder
	b.WriteString("z1,z2,z3,z4,z5,z6,c1,c2,c3\n")
	for range 1500 {
		g1 := rng.NormFloat64()
		g2 := 0.7*g1 + math.Sqrt(0.51)*rng.NormFloat64()
		fmt.Fprintf(&b, "%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%d,%d,%d\n",
			0.8*g1+0.6*rng.NormFloat64(), 0.7*g1+0.7*rng.NormFloat64(), 0.9*g1+0.4*rng.NormFloat64(),
			0.8*g2+0.6*rng.NormFloat64(), 0.75*g2+0.6*rng.NormFloat64(), 0.85*g2+0.5*rng.NormFloat64(),
			rng.IntN(2), rng.IntN(3), rng.IntN(4))
	}
	csv := filepath.Join(t.TempDir(), "gi.csv")
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "learn", csv)
	if !strings.Contains(out, "each learned alone and joined by one edge, scored best") {
		t.Fatalf("the kinds baseline was not kept (the test needs it):\n%s", out)
	}
	if !strings.Contains(out, "started from the Gaussian fit of the continuous columns' tree") || strings.Contains(out, "moment-based start,") {
		t.Errorf("learn summary:\n%s", out)
	}
}
