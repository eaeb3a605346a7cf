package readmetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/latentree/latentree/"

// TestArchitectureLevels checks docs/architecture.md's table of packages
// by level against the import graph: every package of the module is in
// the table once (test helpers aside), at the level one more than the
// highest level it imports.
func TestArchitectureLevels(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| (\\d+) \\| ([^|]+) \\|")
	pkgName := regexp.MustCompile("`([a-z0-9/]+)`")
	documented := map[string]int{}
	for _, l := range strings.Split(string(doc), "\n") {
		m := row.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		level, _ := strconv.Atoi(m[1])
		for _, p := range pkgName.FindAllStringSubmatch(m[2], -1) {
			if _, dup := documented[p[1]]; dup {
				t.Errorf("docs/architecture.md lists %s twice", p[1])
			}
			documented[p[1]] = level
		}
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		name := strings.TrimPrefix(f[0], module)
		deps[name] = nil
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, module) {
				deps[name] = append(deps[name], strings.TrimPrefix(imp, module))
			}
		}
	}
	levels := map[string]int{}
	var level func(p string) int
	level = func(p string) int {
		if l, ok := levels[p]; ok {
			return l
		}
		levels[p] = -1 // a cycle would show as level 0 below an importer
		l := 0
		for _, d := range deps[p] {
			l = max(l, level(d)+1)
		}
		levels[p] = l
		return l
	}
	helpers := map[string]bool{"internal/readmetest": true, "model/internal/modeltest": true}
	for p := range deps {
		if helpers[p] {
			continue
		}
		want, ok := documented[p]
		switch {
		case !ok:
			t.Errorf("package %s (level %d) is not in docs/architecture.md", p, level(p))
		case want != level(p):
			t.Errorf("docs/architecture.md puts %s at level %d; its imports put it at %d", p, want, level(p))
		}
	}
	for p := range documented {
		if _, ok := deps[p]; !ok {
			t.Errorf("docs/architecture.md lists %s, which is not a package", p)
		}
	}
}
