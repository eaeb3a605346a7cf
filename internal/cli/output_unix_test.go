//go:build unix

package cli

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOutputUmask: a new output file gets 0666 less the umask, as os.Create
// gives (it used to be 0644 whatever the umask, a private data set's copy
// readable by all); a replaced file keeps its own permissions.
func TestOutputUmask(t *testing.T) {
	dir := t.TempDir()
	text := func(w io.Writer) error { _, err := io.WriteString(w, "x\n"); return err }
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	e := &env{}
	for _, c := range []struct {
		umask int
		want  os.FileMode
	}{{0o077, 0o600}, {0o022, 0o644}, {0o002, 0o664}} {
		syscall.Umask(c.umask)
		path := filepath.Join(dir, "new.csv")
		os.Remove(path)
		if err := e.writeTo(path, text); err != nil {
			t.Fatal(err)
		}
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != c.want {
			t.Errorf("umask %03o: mode %v (%v), want %v", c.umask, info.Mode().Perm(), err, c.want)
		}
	}
	syscall.Umask(0o022)
	kept := filepath.Join(dir, "kept.csv")
	writeFile(t, kept, "old\n")
	if err := os.Chmod(kept, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := e.writeTo(kept, text); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(kept); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("replaced file: mode %v (%v), want 0640", info.Mode().Perm(), err)
	}
}

// TestOutputSymlinkPlantedLater: a symbolic link planted at the destination
// after the paths were checked is replaced by the output, not followed (it
// used to be resolved when the file was written, so the write went to the
// file it pointed to).
func TestOutputSymlinkPlantedLater(t *testing.T) {
	dir := t.TempDir()
	victim, out := filepath.Join(dir, "private.txt"), filepath.Join(dir, "out.csv")
	writeFile(t, victim, "secret\n")
	if err := os.Chmod(victim, 0o600); err != nil {
		t.Fatal(err)
	}
	e := &env{}
	if err := e.checkPaths(nil, []pathFlag{{"--out", out}}); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, out); err != nil {
		t.Fatal(err)
	}
	if err := e.writeTo(out, func(w io.Writer) error { _, err := io.WriteString(w, "result\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, victim); got != "secret\n" {
		t.Errorf("the link's target was overwritten: %q", got)
	}
	if info, err := os.Lstat(out); err != nil || !info.Mode().IsRegular() || readFile(t, out) != "result\n" {
		t.Errorf("the output is not a regular file holding the result: %v %v", info, err)
	}
	noTempFiles(t, dir)
}

// TestOutputSignalCleansTemporaryFiles: SIGINT or SIGTERM while an output
// is being written removes its temporary file, and the process exits with
// 128 + the signal's number (the temporary files used to stay behind).
// The writing runs in a child process (this test binary, run again with
// LATENTREE_SIGNAL_HELPER set) that signals itself in the middle of a write.
func TestOutputSignalCleansTemporaryFiles(t *testing.T) {
	if dir := os.Getenv("LATENTREE_SIGNAL_HELPER"); dir != "" {
		sig := syscall.SIGTERM
		if os.Getenv("LATENTREE_SIGNAL") == "INT" {
			sig = syscall.SIGINT
		}
		e := &env{}
		_ = e.writeOutputs([]output{
			{filepath.Join(dir, "a.csv"), func(w io.Writer) error { _, err := io.WriteString(w, "done\n"); return err }},
			{filepath.Join(dir, "b.csv"), func(w io.Writer) error {
				io.WriteString(w, "half")
				syscall.Kill(os.Getpid(), sig)
				time.Sleep(10 * time.Second)
				return nil
			}},
		})
		os.Exit(0)
	}
	for _, c := range []struct {
		sig  string
		code int
	}{{"TERM", 143}, {"INT", 130}} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestOutputSignalCleansTemporaryFiles$")
		cmd.Env = append(os.Environ(), "LATENTREE_SIGNAL_HELPER="+dir, "LATENTREE_SIGNAL="+c.sig)
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != c.code {
			t.Errorf("SIG%s: exit %d, want %d: %s", c.sig, code, c.code, out)
		}
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, en := range entries {
			names = append(names, en.Name())
		}
		if len(names) != 0 {
			t.Errorf("SIG%s: files left: %s", c.sig, strings.Join(names, ", "))
		}
	}
}
