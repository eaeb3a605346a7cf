package learn_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/testenv"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

// simMixed returns a mixed model and n rows of it: a chain of groups
// H1 – H2 – … – HG of binary discrete hidden nodes (each keeping its
// parent's state with probability 0.85), every Hg with three discrete
// leaves of 3, 2 and 3 states and two continuous ones (means ±1 by Hg's
// state, variance 1), and every odd group also a continuous hidden node
// Kg (means ±0.8, variance 0.36) with two continuous leaves (0.8·Kg +
// N(0, 0.36)).
func simMixed(t testing.TB, groups, n int, seed uint64) (*mixed.Model, *data.Dataset) {
	t.Helper()
	tr := tree.New()
	var edges [][2]int
	add := func(name string) int {
		v, err := tr.AddObserved(name)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	kinds := map[string]data.Kind{}
	states := map[int]int{}
	prev := -1
	for g := 1; g <= groups; g++ {
		h := tr.AddHidden()
		states[h] = 2
		if prev >= 0 {
			edges = append(edges, [2]int{prev, h})
		}
		prev = h
		for i, k := range []int{3, 2, 3} {
			name := fmt.Sprintf("d%d%c", g, 'a'+i)
			v := add(name)
			kinds[name], states[v] = data.Discrete, k
			edges = append(edges, [2]int{h, v})
		}
		for i := range 2 {
			name := fmt.Sprintf("c%d%c", g, 'a'+i)
			kinds[name] = data.Continuous
			edges = append(edges, [2]int{h, add(name)})
		}
		if g%2 == 1 {
			k := tr.AddHidden()
			edges = append(edges, [2]int{h, k})
			for i := range 2 {
				name := fmt.Sprintf("k%d%c", g, 'a'+i)
				kinds[name] = data.Continuous
				edges = append(edges, [2]int{k, add(name)})
			}
		}
	}
	for _, e := range edges {
		if err := tr.AddEdge(e[0], e[1], math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	tr.AutoNameHidden("h")
	kind, root, err := mixed.Layout(tr, func(name string) (data.Kind, bool) { k, ok := kinds[name]; return k, ok }, false)
	if err != nil {
		t.Fatal(err)
	}
	st := make([]int, tr.MaxID())
	for v, k := range states {
		st[v] = k
	}
	m, err := mixed.New(tr, root, kind, st)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Rooted()
	for _, v := range r.Order {
		p := r.Parent[v]
		switch {
		case p < 0:
			m.Prior = []float64{0.45, 0.55}
		case kind[v] == data.Discrete:
			k := m.States[v]
			for a := range m.States[p] {
				for b := range k {
					x := 0.3 / float64(k-1)
					if b == a%k {
						x = 0.7
					}
					if tr.IsHidden(v) {
						x = 0.15
						if b == a {
							x = 0.85
						}
					}
					m.CPT[v][a*k+b] = x
				}
			}
		case kind[p] == data.Discrete && tr.IsHidden(v):
			m.Mean[v], m.Var[v] = []float64{-0.8, 0.8}, []float64{0.36, 0.36}
		case kind[p] == data.Discrete:
			m.Mean[v], m.Var[v] = []float64{-1, 1}, []float64{1, 1}
		default:
			m.Mean[v], m.Var[v], m.Coef[v] = []float64{0}, []float64{0.36}, 0.8
		}
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	d, err := m.Sample(rand.NewPCG(seed, 3), n)
	if err != nil {
		t.Fatal(err)
	}
	return m, d
}

// Learn without options on data that mix the kinds fits a mixed model and
// says so; the search by BIC leaves a model at least as good in BIC as the
// uncontracted tree, and the true model scores no better than the learned
// one by much more than its parameters' penalty. 1,000 rows (2,000 before,
// twice the CPU): the learned tree still has 5 hidden nodes, as at 2,000,
// and a BIC 90 below the truth's, each hidden node still worth far more
// than the margin of 50.
func TestLearnMixedDefault(t *testing.T) {
	truth, d := simMixed(t, 3, 1000, 1)
	res, err := learn.Learn(d, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, ok := res.Model.(*mixed.Model)
	if !ok {
		t.Fatalf("model %T, want *mixed.Model", res.Model)
	}
	mx := res.Mixed
	if mx == nil || mx.Continuous != 10 || mx.Discrete != 9 || mx.HiddenStates != 2 || mx.HiddenDiscrete+mx.HiddenContinuous != m.Tree.NumHidden() {
		t.Fatalf("mixed report %+v for a model of %d hidden nodes", mx, m.Tree.NumHidden())
	}
	if res.Contraction == nil || res.Contraction.BIC > res.Contraction.InitialBIC+1e-6 {
		t.Errorf("contraction %+v: BIC rose", res.Contraction)
	}
	if math.Abs(res.Score.BIC-res.Contraction.BIC) > 1e-6*math.Abs(res.Score.BIC) {
		t.Errorf("score BIC %g, contraction BIC %g", res.Score.BIC, res.Contraction.BIC)
	}
	ts, err := truth.Score(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("learned: %d hidden, log-likelihood %.1f, BIC %.1f; truth: log-likelihood %.1f, BIC %.1f", m.Tree.NumHidden(), res.Score.LogLik, res.Score.BIC, ts.LogLik, ts.BIC)
	// EM's maximum on the true tree is above the truth's likelihood; a
	// learned tree that missed the structure badly would lose much more
	// than this margin (each group's hidden node carries hundreds of nats).
	if res.Score.BIC > ts.BIC+50 {
		t.Errorf("learned BIC %.1f, more than 50 above the true model's %.1f", res.Score.BIC, ts.BIC)
	}
}

// A continuous variable that the structure learner puts between discrete
// ones (here the minimum spanning tree and the Chow–Liu tree over a
// discrete hidden node's leaves, one of them a continuous near copy of it)
// is hung under a new discrete hidden node, and the mixed model is fitted.
func TestLearnMixedRepairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var b strings.Builder
	b.WriteString("a,b,c,x,y\n")
	for range 1500 {
		h := rng.IntN(2)
		noisy := func(p float64) int {
			if rng.Float64() < p {
				return 1 - h
			}
			return h
		}
		fmt.Fprintf(&b, "%d,%d,%d,%.4f,%.4f\n", noisy(0.2), noisy(0.25), noisy(0.3), 4*float64(h)+0.3*rng.NormFloat64(), float64(h)+rng.NormFloat64())
	}
	d, _, err := data.ReadCSV(strings.NewReader(b.String()), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []learn.Method{learn.MST, learn.ChowLiu} {
		res, err := learn.Learn(d, learn.Options{Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if res.Mixed == nil || len(res.Mixed.Repaired) != 1 || res.Mixed.Repaired[0] != "x" {
			t.Fatalf("%s: mixed report %+v, want x repaired", method, res.Mixed)
		}
		m := res.Model.(*mixed.Model)
		x, _ := m.Tree.Lookup("x")
		if !m.Tree.IsLeaf(x) || res.Tree.NumHidden() != 1 || res.Report.Hidden != 1 {
			t.Errorf("%s: x has degree %d, %d hidden nodes (report: %d); want x a leaf under one new hidden node", method, m.Tree.Degree(x), res.Tree.NumHidden(), res.Report.Hidden)
		}
	}
}

// Methods that fit discrete or Gaussian models only refuse mixed data
// with a MixedKindsError naming the method; with StructureOnly they learn
// the structure.
func TestLearnMixedKinds(t *testing.T) {
	_, d := simMixed(t, 1, 300, 2)
	for _, m := range []learn.Method{learn.RegCLNJ, learn.RegCLRG, learn.LCM} {
		var me *learn.MixedKindsError
		_, err := learn.Learn(d, learn.Options{Method: m})
		if !errors.As(err, &me) || !errors.Is(err, learn.ErrMixedKinds) || me.Method != m || !strings.Contains(err.Error(), string(m)+" fits parameters to all-discrete or all-continuous data only") {
			t.Errorf("%s on mixed data: %v, want a MixedKindsError", m, err)
		}
	}
	// Options that do not apply to mixed data are refused before any work.
	for name, fit := range map[string]model.FitOptions{
		"Init":      {Init: model.InitRandom},
		"Params":    {Params: model.ParamsSpectral},
		"EM.Pseudo": {EM: model.EMOptions{Pseudo: 1}},
	} {
		if _, err := learn.Learn(d, learn.Options{Fit: fit}); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s on mixed data: %v", name, err)
		}
	}
}

// The measurement of the report: a mixed table of 31 columns and 10,000
// rows, default learn, and a Gaussian tree on the columns coded as
// numbers (long runs only).
func TestLearnMixedScale(t *testing.T) {
	testenv.SkipUnlessLong(t, "a measurement on 10,000 rows")
	_, d := simMixed(t, 5, 10000, 9)
	res, err := learn.Learn(d, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("mixed: %d hidden (%+v), log-likelihood %.1f, BIC %.1f, κ %d, %s (structure %s, fit %s), contraction %+v",
		res.Tree.NumHidden(), res.Mixed, res.Score.LogLik, res.Score.BIC, res.Score.Params, res.Timings.Total, res.Timings.Structure, res.Timings.Fit, res.Contraction)
	coded, err := data.New(continuousVars(d), d.NumRows())
	if err != nil {
		t.Fatal(err)
	}
	for j := range d.NumVars() {
		dst := coded.Continuous(j)
		if d.Var(j).Kind == data.Continuous {
			copy(dst, d.Continuous(j))
			continue
		}
		for i, s := range d.Discrete(j) {
			dst[i] = float64(s)
		}
	}
	gres, err := learn.Learn(coded, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Gaussian on coded columns: %d hidden, log-likelihood %.1f, BIC %.1f, κ %d, %s",
		gres.Tree.NumHidden(), gres.Score.LogLik, gres.Score.BIC, gres.Score.Params, gres.Timings.Total)
}

func continuousVars(d *data.Dataset) []data.Variable {
	vars := d.Vars()
	for j := range vars {
		vars[j] = data.Variable{Name: vars[j].Name, Kind: data.Continuous}
	}
	return vars
}

// LearnSource fits mixed data held in a data.Packed by unpacking them, as
// Learn does on the Dataset.
func TestLearnSourceMixed(t *testing.T) {
	_, d := simMixed(t, 1, 400, 3)
	p, err := data.Pack(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := learn.LearnSource(p, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := learn.Learn(d, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Mixed == nil || got.Score.LogLik != want.Score.LogLik || got.Tree.Newick() != want.Tree.Newick() {
		t.Errorf("packed: %+v, log-likelihood %g, tree %s; dataset: log-likelihood %g, tree %s", got.Mixed, got.Score.LogLik, got.Tree.Newick(), want.Score.LogLik, want.Tree.Newick())
	}
	// A source that cannot give its rows (files re-read on every pass),
	// and a packed source too large for the search by BIC, are fitted by
	// mixed EM over the source: the fit Learn makes with the threshold
	// rule, up to rounding.
	thr, err := learn.Learn(d, learn.Options{Contract: learn.ContractOptions{Rule: learn.ContractThreshold}})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		src data.Source
		opt learn.Options
	}{
		"stream": {sourceOnly{p}, learn.Options{}},
		"packed": {p, learn.Options{Contract: learn.ContractOptions{AutoBudget: 1}}},
	} {
		got, err := learn.LearnSource(c.src, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rf, err := tree.RobinsonFoulds(got.Tree, thr.Tree)
		if err != nil || rf.RF != 0 || got.Mixed == nil || got.Mixed.HiddenDiscrete+got.Mixed.HiddenContinuous == 0 {
			t.Errorf("%s: tree %s (%+v), in memory %s (%v)", name, got.Tree.Newick(), got.Mixed, thr.Tree.Newick(), err)
		}
		if d := math.Abs(got.Score.LogLik - thr.Score.LogLik); d > 1e-9*math.Abs(thr.Score.LogLik) || got.EM.Iterations != thr.EM.Iterations || got.Score.BIC == 0 {
			t.Errorf("%s: log-likelihood %.12g after %d E-steps, in memory %.12g after %d", name, got.Score.LogLik, got.EM.Iterations, thr.Score.LogLik, thr.EM.Iterations)
		}
	}
}

// sourceOnly hides every method of a Source but Scan.
type sourceOnly struct{ s data.Source }

func (s sourceOnly) Scan(fn func(*data.Dataset) error) error { return s.s.Scan(fn) }

// On a Gaussian tree plus independent categorical columns the learned
// mixed model is at least as likely as the Gaussian tree learned from the
// continuous columns times the categorical columns' marginals (the issue's
// criterion): the trees of each kind, joined, are a baseline of the search
// by BIC, fitted from the Gaussian family's fit of the continuous tree.
func TestLearnMixedGaussianPlusIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	tr, err := simulate.RandomBinary(rng, 10, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	g, err := simulate.Gaussian(rng, tr, simulate.GaussianOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	gd, err := g.Sample(rng, n)
	if err != nil {
		t.Fatal(err)
	}
	vars := gd.Vars()
	cats := [][]float64{{0.5, 0.5}, {0.5, 0.3, 0.2}, {0.25, 0.25, 0.25, 0.25}}
	for i, p := range cats {
		v := data.Variable{Name: fmt.Sprintf("c%d", i+1), Kind: data.Discrete}
		for s := range p {
			v.States = append(v.States, fmt.Sprint(s))
		}
		vars = append(vars, v)
	}
	d, err := data.New(vars, n)
	if err != nil {
		t.Fatal(err)
	}
	marginals := 0.0
	for j := range gd.NumVars() {
		copy(d.Continuous(j), gd.Continuous(j))
	}
	for i, p := range cats {
		col := d.Discrete(gd.NumVars() + i)
		counts := make([]float64, len(p))
		for r := range col {
			u, s := rng.Float64(), 0
			for ; s < len(p)-1 && u >= p[s]; s++ {
				u -= p[s]
			}
			col[r] = uint16(s)
			counts[s]++
		}
		for _, c := range counts {
			if c > 0 {
				marginals += c * math.Log(c/n)
			}
		}
	}
	gres, err := learn.Learn(gd, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := learn.Learn(d, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := gres.Score.LogLik + marginals
	t.Logf("mixed: log-likelihood %.2f (kept %s); Gaussian %.2f + marginals %.2f = %.2f", res.Score.LogLik, res.Contraction.Kept, gres.Score.LogLik, marginals, want)
	if res.Score.LogLik < want-1e-6*math.Abs(want) {
		t.Errorf("mixed log-likelihood %.2f, below the Gaussian tree and the marginals' %.2f", res.Score.LogLik, want)
	}
}
