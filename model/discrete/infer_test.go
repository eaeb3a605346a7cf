package discrete

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// smallModel builds a random discrete model on a small tree with hidden
// nodes of 2–3 states and observed nodes of 2–3 states.
func smallModel(t *testing.T, rng *rand.Rand) *Model {
	t.Helper()
	tr := tree.New()
	h1, h2 := tr.AddHidden(), tr.AddHidden()
	a, _ := tr.AddObserved("a")
	b, _ := tr.AddObserved("b")
	c, _ := tr.AddObserved("c")
	d, _ := tr.AddObserved("d")
	e, _ := tr.AddObserved("e")
	for _, p := range [][2]int{{h1, h2}, {h1, a}, {h1, b}, {h2, c}, {h2, d}, {c, e}} {
		if err := tr.AddEdge(p[0], p[1], math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	states := make([]int, tr.MaxID())
	for _, v := range tr.Nodes() {
		states[v] = 2 + rng.IntN(2)
	}
	m, err := New(tr, h2, states)
	if err != nil {
		t.Fatal(err)
	}
	m.Randomize(rng)
	return m
}

// bruteJoint enumerates every assignment of all nodes and calls f with its
// probability.
func bruteJoint(m *Model, f func(x []int, p float64)) {
	r := m.Rooted()
	x := make([]int, m.Tree.MaxID())
	var rec func(k int, p float64)
	rec = func(k int, p float64) {
		if k == len(r.Order) {
			f(x, p)
			return
		}
		v := r.Order[k]
		for s := 0; s < m.States[v]; s++ {
			x[v] = s
			var q float64
			if v == m.Root {
				q = m.Prior[s]
			} else {
				q = m.CPT[v][x[r.Parent[v]]*m.States[v]+s]
			}
			rec(k+1, p*q)
		}
	}
	rec(0, 1)
}

// randomData samples rows from m and blanks some cells.
func randomData(t *testing.T, m *Model, rng *rand.Rand, n int, missing float64) *data.Dataset {
	t.Helper()
	d, err := m.Sample(rng, n)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < d.NumVars(); j++ {
		col := d.Discrete(j)
		for i := range col {
			if rng.Float64() < missing {
				col[i] = data.Missing
			}
		}
	}
	return d
}

func TestInferenceMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for it := 0; it < 20; it++ {
		m := smallModel(t, rng)
		d := randomData(t, m, rng, 300, 0.2)
		ll, total, err := m.LogLikelihood(d, model.InferOptions{Workers: 1 + it%3})
		if err != nil {
			t.Fatal(err)
		}
		nodes := m.Tree.Nodes()
		post, err := m.Posterior(d, nodes, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		col := make([]int, m.Tree.MaxID())
		for i := range col {
			col[i] = -1
		}
		for j := 0; j < d.NumVars(); j++ {
			v, _ := m.Tree.Lookup(d.Var(j).Name)
			col[v] = j
		}
		sum := 0.0
		for r := 0; r < d.NumRows(); r++ {
			z := 0.0
			marg := make([][]float64, m.Tree.MaxID())
			for _, v := range nodes {
				marg[v] = make([]float64, m.States[v])
			}
			bruteJoint(m, func(x []int, p float64) {
				for _, v := range nodes {
					if j := col[v]; j >= 0 {
						c := d.Discrete(j)[r]
						if c != data.Missing && int(c) != x[v] {
							return
						}
					}
				}
				z += p
				for _, v := range nodes {
					marg[v][x[v]] += p
				}
			})
			if math.Abs(ll[r]-math.Log(z)) > 1e-9 {
				t.Fatalf("row %d: loglik %g, enumeration %g", r, ll[r], math.Log(z))
			}
			sum += math.Log(z)
			for x, v := range nodes {
				k := m.States[v]
				for s := 0; s < k; s++ {
					if got, want := post[x][r*k+s], marg[v][s]/z; math.Abs(got-want) > 1e-9 {
						t.Fatalf("row %d node %d state %d: posterior %g, enumeration %g", r, v, s, got, want)
					}
				}
			}
		}
		if math.Abs(sum-total) > 1e-9*math.Abs(sum) {
			t.Fatalf("total %g, enumeration %g", total, sum)
		}
	}
}

func TestEMMonotoneAndMissing(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for it := 0; it < 6; it++ {
		m := smallModel(t, rng)
		d := randomData(t, m, rng, 500, 0.15*float64(it%2))
		fit := m.Clone()
		fit.Randomize(rng)
		res, err := fit.FitEM(d, model.EMOptions{Restarts: -1, Tol: 1e-12, MaxIter: 60, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(res.Trace); i++ {
			if res.Trace[i] < res.Trace[i-1]-1e-9*math.Abs(res.Trace[i-1]) {
				t.Fatalf("EM decreased the log-likelihood at iteration %d: %g → %g", i, res.Trace[i-1], res.Trace[i])
			}
		}
		_, total, _ := fit.LogLikelihood(d, model.InferOptions{})
		if math.Abs(total-res.LogLik) > 1e-8*math.Abs(total) {
			t.Fatalf("reported loglik %g, recomputed %g", res.LogLik, total)
		}
		if res.LogLik < res.Trace[0] {
			t.Fatalf("final %g below start %g", res.LogLik, res.Trace[0])
		}
	}
}

// TestEMExpectedCounts checks one E-step with missing cells against
// enumeration: after one EM iteration from parameters θ, the new CPT of a
// node must equal the enumerated expected counts normalised.
func TestEMExpectedCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	m := smallModel(t, rng)
	d := randomData(t, m, rng, 200, 0.3)
	r := m.Rooted()
	col := make([]int, m.Tree.MaxID())
	for i := range col {
		col[i] = -1
	}
	for j := 0; j < d.NumVars(); j++ {
		v, _ := m.Tree.Lookup(d.Var(j).Name)
		col[v] = j
	}
	want := make([][]float64, m.Tree.MaxID())
	for _, v := range r.Order {
		if v != m.Root {
			want[v] = make([]float64, m.States[r.Parent[v]]*m.States[v])
		}
	}
	for row := 0; row < d.NumRows(); row++ {
		z := 0.0
		acc := make([][]float64, len(want))
		for v, w := range want {
			if w != nil {
				acc[v] = make([]float64, len(w))
			}
		}
		bruteJoint(m, func(x []int, p float64) {
			for v, j := range col {
				if j >= 0 {
					if c := d.Discrete(j)[row]; c != data.Missing && int(c) != x[v] {
						return
					}
				}
			}
			z += p
			for v := range acc {
				if acc[v] != nil {
					acc[v][x[r.Parent[v]]*m.States[v]+x[v]] += p
				}
			}
		})
		for v := range acc {
			for i := range acc[v] {
				want[v][i] += acc[v][i] / z
			}
		}
	}
	fit := m.Clone()
	if _, err := fit.FitEM(d, model.EMOptions{Restarts: -1, MaxIter: 1}); err != nil {
		t.Fatal(err)
	}
	for v, w := range want {
		if w == nil {
			continue
		}
		k := m.States[v]
		for a := 0; a < len(w)/k; a++ {
			s := 0.0
			for x := 0; x < k; x++ {
				s += w[a*k+x]
			}
			for x := 0; x < k; x++ {
				if got := fit.CPT[v][a*k+x]; math.Abs(got-w[a*k+x]/s) > 1e-9 {
					t.Fatalf("node %d CPT[%d][%d] = %g, enumeration %g", v, a, x, got, w[a*k+x]/s)
				}
			}
		}
	}
}

func TestBindErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	m := smallModel(t, rng)
	d := randomData(t, m, rng, 10, 0)
	less, _ := d.SelectNames([]string{"a", "b", "c", "d"})
	if _, _, err := m.LogLikelihood(less, model.InferOptions{}); err == nil {
		t.Error("missing variable accepted")
	}
	extra, _ := data.New(append(d.Vars(), data.Variable{Name: "zz", Kind: data.Discrete, States: []string{"0", "1"}}), 10)
	if _, _, err := m.LogLikelihood(extra, model.InferOptions{}); err == nil {
		t.Error("extra variable accepted")
	}
	vars := d.Vars()
	vars[0].States = append(vars[0].States, "purple")
	odd, _ := data.New(vars, 3)
	if _, _, err := m.LogLikelihood(odd, model.InferOptions{}); err == nil {
		t.Error("unknown state label accepted")
	}
}

func TestChooseHiddenStates(t *testing.T) {
	// Data from a star whose hidden variable has 3 states: starting from
	// 2 states, the BIC search adds the third and stops.
	rng := rand.New(rand.NewPCG(9, 9))
	tr := tree.New()
	h := tr.AddHidden()
	for i := 0; i < 6; i++ {
		v, _ := tr.AddObserved(string(rune('a' + i)))
		_ = tr.AddEdge(h, v, math.NaN())
	}
	states := make([]int, tr.MaxID())
	for _, v := range tr.Nodes() {
		states[v] = 3
	}
	truth, _ := New(tr, h, states)
	truth.Prior = []float64{0.3, 0.3, 0.4}
	for _, v := range tr.Observed() {
		truth.CPT[v] = []float64{0.8, 0.1, 0.1, 0.1, 0.8, 0.1, 0.1, 0.1, 0.8}
	}
	d, _ := truth.Sample(rng, 4000)
	m := fittedUniform(t, tr, d, 2)
	got, _, n, err := ChooseHiddenStates(m, d, StatesOptions{Src: rng})
	if err != nil {
		t.Fatal(err)
	}
	if got.States[h] != 3 || n != 1 {
		t.Errorf("chose %d states with %d splits, want 3 and 1", got.States[h], n)
	}
	if m.States[h] != 2 {
		t.Error("the input model was changed")
	}
}
