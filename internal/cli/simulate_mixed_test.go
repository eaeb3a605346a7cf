package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/model/mixed"
)

// simulate --model mixed writes rows whose columns have the kinds and
// labels of the model it writes with --model-json, and that model has the
// flags' share of continuous leaves, leaf state counts and separations
// (drawn per variable from --separation × [1 ± --separation-spread]).
func TestSimulateMixed(t *testing.T) {
	dir := t.TempDir()
	csvPath, modelPath := filepath.Join(dir, "m.csv"), filepath.Join(dir, "truth.json")
	args := []string{"simulate", "--topology", "binary", "--leaves", "20", "--model", "mixed", "--continuous", "0.3",
		"--continuous-hidden", "1", "--leaf-states", "3..4", "--separation", "2.5", "--separation-spread", "0.2", "-n", "400", "--seed", "3"}
	code, out, errs := run(t, "", append(args, "--out", csvPath, "--model-json", modelPath)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := "simulated binary tree (20 observed, 18 hidden), mixed model, 400 rows, seed 3\n"; out != want {
		t.Errorf("summary %q, want %q", out, want)
	}
	mm, prov := readModelFile(t, modelPath)
	m, ok := mm.(*mixed.Model)
	if !ok {
		t.Fatalf("model file holds a %T", mm)
	}
	if prov == nil || prov.Method != "simulate" || prov.Options["seed"] != "3" || prov.Options["separation"] != "2.5" {
		t.Errorf("provenance %+v", prov)
	}
	d, _, err := data.ReadCSVFile(csvPath, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.NumRows() != 400 || d.NumVars() != 20 {
		t.Fatalf("%d rows, %d columns", d.NumRows(), d.NumVars())
	}
	tr := m.Tree
	continuous, contHidden := 0, 0
	for _, v := range tr.Nodes() {
		if !tr.IsHidden(v) {
			j, ok := d.Index(tr.Name(v))
			if !ok {
				t.Fatalf("no column %s", tr.Name(v))
			}
			if d.Var(j).Kind != m.Kinds[v] {
				t.Errorf("%s: column is %v, model node %v", tr.Name(v), d.Var(j).Kind, m.Kinds[v])
			}
			if m.Kinds[v] == data.Discrete {
				if k := m.States[v]; k < 3 || k > 4 {
					t.Errorf("%s has %d states", tr.Name(v), k)
				}
				for _, l := range d.Var(j).States {
					if !slices.Contains(m.StateLabels(v), l) {
						t.Errorf("%s: label %q not in the model", tr.Name(v), l)
					}
				}
			}
		}
		if m.Kinds[v] != data.Continuous {
			continue
		}
		if tr.IsHidden(v) {
			contHidden++
		} else {
			continuous++
		}
		p := m.Rooted().Parent[v]
		if p < 0 || m.Kinds[p] != data.Discrete {
			continue
		}
		if sep := separation(m, v); !(sep >= 2-1e-9 && sep <= 3+1e-9) {
			t.Errorf("%s: state means %v are %g SDs apart, want 2 to 3", tr.Name(v), m.Mean[v], sep)
		}
	}
	if continuous != 6 || contHidden < 1 {
		t.Errorf("%d continuous leaves (want 6 of 20), %d continuous hidden nodes (want 1 or more)", continuous, contHidden)
	}
	// The same seed gives the same rows, on standard output.
	_, again, _ := run(t, "", args...)
	b, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if again != string(b) {
		t.Error("simulate --model mixed is not reproducible with the same seed")
	}
	// --json counts the continuous variables.
	_, js, _ := run(t, "", append(args, "--out", os.DevNull, "--json")...)
	var s struct {
		Model      string `json:"model"`
		Continuous int    `json:"continuous"`
	}
	if err := json.Unmarshal([]byte(js), &s); err != nil || s.Model != "mixed" || s.Continuous != 6 {
		t.Errorf("--json summary %q (%v)", js, err)
	}
}

// --model-json writes the true model of the other kinds too.
func TestSimulateModelJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.json")
	if code, _, errs := run(t, "", "simulate", "--topology", "star", "--leaves", "4", "-n", "0", "--model-json", path); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m, _ := readModelFile(t, path)
	if g, ok := m.(*gaussian.Model); !ok || g.Tree.NumObserved() != 4 {
		t.Errorf("model file holds a %T", m)
	}
	// Two outputs on standard output are an error.
	if code, _, _ := run(t, "", "simulate", "-n", "5", "--model-json", "-"); code != ExitUsage {
		t.Errorf("data and model both on standard output: exit %d", code)
	}
}

// separation returns the spacing of continuous node v's state means in
// within-state SDs, or NaN if they are not equally spaced.
func separation(m *mixed.Model, v int) float64 {
	mu := slices.Clone(m.Mean[v])
	slices.Sort(mu)
	sd := math.Sqrt(m.Var[v][0])
	sep := (mu[1] - mu[0]) / sd
	for a := 2; a < len(mu); a++ {
		if math.Abs((mu[a]-mu[a-1])/sd-sep) > 1e-9 {
			return math.NaN()
		}
	}
	return sep
}

// --separation-spread 0 gives every continuous variable with a discrete
// parent the separation --separation.
func TestSimulateMixedFixedSeparation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "truth.json")
	code, _, errs := run(t, "", "simulate", "--leaves", "12", "--model", "mixed", "--continuous", "0.5",
		"--separation", "2.5", "--separation-spread", "0", "-n", "0", "--model-json", path, "--seed", "4")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mm, _ := readModelFile(t, path)
	m := mm.(*mixed.Model)
	n := 0
	for _, v := range m.Tree.Nodes() {
		if p := m.Rooted().Parent[v]; m.Kinds[v] == data.Continuous && p >= 0 && m.Kinds[p] == data.Discrete {
			n++
			if sep := separation(m, v); math.Abs(sep-2.5) > 1e-9 {
				t.Errorf("%s: state means %v are %g SDs apart, want 2.5", m.Tree.Name(v), m.Mean[v], sep)
			}
		}
	}
	if n == 0 {
		t.Error("no continuous variable with a discrete parent")
	}
}

// Bad mixed flags are usage errors naming the flag.
func TestSimulateMixedFlags(t *testing.T) {
	for _, c := range [][]string{
		{"--continuous", "1.5"},
		{"--continuous", "-0.1"},
		{"--continuous-hidden", "-1"},
		{"--leaf-states", "two"},
		{"--leaf-states", "1..3"},
		{"--hidden-states", "5..2"},
		{"--separation", "0"},
		{"--separation-spread", "1"},
		{"--separation-spread", "-0.5"},
		{"--rho-min", "0.95"},
	} {
		code, _, errs := run(t, "", append([]string{"simulate", "--model", "mixed", "-n", "5"}, c...)...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d: %s", c, code, errs)
		}
	}
	// --continuous 0 gives an all-discrete model.
	path := filepath.Join(t.TempDir(), "d.json")
	if code, _, errs := run(t, "", "simulate", "--model", "mixed", "--continuous", "0", "-n", "0", "--model-json", path); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m, _ := readModelFile(t, path)
	for _, v := range m.Structure().Nodes() {
		if m.NodeKind(v) != data.Discrete {
			t.Errorf("--continuous 0: node %s is %v", m.Structure().Name(v), m.NodeKind(v))
		}
	}
}

// readModelFile reads the model file at path.
func readModelFile(t *testing.T, path string) (model.Model, *model.Provenance) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, prov, err := model.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return m, prov
}

// --distances of a mixed model are the model's exact information
// distances between its observed variables.
func TestSimulateMixedDistances(t *testing.T) {
	dir := t.TempDir()
	dpath, mpath := filepath.Join(dir, "d.csv"), filepath.Join(dir, "m.json")
	if code, _, errs := run(t, "", "simulate", "--model", "mixed", "--leaves", "8", "-n", "0", "--seed", "6",
		"--distances", dpath, "--model-json", mpath); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	dm, err := distance.ReadMatrixFile(dpath, distance.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := readModelFile(t, mpath)
	obs := m.Structure().Observed()
	want, err := m.InformationDistances(obs)
	if err != nil {
		t.Fatal(err)
	}
	if dm.Size() != len(obs) {
		t.Fatalf("%d variables in the matrix, %d observed", dm.Size(), len(obs))
	}
	for i, u := range obs {
		for j, v := range obs {
			a, ok1 := dm.Index(m.Structure().Name(u))
			b, ok2 := dm.Index(m.Structure().Name(v))
			if !ok1 || !ok2 {
				t.Fatalf("%s or %s missing from the matrix", m.Structure().Name(u), m.Structure().Name(v))
			}
			if got := dm.At(a, b); math.Abs(got-want[i*len(obs)+j]) > 1e-12 {
				t.Errorf("d(%s, %s) = %g, want %g", m.Structure().Name(u), m.Structure().Name(v), got, want[i*len(obs)+j])
			}
		}
	}
}
