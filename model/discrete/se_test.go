package discrete

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// seTree builds a tree of hidden nodes h1 (root side) and h2 with
// observed leaves: x1, x2 and h2 on h1, x3, x4, x5 on h2 (two hidden
// nodes when twoHidden, else the latent class model of x1..x5 on h1).
func seTree(t *testing.T, twoHidden bool) (*tree.Tree, int) {
	t.Helper()
	tr := tree.New()
	h1 := tr.AddHidden()
	h2 := h1
	if twoHidden {
		h2 = tr.AddHidden()
		if err := tr.AddEdge(h1, h2, math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	for i, name := range []string{"x1", "x2", "x3", "x4", "x5"} {
		v, err := tr.AddObserved(name)
		if err != nil {
			t.Fatal(err)
		}
		p := h1
		if i >= 2 {
			p = h2
		}
		if err := tr.AddEdge(p, v, math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	tr.AutoNameHidden("h")
	return tr, h1
}

// seTruth is a model on tr with well-separated classes and no
// probability near 0 or 1.
func seTruth(t *testing.T, tr *tree.Tree, root int, seed uint64) *Model {
	t.Helper()
	states := make([]int, tr.MaxID())
	for _, v := range tr.Nodes() {
		states[v] = 2
	}
	m, err := New(tr, root, states)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	m.Prior = []float64{0.4, 0.6}
	for _, v := range m.Rooted().Order {
		if v == root {
			continue
		}
		p0 := 0.15 + 0.15*rng.Float64()
		p1 := 0.7 + 0.15*rng.Float64()
		m.CPT[v] = []float64{1 - p0, p0, 1 - p1, p1}
	}
	return m
}

// fitTight fits a fresh model on tr to d from the surrogate start to a
// tight tolerance, so that the fit is a stationary point.
func fitTight(t *testing.T, tr *tree.Tree, d *data.Dataset) *Model {
	t.Helper()
	m, _, err := model.Fit(tr, d, model.FitOptions{EM: model.EMOptions{Tol: 1e-13, MaxIter: 20000}})
	if err != nil {
		t.Fatal(err)
	}
	return m.(*Model)
}

// numericSE is the reference: the standard errors from the inverse of a
// central finite-difference Hessian of the exact log-likelihood
// (LogLikelihood) in the free probabilities (every state of every
// distribution but the last, which is one minus the others).
func numericSE(t *testing.T, m *Model, d *data.Dataset, h float64) ([]float64, [][]float64) {
	t.Helper()
	return numericCovSE(t, m, d, h, false)
}

// numericCovSE is numericSE, or with sandwich the sandwich estimator's
// reference H⁻¹ (Σ_i w_i² s_i s_iᵀ) H⁻¹: H the finite-difference Hessian
// of Σ_i w_i l_i and s_i central differences of row i's log-likelihood
// l_i, w_i d's RowWeights (1 without weights).
func numericCovSE(t *testing.T, m *Model, d *data.Dataset, h float64, sandwich bool) ([]float64, [][]float64) {
	t.Helper()
	r := m.Rooted()
	type slot struct {
		dist []float64 // the distribution's slice in the clone
		s    int
	}
	work := m.Clone()
	var dists [][]float64
	var owner []int // distribution index → node
	for _, v := range r.Order {
		k := m.States[v]
		if v == m.Root {
			dists = append(dists, work.Prior)
			owner = append(owner, v)
			continue
		}
		for a := 0; a < m.States[r.Parent[v]]; a++ {
			dists = append(dists, work.CPT[v][a*k:(a+1)*k])
			owner = append(owner, v)
		}
	}
	var slots []slot
	first := make([]int, len(dists))
	for i, p := range dists {
		first[i] = len(slots)
		for s := 0; s < len(p)-1; s++ {
			slots = append(slots, slot{p, s})
		}
	}
	P := len(slots)
	shift := func(i int, dx float64) {
		sl := slots[i]
		sl.dist[sl.s] += dx
		sl.dist[len(sl.dist)-1] -= dx
	}
	weights := d.RowWeights()
	rows := func() []float64 {
		l, _, err := work.LogLikelihood(d, model.InferOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	ll := func() float64 {
		sum := 0.0
		for i, l := range rows() {
			w := 1.0
			if weights != nil {
				w = weights[i]
			}
			sum += w * l
		}
		return sum
	}
	hess := mat.NewSymDense(P, nil)
	for i := 0; i < P; i++ {
		for j := i; j < P; j++ {
			var f [4]float64
			for x, sg := range [4][2]float64{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
				shift(i, sg[0]*h)
				shift(j, sg[1]*h)
				f[x] = ll()
				shift(j, -sg[1]*h)
				shift(i, -sg[0]*h)
			}
			hess.SetSym(i, j, -(f[0]-f[1]-f[2]+f[3])/(4*h*h))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(hess) {
		t.Fatal("numerical information is not positive definite")
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		t.Fatal(err)
	}
	var cov mat.Matrix = &inv
	if sandwich {
		n := d.NumRows()
		scores := mat.NewDense(n, P, nil) // w_i s_i by rows
		for i := 0; i < P; i++ {
			shift(i, h)
			up := rows()
			shift(i, -2*h)
			down := rows()
			shift(i, h)
			for r := range n {
				w := 1.0
				if weights != nil {
					w = weights[r]
				}
				scores.Set(r, i, w*(up[r]-down[r])/(2*h))
			}
		}
		var meat, left, v mat.Dense
		meat.Mul(scores.T(), scores)
		left.Mul(&inv, &meat)
		v.Mul(&left, &inv)
		cov = &v
	}
	prior := make([]float64, m.States[m.Root])
	cpt := make([][]float64, len(m.CPT))
	row := map[int]int{}
	for i, p := range dists {
		v := owner[i]
		k := len(p)
		var dst []float64
		if v == m.Root {
			dst = prior
		} else {
			if cpt[v] == nil {
				cpt[v] = make([]float64, len(m.CPT[v]))
			}
			a := row[v]
			row[v]++
			dst = cpt[v][a*k : (a+1)*k]
		}
		last := 0.0
		for s := 0; s < k-1; s++ {
			dst[s] = math.Sqrt(cov.At(first[i]+s, first[i]+s))
			for s2 := 0; s2 < k-1; s2++ {
				last += cov.At(first[i]+s, first[i]+s2)
			}
		}
		dst[k-1] = math.Sqrt(last)
	}
	return prior, cpt
}

// compareSE checks every standard error against the reference to a
// relative tolerance.
func compareSE(t *testing.T, m *Model, se *StdErrors, prior []float64, cpt [][]float64, tol float64) {
	t.Helper()
	worst := 0.0
	check := func(what string, got, want float64) {
		rel := math.Abs(got-want) / want
		worst = math.Max(worst, rel)
		if !(rel <= tol) {
			t.Errorf("%s: SE %.6g, numerical-Hessian reference %.6g (relative difference %.2g > %g)", what, got, want, rel, tol)
		}
	}
	for b := range prior {
		check("prior", se.Prior[b], prior[b])
	}
	for v, c := range cpt {
		for i := range c {
			check(m.Tree.Name(v), se.CPT[v][i], c[i])
		}
	}
	t.Logf("largest relative difference from the numerical Hessian: %.2g", worst)
}

// The exact observed information matches a finite-difference Hessian of
// the exact log-likelihood on a tree of two hidden nodes, with missing
// cells.
func TestStandardErrorsMatchNumericalHessian(t *testing.T) {
	tr, root := seTree(t, true)
	truth := seTruth(t, tr, root, 3)
	d, err := truth.Sample(rand.NewPCG(11, 12), 1500)
	if err != nil {
		t.Fatal(err)
	}
	// Blank about 5% of the cells.
	rng := rand.New(rand.NewPCG(5, 6))
	for j := 0; j < d.NumVars(); j++ {
		col := d.Discrete(j)
		for i := range col {
			if rng.Float64() < 0.05 {
				col[i] = data.Missing
			}
		}
	}
	m := fitTight(t, tr, d)
	se, err := m.StandardErrors(d, SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if se.Method != SEHessian {
		t.Errorf("method %q", se.Method)
	}
	prior, cpt := numericSE(t, m, d, 1e-4)
	compareSE(t, m, se, prior, cpt, 1e-3)
}

// With sampling weights the standard errors are the sandwich estimator's,
// which matches its finite-difference reference (per-row scores by
// central differences); with sampling weights all 1 they are the usual
// (unweighted) sandwich, again against its reference; they do not depend
// on the weights' scale and differ from the observed information's.
func TestStandardErrorsSandwich(t *testing.T) {
	tr, root := seTree(t, false)
	truth := seTruth(t, tr, root, 4)
	d, err := truth.Sample(rand.NewPCG(13, 14), 600)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	w := make([]float64, d.NumRows())
	for i := range w {
		w[i] = 0.3 + 2*rng.Float64()
	}
	check := func(name string, w []float64) *StdErrors {
		t.Helper()
		if err := d.SetWeights(w, data.Sampling); err != nil {
			t.Fatal(err)
		}
		m := fitTight(t, tr, d)
		se, err := m.StandardErrors(d, SEOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if se.Method != SESandwich {
			t.Errorf("%s: method %q", name, se.Method)
		}
		prior, cpt := numericCovSE(t, m, d, 1e-4, true)
		t.Log(name)
		compareSE(t, m, se, prior, cpt, 1e-3)
		return se
	}
	weighted := check("sampling weights", w)
	scaled := make([]float64, len(w))
	for i, x := range w {
		scaled[i] = 3 * x
	}
	if err := d.SetWeights(scaled, data.Sampling); err != nil {
		t.Fatal(err)
	}
	m := fitTight(t, tr, d)
	se3, err := m.StandardErrors(d, SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for b, x := range weighted.Prior {
		if math.Abs(se3.Prior[b]-x) > 1e-9*x {
			t.Errorf("weights ×3: prior SE %g, want %g", se3.Prior[b], x)
		}
	}
	ones := make([]float64, len(w))
	for i := range ones {
		ones[i] = 1
	}
	robust := check("sampling weights 1", ones)
	if err := d.SetWeights(nil, data.Frequency); err != nil {
		t.Fatal(err)
	}
	hess, err := fitTight(t, tr, d).StandardErrors(d, SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if hess.Method != SEHessian || math.Abs(hess.Prior[0]-robust.Prior[0]) < 1e-6*hess.Prior[0] {
		t.Errorf("unweighted: method %q, prior SE %g (sandwich %g): want the observed information's, not the sandwich", hess.Method, hess.Prior[0], robust.Prior[0])
	}
}

// The check: a 2-class latent class model of 5 binary items on
// 1,000 rows has standard errors within 5% of the numerical-Hessian
// reference.
func TestStandardErrorsLatentClass(t *testing.T) {
	tr, root := seTree(t, false)
	truth := seTruth(t, tr, root, 9)
	d, err := truth.Sample(rand.NewPCG(21, 22), 1000)
	if err != nil {
		t.Fatal(err)
	}
	m := fitTight(t, tr, d)
	se, err := m.StandardErrors(d, SEOptions{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	prior, cpt := numericSE(t, m, d, 1e-4)
	compareSE(t, m, se, prior, cpt, 0.05)
	// And the result does not depend on the number of workers.
	se1, err := m.StandardErrors(d, SEOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for b := range se.Prior {
		if se.Prior[b] != se1.Prior[b] {
			t.Errorf("prior SE %g with 3 workers, %g with 1", se.Prior[b], se1.Prior[b])
		}
	}
}

// Standard errors survive the model file, move with a renaming of the
// states, and bad ones are refused; a file without them still reads.
func TestStandardErrorsJSON(t *testing.T) {
	tr, root := seTree(t, true)
	d, err := seTruth(t, tr, root, 3).Sample(rand.NewPCG(1, 1), 800)
	if err != nil {
		t.Fatal(err)
	}
	m := fitTight(t, tr, d)
	plain := modelJSON(t, m)
	if m.SE, err = m.StandardErrors(d, SEOptions{}); err != nil {
		t.Fatal(err)
	}
	doc := modelJSON(t, m)
	back, _, err := ReadJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if back.SE == nil || back.SE.Method != SEHessian || paramDiff(&Model{Prior: back.SE.Prior, CPT: back.SE.CPT}, &Model{Prior: m.SE.Prior, CPT: m.SE.CPT}) != 0 {
		t.Fatalf("standard errors did not survive the file: %+v", back.SE)
	}
	if again := modelJSON(t, back); !bytes.Equal(again, doc) {
		t.Error("a model read back writes another file")
	}
	// Renaming the root's states moves its SEs with its CPT rows; the
	// canonical order brings the file back.
	for _, v := range tr.Hidden() {
		back.permuteStates(v, []int{1, 0})
	}
	back.Canonicalize()
	if got := modelJSON(t, back); !bytes.Equal(got, doc) {
		t.Error("renamed and canonicalized model with SEs writes another file")
	}
	old, _, err := ReadJSON(bytes.NewReader(plain))
	if err != nil || old.SE != nil {
		t.Errorf("a file without standard errors: %v, SE %v", err, old.SE)
	}
	for _, bad := range []struct{ from, to string }{
		{`"method": "hessian"`, `"method": "guess"`},
		{`"se": {`, `"sx": {`},
		{`"prior_se": [`, `"prior_se": [-1,`},
		{`"cpt_se": [`, `"cpt_se": [[0.1, 0.1],`},
	} {
		s := strings.Replace(string(doc), bad.from, bad.to, 1)
		if s == string(doc) {
			t.Fatalf("%s not in the file", bad.from)
		}
		if _, _, err := ReadJSON(strings.NewReader(s)); err == nil {
			t.Errorf("file with %s read", bad.to)
		}
	}
}
