package mixed

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// ioFixture is a hand-made mixed model with every kind of edge:
//
//	h0 (hidden, discrete 2, root)
//	├── x1 (discrete a/b/c) ── x7 (continuous, a mean and variance per state of x1)
//	├── x2 (continuous, per state of h0)
//	├── h1 (hidden continuous, per state of h0; marginal mean 0, variance 1)
//	│   ├── x3 = 1 + 0.8·h1 + N(0, 0.36)
//	│   └── x4 = −2 − 1.5·h1 + N(0, 1)
//	└── h2 (hidden, discrete 2)
//	    ├── x5 (discrete 2)
//	    └── x6 (continuous, per state of h2)
func ioFixture(t testing.TB) *Model {
	t.Helper()
	tr := tree.New()
	id := map[string]int{}
	for _, n := range []string{"h0", "h1", "h2"} {
		id[n] = tr.AddHidden()
		if err := tr.SetName(id[n], n); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"x1", "x2", "x3", "x4", "x5", "x6", "x7"} {
		v, err := tr.AddObserved(n)
		if err != nil {
			t.Fatal(err)
		}
		id[n] = v
	}
	for _, e := range [][2]string{{"h0", "x1"}, {"x1", "x7"}, {"h0", "x2"}, {"h0", "h1"}, {"h1", "x3"}, {"h1", "x4"}, {"h0", "h2"}, {"h2", "x5"}, {"h2", "x6"}} {
		if err := tr.AddEdge(id[e[0]], id[e[1]], math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	kinds := make([]data.Kind, tr.MaxID())
	states := make([]int, tr.MaxID())
	for n, k := range map[string]int{"h0": 2, "x1": 3, "h2": 2, "x5": 2} {
		states[id[n]] = k
	}
	for _, n := range []string{"x2", "x3", "x4", "x6", "x7", "h1"} {
		kinds[id[n]] = data.Continuous
	}
	m, err := New(tr, id["h0"], kinds, states)
	if err != nil {
		t.Fatal(err)
	}
	m.Prior = []float64{0.3, 0.7}
	m.Labels[id["x1"]] = []string{"a", "b", "c"}
	m.CPT[id["x1"]] = []float64{0.7, 0.2, 0.1, 0.1, 0.3, 0.6}
	m.Mean[id["x7"]], m.Var[id["x7"]] = []float64{-2, 0, 3}, []float64{0.5, 1, 2}
	m.Mean[id["x2"]], m.Var[id["x2"]] = []float64{-1, 2}, []float64{1, 0.25}
	// Means −0.7, 0.3 under prior 0.3, 0.7: mean 0, variance 0.21 + 0.79.
	m.Mean[id["h1"]], m.Var[id["h1"]] = []float64{-0.7, 0.3}, []float64{0.79, 0.79}
	m.Mean[id["x3"]], m.Var[id["x3"]], m.Coef[id["x3"]] = []float64{1}, []float64{0.36}, 0.8
	m.Mean[id["x4"]], m.Var[id["x4"]], m.Coef[id["x4"]] = []float64{-2}, []float64{1}, -1.5
	m.CPT[id["h2"]] = []float64{0.8, 0.2, 0.25, 0.75}
	m.CPT[id["x5"]] = []float64{0.9, 0.1, 0.2, 0.8}
	m.Mean[id["x6"]], m.Var[id["x6"]] = []float64{0, 1.5}, []float64{1, 1}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

func ioNode(t testing.TB, m *Model, name string) int {
	t.Helper()
	v, ok := m.Tree.Lookup(name)
	if !ok {
		t.Fatalf("no node %s", name)
	}
	return v
}

func writeDoc(t testing.TB, m *Model, prov *model.Provenance) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := m.WriteJSON(&b, prov); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A model written and read back has the same tree, root, kinds, states,
// labels and parameters (bit for bit), and writes the same document.
func TestJSONRoundTrip(t *testing.T) {
	m := ioFixture(t)
	prov := &model.Provenance{Method: "by hand", Data: &model.DataInfo{Rows: 12}}
	doc := writeDoc(t, m, prov)
	got, gotProv, err := read(doc)
	if err != nil {
		t.Fatal(err)
	}
	if gotProv == nil || gotProv.Method != "by hand" || gotProv.Data.Rows != 12 {
		t.Errorf("provenance %+v", gotProv)
	}
	if got.Tree.Name(got.Root) != "h0" || got.Tree.NumNodes() != m.Tree.NumNodes() || got.Tree.NumEdges() != m.Tree.NumEdges() {
		t.Fatalf("tree or root differs: root %s", got.Tree.Name(got.Root))
	}
	for _, v := range m.Tree.Nodes() {
		name := m.Tree.Name(v)
		w := ioNode(t, got, name)
		if got.Kinds[w] != m.Kinds[v] || got.States[w] != m.States[v] {
			t.Errorf("%s: kind %v states %d, want %v %d", name, got.Kinds[w], got.States[w], m.Kinds[v], m.States[v])
		}
		if !reflect.DeepEqual(got.StateLabels(w), m.StateLabels(v)) {
			t.Errorf("%s: labels %v, want %v", name, got.StateLabels(w), m.StateLabels(v))
		}
		if !reflect.DeepEqual(got.CPT[w], m.CPT[v]) || !reflect.DeepEqual(got.Mean[w], m.Mean[v]) ||
			!reflect.DeepEqual(got.Var[w], m.Var[v]) || got.Coef[w] != m.Coef[v] {
			t.Errorf("%s: parameters differ", name)
		}
	}
	if !reflect.DeepEqual(got.Prior, m.Prior) {
		t.Errorf("prior %v, want %v", got.Prior, m.Prior)
	}
	if again := writeDoc(t, got, prov); !bytes.Equal(again, doc) {
		a, b := string(again), string(doc)
		i := 0
		for i < min(len(a), len(b)) && a[i] == b[i] {
			i++
		}
		t.Errorf("the document read back writes differently from byte %d: %q vs %q", i, a[i:min(len(a), i+80)], b[i:min(len(b), i+80)])
	}
}

// A continuous root (an all-continuous model) round-trips too.
func TestJSONContinuousRoot(t *testing.T) {
	tr := tree.New()
	h := tr.AddHidden()
	kinds := []data.Kind{data.Continuous}
	for _, n := range []string{"a", "b", "c"} {
		v, _ := tr.AddObserved(n)
		if err := tr.AddEdge(h, v, math.NaN()); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, data.Continuous)
	}
	m, err := New(tr, h, kinds, make([]int, 4))
	if err != nil {
		t.Fatal(err)
	}
	m.Coef[1], m.Coef[2], m.Coef[3] = 0.5, -2, 1e-300
	got, _, err := read(writeDoc(t, m, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got.Kinds[got.Root] != data.Continuous || got.Prior != nil || !reflect.DeepEqual(got.Coef, m.Coef) {
		t.Errorf("continuous root read back as kind %v, prior %v, coefficients %v", got.Kinds[got.Root], got.Prior, got.Coef)
	}
}

// Every way a document can be wrong is an error naming the problem.
func TestJSONReadErrors(t *testing.T) {
	doc := string(writeDoc(t, ioFixture(t), nil))
	// edit replaces the first occurrence of old in the document's node
	// entries (in the header when old is not there).
	edit := func(old, new string) string {
		at := strings.LastIndex(doc, `"nodes"`)
		if !strings.Contains(doc[at:], old) {
			if !strings.Contains(doc, old) {
				t.Fatalf("fixture document has no %q", old)
			}
			return strings.Replace(doc, old, new, 1)
		}
		return doc[:at] + strings.Replace(doc[at:], old, new, 1)
	}
	cases := []struct{ name, doc, want string }{
		{"not json", "{", "not a latentree model file"},
		{"type", edit(`"type": "mixed"`, `"type": "gaussian"`), "want mixed"},
		{"version", edit(`"version": 1`, `"version": 2`), "version"},
		{"no tree", edit(`"tree"`, `"tree0"`), "no tree"},
		{"root", edit(`"root": "h0"`, `"root": "zz"`), "root"},
		{"unknown node", edit(`"name": "x2"`, `"name": "zz"`), "not in the tree"},
		{"twice", edit(`"name": "x2"`, `"name": "x3"`), "twice"},
		{"hidden", edit(`"name": "x2",
   "hidden": false`, `"name": "x2",
   "hidden": true`), "hidden in one place"},
		{"kind", edit(`"kind": "continuous"`, `"kind": "ordinal"`), "kind"},
		{"parent", edit(`"parent": "h1"`, `"parent": "h0"`), "parent"},
		{"states", edit(`"states": 3`, `"states": 70000`), "states"},
		{"labels", edit(`"states": 3`, `"states": 2`), "labels"},
		{"dup label", edit(`"b"`, `"a"`), "twice"},
		{"empty label", edit(`"b"`, `""`), "empty label"},
		{"cpt rows", edit(`"states": 3`, `"states": 4`), ""},
		{"prob", edit(`0.8,`, `1.8,`), "probability"},
		{"sum", edit(`0.25,`, `0.15,`), "sums"},
		{"variance", edit(`0.36`, `-0.36`), "variance"},
		{"means", edit(`-0.7,`, ``), "means"},
		{"no coef", edit(`"coef": 0.8`, `"coef0": 0.8`), "coefficient"},
		{"kind swap", edit(`"kind": "discrete"`, `"kind": "continuous"`), ""},
	}
	for _, c := range cases {
		_, _, err := read([]byte(c.doc))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not say %q", c.name, err, c.want)
		}
	}
}

// A document claiming huge tables with small bodies fails before
// allocating them.
func TestJSONHugeClaims(t *testing.T) {
	doc := string(writeDoc(t, ioFixture(t), nil))
	// x5's parent h2 claims 65535 states: its own CPT has 2 rows, x5's too.
	bad := strings.Replace(doc, `"name": "h2",
   "hidden": true,
   "kind": "discrete",
   "states": 2`, `"name": "h2",
   "hidden": true,
   "kind": "discrete",
   "states": 65535`, 1)
	if bad == doc {
		t.Fatal("fixture document did not change")
	}
	if _, _, err := read([]byte(bad)); err == nil {
		t.Error("no error")
	}
}

// FuzzReadMixed: read never panics, and a model it returns writes and
// reads back to the same document.
func FuzzReadMixed(f *testing.F) {
	f.Add(writeDoc(f, ioFixture(f), nil))
	f.Add([]byte(`{"format":"latentree-model","version":1,"type":"mixed"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		m, _, err := read(in)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Error("empty error message")
			}
			return
		}
		var b bytes.Buffer
		if err := m.WriteJSON(&b, nil); err != nil {
			t.Fatalf("a model read does not write: %v", err)
		}
		m2, _, err := read(b.Bytes())
		if err != nil {
			t.Fatalf("a model read from the input does not read back after writing: %v", err)
		}
		var b2 bytes.Buffer
		if err := m2.WriteJSON(&b2, nil); err != nil || !bytes.Equal(b.Bytes(), b2.Bytes()) {
			t.Errorf("the second round trip differs (%v)", err)
		}
	})
}

// Sample: a nil source, a negative size and an invalid model are errors;
// zero rows give an empty table of the observed variables with their
// kinds and labels; a seed gives the same rows.
func TestSampleBasics(t *testing.T) {
	m := ioFixture(t)
	if _, err := m.Sample(nil, 10); !errors.Is(err, model.ErrNoSource) {
		t.Errorf("nil source: %v", err)
	}
	if _, err := m.Sample(rand.NewPCG(1, 2), -1); err == nil {
		t.Error("negative size: no error")
	}
	d, err := m.Sample(rand.NewPCG(1, 2), 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.NumRows() != 0 || d.NumVars() != 7 {
		t.Fatalf("%d rows, %d columns", d.NumRows(), d.NumVars())
	}
	for j, v := range m.Tree.Observed() {
		x := d.Var(j)
		if x.Name != m.Tree.Name(v) || x.Kind != m.Kinds[v] || !reflect.DeepEqual(x.States, m.StateLabels(v)) {
			t.Errorf("column %d: %+v", j, x)
		}
	}
	a, _ := m.Sample(rand.NewPCG(3, 4), 50)
	b, _ := m.Sample(rand.NewPCG(3, 4), 50)
	for j := range a.NumVars() {
		if !reflect.DeepEqual(a.Discrete(j), b.Discrete(j)) || !reflect.DeepEqual(a.Continuous(j), b.Continuous(j)) {
			t.Errorf("column %d differs between two samples of one seed", j)
		}
	}
	bad := ioFixture(t)
	bad.Var[ioNode(t, bad, "x3")][0] = 0
	if _, err := bad.Sample(rand.NewPCG(1, 2), 5); err == nil {
		t.Error("invalid model: no error")
	}
}

// The moments of a large fixed-seed sample match the model's exact
// moments: state frequencies of discrete leaves, per-state mean and
// variance of a continuous child of an observed discrete node, means and
// variances of mixtures, the correlation of two continuous children of a
// continuous hidden node (the product of the edge correlations) and a
// covariance across a discrete → continuous → continuous path. Tolerances
// are 5 standard errors.
func TestSampleMoments(t *testing.T) {
	m := ioFixture(t)
	const n = 200000
	d, err := m.Sample(rand.NewPCG(24, 1), n)
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int {
		j, ok := d.Index(name)
		if !ok {
			t.Fatalf("no column %s", name)
		}
		return j
	}
	near := func(what string, got, want, se float64) {
		t.Helper()
		if math.Abs(got-want) > 5*se {
			t.Errorf("%s: sample %.5f, exact %.5f (5 SE = %.5f)", what, got, want, 5*se)
		}
	}
	prior := m.Prior
	h2 := []float64{0.3*0.8 + 0.7*0.25, 0.3*0.2 + 0.7*0.75}
	// Discrete leaves.
	for _, c := range []struct {
		name string
		cpt  []float64
		par  []float64
	}{{"x1", m.CPT[ioNode(t, m, "x1")], prior}, {"x5", m.CPT[ioNode(t, m, "x5")], h2}} {
		k := len(c.cpt) / len(c.par)
		count := make([]float64, k)
		for _, s := range d.Discrete(col(c.name)) {
			count[s]++
		}
		for b := range k {
			p := 0.0
			for a, pa := range c.par {
				p += pa * c.cpt[a*k+b]
			}
			near(c.name+" = "+d.Var(col(c.name)).States[b], count[b]/n, p, math.Sqrt(p*(1-p)/n))
		}
	}
	// x7 given each state of x1.
	x1, x7 := d.Discrete(col("x1")), d.Continuous(col("x7"))
	for a := range 3 {
		var xs []float64
		for i, s := range x1 {
			if int(s) == a {
				xs = append(xs, x7[i])
			}
		}
		mu, s2 := meanVar(xs)
		wm, wv := m.Mean[ioNode(t, m, "x7")][a], m.Var[ioNode(t, m, "x7")][a]
		k := float64(len(xs))
		near("mean of x7 | x1="+string(rune('a'+a)), mu, wm, math.Sqrt(wv/k))
		near("variance of x7 | x1="+string(rune('a'+a)), s2, wv, wv*math.Sqrt(2/k))
	}
	// Mixtures x2 (over h0) and x6 (over h2).
	for _, c := range []struct {
		name string
		w    []float64
	}{{"x2", prior}, {"x6", h2}} {
		v := ioNode(t, m, c.name)
		em, e2 := 0.0, 0.0
		for a, w := range c.w {
			mu, s2 := m.Mean[v][a], m.Var[v][a]
			em += w * mu
			e2 += w * (s2 + mu*mu)
		}
		ev := e2 - em*em
		mu, s2 := meanVar(d.Continuous(col(c.name)))
		near("mean of "+c.name, mu, em, math.Sqrt(ev/n))
		near("variance of "+c.name, s2, ev, ev*math.Sqrt(3.0/n)) // (a mixture's kurtosis is modest)
	}
	// h1 has mean 0 and variance 1: x3, x4 have correlations 0.8 and
	// −1.5/√3.25 with it, hence with each other their product.
	x3, x4, x2 := d.Continuous(col("x3")), d.Continuous(col("x4")), d.Continuous(col("x2"))
	r34 := 0.8 * -1.5 / math.Sqrt(3.25)
	near("corr(x3, x4)", corr(x3, x4), r34, (1-r34*r34)/math.Sqrt(n))
	mu3, v3 := meanVar(x3)
	mu4, v4 := meanVar(x4)
	near("mean of x3", mu3, 1, math.Sqrt(1.0/n))
	near("mean of x4", mu4, -2, math.Sqrt(3.25/n))
	near("variance of x3", v3, 1, math.Sqrt(2.0/n))
	near("variance of x4", v4, 3.25, 3.25*math.Sqrt(2.0/n))
	// cov(x2, x3) = 0.8·cov(x2, h1) = 0.8·Σ_a P(a)(μ2_a − E x2)·μh_a.
	ex2 := 0.3*-1 + 0.7*2
	c21 := 0.3*(-1-ex2)*-0.7 + 0.7*(2-ex2)*0.3
	_, v2 := meanVar(x2)
	near("cov(x2, x3)", corr(x2, x3)*math.Sqrt(v2*v3), 0.8*c21, math.Sqrt(v2*v3/n))
}

func meanVar(x []float64) (float64, float64) {
	s := 0.0
	for _, v := range x {
		s += v
	}
	mu := s / float64(len(x))
	ss := 0.0
	for _, v := range x {
		ss += (v - mu) * (v - mu)
	}
	return mu, ss / float64(len(x))
}

func corr(x, y []float64) float64 {
	mx, vx := meanVar(x)
	my, vy := meanVar(y)
	s := 0.0
	for i := range x {
		s += (x[i] - mx) * (y[i] - my)
	}
	return s / float64(len(x)) / math.Sqrt(vx*vy)
}

// pick never draws a state of probability 0, even when round-off leaves
// u above the row's total.
func TestPick(t *testing.T) {
	row := []float64{0, 0.5, 0, 0.5, 0}
	for _, c := range []struct {
		u    float64
		want uint16
	}{{0, 1}, {0.4999, 1}, {0.5, 3}, {0.9999999, 3}, {1.5, 3}} {
		if got := pick(row, c.u); got != c.want {
			t.Errorf("pick(%v, %g) = %d, want %d", row, c.u, got, c.want)
		}
	}
	if got := pick([]float64{1, 0}, 0.999999); got != 0 {
		t.Errorf("pick([1 0]) = %d", got)
	}
}

// Sample and the exact inference agree: the frequencies of (x1, x5) in a
// large sample match P(x1, x5) from LogLikelihood of rows with every
// other cell missing, and the mean and variance of x3 among the rows with
// x1 = a match its Conditionals given x1 = a alone, within 5 standard
// errors.
func TestSampleAgreesWithLikelihood(t *testing.T) {
	m := ioFixture(t)
	const n = 100000
	d, err := m.Sample(rand.NewPCG(9, 10), n)
	if err != nil {
		t.Fatal(err)
	}
	j1, _ := d.Index("x1")
	j5, _ := d.Index("x5")
	var count [3][2]float64
	for i, a := range d.Discrete(j1) {
		count[a][d.Discrete(j5)[i]]++
	}
	// One row per (x1, x5) pair, every other cell missing.
	q, err := data.New(d.Vars(), 6)
	if err != nil {
		t.Fatal(err)
	}
	for j := range q.NumVars() {
		for i := range 6 {
			if c := q.Discrete(j); c != nil {
				c[i] = data.Missing
			} else {
				q.Continuous(j)[i] = math.NaN()
			}
		}
	}
	for a := range 3 {
		for b := range 2 {
			q.Discrete(j1)[a*2+b], q.Discrete(j5)[a*2+b] = uint16(a), uint16(b)
		}
	}
	ll, _, err := m.LogLikelihood(q, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for a := range 3 {
		for b := range 2 {
			p := math.Exp(ll[a*2+b])
			if got, se := count[a][b]/n, math.Sqrt(p*(1-p)/n); math.Abs(got-p) > 5*se {
				t.Errorf("P(x1=%d, x5=%d): sample %.5f, exact %.5f (5 SE %.5f)", a, b, got, p, 5*se)
			}
		}
	}
	// The mean and SD of x3 (below h0 → h1) given x1 = a: rows 2a hold
	// x1 = a; blank their x5.
	for a := range 3 {
		q.Discrete(j5)[2*a] = data.Missing
	}
	x3 := ioNode(t, m, "x3")
	cond, err := m.Conditionals(q, []int{x3}, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	j3, _ := d.Index("x3")
	for a := range 3 {
		var xs []float64
		for i, s := range d.Discrete(j1) {
			if int(s) == a {
				xs = append(xs, d.Continuous(j3)[i])
			}
		}
		mu, s2 := meanVar(xs)
		k := float64(len(xs))
		wm, wsd := cond[0].Mean[2*a], cond[0].SD[2*a]
		if se := wsd / math.Sqrt(k); math.Abs(mu-wm) > 5*se {
			t.Errorf("E[x3 | x1=%d]: sample %.5f, exact %.5f (5 SE %.5f)", a, mu, wm, 5*se)
		}
		if se := wsd * wsd * math.Sqrt(3/k); math.Abs(s2-wsd*wsd) > 5*se {
			t.Errorf("Var[x3 | x1=%d]: sample %.5f, exact %.5f (5 SE %.5f)", a, s2, wsd*wsd, 5*se)
		}
	}
}
