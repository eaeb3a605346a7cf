package cli

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/stats"
)

// splitCSV writes the header and the rows [lo, hi) of a CSV file to path.
func splitCSV(t *testing.T, src, path string, lo, hi int) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	out := append([]string{lines[0]}, lines[1+lo:1+hi]...)
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := run(t, "", args...)
	if code != ExitOK {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	return out
}

func readLTS(t *testing.T, path string) *stats.Stats {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := stats.ReadBinary(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// equalStats compares statistics by variable name and state label: counts
// exactly, moments to relative tolerance tol.
func equalStats(t *testing.T, got, want *stats.Stats, tol float64) {
	t.Helper()
	if got.NumVars() != want.NumVars() || got.Rows() != want.Rows() || got.HasPairs() != want.HasPairs() {
		t.Fatalf("got %d vars %d rows, want %d vars %d rows", got.NumVars(), got.Rows(), want.NumVars(), want.Rows())
	}
	close := func(a, b float64) bool {
		return a == b || math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b)) || math.IsNaN(a) && math.IsNaN(b)
	}
	p := want.NumVars()
	gj := make([]int, p)
	code := make([][]int, p)
	for j := 0; j < p; j++ {
		v := want.Var(j)
		k, ok := got.Index(v.Name)
		if !ok || got.Var(k).Kind != v.Kind || got.Var(k).NumStates() != v.NumStates() {
			t.Fatalf("variable %q differs", v.Name)
		}
		gj[j] = k
		for _, l := range v.States {
			c, ok := got.Var(k).StateIndex(l)
			if !ok {
				t.Fatalf("%q: state %q missing", v.Name, l)
			}
			code[j] = append(code[j], c)
		}
		if got.Count(k) != want.Count(j) {
			t.Fatalf("count of %q: %d, want %d", v.Name, got.Count(k), want.Count(j))
		}
		for c, n := range want.Marginal(j) {
			if got.Marginal(k)[code[j][c]] != n {
				t.Fatalf("marginal of %q differs", v.Name)
			}
		}
		if v.Kind == data.Continuous && (!close(got.Mean(k), want.Mean(j)) || !close(got.Cov(k, k), want.Cov(j, j))) {
			t.Fatalf("moments of %q: %v %v, want %v %v", v.Name, got.Mean(k), got.Cov(k, k), want.Mean(j), want.Cov(j, j))
		}
	}
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			if i == j {
				continue
			}
			gi, gk := gj[i], gj[j]
			if got.PairCount(gi, gk) != want.PairCount(i, j) {
				t.Fatalf("pair count of %d, %d differs", i, j)
			}
			if w := want.Pair(i, j, nil); w != nil {
				g := got.Pair(gi, gk, nil)
				nj := want.Var(j).NumStates()
				for x := range want.Var(i).NumStates() {
					for y := range nj {
						if g[code[i][x]*got.Var(gk).NumStates()+code[j][y]] != w[x*nj+y] {
							t.Fatalf("pair table of %q, %q differs", want.Var(i).Name, want.Var(j).Name)
						}
					}
				}
			}
			if n, mi, mj, m2i, m2j, c, ok := want.PairMoments(i, j); ok {
				gn, gmi, gmj, gm2i, gm2j, gc, _ := got.PairMoments(gi, gk)
				if gn != n || !close(gmi, mi) || !close(gmj, mj) || !close(gm2i, m2i) || !close(gm2j, m2j) || !close(gc, c) {
					t.Fatalf("pair moments of %q, %q differ", want.Var(i).Name, want.Var(j).Name)
				}
			}
		}
	}
}

// TestStatsFileShards: statistics of two shards of a CSV, written to .lts
// files and merged, equal those of the whole file; learning from them
// gives the tree learned from the data.
func TestStatsFileShards(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name string
		sim  []string
		tol  float64
	}{
		{"discrete", []string{"--model", "symmetric", "--states", "3"}, 0},
		{"gaussian", []string{"--model", "gaussian"}, 1e-12},
	} {
		whole := p(tc.name + ".csv")
		mustRun(t, append([]string{"simulate", "--topology", "double-star", "--leaves", "4", "-n", "1000", "--seed", "3", "--out", whole}, tc.sim...)...)
		a, b := p(tc.name+"-a.csv"), p(tc.name+"-b.csv")
		splitCSV(t, whole, a, 0, 400)
		splitCSV(t, whole, b, 400, 1000)
		out := mustRun(t, "stats", a, "--out", p(tc.name+"-a.lts"))
		if !strings.Contains(out, "400 rows, 8 variables") {
			t.Errorf("%s: stats summary %q", tc.name, out)
		}
		mustRun(t, "stats", b, "--out", p(tc.name+"-b.lts"))
		out = mustRun(t, "stats", "merge", p(tc.name+"-a.lts"), p(tc.name+"-b.lts"), "--out", p(tc.name+"-all.lts"))
		if !strings.Contains(out, "(2 files merged): 1000 rows, 8 variables") {
			t.Errorf("%s: merge summary %q", tc.name, out)
		}
		mustRun(t, "stats", whole, "--out", p(tc.name+"-whole.lts"))
		// Several inputs at once merge the same way.
		mustRun(t, "stats", a, b, "--out", p(tc.name+"-both.lts"))
		merged, want := readLTS(t, p(tc.name+"-all.lts")), readLTS(t, p(tc.name+"-whole.lts"))
		equalStats(t, merged, want, tc.tol)
		equalStats(t, readLTS(t, p(tc.name+"-both.lts")), want, tc.tol)
		mb, _ := os.ReadFile(p(tc.name + "-all.lts"))
		wb, _ := os.ReadFile(p(tc.name + "-whole.lts"))
		if tc.tol == 0 && !bytes.Equal(mb, wb) {
			t.Errorf("%s: merged file differs from the whole file's", tc.name)
		}
		// The summary of merged statistics equals that of the data.
		if got, want := mustRun(t, "stats", p(tc.name+"-all.lts")), mustRun(t, "stats", whole); strings.Replace(got, p(tc.name+"-all.lts"), whole, 1) != want && tc.tol == 0 {
			t.Errorf("%s: summaries differ:\n%s\n%s", tc.name, got, want)
		}
		// learn --stats gives the tree learned from the data.
		for _, m := range []string{"clnj", "clrg", "nj", "rg", "clblind", "mst", "chowliu"} {
			src := p(tc.name + "-all.lts")
			if tc.tol != 0 {
				src = p(tc.name + "-whole.lts") // bit-identical moments
			}
			code, fromStats, errs := run(t, "", "learn", "--stats", src, "--method", m, "--newick", "-")
			if code != ExitOK {
				t.Fatalf("%s: learn --stats --method %s: exit %d: %s", tc.name, m, code, errs)
			}
			fromData := mustRun(t, "learn", whole, "--structure-only", "--method", m, "--newick", "-")
			if fromStats != fromData {
				t.Errorf("%s: --method %s: from statistics\n%s\nfrom data\n%s", tc.name, m, fromStats, fromData)
			}
			if !strings.Contains(errs, "tree over 8 observed variables") {
				t.Errorf("%s: learn summary %q", tc.name, errs)
			}
		}
	}
}

// TestStatsFileNewState: a state seen in the second shard only is added by
// the merge; the merged statistics equal those of the whole file.
func TestStatsFileNewState(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	var w strings.Builder
	w.WriteString("a,b,c\n")
	for r := range 60 {
		a, b := r%2, (r/2)%3
		if r >= 30 && r%5 == 0 {
			a = 2 // state 2 of a only in the second half
		}
		fmt.Fprintf(&w, "%d,%d,%d\n", a, b, (a+b+r/7)%2)
	}
	if err := os.WriteFile(p("d.csv"), []byte(w.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	splitCSV(t, p("d.csv"), p("a.csv"), 0, 30)
	splitCSV(t, p("d.csv"), p("b.csv"), 30, 60)
	mustRun(t, "stats", p("a.csv"), "--out", p("a.lts"))
	mustRun(t, "stats", p("b.csv"), "--out", p("b.lts"))
	mustRun(t, "stats", "merge", p("b.lts"), p("a.lts"), "--out", p("all.lts"))
	mustRun(t, "stats", p("d.csv"), "--out", p("whole.lts"))
	equalStats(t, readLTS(t, p("all.lts")), readLTS(t, p("whole.lts")), 0)
}

func TestStatsFileErrors(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	mustRun(t, "simulate", "--topology", "double-star", "--leaves", "3", "--model", "symmetric", "--states", "2", "-n", "200", "--seed", "4", "--out", p("d.csv"))
	mustRun(t, "stats", p("d.csv"), "--out", p("d.lts"))
	good, err := os.ReadFile(p("d.lts"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		if err := os.WriteFile(p(name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p(name)
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 4
	bad := map[string]struct {
		path, want string
	}{
		"truncated": {write("trunc.lts", good[:len(good)-7]), "truncated"},
		"bit flip":  {write("flip.lts", flipped), "checksum"},
		"not stats": {write("csv.lts", []byte("a,b\n1,2\n")), "not a latentree statistics file"},
	}
	for name, c := range bad {
		code, _, errs := run(t, "", "stats", "merge", p("d.lts"), c.path, "--out", p("out.lts"))
		if code != ExitFailure || !strings.Contains(errs, c.path) || !strings.Contains(errs, c.want) {
			t.Errorf("merge, %s: exit %d, %q", name, code, errs)
		}
		code, _, errs = run(t, "", "learn", "--stats", c.path)
		if code != ExitFailure || !strings.Contains(errs, c.path) || !strings.Contains(errs, c.want) {
			t.Errorf("learn --stats, %s: exit %d, %q", name, code, errs)
		}
	}
	if _, err := os.Stat(p("out.lts")); err == nil {
		t.Error("a failed merge wrote its output")
	}
	// A variable discrete in one shard and continuous in the other.
	var few, many strings.Builder
	few.WriteString("x,y\n")
	many.WriteString("x,y\n")
	for r := range 40 {
		fmt.Fprintf(&few, "%d,%d\n", r%2, r%3)
		fmt.Fprintf(&many, "%d.5,%d\n", r, r%3)
	}
	fa, fb := write("few.csv", []byte(few.String())), write("many.csv", []byte(many.String()))
	mustRun(t, "stats", fa, "--out", p("few.lts"))
	mustRun(t, "stats", fb, "--out", p("many.lts"))
	code, _, errs := run(t, "", "stats", "merge", p("few.lts"), p("many.lts"), "--out", p("out.lts"))
	if code != ExitFailure || !strings.Contains(errs, p("many.lts")) || !strings.Contains(errs, `"x" is continuous here but discrete in `+p("few.lts")) {
		t.Errorf("kind mismatch: exit %d, %q", code, errs)
	}
	// Data files given together are read as one dataset, typed from all
	// their rows: letters in the second make x discrete, as in one file.
	fl := write("letters.csv", []byte("x,y\na,1\nb,2\n"))
	code, out, errs := run(t, "", "stats", fb, fl, "--out", p("out.lts"))
	if code != ExitOK || !strings.Contains(out, "(2 discrete, 0 continuous)") {
		t.Errorf("data read together: exit %d, %q %q", code, out, errs)
	}
	// Read on their own (standard input is read in memory), data files
	// that disagree give the error with the flag that fixes it.
	code, _, errs = run(t, few.String(), "stats", "-", fb, "--out", p("out.lts"))
	if code != ExitFailure || !strings.Contains(errs, fb) || !strings.Contains(errs, "--discrete x") {
		t.Errorf("kind mismatch of data read in memory: exit %d, %q", code, errs)
	}
	// With the type fixed, they merge.
	mustRun(t, "stats", fa, fb, "--continuous", "x", "--out", p("out.lts"))
	// Different variables.
	write("other.csv", []byte("x,z\n1,2\n2,1\n1,1\n"))
	mustRun(t, "stats", p("other.csv"), "--out", p("other.lts"))
	code, _, errs = run(t, "", "stats", "merge", p("few.lts"), p("other.lts"), "--out", p("o2.lts"))
	if code != ExitFailure || !strings.Contains(errs, p("other.lts")) || !strings.Contains(errs, `"z"`) {
		t.Errorf("different variables: exit %d, %q", code, errs)
	}

	// Usage errors (exit 2), before any work.
	usage := []struct {
		args []string
		want string
	}{
		{[]string{"stats", "merge", p("d.lts")}, "needs --out"},
		{[]string{"stats", "merge", p("d.lts"), "--out", p("d.lts")}, "is also the input"},
		{[]string{"stats", p("d.csv"), "--out", p("d.csv")}, "is also the input"},
		{[]string{"learn", "--stats", p("d.lts"), "--method", "quartet"}, "--method quartet needs the data rows"},
		{[]string{"learn", "--stats", p("d.lts"), "--method", "regclnj"}, "--method regclnj needs the data rows"},
		{[]string{"learn", "--stats", p("d.lts"), "--method", "regclrg"}, "--method regclrg needs the data rows"},
		{[]string{"learn", "--stats", p("d.lts"), "--hidden-states", "3"}, "--hidden-states does not apply to --stats"},
		{[]string{"learn", "--stats", p("d.lts"), "--out", p("m.json")}, "--out does not apply to --stats"},
		{[]string{"learn", "--stats", p("d.lts"), "--report", p("r.html")}, "--report does not apply to --stats"},
		{[]string{"learn", "--stats", p("d.lts"), "--missing", "keep"}, "--missing does not apply to --stats"},
		{[]string{"learn", "--stats", p("d.lts"), "--samples", "10"}, "--samples applies to --distance-matrix only"},
		{[]string{"learn", "--stats", p("d.lts"), p("d.csv")}, "give one of"},
		{[]string{"learn", "--stats", p("d.lts"), "--newick", p("d.lts")}, "is also the input"},
	}
	for _, u := range usage {
		code, _, errs := run(t, "", u.args...)
		if code != ExitUsage || !strings.Contains(errs, u.want) {
			t.Errorf("%v: exit %d, %q (want usage error mentioning %q)", u.args, code, errs, u.want)
		}
	}
	// BIC from statistics needs continuous ones (the covariance).
	if code, _, errs := run(t, "", "learn", "--stats", p("d.lts"), "--contraction", "bic"); code != ExitFailure || !strings.Contains(errs, "all-continuous data without missing cells") {
		t.Errorf("learn --stats on discrete statistics with --contraction bic: exit %d, %q", code, errs)
	}
	// --out - writes the statistics to standard output, the summary to
	// standard error.
	code, out, errs = run(t, "", "stats", p("d.csv"), "--out", "-")
	if code != ExitOK || !stats.IsBinary([]byte(out)) || !strings.Contains(errs, "200 rows") {
		t.Errorf("--out -: exit %d, %d bytes, %q", code, len(out), errs)
	}
	if out != string(good) {
		t.Error("--out - differs from the file")
	}
}
