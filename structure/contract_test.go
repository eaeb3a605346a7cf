package structure

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/latentree/latentree/tree"
)

// caterpillar builds a tree of observed a..f with hidden h1 (a, b), h2 (c),
// h3 (d, e), h4 (f) joined in a path h1–h2–h3–h4; every edge has length 1
// except those given.
func caterpillar(t *testing.T, lengths map[[2]string]float64) *tree.Tree {
	t.Helper()
	tr := tree.New()
	id := map[string]int{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		v, err := tr.AddObserved(n)
		if err != nil {
			t.Fatal(err)
		}
		id[n] = v
	}
	for _, h := range []string{"h1", "h2", "h3", "h4"} {
		v := tr.AddHidden()
		if err := tr.SetName(v, h); err != nil {
			t.Fatal(err)
		}
		id[h] = v
	}
	for _, e := range [][2]string{{"a", "h1"}, {"b", "h1"}, {"h1", "h2"}, {"c", "h2"}, {"h2", "h3"}, {"d", "h3"}, {"e", "h3"}, {"h3", "h4"}, {"f", "h4"}} {
		l, ok := lengths[e]
		if !ok {
			l = 1
		}
		if err := tr.AddEdge(id[e[0]], id[e[1]], l); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// hiddenNames returns the names of t's hidden nodes.
func hiddenNames(t *tree.Tree) map[string]bool {
	out := map[string]bool{}
	for _, v := range t.Hidden() {
		out[t.Name(v)] = true
	}
	return out
}

// TestContractByScoreKeepsOnlyImprovements: the score rewards removing
// hidden nodes except h2 and h3, whose removal costs more than it gains.
// Every other hidden node must go (h1 into a or b or h2, h4 into f or h3),
// h2 and h3 must stay, and the score never falls.
func TestContractByScoreKeepsOnlyImprovements(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		tr := caterpillar(t, nil)
		score := func(c *tree.Tree, warm *int, quick bool) (float64, *int, error) {
			h := hiddenNames(c)
			s := -float64(len(h))
			if !h["h2"] || !h["h3"] {
				s -= 10
			}
			n := len(h)
			return s, &n, nil
		}
		res, err := ContractByScore(tr, score, ContractOptions{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		got := hiddenNames(res.Tree)
		if len(got) != 2 || !got["h2"] || !got["h3"] {
			t.Errorf("workers %d: hidden nodes left %v, want h2 and h3", workers, got)
		}
		if res.Contracted != 2 || res.Score != -2 || res.Initial != -4 || *res.State != 2 {
			t.Errorf("workers %d: contracted %d, score %g from %g, state %d; want 2, −2 from −4, 2", workers, res.Contracted, res.Score, res.Initial, *res.State)
		}
		if err := res.Tree.Validate(); err != nil {
			t.Fatal(err)
		}
		if tr.NumHidden() != 4 {
			t.Error("the input tree was changed")
		}
	}
}

// TestContractByScoreShortestFirst: with one worker and a score that
// accepts any single contraction (and nothing after it), the shortest
// candidate edge is the one contracted, and the warm state passed to
// candidates is the state of the tree they derive from.
func TestContractByScoreShortestFirst(t *testing.T) {
	tr := caterpillar(t, map[[2]string]float64{{"h2", "h3"}: 0.01, {"d", "h3"}: 0.05})
	score := func(c *tree.Tree, warm *int, quick bool) (float64, *int, error) {
		n := c.NumHidden()
		if quick && *warm != n+1 || !quick && warm != nil && *warm != n {
			return 0, nil, errors.New("warm state is not the parent tree's")
		}
		if n == 4 {
			return 0, &n, nil
		}
		if n == 3 {
			return 1, &n, nil
		}
		return -1, &n, nil
	}
	res, err := ContractByScore(tr, score, ContractOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := hiddenNames(res.Tree)
	if len(got) != 3 || got["h2"] == got["h3"] {
		t.Fatalf("hidden nodes %v: want h2 and h3 merged", got)
	}
	if res.Contracted != 1 {
		t.Errorf("contracted %d, want 1", res.Contracted)
	}
	// The merged node joins c, d, e, h1, h4, and the lengths are summed.
	for _, v := range res.Tree.Hidden() {
		if res.Tree.Degree(v) == 5 {
			d, _ := res.Tree.Lookup("d")
			if l, _ := res.Tree.EdgeLength(v, d); math.Abs(l-0.06) > 1e-12 {
				t.Errorf("length to d %g", l)
			}
			return
		}
	}
	t.Error("no hidden node of degree 5")
}

// TestContractByScoreHiddenOnlyAndLimits checks HiddenOnly, MaxEvals and
// error propagation.
func TestContractByScoreHiddenOnlyAndLimits(t *testing.T) {
	tr := caterpillar(t, nil)
	var sawObserved bool
	score := func(c *tree.Tree, warm *int, quick bool) (float64, *int, error) {
		for _, o := range c.Observed() {
			if c.Degree(o) > 1 {
				sawObserved = true
			}
		}
		return -float64(c.NumHidden()), nil, nil
	}
	res, err := ContractByScore(tr, score, ContractOptions{HiddenOnly: true, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sawObserved || res.Tree.NumHidden() != 1 || res.Contracted != 3 {
		t.Errorf("hidden-only: observed internal %v, hidden %d, contracted %d; want false, 1, 3", sawObserved, res.Tree.NumHidden(), res.Contracted)
	}
	res, err = ContractByScore(tr, func(c *tree.Tree, warm *int, quick bool) (float64, *int, error) { return 0, nil, nil }, ContractOptions{MaxEvals: 3, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Evaluated != 3 || res.Contracted != 0 {
		t.Errorf("max evaluations: evaluated %d, contracted %d; want 3, 0", res.Evaluated, res.Contracted)
	}
	boom := errors.New("boom")
	if _, err := ContractByScore(tr, func(c *tree.Tree, warm *int, quick bool) (float64, *int, error) {
		if quick {
			return 0, nil, boom
		}
		return 0, nil, nil
	}, ContractOptions{}); !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
	if _, err := ContractByScore[int](nil, score, ContractOptions{}); err == nil {
		t.Error("nil tree accepted")
	}
	if _, err := ContractByScore(tr, score, ContractOptions{Passes: -1}); err == nil {
		t.Error("negative passes accepted")
	}
}

// TestContractByScoreBatch: the score rewards merging h3 into d (by 5) more
// than merging h2 into h3, the shortest edge (by 1), and nothing after one
// contraction. Batch 1 keeps the shortest improving candidate, a batch of
// every candidate the best one; neither result nor the count of scorings
// depends on the number of workers.
func TestContractByScoreBatch(t *testing.T) {
	lengths := map[[2]string]float64{{"h2", "h3"}: 0.01, {"d", "h3"}: 0.05}
	score := func(c *tree.Tree, warm *int, quick bool) (float64, *int, error) {
		n := c.NumHidden()
		h := hiddenNames(c)
		s := 0.0
		switch {
		case n == 3 && !h["h3"] && c.Degree(mustLookup(t, c, "d")) == 3:
			s = 5
		case n == 3 && h["h2"] != h["h3"]:
			s = 1
		case n < 4:
			s = -1
		}
		return s, &n, nil
	}
	for _, tc := range []struct {
		batch int
		score float64
	}{{1, 1}, {100, 5}} {
		var evals []int
		for _, w := range []int{1, 2, 3, 8} {
			res, err := ContractByScore(caterpillar(t, lengths), score, ContractOptions{Batch: tc.batch, Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			if res.Score != tc.score || res.Contracted != 1 {
				t.Errorf("batch %d, workers %d: score %g after %d contractions, want %g after 1", tc.batch, w, res.Score, res.Contracted, tc.score)
			}
			evals = append(evals, res.Evaluated)
		}
		if slices.Min(evals) != slices.Max(evals) {
			t.Errorf("batch %d: scorings %v for 1, 2, 3 and 8 workers", tc.batch, evals)
		}
	}
}

func mustLookup(t *testing.T, tr *tree.Tree, name string) int {
	t.Helper()
	v, ok := tr.Lookup(name)
	if !ok {
		t.Fatalf("no node %s", name)
	}
	return v
}
