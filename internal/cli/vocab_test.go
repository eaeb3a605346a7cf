package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The vocabulary shared by the commands (issue 20): --rows/-n a number of
// rows, --out/-o a result's file, --json, --missing error by default, old
// flag names kept as deprecated aliases, and latentree version.

func TestVersionCommand(t *testing.T) {
	code, out, errs := run(t, "", "version")
	if code != ExitOK {
		t.Fatalf("version: exit %d: %s", code, errs)
	}
	for _, want := range []string{"latentree ", "\nmodule    github.com/latentree/latentree\n", "\ncommit    ", "\nmodified  ", "\ngo        go1."} {
		if !strings.Contains(out, want) {
			t.Errorf("version output lacks %q:\n%s", want, out)
		}
	}
	code, flag, errs := run(t, "", "--version")
	if code != ExitOK || flag != out {
		t.Errorf("--version: exit %d, %q (want the output of version, %q) %s", code, flag, out, errs)
	}
	code, js, errs := run(t, "", "version", "--json")
	var v struct {
		Module, Version, Commit, Go string
		Modified                    *bool
	}
	if err := json.Unmarshal([]byte(js), &v); code != ExitOK || err != nil || v.Module != "github.com/latentree/latentree" || v.Version == "" || v.Commit == "" || !strings.HasPrefix(v.Go, "go1.") {
		t.Errorf("version --json: exit %d, %v, %+v %s", code, err, v, errs)
	}
	if code, _, _ := run(t, "", "version", "extra"); code != ExitUsage {
		t.Errorf("version with an argument: exit %d", code)
	}
}

func TestVersionFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Path: "github.com/latentree/latentree", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}}
	v := newVersionInfo(bi)
	if v.Version != "v1.2.3" || v.Commit != "abc123" || v.Modified == nil || !*v.Modified || v.Go != "go1.26.1" {
		t.Errorf("%+v", v)
	}
	if txt := v.text(); !strings.HasPrefix(txt, "latentree v1.2.3\n") || !strings.Contains(txt, "commit    abc123 (2026-01-02T03:04:05Z)\n") || !strings.Contains(txt, "modified  true\n") {
		t.Errorf("text:\n%s", txt)
	}
	// Built from a checkout with -buildvcs=false: no VCS settings.
	v = newVersionInfo(&debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Path: "github.com/latentree/latentree", Version: "(devel)"}})
	if v.Version != "(devel)" || v.Commit != "unknown" || v.Modified != nil {
		t.Errorf("%+v", v)
	}
	if txt := v.text(); !strings.Contains(txt, "commit    unknown\n") || !strings.Contains(txt, "modified  unknown\n") {
		t.Errorf("text:\n%s", txt)
	}
	if v := newVersionInfo(nil); v.Version != "unknown" || v.Commit != "unknown" || !strings.HasPrefix(v.Go, "go") {
		t.Errorf("no build info: %+v", v)
	}
}

func TestSimulateRows(t *testing.T) {
	sim := []string{"simulate", "--topology", "star", "--leaves", "3", "--seed", "2"}
	code, out, errs := run(t, "", append(sim, "--rows", "5")...)
	if code != ExitOK || strings.Count(out, "\n") != 6 || errs != "" {
		t.Fatalf("--rows 5: exit %d, %q, %q", code, out, errs)
	}
	if _, short, _ := run(t, "", append(sim, "-n", "5")...); short != out {
		t.Errorf("-n 5 gives other rows than --rows 5")
	}
	// The old name still works, with a notice on standard error only.
	code, old, errs := run(t, "", append(sim, "--samples", "5")...)
	if code != ExitOK || old != out {
		t.Errorf("--samples 5: exit %d, %q (want %q)", code, old, out)
	}
	if !strings.Contains(errs, "--samples has been deprecated") || !strings.Contains(errs, "--rows") {
		t.Errorf("--samples: no deprecation notice naming --rows: %q", errs)
	}
	if code, _, errs := run(t, "", append(sim, "--rows", "5", "--samples", "5")...); code != ExitUsage || !strings.Contains(errs, "give --rows only") {
		t.Errorf("--rows and --samples: exit %d, %q", code, errs)
	}
	if code, _, errs := run(t, "", append(sim, "--samples", "-1")...); code != ExitUsage || !strings.Contains(errs, "--samples -1") {
		t.Errorf("--samples -1: exit %d, %q (want the flag as given)", code, errs)
	}
	code, js, _ := run(t, "", append(sim, "--rows", "5", "--out", filepath.Join(t.TempDir(), "d.csv"), "--json")...)
	var sum struct{ Rows, Samples int }
	if err := json.Unmarshal([]byte(js), &sum); code != ExitOK || err != nil || sum.Rows != 5 || sum.Samples != 5 {
		t.Errorf("--json: exit %d, %v, %s", code, err, js)
	}
	if _, help, _ := run(t, "", "simulate", "--help"); !strings.Contains(help, "-n, --rows int") || strings.Contains(help, "--samples int") {
		t.Errorf("simulate --help should list --rows and hide --samples:\n%s", help)
	}
}

func TestLearnMatrixRows(t *testing.T) {
	dir := t.TempDir()
	dist := filepath.Join(dir, "d.csv")
	if code, _, errs := run(t, "", "simulate", "--topology", "binary", "--leaves", "8", "--model", "symmetric", "-n", "0", "--seed", "3", "--distances", dist); code != ExitOK {
		t.Fatalf("simulate: %s", errs)
	}
	learn := []string{"learn", "--distance-matrix", dist, "--method", "rg", "--newick", "-"}
	code, tr, errs := run(t, "", append(learn, "--matrix-rows", "500")...)
	if code != ExitOK || !strings.Contains(errs, "RG thresholds") {
		t.Fatalf("--matrix-rows: exit %d: %s", code, errs)
	}
	code, old, errs := run(t, "", append(learn, "--samples", "500")...)
	if code != ExitOK || old != tr || !strings.Contains(errs, "--samples has been deprecated, use --matrix-rows") {
		t.Errorf("--samples: exit %d, %q (want %q), %s", code, old, tr, errs)
	}
	thresholds := func(summary string) string {
		for _, l := range strings.Split(summary, "\n") {
			if strings.HasPrefix(l, "RG thresholds") {
				return l
			}
		}
		return ""
	}
	if _, _, exact := run(t, "", learn...); thresholds(exact) == thresholds(errs) {
		t.Errorf("--matrix-rows does not change RG's thresholds: %q", thresholds(exact))
	}
	data := filepath.Join(dir, "x.csv")
	writeTestFile(t, dir, "x.csv", "a,b,c\n0,1,0\n1,1,0\n0,0,1\n")
	for _, flag := range []string{"--matrix-rows", "--samples"} {
		if code, _, errs := run(t, "", "learn", data, flag, "10"); code != ExitUsage || !strings.Contains(errs, flag+" applies to --distance-matrix only") {
			t.Errorf("learn DATA %s: exit %d, %q", flag, code, errs)
		}
	}
	if code, _, errs := run(t, "", append(learn, "--matrix-rows", "0")...); code != ExitUsage || !strings.Contains(errs, "--matrix-rows 0") {
		t.Errorf("--matrix-rows 0: exit %d, %q", code, errs)
	}
}

func TestImportanceSamples(t *testing.T) {
	dir := t.TempDir()
	mp, _ := writeScoreNet(t, dir, scoreTestNet())
	dp := writeTestFile(t, dir, "d.csv", "cough,rash,ache,fever\n1,0,1,1\n0,0,0,0\n")
	code, out, errs := run(t, "", "score", "--json", "--max-exact", "1", "--importance-samples", "500", mp, dp)
	if code != ExitOK {
		t.Fatalf("--importance-samples: exit %d: %s", code, errs)
	}
	code, old, errs := run(t, "", "score", "--json", "--max-exact", "1", "--samples", "500", mp, dp)
	if code != ExitOK || old != out || !strings.Contains(errs, "use --importance-samples") {
		t.Errorf("--samples: exit %d, %q (want %q), %s", code, old, out, errs)
	}
	if code, _, errs := run(t, "", "score", "--importance-samples", "1", mp, dp); code != ExitUsage || !strings.Contains(errs, "--importance-samples must be at least 2") {
		t.Errorf("--importance-samples 1: exit %d, %s", code, errs)
	}
	if code, _, errs := run(t, "", "score", "--samples", "1", mp, dp); code != ExitUsage || !strings.Contains(errs, "--samples must be at least 2") {
		t.Errorf("--samples 1: exit %d, %s", code, errs)
	}
	// Not a noisy-or model: the flag is refused under the name given.
	sm := writeStarModel(t, t.TempDir(), false)
	sd := writeTestFile(t, dir, "s.csv", "ball,goal,team\n1,1,1\n")
	for _, cmd := range []string{"score", "infer"} {
		for _, flag := range []string{"--importance-samples", "--samples"} {
			if code, _, errs := run(t, "", cmd, flag, "100", sm, sd); code != ExitUsage || !strings.Contains(errs, flag+" applies to noisy-or models only") {
				t.Errorf("%s %s on a discrete model: exit %d, %s", cmd, flag, code, errs)
			}
		}
	}
}

func TestInferMissingDefaultsToError(t *testing.T) {
	dir := t.TempDir()
	mp := writeStarModel(t, dir, false)
	dp := writeTestFile(t, dir, "d.csv", "ball,goal,team\n1,1,1\n0,0,\n")
	code, out, errs := run(t, "", "infer", mp, dp)
	if code != ExitFailure || out != "" || !strings.Contains(errs, "--missing keep") || !strings.Contains(errs, `column "team"`) {
		t.Errorf("infer without --missing: exit %d, %q, %q (want exit 1 naming --missing keep)", code, out, errs)
	}
	if code, out, errs := run(t, "", "infer", "--missing", "keep", mp, dp); code != ExitOK || strings.Count(out, "\n") != 3 {
		t.Errorf("--missing keep: exit %d, %q, %s", code, out, errs)
	}
	if code, out, errs := run(t, "", "infer", "--missing", "drop-rows", mp, dp); code != ExitOK || strings.Count(out, "\n") != 2 {
		t.Errorf("--missing drop-rows: exit %d, %q, %s", code, out, errs)
	}
	// --impute fills missing cells: it reads them as missing without
	// --missing keep, and refuses another policy.
	if code, out, errs := run(t, "", "infer", "--impute", mp, dp); code != ExitOK || !strings.Contains(out, "\n0,0,0\n") || !strings.Contains(errs, "imputed 1") {
		t.Errorf("--impute: exit %d, %q, %s", code, out, errs)
	}
	if code, _, errs := run(t, "", "infer", "--impute", "--missing", "keep", mp, dp); code != ExitOK {
		t.Errorf("--impute --missing keep: exit %d, %s", code, errs)
	}
	for _, m := range []string{"error", "drop-rows"} {
		if code, _, errs := run(t, "", "infer", "--impute", "--missing", m, mp, dp); code != ExitUsage || !strings.Contains(errs, "--missing "+m+" does not apply to --impute") {
			t.Errorf("--impute --missing %s: exit %d, %s", m, code, errs)
		}
	}
	// The same default and message for score, and for a noisy-or model.
	if code, _, errs := run(t, "", "score", mp, dp); code != ExitFailure || !strings.Contains(errs, "--missing keep") {
		t.Errorf("score: exit %d, %s", code, errs)
	}
	np, _ := writeScoreNet(t, dir, scoreTestNet())
	nd := writeTestFile(t, dir, "n.csv", "cough,rash,ache,fever\n1,0,,1\n0,0,1,0\n")
	if code, _, errs := run(t, "", "infer", np, nd); code != ExitFailure || !strings.Contains(errs, "--missing keep") {
		t.Errorf("noisy-or infer: exit %d, %s", code, errs)
	}
	if code, _, errs := run(t, "", "infer", "--missing", "keep", np, nd); code != ExitOK {
		t.Errorf("noisy-or infer --missing keep: exit %d, %s", code, errs)
	}
}

func TestCompareOut(t *testing.T) {
	dir := t.TempDir()
	a := writeTestFile(t, dir, "a.nwk", "((x1,x2),(x3,x4),x5);")
	b := writeTestFile(t, dir, "b.nwk", "((x1,x3),(x2,x4),x5);")
	_, want, _ := run(t, "", "compare", a, b)
	x := filepath.Join(dir, "x")
	code, out, errs := run(t, "", "compare", a, b, "--out", x)
	if code != ExitOK || out != "" {
		t.Fatalf("compare --out: exit %d, %q, %s", code, out, errs)
	}
	if got := readFile(t, x); got != want || !strings.HasPrefix(got, "Robinson–Foulds distance: ") {
		t.Errorf("compare --out wrote %q, want %q", got, want)
	}
	_, wantJSON, _ := run(t, "", "compare", "--json", a, b)
	if code, _, errs := run(t, "", "compare", "--json", a, b, "-o", x); code != ExitOK || readFile(t, x) != wantJSON {
		t.Errorf("compare --json -o: exit %d, %q, %s", code, readFile(t, x), errs)
	}
	if code, _, errs := run(t, "", "compare", a, b, "--out", a); code != ExitUsage || !strings.Contains(errs, "is also the input") {
		t.Errorf("compare --out A: exit %d, %s", code, errs)
	}
	if readFile(t, a) != "((x1,x2),(x3,x4),x5);" {
		t.Error("the input was changed")
	}
}

func TestScoreOut(t *testing.T) {
	dir := t.TempDir()
	mp := writeStarModel(t, dir, false)
	dp := writeTestFile(t, dir, "d.csv", "ball,goal,team\n1,1,1\n0,0,0\n")
	for _, args := range [][]string{nil, {"--json"}} {
		_, want, _ := run(t, "", append(append([]string{"score"}, args...), mp, dp)...)
		x := filepath.Join(dir, "s.out")
		code, out, errs := run(t, "", append(append([]string{"score"}, args...), mp, dp, "-o", x)...)
		if code != ExitOK || out != "" || readFile(t, x) != want {
			t.Errorf("score %v -o: exit %d, stdout %q, file %q (want %q) %s", args, code, out, readFile(t, x), want, errs)
		}
	}
	// A noisy-or model too.
	np, _ := writeScoreNet(t, dir, scoreTestNet())
	nd := writeTestFile(t, dir, "n.csv", "cough,rash,ache,fever\n1,0,1,1\n")
	_, want, _ := run(t, "", "score", np, nd)
	x := filepath.Join(dir, "n.out")
	if code, out, errs := run(t, "", "score", np, nd, "--out", x); code != ExitOK || out != "" || readFile(t, x) != want {
		t.Errorf("noisy-or score --out: exit %d, %q, %s", code, out, errs)
	}
}

func TestQuartetOut(t *testing.T) {
	dir := t.TempDir()
	dp := writeTestFile(t, dir, "d.csv", "a,b,c,d,e\n0,0,1,1,0\n1,1,0,0,1\n0,0,0,1,0\n1,1,1,0,1\n0,1,1,1,0\n1,0,0,0,1\n")
	for _, args := range [][]string{{"--vars", "a,b,c,d"}, {"--vars", "a,b,c,d", "--json"}, {"--vars", "a,b,c,d,e"}, {"--vars", "a,b,c,d,e", "--json"}} {
		_, want, _ := run(t, "", append([]string{"quartet", dp}, args...)...)
		x := filepath.Join(dir, "q.out")
		code, out, errs := run(t, "", append([]string{"quartet", dp, "-o", x}, args...)...)
		if code != ExitOK || out != "" || readFile(t, x) != want || want == "" {
			t.Errorf("quartet %v -o: exit %d, %q, file %q (want %q) %s", args, code, out, readFile(t, x), want, errs)
		}
	}
	if code, _, errs := run(t, "", "quartet", dp, "--vars", "a,b,c,d", "--out", dp); code != ExitUsage || !strings.Contains(errs, "is also the input") {
		t.Errorf("quartet --out DATA: exit %d, %s", code, errs)
	}
}

func TestNoisyorOutShorthand(t *testing.T) {
	dir := t.TempDir()
	dp := writeNoisyorFitData(t, dir)
	for _, c := range [][]string{
		{"noisyor", "learn", dp},
		{"noisyor", "fit", dp, "--sources", "2", "--restarts", "1", "--max-iter", "20"},
	} {
		net := filepath.Join(dir, c[1]+".json")
		code, _, errs := run(t, "", append(c, "-o", net)...)
		if code != ExitOK {
			t.Fatalf("%v -o: exit %d: %s", c, code, errs)
		}
		if s := readFile(t, net); !strings.Contains(s, `"noisy-or"`) {
			t.Errorf("%v -o wrote %.80q", c, s)
		}
	}
}

func TestDrawJSON(t *testing.T) {
	dir := t.TempDir()
	nwk := writeTestFile(t, dir, "t.nwk", "((a,b),(c,d),e);")
	svg := filepath.Join(dir, "t.svg")
	code, out, errs := run(t, "", "draw", nwk, "--out", svg, "--json")
	if code != ExitOK {
		t.Fatalf("draw --json: exit %d: %s", code, errs)
	}
	var sum struct {
		Input, Out, Format, Layout string
		Nodes, Observed, Hidden    int
		Bytes                      int64
	}
	info, err := os.Stat(svg)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Out != svg || sum.Input != nwk || sum.Format != "svg" || sum.Layout != "tidy" ||
		sum.Nodes != 8 || sum.Observed != 5 || sum.Hidden != 3 || sum.Bytes != info.Size() {
		t.Errorf("draw --json: %v %+v (file %d bytes)\n%s", err, sum, info.Size(), out)
	}
	// The picture on standard output: the summary on standard error.
	code, out, errs = run(t, "", "draw", nwk, "--out", "-", "--json")
	if code != ExitOK || !strings.HasPrefix(out, "<svg") && !strings.HasPrefix(out, "<?xml") || json.Unmarshal([]byte(errs), &sum) != nil || sum.Out != "-" || sum.Bytes != int64(len(out)) {
		t.Errorf("draw --out - --json: exit %d, %.40q, %q", code, out, errs)
	}
}

func TestReportJSON(t *testing.T) {
	dir := t.TempDir()
	mp := writeStarModel(t, dir, false)
	dp := writeTestFile(t, dir, "d.csv", "ball,goal,team\n1,1,1\n0,0,0\n1,0,1\n")
	page := filepath.Join(dir, "r.html")
	code, out, errs := run(t, "", "report", mp, dp, "--out", page, "--json")
	if code != ExitOK {
		t.Fatalf("report --json: exit %d: %s", code, errs)
	}
	var sum struct {
		Model, Data, Out, Type string
		Observed, Hidden, Rows int
		Bytes                  int64
	}
	info, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Model != mp || sum.Data != dp || sum.Out != page || sum.Type != "discrete" ||
		sum.Observed != 3 || sum.Hidden != 1 || sum.Rows != 3 || sum.Bytes != info.Size() {
		t.Errorf("report --json: %v %+v (file %d bytes)\n%s", err, sum, info.Size(), out)
	}
	if code, out, _ := run(t, "", "report", mp, "--out", page); code != ExitOK || out != "" {
		t.Errorf("report without --json printed %q", out)
	}
	code, out, errs = run(t, "", "report", mp, "--out", "-", "--json")
	var toStdout struct{ Out, Data string }
	if code != ExitOK || !strings.Contains(out, "<html") || json.Unmarshal([]byte(errs), &toStdout) != nil || toStdout.Out != "-" || toStdout.Data != "" {
		t.Errorf("report --out - --json: exit %d, %q", code, errs)
	}
}

// TestResultFlags: every command that prints or writes a result takes
// --json and --out/-o (experiments: --out is a path prefix; most print no
// JSON).
func TestResultFlags(t *testing.T) {
	root := newRoot(&env{})
	noJSON := map[string]bool{"noisyor": true, "experiment": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			walk(s)
		}
		if !c.Runnable() || c == root || c.Name() == "help" || c.Name() == "completion" || c.Parent().Name() == "experiment" {
			return
		}
		path := c.CommandPath()
		if !noJSON[c.Name()] && c.Flags().Lookup("json") == nil {
			t.Errorf("%s has no --json", path)
		}
		if c.Name() == "version" {
			return
		}
		if o := c.Flags().Lookup("out"); o == nil || o.Shorthand != "o" {
			t.Errorf("%s has no --out/-o", path)
		}
	}
	walk(root)
	// One word, one meaning: no command has a --samples flag other than a
	// deprecated alias.
	var samples func(c *cobra.Command)
	samples = func(c *cobra.Command) {
		if f := c.Flags().Lookup("samples"); f != nil && f.Deprecated == "" {
			t.Errorf("%s has a --samples flag", c.CommandPath())
		}
		if f := c.Flags().Lookup("rows"); f != nil && f.Value.Type() == "int" && f.Shorthand != "n" {
			t.Errorf("%s --rows has no -n", c.CommandPath())
		}
		for _, s := range c.Commands() {
			samples(s)
		}
	}
	samples(root)
}
