package gaussian

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// gaussTree is x1, x2 – h1 – h2 – x3, x4 with x5 hanging off x4.
func gaussTree(t *testing.T) (*tree.Tree, *Model) {
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
	g, err := New(tr, h1, 0.5)
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
	ll, total, err := g.LogLikelihood(d, model.InferOptions{})
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
	fit, res, err := Fit(start, d, Options{})
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
	_, fl, _ := fit.LogLikelihood(d, model.InferOptions{})
	_, tl, _ := truth.LogLikelihood(d, model.InferOptions{})
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
	if err := g.WriteJSON(&buf, &model.Provenance{Method: "x"}); err != nil {
		t.Fatal(err)
	}
	m, _, err := model.Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	g2, ok := m.(*Model)
	if !ok {
		t.Fatalf("read back a %T", m)
	}
	d, _ := g.Sample(rand.New(rand.NewPCG(3, 3)), 20)
	a, _, _ := g.LogLikelihood(d, model.InferOptions{})
	b, _, err := g2.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			t.Fatalf("row %d: %g vs %g", i, a[i], b[i])
		}
	}
	bad := bytes.Replace(buf.Bytes(), []byte(`"rho"`), []byte(`"rh0"`), 1)
	if _, _, err := model.Read(bytes.NewReader(bad)); err == nil {
		t.Error("model without a correlation accepted")
	}
}

// structuralCov computes the covariance of every pair of nodes of g
// independently of Corr and covariance: from the structural equations
// s_v = ρ_v s_parent + e_v in standardised units, Cov(s_v, s_u) =
// ρ_v Cov(s_parent, s_u) for every u before v in a root-first order.
func structuralCov(g *Model) [][]float64 {
	r := g.Rooted()
	n := g.Tree.MaxID()
	c := make([][]float64, n)
	for i := range c {
		c[i] = make([]float64, n)
	}
	var seen []int
	for _, v := range r.Order {
		c[v][v] = 1
		if p := r.Parent[v]; p >= 0 {
			for _, u := range seen {
				c[v][u] = g.Rho[v] * c[p][u]
				c[u][v] = c[v][u]
			}
		}
		seen = append(seen, v)
	}
	for _, u := range r.Order {
		for _, v := range r.Order {
			c[u][v] *= math.Sqrt(g.Var[u] * g.Var[v])
		}
	}
	return c
}

// mvnLogDensity is the multivariate normal log-density of the observed
// cells of row r, with a Cholesky factorisation written out here (not
// gonum's): log N(x; μ, Σ) = −½ (k log 2π + 2 Σ log L_ii + |L⁻¹(x−μ)|²).
func mvnLogDensity(t *testing.T, g *Model, cov [][]float64, obs []int, d *data.Dataset, r int) float64 {
	t.Helper()
	var nodes []int
	var x []float64
	for j, v := range obs {
		if c := d.Continuous(j)[r]; !math.IsNaN(c) {
			nodes = append(nodes, v)
			x = append(x, c-g.Mean[v])
		}
	}
	k := len(nodes)
	if k == 0 {
		return 0
	}
	l := make([][]float64, k)
	for i := range l {
		l[i] = make([]float64, k)
		for j := 0; j <= i; j++ {
			s := cov[nodes[i]][nodes[j]]
			for m := 0; m < j; m++ {
				s -= l[i][m] * l[j][m]
			}
			if i == j {
				if !(s > 0) {
					t.Fatalf("row %d: covariance not positive definite", r)
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	// Forward substitution z = L⁻¹x.
	quad, logdet := 0.0, 0.0
	z := make([]float64, k)
	for i := 0; i < k; i++ {
		s := x[i]
		for m := 0; m < i; m++ {
			s -= l[i][m] * z[m]
		}
		z[i] = s / l[i][i]
		quad += z[i] * z[i]
		logdet += 2 * math.Log(l[i][i])
	}
	return -0.5 * (float64(k)*math.Log(2*math.Pi) + logdet + quad)
}

// TestGaussianMissingLogLikelihoodExact checks the log-likelihood of rows
// with missing cells (LogLikelihood, and the belief propagation EM uses)
// against the exact multivariate normal marginal density.
func TestGaussianMissingLogLikelihoodExact(t *testing.T) {
	tr, g := gaussTree(t) // x4 is an observed internal node
	rng := rand.New(rand.NewPCG(5, 5))
	d, err := g.Sample(rng, 300)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < d.NumVars(); j++ {
		col := d.Continuous(j)
		for r := range col {
			if rng.Float64() < 0.3 {
				col[r] = math.NaN()
			}
		}
	}
	for j := 0; j < d.NumVars(); j++ { // a row with every cell missing
		d.Continuous(j)[0] = math.NaN()
	}
	obs := tr.Observed()
	cov := structuralCov(g)
	ll, total, err := g.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.bind(d)
	if err != nil {
		t.Fatal(err)
	}
	bp := newGaussBP(g, b.obs)
	sum := 0.0
	for r := 0; r < d.NumRows(); r++ {
		want := mvnLogDensity(t, g, cov, obs, d, r)
		sum += want
		if math.Abs(ll[r]-want) > 1e-9 {
			t.Fatalf("row %d: LogLikelihood %.12g, multivariate normal %.12g", r, ll[r], want)
		}
		if got := bp.row(b.cols, r); math.Abs(got-want) > 1e-9 {
			t.Fatalf("row %d: belief propagation %.12g, multivariate normal %.12g", r, got, want)
		}
	}
	if math.Abs(total-sum) > 1e-8 {
		t.Fatalf("total %g, multivariate normal %g", total, sum)
	}
	if ll[0] != 0 {
		t.Errorf("a row with no observed cell has log-likelihood %g, want 0", ll[0])
	}
}

// TestGaussianEStepPaths checks that the two E-step paths (a pattern's
// sample moments, and belief propagation row by row) give the same
// expected statistics and log-likelihood, and that the log-likelihood is
// LogLikelihood's.
func TestGaussianEStepPaths(t *testing.T) {
	_, g := gaussTree(t)
	rng := rand.New(rand.NewPCG(6, 6))
	d, err := g.Sample(rng, 400)
	if err != nil {
		t.Fatal(err)
	}
	// Two columns missing in blocks of rows: few patterns with many rows.
	for r := 0; r < 100; r++ {
		d.Continuous(1)[r] = math.NaN()
	}
	for r := 50; r < 200; r++ {
		d.Continuous(3)[r] = math.NaN()
	}
	d.Continuous(0)[399] = math.NaN()
	b, err := g.bind(d)
	if err != nil {
		t.Fatal(err)
	}
	em := newGaussEM(g, b, b.patterns(), nil)
	ndense := 0
	for _, p := range em.pats {
		if p.dense {
			ndense++
		}
	}
	if ndense == 0 || ndense == len(em.pats) {
		t.Fatalf("%d of %d patterns dense: the test needs both kinds", ndense, len(em.pats))
	}
	mixed, err := em.estep()
	if err != nil {
		t.Fatal(err)
	}
	for i := range em.pats {
		em.pats[i].dense = false
	}
	rows, err := em.estep()
	if err != nil {
		t.Fatal(err)
	}
	_, want, err := g.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(mixed.ll-want) > 1e-8 || math.Abs(rows.ll-want) > 1e-8 {
		t.Errorf("E-step log-likelihood %.10g (mixed) %.10g (rows), LogLikelihood %.10g", mixed.ll, rows.ll, want)
	}
	for _, v := range em.nodes {
		for _, c := range []struct {
			name string
			a, b float64
		}{{"E[x]", mixed.s1[v], rows.s1[v]}, {"E[x²]", mixed.s2[v], rows.s2[v]}, {"E[x x_parent]", mixed.sp[v], rows.sp[v]}} {
			if math.Abs(c.a-c.b) > 1e-8*math.Max(1, math.Abs(c.b)) {
				t.Errorf("node %s: Σ %s %.10g (moments) vs %.10g (rows)", g.Tree.Name(v), c.name, c.a, c.b)
			}
		}
	}
}

// TestFitGaussianMissingMonotone checks that EM with missing cells never
// decreases the log-likelihood and uses every row.
func TestFitGaussianMissingMonotone(t *testing.T) {
	tr, g := gaussTree(t)
	rng := rand.New(rand.NewPCG(8, 8))
	d, err := g.Sample(rng, 500)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < d.NumVars(); j++ {
		col := d.Continuous(j)
		for r := range col {
			if rng.Float64() < 0.2 {
				col[r] = math.NaN()
			}
		}
	}
	start := tr.Clone()
	for _, e := range start.Edges() {
		_ = start.SetEdgeLength(e.U, e.V, 0.1)
	}
	fit, res, err := Fit(start, d, Options{Tol: 1e-12, MaxIter: 300})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 500 {
		t.Errorf("EM used %d rows, want 500", res.Rows)
	}
	if len(res.Trace) < 10 {
		t.Fatalf("only %d iterations", len(res.Trace))
	}
	for i := 1; i < len(res.Trace); i++ {
		if res.Trace[i] < res.Trace[i-1]-1e-10*math.Abs(res.Trace[i-1]) {
			t.Fatalf("EM decreased the log-likelihood at iteration %d: %.12g → %.12g", i, res.Trace[i-1], res.Trace[i])
		}
	}
	_, ll, err := fit.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ll-res.LogLik) > 1e-8*math.Abs(ll) {
		t.Errorf("EM reports %.10g, LogLikelihood of the fitted model %.10g", res.LogLik, ll)
	}
	if res.Trace[len(res.Trace)-1] <= res.Trace[0] {
		t.Errorf("EM did not improve on its start: %g → %g", res.Trace[0], res.Trace[len(res.Trace)-1])
	}
}

func TestFitGaussianOptionErrors(t *testing.T) {
	tr, g := gaussTree(t)
	d, _ := g.Sample(rand.New(rand.NewPCG(9, 9)), 50)
	if _, _, err := Fit(tr, d, Options{Tol: -1}); err == nil {
		t.Error("negative tolerance accepted")
	}
	col := d.Continuous(2)
	for r := 1; r < len(col); r++ {
		col[r] = math.NaN()
	}
	_, _, err := Fit(tr, d, Options{})
	if err == nil || !strings.Contains(err.Error(), `"x3"`) {
		t.Errorf("a column with one observed value: %v", err)
	}
}

// TestGaussianConditionalPaths checks belief propagation (Conditional)
// against conditioning each pattern's covariance (conditionalDense), and
// that a correlation of 1 falls back to the latter.
func TestGaussianConditionalPaths(t *testing.T) {
	tr, g := gaussTree(t)
	rng := rand.New(rand.NewPCG(10, 10))
	d, err := g.Sample(rng, 200)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < d.NumVars(); j++ {
		col := d.Continuous(j)
		for r := range col {
			if rng.Float64() < 0.25 {
				col[r] = math.NaN()
			}
		}
	}
	nodes := tr.Nodes()
	check := func(g *Model) {
		t.Helper()
		mean, sd, err := g.Conditional(d, nodes)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := g.bind(d)
		dm, dsd, err := g.conditionalDense(b, nodes)
		if err != nil {
			t.Fatal(err)
		}
		for x, v := range nodes {
			for r := 0; r < d.NumRows(); r++ {
				if math.Abs(mean[x][r]-dm[x][r]) > 1e-9 || math.Abs(sd[x][r]-dsd[x][r]) > 1e-7 {
					t.Fatalf("node %s row %d: mean %g sd %g, dense %g %g", tr.Name(v), r, mean[x][r], sd[x][r], dm[x][r], dsd[x][r])
				}
				if j, ok := d.Index(tr.Name(v)); ok && !math.IsNaN(d.Continuous(j)[r]) && (mean[x][r] != d.Continuous(j)[r] || sd[x][r] != 0) {
					t.Fatalf("observed cell %s row %d: mean %g sd %g, value %g", tr.Name(v), r, mean[x][r], sd[x][r], d.Continuous(j)[r])
				}
			}
		}
	}
	check(g)
	// ρ = 1 between the two hidden nodes: belief propagation cannot run.
	h2 := tr.Hidden()[1]
	g.Rho[h2] = 1
	b, _ := g.bind(d)
	if newGaussBP(g, b.obs).usable() {
		t.Fatal("belief propagation accepted ρ = 1")
	}
	mean, _, err := g.Conditional(d, []int{h2})
	if err != nil {
		t.Fatal(err)
	}
	dm, _, _ := g.conditionalDense(b, []int{h2})
	if math.Abs(mean[0][5]-dm[0][5]) > 1e-12 {
		t.Errorf("ρ = 1: mean %g, dense %g", mean[0][5], dm[0][5])
	}
	if _, _, err := g.Conditional(d, []int{99}); err == nil {
		t.Error("a node not in the tree accepted")
	}
}

// TestGaussianLogLikelihoodRarePatterns: on a larger model where rows
// with missing cells each have their own pattern, LogLikelihood scores
// them by belief propagation; they must still match the exact
// multivariate normal density.
func TestGaussianLogLikelihoodRarePatterns(t *testing.T) {
	tr := tree.New()
	prev := -1
	rng := rand.New(rand.NewPCG(11, 11))
	for i := 0; i < 10; i++ {
		h := tr.AddHidden()
		if prev >= 0 {
			_ = tr.AddEdge(prev, h, math.NaN())
		}
		prev = h
		for k := 0; k < 3; k++ {
			x, _ := tr.AddObserved("x" + strconv.Itoa(3*i+k))
			_ = tr.AddEdge(h, x, math.NaN())
		}
	}
	g, err := New(tr, 0, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range tr.Nodes() {
		g.Rho[v] = (0.3 + 0.6*rng.Float64()) * float64(1-2*rng.IntN(2))
		if !tr.IsHidden(v) {
			g.Mean[v], g.Var[v] = rng.NormFloat64(), 0.5+rng.Float64()
		}
	}
	d, err := g.Sample(rng, 200)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < d.NumVars(); j++ {
		col := d.Continuous(j)
		for r := range col {
			if r%2 == 0 && rng.Float64() < 0.1 {
				col[r] = math.NaN()
			}
		}
	}
	ll, _, err := g.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cov := structuralCov(g)
	obs := tr.Observed()
	for r := 0; r < d.NumRows(); r++ {
		if want := mvnLogDensity(t, g, cov, obs, d, r); math.Abs(ll[r]-want) > 1e-9 {
			t.Fatalf("row %d: %.12g, multivariate normal %.12g", r, ll[r], want)
		}
	}
}
