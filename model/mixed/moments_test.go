package mixed_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/tree"
)

// handModel builds, with hand-set parameters, the tree
//
//	H (hidden, binary, root) ─ a (3 states), x (continuous), C, H2
//	C (hidden, continuous)   ─ y, z (continuous)
//	H2 (hidden, binary)      ─ b (2 states), w (continuous), e (4 states)
func handModel(t *testing.T) (*mixed.Model, map[string]int) {
	t.Helper()
	tr := tree.New()
	id := map[string]int{}
	for _, n := range []string{"a", "x", "y", "z", "b", "w", "e"} {
		v, err := tr.AddObserved(n)
		if err != nil {
			t.Fatal(err)
		}
		id[n] = v
	}
	id["H"], id["C"], id["H2"] = tr.AddHidden(), tr.AddHidden(), tr.AddHidden()
	for _, e := range [][2]string{{"H", "a"}, {"H", "x"}, {"H", "C"}, {"H", "H2"}, {"C", "y"}, {"C", "z"}, {"H2", "b"}, {"H2", "w"}, {"H2", "e"}} {
		if err := tr.AddEdge(id[e[0]], id[e[1]], 1); err != nil {
			t.Fatal(err)
		}
	}
	n := tr.MaxID()
	kinds, states := make([]data.Kind, n), make([]int, n)
	for name, v := range id {
		switch name {
		case "x", "y", "z", "w", "C":
			kinds[v] = data.Continuous
		default:
			kinds[v] = data.Discrete
		}
	}
	states[id["H"]], states[id["H2"]], states[id["a"]], states[id["b"]], states[id["e"]] = 2, 2, 3, 2, 4
	m, err := mixed.New(tr, id["H"], kinds, states)
	if err != nil {
		t.Fatal(err)
	}
	m.Prior = []float64{0.35, 0.65}
	m.CPT[id["a"]] = []float64{0.7, 0.2, 0.1, 0.15, 0.25, 0.6}
	m.Mean[id["x"]], m.Var[id["x"]] = []float64{-1, 2}, []float64{1, 0.5}
	m.Mean[id["C"]], m.Var[id["C"]] = []float64{-0.8, 0.43}, []float64{0.5, 0.7}
	m.Mean[id["y"]], m.Coef[id["y"]], m.Var[id["y"]] = []float64{1}, 0.9, []float64{0.4}
	m.Mean[id["z"]], m.Coef[id["z"]], m.Var[id["z"]] = []float64{0}, -1.2, []float64{1}
	m.CPT[id["H2"]] = []float64{0.8, 0.2, 0.25, 0.75}
	m.CPT[id["b"]] = []float64{0.9, 0.1, 0.3, 0.7}
	m.Mean[id["w"]], m.Var[id["w"]] = []float64{0, 3}, []float64{2, 1}
	m.CPT[id["e"]] = []float64{0.5, 0.3, 0.1, 0.1, 0.1, 0.1, 0.3, 0.5}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m, id
}

// Distances of the hand-built model against closed forms: the correlation
// ratio of x on H, the correlation of y and z through C, and a leaf that
// copies its parent.
func TestDistancesHandChecked(t *testing.T) {
	m, id := handModel(t)
	nodes := []int{id["H"], id["x"], id["y"], id["z"], id["C"]}
	d, err := m.InformationDistances(nodes)
	if err != nil {
		t.Fatal(err)
	}
	at := func(i, j int) float64 { return d[i*len(nodes)+j] }
	// η²(x on H) = p0 p1 (μ0−μ1)² / (p0 p1 (μ0−μ1)² + p0 σ0² + p1 σ1²).
	between := 0.35 * 0.65 * 9
	eta2 := between / (between + 0.35*1 + 0.65*0.5)
	if want := -0.5 * math.Log(eta2); math.Abs(at(0, 1)-want) > 1e-12 {
		t.Errorf("d(H, x) = %.15g, want %.15g", at(0, 1), want)
	}
	// C: mixture of N(−0.8, 0.5) and N(0.43, 0.7).
	mc := 0.35*-0.8 + 0.65*0.43
	vc := 0.35*(0.5+0.64) + 0.65*(0.7+0.43*0.43) - mc*mc
	vy, vz := 0.81*vc+0.4, 1.44*vc+1
	rho := 0.9 * 1.2 * vc / math.Sqrt(vy*vz)
	if want := -math.Log(rho); math.Abs(at(2, 3)-want) > 1e-12 {
		t.Errorf("d(y, z) = %.15g, want %.15g", at(2, 3), want)
	}
	if want := -0.5 * math.Log(0.81*vc/vy); math.Abs(at(2, 4)-want) > 1e-12 {
		t.Errorf("d(y, C) = %.15g, want %.15g", at(2, 4), want)
	}
	// A copy of H: distance 0.
	m.CPT[id["a"]] = []float64{1, 0, 0, 0, 1, 0}
	d, err = m.InformationDistances([]int{id["H"], id["a"]})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(d[1]) > 1e-12 {
		t.Errorf("a copy of H at distance %g", d[1])
	}
}

// checkAdditive checks that the exact distances between all nodes of m
// add up along the paths of its tree (which implies the four-point
// condition), to 1e-10.
func checkAdditive(t *testing.T, m *mixed.Model, what string) {
	t.Helper()
	tr := m.Tree
	nodes := tr.Nodes()
	pos := make(map[int]int, len(nodes))
	for i, v := range nodes {
		pos[v] = i
	}
	d, err := m.InformationDistances(nodes)
	if err != nil {
		t.Fatal(err)
	}
	n := len(nodes)
	edge := func(u, v int) float64 { return d[pos[u]*n+pos[v]] }
	for i, u := range nodes {
		for j := i + 1; j < n; j++ {
			v := nodes[j]
			path := tr.Path(u, v)
			sum := 0.0
			for k := 1; k < len(path); k++ {
				sum += edge(path[k-1], path[k])
			}
			if got := d[i*n+j]; !(math.Abs(got-sum) <= 1e-10*math.Max(1, sum)) {
				t.Fatalf("%s: d(%s, %s) = %.15g, the path's edges sum to %.15g", what, tr.Name(u), tr.Name(v), got, sum)
			}
		}
	}
}

func TestDistancesAdditiveHand(t *testing.T) {
	m, _ := handModel(t)
	checkAdditive(t, m, "hand-built model")
}

// Random mixed models with binary discrete hidden nodes, continuous hidden
// nodes, 30–50% continuous leaves and 2–5-state discrete leaves: the
// exact distances are a tree metric.
func TestDistancesAdditiveRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 10))
	contHidden := 0
	for it := range 30 {
		m, err := simulate.RandomMixed(rng, 6+rng.IntN(20), simulate.MinimalOptions{ObservedInternalProb: -1},
			simulate.MixedOptions{Continuous: 0.3 + 0.2*rng.Float64(), ContinuousHidden: it % 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range m.Tree.Hidden() {
			if m.Kinds[v] == data.Continuous {
				contHidden++
			}
		}
		checkAdditive(t, m, "random model")
	}
	if contHidden < 10 {
		t.Errorf("only %d continuous hidden nodes in all the models", contHidden)
	}
}

// Distances from the statistics of sampled rows converge to the exact
// ones: at n = 100,000 rows, within 5 standard errors, the standard error
// of −log ρ̂ being at most about e^d/√n (that of ρ̂ is at most 1/√n).
func TestSampleDistancesConverge(t *testing.T) {
	m, _ := handModel(t)
	d, err := m.Sample(rand.NewPCG(24, 11), 100000)
	if err != nil {
		t.Fatal(err)
	}
	s, err := stats.Compute(d, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := distance.Information(s, distance.InfoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	obs := make([]int, d.NumVars())
	for j := range obs {
		v, ok := m.Tree.Lookup(d.Var(j).Name)
		if !ok {
			t.Fatalf("no node %q", d.Var(j).Name)
		}
		obs[j] = v
	}
	want, err := m.InformationDistances(obs)
	if err != nil {
		t.Fatal(err)
	}
	n := len(obs)
	for i := range n {
		for j := i + 1; j < n; j++ {
			tol := 5 * math.Exp(want[i*n+j]) / math.Sqrt(float64(d.NumRows()))
			if diff := math.Abs(got.At(i, j) - want[i*n+j]); !(diff <= tol) {
				t.Errorf("d(%s, %s): sample %.4f, exact %.4f (tolerance %.3f)", d.Var(i).Name, d.Var(j).Name, got.At(i, j), want[i*n+j], tol)
			}
		}
	}
}
