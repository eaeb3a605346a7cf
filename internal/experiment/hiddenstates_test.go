package experiment

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/latentree/latentree/internal/testenv"
)

// TestHiddenStates checks the bar of issue 22 on small simulated data sets
// (observed variables with 3–6 states): AutoStates is at least as good in
// BIC as every uniform number of hidden states from 2 to 5 on each of
// them. The long form runs 10 data sets of 10–20 variables and 500 or
// 1,000 rows; the 20 data sets of the experiment's defaults (up to 5,000
// rows, about 15 minutes) are `latentree experiment hidden-states`, whose
// table is in results/.
func TestHiddenStates(t *testing.T) {
	cfg := HiddenStatesConfig{DataSets: 3, MinObserved: 6, MaxObserved: 9, Sizes: []int{300, 600}, Seed: 5}
	if testenv.Long() {
		cfg = HiddenStatesConfig{DataSets: 10, Sizes: []int{500, 1000}, Seed: 1}
	}
	rows, err := HiddenStates(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if len(r.UniformBIC) != len(HiddenStatesUniform) {
			t.Fatalf("data set %d: %d uniform fits", r.Index, len(r.UniformBIC))
		}
		if !r.AutoAtLeast() {
			t.Errorf("data set %d: auto BIC %.2f above the best uniform count's %.2f (%d states)",
				r.Index, r.AutoBIC, r.UniformBIC[r.BestUniform()], HiddenStatesUniform[r.BestUniform()])
		}
		if r.LearnedHidden > 0 && (r.AutoMin < 2 || r.AutoMax < r.AutoMin) {
			t.Errorf("data set %d: auto chose %d–%d states", r.Index, r.AutoMin, r.AutoMax)
		}
	}
	var md, csvOut bytes.Buffer
	if err := WriteHiddenStatesTable(&md, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteHiddenStatesCSV(&csvOut, rows); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(csvOut.String(), "\n"); got != len(rows)+1 {
		t.Errorf("CSV has %d lines, want %d", got, len(rows)+1)
	}
	t.Log("\n" + md.String())
}
