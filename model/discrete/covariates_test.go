package discrete_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/tree"
)

// covLCM is a latent class model with covariates for simulation: k
// classes, binary items with P(item v = 1 | class c) = p[v][c], a
// continuous covariate z ~ N(0, 1) and a categorical covariate g with
// three states "a", "b", "c" (uniform); beta is k × 4 over (1, z, g=b,
// g=c), row 0 zero.
type covLCM struct {
	k    int
	p    [][]float64
	beta []float64
}

// sample draws n rows: the items, z and g; with miss > 0 each item cell
// is missing with that probability.
func (c covLCM) sample(t *testing.T, n int, seed uint64, miss float64) *data.Dataset {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	vars := []data.Variable{}
	for v := range c.p {
		vars = append(vars, data.Variable{Name: "x" + string(rune('1'+v)), Kind: data.Discrete, States: []string{"0", "1"}})
	}
	vars = append(vars, data.Variable{Name: "z", Kind: data.Continuous}, data.Variable{Name: "g", Kind: data.Discrete, States: []string{"a", "b", "c"}})
	d, err := data.New(vars, n)
	if err != nil {
		t.Fatal(err)
	}
	nv := len(c.p)
	z, g := d.Continuous(nv), d.Discrete(nv+1)
	pi := make([]float64, c.k)
	for i := 0; i < n; i++ {
		z[i] = rng.NormFloat64()
		g[i] = uint16(rng.IntN(3))
		x := []float64{1, z[i], b2f(g[i] == 1), b2f(g[i] == 2)}
		sum := 0.0
		for s := 0; s < c.k; s++ {
			eta := 0.0
			for j, xj := range x {
				eta += c.beta[s*4+j] * xj
			}
			pi[s] = math.Exp(eta)
			sum += pi[s]
		}
		u, cls := rng.Float64()*sum, c.k-1
		for s := 0; s < c.k; s++ {
			if u < pi[s] {
				cls = s
				break
			}
			u -= pi[s]
		}
		for v := range c.p {
			col := d.Discrete(v)
			if rng.Float64() < c.p[v][cls] {
				col[i] = 1
			}
			if miss > 0 && rng.Float64() < miss {
				col[i] = data.Missing
			}
		}
	}
	return d
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func lcmTree(t *testing.T, items int) (*tree.Tree, int) {
	t.Helper()
	tr := tree.New()
	h := tr.AddHidden()
	for v := 0; v < items; v++ {
		x, err := tr.AddObserved("x" + string(rune('1'+v)))
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.AddEdge(h, x, 1); err != nil {
			t.Fatal(err)
		}
	}
	tr.AutoNameHidden("h")
	return tr, h
}

// bruteLogLik is the log-likelihood of d under a latent class model with
// per-row priors, by summing over the class of every row: Σ_i log Σ_c
// π_ic Π_v P(x_iv | c), missing cells left out. It reads the model's
// CPTs and coefficients only.
func bruteLogLik(m *discrete.Model, d *data.Dataset, items []int) float64 {
	reg := m.Regression
	k := m.States[m.Root]
	p := 1 + reg.NumTerms()
	zc, _ := d.Index("z")
	gc, _ := d.Index("g")
	total := 0.0
	for i := 0; i < d.NumRows(); i++ {
		g := d.Discrete(gc)[i]
		x := []float64{1, d.Continuous(zc)[i], b2f(g == 1), b2f(g == 2)}
		eta := make([]float64, k)
		norm := 0.0
		for c := 0; c < k; c++ {
			for j := 0; j < p; j++ {
				eta[c] += reg.Beta[c*p+j] * x[j]
			}
			norm += math.Exp(eta[c])
		}
		row := 0.0
		for c := 0; c < k; c++ {
			l := math.Exp(eta[c]) / norm
			for j, v := range items {
				code := d.Discrete(j)[i]
				if code == data.Missing {
					continue
				}
				l *= m.CPT[v][c*2+int(code)]
			}
			row += l
		}
		total += math.Log(row)
	}
	return total
}

var testCov = covLCM{k: 3,
	p:    [][]float64{{0.9, 0.2, 0.5}, {0.8, 0.1, 0.9}, {0.85, 0.3, 0.15}, {0.7, 0.2, 0.8}, {0.9, 0.15, 0.3}, {0.75, 0.25, 0.85}},
	beta: []float64{0, 0, 0, 0, -0.3, 1.0, 0.8, -0.5, -0.6, -0.7, 0.2, 1.0}}

// TestCovariatesLogLikBrute checks the log-likelihood of a latent class
// model with covariates, with missing item cells, against enumeration of
// every row's class with its own prior, to 1e-9.
func TestCovariatesLogLikBrute(t *testing.T) {
	d := testCov.sample(t, 200, 1, 0.1)
	tr, _ := lcmTree(t, 6)
	m, err := discrete.ForVariables(tr, d.Vars()[:6], 3)
	if err != nil {
		t.Fatal(err)
	}
	m.Randomize(rand.NewPCG(3, 4))
	m.Regression, err = discrete.NewRootRegression(d, []string{"z", "g"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	copy(m.Regression.Beta, []float64{0, 0, 0, 0, 0.4, -1.2, 0.3, 0.9, -0.2, 0.5, -0.8, 0.1})
	items := make([]int, 6)
	for j := range items {
		items[j], _ = tr.Lookup(d.Var(j).Name)
	}
	_, got, err := m.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := bruteLogLik(m, d, items)
	if math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Fatalf("log-likelihood %.12g, brute force %.12g", got, want)
	}
	// Binary items take the generic E-step with per-row priors: the EM's
	// log-likelihood of the final parameters is the brute force's too.
	res, err := m.FitEM(d, model.EMOptions{MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	if want := bruteLogLik(m, d, items); math.Abs(res.LogLik-want) > 1e-9*math.Abs(want) {
		t.Fatalf("EM log-likelihood %.12g, brute force %.12g", res.LogLik, want)
	}
	for i := 1; i < len(res.Trace); i++ {
		if res.Trace[i] < res.Trace[i-1]-1e-9 {
			t.Fatalf("EM decreased the log-likelihood at iteration %d: %v", i, res.Trace)
		}
	}
}

// TestCovariatesRecovery fits simulated data with known coefficients and
// checks each estimate within 4 standard errors of the truth, and within
// 0.35 absolutely (at 4,000 rows the standard errors are 0.1 to 0.2).
func TestCovariatesRecovery(t *testing.T) {
	d := testCov.sample(t, 4000, 11, 0)
	tr, _ := lcmTree(t, 6)
	m, err := discrete.ForVariables(tr, d.Vars()[:6], 3)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.FitCovariates(d, []string{"z", "g"}, model.EMOptions{Src: rand.NewPCG(5, 6), Restarts: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged {
		t.Fatalf("EM did not converge in %d iterations", res.Iterations)
	}
	// Match the fitted classes to the true ones by the first item's
	// profile (the true classes differ in it by ≥ 0.4): β is identified
	// only up to the classes' order.
	// Name the fitted classes as the true ones, matched by their item
	// profiles (the true classes differ by ≥ 0.4 in the first item): β is
	// identified only up to the classes' order.
	h, _ := tr.Lookup("h1")
	m.PermuteStates(h, matchClasses(m, tr, testCov))
	se, err := m.StandardErrors(d, discrete.SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const p = 4
	worst, loSE, hiSE := 0.0, math.Inf(1), 0.0
	for c := 1; c < 3; c++ {
		for j := 0; j < p; j++ {
			est, truth, sd := m.Regression.Beta[c*p+j], testCov.beta[c*p+j], se.Beta[c*p+j]
			worst, loSE, hiSE = max(worst, math.Abs(est-truth)), min(loSE, sd), max(hiSE, sd)
			if math.Abs(est-truth) > 0.35 || math.Abs(est-truth) > 4*sd {
				t.Errorf("β[%d][%s] = %.3f ± %.3f, true %.3f", c, m.Regression.Terms()[j], est, sd, truth)
			}
		}
	}
	t.Logf("largest |β̂ − β| %.3f (standard errors %.3f to %.3f); log-likelihood %.3f after %d iterations", worst, loSE, hiSE, res.LogLik, res.Iterations)
}

// matchClasses returns, for each true class, the fitted class whose
// profile is nearest (sum of absolute differences of P(item = 1)).
func matchClasses(m *discrete.Model, tr *tree.Tree, truth covLCM) []int {
	k := truth.k
	perm := make([]int, k)
	used := make([]bool, k)
	for c := 0; c < k; c++ {
		best, bestD := -1, math.Inf(1)
		for f := 0; f < k; f++ {
			if used[f] {
				continue
			}
			dist := 0.0
			for v := range truth.p {
				id, _ := tr.Lookup("x" + string(rune('1'+v)))
				dist += math.Abs(m.CPT[id][f*2+1] - truth.p[v][c])
			}
			if dist < bestD {
				best, bestD = f, dist
			}
		}
		perm[c], used[best] = best, true
	}
	return perm
}

// TestCovariatesErrors checks the messages of bad covariates: unknown,
// missing in a row, constant, and separating the classes.
func TestCovariatesErrors(t *testing.T) {
	d := testCov.sample(t, 50, 2, 0)
	tr, _ := lcmTree(t, 6)
	m, err := discrete.ForVariables(tr, d.Vars()[:6], 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.FitCovariates(d, []string{"w"}, model.EMOptions{}); err == nil || !strings.Contains(err.Error(), `"w"`) {
		t.Errorf("unknown covariate: %v", err)
	}
	zc, _ := d.Index("z")
	d.Continuous(zc)[6] = math.NaN()
	if _, err := m.FitCovariates(d, []string{"z"}, model.EMOptions{}); err == nil || !strings.Contains(err.Error(), `"z" is missing in row 7`) {
		t.Errorf("missing covariate: %v", err)
	}
	// A constant covariate: the intercept's copy.
	for i := range d.Continuous(zc) {
		d.Continuous(zc)[i] = 1
	}
	if _, err := m.FitCovariates(d, []string{"z", "g"}, model.EMOptions{}); err == nil || !strings.Contains(err.Error(), "design is singular") {
		t.Errorf("constant covariate: %v", err)
	}
	// z separates the classes (β = 60 per unit, items nearly certain).
	sep := covLCM{k: 2, p: [][]float64{{0.95, 0.05}, {0.95, 0.05}, {0.95, 0.05}, {0.95, 0.05}, {0.95, 0.05}, {0.95, 0.05}},
		beta: []float64{0, 0, 0, 0, 0, 60, 0, 0}}
	d = sep.sample(t, 500, 3, 0)
	if _, err := m.FitCovariates(d, []string{"z", "g"}, model.EMOptions{Src: rand.NewPCG(1, 1)}); err == nil || !strings.Contains(err.Error(), `separate the root's states`) || !strings.Contains(err.Error(), `"z"`) {
		t.Errorf("separation: %v", err)
	}
}

// covFit fits the 2-class model with covariates z and g of the SE tests
// to 4 items of d tightly, and returns it with its tree's items and the
// tests' parameters θ = (β_1 over 4 terms, logit P(item = 1 | class a)
// for each item and class) at the fit, and set, which returns a clone of
// the model at other θ.
func covFit(t *testing.T, d *data.Dataset) (m *discrete.Model, items []int, theta []float64, set func([]float64) *discrete.Model) {
	t.Helper()
	tr, _ := lcmTree(t, 4)
	m, err := discrete.ForVariables(tr, d.Vars()[:4], 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.FitCovariates(d, []string{"z", "g"}, model.EMOptions{Src: rand.NewPCG(1, 1), Stop: model.StopRelative, Tol: 1e-12, MaxIter: 5000}); err != nil {
		t.Fatal(err)
	}
	items = make([]int, 4)
	for j := range items {
		items[j], _ = tr.Lookup(d.Var(j).Name)
	}
	const p = 4
	theta = make([]float64, p+2*len(items))
	copy(theta, m.Regression.Beta[p:])
	for j, v := range items {
		for a := 0; a < 2; a++ {
			q := m.CPT[v][a*2+1]
			theta[p+2*j+a] = math.Log(q / (1 - q))
		}
	}
	c := m.Clone()
	set = func(th []float64) *discrete.Model {
		copy(c.Regression.Beta[p:], th[:p])
		for j, v := range items {
			for a := 0; a < 2; a++ {
				q := 1 / (1 + math.Exp(-th[p+2*j+a]))
				c.CPT[v][a*2], c.CPT[v][a*2+1] = 1-q, q
			}
		}
		return c
	}
	return m, items, theta, set
}

// seCov is the truth of the standard errors' tests: 2 classes, 4 items.
var seCov = covLCM{k: 2, p: [][]float64{{0.85, 0.2}, {0.75, 0.3}, {0.8, 0.15}, {0.7, 0.25}},
	beta: []float64{0, 0, 0, 0, 0.2, 0.8, -0.6, 0.5}}

// TestCovariatesSEHessian checks the standard errors of a fitted latent
// class model with covariates (2 classes, 4 binary items, a continuous and
// a categorical covariate, 600 rows) against the inverse of a numerical
// Hessian of the exact log-likelihood by enumeration (bruteLogLik), in the
// coefficients and the items' logits (central differences, step 1e-4): to
// 1e-4 relatively for every coefficient, item probability and class
// share.
func TestCovariatesSEHessian(t *testing.T) {
	d := seCov.sample(t, 600, 21, 0.05)
	m, items, theta, set := covFit(t, d)
	se, err := m.StandardErrors(d, discrete.SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const p = 4
	c := set(theta)
	cov := numericalCov(t, theta, func(th []float64) float64 { return bruteLogLik(set(th), d, items) })
	sc := &seCheck{t: t}
	check := sc.check
	for i := 0; i < p; i++ {
		check("β "+m.Regression.Terms()[i], se.Beta[p+i], math.Sqrt(cov.At(i, i)))
	}
	for j, v := range items {
		for a := 0; a < 2; a++ {
			q := m.CPT[v][a*2+1]
			i := p + 2*j + a
			want := q * (1 - q) * math.Sqrt(cov.At(i, i))
			check(d.Var(j).Name+" given class", se.CPT[v][a*2+1], want)
			check(d.Var(j).Name+" given class (state 0)", se.CPT[v][a*2], want)
		}
	}
	// The class shares: the mean prior's gradient in β, numerically.
	share := func(b []float64) float64 {
		copy(c.Regression.Beta[p:], b)
		pr, err := c.RowPriors(d)
		if err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for r := 0; r < d.NumRows(); r++ {
			s += pr[r*2+1]
		}
		return s / float64(d.NumRows())
	}
	g := make([]float64, p)
	for i := range g {
		b := append([]float64(nil), theta[:p]...)
		b[i] += hessStep
		up := share(b)
		b[i] -= 2 * hessStep
		g[i] = (up - share(b)) / (2 * hessStep)
	}
	v := 0.0
	for i := range g {
		for j := range g {
			v += g[i] * g[j] * cov.At(i, j)
		}
	}
	check("class share", se.Prior[1], math.Sqrt(v))
	check("class share (class 0)", se.Prior[0], math.Sqrt(v))
	t.Logf("largest relative difference from the numerical Hessian: %.2g", sc.worst)
}

// TestCovariatesSandwich: with sampling weights, the standard errors of a
// latent class model with covariates are the sandwich estimator's,
// H⁻¹ (Σ_i w_i² s_i s_iᵀ) H⁻¹, against its reference from finite
// differences in the coefficients and the items' logits (H of the
// weighted log-likelihood, s_i of each row's) to 1e-4 relatively.
func TestCovariatesSandwich(t *testing.T) {
	d := seCov.sample(t, 500, 23, 0.05)
	rng := rand.New(rand.NewPCG(3, 3))
	w := make([]float64, d.NumRows())
	for i := range w {
		w[i] = 0.2 + 2*rng.Float64()
	}
	if err := d.SetWeights(w, data.Sampling); err != nil {
		t.Fatal(err)
	}
	weights := d.RowWeights()
	m, items, theta, set := covFit(t, d)
	se, err := m.StandardErrors(d, discrete.SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if se.Method != discrete.SESandwich {
		t.Errorf("method %q", se.Method)
	}
	const p = 4
	n := len(theta)
	rows := func(th []float64) []float64 {
		l, _, err := set(th).LogLikelihood(d, model.InferOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	bread := numericalCov(t, theta, func(th []float64) float64 {
		sum := 0.0
		for i, l := range rows(th) {
			sum += weights[i] * l
		}
		return sum
	})
	scores := mat.NewDense(d.NumRows(), n, nil)
	th := make([]float64, n)
	for j := range n {
		copy(th, theta)
		th[j] += hessStep
		up := rows(th)
		th[j] -= 2 * hessStep
		down := rows(th)
		for i := range up {
			scores.Set(i, j, weights[i]*(up[i]-down[i])/(2*hessStep))
		}
	}
	var meat, left, cov mat.Dense
	meat.Mul(scores.T(), scores)
	left.Mul(bread, &meat)
	cov.Mul(&left, bread)
	sc := &seCheck{t: t}
	for i := 0; i < p; i++ {
		sc.check("β "+m.Regression.Terms()[i], se.Beta[p+i], math.Sqrt(cov.At(i, i)))
	}
	for j, v := range items {
		for a := 0; a < 2; a++ {
			q := m.CPT[v][a*2+1]
			i := p + 2*j + a
			sc.check(d.Var(j).Name+" given class", se.CPT[v][a*2+1], q*(1-q)*math.Sqrt(cov.At(i, i)))
		}
	}
	t.Logf("largest relative difference from the numerical sandwich: %.2g", sc.worst)
}

// TestCovariatesJSON writes a fitted model with covariates and standard
// errors and reads it back: the same coefficients, standard errors and
// row log-likelihoods; a file without covariates reads without them.
func TestCovariatesJSON(t *testing.T) {
	d := testCov.sample(t, 300, 4, 0)
	tr, _ := lcmTree(t, 6)
	m, err := discrete.ForVariables(tr, d.Vars()[:6], 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.FitCovariates(d, []string{"g", "z"}, model.EMOptions{Src: rand.NewPCG(2, 2)}); err != nil {
		t.Fatal(err)
	}
	if m.SE, err = m.StandardErrors(d, discrete.SEOptions{}); err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := m.WriteJSON(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(strings.Fields(buf.String()), ""); !strings.Contains(got, `"terms":["(intercept)","g=b","g=c","z"]`) {
		t.Errorf("terms not written as expected:\n%s", buf.String())
	}
	back, _, err := discrete.ReadJSON(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	if back.Regression == nil || !slices.Equal(back.Regression.Beta, m.Regression.Beta) || !slices.Equal(back.SE.Beta, m.SE.Beta) {
		t.Fatalf("coefficients or their standard errors changed: %v %v", back.Regression, back.SE)
	}
	rows, _, err := m.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rowsBack, _, err := back.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rows, rowsBack) {
		t.Error("row log-likelihoods changed in the round trip")
	}
	// New rows without a covariate column: an error naming it.
	noZ, err := d.SelectNames([]string{"x1", "x2", "x3", "x4", "x5", "x6", "g"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := back.Posterior(noZ, []int{back.Root}, model.InferOptions{}); err == nil || !strings.Contains(err.Error(), `"z"`) {
		t.Errorf("posterior without covariate z: %v", err)
	}
	// Without covariates the file has no "covariates" and reads as before.
	m.Regression, m.SE = nil, nil
	buf.Reset()
	if err := m.WriteJSON(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "covariates") {
		t.Error("a model without covariates wrote them")
	}
	if back, _, err = discrete.ReadJSON(strings.NewReader(buf.String())); err != nil || back.Regression != nil {
		t.Errorf("model without covariates read back with %v, %v", back.Regression, err)
	}
}

// TestCovariatesZeroSlopes checks that a regression whose slopes are 0
// and whose intercepts are the prior's log-odds gives exactly the model
// without covariates: the same row log-likelihoods and posteriors (to
// 1e-12), through the per-row prior of the E-step. (Without a regression
// the engine's paths are unchanged.)
func TestCovariatesZeroSlopes(t *testing.T) {
	d := testCov.sample(t, 500, 9, 0.1)
	tr, h := lcmTree(t, 6)
	m, err := discrete.ForVariables(tr, d.Vars()[:6], 3)
	if err != nil {
		t.Fatal(err)
	}
	m.Randomize(rand.NewPCG(8, 8))
	items, err := d.SelectNames([]string{"x1", "x2", "x3", "x4", "x5", "x6"})
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := m.LogLikelihood(items, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	post, err := m.Posterior(items, []int{h}, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Clone()
	if c.Regression, err = discrete.NewRootRegression(d, []string{"z", "g"}, 3); err != nil {
		t.Fatal(err)
	}
	for s := 1; s < 3; s++ {
		c.Regression.Beta[s*4] = math.Log(m.Prior[s] / m.Prior[0])
	}
	rowsC, _, err := c.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	postC, err := c.Posterior(d, []int{h}, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if math.Abs(rows[i]-rowsC[i]) > 1e-12*math.Abs(rows[i]) {
			t.Fatalf("row %d: log-likelihood %.15g with zero slopes, %.15g without covariates", i+1, rowsC[i], rows[i])
		}
	}
	for i := range post[0] {
		if math.Abs(post[0][i]-postC[0][i]) > 1e-12 {
			t.Fatalf("posterior entry %d: %.15g with zero slopes, %.15g without", i, postC[0][i], post[0][i])
		}
	}
	if got, want := c.NumParams(), m.NumParams()+2*3; got != want {
		t.Errorf("NumParams %d with 3 terms and 3 classes, want %d", got, want)
	}
}

// TestCovariatesTreeSE fits a tree with two hidden variables (h1 over
// x1–x3 and h2 over x4–x6, rooted at h1) with covariates at the root: the
// log-likelihood is at least that of the fit without them (EM starts
// there), and the standard errors agree with the inverse of a numerical
// Hessian of the model's exact log-likelihood (LogLikelihood; central
// differences, step 1e-4) in the coefficients and every CPT row's logit,
// to 1e-4 relatively.
func TestCovariatesTreeSE(t *testing.T) {
	// The data: h1 by a logit on z and g (β = (−0.2, 0.9, 0.7, −0.6)),
	// h2 = h1 switched with probability 0.2, each item 1 with
	// probability 0.85 or 0.15 by its parent's state.
	d := testCov.sample(t, 400, 31, 0.05) // for z and g
	rng := rand.New(rand.NewPCG(31, 32))
	zc, _ := d.Index("z")
	gc, _ := d.Index("g")
	for i := 0; i < d.NumRows(); i++ {
		g := d.Discrete(gc)[i]
		eta := -0.2 + 0.9*d.Continuous(zc)[i] + 0.7*b2f(g == 1) - 0.6*b2f(g == 2)
		c1 := 0
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			c1 = 1
		}
		c2 := c1
		if rng.Float64() < 0.2 {
			c2 = 1 - c1
		}
		for v := 0; v < 6; v++ {
			c := []int{c1, c2}[v/3]
			code := uint16(0)
			if rng.Float64() < []float64{0.15, 0.85}[c] {
				code = 1
			}
			if rng.Float64() < 0.05 {
				code = data.Missing
			}
			d.Discrete(v)[i] = code
		}
	}
	tr := tree.New()
	h1, h2 := tr.AddHidden(), tr.AddHidden()
	if err := tr.AddEdge(h1, h2, 1); err != nil {
		t.Fatal(err)
	}
	for v := 0; v < 6; v++ {
		x, err := tr.AddObserved("x" + string(rune('1'+v)))
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.AddEdge([]int{h1, h2}[v/3], x, 1); err != nil {
			t.Fatal(err)
		}
	}
	tr.AutoNameHidden("h")
	m, err := discrete.ForVariables(tr, d.Vars()[:6], 2)
	if err != nil {
		t.Fatal(err)
	}
	m.Root = h1
	m.Refresh()
	opt := model.EMOptions{Src: rand.NewPCG(4, 4), Stop: model.StopRelative, Tol: 1e-12, MaxIter: 5000}
	items, err := d.SelectNames([]string{"x1", "x2", "x3", "x4", "x5", "x6"})
	if err != nil {
		t.Fatal(err)
	}
	plain := m.Clone()
	base, err := plain.FitEM(items, opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.FitCovariates(d, []string{"z", "g"}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.LogLik < base.LogLik-1e-9 {
		t.Errorf("log-likelihood %.6f with covariates, %.6f without", res.LogLik, base.LogLik)
	}
	se, err := m.StandardErrors(d, discrete.SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// θ: β_1 (4 terms), then logit P(v = 1 | parent = a) for every
	// non-root node v and parent state a.
	const p = 4
	var nodes []int
	for _, v := range m.Rooted().Order {
		if v != m.Root {
			nodes = append(nodes, v)
		}
	}
	theta := append([]float64(nil), m.Regression.Beta[p:]...)
	for _, v := range nodes {
		for a := 0; a < 2; a++ {
			q := m.CPT[v][a*2+1]
			theta = append(theta, math.Log(q/(1-q)))
		}
	}
	c := m.Clone()
	ll := func(th []float64) float64 {
		copy(c.Regression.Beta[p:], th[:p])
		for i, v := range nodes {
			for a := 0; a < 2; a++ {
				q := 1 / (1 + math.Exp(-th[p+2*i+a]))
				c.CPT[v][a*2], c.CPT[v][a*2+1] = 1-q, q
			}
		}
		_, l, err := c.LogLikelihood(d, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	cov := numericalCov(t, theta, ll)
	sc := &seCheck{t: t}
	check := sc.check
	for i := 0; i < p; i++ {
		check("β "+m.Regression.Terms()[i], se.Beta[p+i], math.Sqrt(cov.At(i, i)))
	}
	for i, v := range nodes {
		for a := 0; a < 2; a++ {
			q := m.CPT[v][a*2+1]
			check(tr.Name(v), se.CPT[v][a*2+1], q*(1-q)*math.Sqrt(cov.At(p+2*i+a, p+2*i+a)))
		}
	}
	t.Logf("largest relative difference from the numerical Hessian: %.2g", sc.worst)
}

// hessStep is the step of the numerical derivatives of the tests.
const hessStep = 1e-4

// numericalCov returns the inverse of minus the Hessian of ll at theta,
// by central differences of step hessStep.
func numericalCov(t *testing.T, theta []float64, ll func([]float64) float64) *mat.SymDense {
	t.Helper()
	const h = hessStep
	n := len(theta)
	info := mat.NewSymDense(n, nil)
	th := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			f := func(di, dj float64) float64 {
				copy(th, theta)
				th[i] += di
				th[j] += dj
				return ll(th)
			}
			info.SetSym(i, j, -(f(h, h)-f(h, -h)-f(-h, h)+f(-h, -h))/(4*h*h))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(info) {
		t.Fatal("numerical information not positive definite")
	}
	var cov mat.SymDense
	if err := ch.InverseTo(&cov); err != nil {
		t.Fatal(err)
	}
	return &cov
}

// seCheck compares standard errors with reference values to 1e-4
// relatively, keeping the largest relative difference.
type seCheck struct {
	t     *testing.T
	worst float64
}

func (c *seCheck) check(what string, got, want float64) {
	c.t.Helper()
	rel := math.Abs(got-want) / want
	c.worst = max(c.worst, rel)
	if rel > 1e-4 {
		c.t.Errorf("%s: standard error %.6g, numerical Hessian %.6g", what, got, want)
	}
}
