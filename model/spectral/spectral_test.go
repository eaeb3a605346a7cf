package spectral

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/tree"
)

// specTestModel returns a discrete model on the Newick tree nw with n
// states per observed and k per hidden node and random CPTs bounded away
// from 0 (full rank with probability one).
func specTestModel(t *testing.T, nw string, n, k int, seed uint64) *discrete.Model {
	t.Helper()
	tr, err := tree.ParseNewick(nw, tree.NewickOptions{})
	if err != nil {
		t.Fatal(err)
	}
	states := make([]int, tr.MaxID())
	for _, v := range tr.Nodes() {
		states[v] = n
		if tr.IsHidden(v) {
			states[v] = k
		}
	}
	m, err := discrete.New(tr, model.DefaultRoot(tr), states)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	fill := func(p []float64, kk int) {
		for a := 0; a < len(p)/kk; a++ {
			s := 0.0
			for b := 0; b < kk; b++ {
				x := 0.2 + rng.Float64()
				if b == a%kk {
					x += 1.5 // a dominant state per row: well conditioned
				}
				p[a*kk+b] = x
				s += x
			}
			for b := 0; b < kk; b++ {
				p[a*kk+b] /= s
			}
		}
	}
	fill(m.Prior, len(m.Prior))
	for v, c := range m.CPT {
		if c != nil {
			fill(c, m.States[v])
		}
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

// population returns every configuration of m's observed variables as a
// dataset, and their exact probabilities.
func population(t *testing.T, m *discrete.Model) (*data.Dataset, []float64) {
	t.Helper()
	obs := m.Tree.Observed()
	total := 1
	for _, v := range obs {
		total *= m.States[v]
	}
	vars := make([]data.Variable, len(obs))
	cols := make([][]uint16, len(obs))
	for i, v := range obs {
		vars[i] = data.Variable{Name: m.Tree.Name(v), Kind: data.Discrete, States: m.StateLabels(v)}
		cols[i] = make([]uint16, total)
	}
	for r := 0; r < total; r++ {
		x := r
		for i := len(obs) - 1; i >= 0; i-- {
			k := m.States[obs[i]]
			cols[i][r] = uint16(x % k)
			x /= k
		}
	}
	d, err := data.FromDiscrete(vars, cols)
	if err != nil {
		t.Fatal(err)
	}
	ll, _, err := m.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, total)
	for r, x := range ll {
		p[r] = math.Exp(x)
	}
	return d, p
}

var specTrees = []struct {
	name, nw string
}{
	{"binary", "(((a,b),(c,d)),((e,f),(g,h)));"},
	{"degree4", "((a,b),(c,d),(e,f),(g,h));"},
	{"observed-internal", "((a,b)x,(c,(d,e)),(f,g));"},
	{"hmm", "(a,(b,(c,(d,(e,f)))));"},
	{"two-observed-internal", "((a,b)x,((c,d)y,e)z,(f,g));"},
	{"deep-degree5", "((a,b),(c,d),(e,f),(g,h),(i,(j,k)));"},
	{"star8-split", "(a,b,c,d,e,f,g,h);"},
}

func TestSpectralExactOnPopulation(t *testing.T) {
	for _, tc := range specTrees {
		for _, nk := range [][3]int{{2, 2, 2}, {3, 2, 2}, {3, 2, 3}} {
			for _, linker := range []model.Linker{model.LinkerMStar, model.LinkerParikh, model.LinkerMStarFull} {
				name := tc.name + "/n" + strconv.Itoa(nk[0]) + "k" + strconv.Itoa(nk[1]) + "k′" + strconv.Itoa(nk[2]) + "/" + linker.String()
				t.Run(name, func(t *testing.T) {
					m := specTestModel(t, tc.nw, nk[0], nk[1], 3)
					d, p := population(t, m)
					s, err := FitWeighted(m.Tree, d, p, Options{HiddenStates: nk[2], Linker: linker})
					if err != nil {
						t.Fatal(err)
					}
					q, err := s.Prob(d, model.InferOptions{})
					if err != nil {
						t.Fatal(err)
					}
					if tc.name == "star8-split" && nk[0] == 3 && len(s.Edges) == 0 {
						t.Errorf("a star of 8 three-state leaves was not split")
					}
					worst, sum := 0.0, 0.0
					for r := range p {
						worst = max(worst, math.Abs(q[r]-p[r]))
						sum += q[r]
					}
					if worst > 1e-9 || math.Abs(sum-1) > 1e-9 {
						t.Errorf("max |P̂−P| = %.3g, ΣP̂ = %.12f; want exact", worst, sum)
					}
				})
			}
		}
	}
}

// TestSpectralProjectPopulation: on population tables with k′ = k the
// projected CPTs give (up to the floor) the true distribution.
func TestSpectralProjectPopulation(t *testing.T) {
	for _, tc := range specTrees {
		t.Run(tc.name, func(t *testing.T) {
			m := specTestModel(t, tc.nw, 3, 2, 5)
			d, p := population(t, m)
			s, err := FitWeighted(m.Tree, d, p, Options{HiddenStates: 2})
			if err != nil {
				t.Fatal(err)
			}
			dst := m.Clone()
			dst.Randomize(rand.NewPCG(9, 9))
			n, err := s.Project(dst)
			if err != nil {
				t.Fatal(err)
			}
			q, _, err := dst.LogLikelihood(d, model.InferOptions{})
			if err != nil {
				t.Fatal(err)
			}
			kl := 0.0
			for r := range p {
				kl += p[r] * (math.Log(p[r]) - q[r])
			}
			t.Logf("%d of %d nodes projected, KL(P‖projected) = %.3g", n, m.Tree.NumNodes(), kl)
			if n != m.Tree.NumNodes() || kl > 1e-3 {
				t.Errorf("projected %d nodes, KL %.3g: want all and KL ≤ 1e-3 (the floor's cost)", n, kl)
			}
		})
	}
}

// exactSpectral fits a spectral model to the population tables of a test
// model with k′ = k.
func exactSpectral(t *testing.T, nw string, n, k int, linker model.Linker) (*discrete.Model, *Model) {
	t.Helper()
	m := specTestModel(t, nw, n, k, 3)
	d, p := population(t, m)
	s, err := FitWeighted(m.Tree, d, p, Options{HiddenStates: k, Linker: linker})
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// TestSpectralQueries: marginals, conditionals, imputation and distances
// of an exact spectral model equal the true model's.
func TestSpectralQueries(t *testing.T) {
	m, s := exactSpectral(t, "((a,b)x,(c,(d,e)),(f,g));", 3, 2, model.LinkerMStar)
	rng := rand.New(rand.NewPCG(4, 4))
	d, err := m.Sample(rand.NewPCG(5, 5), 200)
	if err != nil {
		t.Fatal(err)
	}
	// Knock out cells, some rows entirely.
	for j := 0; j < d.NumVars(); j++ {
		col := d.Discrete(j)
		for r := range col {
			if rng.Float64() < 0.3 || r == 7 {
				col[r] = data.Missing
			}
		}
	}
	want, _, err := m.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := s.LogLikelihood(d, model.InferOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for r := range want {
		if math.Abs(got[r]-want[r]) > 1e-9 {
			t.Fatalf("row %d: log P̂ = %g, log P = %g", r, got[r], want[r])
		}
	}
	obs := m.Tree.Observed()
	cw, err := m.Conditionals(d, obs, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cg, err := s.Conditionals(d, obs, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for x := range obs {
		for i := range cw[x].Prob {
			if math.Abs(cw[x].Prob[i]-cg[x].Prob[i]) > 1e-9 {
				t.Fatalf("%s: conditional %d = %g, want %g", cw[x].Name, i, cg[x].Prob[i], cw[x].Prob[i])
			}
		}
	}
	iw, err := m.Impute(d, model.ImputeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ig, err := s.Impute(d, model.ImputeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(iw.Cells) != len(ig.Cells) {
		t.Fatalf("%d imputed cells, want %d", len(ig.Cells), len(iw.Cells))
	}
	for i := range iw.Cells {
		if iw.Cells[i].Value != ig.Cells[i].Value && math.Abs(iw.Cells[i].Prob-ig.Cells[i].Prob) > 1e-9 {
			t.Fatalf("cell %d imputed %s, want %s", i, ig.Cells[i].Value, iw.Cells[i].Value)
		}
	}
	// Information distances need as many hidden as observed states.
	m2, s2 := exactSpectral(t, "((a,b)x,(c,(d,e)),(f,g));", 2, 2, model.LinkerMStar)
	dw, err := m2.InformationDistances(obs)
	if err != nil {
		t.Fatal(err)
	}
	dg, err := s2.InformationDistances(obs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range dw {
		if math.Abs(dw[i]-dg[i]) > 1e-8 {
			t.Fatalf("distance %d = %g, want %g", i, dg[i], dw[i])
		}
	}
	if _, err := s.Conditionals(d, m.Tree.Hidden()[:1], model.InferOptions{}); err == nil || !strings.Contains(err.Error(), "hidden") {
		t.Errorf("conditional of a hidden node: %v, want an error", err)
	}
	if s.NumParams() != m.NumParams() {
		t.Errorf("NumParams %d, want the discrete model's %d", s.NumParams(), m.NumParams())
	}
}

// TestSpectralSample: rows drawn from an exact spectral model have the
// true model's pair marginals (within 4 standard errors).
func TestSpectralSample(t *testing.T) {
	m, s := exactSpectral(t, "(((a,b),(c,d)),(e,f));", 2, 2, model.LinkerMStar)
	const n = 4000
	d, err := s.Sample(rand.NewPCG(8, 8), n)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := m.Tree.Lookup("a")
	f, _ := m.Tree.Lookup("f")
	pw := m.PairMarginal(a, f)
	ja, _ := d.Index("a")
	jf, _ := d.Index("f")
	cnt := make([]float64, 4)
	for r := 0; r < n; r++ {
		cnt[int(d.Discrete(ja)[r])*2+int(d.Discrete(jf)[r])]++
	}
	for i, p := range pw {
		got := cnt[i] / n
		if se := math.Sqrt(p * (1 - p) / n); math.Abs(got-p) > 4*se {
			t.Errorf("P(a,f) cell %d: sampled %.4f, true %.4f (se %.4f)", i, got, p, se)
		}
	}
}

// TestSpectralJSONRoundTrip: a written and read model gives the same P̂.
func TestSpectralJSONRoundTrip(t *testing.T) {
	// The third tree's root factor is not the first node (a root that is
	// not factor 0).
	for _, nw := range []string{"((a,b)x,(c,(d,e)),(f,g));", "(a,b,c,d,e,f,g,h);", "(a,(b,c),(d,(e,f,g,h)));"} {
		m := specTestModel(t, nw, 3, 2, 3)
		d, err := m.Sample(rand.NewPCG(1, 1), 3000)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Fit(m.Tree, d, Options{HiddenStates: 2, Linker: model.LinkerParikh})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := s.WriteJSON(&buf, &model.Provenance{Method: "test"}); err != nil {
			t.Fatal(err)
		}
		back, prov, err := model.Read(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		s2, ok := back.(*Model)
		if !ok || prov.Method != "test" || s2.Linker != model.LinkerParikh || s2.HiddenStates != 2 || len(s2.Edges) != len(s.Edges) {
			t.Fatalf("read back %T %+v", back, prov)
		}
		p1, _ := s.Prob(d, model.InferOptions{})
		p2, err := s2.Prob(d, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for r := range p1 {
			if p1[r] != p2[r] {
				t.Fatalf("row %d: P̂ %g after reading, %g before", r, p2[r], p1[r])
			}
		}
	}
}

func TestSpectralBadInput(t *testing.T) {
	m := specTestModel(t, "((a,b),(c,d),(e,f));", 2, 2, 3)
	d, err := m.Sample(rand.NewPCG(1, 1), 100)
	if err != nil {
		t.Fatal(err)
	}
	noHidden, _ := tree.ParseNewick("((a,b)x,(c,d)y,(e,f)z)w;", tree.NewickOptions{})
	fewer, _ := d.SelectNames([]string{"a", "b", "c", "d", "e"})
	cont, _ := data.FromContinuous([]string{"a", "b", "c", "d", "e", "f"}, [][]float64{{1, 2}, {1, 2}, {1, 2}, {1, 2}, {1, 2}, {1, 2}})
	for _, tc := range []struct {
		name string
		t    *tree.Tree
		d    *data.Dataset
		opt  Options
		want string
	}{
		{"k′ < 1", m.Tree, d, Options{HiddenStates: -1}, "hidden states"},
		{"tol", m.Tree, d, Options{Tol: 2}, "tolerance"},
		{"no hidden", noHidden, d, Options{}, "hidden nodes"},
		{"missing variable", m.Tree, fewer, Options{}, `"f"`},
		{"continuous", m.Tree, cont, Options{}, "discrete"},
		{"no data", m.Tree, nil, Options{}, "no data"},
	} {
		_, err := Fit(tc.t, tc.d, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestSpectralSampledErrorFalls: on sampled data the median relative error
// of P̂ falls with N for every linker.
func TestSpectralSampledErrorFalls(t *testing.T) {
	m := specTestModel(t, "(((a,b),(c,d)),((e,f),(g,h)));", 3, 2, 3)
	test, err := m.Sample(rand.NewPCG(99, 1), 500)
	if err != nil {
		t.Fatal(err)
	}
	truth, _, _ := m.LogLikelihood(test, model.InferOptions{})
	for _, linker := range []model.Linker{model.LinkerMStar, model.LinkerParikh, model.LinkerMStarFull} {
		var errs []float64
		for _, n := range []int{1000, 100000} {
			d, err := m.Sample(rand.NewPCG(uint64(n), 2), n)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Fit(m.Tree, d, Options{HiddenStates: 2, Linker: linker})
			if err != nil {
				t.Fatal(err)
			}
			p, _ := s.Prob(test, model.InferOptions{})
			e := make([]float64, len(p))
			for r := range p {
				e[r] = math.Abs(p[r]-math.Exp(truth[r])) / math.Exp(truth[r])
			}
			slices.Sort(e)
			errs = append(errs, e[len(e)/2])
		}
		t.Logf("%s: median ε %.3f at N=1000, %.3f at N=100000", linker, errs[0], errs[1])
		if !(errs[1] < errs[0]/2) || errs[1] > 0.1 {
			t.Errorf("%s: median ε %.3f → %.3f; want it to fall at least by half, below 0.1", linker, errs[0], errs[1])
		}
	}
}

// balancedNewick returns a balanced binary tree over leaves x lo..hi−1.
func balancedNewick(lo, hi int) string {
	if hi-lo == 1 {
		return "x" + strconv.Itoa(lo)
	}
	mid := (lo + hi) / 2
	return "(" + balancedNewick(lo, mid) + "," + balancedNewick(mid, hi) + ")"
}

// TestSpectralManyLeaves: with exact tables on a 500-leaf tree (rows of
// probability far below 2^−200, so that messages are rescaled), log P̂
// equals the exact log-likelihood for every linker that needs no rows.
func TestSpectralManyLeaves(t *testing.T) {
	if testing.Short() {
		t.Skip("large tree")
	}
	m := specTestModel(t, "("+balancedNewick(0, 250)+","+balancedNewick(250, 500)+");", 2, 2, 8)
	d, err := m.Sample(rand.NewPCG(2, 2), 50)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := m.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want[0] > -200*math.Ln2 {
		t.Fatalf("row 0 has log P = %g: too likely to need rescaling", want[0])
	}
	for _, linker := range []model.Linker{model.LinkerMStar, model.LinkerParikh} {
		s := &Model{Tree: m.Tree, HiddenStates: 2, Linker: linker, Tol: model.DefaultSpectralTol,
			States: m.States, Labels: make([][]string, m.Tree.MaxID()), root: model.DefaultRoot(m.Tree)}
		net, err := buildNet(m.Tree, m.States, 2)
		if err != nil {
			t.Fatal(err)
		}
		src := &specData{exact: m.JointMarginal}
		if err := net.estimate(src, Options{HiddenStates: 2, Linker: linker, Tol: model.DefaultSpectralTol}, s); err != nil {
			t.Fatal(err)
		}
		s.setNet(net)
		got, _, err := s.LogLikelihood(d, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for r := range want {
			if math.Abs(got[r]-want[r]) > 1e-8*math.Abs(want[r]) {
				t.Fatalf("%s, row %d: log P̂ = %.12g, log P = %.12g", linker, r, got[r], want[r])
			}
		}
	}
}
