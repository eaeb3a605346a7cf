package discrete

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/model"
)

func TestModelJSONRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	m := smallModel(t, rng)
	d := randomData(t, m, rng, 200, 0.1)
	var buf bytes.Buffer
	prov := &model.Provenance{Method: "test", Data: &model.DataInfo{Rows: 200}}
	if err := m.WriteJSON(&buf, prov); err != nil {
		t.Fatal(err)
	}
	m2, p2, err := ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if p2 == nil || p2.Method != "test" || p2.Data.Rows != 200 {
		t.Errorf("provenance %+v", p2)
	}
	a, _, _ := m.LogLikelihood(d, model.InferOptions{})
	b, _, err := m2.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("row %d: %g before, %g after the round trip", i, a[i], b[i])
		}
	}
	if m.NumParams() != m2.NumParams() {
		t.Error("parameter count changed")
	}
}

func TestModelJSONErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	m := smallModel(t, rng)
	var buf bytes.Buffer
	if err := m.WriteJSON(&buf, nil); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	cases := map[string]string{
		"not json": "{",
		"format":   strings.Replace(good, `"latentree-model"`, `"something-else"`, 1),
		"version":  strings.Replace(good, `"version": 1,`, `"version": 7,`, 1),
		"root":     strings.Replace(good, `"root": "`, `"root": "zz`, 1),
		"bad prob": strings.Replace(good, `"prior": [`, `"prior": [7,`, 1),
		"no tree":  strings.Replace(good, `"tree"`, `"trie"`, 1),
		"states":   strings.Replace(good, `"states": 2`, `"states": 0`, 1),
	}
	for name, doc := range cases {
		if doc == good {
			t.Fatalf("%s: the replacement did not apply", name)
		}
		if _, _, err := ReadJSON(strings.NewReader(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestScoreAndKL(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	m := smallModel(t, rng)
	// κ by hand for this model.
	r := m.Rooted()
	want := m.States[m.Root] - 1
	for _, v := range r.Order {
		if v != m.Root {
			want += m.States[r.Parent[v]] * (m.States[v] - 1)
		}
	}
	if m.NumParams() != want {
		t.Errorf("κ = %d, want %d", m.NumParams(), want)
	}
	d := randomData(t, m, rng, 100, 0)
	s, err := m.Score(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.BIC-(-2*s.LogLik+float64(want)*math.Log(100))) > 1e-9 || math.Abs(s.BICPaper+s.BIC/2) > 1e-9 {
		t.Errorf("BIC conventions: %+v", s)
	}
	if kl, _, _ := KL(m, m, KLOptions{}); math.Abs(kl) > 1e-12 {
		t.Errorf("KL(p,p) = %g", kl)
	}
	q := m.Clone()
	q.Randomize(rng)
	exact, _, err := KL(m, q, KLOptions{})
	if err != nil || exact <= 0 {
		t.Fatalf("KL(p,q) = %g, %v", exact, err)
	}
	mc, se, err := KL(m, q, KLOptions{MaxEnumerate: 1, Samples: 200000, Src: rng})
	if err != nil || se <= 0 || math.Abs(mc-exact) > 5*se {
		t.Errorf("Monte Carlo KL %g ± %g, exact %g (%v)", mc, se, exact, err)
	}
}

// TestEMRecoversDistribution fits EM with the true structure to samples of
// growing size: the KL divergence from the true observed distribution to
// the fitted one falls (fixed seeds; the stated bounds hold with margin).
func TestEMRecoversDistribution(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	truth := smallModel(t, rng)
	prev := math.Inf(1)
	for _, n := range []int{500, 5000, 50000} {
		d, _ := truth.Sample(rng, n)
		fit := truth.Clone()
		fit.Randomize(rng)
		if _, err := fit.FitEM(d, model.EMOptions{Tol: 1e-7, MaxIter: 2000, Src: rng}); err != nil {
			t.Fatal(err)
		}
		kl, _, err := KL(truth, fit, KLOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("n=%d KL=%.5f", n, kl)
		if kl > prev*1.2 {
			t.Errorf("n=%d: KL %g did not fall (previous %g)", n, kl, prev)
		}
		prev = kl
	}
	if prev > 0.005 {
		t.Errorf("KL at n=50000 is %g, want < 0.005", prev)
	}
}
