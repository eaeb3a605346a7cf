package simulate

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/tree"
)

// exactMoments returns, from the definitions of the mixed model, the
// marginal state probabilities of every discrete node and the marginal
// mean and variance of every continuous one.
func exactMoments(m *mixed.Model) (prob [][]float64, mean, vari []float64) {
	t := m.Tree
	r := m.Rooted()
	prob = make([][]float64, t.MaxID())
	mean, vari = make([]float64, t.MaxID()), make([]float64, t.MaxID())
	for _, v := range r.Order {
		p := r.Parent[v]
		switch {
		case m.Kinds[v] == data.Discrete && p < 0:
			prob[v] = m.Prior
		case m.Kinds[v] == data.Discrete:
			k := m.States[v]
			prob[v] = make([]float64, k)
			for a, pa := range prob[p] {
				for b := range k {
					prob[v][b] += pa * m.CPT[v][a*k+b]
				}
			}
		case p >= 0 && m.Kinds[p] == data.Discrete:
			e2 := 0.0
			for a, pa := range prob[p] {
				mean[v] += pa * m.Mean[v][a]
				e2 += pa * (m.Var[v][a] + m.Mean[v][a]*m.Mean[v][a])
			}
			vari[v] = e2 - mean[v]*mean[v]
		case p >= 0:
			mean[v] = m.Mean[v][0] + m.Coef[v]*mean[p]
			vari[v] = m.Coef[v]*m.Coef[v]*vari[p] + m.Var[v][0]
		default:
			mean[v], vari[v] = m.Mean[v][0], m.Var[v][0]
		}
	}
	return prob, mean, vari
}

// With the defaults on leaves-only random trees: 40% of the leaves are
// continuous, discrete observed nodes have 2 to 5 states and discrete
// hidden ones 2, continuous hidden nodes have marginal mean 0 and variance
// 1, continuous edges correlations in [0.4, 0.8], consecutive state means
// of a node equally spaced, 1 to 3 within-state SDs apart, the spacing
// drawn per node (over these trees' 60-odd such nodes the spacings cover
// most of the range); the same seed gives the same model.
func TestMixedDefaults(t *testing.T) {
	var seps []float64
	for seed := range uint64(8) {
		src := rand.NewPCG(seed, 24)
		m, err := RandomMixed(src, 20, MinimalOptions{ObservedInternalProb: -1}, MixedOptions{ContinuousHidden: 1})
		if err != nil {
			t.Fatal(err)
		}
		tr := m.Tree
		cont := 0
		for _, v := range tr.Observed() {
			if m.Kinds[v] == data.Continuous {
				cont++
			} else if k := m.States[v]; k < 2 || k > 5 {
				t.Errorf("seed %d: observed %s has %d states", seed, tr.Name(v), k)
			}
		}
		if cont != 8 {
			t.Errorf("seed %d: %d continuous leaves of 20, want 8", seed, cont)
		}
		contHidden := 0
		_, mean, vari := exactMoments(m)
		r := m.Rooted()
		for _, v := range tr.Hidden() {
			switch m.Kinds[v] {
			case data.Discrete:
				if m.States[v] != 2 {
					t.Errorf("seed %d: hidden %d has %d states", seed, v, m.States[v])
				}
			case data.Continuous:
				contHidden++
				if math.Abs(mean[v]) > 1e-12 || math.Abs(vari[v]-1) > 1e-12 {
					t.Errorf("seed %d: continuous hidden node has mean %g, variance %g", seed, mean[v], vari[v])
				}
			}
		}
		if contHidden < 1 {
			t.Errorf("seed %d: no continuous hidden node", seed)
		}
		for _, v := range r.Order {
			p := r.Parent[v]
			if p < 0 || m.Kinds[v] != data.Continuous {
				continue
			}
			if m.Kinds[p] == data.Continuous {
				rho := m.Coef[v] * math.Sqrt(vari[p]/vari[v])
				if rho < 0.4-1e-12 || rho > 0.8+1e-12 {
					t.Errorf("seed %d: edge correlation %g", seed, rho)
				}
				continue
			}
			mu := slices.Clone(m.Mean[v])
			slices.Sort(mu)
			sd := math.Sqrt(m.Var[v][0])
			sep := (mu[1] - mu[0]) / sd
			if sep < 1-1e-9 || sep > 3+1e-9 {
				t.Errorf("seed %d: state means %v are %g SDs apart, want 1 to 3", seed, m.Mean[v], sep)
			}
			for a := 2; a < len(mu); a++ {
				if gap := (mu[a] - mu[a-1]) / sd; math.Abs(gap-sep) > 1e-9 {
					t.Errorf("seed %d: state means %v are unequally spaced", seed, m.Mean[v])
				}
			}
			seps = append(seps, sep)
		}
		var a, b bytes.Buffer
		if err := m.WriteJSON(&a, nil); err != nil {
			t.Fatal(err)
		}
		m2, err := RandomMixed(rand.NewPCG(seed, 24), 20, MinimalOptions{ObservedInternalProb: -1}, MixedOptions{ContinuousHidden: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := m2.WriteJSON(&b, nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("seed %d: two models of one seed differ", seed)
		}
	}
	// Uniform draws on [1, 3]: the chance that none of n falls in a given
	// quarter of the range is 0.75^n.
	if len(seps) < 40 || slices.Min(seps) > 1.5 || slices.Max(seps) < 2.5 {
		t.Errorf("%d separations drawn per node from [1, 3] span only [%g, %g]", len(seps), slices.Min(seps), slices.Max(seps))
	}
}

// Separation, seen from data: continuous leaves of an observed discrete
// node have conditional means Separation within-state SDs apart (with no
// spread: one separation for every node), and two
// continuous leaves of a continuous hidden node correlate as the product
// of their edge correlations.
func TestMixedSeparationInData(t *testing.T) {
	tr := tree.New()
	d, _ := tr.AddObserved("d")
	h := tr.AddHidden()
	kinds := make([]data.Kind, 6)
	add := func(parent int, name string) int {
		v, err := tr.AddObserved(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.AddEdge(parent, v, math.NaN()); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if err := tr.AddEdge(d, h, math.NaN()); err != nil {
		t.Fatal(err)
	}
	c1, c2 := add(d, "c1"), add(d, "c2")
	y1, y2 := add(h, "y1"), add(h, "y2")
	kinds[c1], kinds[c2], kinds[y1], kinds[y2] = data.Continuous, data.Continuous, data.Continuous, data.Continuous
	m, err := Mixed(rand.NewPCG(5, 6), tr, MixedOptions{Kinds: kinds, Separation: 1.5, SeparationSpread: -1, ObservedMin: 4, ObservedMax: 4})
	if err != nil {
		t.Fatal(err)
	}
	if m.Kinds[h] != data.Continuous || m.Root != d {
		t.Fatalf("hidden node kind %v, root %s", m.Kinds[h], tr.Name(m.Root))
	}
	const n = 100000
	rows, err := m.Sample(rand.NewPCG(7, 8), n)
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { j, _ := rows.Index(name); return j }
	ds := rows.Discrete(col("d"))
	for _, c := range []string{"c1", "c2"} {
		x := rows.Continuous(col(c))
		var sum, sum2, cnt [4]float64
		for i, s := range ds {
			sum[s] += x[i]
			sum2[s] += x[i] * x[i]
			cnt[s]++
		}
		var mu []float64
		pooled := 0.0
		for s := range 4 {
			mu = append(mu, sum[s]/cnt[s])
			pooled += sum2[s] - sum[s]*sum[s]/cnt[s]
		}
		sd := math.Sqrt(pooled / n)
		slices.Sort(mu)
		for a := 1; a < 4; a++ {
			// SE of a difference of means over ≥ ~5% of the rows each: < 0.03 SD.
			if gap := (mu[a] - mu[a-1]) / sd; math.Abs(gap-1.5) > 0.15 {
				t.Errorf("%s: state means %v, gap %g SDs, want 1.5", c, mu, gap)
			}
		}
	}
	_, _, vari := exactMoments(m)
	r1 := m.Coef[y1] * math.Sqrt(vari[h]/vari[y1])
	r2 := m.Coef[y2] * math.Sqrt(vari[h]/vari[y2])
	got := sampleCorr(rows.Continuous(col("y1")), rows.Continuous(col("y2")))
	if se := (1 - r1*r1*r2*r2) / math.Sqrt(n); math.Abs(got-r1*r2) > 5*se {
		t.Errorf("corr(y1, y2) = %.4f, want %.4f (5 SE %.4f)", got, r1*r2, 5*se)
	}
}

func sampleCorr(x, y []float64) float64 {
	n := float64(len(x))
	var sx, sy, sxx, syy, sxy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
		sxx += x[i] * x[i]
		syy += y[i] * y[i]
		sxy += x[i] * y[i]
	}
	cov := sxy/n - sx*sy/n/n
	return cov / math.Sqrt((sxx/n-sx*sx/n/n)*(syy/n-sy*sy/n/n))
}

// Bad options, a nil source and kinds that no conditional-Gaussian tree
// allows are errors.
func TestMixedErrors(t *testing.T) {
	tr, err := DoubleStar(3, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Mixed(nil, tr, MixedOptions{}); !errors.Is(err, errNoSource) {
		t.Errorf("nil source: %v", err)
	}
	for name, o := range map[string]MixedOptions{
		"share":       {Continuous: 1.5},
		"states":      {ObservedMin: 1, ObservedMax: 3},
		"hidden":      {HiddenMin: 3, HiddenMax: 2},
		"separation":  {Separation: math.Inf(1)},
		"spread":      {SeparationSpread: 1},
		"rho":         {RhoMin: 0.5, RhoMax: 1},
		"alpha":       {Alpha: -1},
		"noise":       {NoiseMin: 0.5, NoiseMax: 0.4},
		"cont hidden": {ContinuousHidden: -1},
		"kinds":       {Kinds: []data.Kind{data.Mixed}},
		"too large":   {HiddenMin: 60000, HiddenMax: 60000},
	} {
		if _, err := Mixed(rand.NewPCG(1, 1), tr.Clone(), o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// An observed continuous node between two discrete ones.
	chain := tree.New()
	a, _ := chain.AddObserved("a")
	b, _ := chain.AddObserved("b")
	c, _ := chain.AddObserved("c")
	_ = chain.AddEdge(a, b, math.NaN())
	_ = chain.AddEdge(b, c, math.NaN())
	if _, err := Mixed(rand.NewPCG(1, 1), chain, MixedOptions{Kinds: []data.Kind{data.Discrete, data.Continuous, data.Discrete}}); err == nil {
		t.Error("continuous node between discrete ones: no error")
	}
}

// Shares 0 (negative) and 1 give all-discrete and all-continuous models.
func TestMixedExtremeShares(t *testing.T) {
	for _, c := range []struct {
		share float64
		kind  data.Kind
	}{{-1, data.Discrete}, {1, data.Continuous}} {
		m, err := RandomMixed(rand.NewPCG(2, 3), 12, MinimalOptions{ObservedInternalProb: -1}, MixedOptions{Continuous: c.share})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range m.Tree.Nodes() {
			if m.Kinds[v] != c.kind {
				t.Errorf("share %g: node %s is %v", c.share, m.Tree.Name(v), m.Kinds[v])
			}
		}
		if _, err := m.Sample(rand.NewPCG(1, 1), 10); err != nil {
			t.Error(err)
		}
	}
}

// With the defaults, edges are rarely near copies (information distance
// below −log 0.9, which learning contracts) or near independence (above
// 1, ρ < 0.37): at most 1% of the edges of 50 random models each (none
// at the time of writing).
func TestMixedEdgesNotCopies(t *testing.T) {
	short, long, all := 0, 0, 0
	for seed := range uint64(50) {
		m, err := RandomMixed(rand.NewPCG(seed, 9), 16, MinimalOptions{}, MixedOptions{ContinuousHidden: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range m.Tree.Edges() {
			d, err := m.InformationDistances([]int{e.U, e.V})
			if err != nil {
				t.Fatal(err)
			}
			all++
			if d[1] < -math.Log(0.9) {
				short++
			}
			if d[1] > 1 {
				long++
			}
		}
	}
	if short > all/100 || long > all/100 {
		t.Errorf("of %d edges, %d are shorter than −log 0.9 and %d longer than 1", all, short, long)
	}
}

// Observed internal nodes are discrete with the hidden nodes' states.
func TestMixedObservedInternal(t *testing.T) {
	internal := 0
	for seed := range uint64(10) {
		m, err := RandomMixed(rand.NewPCG(seed, 3), 15, MinimalOptions{ObservedInternalProb: 0.5}, MixedOptions{HiddenMin: 3, HiddenMax: 3, ObservedMin: 5, ObservedMax: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range m.Tree.Observed() {
			want := 5
			if m.Tree.Degree(v) > 1 {
				want = 3
				internal++
			}
			if m.Kinds[v] == data.Discrete && m.States[v] != want {
				t.Errorf("seed %d: observed %s of degree %d has %d states, want %d", seed, m.Tree.Name(v), m.Tree.Degree(v), m.States[v], want)
			}
		}
	}
	if internal == 0 {
		t.Error("no observed internal node in 10 trees")
	}
}
