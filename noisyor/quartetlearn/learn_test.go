package quartetlearn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/noisyor"
)

// netFrom builds a network from children lists with given priors and one
// failure per source, leak on every effect.
func netFrom(m int, prior []float64, children [][]int, fail []float64, leak float64) *noisyor.Network {
	n := &noisyor.Network{Leak: make([]float64, m)}
	for a := range m {
		n.Effects = append(n.Effects, fmt.Sprintf("e%d", a))
		n.Leak[a] = leak
	}
	for s, ch := range children {
		src := noisyor.Source{Name: fmt.Sprintf("S%d", s+1), Prior: prior[s]}
		for i, a := range ch {
			src.Children = append(src.Children, noisyor.Child{Effect: a, Failure: fail[s] + 0.01*float64(i%5)})
		}
		n.Sources = append(n.Sources, src)
	}
	return n
}

// matchNetworks checks that got has the sources of want (matched by
// children), with priors, failures and leaks within tol; it returns each
// true source's learned depth.
func matchNetworks(t *testing.T, want, got *noisyor.Network, tol float64) map[string]int {
	t.Helper()
	if len(got.Sources) != len(want.Sources) {
		t.Fatalf("learned %d sources, want %d", len(got.Sources), len(want.Sources))
	}
	depth := map[string]int{}
	used := make([]bool, len(got.Sources))
	for _, ws := range want.Sources {
		found := false
		for j, gs := range got.Sources {
			if used[j] || len(gs.Children) != len(ws.Children) {
				continue
			}
			same := true
			for k := range gs.Children {
				if gs.Children[k].Effect != ws.Children[k].Effect {
					same = false
					break
				}
			}
			if !same {
				continue
			}
			used[j], found = true, true
			if d := math.Abs(gs.Prior - ws.Prior); d > tol {
				t.Errorf("source %s: prior %v, want %v", ws.Name, gs.Prior, ws.Prior)
			}
			for k := range gs.Children {
				if d := math.Abs(gs.Children[k].Failure - ws.Children[k].Failure); d > tol {
					t.Errorf("source %s child %d: failure %v, want %v", ws.Name, gs.Children[k].Effect, gs.Children[k].Failure, ws.Children[k].Failure)
				}
			}
			depth[ws.Name] = -1 // found by the residual stage
			if gs.Learned != nil {
				depth[ws.Name] = gs.Learned.Depth
			}
			break
		}
		if !found {
			t.Errorf("source %s (children %v) not learned", ws.Name, ws.Children)
		}
	}
	for a := range want.Effects {
		if d := math.Abs(got.LeakOf(a) - want.LeakOf(a)); d > tol {
			t.Errorf("leak of %s: %v, want %v", want.Effects[a], got.LeakOf(a), want.LeakOf(a))
		}
	}
	return depth
}

func TestLearnExactDepthOne(t *testing.T) {
	// A has the singly-coupled quartet {4,5,8,9}; every quartet of B's
	// children holds two of A's, so B is found only after subtracting A.
	n := netFrom(12, []float64{0.3, 0.2, 0.25},
		[][]int{{0, 1, 2, 3, 4, 5, 8, 9}, {0, 1, 2, 3, 6, 7}, {7, 9, 10, 11}},
		[]float64{0.1, 0.2, 0.3}, 0.01)
	res, err := LearnExact(n, Options{})
	if err != nil {
		t.Fatal(err)
	}
	depth := matchNetworks(t, n, res.Network, 1e-9)
	if depth["S1"] != 0 || depth["S2"] != 1 || depth["S3"] != 0 {
		t.Errorf("depths %v, want S1 0, S2 1, S3 0", depth)
	}
	t.Logf("rounds %+v", res.Rounds)
}

// TestLearnExactMaxRounds checks that MaxRounds 1 keeps the depth-0
// sources of TestLearnExactDepthOne's network only, and that a negative
// MaxRounds is refused.
func TestLearnExactMaxRounds(t *testing.T) {
	n := netFrom(12, []float64{0.3, 0.2, 0.25},
		[][]int{{0, 1, 2, 3, 4, 5, 8, 9}, {0, 1, 2, 3, 6, 7}, {7, 9, 10, 11}},
		[]float64{0.1, 0.2, 0.3}, 0.01)
	res, err := LearnExact(n, Options{MaxRounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rounds) != 1 || len(res.Network.Sources) != 2 {
		t.Fatalf("%d rounds, %d sources; want 1 round and the 2 sources of depth 0", len(res.Rounds), len(res.Network.Sources))
	}
	for _, s := range res.Network.Sources {
		if s.Learned.Depth != 0 {
			t.Errorf("source %s of depth %d", s.Name, s.Learned.Depth)
		}
	}
	if _, err := LearnExact(n, Options{MaxRounds: -1}); err == nil {
		t.Error("MaxRounds −1 accepted")
	}
}

func TestLearnExactRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 20 {
		ns := 4 + rng.IntN(17)
		m := 3 * ns
		var children [][]int
		var prior, fail []float64
		for range ns {
			k := 5 + rng.IntN(6)
			perm := rng.Perm(m)[:k]
			ch := make([]int, k)
			copy(ch, perm)
			sortInts(ch)
			children = append(children, ch)
			prior = append(prior, 0.05+0.4*rng.Float64())
			fail = append(fail, 0.05+0.8*rng.Float64())
		}
		n := netFrom(m, prior, children, fail, 0.02)
		res, err := LearnExact(n, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := bruteDepths(n)
		learnable := 0
		for _, d := range want {
			if d >= 0 {
				learnable++
			}
		}
		got := map[string]int{}
		if learnable == ns {
			got = matchNetworks(t, n, res.Network, 1e-9)
			for s, src := range n.Sources {
				if got[src.Name] != want[s] {
					t.Errorf("trial %d: source %s found at depth %d, structural depth %d", trial, src.Name, got[src.Name], want[s])
				}
			}
		}
		t.Logf("trial %d: %d sources (%d learnable) %d effects: learned %d, rounds %d", trial, ns, learnable, m, len(res.Network.Sources), len(res.Rounds))
	}
}

func sortInts(x []int) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

func TestLearnDataDepthOne(t *testing.T) {
	n := netFrom(12, []float64{0.3, 0.25, 0.25},
		[][]int{{0, 1, 2, 3, 4, 5, 8, 9}, {0, 1, 2, 3, 6, 7}, {7, 9, 10, 11}},
		[]float64{0.1, 0.1, 0.1}, 0.01)
	d, err := n.Sample(rand.NewPCG(1, 1), 20000)
	if err != nil {
		t.Fatal(err)
	}
	b, err := noisyor.NewBinary(d)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Learn(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rounds %+v", res.Rounds)
	depth := matchNetworks(t, n, res.Network, 0.03)
	t.Logf("depths %v", depth)
}

// bruteDepths returns the structural depth of each source by brute force:
// round d finds the remaining sources with 4 children no two of which
// share another remaining parent.
func bruteDepths(n *noisyor.Network) []int {
	ns := len(n.Sources)
	depth := make([]int, ns)
	for i := range depth {
		depth[i] = -1
	}
	remaining := func(s int) bool { return depth[s] < 0 }
	for d := 0; ; d++ {
		var found []int
		for s := range ns {
			if !remaining(s) {
				continue
			}
			ch := n.Sources[s].Children
			ok := false
			for i := 0; i < len(ch) && !ok; i++ {
				for j := i + 1; j < len(ch) && !ok; j++ {
					for k := j + 1; k < len(ch) && !ok; k++ {
						for l := k + 1; l < len(ch) && !ok; l++ {
							q := []int{ch[i].Effect, ch[j].Effect, ch[k].Effect, ch[l].Effect}
							good := true
							for y := range ns {
								if y == s || !remaining(y) {
									continue
								}
								c := 0
								for _, a := range q {
									if n.Failure(y, a) < 1 {
										c++
									}
								}
								if c > 1 {
									good = false
									break
								}
							}
							ok = good
						}
					}
				}
			}
			if ok {
				found = append(found, s)
			}
		}
		if len(found) == 0 {
			return depth
		}
		for _, s := range found {
			depth[s] = d
		}
	}
}
