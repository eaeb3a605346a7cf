package experiment

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/latentree/latentree/structure"
)

func TestStructureRecoverySmall(t *testing.T) {
	rows, err := StructureRecovery(context.Background(), RecoveryConfig{
		Trees:   []string{"double-star"},
		Methods: []structure.Method{structure.MethodRG, structure.MethodCLRG, structure.MethodNJ},
		Sizes:   []int{200000},
		Runs:    4,
		Seed:    7,
		Options: structure.Options{RG: structure.RGOptions{Grouping: structure.GroupSilhouette}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	for _, r := range rows {
		if r.Runs != 4 {
			t.Errorf("%s: %d runs", r.Method, r.Runs)
		}
		// At 200,000 samples RG and CLRG recover the double star every
		// time; NJ cannot (it resolves the two stars into binary trees
		// whose short edges are not all contracted).
		if r.Method != structure.MethodNJ && r.Exact != 4 {
			t.Errorf("%s recovered the double star in %d/4 runs at n=200000", r.Method, r.Exact)
		}
	}
	// Same seed, same results.
	again, _ := StructureRecovery(context.Background(), RecoveryConfig{
		Trees: []string{"double-star"}, Methods: []structure.Method{structure.MethodRG, structure.MethodCLRG, structure.MethodNJ},
		Sizes: []int{200000}, Runs: 4, Seed: 7, Workers: 1,
		Options: structure.Options{RG: structure.RGOptions{Grouping: structure.GroupSilhouette}},
	})
	for i := range rows {
		if rows[i].Exact != again[i].Exact || rows[i].MeanRF != again[i].MeanRF {
			t.Errorf("results depend on the number of workers: %+v vs %+v", rows[i], again[i])
		}
	}
	var csv, svg bytes.Buffer
	if err := WriteRecoveryCSV(&csv, rows); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(csv.String(), "\n"); lines != 4 {
		t.Errorf("CSV has %d lines", lines)
	}
	if err := PlotRecovery(&svg, rows, "svg"); err != nil || !strings.Contains(svg.String(), "<svg") {
		t.Errorf("plot: %v", err)
	}
	if _, err := RecoveryTree("pentagon"); err == nil {
		t.Error("unknown tree accepted")
	}
}
