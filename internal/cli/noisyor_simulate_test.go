package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/latentree/latentree/noisyor"
)

func TestNoisyorSimulateImage(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "img.csv")
	modelPath := filepath.Join(dir, "truth.json")
	code, out, errs := run(t, "", "noisyor", "simulate", "--network", "image", "--rows", "200", "--seed", "4",
		"--out", csvPath, "--model", modelPath)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"simulated image network (8 sources, 64 effects, 107 edges), 200 rows, seed 4",
		"quartet depth  1:    2 sources,     16 edges (diagonal anti-diagonal)",
		"quartet depth  0:    6 sources",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 201 || !strings.HasPrefix(lines[0], "p0_0,p0_1,") || !strings.HasSuffix(lines[0], ",p7_7") {
		t.Fatalf("CSV: %d lines, header %q", len(lines), lines[0])
	}
	for _, l := range lines[1:] {
		if strings.Trim(l, "01,") != "" || len(l) != 127 {
			t.Fatalf("row %q is not 64 binary values", l)
		}
	}
	f, err := os.Open(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, prov, err := noisyor.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(n.Sources, noisyor.ImageNetwork().Sources) {
		t.Error("the model file is not the image network")
	}
	if prov == nil || prov.Method != "noisyor simulate --network image" || prov.Options["seed"] != "4" {
		t.Errorf("provenance %+v", prov)
	}
	// Same seed, same rows, on standard output; another seed, other rows.
	_, again, _ := run(t, "", "noisyor", "simulate", "--rows", "200", "--seed", "4")
	if again != string(b) {
		t.Error("noisyor simulate is not reproducible with the same seed")
	}
	_, other, _ := run(t, "", "noisyor", "simulate", "--rows", "200", "--seed", "5")
	if other == string(b) {
		t.Error("two seeds give the same rows")
	}
}

func TestNoisyorSimulateJSON(t *testing.T) {
	code, out, errs := run(t, "", "noisyor", "simulate", "--rows", "0", "--model", os.DevNull, "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var s struct {
		Network string `json:"network"`
		Sources int    `json:"sources"`
		Rows    int    `json:"rows"`
		Depths  []struct {
			Depth, Sources, Edges int
		} `json:"depths"`
		SourceDepths []struct {
			Name         string `json:"name"`
			Children     int    `json:"children"`
			Depth        int    `json:"depth"`
			TripletDepth int    `json:"triplet_depth"`
		} `json:"source_depths"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if s.Network != "image" || s.Sources != 8 || s.Rows != 0 || len(s.SourceDepths) != 8 || len(s.Depths) != 2 {
		t.Fatalf("summary %+v", s)
	}
	for i, sd := range s.SourceDepths {
		want := 0
		if i == 0 || i == 7 {
			want = 1
		}
		if sd.Depth != want || sd.TripletDepth != 0 || sd.Name != noisyor.ImageShapes[i] {
			t.Errorf("source %d: %+v", i, sd)
		}
	}
	if s.Depths[1].Depth != 1 || s.Depths[1].Sources != 2 || s.Depths[1].Edges != 16 {
		t.Errorf("depth table %+v", s.Depths)
	}
}

func TestNoisyorSimulateModelOnly(t *testing.T) {
	// --rows 0 without --model: the model goes to standard output, the
	// summary (none in text) stays off it.
	code, out, errs := run(t, "", "noisyor", "simulate", "--network", "random", "--sources", "6", "--effects", "30",
		"--learnable", "--rows", "0", "--seed", "9")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	n, _, err := noisyor.ReadJSON(strings.NewReader(out))
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if n.NumSources() != 6 || n.NumEffects() != 30 {
		t.Errorf("%d sources, %d effects", n.NumSources(), n.NumEffects())
	}
	for s, d := range noisyor.QuartetDepths(n) {
		if d < 0 {
			t.Errorf("--learnable: source %s never found", n.Sources[s].Name)
		}
	}
	_, again, _ := run(t, "", "noisyor", "simulate", "--network", "random", "--sources", "6", "--effects", "30",
		"--learnable", "--rows", "0", "--seed", "9")
	m, _, err := noisyor.ReadJSON(strings.NewReader(again))
	if err != nil || !reflect.DeepEqual(m.Sources, n.Sources) {
		t.Errorf("random network not reproducible with the same seed (%v)", err)
	}
}

func TestNoisyorSimulateQMR(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := run(t, "", "noisyor", "simulate", "--network", "qmr", "--sources", "150", "--effects", "1500",
		"--twins", "2", "--near-twins", "0", "--leak", "0", "--rows", "30", "--out", filepath.Join(dir, "q.csv"),
		"--model", filepath.Join(dir, "q.json"), "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var s struct {
		Sources int `json:"sources"`
		Effects int `json:"effects"`
		Depths  []struct {
			Depth, Sources int
		} `json:"depths"`
		TripletDepths []struct {
			Depth, Sources int
		} `json:"triplet_depths"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	last := s.Depths[len(s.Depths)-1]
	lastT := s.TripletDepths[len(s.TripletDepths)-1]
	if s.Sources != 150 || s.Effects != 1500 || last.Depth != -1 || last.Sources < 4 || lastT.Depth != -1 || lastT.Sources < 4 {
		t.Errorf("summary %+v", s)
	}
	f, err := os.Open(filepath.Join(dir, "q.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, _, err := noisyor.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	for a := range n.Effects {
		if n.LeakOf(a) != 0 {
			t.Fatalf("--leak 0: leak %v", n.LeakOf(a))
		}
	}
}

func TestNoisyorSimulateBadUsage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--network", "faces"},
		{"--rows", "-1"},
		{"--sources", "5"},
		{"--network", "image", "--leak", "0.1"},
		{"--network", "random", "--subtypes", "0.1"},
		{"--network", "qmr", "--learnable"},
		{"--network", "random", "--sources", "0"},
		{"--network", "random", "--effects", "-3"},
		{"--network", "random", "--leak", "-0.5"},
		{"--network", "random", "--leak", "1"},
		{"--network", "random", "--prior-min", "0.5", "--prior-max", "0.1"},
		{"--network", "random", "--failure-max", "1"},
		{"--network", "random", "--failure-min", "0"},
		{"--network", "random", "--sources", "3", "--effects", "4", "--min-children", "4", "--max-children", "4", "--learnable"},
		{"--network", "qmr", "--effects", "100", "--max-children", "99"},
		{"--network", "qmr", "--twins", "-1"},
		{"--rows", "0", "--out", filepath.Join(dir, "x.csv")},
		{"--out", filepath.Join(dir, "same"), "--model", filepath.Join(dir, "same")},
		{"--out", filepath.Join(dir, "missing", "x.csv")},
	} {
		code, _, errs := run(t, "", append([]string{"noisyor", "simulate"}, args...)...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, ExitUsage, errs)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad usage left files: %v", entries)
	}
}
