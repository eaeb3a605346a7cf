package explain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
)

// entropyOf is −Σ p ln p, written out for the hand computations below.
func entropyOf(p ...float64) float64 {
	h := 0.0
	for _, x := range p {
		if x > 0 {
			h -= x * math.Log(x)
		}
	}
	return h
}

// TestClassifyByHand checks every measure on a posterior matrix of four
// rows and two states (and a fifth row of probability 0, left out)
// against values worked out by hand.
func TestClassifyByHand(t *testing.T) {
	nan := math.NaN()
	c := model.Conditional{Node: 7, Name: "h", Labels: []string{"a", "b"}, Prob: []float64{
		0.9, 0.1,
		0.8, 0.2,
		nan, nan,
		0.3, 0.7,
		0.4, 0.6,
	}}
	q, err := Classify(c)
	if err != nil {
		t.Fatal(err)
	}
	if q.Node != 7 || q.Name != "h" || q.Rows != 4 {
		t.Fatalf("node %d name %q rows %d", q.Node, q.Name, q.Rows)
	}
	// Shares: (0.9+0.8+0.3+0.4)/4 = 0.6; two rows assigned to each state.
	// Table: rows 1–2 assigned to a hold 1.7 of a and 0.3 of b, rows 3–4
	// assigned to b hold 0.7 of a and 1.3 of b.
	e := (entropyOf(0.9, 0.1) + entropyOf(0.8, 0.2) + entropyOf(0.3, 0.7) + entropyOf(0.4, 0.6)) / 4
	want := Classification{
		ModelShares: []float64{0.6, 0.4}, ModalShares: []float64{0.5, 0.5},
		Entropy: e, EntropyR2: 1 - e/entropyOf(0.6, 0.4), RelativeEntropy: 1 - e/math.Log(2),
		Error: 1 - (1.7+1.3)/4,
		Table: [][]float64{{1.7, 0.7}, {0.3, 1.3}},
		AvePP: [][]float64{{0.85, 0.15}, {0.35, 0.65}},
	}
	checkClassification(t, q, &want)
	if q.EntropyR2 >= q.RelativeEntropy {
		t.Errorf("unequal shares: entropy R² %g should be below the relative entropy %g", q.EntropyR2, q.RelativeEntropy)
	}
}

// TestClassifyUnassignedState: three states, the third never the most
// likely (its AvePP row is zeros), ties go to the first state.
func TestClassifyUnassignedState(t *testing.T) {
	c := model.Conditional{Labels: []string{"1", "2", "3"}, Prob: []float64{
		0.5, 0.2, 0.3,
		0.1, 0.6, 0.3,
		0.4, 0.4, 0.2, // a tie: state 1
	}}
	q, err := Classify(c)
	if err != nil {
		t.Fatal(err)
	}
	e := (entropyOf(0.5, 0.2, 0.3) + entropyOf(0.1, 0.6, 0.3) + entropyOf(0.4, 0.4, 0.2)) / 3
	want := Classification{
		ModelShares: []float64{1.0 / 3, 0.4, 0.8 / 3}, ModalShares: []float64{2.0 / 3, 1.0 / 3, 0},
		Entropy: e, EntropyR2: 1 - e/entropyOf(1.0/3, 0.4, 0.8/3), RelativeEntropy: 1 - e/math.Log(3),
		Error: 1 - (0.9+0.6)/3,
		Table: [][]float64{{0.9, 0.1, 0}, {0.6, 0.6, 0}, {0.5, 0.3, 0}},
		AvePP: [][]float64{{0.45, 0.3, 0.25}, {0.1, 0.6, 0.3}, {0, 0, 0}},
	}
	checkClassification(t, q, &want)
}

func checkClassification(t *testing.T, got, want *Classification) {
	t.Helper()
	const tol = 1e-12
	vec := func(what string, g, w []float64) {
		if len(g) != len(w) {
			t.Errorf("%s: %v, want %v", what, g, w)
			return
		}
		for i := range w {
			if math.Abs(g[i]-w[i]) > tol {
				t.Errorf("%s: %v, want %v", what, g, w)
				return
			}
		}
	}
	vec("model shares", got.ModelShares, want.ModelShares)
	vec("modal shares", got.ModalShares, want.ModalShares)
	vec("entropy, R², relative entropy, error", []float64{got.Entropy, got.EntropyR2, got.RelativeEntropy, got.Error},
		[]float64{want.Entropy, want.EntropyR2, want.RelativeEntropy, want.Error})
	if len(got.Table) != len(want.Table) || len(got.AvePP) != len(want.AvePP) {
		t.Fatalf("table %v avepp %v", got.Table, got.AvePP)
	}
	for k := range want.Table {
		vec("classification table row", got.Table[k], want.Table[k])
		vec("AvePP row", got.AvePP[k], want.AvePP[k])
	}
}

func TestClassifyDegenerate(t *testing.T) {
	// One state: every measure is 1, nothing is uncertain.
	q, err := Classify(model.Conditional{Labels: []string{"only"}, Prob: []float64{1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if q.EntropyR2 != 1 || q.RelativeEntropy != 1 || q.Error != 0 || q.Rows != 2 {
		t.Errorf("one state: %+v", q)
	}
	if _, err := Classify(model.Conditional{Name: "h", Labels: []string{"a", "b"}, Prob: []float64{math.NaN(), math.NaN()}}); err == nil {
		t.Error("no row with a defined posterior: no error")
	}
	if _, err := Classify(model.Conditional{Labels: []string{"a", "b"}, Prob: []float64{1}}); err == nil {
		t.Error("ragged posteriors: no error")
	}
	if _, err := Classify(model.Conditional{}); err == nil {
		t.Error("no states: no error")
	}
}

// TestClassifyModelByBayes classifies three rows by tinyDiscrete's hidden
// variable, with posteriors worked out by Bayes' rule by hand, and checks
// that Model with the data carries the same classification.
func TestClassifyModelByBayes(t *testing.T) {
	m := tinyDiscrete(t)
	vars := []data.Variable{
		{Name: "x1", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "x2", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "x3", Kind: data.Discrete, States: []string{"0", "1"}},
	}
	mis := data.Missing
	d, err := data.FromDiscrete(vars, [][]uint16{{0, 1, mis}, {1, 0, mis}, {1, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	// Row 1: x1=0, x3=1: 0.6·0.9·0.3 vs 0.4·0.2·0.6; row 2: x1=1, x3=0:
	// 0.6·0.1·0.7 vs 0.4·0.8·0.4; row 3: x3=0: 0.6·0.7 vs 0.4·0.4 (x2 is
	// independent of h).
	post := func(a, b float64) float64 { return a / (a + b) }
	p := []float64{post(0.6*0.9*0.3, 0.4*0.2*0.6), post(0.6*0.1*0.7, 0.4*0.8*0.4), post(0.6*0.7, 0.4*0.4)}
	cs, err := ClassifyModel(m, d, model.InferOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 {
		t.Fatalf("%d classifications", len(cs))
	}
	q, err := Classify(model.Conditional{Node: cs[0].Node, Name: "h", Labels: []string{"0", "1"}, Prob: []float64{p[0], 1 - p[0], p[1], 1 - p[1], p[2], 1 - p[2]}})
	if err != nil {
		t.Fatal(err)
	}
	checkClassification(t, &cs[0], q)
	if p[0] < 0.5 || p[1] > 0.5 || p[2] < 0.5 {
		t.Fatalf("hand posteriors %v: the modal states below assume 0, 1, 0", p)
	}
	if !near(cs[0].ModalShares[0], 2.0/3) {
		t.Errorf("modal shares %v, want 2/3 in state 0", cs[0].ModalShares)
	}
	e, err := Model(m, Options{Data: d, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := e.Hidden[0].Classification
	if got == nil {
		t.Fatal("Model with data: no classification")
	}
	checkClassification(t, got, q)
	for s, st := range e.Hidden[0].States {
		if !near(st.Share, got.ModelShares[s]) {
			t.Errorf("state %d: share %g, classification's model share %g", s, st.Share, got.ModelShares[s])
		}
	}
	// Without data there is nothing to classify.
	if e, err := Model(m, Options{}); err != nil || e.Hidden[0].Classification != nil {
		t.Errorf("without data: classification %v, error %v", e.Hidden[0].Classification, err)
	}
}

// TestClassifyMixed: the discrete hidden variables of a mixed model are
// classified through its Conditionals, and Model carries them.
func TestClassifyMixed(t *testing.T) {
	m, id := tinyMixed(t)
	d, err := m.Sample(rand.NewPCG(5, 6), 200)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := ClassifyModel(m, d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Node != id["h0"] || cs[1].Node != id["h1"] {
		t.Fatalf("classified %+v, want h0 then h1", cs)
	}
	cond, err := m.Conditionals(d, []int{id["h1"]}, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Classify(cond[0])
	if err != nil {
		t.Fatal(err)
	}
	checkClassification(t, &cs[1], want)
	e, err := Model(m, Options{Data: d})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range e.Hidden {
		if (h.Kind == "discrete") != (h.Classification != nil) {
			t.Errorf("%s (%s): classification %v", h.Name, h.Kind, h.Classification)
		}
	}
}
