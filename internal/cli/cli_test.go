package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestExitCodes(t *testing.T) {
	if code, _, _ := run(t, "", "--help"); code != ExitOK {
		t.Errorf("--help: exit %d", code)
	}
	if code, _, errs := run(t, "", "simulate", "--no-such-flag"); code != ExitUsage || !strings.Contains(errs, "unknown flag") {
		t.Errorf("bad flag: exit %d, %q", code, errs)
	}
	if code, _, _ := run(t, "", "nosuchcommand"); code != ExitUsage {
		t.Errorf("unknown command: exit %d", code)
	}
	if code, _, _ := run(t, "", "simulate", "--topology", "pentagon"); code != ExitUsage {
		t.Errorf("bad topology: exit %d", code)
	}
	if code, _, errs := run(t, "", "stats", filepath.Join(t.TempDir(), "missing.csv")); code != ExitFailure || !strings.Contains(errs, "missing.csv") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
	if code, _, _ := run(t, "", "compare", "only-one.nwk"); code != ExitUsage {
		t.Errorf("compare with one argument: exit %d", code)
	}
}

func TestEveryCommandHasExample(t *testing.T) {
	root := newRoot(&env{})
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if c.Example == "" {
			t.Errorf("command %s has no example", c.Name())
		}
	}
}

func TestSimulateCompareStats(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "d.csv")
	nwk := filepath.Join(dir, "t.nwk")
	js := filepath.Join(dir, "t.json")
	dist := filepath.Join(dir, "dist.csv")
	code, out, errs := run(t, "", "simulate", "--topology", "double-star", "--leaves", "4", "--model", "symmetric",
		"--states", "3", "-n", "300", "--seed", "5", "--out", csvPath, "--newick", nwk, "--tree-json", js, "--distances", dist)
	if code != ExitOK {
		t.Fatalf("simulate: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "8 observed, 2 hidden") {
		t.Errorf("simulate summary: %q", out)
	}
	b, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 301 || lines[0] != "x1,x2,x3,x4,x5,x6,x7,x8" {
		t.Errorf("CSV has %d lines, header %q", len(lines), lines[0])
	}
	// Same seed, same data.
	_, out2, _ := run(t, "", "simulate", "--topology", "double-star", "--leaves", "4", "--model", "symmetric",
		"--states", "3", "-n", "300", "--seed", "5")
	if out2 != string(b) {
		t.Error("simulate is not reproducible with the same seed")
	}
	// The tree files describe the same tree.
	code, out, errs = run(t, "", "compare", "--json", nwk, js)
	if code != ExitOK {
		t.Fatalf("compare: exit %d: %s", code, errs)
	}
	var cmp struct {
		RF   int  `json:"rf"`
		Same bool `json:"same_topology"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil || cmp.RF != 0 || !cmp.Same {
		t.Errorf("compare: %v %+v %s", err, cmp, out)
	}
	// A different tree from stdin.
	code, out, _ = run(t, "((x1,x5),(x2,x6),(x3,x7),(x4,x8));", "compare", nwk, "-")
	if code != ExitOK || !strings.Contains(out, "Robinson–Foulds distance: ") || strings.Contains(out, "distance: 0 ") {
		t.Errorf("compare with stdin: exit %d: %s", code, out)
	}
	// Stats sees 8 discrete variables with 3 states.
	code, out, errs = run(t, "", "stats", "--json", csvPath)
	if code != ExitOK {
		t.Fatalf("stats: exit %d: %s", code, errs)
	}
	var st struct {
		Rows     int `json:"rows"`
		Discrete int `json:"discrete"`
		Columns  []struct {
			States []string `json:"states"`
		} `json:"columns"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Rows != 300 || st.Discrete != 8 || len(st.Columns[0].States) != 3 {
		t.Errorf("stats: %v %+v", err, st)
	}
	// The distance file is a valid 8×8 matrix.
	b, _ = os.ReadFile(dist)
	if n := len(strings.Split(strings.TrimSpace(string(b)), "\n")); n != 9 {
		t.Errorf("distance file has %d lines", n)
	}
}

func TestStatsBadInput(t *testing.T) {
	code, _, errs := run(t, "a,b\n1,2\n3\n", "stats", "-")
	if code != ExitFailure || !strings.Contains(errs, "3") {
		t.Errorf("ragged row: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, "a,b\n1,\n3,4\n", "stats", "-")
	if code != ExitFailure || !strings.Contains(errs, `"b"`) {
		t.Errorf("missing cell: exit %d, %q", code, errs)
	}
	code, out, _ := run(t, "a,b\n1,\n3,4\n4,5\n", "stats", "--missing", "drop-rows", "-")
	if code != ExitOK || !strings.Contains(out, "2 rows") {
		t.Errorf("drop-rows: exit %d, %q", code, out)
	}
	if code, _, _ := run(t, "a\n1\n", "stats", "--missing", "sometimes", "-"); code != ExitUsage {
		t.Errorf("bad --missing: exit %d", code)
	}
}

// Main builds a command named by the first argument alone (commands): each
// is the command of that name, and its help reads as with every command
// built.
func TestCommandsAlone(t *testing.T) {
	for name, mk := range commands {
		if got := mk(&env{}).Name(); got != name {
			t.Errorf("commands[%q] makes %q", name, got)
		}
		var alone, all strings.Builder
		if code := Main([]string{name, "--help"}, strings.NewReader(""), &alone, io.Discard); code != ExitOK {
			t.Errorf("%s --help alone: exit %d", name, code)
		}
		root := newRoot(&env{stdin: strings.NewReader(""), stdout: &all, stderr: io.Discard})
		root.SetArgs([]string{name, "--help"})
		root.SetOut(&all)
		if err := root.Execute(); err != nil {
			t.Fatal(err)
		}
		if alone.String() != all.String() || alone.Len() == 0 {
			t.Errorf("%s --help alone differs from %s --help among every command:\n%s\n---\n%s", name, name, alone.String(), all.String())
		}
	}
}
