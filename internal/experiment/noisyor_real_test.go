package experiment

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/noisyor"
)

// TestNoisyorRealSmall runs the comparison on one small simulated network
// with overlapping sources: every method gives a finite test
// log-likelihood, the learner (5 true sources) beats VEM with 2 sources
// by a wide margin (300 nats on 3,000 test rows) and comes within 1% of the truth, and the CSV,
// Markdown and plot are written.
func TestNoisyorRealSmall(t *testing.T) {
	// A smaller network than NoisyorRealSimulated's, for time: 5
	// overlapping sources on 24 effects.
	net, err := noisyor.RandomNetwork(rand.NewPCG(3, 4), noisyor.RandomOptions{Sources: 5, Effects: 24, MinChildren: 6, MaxChildren: 10,
		PriorMin: 0.1, PriorMax: 0.3, FailureMin: 0.05, FailureMax: 0.5, Leak: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	train, err := net.Sample(rand.NewPCG(5, 6), 3000)
	if err != nil {
		t.Fatal(err)
	}
	test, err := net.Sample(rand.NewPCG(7, 8), 3000)
	if err != nil {
		t.Fatal(err)
	}
	sets := []NoisyorRealSet{{Name: "overlap-1", Train: train, Test: test, Truth: net}}
	res, err := NoisyorReal(sets, NoisyorRealConfig{KMin: 2, KMax: 2, Restarts: 1, SkipTree: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		t.Logf("%+v", r)
	}
	ll := map[string]float64{}
	for _, r := range res.Rows {
		if math.IsNaN(r.TestLL) || math.IsInf(r.TestLL, 0) {
			t.Errorf("%s: test LL %v", r.Method, r.TestLL)
		}
		ll[r.Method] = r.TestLL
	}
	if len(res.Rows) != 4 || len(res.VEM["overlap-1"]) != 1 {
		t.Fatalf("rows %+v, VEM curve %v", res.Rows, res.VEM)
	}
	if !(ll["learner"] > ll["vem-best"]+300) {
		t.Errorf("learner %.1f, VEM K=2 %.1f: want the learner ahead by 300", ll["learner"], ll["vem-best"])
	}
	if math.Abs(ll["learner"]-ll["truth"]) > 0.01*math.Abs(ll["truth"]) {
		t.Errorf("learner %.1f, truth %.1f: want within 1%%", ll["learner"], ll["truth"])
	}
	var csv, md, png bytes.Buffer
	if err := WriteNoisyorRealCSV(&csv, res); err != nil {
		t.Fatal(err)
	}
	if err := WriteNoisyorRealMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	if err := PlotNoisyorReal(&png, res, "png"); err != nil {
		t.Fatal(err)
	}
	if strings.Count(csv.String(), "\n") != 1+4+1 || !strings.Contains(md.String(), "| overlap-1 | learner |") || png.Len() == 0 {
		t.Errorf("outputs:\n%s\n%s", csv.String(), md.String())
	}
}

// TestNoisyorRealZeroRows checks that a method giving test rows
// probability 0 is reported as such: the table and CSV give the number of
// those rows and the mean over the others next to the −Inf totals, and the
// plot draws it at that mean.
func TestNoisyorRealZeroRows(t *testing.T) {
	res := &NoisyorRealResult{Rows: []NoisyorRealRow{
		{Data: "d", Method: "learner", K: 3, Edges: 9, TestLL: -150, PerRow: -15, FinitePerRow: -15},
		{Data: "d", Method: "latent-tree", K: 4, TestLL: math.Inf(-1), PerRow: math.Inf(-1), ZeroRows: 2, FinitePerRow: -16.25},
	}, VEM: map[string][][2]float64{"d": {{2, -170}, {3, math.Inf(-1)}}}}
	var csv, md, png bytes.Buffer
	if err := WriteNoisyorRealMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	if err := WriteNoisyorRealCSV(&csv, res); err != nil {
		t.Fatal(err)
	}
	if err := PlotNoisyorReal(&png, res, "png"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| d | learner | 3 | 9 | -150 | -15.0000 | 0 | – |",
		"| d | latent-tree | 4 | – | -Inf | -Inf | 2 | -16.2500 |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if want := "d,latent-tree,4,0,-Inf,-Inf,2,-16.250000,"; !strings.Contains(csv.String(), want) {
		t.Errorf("CSV lacks %q:\n%s", want, csv.String())
	}
	if png.Len() == 0 {
		t.Error("no plot")
	}
}
