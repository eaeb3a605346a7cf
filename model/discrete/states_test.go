package discrete

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// copyStar is a star whose hidden centre has k states over six 3-state
// observed variables that copy it (mod 3) with probability 0.8.
func copyStar(t *testing.T, k int) (*Model, int) {
	t.Helper()
	tr := tree.New()
	h := tr.AddHidden()
	for i := 0; i < 6; i++ {
		v, err := tr.AddObserved(string(rune('a' + i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.AddEdge(h, v, math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	states := make([]int, tr.MaxID())
	for _, v := range tr.Nodes() {
		states[v] = 3
	}
	states[h] = k
	m, err := New(tr, h, states)
	if err != nil {
		t.Fatal(err)
	}
	for s := range m.Prior {
		m.Prior[s] = 1 / float64(k)
	}
	for _, v := range tr.Observed() {
		for s := 0; s < k; s++ {
			for x := 0; x < 3; x++ {
				m.CPT[v][s*3+x] = 0.1
			}
			m.CPT[v][s*3+s%3] = 0.8
		}
	}
	return m, h
}

// Merging two states whose children's rows are the same leaves the
// distribution of the observed variables exactly as it was; merging any
// two keeps every table a distribution. Bad arguments are errors.
func TestMergeStates(t *testing.T) {
	m, h := copyStar(t, 4) // states 0 and 3 are the same for the children
	d, err := m.Sample(rand.New(rand.NewPCG(1, 2)), 300)
	if err != nil {
		t.Fatal(err)
	}
	_, before, err := m.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := m.closestStates(h, m.Marginals()[h]); a+b != 3 || a*b != 0 {
		t.Errorf("closest states %d, %d; want 0 and 3", a, b)
	}
	c := m.Clone()
	if err := c.MergeStates(h, 0, 3); err != nil {
		t.Fatal(err)
	}
	if c.States[h] != 3 || len(c.Prior) != 3 || math.Abs(c.Prior[0]-0.5) > 1e-15 {
		t.Fatalf("merged: %d states, prior %v", c.States[h], c.Prior)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	_, after, err := c.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(after-before) > 1e-9*math.Abs(before) {
		t.Errorf("log-likelihood %.10f after the merge, %.10f before", after, before)
	}
	if err := c.MergeStates(h, 1, 2); err != nil || c.Validate() != nil || c.States[h] != 2 {
		t.Errorf("second merge: %v, %d states", err, c.States[h])
	}
	for _, bad := range [][3]int{{h, 0, 0}, {h, 0, 4}, {h, -1, 1}, {m.Tree.Observed()[0], 0, 1}} {
		if err := m.Clone().MergeStates(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("MergeStates%v accepted", bad)
		}
	}
}

// From too many states the search merges down: data from a star whose
// hidden variable has 3 states, fitted with 5, end with 3.
func TestChooseHiddenStatesMerges(t *testing.T) {
	truth, h := copyStar(t, 3)
	rng := rand.New(rand.NewPCG(9, 10))
	d, err := truth.Sample(rng, 3000)
	if err != nil {
		t.Fatal(err)
	}
	m := fittedUniform(t, truth.Tree, d, 5)
	got, _, moves, err := ChooseHiddenStates(m, d, StatesOptions{Src: rng})
	if err != nil {
		t.Fatal(err)
	}
	if got.States[h] != 3 || moves != 2 {
		t.Errorf("chose %d states with %d moves, want 3 and 2", got.States[h], moves)
	}
}

// fittedUniform fits tr to d with k states per hidden node from the
// surrogate start.
func fittedUniform(t *testing.T, tr *tree.Tree, d *data.Dataset, k int) *Model {
	t.Helper()
	m, err := ForData(tr, d, k)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.InitSurrogate(d, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := m.FitEM(d, model.EMOptions{KeepInit: true, Restarts: -1}); err != nil {
		t.Fatal(err)
	}
	return m
}
