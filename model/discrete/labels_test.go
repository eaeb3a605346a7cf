package discrete

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// labelSetting is a tree of two hidden nodes with three states each and
// data drawn from a random model on it.
func labelSetting(t *testing.T) (*tree.Tree, *data.Dataset) {
	t.Helper()
	tr, root := seTree(t, true)
	states := make([]int, tr.MaxID())
	for _, v := range tr.Nodes() {
		states[v] = 3
	}
	truth, err := New(tr, root, states)
	if err != nil {
		t.Fatal(err)
	}
	truth.Randomize(rand.NewPCG(4, 4))
	d, err := truth.Sample(rand.NewPCG(8, 9), 3000)
	if err != nil {
		t.Fatal(err)
	}
	return tr, d
}

func modelJSON(t *testing.T, m *Model) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := m.WriteJSON(&buf, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Any renaming of the hidden states of a model, canonicalized, gives the
// same file byte for byte, and the same log-likelihood.
func TestCanonicalizeUndoesRenaming(t *testing.T) {
	tr, d := labelSetting(t)
	fm, _, err := model.Fit(tr, d, model.FitOptions{HiddenStates: 3})
	if err != nil {
		t.Fatal(err)
	}
	m := fm.(*Model)
	want := modelJSON(t, m)
	_, ll0, err := m.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 10; trial++ {
		c := m.Clone()
		moved := false
		for _, v := range tr.Hidden() {
			perm := rng.Perm(c.States[v])
			c.permuteStates(v, perm)
			for i, p := range perm {
				moved = moved || i != p
			}
		}
		_, ll, err := c.LogLikelihood(d, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(ll-ll0) > 1e-9*math.Abs(ll0) {
			t.Errorf("renaming changed the log-likelihood: %.12g, was %.12g", ll, ll0)
		}
		if moved && bytes.Equal(modelJSON(t, c), want) {
			t.Fatal("a renamed model wrote the same file before Canonicalize: the test checks nothing")
		}
		c.Canonicalize()
		_, ll, _ = c.LogLikelihood(d, model.InferOptions{})
		if math.Abs(ll-ll0) > 1e-9*math.Abs(ll0) {
			t.Errorf("Canonicalize changed the log-likelihood: %.12g, was %.12g", ll, ll0)
		}
		if got := modelJSON(t, c); !bytes.Equal(got, want) {
			t.Errorf("trial %d: the canonical model differs from model.Fit's", trial)
		}
	}
	// model.Fit's model is canonical: the root's shares decrease.
	for b := 1; b < len(m.Prior); b++ {
		if m.Prior[b] > m.Prior[b-1] {
			t.Errorf("root prior %v not decreasing", m.Prior)
		}
	}
}

// Random starts that reach the same optimum, in different labellings,
// agree once canonicalized.
func TestCanonicalizeAcrossSeeds(t *testing.T) {
	tr, root := seTree(t, true)
	d, err := seTruth(t, tr, root, 3).Sample(rand.NewPCG(31, 32), 2000)
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		m  *Model
		ll float64
	}
	var runs []run
	best := math.Inf(-1)
	for s := uint64(1); s <= 8; s++ {
		m, err := ForData(tr, d, 2)
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.FitEM(d, model.EMOptions{Restarts: 1, Src: rand.NewPCG(s, 100), Tol: 1e-11, MaxIter: 20000})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run{m, res.LogLik})
		best = math.Max(best, res.LogLik)
	}
	var top []*Model
	for _, r := range runs {
		if best-r.ll < 1e-6 {
			top = append(top, r.m)
		}
	}
	if len(top) < 2 {
		t.Fatalf("only %d of %d starts reached the best log-likelihood", len(top), len(runs))
	}
	switched := false
	for _, m := range top[1:] {
		switched = switched || paramDiff(m, top[0]) > 0.05
	}
	if !switched {
		t.Fatal("no two starts at the optimum differ in labelling: the test checks nothing")
	}
	for _, m := range top {
		m.Canonicalize()
	}
	for i, m := range top[1:] {
		if diff := paramDiff(m, top[0]); diff > 1e-4 {
			t.Errorf("start %d: canonical parameters differ from the first's by %.3g", i+1, diff)
		}
	}
}

// paramDiff is the largest absolute difference between two models'
// probabilities.
func paramDiff(a, b *Model) float64 {
	diff := 0.0
	for i := range a.Prior {
		diff = math.Max(diff, math.Abs(a.Prior[i]-b.Prior[i]))
	}
	for v := range a.CPT {
		for i := range a.CPT[v] {
			diff = math.Max(diff, math.Abs(a.CPT[v][i]-b.CPT[v][i]))
		}
	}
	return diff
}
