package explain

import (
	"errors"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// discrete explains a discrete model.
func discrete(m *model.Discrete, opt Options) (*Explanation, error) {
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
		post, err := m.Posterior(opt.Data, hidden, model.InferOptions{Workers: opt.Workers})
		if err != nil {
			return nil, err
		}
		for i, h := range hidden {
			mean, used := meanPosterior(post[i], m.States[h])
			if used == 0 {
				return nil, errors.New("explain: every row of the data has probability 0 under the model")
			}
			shares[i] = mean
			e.Rows = used
		}
		e.FromData = true
	}
	labels := make([][]string, t.MaxID())
	for _, x := range obs {
		labels[x] = m.StateLabels(x)
	}
	top := opt.top()
	for i, h := range hidden {
		cond := conditionals(m, r, h, marg)
		kh := m.States[h]
		rel := make([]scored[Related], len(obs))
		for j, x := range obs {
			kx := m.States[x]
			joint := make([]float64, kh*kx)
			for a := 0; a < kh; a++ {
				for b := 0; b < kx; b++ {
					joint[a*kx+b] = marg[h][a] * cond[x][a*kx+b]
				}
			}
			mi := mutualInfo(joint, marg[h], marg[x], kx)
			rel[j] = scored[Related]{mi, Related{Name: t.Name(x), MI: mi}}
		}
		hl := Hidden{Node: h, Name: t.Name(h), Depth: depth[h], Related: topN(rel, top)}
		hl.Label = label(hl.Related, opt.labelWords())
		if p := r.Parent[h]; p >= 0 {
			hl.Parent = t.Name(p)
		}
		hlabels := m.StateLabels(h)
		for s := 0; s < kh; s++ {
			var rise []scored[Rise]
			for _, x := range obs {
				kx := m.States[x]
				best, bestB := riseTol, -1
				for b := 0; b < kx; b++ {
					if d := cond[x][s*kx+b] - marg[x][b]; d > best {
						best, bestB = d, b
					}
				}
				if bestB >= 0 {
					rise = append(rise, scored[Rise]{best, Rise{Name: t.Name(x), State: labels[x][bestB],
						Prob: cond[x][s*kx+bestB], Base: marg[x][bestB]}})
				}
			}
			hl.States = append(hl.States, State{Label: hlabels[s], Share: shares[i][s], Rising: nonNil(topN(rise, top))})
		}
		e.Hidden[i] = hl
	}
	return e, nil
}

// nonNil returns an empty slice for nil, so that JSON has [] not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// conditionals returns P(z | h) for every node z of the tree, row-major
// States[h]×States[z] (row = state of h), in one pass from h: down an
// edge the CPT, up an edge its Bayes reversal with the marginals.
func conditionals(m *model.Discrete, r *tree.Rooted, h int, marg [][]float64) [][]float64 {
	t := m.Tree
	kh := m.States[h]
	out := make([][]float64, t.MaxID())
	id := make([]float64, kh*kh)
	for a := 0; a < kh; a++ {
		id[a*kh+a] = 1
	}
	out[h] = id
	stack := []int{h}
	for len(stack) > 0 {
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		kw := m.States[w]
		for _, z := range t.Neighbors(w) {
			if out[z] != nil {
				continue
			}
			kz := m.States[z]
			step := stepTable(m, r, w, z, marg)
			c := make([]float64, kh*kz)
			for a := 0; a < kh; a++ {
				row := out[w][a*kw : (a+1)*kw]
				dst := c[a*kz : (a+1)*kz]
				for b, p := range row {
					if p == 0 {
						continue
					}
					for s, q := range step[b*kz : (b+1)*kz] {
						dst[s] += p * q
					}
				}
			}
			out[z] = c
			stack = append(stack, z)
		}
	}
	return out
}

// stepTable returns P(z | w) for adjacent w and z, row-major
// States[w]×States[z].
func stepTable(m *model.Discrete, r *tree.Rooted, w, z int, marg [][]float64) []float64 {
	if r.Parent[z] == w {
		return m.CPT[z]
	}
	// z is w's parent: P(z=a | w=b) = P(w=b | z=a) P(z=a) / P(w=b).
	kw, kz := m.States[w], m.States[z]
	step := make([]float64, kw*kz)
	cw := m.CPT[w]
	for b := 0; b < kw; b++ {
		if marg[w][b] <= 0 {
			continue
		}
		for a := 0; a < kz; a++ {
			step[b*kz+a] = cw[a*kw+b] * marg[z][a] / marg[w][b]
		}
	}
	return step
}
