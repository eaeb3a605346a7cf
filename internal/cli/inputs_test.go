package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latentree/latentree/internal/experiment"
	"github.com/latentree/latentree/tree"
)

// modelFile writes a latentree model document of the given type around
// the tree of a Newick string.
func modelFile(t *testing.T, path, typ, newick string) {
	t.Helper()
	tr, err := tree.ParseNewick(newick, tree.NewickOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tj, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := json.Marshal(map[string]any{"format": "latentree-model", "version": 1, "type": typ, "root": "h1",
		"tree": json.RawMessage(tj), "nodes": []any{}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(doc))
}

func TestReadTreeFromModelFile(t *testing.T) {
	dir := t.TempDir()
	nwk := filepath.Join(dir, "t.nwk")
	writeFile(t, nwk, "((x1,x2)h1,(x3,x4)h2);\n")
	for _, typ := range []string{"discrete", "gaussian"} {
		m := filepath.Join(dir, typ+".json")
		modelFile(t, m, typ, "((x1,x2)h1,(x3,x4)h2);")
		code, out, errs := run(t, "", "compare", "--json", nwk, m)
		if code != ExitOK || !strings.Contains(out, `"rf": 0`) {
			t.Errorf("compare with a %s model file: exit %d, %s %s", typ, code, out, errs)
		}
		other := filepath.Join(dir, typ+"2.json")
		modelFile(t, other, typ, "((x1,x3)h1,(x2,x4)h2);")
		if code, out, _ := run(t, "", "compare", "--json", nwk, other); code != ExitOK || !strings.Contains(out, `"rf": 2`) {
			t.Errorf("compare with a different %s model: %s", typ, out)
		}
	}
	bad := filepath.Join(dir, "bad.json")
	writeFile(t, bad, `{"format":"latentree-model","version":1,"type":"discrete"}`)
	if code, _, errs := run(t, "", "compare", nwk, bad); code != ExitFailure || !strings.Contains(errs, "bad.json: latentree model file without a tree") {
		t.Errorf("model without a tree: exit %d, %s", code, errs)
	}
}

// The model that learn --out writes is a tree for compare and fit.
func TestLearnModelIsATree(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "d.csv")
	if code, _, errs := run(t, "", "simulate", "--topology", "double-star", "--leaves", "3", "--model", "symmetric", "-n", "2000", "--seed", "6", "--out", d); code != ExitOK {
		t.Fatal(errs)
	}
	m, nwk := filepath.Join(dir, "m.json"), filepath.Join(dir, "t.nwk")
	if code, _, errs := run(t, "", "learn", d, "--out", m, "--newick", nwk); code != ExitOK {
		t.Fatalf("learn: exit %d, %s", code, errs)
	}
	if code, out, errs := run(t, "", "compare", "--json", nwk, m); code != ExitOK || !strings.Contains(out, `"rf": 0`) {
		t.Errorf("compare learned tree with learned model: exit %d, %s %s", code, out, errs)
	}
	if code, _, errs := run(t, "", "fit", m, d, "--out", filepath.Join(dir, "m2.json")); code != ExitOK {
		t.Errorf("fit with a model file as the tree: exit %d, %s", code, errs)
	}
}

type statsJSON struct {
	Rows    int `json:"rows"`
	Columns []struct {
		Name   string   `json:"name"`
		States []string `json:"states"`
	} `json:"columns"`
	Report struct {
		Skipped        []string
		Delimiter      rune
		ColumnsDropped []struct{ Name, Reason string }
	} `json:"report"`
}

func runStats(t *testing.T, stdin string, args ...string) (int, statsJSON, string) {
	t.Helper()
	code, out, errs := run(t, stdin, append([]string{"stats", "--json"}, args...)...)
	var s statsJSON
	if code == ExitOK {
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	return code, s, errs
}

func (s statsJSON) names() []string {
	var n []string
	for _, c := range s.Columns {
		n = append(n, c.Name)
	}
	return n
}

func TestColumnsIgnoreFlags(t *testing.T) {
	in := "id,b,a,note\nr1,1,x,free text\nr2,0,y,\nr3,1,x,more\n"
	code, s, errs := runStats(t, in, "--ignore", "id,note", "-")
	if code != ExitOK || !slices.Equal(s.names(), []string{"b", "a"}) || !slices.Equal(s.Report.Skipped, []string{"id", "note"}) {
		t.Errorf("--ignore: exit %d, %v %+v %s", code, s.names(), s.Report, errs)
	}
	code, s, errs = runStats(t, in, "--columns", "a,b", "-")
	if code != ExitOK || !slices.Equal(s.names(), []string{"a", "b"}) {
		t.Errorf("--columns: exit %d, %v %s", code, s.names(), errs)
	}
	code, _, errs = runStats(t, in, "--columns", "a,B", "-")
	if code != ExitFailure || !strings.Contains(errs, `selected columns are not in the header: "B" (the header has 4 columns: "id", "b", "a", "note")`) {
		t.Errorf("unknown --columns: exit %d, %s", code, errs)
	}
	code, _, errs = runStats(t, in, "--ignore", "ID", "-")
	if code != ExitFailure || !strings.Contains(errs, `columns to ignore are not in the header: "ID"`) {
		t.Errorf("unknown --ignore: exit %d, %s", code, errs)
	}
}

func TestDelimiterFlag(t *testing.T) {
	dir := t.TempDir()
	tsv := filepath.Join(dir, "d.tsv")
	writeFile(t, tsv, "a b\tc\n1\t2\n2\t1\n")
	if code, s, errs := runStats(t, "", tsv); code != ExitOK || !slices.Equal(s.names(), []string{"a b", "c"}) || s.Report.Delimiter != '\t' {
		t.Errorf(".tsv: exit %d, %v %s", code, s.names(), errs)
	}
	// A tab-separated header on standard input is detected too.
	if code, s, _ := runStats(t, "a\tc\n1\t2\n2\t1\n", "-"); code != ExitOK || !slices.Equal(s.names(), []string{"a", "c"}) {
		t.Errorf("tab on stdin: %v", s.names())
	}
	for _, c := range []struct {
		flag, in string
		want     []string
	}{
		{";", "a;b\n1;2\n2;1\n", []string{"a", "b"}},
		{"tab", "a\tb\n1\t2\n2\t1\n", []string{"a", "b"}},
		{`\t`, "a\tb\n1\t2\n2\t1\n", []string{"a", "b"}},
		{"comma", "a\tb,c\n1\t2,3\n2\t1,4\n", []string{"a\tb", "c"}},
		{"|", "a|b\n1|2\n2|1\n", []string{"a", "b"}},
	} {
		if code, s, errs := runStats(t, c.in, "--delimiter", c.flag, "-"); code != ExitOK || !slices.Equal(s.names(), c.want) {
			t.Errorf("--delimiter %q: exit %d, %q %s", c.flag, code, s.names(), errs)
		}
	}
	for _, bad := range []string{"ab", `"`, "\n"} {
		if code, _, errs := runStats(t, "a\n1\n2\n", "--delimiter", bad, "-"); code != ExitUsage || !strings.Contains(errs, "--delimiter") {
			t.Errorf("--delimiter %q: exit %d, %s", bad, code, errs)
		}
	}
}

func TestKeepDropConstantDropsEmptyColumn(t *testing.T) {
	in := "a,empty,b\n1,,x\n0,NA,y\n1,,x\n"
	code, s, errs := runStats(t, in, "--missing", "keep", "--drop-constant", "-")
	if code != ExitOK || !slices.Equal(s.names(), []string{"a", "b"}) || len(s.Report.ColumnsDropped) != 1 || s.Report.ColumnsDropped[0].Name != "empty" {
		t.Errorf("exit %d, %v %+v %s", code, s.names(), s.Report, errs)
	}
	code, _, errs = runStats(t, in, "--missing", "keep", "-")
	if code != ExitFailure || !strings.Contains(errs, `column "empty": all 3 values are missing`) || !strings.Contains(errs, "--drop-constant") {
		t.Errorf("without --drop-constant: exit %d, %s", code, errs)
	}
}

func TestLongCellNotEchoed(t *testing.T) {
	big := strings.Repeat("Q", 5<<20)
	code, _, errs := run(t, "a,b\n1,"+big+"\n2,3\n", "stats", "--continuous", "b", "--max-field-bytes", "8MiB", "-")
	if code != ExitFailure || len(errs) > 500 || !strings.Contains(errs, fmt.Sprintf("(%d bytes)", len(big))) {
		t.Errorf("exit %d, %d bytes of error: %.300s", code, len(errs), errs)
	}
}

func TestFindDataFile(t *testing.T) {
	got := experiment.DataDirs("/env/dir", "/home/u/work/main", "/opt/bin/latentree")
	want := []string{"/env/dir",
		"/home/u/work/main/examples/newsgroups", "/home/u/work/main/shared/data",
		"/home/u/work/examples/newsgroups", "/home/u/work/shared/data",
		"/home/u/examples/newsgroups", "/home/u/shared/data",
		"/home/examples/newsgroups", "/home/shared/data",
		"/examples/newsgroups", "/shared/data",
		"/opt/bin/examples/newsgroups", "/opt/bin/shared/data", "/opt/examples/newsgroups", "/opt/shared/data"}
	if !slices.Equal(got, want) {
		t.Errorf("candidates\n got %q\nwant %q", got, want)
	}

	// From an unrelated directory, the experiment says how to pass the data.
	empty := t.TempDir()
	t.Chdir(empty)
	t.Setenv(dataEnvVar, "")
	code, _, errs := run(t, "", "experiment", "newsgroups", "--methods", "chowliu")
	if code != ExitUsage || !strings.Contains(errs, "cannot find newsgroups100-train.csv: pass it with --train PATH, or set LATENTREE_DATA") ||
		!strings.Contains(errs, filepath.Join(empty, "shared", "data")) {
		t.Errorf("no data: exit %d, %s", code, errs)
	}

	// With LATENTREE_DATA it finds both files.
	dataDir := t.TempDir()
	for i, part := range []string{"train", "test"} {
		p := filepath.Join(dataDir, "newsgroups100-"+part+".csv")
		if code, _, errs := run(t, "", "simulate", "--topology", "star", "--leaves", "5", "--model", "symmetric", "-n", "300",
			"--seed", fmt.Sprint(10+i), "--out", p); code != ExitOK {
			t.Fatal(errs)
		}
	}
	t.Setenv(dataEnvVar, dataDir)
	code, out, errs := run(t, "", "experiment", "newsgroups", "--methods", "chowliu")
	if code != ExitOK || !strings.Contains(out, "chowliu") {
		t.Errorf("LATENTREE_DATA: exit %d, %s %s", code, out, errs)
	}
	// And in shared/data of a parent of the working directory.
	t.Setenv(dataEnvVar, "")
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dataDir, filepath.Join(root, "shared", "data")); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	if code, out, errs := run(t, "", "experiment", "newsgroups", "--methods", "chowliu"); code != ExitOK || !strings.Contains(out, "chowliu") {
		t.Errorf("parent shared/data: exit %d, %s %s", code, out, errs)
	}
}
