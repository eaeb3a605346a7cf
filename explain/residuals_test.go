package explain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/tree"
)

// bruteDiscretePair returns P(a, b) of a discrete model by summing its
// joint over every configuration of every node.
func bruteDiscretePair(m *discrete.Model, a, b int) []float64 {
	r := m.Rooted()
	nodes := r.Order
	st := make([]int, m.Tree.MaxID())
	ka, kb := m.States[a], m.States[b]
	out := make([]float64, ka*kb)
	for {
		p := 1.0
		for _, v := range nodes {
			if par := r.Parent[v]; par < 0 {
				p *= m.Prior[st[v]]
			} else {
				p *= m.CPT[v][st[par]*m.States[v]+st[v]]
			}
		}
		out[st[a]*kb+st[b]] += p
		i := 0
		for ; i < len(nodes); i++ {
			v := nodes[i]
			st[v]++
			if st[v] < m.States[v] {
				break
			}
			st[v] = 0
		}
		if i == len(nodes) {
			return out
		}
	}
}

// slowBVR counts the rows of d where both a and b are observed, row by row,
// and compares them with N·p as Residual defines it.
func slowBVR(d *data.Dataset, a, b string, p []float64, ka, kb int) (bvr float64, rows int) {
	ja, _ := d.Index(a)
	jb, _ := d.Index(b)
	obs := make([]float64, ka*kb)
	for r := 0; r < d.NumRows(); r++ {
		x, y := d.Discrete(ja)[r], d.Discrete(jb)[r]
		if x == data.Missing || y == data.Missing {
			continue
		}
		// The model's labels are "0", "1", ...: the data's label is the state.
		xs, ys := d.Var(ja).States[x], d.Var(jb).States[y]
		obs[atoi(xs)*kb+atoi(ys)]++
		rows++
	}
	chi2 := 0.0
	for c := range obs {
		e := float64(rows) * p[c]
		chi2 += (obs[c] - e) * (obs[c] - e) / e
	}
	return chi2 / float64((ka-1)*(kb-1)), rows
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = 10*n + int(c-'0')
	}
	return n
}

// TestBivariateResidualsAgainstEnumeration: on a tree of three hidden
// nodes and six observed variables of 2 and 3 states, with data drawn from
// another model and 10% of cells missing, every pair's BVR equals a slow
// reference that enumerates the model's joint and counts the data.
func TestBivariateResidualsAgainstEnumeration(t *testing.T) {
	tr, err := tree.ParseNewick("((x1,x2)h1,(x3,(x4,x5)h3)h2,x6)h0;", tree.NewickOptions{HiddenInternalLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	states := make([]int, tr.MaxID())
	for _, v := range tr.Nodes() {
		states[v] = 2
		switch tr.Name(v) {
		case "x2", "x4", "h2":
			states[v] = 3
		}
	}
	h0, _ := tr.Lookup("h0")
	m, err := discrete.New(tr, h0, states)
	if err != nil {
		t.Fatal(err)
	}
	m.Randomize(rand.NewPCG(1, 2))
	other := m.Clone()
	other.Randomize(rand.NewPCG(3, 4))
	d, err := other.Sample(rand.NewPCG(5, 6), 500)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for j := 0; j < d.NumVars(); j++ {
		col := d.Discrete(j)
		for r := range col {
			if rng.Float64() < 0.1 {
				col[r] = data.Missing
			}
		}
	}
	res, err := BivariateResiduals(m, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 15 {
		t.Fatalf("%d pairs, want 15", len(res))
	}
	for i, x := range res {
		if i > 0 && x.BVR > res[i-1].BVR {
			t.Errorf("not largest first at %d: %g after %g", i, x.BVR, res[i-1].BVR)
		}
		a, _ := tr.Lookup(x.A)
		b, _ := tr.Lookup(x.B)
		p := bruteDiscretePair(m, a, b)
		want, rows := slowBVR(d, x.A, x.B, p, states[a], states[b])
		if x.Rows != rows || math.Abs(x.BVR-want) > 1e-9*max(1, want) {
			t.Errorf("%s–%s: BVR %.12g over %d rows, reference %.12g over %d", x.A, x.B, x.BVR, x.Rows, want, rows)
		}
		if x.DF != (states[a]-1)*(states[b]-1) || math.Abs(x.Chi2-want*float64(x.DF)) > 1e-9*max(1, x.Chi2) {
			t.Errorf("%s–%s: chi2 %g df %d", x.A, x.B, x.Chi2, x.DF)
		}
		sumO, sumE := 0.0, 0.0
		for c := range x.Observed {
			sumO += x.Observed[c]
			sumE += x.Expected[c]
		}
		if sumO != float64(rows) || math.Abs(sumE-float64(rows)) > 1e-9*float64(rows) {
			t.Errorf("%s–%s: tables sum to %g and %g, want %d", x.A, x.B, sumO, sumE, rows)
		}
	}
}

// TestBivariateResidualsMixed: the one discrete observed pair of a mixed
// model (x, w) against the pair distribution enumerated from its discrete
// nodes (bruteMixed); continuous variables are left out.
func TestBivariateResidualsMixed(t *testing.T) {
	m, id := tinyMixed(t)
	d, err := m.Sample(rand.NewPCG(9, 10), 400)
	if err != nil {
		t.Fatal(err)
	}
	res, err := BivariateResiduals(m, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].A != "x" || res[0].B != "w" && !(res[0].A == "w" && res[0].B == "x") {
		t.Fatalf("pairs %+v, want x–w only", res)
	}
	a, b := id[res[0].A], id[res[0].B]
	ka, kb := m.States[a], m.States[b]
	p := make([]float64, ka*kb)
	for _, c := range bruteMixed(t, m) {
		p[c.state[a]*kb+c.state[b]] += c.prob
	}
	ja, _ := d.Index(res[0].A)
	jb, _ := d.Index(res[0].B)
	labels := [2][]string{m.StateLabels(a), m.StateLabels(b)}
	index := func(l []string, s string) int {
		for i, x := range l {
			if x == s {
				return i
			}
		}
		t.Fatalf("label %q not in %v", s, l)
		return -1
	}
	obs := make([]float64, ka*kb)
	for r := 0; r < d.NumRows(); r++ {
		x := index(labels[0], d.Var(ja).States[d.Discrete(ja)[r]])
		y := index(labels[1], d.Var(jb).States[d.Discrete(jb)[r]])
		obs[x*kb+y]++
	}
	chi2 := 0.0
	for c := range obs {
		e := float64(d.NumRows()) * p[c]
		chi2 += (obs[c] - e) * (obs[c] - e) / e
	}
	want := chi2 / float64((ka-1)*(kb-1))
	if math.Abs(res[0].BVR-want) > 1e-9*max(1, want) {
		t.Errorf("BVR %.12g, reference %.12g", res[0].BVR, want)
	}
}

// TestBivariateResidualsFindLocalDependence draws 3,000 rows from a tree
// where x6 hangs off the observed x5 (a local dependence a latent class
// model cannot hold), fits a 2-class latent class model over x1..x6 and
// checks that x5–x6 has the largest BVR, far above 3.84, while under the
// generating tree that pair's BVR is unremarkable (below 6.63, the 1%
// point of χ² with one degree of freedom; fixed seeds).
func TestBivariateResidualsFindLocalDependence(t *testing.T) {
	gen := tree.New()
	h := gen.AddHidden()
	if err := gen.SetName(h, "h"); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for _, name := range []string{"x1", "x2", "x3", "x4", "x5", "x6"} {
		v, err := gen.AddObserved(name)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = v
		parent := h
		if name == "x6" {
			parent = ids["x5"]
		}
		if err := gen.AddEdge(parent, v, 1); err != nil {
			t.Fatal(err)
		}
	}
	states := make([]int, gen.MaxID())
	for i := range states {
		states[i] = 2
	}
	truth, err := discrete.New(gen, h, states)
	if err != nil {
		t.Fatal(err)
	}
	truth.Prior = []float64{0.4, 0.6}
	truth.CPT[ids["x1"]] = []float64{0.9, 0.1, 0.15, 0.85}
	truth.CPT[ids["x2"]] = []float64{0.85, 0.15, 0.1, 0.9}
	truth.CPT[ids["x3"]] = []float64{0.8, 0.2, 0.15, 0.85}
	truth.CPT[ids["x4"]] = []float64{0.85, 0.15, 0.2, 0.8}
	truth.CPT[ids["x5"]] = []float64{0.85, 0.15, 0.2, 0.8}
	truth.CPT[ids["x6"]] = []float64{0.75, 0.25, 0.3, 0.7}
	if err := truth.Validate(); err != nil {
		t.Fatal(err)
	}
	d, err := truth.Sample(rand.NewPCG(11, 12), 3000)
	if err != nil {
		t.Fatal(err)
	}
	star := tree.New()
	c := star.AddHidden()
	if err := star.SetName(c, "class"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"x1", "x2", "x3", "x4", "x5", "x6"} {
		v, err := star.AddObserved(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := star.AddEdge(c, v, 1); err != nil {
			t.Fatal(err)
		}
	}
	lcm, err := discrete.New(star, c, states[:star.MaxID()])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lcm.FitEM(d, model.EMOptions{Src: rand.NewPCG(13, 14)}); err != nil {
		t.Fatal(err)
	}
	res, err := BivariateResiduals(lcm, d)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range res {
		t.Logf("%s–%s %.2f", x.A, x.B, x.BVR)
	}
	if top := res[0]; top.A != "x5" || top.B != "x6" || top.BVR < 3.84 {
		t.Errorf("largest BVR of the latent class model: %s–%s %.2f, want x5–x6 above 3.84 (next %s–%s %.2f)", top.A, top.B, top.BVR, res[1].A, res[1].B, res[1].BVR)
	}
	res, err = BivariateResiduals(truth, d)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range res {
		if x.A == "x5" && x.B == "x6" && x.BVR > 6.63 {
			t.Errorf("generating tree: x5–x6 BVR %.2f", x.BVR)
		}
	}
}

func TestBivariateResidualsErrors(t *testing.T) {
	m := tinyDiscrete(t)
	if _, err := BivariateResiduals(m, nil); err == nil {
		t.Error("no data: no error")
	}
	vars := []data.Variable{{Name: "x1", Kind: data.Discrete, States: []string{"0", "1"}}}
	d, err := data.FromDiscrete(vars, [][]uint16{{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := BivariateResiduals(m, d); err == nil {
		t.Error("data without x2, x3: no error")
	}
}
