package explain

import (
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/tree"
)

// explainMixed explains a conditional-Gaussian model. Everything is exact,
// from the model's parameters: given its nearest discrete ancestor a (its
// anchor), a continuous node's component (the continuous subtree it
// belongs to) is linear-Gaussian, and the anchors' joint distributions come
// from the discrete subtree (CPTs down, Bayes reversals up). Options.Data,
// when set, gives the discrete hidden variables' shares as mean posteriors
// (model.Model.Conditionals).
func explainMixed(m *mixed.Model, opt Options) (*Explanation, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	c := newCG(m)
	t := m.Tree
	r := c.r
	var obs, hidden []int
	depth := make([]int, t.MaxID())
	for _, v := range r.Order {
		if p := r.Parent[v]; p >= 0 {
			depth[v] = depth[p] + 1
		}
		if t.IsHidden(v) {
			hidden = append(hidden, v)
		}
	}
	obs = t.Observed()
	e := &Explanation{Kind: KindMixed, Hidden: make([]Hidden, len(hidden))}
	shares := make(map[int][]float64)
	classes := make(map[int]*Classification)
	var discHidden []int
	for _, h := range hidden {
		if m.Kinds[h] == data.Discrete {
			discHidden = append(discHidden, h)
			shares[h] = c.marg[h]
		}
	}
	if opt.Data != nil && len(discHidden) > 0 {
		cls, err := classifyNodes(m, opt.Data, discHidden, model.InferOptions{Workers: opt.Workers})
		if err != nil {
			return nil, err
		}
		for i, h := range discHidden {
			shares[h] = cls[i].ModelShares
			classes[h] = &cls[i]
			e.Rows = cls[i].Rows
		}
		e.FromData = true
	}
	top := opt.top()
	for i, h := range hidden {
		hl := Hidden{Node: h, Name: t.Name(h), Depth: depth[h], Kind: m.Kinds[h].String(), Classification: classes[h]}
		if p := r.Parent[h]; p >= 0 {
			hl.Parent = t.Name(p)
		}
		var rel []scored[Related]
		if m.Kinds[h] == data.Discrete {
			rel, hl.States = c.discreteHidden(h, obs, shares[h], top, opt.Profiles || len(hidden) == 1)
		} else {
			rel = c.continuousHidden(h, obs)
		}
		hl.Related = nonNil(topN(rel, top))
		hl.Label = label(hl.Related, opt.labelWords())
		e.Hidden[i] = hl
	}
	return e, nil
}

// cg holds what the explanation of a conditional-Gaussian model computes
// once: the discrete nodes' marginals and reversed edges, and every
// continuous node's anchor and moments given its anchor's state.
type cg struct {
	m *mixed.Model
	r *tree.Rooted
	// marg[v] is P(v) of discrete v; up[w] = P(parent(w) | w) of a
	// discrete non-root w, States[w]×States[parent].
	marg, up [][]float64
	// anchor[v] is the nearest discrete ancestor of continuous v (-1 when
	// the model has no discrete node); mu[v][a] and vr[v][a] are v's mean
	// and variance given anchor state a (one entry without an anchor).
	anchor  []int
	mu, vr  [][]float64
	mean    []float64 // E[v] of continuous v
	sd      []float64 // its standard deviation
	from    map[int][][]float64
	nStates func(a int) int
}

func newCG(m *mixed.Model) *cg {
	r := m.Rooted()
	n := m.Tree.MaxID()
	c := &cg{m: m, r: r, marg: make([][]float64, n), up: make([][]float64, n), anchor: make([]int, n),
		mu: make([][]float64, n), vr: make([][]float64, n), mean: make([]float64, n), sd: make([]float64, n),
		from: map[int][][]float64{}}
	c.nStates = func(a int) int {
		if a < 0 {
			return 1
		}
		return m.States[a]
	}
	for _, v := range r.Order {
		p := r.Parent[v]
		switch {
		case m.Kinds[v] == data.Discrete && p < 0:
			c.marg[v] = append([]float64(nil), m.Prior...)
		case m.Kinds[v] == data.Discrete:
			kv, kp := m.States[v], m.States[p]
			c.marg[v] = make([]float64, kv)
			for a := range kp {
				for b := range kv {
					c.marg[v][b] += c.marg[p][a] * m.CPT[v][a*kv+b]
				}
			}
			// P(p = a | v = b) = P(p = a) P(v = b | p = a) / P(v = b); the
			// parent's marginal where P(v = b) = 0.
			c.up[v] = make([]float64, kv*kp)
			for b := range kv {
				for a := range kp {
					if pb := c.marg[v][b]; pb > 0 {
						c.up[v][b*kp+a] = c.marg[p][a] * m.CPT[v][a*kv+b] / pb
					} else {
						c.up[v][b*kp+a] = c.marg[p][a]
					}
				}
			}
		case p < 0:
			c.anchor[v] = -1
			c.mu[v], c.vr[v] = []float64{m.Mean[v][0]}, []float64{m.Var[v][0]}
		case m.Kinds[p] == data.Discrete:
			c.anchor[v] = p
			c.mu[v], c.vr[v] = append([]float64(nil), m.Mean[v]...), append([]float64(nil), m.Var[v]...)
		default:
			c.anchor[v] = c.anchor[p]
			k := len(c.mu[p])
			c.mu[v], c.vr[v] = make([]float64, k), make([]float64, k)
			b := m.Coef[v]
			for a := range k {
				c.mu[v][a] = m.Mean[v][0] + b*c.mu[p][a]
				c.vr[v][a] = b*b*c.vr[p][a] + m.Var[v][0]
			}
		}
		if m.Kinds[v] == data.Continuous {
			pa := c.anchorMarg(c.anchor[v])
			e, e2 := 0.0, 0.0
			for a, w := range pa {
				e += w * c.mu[v][a]
				e2 += w * (c.vr[v][a] + c.mu[v][a]*c.mu[v][a])
			}
			c.mean[v], c.sd[v] = e, math.Sqrt(math.Max(0, e2-e*e))
		}
	}
	return c
}

// anchorMarg is the distribution of an anchor (one state of probability 1
// for -1).
func (c *cg) anchorMarg(a int) []float64 {
	if a < 0 {
		return []float64{1}
	}
	return c.marg[a]
}

// anchorCond is condFrom for an anchor, kept: the anchors are few (the
// discrete parents of continuous subtrees) and asked for again and again.
func (c *cg) anchorCond(a int) [][]float64 {
	if out, ok := c.from[a]; ok {
		return out
	}
	out := c.condFrom(a)
	c.from[a] = out
	return out
}

// condFrom returns P(z | h) for every discrete node z, row-major
// States[h]×States[z] (nil for continuous nodes), computed from h along the
// discrete subtree.
func (c *cg) condFrom(h int) [][]float64 {
	m, r := c.m, c.r
	kh := m.States[h]
	out := make([][]float64, m.Tree.MaxID())
	id := make([]float64, kh*kh)
	for a := range kh {
		id[a*kh+a] = 1
	}
	out[h] = id
	stack := [][2]int{{h, -1}}
	for len(stack) > 0 {
		w, prev := stack[len(stack)-1][0], stack[len(stack)-1][1]
		stack = stack[:len(stack)-1]
		step := func(z int, tr []float64) {
			kw, kz := m.States[w], m.States[z]
			dst := make([]float64, kh*kz)
			for a := range kh {
				for b, p := range out[w][a*kw : (a+1)*kw] {
					if p == 0 {
						continue
					}
					for s, q := range tr[b*kz : (b+1)*kz] {
						dst[a*kz+s] += p * q
					}
				}
			}
			out[z] = dst
			stack = append(stack, [2]int{z, w})
		}
		for _, z := range r.Children[w] {
			if z != prev && m.Kinds[z] == data.Discrete {
				step(z, m.CPT[z])
			}
		}
		if p := r.Parent[w]; p >= 0 && p != prev {
			step(p, c.up[w])
		}
	}
	return out
}

// joint returns P(a = i, b = j) of two anchors, row-major (diagonal when
// a = b; [1] for the missing anchor -1).
func (c *cg) joint(a, b int) []float64 {
	if a < 0 || b < 0 {
		return []float64{1}
	}
	ka, kb := c.m.States[a], c.m.States[b]
	cond := c.anchorCond(a)[b]
	out := make([]float64, ka*kb)
	for i := range ka {
		for j := range kb {
			out[i*kb+j] = c.marg[a][i] * cond[i*kb+j]
		}
	}
	return out
}

// covGiven returns Cov(x, y | anchor state a) of continuous x and y: 0 in
// different components, else the variance of their lowest common ancestor
// times the coefficients along the paths down to them.
func (c *cg) covGiven(x, y, a int) float64 {
	m, r := c.m, c.r
	// Coefficient products from each continuous ancestor of x down to x.
	prod := map[int]float64{}
	f := 1.0
	for v := x; v >= 0 && m.Kinds[v] == data.Continuous; v = r.Parent[v] {
		prod[v] = f
		f *= m.Coef[v]
	}
	g := 1.0
	for v := y; v >= 0 && m.Kinds[v] == data.Continuous; v = r.Parent[v] {
		if fx, ok := prod[v]; ok {
			return c.vr[v][a] * fx * g
		}
		g *= m.Coef[v]
	}
	return 0
}

// cov returns Cov(x, y) of continuous x and y: the mean of the
// conditional covariances over the anchor's states plus the covariance of
// the conditional means.
func (c *cg) cov(x, y int) float64 {
	ax, ay := c.anchor[x], c.anchor[y]
	s := 0.0
	if ax == ay {
		for a, w := range c.anchorMarg(ax) {
			s += w * c.covGiven(x, y, a)
		}
	}
	j := c.joint(ax, ay)
	ky := c.nStates(ay)
	for i := range c.nStates(ax) {
		for k := range ky {
			s += j[i*ky+k] * (c.mu[x][i] - c.mean[x]) * (c.mu[y][k] - c.mean[y])
		}
	}
	return s
}

// condMeans returns E[x | h = s] for every state s of discrete h and
// continuous x, given from = condFrom(h).
func (c *cg) condMeans(h, x int, from [][]float64) []float64 {
	kh := c.m.States[h]
	a := c.anchor[x]
	ka := c.m.States[a]
	cond := from[a]
	out := make([]float64, kh)
	for s := range kh {
		for i, p := range cond[s*ka : (s+1)*ka] {
			out[s] += p * c.mu[x][i]
		}
	}
	return out
}

// corrRatio returns η, the correlation ratio √(Var E[x | h] / Var x), of
// continuous x on discrete h given E[x | h = s] and P(h = s).
func corrRatio(means, ph []float64, mean, sd float64) float64 {
	if !(sd > 0) {
		return math.NaN()
	}
	v := 0.0
	for s, p := range ph {
		d := means[s] - mean
		v += p * d * d
	}
	return math.Min(1, math.Sqrt(v)/sd)
}

// canonical returns the first canonical correlation of two discrete
// variables with joint p (ka×kb row-major): the second singular value of
// P(a, b)/√(P(a) P(b)) (the first is 1), over the states of positive
// probability.
func canonical(p []float64, ka, kb int) float64 {
	pa, pb := make([]float64, ka), make([]float64, kb)
	for i := range ka {
		for j := range kb {
			pa[i] += p[i*kb+j]
			pb[j] += p[i*kb+j]
		}
	}
	var ia, ib []int
	for i, x := range pa {
		if x > 0 {
			ia = append(ia, i)
		}
	}
	for j, x := range pb {
		if x > 0 {
			ib = append(ib, j)
		}
	}
	if len(ia) < 2 || len(ib) < 2 {
		return 0
	}
	q := mat.NewDense(len(ia), len(ib), nil)
	for r, i := range ia {
		for s, j := range ib {
			q.Set(r, s, p[i*kb+j]/math.Sqrt(pa[i]*pb[j]))
		}
	}
	var svd mat.SVD
	if !svd.Factorize(q, mat.SVDNone) {
		return math.NaN()
	}
	sv := svd.Values(nil)
	return math.Max(0, math.Min(1, sv[1]))
}

// discreteHidden returns the related observed variables of discrete
// hidden h (by first canonical correlation) and its states: their shares,
// the discrete values whose probability rises most and the continuous
// variables whose mean shifts most.
func (c *cg) discreteHidden(h int, obs []int, share []float64, top int, profiles bool) ([]scored[Related], []State) {
	m, t := c.m, c.m.Tree
	kh := m.States[h]
	ph := c.marg[h]
	cond := c.condFrom(h)
	rel := make([]scored[Related], len(obs))
	means := make([][]float64, len(obs))
	for j, x := range obs {
		name := t.Name(x)
		if m.Kinds[x] == data.Discrete {
			kx := m.States[x]
			jt := make([]float64, kh*kx)
			for a := range kh {
				for b := range kx {
					jt[a*kx+b] = ph[a] * cond[x][a*kx+b]
				}
			}
			s := canonical(jt, kh, kx)
			rel[j] = scored[Related]{s, Related{Name: name, Strength: s, MI: mutualInfo(jt, ph, c.marg[x], kx)}}
			continue
		}
		means[j] = c.condMeans(h, x, cond)
		s := corrRatio(means[j], ph, c.mean[x], c.sd[x])
		rel[j] = scored[Related]{s, Related{Name: name, Strength: s}}
	}
	hlabels := stateLabels(m, h)
	states := make([]State, kh)
	rise := make([]scored[Rise], 0, len(obs))
	shift := make([]scored[Shift], 0, len(obs))
	for s := range kh {
		rise, shift = rise[:0], shift[:0]
		for j, x := range obs {
			if m.Kinds[x] == data.Continuous {
				if !(c.sd[x] > 0) {
					continue
				}
				z := (means[j][s] - c.mean[x]) / c.sd[x]
				if math.Abs(z) > riseTol {
					shift = append(shift, scored[Shift]{math.Abs(z), Shift{Name: t.Name(x), Mean: means[j][s], Base: c.mean[x], SD: c.sd[x], Z: z}})
				}
				continue
			}
			kx := m.States[x]
			best, bestB := riseTol, -1
			for b := range kx {
				if d := cond[x][s*kx+b] - c.marg[x][b]; d > best {
					best, bestB = d, b
				}
			}
			if bestB >= 0 {
				rise = append(rise, scored[Rise]{best, Rise{Name: t.Name(x), State: stateLabels(m, x)[bestB], Prob: cond[x][s*kx+bestB], Base: c.marg[x][bestB]}})
			}
		}
		states[s] = State{Label: hlabels[s], Share: share[s], Rising: nonNil(topN(rise, top)), Shifts: topN(shift, top)}
		if profiles {
			states[s].Profile = c.profile(h, s, obs, cond, means)
		}
	}
	return rel, states
}

// profile returns every observed variable's distribution given state s of
// discrete h: for a discrete one its most probable value and the
// distribution (cond = condFrom(h)), for a continuous one its mean (means
// by observed variable, from condMeans) and SD, Var(x | h = s) = Σ_a P(a
// | s) (Var(x | a) + E[x | a]²) − E[x | s]² over the states a of x's
// anchor.
func (c *cg) profile(h, s int, obs []int, cond, means [][]float64) []Answer {
	m, t := c.m, c.m.Tree
	out := make([]Answer, len(obs))
	for j, x := range obs {
		if m.Kinds[x] == data.Continuous {
			a := c.anchor[x]
			ka := m.States[a]
			e2 := 0.0
			for i, p := range cond[a][s*ka : (s+1)*ka] {
				e2 += p * (c.vr[x][i] + c.mu[x][i]*c.mu[x][i])
			}
			mu := means[j][s]
			out[j] = Answer{Name: t.Name(x), Continuous: true, Mean: mu, SD: math.Sqrt(math.Max(0, e2-mu*mu))}
			continue
		}
		kx := m.States[x]
		out[j] = discreteAnswer(t.Name(x), stateLabels(m, x), cond[x][s*kx:(s+1)*kx])
	}
	return out
}

// continuousHidden returns the observed variables related to continuous
// hidden h: continuous ones by |correlation| (signed in Corr), discrete
// ones by the correlation ratio of h on them.
func (c *cg) continuousHidden(h int, obs []int) []scored[Related] {
	m, t := c.m, c.m.Tree
	rel := make([]scored[Related], len(obs))
	ah := c.anchor[h]
	for j, x := range obs {
		name := t.Name(x)
		if m.Kinds[x] == data.Continuous {
			corr := math.NaN()
			if c.sd[h] > 0 && c.sd[x] > 0 {
				corr = math.Max(-1, math.Min(1, c.cov(h, x)/(c.sd[h]*c.sd[x])))
			}
			rel[j] = scored[Related]{math.Abs(corr), Related{Name: name, Strength: math.Abs(corr), Corr: corr}}
			continue
		}
		// E[h | x = b] = Σ_a P(anchor = a | x = b) E[h | anchor = a].
		kx := m.States[x]
		jt := c.joint(ah, x)
		ka := c.nStates(ah)
		means := make([]float64, kx)
		for b := range kx {
			w, s := 0.0, 0.0
			for a := range ka {
				w += jt[a*kx+b]
				s += jt[a*kx+b] * c.mu[h][a]
			}
			if w > 0 {
				means[b] = s / w
			} else {
				means[b] = c.mean[h]
			}
		}
		eta := corrRatio(means, c.marg[x], c.mean[h], c.sd[h])
		rel[j] = scored[Related]{eta, Related{Name: name, Strength: eta}}
	}
	return rel
}

// stateLabels returns the labels of discrete node v: its Labels, or "0",
// "1", ....
func stateLabels(m *mixed.Model, v int) []string {
	if v < len(m.Labels) && m.Labels[v] != nil {
		return m.Labels[v]
	}
	out := make([]string, m.States[v])
	for s := range out {
		out[s] = strconv.Itoa(s)
	}
	return out
}
