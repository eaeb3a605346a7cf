package readmetest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// EnvVar turns on running the README's commands.
const EnvVar = "LATENTREE_README"

// root is the repository's root, relative to this package.
const root = "../.."

// block is one fenced block of the README.
type block struct {
	lang   string // the fence's language: "sh", "go", "" (plain), ...
	line   int    // line of the opening fence, from 1
	text   string
	skip   string // reason given by a readme-test: skip marker
	output *block // the plain block right after an sh block
}

var skipMarker = regexp.MustCompile(`^<!--\s*readme-test:\s*skip\s*(.*?)\s*-->$`)

// parse splits a Markdown text into its fenced blocks, pairing each sh
// block with the plain block that follows it after nothing but blank
// lines.
func parse(md string) ([]*block, error) {
	lines := strings.Split(md, "\n")
	var blocks []*block
	var cur *block
	var body []string
	lastText := ""    // last non-blank line outside a block
	var prevSh *block // the last sh block, while only blank lines follow it
	for i, l := range lines {
		trim := strings.TrimSpace(l)
		if cur != nil {
			if trim == "```" {
				cur.text = strings.Join(body, "\n")
				blocks = append(blocks, cur)
				if cur.lang == "sh" {
					prevSh = cur
				} else {
					prevSh = nil
				}
				cur, body = nil, nil
				lastText = ""
				continue
			}
			body = append(body, l)
			continue
		}
		if strings.HasPrefix(trim, "```") {
			cur = &block{lang: strings.TrimSpace(strings.TrimPrefix(trim, "```")), line: i + 1}
			if m := skipMarker.FindStringSubmatch(lastText); m != nil {
				cur.skip = m[1]
				if cur.skip == "" {
					return nil, fmt.Errorf("line %d: a readme-test skip marker must give its reason", i)
				}
			}
			if cur.lang == "" && prevSh != nil {
				prevSh.output = cur
			}
			prevSh = nil
			continue
		}
		if trim != "" {
			lastText = trim
			prevSh = nil
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: fence never closed", cur.line)
	}
	return blocks, nil
}

func readme(t *testing.T) []*block {
	t.Helper()
	blocks, _ := readmeText(t)
	return blocks
}

func readmeText(t *testing.T) ([]*block, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parse(string(b))
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	return blocks, string(b)
}

// update rewrites, with -update, the whole-output blocks (those without
// "...") that differ from what their commands printed.
var update = flag.Bool("update", false, "with LATENTREE_README=1: write the commands' output into README.md's output blocks that show the whole output and differ")

// outside matches a path that leaves the repository: a parent directory or
// the shared data of the project's machines.
var outside = regexp.MustCompile(`(^|[\s=:'"(])\.\./|shared/data|/work/`)

// TestParse checks the parser on a hand-made document.
func TestParse(t *testing.T) {
	md := "x\n```sh\na\nb\n```\n\n```\nout\n```\ntext\n```sh\nc\n```\nprose\n```\nnot output\n```\n" +
		"<!-- readme-test: skip runs elsewhere -->\n```sh\nd\n```\n```go\npackage main\n```\n"
	blocks, err := parse(md)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 6 {
		t.Fatalf("%d blocks, want 6", len(blocks))
	}
	if blocks[0].text != "a\nb" || blocks[0].output == nil || blocks[0].output.text != "out" {
		t.Errorf("first block %+v", blocks[0])
	}
	if blocks[2].output != nil {
		t.Errorf("prose between a command and a plain block: paired anyway")
	}
	if blocks[4].skip != "runs elsewhere" || blocks[4].text != "d" || blocks[1].skip != "" {
		t.Errorf("skip marker: %q %q", blocks[4].skip, blocks[1].skip)
	}
	if blocks[5].lang != "go" {
		t.Errorf("go block: %q", blocks[5].lang)
	}
	if _, err := parse("```sh\nopen\n"); err == nil {
		t.Error("unclosed fence accepted")
	}
}

// TestStatic checks, without running anything but bash -n and the Go
// compiler, that every command block is valid shell and stays inside the
// repository, and that every Go snippet is a complete program that
// compiles against the library.
func TestStatic(t *testing.T) {
	blocks := readme(t)
	nSh, nGo := 0, 0
	for _, b := range blocks {
		switch b.lang {
		case "sh":
			nSh++
			if m := outside.FindString(b.text); m != "" {
				t.Errorf("README.md:%d: the command block refers to %q, outside the repository", b.line, strings.TrimSpace(m))
			}
			if strings.Contains(b.text, "…") {
				t.Errorf("README.md:%d: the command block has a literal …", b.line)
			}
			if out, err := exec.Command("bash", "-n", "-c", b.text).CombinedOutput(); err != nil {
				t.Errorf("README.md:%d: not valid shell: %v\n%s", b.line, err, out)
			}
		case "go":
			nGo++
			compileSnippet(t, b)
		}
	}
	if nSh < 10 {
		t.Errorf("only %d command blocks found in README.md", nSh)
	}
	if nGo < 1 {
		t.Errorf("no Go snippet found in README.md")
	}
}

// compileSnippet builds a Go snippet as a main package inside the module
// (through an overlay, so nothing is written to the tree).
func compileSnippet(t *testing.T, b *block) {
	t.Helper()
	if !strings.HasPrefix(strings.TrimSpace(b.text), "package main") {
		t.Errorf("README.md:%d: the Go snippet is not a complete program (package main ...)", b.line)
		return
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(b.text), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(abs, "internal", "readmetest", fmt.Sprintf("snippet%d", b.line))
	ov, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(pkg, "main.go"): src}})
	ovPath := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	// The package's directory exists only in the overlay: build it by its
	// path from the module root.
	rel, err := filepath.Rel(abs, pkg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-overlay", ovPath, "-o", filepath.Join(dir, "snippet"), "./"+filepath.ToSlash(rel))
	cmd.Dir = abs
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("README.md:%d: the Go snippet does not compile: %v\n%s", b.line, err, out)
	}
}

// duration matches what depends on timing in the commands' output.
var duration = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s|m|h)\b|\b\d+h\d+m[\d.]+s\b|\b\d+m[\d.]+s\b`)

// normalize masks durations and trailing space.
func normalize(s string) string {
	return strings.TrimRight(duration.ReplaceAllString(s, "<T>"), " \t\r")
}

// matchOutput reports the expected lines (masked) that are not found, in
// order, among the actual ones. An output block that shows only part of
// the output says so with a line "..." (or "…") where lines are left out;
// without one, the output must be exactly the block (blank lines aside),
// and a line too many is reported as "(extra) LINE".
func matchOutput(expected, actual string) []string {
	var act []string
	for _, l := range strings.Split(actual, "\n") {
		act = append(act, normalize(l))
	}
	var missing []string
	exp := strings.Split(expected, "\n")
	partial := false
	for _, l := range exp {
		if e := normalize(l); e == "..." || e == "…" {
			partial = true
		}
	}
	if !partial {
		var a, e []string
		for _, l := range act {
			if strings.TrimSpace(l) != "" {
				a = append(a, l)
			}
		}
		for _, l := range exp {
			if n := normalize(l); strings.TrimSpace(n) != "" {
				e = append(e, n)
			}
		}
		for i := range max(len(a), len(e)) {
			switch {
			case i >= len(a):
				missing = append(missing, e[i])
			case i >= len(e):
				missing = append(missing, "(extra) "+a[i])
			case a[i] != e[i]:
				missing = append(missing, e[i])
			}
		}
		return missing
	}
	k := 0
	for _, l := range exp {
		e := normalize(l)
		if e == "" || e == "..." || e == "…" {
			continue
		}
		found := false
		for j := k; j < len(act); j++ {
			if act[j] == e {
				k, found = j+1, true
				break
			}
		}
		if !found {
			missing = append(missing, l)
		}
	}
	return missing
}

func TestMatchOutput(t *testing.T) {
	exp := "a 1.5s\n...\nc\n"
	if m := matchOutput(exp, "a 2.25s\nb\nc"); len(m) != 0 {
		t.Errorf("missing %q", m)
	}
	if m := matchOutput(exp, "c\na 2s"); len(m) != 1 || m[0] != "c" {
		t.Errorf("out of order: missing %q", m)
	}
	if m := matchOutput("x 12.412ms, y 1m3.5s", "x 3µs, y 2.1s"); len(m) != 0 {
		t.Errorf("durations not masked: %q", m)
	}
	if m := matchOutput("loglik -1.25", "loglik -1.26"); len(m) != 1 {
		t.Errorf("a changed number matched")
	}
	// Without "...", the block is the whole output.
	if m := matchOutput("a\nb\n", "a\nb\nc\n"); len(m) != 1 || m[0] != "(extra) c" {
		t.Errorf("output longer than its block: %q", m)
	}
	if m := matchOutput("a\n\nb\n", "a\nb\n\n"); len(m) != 0 {
		t.Errorf("blank lines: %q", m)
	}
}

// TestREADME runs every command block of the README in a copy of the
// repository's files, in order, and compares the output blocks.
func TestREADME(t *testing.T) {
	if os.Getenv(EnvVar) != "1" {
		t.Skipf("runs every README command (a few minutes): set %s=1", EnvVar)
	}
	blocks, text := readmeText(t)
	newOut := map[*block]string{}
	clone := filepath.Join(t.TempDir(), "latentree")
	copyRepo(t, clone)
	bin := filepath.Join(t.TempDir(), "bin")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, EnvVar+"=") { // no README test inside the README test
			env = append(env, kv)
		}
	}
	env = append(env, "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, b := range blocks {
		if b.lang != "sh" {
			continue
		}
		if b.skip != "" {
			t.Logf("README.md:%d: skipped (%s)", b.line, b.skip)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-e", "-c", b.text) // as a user types them: no pipefail, so that `| head` is fine
		cmd.Dir = clone
		cmd.Env = env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		cancel()
		t.Logf("README.md:%d: %.1fs", b.line, time.Since(start).Seconds())
		if err != nil {
			t.Fatalf("README.md:%d: %v\n%s\noutput:\n%s", b.line, err, b.text, out)
		}
		if b.output == nil {
			continue
		}
		if missing := matchOutput(b.output.text, string(out)); len(missing) > 0 {
			newOut[b.output] = strings.TrimRight(string(out), "\n")
			t.Errorf("README.md:%d: %d lines of the output block (line %d) not printed, in order, by\n%s\nmissing:\n%s\noutput:\n%s",
				b.line, len(missing), b.output.line, b.text, strings.Join(missing, "\n"), out)
		}
	}
	if *update && len(newOut) > 0 {
		writeOutputs(t, text, newOut)
	}
}

// writeOutputs replaces the bodies of the whole-output blocks in newOut,
// provided README.md has not changed since text was read.
func writeOutputs(t *testing.T, text string, newOut map[*block]string) {
	path := filepath.Join(root, "README.md")
	now, err := os.ReadFile(path)
	if err != nil || string(now) != text {
		t.Fatalf("README.md changed during the test: not updated (%v)", err)
	}
	lines := strings.Split(text, "\n")
	var out []string
	n := 0
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		for b, body := range newOut {
			if b.line != i+1 || strings.Contains(b.text, "\n...") || strings.HasPrefix(b.text, "...") {
				continue
			}
			// Skip the old body, up to the closing fence.
			j := i + 1
			for j < len(lines) && strings.TrimSpace(lines[j]) != "```" {
				j++
			}
			out = append(out, strings.Split(body, "\n")...)
			i = j - 1
			n++
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("README.md: %d output blocks updated", n)
}

// copyRepo makes dst a fresh clone of the repository when its working tree
// is clean (as in CI); otherwise, while the README is being edited, it
// copies the files a clone would hold once they are committed (git's
// tracked and untracked, not ignored, files).
func copyRepo(t *testing.T, dst string) {
	t.Helper()
	st := exec.Command("git", "status", "--porcelain")
	st.Dir = root
	if out, err := st.Output(); err == nil && len(bytes.TrimSpace(out)) == 0 {
		abs, err := filepath.Abs(root)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("git", "clone", "--quiet", "--no-hardlinks", abs, dst).CombinedOutput(); err != nil {
			t.Fatalf("git clone: %v\n%s", err, out)
		}
		t.Logf("a fresh clone of %s", abs)
		return
	}
	t.Logf("the working tree has changes: copying its files instead of cloning")
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		// Not a git checkout: every file of the tree but .git.
		t.Logf("git ls-files: %v; copying every file", err)
		out = nil
		err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() {
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				out = append(append(out, rel...), 0)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, name := range bytes.Split(out, []byte{0}) {
		if len(name) == 0 {
			continue
		}
		src := filepath.Join(root, string(name))
		info, err := os.Lstat(src)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the working tree, or a link
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, string(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no files to copy")
	}
}
