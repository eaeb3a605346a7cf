package experiment

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFindDataFileInClone: inside a clone of the repository (here, from
// this package's directory) the 20 Newsgroups splits are found in
// examples/newsgroups without LATENTREE_DATA, as `latentree experiment
// newsgroups` looks for them.
func TestFindDataFileInClone(t *testing.T) {
	t.Setenv(DataEnvVar, "")
	for _, name := range []string{"newsgroups100-train.csv", "newsgroups100-test.csv"} {
		p, dirs := FindDataFile(name)
		if p == "" {
			t.Fatalf("%s not found; looked in %q", name, dirs)
		}
		want, err := filepath.Abs(filepath.Join("..", "..", "examples", "newsgroups", name))
		if err != nil {
			t.Fatal(err)
		}
		if p != want {
			t.Errorf("%s found at %s, want the repository's %s", name, p, want)
		}
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() < 1<<20 {
			t.Errorf("%s: %d bytes, want the 1.6 MB split", p, info.Size())
		}
	}
}
