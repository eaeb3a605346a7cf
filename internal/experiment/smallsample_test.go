package experiment

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/latentree/latentree/internal/testenv"
)

// TestSmallSample runs a few small trees (fixed seed) and checks the bar
// of issue 10: the default is at least as good in BIC as the Chow–Liu tree
// and as the method without contraction, in every tree (so on average
// too), and the tables are written. 2 trees at 100 and 300 rows; 4 with
// LATENTREE_LONG=1 (the default run had 4, half its time).
func TestSmallSample(t *testing.T) {
	trees, sizes := testenv.Pick(2, 4), []int{100, 300}
	if testing.Short() {
		trees, sizes = 2, []int{100}
	}
	rows, err := SmallSample(context.Background(), SmallSampleConfig{Trees: trees, Sizes: sizes, MinObserved: 12, MaxObserved: 16, TestRows: 300, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * len(sizes) * 3; len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	for _, r := range rows {
		if r.Trees != trees {
			t.Errorf("%s n=%d %s: %d trees, want %d", r.Kind, r.Samples, r.Method, r.Trees, trees)
		}
		for _, v := range []int{VariantCL, VariantNone} {
			if r.AtLeast[v] != 1 || r.MeanBIC[VariantDefault] > r.MeanBIC[v] {
				t.Errorf("%s n=%d %s: default BIC/n %.4f vs %s %.4f, at least as good in %.0f%% of trees",
					r.Kind, r.Samples, r.Method, r.MeanBIC[VariantDefault], SmallSampleVariants[v], r.MeanBIC[v], 100*r.AtLeast[v])
			}
		}
		if r.MeanHidden[VariantDefault] > r.MeanHidden[VariantNone] {
			t.Errorf("%s n=%d %s: contraction added hidden variables", r.Kind, r.Samples, r.Method)
		}
	}
	var txt, csvOut bytes.Buffer
	if err := WriteSmallSampleTable(&txt, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteSmallSampleCSV(&csvOut, rows); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(csvOut.String(), "\n"); got != len(rows)+1 {
		t.Errorf("CSV has %d lines, want %d", got, len(rows)+1)
	}
	t.Log("\n" + txt.String())
	if _, err := SmallSample(context.Background(), SmallSampleConfig{Kinds: []string{"poisson"}}); err == nil {
		t.Error("unknown kind accepted")
	}
}
