package model

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/tree"
)

// specTestModel returns a discrete model on the Newick tree nw with n
// states per observed and k per hidden node and random CPTs bounded away
// from 0 (full rank with probability one).
func specTestModel(t *testing.T, nw string, n, k int, seed uint64) *Discrete {
	t.Helper()
	tr, err := tree.ParseNewick(nw, tree.NewickOptions{})
	if err != nil {
		t.Fatal(err)
	}
	states := make([]int, tr.MaxID())
	for _, v := range tr.Nodes() {
		states[v] = n
		if tr.IsHidden(v) {
			states[v] = k
		}
	}
	m, err := NewDiscrete(tr, DefaultRoot(tr), states)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	fill := func(p []float64, kk int) {
		for a := 0; a < len(p)/kk; a++ {
			s := 0.0
			for b := 0; b < kk; b++ {
				x := 0.2 + rng.Float64()
				if b == a%kk {
					x += 1.5 // a dominant state per row: well conditioned
				}
				p[a*kk+b] = x
				s += x
			}
			for b := 0; b < kk; b++ {
				p[a*kk+b] /= s
			}
		}
	}
	fill(m.Prior, len(m.Prior))
	for v, c := range m.CPT {
		if c != nil {
			fill(c, m.States[v])
		}
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

// population returns every configuration of m's observed variables as a
// dataset, and their exact probabilities.
func population(t *testing.T, m *Discrete) (*data.Dataset, []float64) {
	t.Helper()
	obs := m.Tree.Observed()
	total := 1
	for _, v := range obs {
		total *= m.States[v]
	}
	vars := make([]data.Variable, len(obs))
	cols := make([][]uint16, len(obs))
	for i, v := range obs {
		vars[i] = data.Variable{Name: m.Tree.Name(v), Kind: data.Discrete, States: m.StateLabels(v)}
		cols[i] = make([]uint16, total)
	}
	for r := 0; r < total; r++ {
		x := r
		for i := len(obs) - 1; i >= 0; i-- {
			k := m.States[obs[i]]
			cols[i][r] = uint16(x % k)
			x /= k
		}
	}
	d, err := data.FromDiscrete(vars, cols)
	if err != nil {
		t.Fatal(err)
	}
	ll, _, err := m.LogLikelihood(d, InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, total)
	for r, x := range ll {
		p[r] = math.Exp(x)
	}
	return d, p
}

var specTrees = []struct {
	name, nw string
}{
	{"binary", "(((a,b),(c,d)),((e,f),(g,h)));"},
	{"degree4", "((a,b),(c,d),(e,f),(g,h));"},
	{"observed-internal", "((a,b)x,(c,(d,e)),(f,g));"},
	{"hmm", "(a,(b,(c,(d,(e,f)))));"},
	{"two-observed-internal", "((a,b)x,((c,d)y,e)z,(f,g));"},
	{"deep-degree5", "((a,b),(c,d),(e,f),(g,h),(i,(j,k)));"},
	{"star8-split", "(a,b,c,d,e,f,g,h);"},
}

func TestSpectralExactOnPopulation(t *testing.T) {
	for _, tc := range specTrees {
		for _, nk := range [][3]int{{2, 2, 2}, {3, 2, 2}, {3, 2, 3}} {
			for _, linker := range []Linker{LinkerMStar, LinkerParikh, LinkerMStarFull} {
				name := tc.name + "/n" + strconv.Itoa(nk[0]) + "k" + strconv.Itoa(nk[1]) + "k′" + strconv.Itoa(nk[2]) + "/" + linker.String()
				t.Run(name, func(t *testing.T) {
					m := specTestModel(t, tc.nw, nk[0], nk[1], 3)
					d, p := population(t, m)
					s, err := FitSpectralWeighted(m.Tree, d, p, SpectralOptions{HiddenStates: nk[2], Linker: linker})
					if err != nil {
						t.Fatal(err)
					}
					q, err := s.Prob(d, InferOptions{})
					if err != nil {
						t.Fatal(err)
					}
					if tc.name == "star8-split" && nk[0] == 3 && len(s.Edges) == 0 {
						t.Errorf("a star of 8 three-state leaves was not split")
					}
					worst, sum := 0.0, 0.0
					for r := range p {
						worst = max(worst, math.Abs(q[r]-p[r]))
						sum += q[r]
					}
					if worst > 1e-9 || math.Abs(sum-1) > 1e-9 {
						t.Errorf("max |P̂−P| = %.3g, ΣP̂ = %.12f; want exact", worst, sum)
					}
				})
			}
		}
	}
}
