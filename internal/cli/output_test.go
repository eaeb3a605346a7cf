package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latentree/latentree/tree"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTempFiles fails if a temporary file of writeOutputs or checkPaths is
// left in dir.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") || strings.HasPrefix(e.Name(), ".latentree-check") {
			t.Errorf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}

func TestCheckPaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	in := filepath.Join(dir, "g.csv")
	writeFile(t, in, "a\n1\n")
	if err := os.Link(in, filepath.Join(dir, "hard.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(in, filepath.Join(dir, "link.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := &env{}
	data := func(p string) []pathFlag { return []pathFlag{{"DATA", p}} }
	for _, c := range []struct {
		name    string
		in, out []pathFlag
		want    string // "" for no error
	}{
		{"distinct", data(in), []pathFlag{{"--out", "m.json"}, {"--newick", "sub/t.nwk"}, {"--dot", ""}}, ""},
		{"stdin and stdout", data("-"), []pathFlag{{"--out", "-"}}, ""},
		{"a device is not checked", data(in), []pathFlag{{"--out", "m.json"}, {"--newick", os.DevNull}}, ""},
		{"output is the input", data(in), []pathFlag{{"--out", in}},
			"--out " + in + " is also the input DATA"},
		{"relative and absolute", data(in), []pathFlag{{"--out", "./sub/../g.csv"}},
			"--out ./sub/../g.csv is also the input DATA"},
		{"hard link", data(in), []pathFlag{{"--out", "hard.csv"}}, "--out hard.csv is also the input DATA"},
		{"symbolic link", data("link.csv"), []pathFlag{{"--newick", "g.csv"}}, "--newick g.csv is also the input DATA"},
		{"two outputs", data(in), []pathFlag{{"--out", "x.json"}, {"--newick", "t.nwk"}, {"--dot", "x.json"}},
			"--out and --dot both write x.json"},
		{"two standard outputs", data(in), []pathFlag{{"--out", "-"}, {"--newick", "-"}},
			`--out and --newick both use standard output ("-")`},
		{"three standard outputs", data(in), []pathFlag{{"--out", "-"}, {"--newick", "-"}, {"--dot", "-"}},
			`--out, --newick and --dot all use standard output ("-")`},
		{"two standard inputs", []pathFlag{{"A", "-"}, {"B", "-"}}, nil, `A and B both use standard input ("-")`},
		{"missing directory", data(in), []pathFlag{{"--out", "m.json"}, {"--newick", "nodir/t.nwk"}},
			"--newick nodir/t.nwk: directory " + filepath.Join(dir, "nodir") + " does not exist"},
		{"directory is a file", data(in), []pathFlag{{"--newick", "g.csv/t.nwk"}}, "is not a directory"},
		{"output is a directory", data(in), []pathFlag{{"--out", "sub"}}, "--out sub is a directory"},
	} {
		err := e.checkPaths(c.in, c.out)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		case c.want != "" && !errors.As(err, new(usageError)):
			t.Errorf("%s: %v is not a usage error", c.name, err)
		}
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		if err := e.checkPaths(nil, []pathFlag{{"--out", filepath.Join(ro, "m.json")}}); err == nil || !strings.Contains(err.Error(), "cannot create files") {
			t.Errorf("read-only directory: %v", err)
		}
	}
	noTempFiles(t, dir)
}

func TestWriteOutputsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"), filepath.Join(dir, "c.txt")
	writeFile(t, a, "good a\n")
	writeFile(t, c, "good c\n")
	if err := os.Chmod(a, 0o600); err != nil {
		t.Fatal(err)
	}
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	boom := errors.New("boom")
	failing := func(w io.Writer) error {
		io.WriteString(w, "half of c")
		return boom
	}
	var stdout bytes.Buffer
	e := &env{stdout: &stdout}
	// The third output fails after writing part of its file: nothing changes.
	err := e.writeOutputs([]output{{a, text("new a\n")}, {b, text("new b\n")}, {"-", text("to stdout\n")}, {c, failing}})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v", err)
	}
	if readFile(t, a) != "good a\n" || readFile(t, c) != "good c\n" || stdout.Len() != 0 {
		t.Errorf("a %q, c %q, stdout %q after a failure", readFile(t, a), readFile(t, c), stdout.String())
	}
	if _, err := os.Stat(b); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("b was created: %v", err)
	}
	noTempFiles(t, dir)
	// A failing standard output keeps the files too.
	err = e.writeOutputs([]output{{a, text("new a\n")}, {"-", failing}})
	if !errors.Is(err, boom) || readFile(t, a) != "good a\n" {
		t.Errorf("stdout failure: %v, a %q", err, readFile(t, a))
	}
	noTempFiles(t, dir)
	// Success replaces every file, keeps a's permissions, and follows a
	// symbolic link that checkPaths saw instead of replacing it.
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(c, link); err != nil {
		t.Fatal(err)
	}
	if err := e.checkPaths(nil, []pathFlag{{"--a", a}, {"--b", b}, {"--link", link}}); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if err := e.writeOutputs([]output{{a, text("new a\n")}, {b, text("new b\n")}, {"", text("skipped")}, {"-", text("out\n")}, {link, text("new c\n")}}); err != nil {
		t.Fatal(err)
	}
	if readFile(t, a) != "new a\n" || readFile(t, b) != "new b\n" || readFile(t, c) != "new c\n" || stdout.String() != "out\n" {
		t.Errorf("after success: %q %q %q %q", readFile(t, a), readFile(t, b), readFile(t, c), stdout.String())
	}
	if info, err := os.Stat(a); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("a's mode: %v %v", info.Mode(), err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	noTempFiles(t, dir)
	// A device is written in place, not replaced.
	if err := e.writeTo(os.DevNull, text("gone")); err != nil {
		t.Errorf("writing %s: %v", os.DevNull, err)
	}
	if info, err := os.Stat(os.DevNull); err != nil || info.Mode().IsRegular() {
		t.Fatalf("%s is now a regular file!", os.DevNull)
	}
}

func TestSimulateOutputConflicts(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	sim := []string{"simulate", "--topology", "star", "--leaves", "4", "-n", "20", "--seed", "2"}
	// The same file for two outputs: nothing is written.
	code, _, errs := run(t, "", append(sim, "--out", f, "--newick", f)...)
	if code != ExitUsage || !strings.Contains(errs, "--out and --newick both write") {
		t.Errorf("--out f --newick f: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("f written: %v", err)
	}
	// Newick and CSV both on standard output.
	code, out, errs := run(t, "", append(sim, "--newick", "-")...)
	if code != ExitUsage || out != "" || !strings.Contains(errs, `the data (no --out) and --newick both use standard output`) {
		t.Errorf("--newick - without --out: exit %d, stdout %q, %s", code, out, errs)
	}
	// With --out, --newick - has standard output to itself; --json goes
	// to standard error.
	csv := filepath.Join(dir, "d.csv")
	code, out, errs = run(t, "", append(sim, "--out", csv, "--newick", "-", "--json")...)
	if code != ExitOK {
		t.Fatalf("--out --newick -: exit %d, %s", code, errs)
	}
	if _, err := tree.ParseNewick(out, tree.NewickOptions{}); err != nil || strings.Count(out, "\n") != 1 {
		t.Errorf("stdout is not one Newick tree: %v %q", err, out)
	}
	if !strings.Contains(errs, `"observed": 4`) {
		t.Errorf("JSON summary missing from stderr: %q", errs)
	}
	if lines := strings.Count(readFile(t, csv), "\n"); lines != 21 {
		t.Errorf("CSV has %d lines", lines)
	}
	// A bad --newick directory is found before anything is written, and a
	// good existing file is kept.
	writeFile(t, csv, "precious\n")
	code, _, errs = run(t, "", append(sim, "--out", csv, "--newick", filepath.Join(dir, "nodir", "t.nwk"))...)
	if code != ExitUsage || !strings.Contains(errs, "--newick") || !strings.Contains(errs, "does not exist") {
		t.Errorf("bad --newick directory: exit %d, %s", code, errs)
	}
	if readFile(t, csv) != "precious\n" {
		t.Error("--out was overwritten although --newick could not be written")
	}
	noTempFiles(t, dir)
}

func TestLearnDoesNotOverwriteItsInput(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g.csv")
	if code, _, errs := run(t, "", "simulate", "--topology", "star", "--leaves", "5", "--model", "symmetric", "-n", "300", "--seed", "4", "--out", g); code != ExitOK {
		t.Fatal(errs)
	}
	before := readFile(t, g)
	code, _, errs := run(t, "", "learn", g, "--out", g)
	if code != ExitUsage || !strings.Contains(errs, "--out") {
		t.Errorf("learn g.csv --out g.csv: exit %d, %s", code, errs)
	}
	if readFile(t, g) != before {
		t.Fatal("learn replaced its input")
	}
	// A bad --newick path is found before EM, so --out is not written.
	m := filepath.Join(dir, "m.json")
	code, _, errs = run(t, "", "learn", g, "--out", m, "--newick", filepath.Join(dir, "nodir", "t.nwk"))
	if code != ExitUsage || !strings.Contains(errs, "--newick") {
		t.Errorf("bad --newick: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(m); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--out written although --newick is bad: %v", err)
	}
}

func TestExperimentOutputChecks(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "d.csv")
	writeFile(t, train, "a,b\n0,1\n1,0\n")
	// --out d makes d.csv, the training data.
	code, _, errs := run(t, "", "experiment", "newsgroups", "--train", train, "--test", train, "--out", filepath.Join(dir, "d"))
	if code != ExitUsage || !strings.Contains(errs, "--out (.csv)") || !strings.Contains(errs, "is also the input --train") {
		t.Errorf("newsgroups --out over --train: exit %d, %s", code, errs)
	}
	if readFile(t, train) != "a,b\n0,1\n1,0\n" {
		t.Error("training data overwritten")
	}
	code, _, errs = run(t, "", "experiment", "quartet-recovery", "--out", "-")
	if code != ExitUsage || !strings.Contains(errs, "path prefix") {
		t.Errorf("quartet-recovery --out -: exit %d, %s", code, errs)
	}
	code, _, errs = run(t, "", "experiment", "structure-recovery", "--out", filepath.Join(train, "x"))
	if code != ExitUsage {
		t.Errorf("structure-recovery --out under a file: exit %d, %s", code, errs)
	}
	if code, _, errs := run(t, "a;", "compare", "-", "-"); code != ExitUsage || !strings.Contains(errs, "standard input") {
		t.Errorf("compare - -: exit %d, %s", code, errs)
	}
}
