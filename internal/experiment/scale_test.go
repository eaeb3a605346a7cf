package experiment

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestScaleTiny(t *testing.T) {
	cfg := ScaleConfig{Rows: []int{1000, 2000}, RowVars: 10, Vars: []int{10}, VarRows: 1000, Seed: 3, TempDir: t.TempDir(), MaxEMCells: 15000,
		Targets: ScaleTargets{Skip: true}}
	rows, err := Scale(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * len(ScaleSteps); len(rows) != want {
		t.Fatalf("%d rows, want %d (2 points × %d steps)", len(rows), want, len(ScaleSteps))
	}
	statRows := map[int][]int64{}
	for i, r := range rows {
		if r.Step != ScaleSteps[i%len(ScaleSteps)] || r.Variables != 10 {
			t.Errorf("row %d: %+v", i, r)
		}
		if r.Step == ScaleLearnEM && r.Rows == 2000 {
			if !r.Skipped || !strings.Contains(r.Note, "skipped") {
				t.Errorf("learn-em at 20,000 cells > 15,000 not skipped: %+v", r)
			}
			continue
		}
		if r.Skipped || !(r.Seconds > 0) || !(r.PeakMB > 0) {
			t.Errorf("row %d: want positive time and memory: %+v", i, r)
		}
		if r.Step == ScaleStatsCSV || r.Step == ScaleStatsParquet {
			statRows[r.Rows] = append(statRows[r.Rows], r.StatRows)
			if !(r.FileMB > 0) {
				t.Errorf("row %d: no file size", i)
			}
		}
	}
	for n, c := range statRows {
		if len(c) != 2 || c[0] != int64(n) || c[1] != int64(n) {
			t.Errorf("%d rows: statistics from CSV and Parquet counted %v", n, c)
		}
	}
	var csvBuf, md, svg bytes.Buffer
	if err := WriteScaleCSV(&csvBuf, rows); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(csvBuf.String(), "\n"); got != len(rows)+1 {
		t.Errorf("CSV has %d lines", got)
	}
	if err := WriteScaleTable(&md, rows); err != nil {
		t.Fatal(err)
	}
	if err := PlotScale(&svg, rows, 10, 1000, "svg"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg.String(), "<svg") {
		t.Error("no SVG")
	}
}

// TestScaleTargetsTiny runs the targets on two small trees, without the
// newsgroups splits and without an executable (those rows say they were
// skipped): a row per tree with its time and E-steps, then their medians.
func TestScaleTargetsTiny(t *testing.T) {
	var steps []int
	cfg := ScaleConfig{Rows: []int{1000}, RowVars: 8, Vars: []int{8}, VarRows: 1000, Seed: 3, TempDir: t.TempDir(),
		Targets:  ScaleTargets{Runs: 1, Trees: 2, TreeLeaves: 8, TreeRows: 2000},
		Progress: func(done, total int) { steps = append(steps, done, total) }}
	rows, err := Scale(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows = rows[len(ScaleSteps):]
	want := []string{ScaleNewsgroupsLearn, ScaleEMTree, ScaleEMTree, ScaleEMTrees, ScaleStructureCmd}
	if len(rows) != len(want) {
		t.Fatalf("%d target rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i, r := range rows {
		if r.Step != want[i] {
			t.Errorf("row %d: step %s, want %s", i, r.Step, want[i])
		}
		skip := r.Step == ScaleNewsgroupsLearn || r.Step == ScaleStructureCmd
		if r.Skipped != skip {
			t.Errorf("row %d (%s): skipped %v", i, r.Step, r.Skipped)
		}
		if !skip && (!(r.Seconds > 0) || r.CPUSeconds < 0 || r.Variables != 8 || r.Rows != 2000) {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	for _, r := range rows[1:3] {
		if !strings.Contains(r.Note, "E-steps") || !strings.Contains(r.Note, "tolerance 1e-9") {
			t.Errorf("tree row without E-steps or the tight run: %q", r.Note)
		}
	}
	if n := len(steps); n < 2 || steps[n-2] != steps[n-1] || steps[n-1] != len(ScaleSteps)+5 {
		t.Errorf("progress %v: want to end at %d of %d", steps, len(ScaleSteps)+5, len(ScaleSteps)+5)
	}
}

// TestScaleSamplesAgree checks that the rows in memory are those written.
func TestScaleSameStats(t *testing.T) {
	p := scalePoint{12, 3000}
	md, seed, err := scaleModel(5, p)
	if err != nil {
		t.Fatal(err)
	}
	a, err := sampleAll(context.Background(), md, seed, p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sampleAll(context.Background(), md, seed, p)
	if err != nil {
		t.Fatal(err)
	}
	for j := range a.NumVars() {
		if !slicesEqual(a.Discrete(j), b.Discrete(j)) {
			t.Fatalf("column %d differs between two samplings", j)
		}
	}
}

func slicesEqual(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
