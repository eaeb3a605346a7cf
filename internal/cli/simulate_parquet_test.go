package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSimulateParquet: simulate --out x.parquet writes a Parquet file
// whose statistics, and the tree learned from it, equal those of the same
// simulation written as CSV.
func TestSimulateParquet(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name string
		sim  []string
	}{
		{"symmetric", []string{"--model", "symmetric", "--states", "3"}},
		{"general", []string{"--model", "general", "--observed-states", "4", "--hidden-states", "2..3"}},
		{"gaussian", []string{"--model", "gaussian"}},
	} {
		csv, pq := p(tc.name+".csv"), p(tc.name+".PARQUET") // any case
		args := append([]string{"simulate", "--topology", "double-star", "--leaves", "4", "-n", "1500", "--seed", "5"}, tc.sim...)
		mustRun(t, append(args, "--out", csv)...)
		out := mustRun(t, append(args, "--out", pq)...)
		if !strings.Contains(out, "1500 rows") {
			t.Errorf("%s: summary %q", tc.name, out)
		}
		b, err := os.ReadFile(pq)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("PAR1")) || !bytes.HasSuffix(b, []byte("PAR1")) {
			t.Fatalf("%s: not a Parquet file", tc.name)
		}
		summary := func(js string) map[string]any {
			var m map[string]any
			if err := json.Unmarshal([]byte(js), &m); err != nil {
				t.Fatalf("%s: %v: %s", tc.name, err, js)
			}
			delete(m, "file")
			return m
		}
		sp := summary(mustRun(t, "stats", pq, "--out", p(tc.name+"-pq.lts"), "--json"))
		sc := summary(mustRun(t, "stats", csv, "--out", p(tc.name+"-csv.lts"), "--json"))
		if sp["rows"] != 1500.0 || sp["variables"] != 8.0 || !reflect.DeepEqual(sp, sc) {
			t.Errorf("%s: stats --json of the Parquet file\n%v\nof the CSV file\n%v", tc.name, sp, sc)
		}
		// The same cells: the same statistics, bit for bit.
		equalStats(t, readLTS(t, p(tc.name+"-pq.lts")), readLTS(t, p(tc.name+"-csv.lts")), 0)
		a, _ := os.ReadFile(p(tc.name + "-pq.lts"))
		c, _ := os.ReadFile(p(tc.name + "-csv.lts"))
		if !bytes.Equal(a, c) {
			t.Errorf("%s: statistics files differ", tc.name)
		}
		fromPQ := mustRun(t, "learn", pq, "--structure-only", "--newick", "-")
		fromCSV := mustRun(t, "learn", csv, "--structure-only", "--newick", "-")
		if fromPQ != fromCSV {
			t.Errorf("%s: learned from Parquet\n%s\nfrom CSV\n%s", tc.name, fromPQ, fromCSV)
		}
	}
	// Without rows (-n 0) nothing is written to --out.
	mustRun(t, "simulate", "--topology", "star", "--leaves", "3", "-n", "0", "--out", p("none.parquet"), "--newick", p("none.nwk"))
	if _, err := os.Stat(p("none.parquet")); err == nil {
		t.Error("-n 0 wrote a Parquet file")
	}
}
