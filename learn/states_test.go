package learn_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

// exactScale is the number of rows of exactStats: pair counts are the
// exact probabilities times 2^40, rounded down, so the distances computed
// from them are the exact ones to about 1e-9.
const exactScale = 1 << 40

// exactStats returns statistics of the observed variables of m whose pair
// tables are m's exact pairwise marginals (times exactScale, rounded
// down), built through the statistics' JSON form. Marginal counts are the
// largest row sums of the variable's pair tables (so that every table is
// consistent with them); the distances use the pair tables only.
func exactStats(t *testing.T, m *discrete.Model) *stats.Stats {
	t.Helper()
	obs := m.Tree.Observed()
	pairs := m.PairMarginals(obs)
	type jv struct {
		Name     string   `json:"name"`
		Kind     string   `json:"kind"`
		States   []string `json:"states"`
		Count    int64    `json:"count"`
		Marginal []int64  `json:"marginal"`
	}
	vars := make([]jv, len(obs))
	for i, v := range obs {
		vars[i] = jv{Name: m.Tree.Name(v), Kind: "discrete", Marginal: make([]int64, m.States[v])}
		for a := 0; a < m.States[v]; a++ {
			vars[i].States = append(vars[i].States, strconv.Itoa(a))
		}
	}
	var tables []int64
	for i, u := range obs {
		ni := m.States[u]
		for j := i + 1; j < len(obs); j++ {
			nj := m.States[obs[j]]
			cols := make([]int64, nj)
			for a := 0; a < ni; a++ {
				var row int64
				for b := 0; b < nj; b++ {
					c := int64(math.Floor(pairs[i][j][a*nj+b] * exactScale))
					tables = append(tables, c)
					row += c
					cols[b] += c
				}
				vars[i].Marginal[a] = max(vars[i].Marginal[a], row)
			}
			for b, c := range cols {
				vars[j].Marginal[b] = max(vars[j].Marginal[b], c)
			}
		}
	}
	var rows int64
	for i := range vars {
		for _, c := range vars[i].Marginal {
			vars[i].Count += c
		}
		rows = max(rows, vars[i].Count)
	}
	b, err := json.Marshal(map[string]any{"format": "latentree-stats", "version": 1, "rows": rows, "pairs": true,
		"variables": vars, "discrete_pairs": tables})
	if err != nil {
		t.Fatal(err)
	}
	var st stats.Stats
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

// unequalModel draws a model on tr whose observed variables have 2 to 6
// states (each its own, at least hidden) and whose hidden variables have
// hidden states.
func unequalModel(t *testing.T, rng *rand.Rand, tr *tree.Tree, hidden int) *discrete.Model {
	t.Helper()
	m, err := simulate.General(rng, tr, simulate.GeneralOptions{HiddenStates: hidden,
		ObservedStatesOf: func(int) int { return hidden + rng.IntN(7-hidden) }})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkSame fails unless got has the topology of truth (Robinson–Foulds
// distance 0, as many hidden nodes).
func checkSame(t *testing.T, what string, truth, got *tree.Tree) {
	t.Helper()
	rf, err := tree.RobinsonFoulds(truth, got)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if rf.RF != 0 || got.NumHidden() != truth.NumHidden() {
		t.Errorf("%s: RF %d, %d hidden (true %d)\ntrue %s\ngot  %s", what, rf.RF, got.NumHidden(), truth.NumHidden(), truth.Newick(), got.Newick())
	}
}

// TestUnequalStatesExact: on latent trees whose observed variables have 2
// to 6 states (different from variable to variable) and whose hidden
// variables have k states, every distance-based method recovers the tree
// exactly from exact statistics without being given a rank: the default
// rank-k distance (k = the hidden-state count, capped by the smallest
// number of states) is additive along such trees.
func TestUnequalStatesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 1))
	methods := []learn.Method{learn.CLNJ, learn.CLRG, learn.NJ, learn.RG}
	for trial := 0; trial < 40; trial++ {
		hidden := 2 + trial%2 // 2 or 3 hidden states
		leaves := 6 + rng.IntN(10)
		tr, err := simulate.RandomBinary(rng, leaves, 0.3+0.4*rng.Float64())
		if err != nil {
			t.Fatal(err)
		}
		st := exactStats(t, unequalModel(t, rng, tr, hidden))
		for _, m := range methods {
			opt := learn.Options{Method: m, Fit: model.FitOptions{HiddenStates: hidden},
				Contract: learn.ContractOptions{Rule: learn.ContractThreshold, Threshold: 1e-6}}
			if m.UsesRG() {
				// The distances are exact to about 1e-9: RG's exact
				// family test with a tolerance to match (its defaults
				// for 2^40 rows are statistical tests).
				opt.RG = structure.RGOptions{Grouping: structure.GroupThreshold, Eps: 1e-6}
			}
			res, err := learn.FromStats(st, opt)
			if err != nil {
				t.Fatalf("trial %d, %s: %v", trial, m, err)
			}
			if res.DistanceRank != hidden || len(res.Degenerate) > 0 {
				t.Errorf("trial %d, %s: rank %d (want %d), degenerate pairs %v", trial, m, res.DistanceRank, hidden, res.Degenerate)
			}
			checkSame(t, "trial "+strconv.Itoa(trial)+" "+string(m), tr, res.Tree)
		}
	}
	// CLBlind needs blind trees: every internal node hidden, each with an
	// observed child nearer than any other observed node (Choi et al.
	// 2011, §5.3); a star and a double star with strong edges are.
	for trial, tr := range []*tree.Tree{mustTree(simulate.Star(7)), mustTree(simulate.DoubleStar(4, 5))} {
		st := exactStats(t, unequalModel(t, rng, tr, 2))
		res, err := learn.FromStats(st, learn.Options{Method: learn.CLBlind})
		if err != nil {
			t.Fatal(err)
		}
		checkSame(t, "clblind "+strconv.Itoa(trial), tr, res.Tree)
	}
}

func mustTree(t *tree.Tree, err error) *tree.Tree {
	if err != nil {
		panic(err)
	}
	return t
}

// TestUnequalStatesChowLiuExact: Chow–Liu recovers a tree of observed
// variables with 2 to 6 states from their exact mutual information.
func TestUnequalStatesChowLiuExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 2))
	for trial := 0; trial < 5; trial++ {
		tr := tree.New()
		n := 5 + rng.IntN(8)
		for i := 0; i < n; i++ {
			v, err := tr.AddObserved("x" + strconv.Itoa(i+1))
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				if err := tr.AddEdge(v, tr.Observed()[rng.IntN(i)], math.NaN()); err != nil {
					t.Fatal(err)
				}
			}
		}
		m, err := simulate.General(rng, tr, simulate.GeneralOptions{ObservedStatesOf: func(int) int { return 2 + rng.IntN(5) }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := learn.FromStats(exactStats(t, m), learn.Options{Method: learn.ChowLiu})
		if err != nil {
			t.Fatal(err)
		}
		checkSame(t, "chowliu "+strconv.Itoa(trial), tr, res.Tree)
	}
}

// TestUnequalStatesSampled: every method runs with its defaults (no rank,
// no flags) on sampled data whose variables have 2 to 6 states, fits
// parameters and scores them; the distance-based methods report the rank
// they chose. Spectral parameters and the spectral start run too.
func TestUnequalStatesSampled(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 3))
	tr, err := simulate.RandomBinary(rng, 9, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simulate.General(rng, tr, simulate.GeneralOptions{HiddenStates: 2, ObservedStatesOf: func(v int) int { return 2 + v%5 }})
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Sample(rng, 600)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := math.MaxInt, 0
	for j := 0; j < d.NumVars(); j++ {
		lo, hi = min(lo, d.Var(j).NumStates()), max(hi, d.Var(j).NumStates())
	}
	if lo != 2 || hi != 6 {
		t.Fatalf("the sample's variables have %d to %d states; the test wants 2 to 6", lo, hi)
	}
	type run struct {
		name string
		opt  learn.Options
	}
	runs := []run{{string(learn.ChowLiu), learn.Options{Method: learn.ChowLiu}}} // first: the others compare with it
	for _, meth := range learn.Methods {
		if meth != learn.ChowLiu {
			runs = append(runs, run{string(meth), learn.Options{Method: meth}})
		}
	}
	runs = append(runs, run{"spectral parameters", learn.Options{Fit: model.FitOptions{Params: model.ParamsSpectral}}},
		run{"spectral start", learn.Options{Fit: model.FitOptions{Init: model.InitSpectral}}})
	chowLiuBIC := math.NaN()
	for _, r := range runs {
		r.opt.Src = rand.NewPCG(1, 2)
		res, err := learn.Learn(d, r.opt)
		if err != nil {
			t.Errorf("%s: %v", r.name, err)
			continue
		}
		// The contraction by BIC falls back to the Chow–Liu tree, and
		// regularized CLGrouping adds a subtree only when the BIC
		// improves: neither scores worse than Chow–Liu.
		switch {
		case r.opt.Method == learn.ChowLiu:
			chowLiuBIC = res.Score.BIC
		case res.Contraction != nil || r.opt.Method.Regularized():
			if !(res.Score.BIC <= chowLiuBIC+1e-6) {
				t.Errorf("%s: BIC %.3f, worse than the Chow–Liu tree's %.3f", r.name, res.Score.BIC, chowLiuBIC)
			}
		}
		if err := res.Tree.Validate(); err != nil || res.Tree.NumObserved() != d.NumVars() {
			t.Errorf("%s: %d observed variables, tree %v", r.name, res.Tree.NumObserved(), err)
		}
		if res.Score == nil || math.IsNaN(res.Score.LogLik) || math.IsInf(res.Score.LogLik, 0) {
			t.Errorf("%s: score %+v", r.name, res.Score)
		}
		want := 0
		if r.opt.Method == "" || r.opt.Method.UsesDistances() {
			want = min(max(2, r.opt.Fit.HiddenStates), lo)
		}
		if res.DistanceRank != want {
			t.Errorf("%s: distance rank %d, want %d", r.name, res.DistanceRank, want)
		}
	}
}

// Learn chooses the hidden-state counts by BIC by default when a variable
// has more than 2 states, keeps 2 on binary data or when a count is given,
// and Result.HiddenStates says which.
func TestLearnDefaultHiddenStates(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 6))
	tr, err := simulate.RandomBinary(rng, 8, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		obs, k int
		auto   bool
	}{{3, 0, true}, {3, 2, false}, {2, 0, false}} {
		m, err := simulate.General(rng, tr, simulate.GeneralOptions{ObservedStates: c.obs, HiddenStates: 3})
		if err != nil {
			t.Fatal(err)
		}
		d, err := m.Sample(rng, 800)
		if err != nil {
			t.Fatal(err)
		}
		res, err := learn.Learn(d, learn.Options{Fit: model.FitOptions{HiddenStates: c.k}})
		if err != nil {
			t.Fatal(err)
		}
		h := res.HiddenStates
		if res.Tree.NumHidden() == 0 {
			if c.auto {
				t.Errorf("%d states: no hidden variable learned, the report is not tested", c.obs)
			}
			if h != nil {
				t.Errorf("%d states, k=%d: report %+v without hidden variables", c.obs, c.k, h)
			}
			continue
		}
		if h == nil || h.Auto != c.auto || h.Default != c.auto || h.Min < 1 || h.Max < h.Min || (!c.auto && h.Min != 2) {
			t.Errorf("%d states, k=%d: report %+v, want auto %v", c.obs, c.k, h, c.auto)
		}
	}
}
