package cli

import (
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLearnShards: learn on shards (a directory with a gzip shard, a list
// of files, and --stream) finds the tree and log-likelihood of learn on
// the whole file read into memory. 8 leaves and 1,200 rows (12 and 3,000
// before, four times the CPU): equality with the in-memory run is what is
// checked, at any size, and the in-memory tree keeps hidden nodes
// (checked), so that contraction and EM on blocks are exercised.
func TestLearnShards(t *testing.T) {
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	whole := p("whole.csv")
	mustRun(t, "simulate", "--topology", "binary", "--leaves", "8", "--model", "symmetric", "-n", "1200", "--seed", "5", "--out", whole)
	if err := os.Mkdir(p("shards"), 0o755); err != nil {
		t.Fatal(err)
	}
	splitCSV(t, whole, p("shards/a.csv"), 0, 400)
	splitCSV(t, whole, p("b.csv"), 400, 800)
	splitCSV(t, whole, p("shards/c.csv"), 800, 1200)
	// b.csv goes into the directory gzip-compressed.
	gzipFile(t, p("b.csv"), p("shards/b.csv.gz"))

	type summary struct {
		Rows   int `json:"rows"`
		Hidden int `json:"hidden"`
		Score  struct {
			LogLik float64 `json:"loglik"`
		} `json:"score"`
	}
	// learnJSON runs learn, writing the tree to name.nwk.
	learnJSON := func(name string, args ...string) summary {
		t.Helper()
		var s summary
		out := mustRun(t, append([]string{"learn", "--json", "--newick", p(name + ".nwk")}, args...)...)
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return s
	}
	for _, rule := range []string{"threshold", "auto"} {
		want := learnJSON("memory", whole, "--contraction", rule)
		if want.Hidden == 0 {
			t.Errorf("%s: the in-memory tree has no hidden node", rule)
		}
		cases := [][]string{{p("shards"), "--contraction", rule}, {p("shards/a.csv"), p("b.csv"), p("shards/c.csv"), "--contraction", rule}}
		if rule == "threshold" {
			cases = append(cases, []string{p("shards"), "--stream", "--contraction", rule})
		}
		for _, args := range cases {
			got := learnJSON("blocks", args...)
			if got.Rows != 1200 || got.Hidden != want.Hidden || math.Abs(got.Score.LogLik-want.Score.LogLik) > 1e-6*math.Abs(want.Score.LogLik) {
				t.Errorf("%s %v: %+v, in memory %+v", rule, args, got, want)
			}
			var cmp struct {
				RF int `json:"rf"`
			}
			out := mustRun(t, "compare", "--json", p("memory.nwk"), p("blocks.nwk"))
			if err := json.Unmarshal([]byte(out), &cmp); err != nil || cmp.RF != 0 {
				t.Errorf("%s %v: tree differs from the in-memory one (%v):\n%s", rule, args, err, out)
			}
		}
	}
	for _, args := range [][]string{
		{"learn", "-", "--stream"},
		{"learn", p("shards"), "--drop-constant"},
		{"learn", "-", whole},
	} {
		if code, _, errs := run(t, "", args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, ExitUsage, errs)
		}
	}
}

// TestStatsSummaryParquet: the summary of one Parquet (or gzip) file
// without --out reads it in blocks (the in-memory reader is CSV only).
func TestStatsSummaryParquet(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "s.parquet")
	mustRun(t, "simulate", "--topology", "binary", "--leaves", "6", "--model", "symmetric", "-n", "700", "--seed", "2", "--out", pq)
	out := mustRun(t, "stats", pq)
	if !strings.Contains(out, "700 rows, 6 variables") {
		t.Errorf("stats %s:\n%s", pq, out)
	}
	if out := mustRun(t, "learn", pq, "--contraction", "threshold"); !strings.Contains(out, "clnj tree over 6 observed") {
		t.Errorf("learn %s:\n%s", pq, out)
	}
}

// TestCommandsReadParquet: fit, score and infer read a Parquet file (and a
// gzip file) as they read the same rows from CSV.
func TestCommandsReadParquet(t *testing.T) {
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	sim := []string{"simulate", "--topology", "binary", "--leaves", "8", "--model", "symmetric", "-n", "1500", "--seed", "9", "--newick", p("t.nwk")}
	mustRun(t, append(sim, "--out", p("d.csv"))...)
	mustRun(t, append(sim, "--out", p("d.parquet"))...)
	gzipFile(t, p("d.csv"), p("d.csv.gz"))
	mustRun(t, "fit", p("t.nwk"), p("d.csv"), "--out", p("m.json"))
	for _, cmd := range [][]string{
		{"fit", p("t.nwk"), "DATA", "--json"},
		{"score", p("m.json"), "DATA", "--json"},
		{"infer", p("m.json"), "DATA"},
	} {
		run := func(data string) string {
			args := append([]string(nil), cmd...)
			args[2] = data
			out := mustRun(t, args...)
			return strings.ReplaceAll(out, data, "DATA")
		}
		want := run(p("d.csv"))
		for _, other := range []string{p("d.parquet"), p("d.csv.gz")} {
			if got := run(other); stripTimes(got) != stripTimes(want) {
				t.Errorf("%s on %s differs from CSV:\n%s\nCSV:\n%s", cmd[0], other, head(got), head(want))
			}
		}
	}
}

// gzipFile writes src gzip-compressed to dst.
func gzipFile(t *testing.T, src, dst string) {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	if _, err := zw.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// stripTimes drops the lines and JSON fields that hold timings.
func stripTimes(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "seconds") || strings.Contains(l, "time") {
			continue
		}
		// Durations inside other lines ("EM ... on 800 rows, 0.01s")
		// depend on the machine's load.
		keep = append(keep, durationRE.ReplaceAllString(l, "<T>"))
	}
	return strings.Join(keep, "\n")
}

var durationRE = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s|m|h)\b`)

func head(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}
