package discrete

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// jointMarginalByLikelihood is the former JointMarginal, kept to check it:
// the joint distribution of the given observed nodes, row-major (first node slowest), by marginalising every other
// variable: one inference pass per configuration, so keep the product of
// their numbers of states small.
func jointMarginalByLikelihood(m *Model, nodes []int) ([]float64, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	obs := m.Tree.Observed()
	col := make(map[int]int, len(obs))
	vars := make([]data.Variable, len(obs))
	for j, v := range obs {
		col[v] = j
		vars[j] = data.Variable{Name: m.Tree.Name(v), Kind: data.Discrete, States: m.StateLabels(v)}
	}
	size := 1
	for _, v := range nodes {
		if _, ok := col[v]; !ok {
			return nil, fmt.Errorf("model: node %d is not an observed node", v)
		}
		size *= m.States[v]
		if size > 1<<22 {
			return nil, errors.New("model: joint table too large")
		}
	}
	d, err := data.New(vars, size)
	if err != nil {
		return nil, err
	}
	for j := range obs {
		c := d.Discrete(j)
		for r := range c {
			c[r] = data.Missing
		}
	}
	for r := 0; r < size; r++ {
		x := r
		for k := len(nodes) - 1; k >= 0; k-- {
			v := nodes[k]
			d.Discrete(col[v])[r] = uint16(x % m.States[v])
			x /= m.States[v]
		}
	}
	ll, _, err := m.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]float64, size)
	for r, l := range ll {
		out[r] = math.Exp(l)
	}
	return out, nil
}

// TestJointMarginal checks variable elimination against one likelihood
// pass per configuration, on a random model with internal observed
// nodes, hidden nodes with fewer states, and queries in every order.
func TestJointMarginal(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	m := randomTestModel(t, rng)
	obs := m.Tree.Observed()
	for it := 0; it < 20; it++ {
		k := 1 + rng.IntN(min(4, len(obs)))
		perm := rng.Perm(len(obs))
		q := make([]int, k)
		for i := range q {
			q[i] = obs[perm[i]]
		}
		got, err := m.JointMarginal(q)
		if err != nil {
			t.Fatal(err)
		}
		want, err := jointMarginalByLikelihood(m, q)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for i := range want {
			sum += got[i]
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Fatalf("query %v entry %d: %g, want %g", q, i, got[i], want[i])
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("query %v sums to %g", q, sum)
		}
	}
	if _, err := m.JointMarginal([]int{obs[0], obs[0]}); err == nil {
		t.Error("repeated node accepted")
	}
}

// randomTestModel returns a model on h1–h2 with observed a, b on h1, c, d
// on h2, observed e inside the tree (between h2 and f), random CPTs,
// hidden nodes with 2 and 3 states and observed ones with 2–4.
func randomTestModel(t *testing.T, rng *rand.Rand) *Model {
	t.Helper()
	tr := tree.New()
	h1, h2 := tr.AddHidden(), tr.AddHidden()
	var obs []int
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		v, err := tr.AddObserved(name)
		if err != nil {
			t.Fatal(err)
		}
		obs = append(obs, v)
	}
	for _, e := range [][2]int{{h1, h2}, {h1, obs[0]}, {h1, obs[1]}, {h2, obs[2]}, {h2, obs[3]}, {h2, obs[4]}, {obs[4], obs[5]}} {
		if err := tr.AddEdge(e[0], e[1], math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	states := make([]int, tr.MaxID())
	states[h1], states[h2] = 2, 3
	for _, v := range obs {
		states[v] = 2 + rng.IntN(3)
	}
	m, err := New(tr, h2, states)
	if err != nil {
		t.Fatal(err)
	}
	fill := func(p []float64, k int) {
		for a := 0; a < len(p)/k; a++ {
			s := 0.0
			for b := 0; b < k; b++ {
				p[a*k+b] = 0.1 + rng.Float64()
				s += p[a*k+b]
			}
			for b := 0; b < k; b++ {
				p[a*k+b] /= s
			}
		}
	}
	fill(m.Prior, states[h2])
	for _, v := range tr.Nodes() {
		if m.CPT[v] != nil {
			fill(m.CPT[v], states[v])
		}
	}
	return m
}
