package explain

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/model/spectral"
	"github.com/latentree/latentree/noisyor"
	"github.com/latentree/latentree/tree"
)

const tol = 1e-12

func near(a, b float64) bool { return math.Abs(a-b) <= tol }

// star returns a tree with one hidden node "h" and observed x1, x2, x3.
func star(t *testing.T) (*tree.Tree, int, [3]int) {
	t.Helper()
	tr := tree.New()
	h := tr.AddHidden()
	if err := tr.SetName(h, "h"); err != nil {
		t.Fatal(err)
	}
	var xs [3]int
	for i, name := range []string{"x1", "x2", "x3"} {
		x, err := tr.AddObserved(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.AddEdge(h, x, 1); err != nil {
			t.Fatal(err)
		}
		xs[i] = x
	}
	return tr, h, xs
}

// tinyDiscrete is h with P(h) = (0.6, 0.4) and, given h = 0 / 1,
// x1 ~ (0.9, 0.1) / (0.2, 0.8), x2 ~ (0.5, 0.5) / (0.5, 0.5) (independent
// of h), x3 ~ (0.7, 0.3) / (0.4, 0.6).
func tinyDiscrete(t *testing.T) *discrete.Model {
	t.Helper()
	tr, h, xs := star(t)
	m, err := discrete.New(tr, h, []int{2, 2, 2, 2})
	if err != nil {
		t.Fatal(err)
	}
	m.Prior = []float64{0.6, 0.4}
	m.CPT[xs[0]] = []float64{0.9, 0.1, 0.2, 0.8}
	m.CPT[xs[1]] = []float64{0.5, 0.5, 0.5, 0.5}
	m.CPT[xs[2]] = []float64{0.7, 0.3, 0.4, 0.6}
	return m
}

func TestDiscreteHandComputed(t *testing.T) {
	m := tinyDiscrete(t)
	e, err := Model(m, Options{LabelWords: 2})
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != "discrete" || e.FromData || e.Rows != 0 || len(e.Hidden) != 1 {
		t.Fatalf("explanation %+v", e)
	}
	h := e.Hidden[0]
	if h.Name != "h" || h.Label != "x1 · x3" || h.Parent != "" || h.Depth != 0 {
		t.Errorf("hidden %q label %q parent %q depth %d", h.Name, h.Label, h.Parent, h.Depth)
	}
	// P(h, x1) = (0.54 0.06; 0.08 0.32), P(h, x3) = (0.42 0.18; 0.16 0.24):
	// their mutual information, by hand; x2 is independent of h.
	want := []Related{{Name: "x1", MI: 0.26885337311396384}, {Name: "x3", MI: 0.044568752155514785}, {Name: "x2", MI: 0}}
	if len(h.Related) != 3 {
		t.Fatalf("related %+v", h.Related)
	}
	for i, w := range want {
		if g := h.Related[i]; g.Name != w.Name || !near(g.MI, w.MI) {
			t.Errorf("related[%d] = %+v, want %+v", i, g, w)
		}
	}
	// P(x1 = 0) = 0.62, P(x3 = 0) = 0.58.
	wantStates := []State{
		{Label: "0", Share: 0.6, Rising: []Rise{{"x1", "0", 0.9, 0.62}, {"x3", "0", 0.7, 0.58}}},
		{Label: "1", Share: 0.4, Rising: []Rise{{"x1", "1", 0.8, 0.38}, {"x3", "1", 0.6, 0.42}}},
	}
	checkStates(t, h.States, wantStates)
	// One hidden variable: every state has its profile, the CPT rows.
	wantProfile := [][]Answer{
		{{Name: "x1", Mode: "0", Prob: 0.9, States: []string{"0", "1"}, Probs: []float64{0.9, 0.1}}, {Name: "x2", Mode: "0", Prob: 0.5, States: []string{"0", "1"}, Probs: []float64{0.5, 0.5}}, {Name: "x3", Mode: "0", Prob: 0.7, States: []string{"0", "1"}, Probs: []float64{0.7, 0.3}}},
		{{Name: "x1", Mode: "1", Prob: 0.8, States: []string{"0", "1"}, Probs: []float64{0.2, 0.8}}, {Name: "x2", Mode: "0", Prob: 0.5, States: []string{"0", "1"}, Probs: []float64{0.5, 0.5}}, {Name: "x3", Mode: "1", Prob: 0.6, States: []string{"0", "1"}, Probs: []float64{0.4, 0.6}}},
	}
	for s, w := range wantProfile {
		g := h.States[s].Profile
		if len(g) != len(w) {
			t.Fatalf("state %d profile %+v, want %+v", s, g, w)
		}
		for i := range w {
			if g[i].Name != w[i].Name || g[i].Mode != w[i].Mode || !near(g[i].Prob, w[i].Prob) || len(g[i].Probs) != 2 ||
				!near(g[i].Probs[0], w[i].Probs[0]) || !near(g[i].Probs[1], w[i].Probs[1]) || g[i].States[1] != "1" {
				t.Errorf("state %d profile %d = %+v, want %+v", s, i, g[i], w[i])
			}
		}
	}
	if got := e.Labels(); len(got) != 1 || got["h"] != "x1 · x3" {
		t.Errorf("Labels() = %v", got)
	}
	// Top limits every list.
	e1, err := Model(m, Options{Top: 1})
	if err != nil {
		t.Fatal(err)
	}
	if h := e1.Hidden[0]; len(h.Related) != 1 || len(h.States[0].Rising) != 1 || h.Label != "x1" {
		t.Errorf("Top 1: %+v", h)
	}
}

func checkStates(t *testing.T, got, want []State) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d states, want %d: %+v", len(got), len(want), got)
	}
	for s, w := range want {
		g := got[s]
		if g.Label != w.Label || !near(g.Share, w.Share) || len(g.Rising) != len(w.Rising) {
			t.Errorf("state %d = %+v, want %+v", s, g, w)
			continue
		}
		for i, r := range w.Rising {
			x := g.Rising[i]
			if x.Name != r.Name || x.State != r.State || !near(x.Prob, r.Prob) || !near(x.Base, r.Base) {
				t.Errorf("state %d rise %d = %+v, want %+v", s, i, x, r)
			}
		}
	}
}

// TestDiscreteSharesFromData: rows x1 = 0, 0, 1 with x2 and x3 missing
// (marginalised): P(h = 0 | x1 = 0) = 0.54/0.62, P(h = 0 | x1 = 1) =
// 0.06/0.38.
func TestDiscreteSharesFromData(t *testing.T) {
	m := tinyDiscrete(t)
	vars := []data.Variable{
		{Name: "x1", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "x2", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "x3", Kind: data.Discrete, States: []string{"0", "1"}},
	}
	mis := data.Missing
	d, err := data.FromDiscrete(vars, [][]uint16{{0, 0, 1}, {mis, mis, mis}, {mis, mis, mis}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Model(m, Options{Data: d, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !e.FromData || e.Rows != 3 {
		t.Errorf("FromData %v Rows %d", e.FromData, e.Rows)
	}
	want0 := (2*0.54/0.62 + 0.06/0.38) / 3
	st := e.Hidden[0].States
	if !near(st[0].Share, want0) || !near(st[1].Share, 1-want0) {
		t.Errorf("shares %g %g, want %g %g", st[0].Share, st[1].Share, want0, 1-want0)
	}
	// The rises are the model's, whatever the data.
	if r := st[1].Rising[0]; r.Name != "x1" || !near(r.Prob, 0.8) || !near(r.Base, 0.38) {
		t.Errorf("rise %+v", r)
	}
	// Data that do not match the model are an error.
	bad, err := data.FromDiscrete(vars[:2], [][]uint16{{0}, {0}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Model(m, Options{Data: bad}); err == nil {
		t.Error("data without x3: no error")
	}
}

// TestDiscreteDeepAgainstPairMarginal checks the one-pass conditionals
// (down the CPTs, up their Bayes reversals) against model.PairMarginal on
// a tree of three hidden nodes with random parameters, and the order,
// parents and depths.
func TestDiscreteDeepAgainstPairMarginal(t *testing.T) {
	// a(b(x1, x2), c(x3, x4), x5), rooted at b so that a's row needs
	// reversal; hidden states 2, 3, 2.
	tr, err := tree.ParseNewick("((x1,x2)b,(x3,x4)c,x5)a;", tree.NewickOptions{HiddenInternalLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	id := func(name string) int {
		v, ok := tr.Lookup(name)
		if !ok {
			t.Fatalf("no node %s", name)
		}
		return v
	}
	states := make([]int, tr.MaxID())
	for _, v := range tr.Nodes() {
		states[v] = 2
	}
	states[id("a")] = 3
	m, err := discrete.New(tr, id("b"), states)
	if err != nil {
		t.Fatal(err)
	}
	m.Randomize(rand.NewPCG(3, 4))
	e, err := Model(m, Options{Top: 5})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, h := range e.Hidden {
		order = append(order, h.Name+"<"+h.Parent)
	}
	if got := strings.Join(order, " "); got != "b< a<b c<a" {
		t.Errorf("order %q, want %q", got, "b< a<b c<a")
	}
	if e.Hidden[2].Depth != 2 {
		t.Errorf("depth of c %d, want 2", e.Hidden[2].Depth)
	}
	marg := m.Marginals()
	for _, h := range e.Hidden {
		if len(h.Related) != 5 {
			t.Fatalf("%s: %d related", h.Name, len(h.Related))
		}
		prev := math.Inf(1)
		for _, r := range h.Related {
			x := id(r.Name)
			want := mutualInfo(m.PairMarginal(h.Node, x), marg[h.Node], marg[x], 2)
			if math.Abs(r.MI-want) > 1e-12 {
				t.Errorf("MI(%s, %s) = %g, PairMarginal gives %g", h.Name, r.Name, r.MI, want)
			}
			if r.MI > prev {
				t.Errorf("%s: related not in decreasing MI", h.Name)
			}
			prev = r.MI
		}
		for s, st := range h.States {
			if !near(st.Share, marg[h.Node][s]) {
				t.Errorf("%s state %d share %g, marginal %g", h.Name, s, st.Share, marg[h.Node][s])
			}
			for _, r := range st.Rising {
				x := id(r.Name)
				pm := m.PairMarginal(h.Node, x)
				b := 0
				if r.State == "1" {
					b = 1
				}
				if want := pm[s*2+b] / marg[h.Node][s]; math.Abs(r.Prob-want) > 1e-12 || !near(r.Base, marg[x][b]) || r.Prob <= r.Base {
					t.Errorf("%s state %d: %+v, want prob %g base %g", h.Name, s, r, want, marg[x][b])
				}
			}
		}
	}
}

// tinyGaussian is h — x1 (ρ 0.9), h — g (ρ −0.5), g — x2 (ρ 0.8),
// g — x3 (ρ 0.3), rooted at h.
func TestGaussianHandComputed(t *testing.T) {
	tr, err := tree.ParseNewick("(x1,(x2,x3)g)h;", tree.NewickOptions{HiddenInternalLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	id := func(name string) int { v, _ := tr.Lookup(name); return v }
	g, err := gaussian.New(tr, id("h"), 0)
	if err != nil {
		t.Fatal(err)
	}
	g.Rho[id("x1")], g.Rho[id("g")], g.Rho[id("x2")], g.Rho[id("x3")] = 0.9, -0.5, 0.8, 0.3
	e, err := Model(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != "gaussian" || len(e.Hidden) != 2 {
		t.Fatalf("%+v", e)
	}
	want := map[string][]Related{
		"h": {{Name: "x1", Corr: 0.9}, {Name: "x2", Corr: -0.4}, {Name: "x3", Corr: -0.15}},
		"g": {{Name: "x2", Corr: 0.8}, {Name: "x1", Corr: -0.45}, {Name: "x3", Corr: 0.3}},
	}
	for i, name := range []string{"h", "g"} {
		h := e.Hidden[i]
		if h.Name != name || h.States != nil {
			t.Errorf("hidden %d: %+v", i, h)
			continue
		}
		for j, w := range want[name] {
			if r := h.Related[j]; r.Name != w.Name || !near(r.Corr, w.Corr) {
				t.Errorf("%s related %d = %+v, want %+v", name, j, r, w)
			}
		}
	}
	if e.Hidden[1].Label != "x2 · x1 · x3" || e.Hidden[1].Parent != "h" || e.Hidden[1].Depth != 1 {
		t.Errorf("g: %+v", e.Hidden[1])
	}
}

// tinyNetwork: source S (prior 0.2) → a (failure 0.1, leak 0.05), → b
// (failure 0.6); source T (prior 0.5) → b (failure 0.5).
func tinyNetwork() *noisyor.Network {
	return &noisyor.Network{
		Effects: []string{"a", "b"},
		Sources: []noisyor.Source{
			{Name: "S", Prior: 0.2, Children: []noisyor.Child{{Effect: 0, Failure: 0.1}, {Effect: 1, Failure: 0.6}}},
			{Name: "T", Prior: 0.5, Children: []noisyor.Child{{Effect: 1, Failure: 0.5}}},
		},
		Leak: []float64{0.05, 0},
	}
}

func TestNoisyorHandComputed(t *testing.T) {
	e, err := Noisyor(tinyNetwork(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != "noisy-or" || len(e.Hidden) != 2 {
		t.Fatalf("%+v", e)
	}
	s := e.Hidden[0]
	if s.Name != "S" || s.Node != 0 || s.Label != "a · b" {
		t.Errorf("source %+v", s)
	}
	// P(a=0) = 0.95·(1 − 0.2·0.9) = 0.779; P(b=0) = (1 − 0.2·0.4)(1 −
	// 0.5·0.5) = 0.69. Joint of S and a: off (0.76, 0.04), on (0.019,
	// 0.181); of S and b: off (0.6, 0.2), on (0.09, 0.11).
	want := []Related{{Name: "a", MI: 0.3065673524903721, Failure: 0.1}, {Name: "b", MI: 0.0316047859878228, Failure: 0.6}}
	for i, w := range want {
		if r := s.Related[i]; r.Name != w.Name || !near(r.MI, w.MI) || r.Failure != w.Failure {
			t.Errorf("related %d = %+v, want %+v", i, r, w)
		}
	}
	checkStates(t, s.States, []State{
		{Label: "off", Share: 0.8, Rising: []Rise{{"a", "0", 0.95, 0.779}, {"b", "0", 0.75, 0.69}}},
		{Label: "on", Share: 0.2, Rising: []Rise{{"a", "1", 0.905, 0.221}, {"b", "1", 0.55, 0.31}}},
	})
	// T's only effect b: P(b=0 | T off) = 1 − 0.2·0.4 = 0.92.
	checkStates(t, e.Hidden[1].States, []State{
		{Label: "off", Share: 0.5, Rising: []Rise{{"b", "0", 0.92, 0.69}}},
		{Label: "on", Share: 0.5, Rising: []Rise{{"b", "1", 1 - 0.92*0.5, 0.31}}},
	})
}

// TestNoisyorSharesFromData: one source (prior 0.2) with one effect
// (failure 0.1), rows x = 1 and x = 0: P(on | x=1) = 1, P(on | x=0) =
// 0.02/0.82.
func TestNoisyorSharesFromData(t *testing.T) {
	n := &noisyor.Network{Effects: []string{"x"}, Sources: []noisyor.Source{{Name: "S", Prior: 0.2, Children: []noisyor.Child{{Effect: 0, Failure: 0.1}}}}}
	d, err := data.FromDiscrete([]data.Variable{{Name: "x", Kind: data.Discrete, States: []string{"0", "1"}}}, [][]uint16{{1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Noisyor(n, Options{Data: d})
	if err != nil {
		t.Fatal(err)
	}
	want := (1 + 0.02/0.82) / 2
	if st := e.Hidden[0].States; !e.FromData || e.Rows != 2 || !near(st[1].Share, want) || !near(st[0].Share, 1-want) {
		t.Errorf("from data %v rows %d shares %+v, want on %g", e.FromData, e.Rows, st, want)
	}
}

func TestErrors(t *testing.T) {
	m := tinyDiscrete(t)
	for _, opt := range []Options{{Top: -1}, {LabelWords: -2}, {Workers: -1}} {
		if _, err := Model(m, opt); err == nil {
			t.Errorf("%+v: no error", opt)
		}
	}
	if _, err := Model(nil, Options{}); err == nil {
		t.Error("nil model: no error")
	}
	if _, err := Model((*discrete.Model)(nil), Options{}); err == nil {
		t.Error("nil *Discrete: no error")
	}
	if _, err := Model(&spectral.Model{}, Options{}); err == nil || !strings.Contains(err.Error(), "spectral") {
		t.Errorf("spectral model: %v", err)
	}
	bad := tinyDiscrete(t)
	bad.Prior = []float64{0.5, 0.6}
	if _, err := Model(bad, Options{}); err == nil {
		t.Error("invalid model: no error")
	}
	if _, err := Noisyor(nil, Options{}); err == nil {
		t.Error("nil network: no error")
	}
	n := tinyNetwork()
	n.Sources[0].Prior = 0
	if _, err := Noisyor(n, Options{}); err == nil {
		t.Error("invalid network: no error")
	}
}

func TestWriteTextAndJSON(t *testing.T) {
	m := tinyDiscrete(t)
	e, err := Model(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := e.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{
		"h (x1 · x3 · x2), depth 0\n",
		"related (mutual information, nats): x1 0.269, x3 0.045, x2 0.000\n",
		"state 0 (60%): x1=0 0.90 (0.62), x3=0 0.70 (0.58)\n",
		"state 1 (40%): x1 0.80 (0.38), x3 0.60 (0.42)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	raw, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back Explanation
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.Hidden[0].States[1].Rising[0] != e.Hidden[0].States[1].Rising[0] || !strings.Contains(string(raw), `"kind":"discrete"`) {
		t.Errorf("JSON round trip: %s", raw)
	}
	g, err := Noisyor(tinyNetwork(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := g.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "related (failure probability): a 0.10, b 0.60\n") ||
		!strings.Contains(buf.String(), "state on (20%): a 0.91 (0.22), b 0.55 (0.31)\n") {
		t.Errorf("noisy-or text:\n%s", buf.String())
	}
}

// A Top far above the number of observed variables lists them all, with
// memory for the variables, not for Top (explain --top 2000000000 reached
// 11.9 GB; math.MaxInt overflowed the allocation).
func TestTopAboveObserved(t *testing.T) {
	if got := topIndices([]float64{3, 1, 2}, math.MaxInt); !slices.Equal(got, []int{0, 2, 1}) {
		t.Fatalf("topIndices(MaxInt) = %v, want [0 2 1]", got)
	}
	m := tinyDiscrete(t)
	want, err := Model(m, Options{Top: 3})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := Model(m, Options{Top: 1 << 40})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > 1<<20 {
		t.Errorf("Top 2^40 allocated %d bytes", a)
	}
	if !reflect.DeepEqual(got.Hidden, want.Hidden) {
		t.Errorf("Top 2^40 and Top 3 (all observed) differ:\n%+v\n%+v", got.Hidden, want.Hidden)
	}
}
