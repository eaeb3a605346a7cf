package model

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/tree"
)

// gaussTree is x1, x2 – h1 – h2 – x3, x4 with x5 hanging off x4.
func gaussTree(t *testing.T) (*tree.Tree, *Gaussian) {
	t.Helper()
	tr := tree.New()
	h1, h2 := tr.AddHidden(), tr.AddHidden()
	var x [6]int
	for i := 1; i <= 5; i++ {
		x[i], _ = tr.AddObserved("x" + string(rune('0'+i)))
	}
	edges := [][2]int{{h1, h2}, {h1, x[1]}, {h1, x[2]}, {h2, x[3]}, {h2, x[4]}, {x[4], x[5]}}
	rhos := []float64{0.7, 0.8, -0.6, 0.75, 0.65, 0.5}
	for _, e := range edges {
		if err := tr.AddEdge(e[0], e[1], math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	g, err := NewGaussian(tr, h1, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	r := g.Rooted()
	for k, e := range edges {
		child := e[1]
		if r.Parent[e[0]] == e[1] {
			child = e[0]
		}
		g.Rho[child] = rhos[k]
		_ = tr.SetEdgeLength(e[0], e[1], -math.Log(math.Abs(rhos[k])))
	}
	for i := 1; i <= 5; i++ {
		g.Mean[x[i]] = float64(i)
		g.Var[x[i]] = 0.5 + float64(i)
	}
	return tr, g
}

func TestGaussianLogLikelihoodAndConditional(t *testing.T) {
	tr, g := gaussTree(t)
	rng := rand.New(rand.NewPCG(1, 1))
	d, err := g.Sample(rng, 50)
	if err != nil {
		t.Fatal(err)
	}
	// Blank a few cells.
	d.Continuous(2)[3] = math.NaN()
	d.Continuous(0)[7] = math.NaN()
	d.Continuous(4)[7] = math.NaN()
	ll, total, err := g.LogLikelihood(d, InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	obs := tr.Observed()
	cov := g.covariance(obs, obs)
	sum := 0.0
	for r := 0; r < d.NumRows(); r++ {
		var idx []int
		for j := range obs {
			if !math.IsNaN(d.Continuous(j)[r]) {
				idx = append(idx, j)
			}
		}
		mu := make([]float64, len(idx))
		x := make([]float64, len(idx))
		sig := mat.NewSymDense(len(idx), nil)
		for a, i := range idx {
			mu[a], x[a] = g.Mean[obs[i]], d.Continuous(i)[r]
			for c, j := range idx {
				sig.SetSym(a, c, cov[i*len(obs)+j])
			}
		}
		// Direct density with an LU inverse and determinant.
		var inv mat.Dense
		if err := inv.Inverse(sig); err != nil {
			t.Fatal(err)
		}
		ld, _ := mat.LogDet(sig)
		diff := mat.NewVecDense(len(x), nil)
		for a := range x {
			diff.SetVec(a, x[a]-mu[a])
		}
		want := -0.5*(float64(len(x))*math.Log(2*math.Pi)+ld) - 0.5*mat.Inner(diff, &inv, diff)
		if math.Abs(ll[r]-want) > 1e-9 {
			t.Fatalf("row %d: %g, multivariate normal %g", r, ll[r], want)
		}
		sum += want
	}
	if math.Abs(total-sum) > 1e-8 {
		t.Fatalf("total %g vs %g", total, sum)
	}
	// An observed cell is its own conditional mean with sd 0; a missing
	// one gets a proper prediction.
	m, sd, err := g.Conditional(d, []int{obs[2]})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(m[0][0]-d.Continuous(2)[0]) > 1e-9 || sd[0][0] > 1e-7 {
		t.Errorf("observed cell: mean %g sd %g, value %g", m[0][0], sd[0][0], d.Continuous(2)[0])
	}
	if math.IsNaN(m[0][3]) || !(sd[0][3] > 0 && sd[0][3] < math.Sqrt(g.Var[obs[2]])) {
		t.Errorf("missing cell: mean %g sd %g", m[0][3], sd[0][3])
	}
}

func TestFitGaussianRecovers(t *testing.T) {
	tr, truth := gaussTree(t)
	rng := rand.New(rand.NewPCG(2, 2))
	d, err := truth.Sample(rng, 200000)
	if err != nil {
		t.Fatal(err)
	}
	// Start from wrong lengths: EM must still find the truth.
	start := tr.Clone()
	for _, e := range start.Edges() {
		_ = start.SetEdgeLength(e.U, e.V, 0.3)
	}
	fit, res, err := FitGaussian(start, d, GaussianFitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(res.Trace); i++ {
		if res.Trace[i] < res.Trace[i-1]-1e-9*math.Abs(res.Trace[i-1]) {
			t.Fatalf("EM decreased the log-likelihood at %d", i)
		}
	}
	obs := tr.Observed()
	for _, u := range obs {
		for _, v := range obs {
			if u >= v {
				continue
			}
			if got, want := fit.Corr(u, v), truth.Corr(u, v); math.Abs(got-want) > 0.01 {
				t.Errorf("corr(%s,%s) = %.4f, true %.4f", tr.Name(u), tr.Name(v), got, want)
			}
		}
	}
	// The fitted log-likelihood is at least the true model's (MLE).
	_, fl, _ := fit.LogLikelihood(d, InferOptions{})
	_, tl, _ := truth.LogLikelihood(d, InferOptions{})
	if fl < tl-1 {
		t.Errorf("fitted loglik %g below the true model's %g", fl, tl)
	}
	if fit.NumParams() != tr.NumEdges()+2*5 {
		t.Errorf("κ = %d", fit.NumParams())
	}
}

func TestGaussianJSON(t *testing.T) {
	tr, g := gaussTree(t)
	_ = tr
	var buf bytes.Buffer
	if err := g.WriteJSON(&buf, &Provenance{Method: "x"}); err != nil {
		t.Fatal(err)
	}
	m, _, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	g2, ok := m.(*Gaussian)
	if !ok {
		t.Fatalf("read back a %T", m)
	}
	d, _ := g.Sample(rand.New(rand.NewPCG(3, 3)), 20)
	a, _, _ := g.LogLikelihood(d, InferOptions{})
	b, _, err := g2.LogLikelihood(d, InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			t.Fatalf("row %d: %g vs %g", i, a[i], b[i])
		}
	}
	bad := bytes.Replace(buf.Bytes(), []byte(`"rho"`), []byte(`"rh0"`), 1)
	if _, _, err := Read(bytes.NewReader(bad)); err == nil {
		t.Error("model without a correlation accepted")
	}
}
