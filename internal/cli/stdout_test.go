package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fullWriter fails every write, as standard output on /dev/full does.
type fullWriter struct{ writes int }

func (f *fullWriter) Write(p []byte) (int, error) {
	f.writes++
	return 0, errors.New("no space left on device")
}

// TestStdoutWriteFailure: a command whose standard output cannot be written
// fails with exit 1 and says so, whether it printed its result, its
// summary or its JSON (each used to exit 0 with nothing written).
func TestStdoutWriteFailure(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	if code, _, errs := run(t, "", "simulate", "--topology", "double-star", "--leaves", "3", "--model", "symmetric",
		"--states", "2", "-n", "200", "--seed", "3", "--out", p("d.csv"), "--newick", p("t.nwk")); code != ExitOK {
		t.Fatal(errs)
	}
	if code, _, errs := run(t, "", "learn", p("d.csv"), "--out", p("m.json")); code != ExitOK {
		t.Fatal(errs)
	}
	if code, _, errs := run(t, "", "stats", p("d.csv"), "--out", p("d.lts")); code != ExitOK {
		t.Fatal(errs)
	}
	for _, args := range [][]string{
		{"score", p("m.json"), p("d.csv")},
		{"score", "--json", p("m.json"), p("d.csv")},
		{"compare", p("t.nwk"), p("t.nwk")},
		{"fit", p("t.nwk"), p("d.csv"), "--out", p("new.json")},
		{"fit", "--estep", p("m.json"), p("d.csv"), "--out", p("c.json")},
		{"learn", p("d.csv"), "--out", p("new.json")},
		{"learn", "--stats", p("d.lts"), "--newick", p("new.nwk")},
		{"stats", p("d.csv")},
		{"version"},
	} {
		var errb strings.Builder
		full := &fullWriter{}
		code := Main(args, strings.NewReader(""), full, &errb)
		if code != ExitFailure || full.writes == 0 || !strings.Contains(errb.String(), "no space left on device") {
			t.Errorf("%v: exit %d after %d writes, stderr %q; want exit 1 and the write error", args, code, full.writes, errb.String())
		}
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
