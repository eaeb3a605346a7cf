package explain

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/tree"
)

// randomBinaryTree returns a tree of n observed leaves and n−2 hidden
// nodes of degree 3, joined at random.
func randomBinaryTree(b testing.TB, n int, rng *rand.Rand) *tree.Tree {
	t := tree.New()
	var open []int
	for i := range n {
		x, err := t.AddObserved("x" + strconv.Itoa(i))
		if err != nil {
			b.Fatal(err)
		}
		open = append(open, x)
	}
	for len(open) > 3 {
		rng.Shuffle(len(open), func(i, j int) { open[i], open[j] = open[j], open[i] })
		h := t.AddHidden()
		for _, c := range open[:2] {
			if err := t.AddEdge(h, c, 1); err != nil {
				b.Fatal(err)
			}
		}
		open = append(open[2:], h)
	}
	h := t.AddHidden()
	for _, c := range open {
		if err := t.AddEdge(h, c, 1); err != nil {
			b.Fatal(err)
		}
	}
	return t
}

// BenchmarkModel2000 explains a discrete model of 2,000 nodes (1,001
// observed, 999 hidden, binary).
func BenchmarkModel2000(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	t := randomBinaryTree(b, 1001, rng)
	states := make([]int, t.MaxID())
	for i := range states {
		states[i] = 2
	}
	m, err := discrete.New(t, model.DefaultRoot(t), states)
	if err != nil {
		b.Fatal(err)
	}
	m.Randomize(rand.NewPCG(3, 4))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Model(m, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
