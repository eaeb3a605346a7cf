package experiment

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestQuartetTrees runs a small version of the §6.2 experiment: every
// method must give an RF error in range, and the nuclear-norm builder must
// improve with the sample size and beat the Chow–Liu reference.
func TestQuartetTrees(t *testing.T) {
	rows, err := QuartetTrees(context.Background(), QuartetTreesConfig{
		Reps: 4, Sizes: []int{100, 3000}, Betas: []float64{0.5}, Mus: []float64{1}, SpectralKs: []int{2}, Seed: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	methods := QuartetTreesMethods([]int{2})
	if len(rows) != 2*len(methods) {
		t.Fatalf("%d rows, want %d", len(rows), 2*len(methods))
	}
	rf := map[string]float64{}
	for _, r := range rows {
		if r.Reps != 4 || !(r.MeanRF >= 0 && r.MeanRF <= 2*16) {
			t.Fatalf("bad row %+v", r)
		}
		rf[fmt.Sprintf("%s@%d", r.Method, r.Samples)] = r.MeanRF
	}
	small, large := rf["nuclear@100"], rf["nuclear@3000"]
	cl := rf["chowliu@3000"]
	t.Logf("nuclear RF %.2f at n=100, %.2f at n=3000; Chow–Liu %.2f", small, large, cl)
	if !(large < small) || !(large < cl) {
		t.Errorf("nuclear RF %.2f at n=3000 (%.2f at n=100, Chow–Liu %.2f)", large, small, cl)
	}
	var buf bytes.Buffer
	if err := WriteQuartetTreesCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != len(rows)+1 {
		t.Errorf("CSV has %d lines, want %d", n, len(rows)+1)
	}
	buf.Reset()
	if err := PlotQuartetTrees(&buf, rows, "svg"); err != nil || !strings.Contains(buf.String(), "<svg") {
		t.Errorf("plot: %v", err)
	}
}

// TestQuartetRecovery runs a small version of the §6.1 experiment: at
// 2,000 samples the nuclear test resolves nearly every quartet and
// Spectral@1 (the wrong k) far fewer.
func TestQuartetRecovery(t *testing.T) {
	rows, err := QuartetRecovery(context.Background(), QuartetConfig{
		Hidden: [][2]int{{2, 4}}, Mus: []float64{0.5}, Sizes: []int{2000}, Reps: 40, SpectralKs: []int{1, 2}, Seed: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range rows {
		got[r.Method] = r.Correct
	}
	t.Logf("%v", got)
	if len(rows) != 4 || got["nuclear"] < 0.95 || got["nuclear"] < got["spectral@1"]+0.2 {
		t.Errorf("rows %+v", rows)
	}
}
