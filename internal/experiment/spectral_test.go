package experiment

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/tree"
)

// TestSpectral runs a tiny configuration (8-leaf HMMs, n = 4, k = k′ = 2,
// two models, fixed seed) and checks that the local M* error falls with N
// and is small at 20,000 rows, that EM with the paper's protocol does too,
// that a failing method is recorded without stopping the run, and that the
// results do not depend on the number of workers (a second run with one
// worker and mstar alone: em-paper, two thirds of the cost, fits without
// workers of its own).
func TestSpectral(t *testing.T) {
	all := SpectralMethods()
	var methods []SpectralMethod
	for _, m := range all {
		if m.Name == "mstar" || m.Name == "em-paper" {
			methods = append(methods, m)
		}
	}
	failing := SpectralMethod{Name: "broken", Fit: func(*tree.Tree, *data.Dataset, int, rand.Source) (SpectralScorer, int, error) {
		return nil, 0, errors.New("deliberately broken")
	}}
	cfg := SpectralConfig{
		Topologies: []string{"hmm"},
		Settings:   []SpectralSetting{{8, 4, 2, 2}},
		Sizes:      []int{300, 20000},
		Models:     2,
		TestRows:   300,
		Methods:    append(methods, failing),
		Seed:       7,
		Workers:    2,
	}
	rows, err := Spectral(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2*3 {
		t.Fatalf("%d rows, want 6", len(rows))
	}
	get := func(method string, n int) SpectralRow {
		for _, r := range rows {
			if r.Method == method && r.Samples == n {
				return r
			}
		}
		t.Fatalf("no row for %s at %d", method, n)
		return SpectralRow{}
	}
	for _, m := range []string{"mstar", "em-paper"} {
		small, large := get(m, 300), get(m, 20000)
		if small.Models != 2 || large.Models != 2 || large.Failed != 0 {
			t.Errorf("%s: models %d and %d, failed %d (%s)", m, small.Models, large.Models, large.Failed, large.Error)
		}
		t.Logf("%s: median ε %.3f at 300 rows, %.3f at 20,000; P̂ ≤ 0 in %.2f%%", m, small.MedianErr, large.MedianErr, 100*large.NonPositive)
		// Measured with seed 7: mstar 0.41 → 0.056, em-paper 0.25 → 0.062.
		if !(large.MedianErr < 0.7*small.MedianErr) || !(large.MedianErr < 0.1) {
			t.Errorf("%s: median ε %.3f at 300 rows, %.3f at 20,000: want a fall by 30%% to below 0.1", m, small.MedianErr, large.MedianErr)
		}
	}
	if b := get("broken", 300); b.Models != 0 || b.Failed != 2 || !strings.Contains(b.Error, "deliberately broken") {
		t.Errorf("failing method: %+v", b)
	}
	// The run again with one worker and without em-paper, the costly
	// method (its fits take no workers: the experiment's scheduling is
	// what could differ): the rows of the other methods must not change.
	cfg.Workers = 1
	cfg.Methods = []SpectralMethod{failing}
	for _, m := range methods {
		if m.Name == "mstar" {
			cfg.Methods = append(cfg.Methods, m)
		}
	}
	again, err := Spectral(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 2*2 {
		t.Fatalf("%d rows with one worker, want 4", len(again))
	}
	same := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
	for _, b := range again {
		a := get(b.Method, b.Samples)
		if !same(a.MedianErr, b.MedianErr) || !same(a.MeanErr, b.MeanErr) || !same(a.Iterations, b.Iterations) || !same(a.NonPositive, b.NonPositive) || !same(a.TrainGap, b.TrainGap) {
			t.Errorf("%s at %d rows differs between 2 workers and 1: %+v vs %+v", b.Method, b.Samples, a, b)
		}
	}
	var md, csvOut, svg bytes.Buffer
	if err := WriteSpectralTable(&md, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteSpectralCSV(&csvOut, rows); err != nil {
		t.Fatal(err)
	}
	if err := PlotSpectral(&svg, rows, "svg"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(csvOut.String(), "\n"); got != len(rows)+1 {
		t.Errorf("CSV has %d lines, want %d", got, len(rows)+1)
	}
	if !strings.Contains(md.String(), "2 of 2 models failed: deliberately broken") {
		t.Errorf("table does not list the failure:\n%s", md.String())
	}
	t.Log("\n" + md.String())
	if _, err := Spectral(context.Background(), SpectralConfig{Topologies: []string{"star"}}); err == nil {
		t.Error("unknown topology accepted")
	}
}
