package experiment

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
)

// TestMixed is the short form of `latentree experiment mixed`: NJ
// recovers every random mixed tree exactly from its exact distances, and
// at 5,000 training rows the mixed model's held-out log-likelihood is
// above that of the drop-one-kind alternatives and the coded Gaussian
// tree on each of two trees (by more than 0.01 nats per row; the
// discretised alternative, whose discrete fit takes most of the time, is
// left to the full run, results/mixed.md).
func TestMixed(t *testing.T) {
	cfg := MixedConfig{
		RecoveryTrees: 6, Methods: []learn.Method{learn.NJ, learn.CLNJ}, Sizes: []int{2000},
		LikelihoodTrees: 2, LikelihoodMinLeaves: 6, LikelihoodMaxLeaves: 8, LikelihoodSizes: []int{5000},
		LikelihoodMethods: []string{MixedDropDiscrete, MixedDropContinuous, MixedCoded},
		TestRows:          2000, Seed: 3,
	}
	res, err := Mixed(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Recovery {
		if r.Trees != 6 {
			t.Errorf("%s, %d rows: %d trees, want 6", r.Method, r.Rows, r.Trees)
		}
		if r.Rows == 0 && r.Method == string(learn.NJ) && r.Exact != r.Trees {
			t.Errorf("nj recovered %d of %d trees from exact distances", r.Exact, r.Trees)
		}
	}
	byTree := map[int]map[string]float64{}
	for _, r := range res.Records {
		if r.Part != "likelihood" {
			continue
		}
		if byTree[r.Tree] == nil {
			byTree[r.Tree] = map[string]float64{}
		}
		byTree[r.Tree][r.Method] = r.LogLik
	}
	if len(byTree) != 2 {
		t.Fatalf("%d likelihood trees, want 2", len(byTree))
	}
	for tree, ll := range byTree {
		if len(ll) != 5 {
			t.Errorf("tree %d: %d methods, want 5", tree, len(ll))
		}
		for m, x := range ll {
			if m != MixedTrue && m != MixedModel && !(ll[MixedModel] > x+0.01) {
				t.Errorf("tree %d: mixed model %.4f nats/row, %s %.4f", tree, ll[MixedModel], m, x)
			}
		}
		// The true model is the ceiling up to sampling noise of 2,000
		// test rows.
		if ll[MixedModel] > ll[MixedTrue]+0.05 {
			t.Errorf("tree %d: mixed model %.4f above the true model's %.4f", tree, ll[MixedModel], ll[MixedTrue])
		}
	}
	if beats := res.MixedBeatsAll(); !beats[5000] {
		t.Errorf("MixedBeatsAll %v", beats)
	}
	var csv, md, svg bytes.Buffer
	if err := WriteMixedCSV(&csv, res); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(csv.String(), "\n"), len(res.Records)+1; got != want {
		t.Errorf("CSV has %d lines, want %d", got, want)
	}
	if err := WriteMixedTable(&md, res); err != nil {
		t.Fatal(err)
	}
	if err := PlotMixed(&svg, res, "svg"); err != nil || !strings.Contains(svg.String(), "<svg") {
		t.Errorf("plot: %v", err)
	}
	t.Log("\n" + md.String())
	if _, err := Mixed(context.Background(), MixedConfig{Bins: 1}); err == nil {
		t.Error("1 bin accepted")
	}
}

// Quantile bins by hand: ten values 1..10 in 5 bins cut at the midpoints
// 2.5, 4.5, 6.5 and 8.5, the outer bins ending at 1 and 10; a value
// beyond them takes the outer bin.
func TestMixedBins(t *testing.T) {
	vals := []float64{7, 1, 2, 3, 4, 5, 6, 8, 9, 10, math.NaN()}
	e, err := binEdges(vals, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 2.5, 4.5, 6.5, 8.5, 10}
	if len(e) != len(want) {
		t.Fatalf("edges %v, want %v", e, want)
	}
	for i := range want {
		if e[i] != want[i] {
			t.Fatalf("edges %v, want %v", e, want)
		}
	}
	for _, c := range []struct {
		x float64
		b int
	}{{-5, 0}, {1, 0}, {2.4, 0}, {2.5, 1}, {4, 1}, {8.5, 4}, {10, 4}, {99, 4}} {
		if b := binOf(e, c.x); b != c.b {
			t.Errorf("bin of %g: %d, want %d", c.x, b, c.b)
		}
	}
	if _, err := binEdges([]float64{3, 3, 3}, 5); err == nil {
		t.Error("constant column cut into bins")
	}
	// A continuous column x and a discrete one y; test row x=2 (bin 1 of
	// width 2, i.e. −log 2 from the density) and x=11 (bin 4, width 1.5).
	train, err := data.New([]data.Variable{{Name: "x", Kind: data.Continuous}, {Name: "y", Kind: data.Discrete, States: []string{"a", "b"}}}, 10)
	if err != nil {
		t.Fatal(err)
	}
	copy(train.Continuous(0), vals[:10])
	for r := range 10 {
		train.Discrete(1)[r] = uint16(r % 2)
	}
	test, _ := data.New(train.Vars(), 2)
	test.Continuous(0)[0], test.Continuous(0)[1] = 3, 11
	trD, teD, logWidth, err := discretise(train, test, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := logWidth, math.Log(2)+math.Log(1.5); math.Abs(got-want) > 1e-12 {
		t.Errorf("Σ log width %g, want %g", got, want)
	}
	if trD.Var(0).NumStates() != 5 || teD.Discrete(0)[0] != 1 || teD.Discrete(0)[1] != 4 || !trD.AllDiscrete() {
		t.Errorf("discretised: %v states, test bins %v", trD.Var(0).NumStates(), teD.Discrete(0))
	}
	// Marginals: y has 5 a and 5 b, so P(a) = 5.5/11 = ½ (with ½ added);
	// x has mean 5.5 and variance 8.25.
	ll, params, err := marginalScore(train, test, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	want0 := 2*math.Log(0.5) - math.Log(2*math.Pi*8.25) - ((3-5.5)*(3-5.5)+(11-5.5)*(11-5.5))/(2*8.25)
	if math.Abs(ll-want0) > 1e-12 || params != 3 {
		t.Errorf("marginals: %g with %d parameters, want %g with 3", ll, params, want0)
	}
}
