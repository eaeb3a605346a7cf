package quartetlearn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latentree/latentree/noisyor"
)

// TestRestrictMarginal: the network restrict gives on a set of effects
// has, on those columns, the log-likelihood of the whole network's
// marginal summed by brute force over every state of its sources, and it
// holds exactly the sources not named free, those of them with one child
// there folded into its leak.
func TestRestrictMarginal(t *testing.T) {
	truth := overlapNet()
	d, err := truth.Sample(rand.NewPCG(3, 4), 400)
	if err != nil {
		t.Fatal(err)
	}
	b, err := noisyor.NewBinary(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range [][]int{{0, 1, 2, 3, 4}, {2, 3, 6}, {1, 5, 9, 11}, {4, 8}, {5, 9}} {
		sub, sb, fixed := restrict(truth, b, set, map[string]bool{"S2": true})
		x := make([]int, len(set))
		want := 0.0
		for r := range b.Rows {
			for i, a := range set {
				x[i] = b.Value(a, r)
			}
			want += math.Log(bruteProb(truth, set, x))
		}
		if got := bruteLogLik(t, sub, sb); math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("set %v: restricted log-likelihood %.10f, marginal of the whole network %.10f", set, got, want)
		}
		for s, src := range sub.Sources {
			if fixed[s] != (src.Name != "S2") {
				t.Errorf("set %v: source %s held %v", set, src.Name, fixed[s])
			}
		}
		// The sources kept are exactly S2 when it has a child in set
		// and the others with two or more there (one is in its leak).
		var names []string
		for _, src := range truth.Sources {
			k := 0
			for _, c := range src.Children {
				if slices.Contains(set, c.Effect) {
					k++
				}
			}
			if k >= 2 || k == 1 && src.Name == "S2" {
				names = append(names, src.Name)
			}
		}
		var have []string
		for _, src := range sub.Sources {
			have = append(have, src.Name)
		}
		if !slices.Equal(names, have) {
			t.Errorf("set %v: sources %v, want %v", set, have, names)
		}
	}
}

// TestScreen: on data of overlapNet, the network without S2 (fitted by
// EM) lets the missing source through the screen; the whole network
// with a spurious edge (fitted) rejects a source over one child of each
// of its sources and losing a true edge, and losing the spurious edge
// (failure 0.995 at the start) passes, and so does merging back a
// source split in two whose merge keeps one half's children.
func TestScreen(t *testing.T) {
	truth, b, _ := overlapData(t)
	partial, _, err := without(truth, 1).FitEM(b, noisyor.EMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	missing := truth.Sources[1]
	missing.Prior, missing.Children = 0.15, slices.Clone(missing.Children)
	for i := range missing.Children {
		missing.Children[i].Failure = 0.4
	}
	good := withSource(partial, missing)
	if got := screen(partial, []*noisyor.Network{good}, b, effectsOf(&good.Sources[2]), 0); len(got) != 1 {
		t.Error("the missing source did not pass the screen")
	}
	spur := truth.Clone()
	spur.Sources[0].Children = append(spur.Sources[0].Children, noisyor.Child{Effect: 10, Failure: 0.995})
	fit, _, err := spur.FitEM(b, noisyor.EMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spurious := withSource(fit, noisyor.Source{Prior: 0.15, Children: []noisyor.Child{{Effect: 0, Failure: 0.4}, {Effect: 5, Failure: 0.4}, {Effect: 11, Failure: 0.4}}})
	if got := screen(fit, []*noisyor.Network{spurious}, b, effectsOf(&spurious.Sources[3]), 0); len(got) != 0 {
		t.Error("a source over effects independent given the network passed the screen")
	}
	// S1 split into itself at 0.4 of its prior and a source at 0.2 over its
	// first three children: the merge back keeps S1's children and
	// changes its prior, and must pass.
	split := truth.Clone()
	p := split.Sources[0].Prior
	split.Sources[0].Prior = 0.4 * p
	split.Sources = append(split.Sources, noisyor.Source{Name: "X4", Prior: 0.2 * p, Children: slices.Clone(split.Sources[0].Children[:3])})
	if got := screen(split, []*noisyor.Network{mergedPair(split, 0, 3)}, b, effectsOf(&split.Sources[0], &split.Sources[3]), 0); len(got) != 1 {
		t.Error("merging a split source back did not pass the screen")
	}
	set := effectsOf(&fit.Sources[0])
	trueEdge, _, _ := withoutEdge(fit, 0, 1)
	nullEdge, _, _ := withoutEdge(fit, 0, 10)
	got := screen(fit, []*noisyor.Network{trueEdge, nullEdge}, b, set, 0)
	if len(got) != 1 || got[0] != nullEdge {
		t.Errorf("%d of losing a true edge and losing a null edge passed; want the null edge's loss alone", len(got))
	}
}

// TestWithoutEdge: removing an edge keeps every effect's marginal (the
// leak takes over the source's share), and a source left with one child
// goes, that child's marginal kept too.
func TestWithoutEdge(t *testing.T) {
	n := overlapNet()
	check := func(out *noisyor.Network, what string) {
		for a := range n.Effects {
			want, got := bruteProb(n, []int{a}, []int{0}), bruteProb(out, []int{a}, []int{0})
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("%s: P(%s = 0) %.15f, before %.15f", what, n.Effects[a], got, want)
			}
		}
	}
	out, k, gone := withoutEdge(n, 1, 5)
	if k != 1 || gone != 0 || slices.ContainsFunc(out.Sources[1].Children, func(c noisyor.Child) bool { return c.Effect == 5 }) || len(out.Sources[1].Children) != 5 {
		t.Errorf("S2→e5 removed: %d edges, %d sources, S2 %v", k, gone, out.Sources[1].Children)
	}
	check(out, "S2→e5 removed")
	two := netFrom(4, []float64{0.3, 0.2}, [][]int{{0, 1}, {1, 2, 3}}, []float64{0.2, 0.3}, 0.05)
	n = two
	out, k, gone = withoutEdge(two, 0, 0)
	if k != 2 || gone != 1 || len(out.Sources) != 1 || out.Sources[0].Name != "S2" {
		t.Errorf("S1 left with one child: %d edges, %d sources removed, sources %+v", k, gone, out.Sources)
	}
	check(out, "S1 removed")
	if len(two.Sources) != 2 || len(two.Sources[0].Children) != 2 {
		t.Error("withoutEdge changed its input")
	}
}

// TestTrimGreedy: overlapNet's data fitted by a network with two
// spurious edges (failures 0.995 and 0.99 at the start) lose exactly
// those, one at a time, and the result's log-likelihood is the
// brute-force one; on the true network nothing goes.
func TestTrimGreedy(t *testing.T) {
	truth, b, _ := overlapData(t)
	spur := truth.Clone()
	spur.Sources[0].Children = append(spur.Sources[0].Children, noisyor.Child{Effect: 10, Failure: 0.995})
	spur.Sources[2].Children = append([]noisyor.Child{{Effect: 1, Failure: 0.99}}, spur.Sources[2].Children...)
	fit, em, err := spur.FitEM(b, noisyor.EMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, ll, last, k, gone := trimGreedy(fit, em.LogLik, b, 0)
	if k != 2 || gone != 0 || last == nil || !slices.EqualFunc(childrenOf(got), childrenOf(truth), slices.Equal) {
		t.Fatalf("trimmed %d edges, %d sources, children %v; want 2, 0 and %v", k, gone, childrenOf(got), childrenOf(truth))
	}
	if brute := bruteLogLik(t, got, b); math.Abs(ll-brute) > 1e-7*math.Abs(brute) || ll != last.LogLik {
		t.Errorf("log-likelihood %.6f (polish %.6f), brute force %.6f", ll, last.LogLik, brute)
	}
	if bic(got, ll, b.Rows) <= bic(fit, em.LogLik, b.Rows) {
		t.Error("trimming did not improve the BIC")
	}
	whole, em, err := truth.FitEM(b, noisyor.EMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, last, k, _ := trimGreedy(whole, em.LogLik, b, 0); k != 0 || last != nil || !slices.EqualFunc(childrenOf(got), childrenOf(truth), slices.Equal) {
		t.Errorf("true network: trimmed %d edges", k)
	}
}

// TestChangedSources: a source whose prior or a failure differs is
// changed even with the same children (a merge that keeps one half's
// children), as are sources in one network only; equal sources are not.
func TestChangedSources(t *testing.T) {
	n := overlapNet()
	alt := n.Clone()
	alt.Sources[0].Prior += 0.1
	alt.Sources[2].Children[1].Failure = 0.5
	alt.Sources = append(alt.Sources, noisyor.Source{Name: "X4", Prior: 0.1, Children: []noisyor.Child{{Effect: 0, Failure: 0.5}}})
	got := map[string]bool{}
	changedSources(n, alt, got)
	if want := map[string]bool{"S1": true, "S3": true, "X4": true}; len(got) != len(want) || !got["S1"] || !got["S3"] || !got["X4"] {
		t.Errorf("changed %v, want %v", got, want)
	}
}
