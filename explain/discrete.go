package explain

import (
	"math"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/tree"
)

// explainDiscrete explains a discrete model.
func explainDiscrete(m *discrete.Model, opt Options) (*Explanation, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	t := m.Tree
	r := m.Rooted()
	marg := m.Marginals()
	obs := t.Observed()
	var hidden []int
	depth := make([]int, t.MaxID())
	for _, v := range r.Order {
		if p := r.Parent[v]; p >= 0 {
			depth[v] = depth[p] + 1
		}
		if t.IsHidden(v) {
			hidden = append(hidden, v)
		}
	}
	e := &Explanation{Kind: KindDiscrete, Hidden: make([]Hidden, len(hidden))}
	shares := make([][]float64, len(hidden))
	for i, h := range hidden {
		shares[i] = marg[h]
	}
	if opt.Data != nil && len(hidden) > 0 {
		cls, err := classifyNodes(m, opt.Data, hidden, model.InferOptions{Workers: opt.Workers})
		if err != nil {
			return nil, err
		}
		for i := range hidden {
			shares[i] = cls[i].ModelShares
			e.Rows = cls[i].Rows
			e.Hidden[i].Classification = &cls[i]
		}
		e.FromData = true
	}
	labels := make([][]string, t.MaxID())
	for _, x := range obs {
		labels[x] = m.StateLabels(x)
	}
	top := opt.top()
	c := newConditioner(m, r, marg)
	mi := make([]float64, len(obs))
	rise := make([]float64, len(obs))
	riseState := make([]int, len(obs))
	for i, h := range hidden {
		cond := c.from(h)
		kh := m.States[h]
		ph := marg[h]
		for j, x := range obs {
			kx, px, cx := m.States[x], marg[x], cond[x]
			v := 0.0
			for a := 0; a < kh; a++ {
				for b := 0; b < kx; b++ {
					// P(h=a, x=b) = P(h=a) P(x=b | h=a)
					if p := ph[a] * cx[a*kx+b]; p > 0 && px[b] > 0 {
						v += p * math.Log(p/(ph[a]*px[b]))
					}
				}
			}
			mi[j] = max(v, 0)
		}
		hl := Hidden{Node: h, Name: t.Name(h), Depth: depth[h]}
		for _, j := range topIndices(mi, top) {
			hl.Related = append(hl.Related, Related{Name: t.Name(obs[j]), MI: mi[j]})
		}
		hl.Related = nonNil(hl.Related)
		hl.Label = label(hl.Related, opt.labelWords())
		if p := r.Parent[h]; p >= 0 {
			hl.Parent = t.Name(p)
		}
		hlabels := m.StateLabels(h)
		for s := 0; s < kh; s++ {
			for j, x := range obs {
				kx := m.States[x]
				best, bestB := riseTol, -1
				for b := 0; b < kx; b++ {
					if d := cond[x][s*kx+b] - marg[x][b]; d > best {
						best, bestB = d, b
					}
				}
				rise[j], riseState[j] = best, bestB
			}
			st := State{Label: hlabels[s], Share: shares[i][s], Rising: []Rise{}}
			for _, j := range topIndices(rise, top) {
				x, b := obs[j], riseState[j]
				if b < 0 {
					break // no rise: the rest have none either
				}
				kx := m.States[x]
				st.Rising = append(st.Rising, Rise{Name: t.Name(x), State: labels[x][b], Prob: cond[x][s*kx+b], Base: marg[x][b]})
			}
			if opt.Profiles || len(hidden) == 1 {
				st.Profile = profile(m, obs, labels, cond, s)
			}
			hl.States = append(hl.States, st)
		}
		hl.Classification = e.Hidden[i].Classification
		e.Hidden[i] = hl
	}
	return e, nil
}

// profile returns every observed variable's distribution given state s of
// the hidden variable whose conditionals cond holds.
func profile(m *discrete.Model, obs []int, labels [][]string, cond [][]float64, s int) []Answer {
	out := make([]Answer, len(obs))
	for j, x := range obs {
		kx := m.States[x]
		out[j] = discreteAnswer(m.Tree.Name(x), labels[x], cond[x][s*kx:(s+1)*kx])
	}
	return out
}

// discreteAnswer is the Answer of a discrete variable with the given state
// labels and distribution p (copied): its most probable state (the first
// of ties) and p.
func discreteAnswer(name string, labels []string, p []float64) Answer {
	p = append([]float64(nil), p...)
	mode := 0
	for b := range p {
		if p[b] > p[mode] {
			mode = b
		}
	}
	return Answer{Name: name, Mode: labels[mode], Prob: p[mode], States: labels, Probs: p}
}

// nonNil returns an empty slice for nil, so that JSON has [] not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// conditioner computes P(z | h) for every node z of the tree and a given
// node h in one pass from h: down an edge the CPT, up an edge its Bayes
// reversal with the marginals (computed once per edge). Its buffers are
// reused from one h to the next.
type conditioner struct {
	m     *discrete.Model
	r     *tree.Rooted
	up    [][]float64 // up[w] = P(parent(w) | w), States[w]×States[parent]
	cond  [][]float64 // cond[z] = P(z | h), States[h]×States[z]
	stack [][2]int    // node, the neighbour it was reached from
}

func newConditioner(m *discrete.Model, r *tree.Rooted, marg [][]float64) *conditioner {
	n := m.Tree.MaxID()
	c := &conditioner{m: m, r: r, up: make([][]float64, n), cond: make([][]float64, n)}
	kmax := 0
	for _, v := range r.Order {
		kmax = max(kmax, m.States[v])
	}
	for _, w := range r.Order {
		c.cond[w] = make([]float64, kmax*m.States[w])
		z := r.Parent[w]
		if z < 0 {
			continue
		}
		c.up[w] = m.Transition(r, w, z, marg) // P(z | w), z the parent
	}
	return c
}

// from returns P(z | h) for every node z, row-major States[h]×States[z]
// (row = state of h); valid until the next call.
func (c *conditioner) from(h int) [][]float64 {
	m, r := c.m, c.r
	kh := m.States[h]
	id := c.cond[h][:kh*kh]
	clear(id)
	for a := 0; a < kh; a++ {
		id[a*kh+a] = 1
	}
	out := make([][]float64, len(c.cond))
	out[h] = id
	c.stack = append(c.stack[:0], [2]int{h, -1})
	for len(c.stack) > 0 {
		top := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		w, from := top[0], top[1]
		visit := func(z int, step []float64) {
			kw, kz := m.States[w], m.States[z]
			dst := c.cond[z][:kh*kz]
			clear(dst)
			src := out[w]
			for a := 0; a < kh; a++ {
				row := src[a*kw : (a+1)*kw]
				d := dst[a*kz : (a+1)*kz]
				for b, p := range row {
					if p == 0 {
						continue
					}
					for s, q := range step[b*kz : (b+1)*kz] {
						d[s] += p * q
					}
				}
			}
			out[z] = dst
			c.stack = append(c.stack, [2]int{z, w})
		}
		for _, z := range r.Children[w] {
			if z != from {
				visit(z, m.CPT[z])
			}
		}
		if p := r.Parent[w]; p >= 0 && p != from {
			visit(p, c.up[w])
		}
	}
	return out
}
