package cli

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
)

// fit --se writes the observed-information standard errors of the fitted
// model (those StandardErrors gives for the model read back), explain
// shows them, and --bootstrap repeats for a seed on 1 or 2 cores.
func TestFitStandardErrors(t *testing.T) {
	nwk, disc := simulatedTree(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "m.json")
	code, stdout, errs := run(t, "", "fit", nwk, disc, "--hidden-states", "3", "--se", "--out", out)
	if code != ExitOK {
		t.Fatal(errs)
	}
	if !strings.Contains(stdout, "standard errors: observed information (exact Hessian)") {
		t.Errorf("summary without the standard errors line:\n%s", stdout)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	mm, _, err := model.Read(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	m := mm.(*discrete.Model)
	if m.SE == nil || m.SE.Method != discrete.SEHessian {
		t.Fatalf("model file without Hessian standard errors: %+v", m.SE)
	}
	d, _, err := data.ReadCSVFile(disc, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.StandardErrors(d, discrete.SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Prior {
		if math.Abs(want.Prior[i]-m.SE.Prior[i]) > 1e-12 {
			t.Errorf("prior SE %g in the file, %g recomputed", m.SE.Prior[i], want.Prior[i])
		}
	}
	code, text, errs := run(t, "", "explain", out)
	if code != ExitOK || !strings.Contains(text, "standard errors (observed information: exact Hessian)") || !strings.Contains(text, " | h1 = 0:") {
		t.Errorf("explain: exit %d, %s\n%s", code, errs, text)
	}

	var files [2][]byte
	for i, workers := range []string{"1", "2"} {
		bout := filepath.Join(dir, "b"+workers+".json")
		n := 1
		if workers == "2" {
			n = 2
		}
		prev := runtime.GOMAXPROCS(n)
		code, _, errs := run(t, "", "fit", nwk, disc, "--bootstrap", "10", "--seed", "3", "--out", bout)
		runtime.GOMAXPROCS(prev)
		if code != ExitOK {
			t.Fatal(errs)
		}
		b, err := os.ReadFile(bout)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = b
	}
	if !bytes.Contains(files[0], []byte(`"method": "bootstrap"`)) {
		t.Error("no bootstrap standard errors in the file")
	}
	// (The provenance records the output path: compare the parameters.)
	strip := func(b []byte) string { s := string(b); return s[:strings.Index(s, `"provenance"`)] }
	if strip(files[0]) != strip(files[1]) {
		t.Error("bootstrap standard errors differ between runs with the same seed")
	}
}

// --se and --bootstrap: bad values and models they do not apply to.
func TestStandardErrorsRefused(t *testing.T) {
	nwk, disc := simulatedTree(t)
	_, cont := simulated(t)
	if code, _, errs := run(t, "", "fit", nwk, disc, "--bootstrap", "1"); code != ExitUsage || !strings.Contains(errs, "--bootstrap") {
		t.Errorf("--bootstrap 1: exit %d, %s", code, errs)
	}
	if code, _, errs := run(t, "", "learn", cont, "--se"); code == ExitOK || !strings.Contains(errs, "discrete model") {
		t.Errorf("--se on continuous data: exit %d, %s", code, errs)
	}
	if code, _, errs := run(t, "", "learn", disc, "--se", "--structure-only"); code != ExitUsage || !strings.Contains(errs, "--se") {
		t.Errorf("--se --structure-only: exit %d, %s", code, errs)
	}
	// Two classes given: the search for their number (TestLearnLCMTable's)
	// took most of this test's time.
	if code, out, errs := run(t, "", "learn", "--method", "lcm", "--hidden-states", "2", disc, "--se"); code != ExitOK || !strings.Contains(out, "standard errors: observed information") {
		t.Errorf("learn --method lcm --se: exit %d, %s\n%s", code, errs, out)
	}
}
