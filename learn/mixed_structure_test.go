package learn_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/internal/testenv"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/tree"
)

// randomMixed draws a random mixed model: a minimal tree whose observed
// variables are leaves, binary discrete hidden nodes, some continuous
// hidden nodes, 30–50% continuous leaves, 2–5-state discrete leaves.
func randomMixed(t *testing.T, rng *rand.Rand, leaves, it int) *mixed.Model {
	t.Helper()
	m, err := simulate.RandomMixed(rng, leaves, simulate.MinimalOptions{ObservedInternalProb: -1},
		simulate.MixedOptions{Continuous: 0.3 + 0.2*rng.Float64(), ContinuousHidden: it % 3})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exactMatrix returns the exact information distances of m's observed
// variables as a distance matrix.
func exactMatrix(t *testing.T, m *mixed.Model) *distance.Matrix {
	t.Helper()
	obs := m.Tree.Observed()
	names := make([]string, len(obs))
	for i, v := range obs {
		names[i] = m.Tree.Name(v)
	}
	dm, err := distance.NewMatrix(names)
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.InformationDistances(obs)
	if err != nil {
		t.Fatal(err)
	}
	copy(dm.D, d)
	return dm
}

// Every distance-based method returns the true tree from the exact
// distances of random mixed models (with continuous hidden nodes).
func TestMixedExactRecovery(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 20))
	contHidden := 0
	for it := range 20 {
		m := randomMixed(t, rng, 6+rng.IntN(25), it)
		for _, v := range m.Tree.Hidden() {
			if m.NodeKind(v) == data.Continuous {
				contHidden++
			}
		}
		dm := exactMatrix(t, m)
		for _, method := range []learn.Method{learn.CLNJ, learn.CLRG, learn.NJ, learn.RG} {
			res, err := learn.FromDistances(dm, learn.Options{Method: method, Contract: learn.ContractOptions{Threshold: 1e-9}})
			if err != nil {
				t.Fatal(err)
			}
			rf, err := tree.RobinsonFoulds(m.Tree, res.Tree)
			if err != nil {
				t.Fatal(err)
			}
			if rf.RF != 0 || res.Tree.NumHidden() != m.Tree.NumHidden() {
				t.Errorf("model %d, %s: RF %d, %d hidden (true %d)\ntrue %s\ngot  %s", it, method, rf.RF, res.Tree.NumHidden(), m.Tree.NumHidden(), m.Tree.Newick(), res.Tree.Newick())
			}
		}
	}
	if contHidden < 5 {
		t.Errorf("only %d continuous hidden nodes in the models", contHidden)
	}
}

// Chow–Liu on a mixed tree without hidden variables (binary and continuous
// internal nodes) returns the tree from sampled rows.
func TestMixedChowLiu(t *testing.T) {
	tr := tree.New()
	id := map[string]int{}
	for _, n := range []string{"d0", "d1", "x1", "x2", "d2", "x3", "d3", "x4"} {
		v, err := tr.AddObserved(n)
		if err != nil {
			t.Fatal(err)
		}
		id[n] = v
	}
	for _, e := range [][2]string{{"d0", "d1"}, {"d0", "x1"}, {"x1", "x2"}, {"d0", "d2"}, {"d2", "x3"}, {"d2", "d3"}, {"x1", "x4"}} {
		if err := tr.AddEdge(id[e[0]], id[e[1]], 1); err != nil {
			t.Fatal(err)
		}
	}
	kinds := make([]data.Kind, tr.MaxID())
	for n, v := range id {
		kinds[v] = data.Discrete
		if n[0] == 'x' {
			kinds[v] = data.Continuous
		}
	}
	// Binary discrete variables: ρ₁ multiplies through the internal d0
	// and d2 as it does through continuous x1.
	m, err := simulate.Mixed(rand.NewPCG(24, 22), tr, simulate.MixedOptions{Kinds: kinds, ObservedMin: 2, ObservedMax: 2})
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Sample(rand.NewPCG(24, 23), 20000)
	if err != nil {
		t.Fatal(err)
	}
	res, err := learn.Learn(d, learn.Options{Method: learn.ChowLiu, StructureOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if !sameEdges(tr, res.Tree) {
		t.Errorf("Chow–Liu tree %s, true %s", res.Tree.Newick(), tr.Newick())
	}
}

// sameEdges reports whether two trees over the same observed names and no
// hidden nodes have the same edges.
func sameEdges(a, b *tree.Tree) bool {
	key := func(t *tree.Tree) map[[2]string]bool {
		out := map[[2]string]bool{}
		for _, e := range t.Edges() {
			u, v := t.Name(e.U), t.Name(e.V)
			if u > v {
				u, v = v, u
			}
			out[[2]string{u, v}] = true
		}
		return out
	}
	ka, kb := key(a), key(b)
	if len(ka) != len(kb) {
		return false
	}
	for k := range ka {
		if !kb[k] {
			return false
		}
	}
	return true
}

// Every structure method learns a tree over all the columns of mixed data
// with StructureOnly, from rows (Learn) and, for those that need no rows,
// from statistics (FromStats); ranks above 2 cut continuous columns into
// quantile bins, which needs rows.
func TestMixedStructureOnlyAllMethods(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 24))
	m := randomMixed(t, rng, 10, 1)
	d, err := m.Sample(rand.NewPCG(24, 25), 3000)
	if err != nil {
		t.Fatal(err)
	}
	st, err := stats.Compute(d, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []learn.Method{learn.CLNJ, learn.CLRG, learn.NJ, learn.RG, learn.CLBlind, learn.MST, learn.ChowLiu, learn.Quartet} {
		res, err := learn.Learn(d, learn.Options{Method: method, StructureOnly: true})
		if err != nil {
			t.Errorf("%s: %v", method, err)
			continue
		}
		if res.Tree.NumObserved() != d.NumVars() {
			t.Errorf("%s: %d observed nodes, want %d", method, res.Tree.NumObserved(), d.NumVars())
		}
		if method.UsesDistances() && res.DistanceRank != 2 {
			t.Errorf("%s: distance rank %d, want 2", method, res.DistanceRank)
		}
		if method.NeedsRows() {
			continue
		}
		fs, err := learn.FromStats(st, learn.Options{Method: method})
		if err != nil {
			t.Errorf("%s from statistics: %v", method, err)
			continue
		}
		if method.UsesDistances() {
			if rf, err := tree.RobinsonFoulds(res.Tree, fs.Tree); err != nil || rf.RF != 0 {
				t.Errorf("%s: FromStats and Learn differ", method)
			}
		}
	}
	for _, method := range []learn.Method{learn.RegCLNJ, learn.RegCLRG} {
		if _, err := learn.Learn(d, learn.Options{Method: method, StructureOnly: true}); err == nil {
			t.Errorf("%s: structure-only accepted", method)
		}
	}
	// Rank 3: quantile bins, from rows only.
	res, err := learn.Learn(d, learn.Options{StructureOnly: true, Distance: learn.DistanceOptions{Rank: 3}})
	if err != nil || res.DistanceRank != 3 {
		t.Errorf("rank 3 from rows: %v", err)
	}
	if _, err := learn.FromStats(st, learn.Options{Distance: learn.DistanceOptions{Rank: 3}}); err == nil || !strings.Contains(err.Error(), "needs the data rows") {
		t.Errorf("rank 3 from statistics: %v", err)
	}
}

// The rate at which the distance-based methods recover random mixed trees
// exactly (Robinson–Foulds 0) from the statistics of 10,000 and 100,000
// sampled rows, with the default contraction threshold ("ε′=0") and with
// ε′ = 0.02 (it logs the rates; -v shows them). The default CLNJ must
// recover at least 3 in 4 of these 20 trees from 10,000 rows and 9 in 10
// (issue 24's bar) from 100,000 (it recovers 19 and 20; 17 and 19 before
// CLGrouping resolved ties in its spanning tree, and 15 and 13 before the
// simulator drew separations per node). The short form runs the first 10
// trees (it recovers 10 and 10), half the time, with the same bars; the
// 20 run with LATENTREE_LONG=1.
func TestMixedSampleRecovery(t *testing.T) {
	methods := []learn.Method{learn.CLNJ, learn.CLRG, learn.NJ, learn.RG}
	for _, rows := range []int{10000, 100000} {
		rng := rand.New(rand.NewPCG(24, 30))
		trees := testenv.Pick(10, 20)
		ok := map[string]int{}
		for it := range trees {
			m := randomMixed(t, rng, 10+rng.IntN(11), it)
			d, err := m.Sample(rand.NewPCG(24, uint64(100+it)), rows)
			if err != nil {
				t.Fatal(err)
			}
			st, err := stats.Compute(d, stats.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, eps := range []float64{0, 0.02} {
				for _, method := range methods {
					res, err := learn.FromStats(st, learn.Options{Method: method, Contract: learn.ContractOptions{Threshold: eps}})
					if err != nil {
						t.Fatal(err)
					}
					if rf, err := tree.RobinsonFoulds(m.Tree, res.Tree); err == nil && rf.RF == 0 {
						ok[fmt.Sprintf("%s ε′=%g", method, eps)]++
					}
				}
			}
		}
		for _, eps := range []float64{0, 0.02} {
			for _, method := range methods {
				k := fmt.Sprintf("%s ε′=%g", method, eps)
				t.Logf("%d rows, %s: %d of %d trees recovered exactly", rows, k, ok[k], trees)
			}
		}
		want := trees * 3 / 4
		if rows >= 100000 {
			want = trees * 9 / 10
		}
		if k := "clnj ε′=0"; ok[k] < want {
			t.Errorf("%d rows: %s recovered %d of %d trees, want at least %d", rows, k, ok[k], trees, want)
		}
	}
}

// With 3-state discrete hidden variables the rank-3 distance (continuous
// columns cut into quantile bins) recovers the trees from 100,000 rows
// where the rank-2 one, no longer additive, often does not.
func TestMixedRank3Bins(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 40))
	const trees = 8
	ok := map[int]int{}
	for it := range trees {
		m, err := simulate.RandomMixed(rng, 8+rng.IntN(8), simulate.MinimalOptions{ObservedInternalProb: -1},
			simulate.MixedOptions{Continuous: 0.4, AllDiscreteHidden: true, HiddenMin: 3, HiddenMax: 3, ObservedMin: 3, ObservedMax: 5})
		if err != nil {
			t.Fatal(err)
		}
		d, err := m.Sample(rand.NewPCG(24, uint64(200+it)), 100000)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{2, 3} {
			res, err := learn.Learn(d, learn.Options{StructureOnly: true, Distance: learn.DistanceOptions{Rank: k}, Contract: learn.ContractOptions{Threshold: 0.02}})
			if err != nil {
				t.Fatal(err)
			}
			if rf, err := tree.RobinsonFoulds(m.Tree, res.Tree); err == nil && rf.RF == 0 {
				ok[k]++
			}
		}
	}
	t.Logf("trees recovered exactly of %d: rank 2 %d, rank 3 %d", trees, ok[2], ok[3])
	if ok[3] < trees-1 || ok[3] <= ok[2] {
		t.Errorf("rank 3 recovered %d of %d trees, rank 2 %d", ok[3], trees, ok[2])
	}
}
