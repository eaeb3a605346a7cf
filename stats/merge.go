package stats

import (
	"errors"
	"fmt"
	"strings"

	"github.com/latentree/latentree/data"
)

// Merge adds the statistics of another shard, o, to s, so that s describes
// the rows of both. The shards must have the same variable names (their
// order may differ: s keeps its own) and each variable the same kind in
// both. Discrete states are aligned by label: a label that only o has is
// appended to the states of s, extending its marginal and tables. Counts
// add; means and second moments combine exactly by the pairwise update
// formulas of Chan, Golub and LeVeque. Both or neither must have pairs.
//
// A zero Stats is an empty shard: merging into one makes s a copy of o, and
// merging one into s changes nothing. On error s is unchanged. o is not modified, and may be s itself.
//
// The merged pair statistics may take at most DefaultMaxPairBytes, or as
// much as the larger of s and o if more (see Options.MaxPairBytes): states
// seen in one shard only can make them larger than either.
func (s *Stats) Merge(o *Stats) error { return s.merge(o, 0) }

// merge is Merge with the limit of the merged pair statistics: maxBytes
// (DefaultMaxPairBytes when zero), or the pair statistics of s or o if
// larger.
func (s *Stats) merge(o *Stats, maxBytes int64) error {
	if o == nil {
		return errors.New("stats: merge with nil statistics")
	}
	if o.index == nil {
		return nil
	}
	if s.index == nil {
		*s = *o.Clone()
		return nil
	}
	for _, v := range o.vars {
		if _, ok := s.index[v.Name]; !ok {
			return fmt.Errorf("stats: merge: variable %q is only in the merged shard", v.Name)
		}
	}
	for _, v := range s.vars {
		if _, ok := o.index[v.Name]; !ok {
			return fmt.Errorf("stats: merge: variable %q is missing from the merged shard", v.Name)
		}
	}
	if s.pairs != o.pairs {
		return errors.New("stats: merge: one shard has pair statistics and the other does not (NoPairs)")
	}
	p := len(s.vars)
	toS := make([]int, p) // o variable -> s variable
	toO := make([]int, p) // s variable -> o variable
	for k, v := range o.vars {
		j := s.index[v.Name]
		toS[k], toO[j] = j, k
		if sk := s.vars[j].Kind; sk != v.Kind {
			return fmt.Errorf("stats: merge: variable %q is %v in one shard and %v in the other", v.Name, sk, v.Kind)
		}
	}
	// States of the merged variables and the codes of o's states in them.
	vars := make([]data.Variable, p)
	oCode := make([][]int, p) // indexed by o variable
	for j, v := range s.vars {
		k := toO[j]
		if v.Kind == data.Continuous {
			v.States = nil
			vars[j] = v
			continue
		}
		ov := o.vars[k]
		codes := make([]int, len(ov.States))
		pos := make(map[string]int, len(v.States))
		for c, l := range v.States {
			pos[l] = c
		}
		states := v.States
		extended := false
		for c, l := range ov.States {
			if i, ok := pos[l]; ok {
				codes[c] = i
				continue
			}
			if !extended {
				states = append([]string(nil), v.States...)
				extended = true
			}
			codes[c] = len(states)
			pos[l] = len(states)
			states = append(states, l)
		}
		if len(states) > data.MaxStates {
			return fmt.Errorf("stats: merge: variable %q would have %d states, more than the maximum %d", v.Name, len(states), data.MaxStates)
		}
		v.States = append([]string(nil), states...)
		vars[j] = v
		oCode[k] = codes
	}
	if s.pairs {
		if maxBytes == 0 {
			maxBytes = DefaultMaxPairBytes
		}
		opt := Options{MaxPairBytes: max(maxBytes, pairBytes(s.lay), pairBytes(o.lay))}
		if err := opt.checkPairs(vars); err != nil {
			return fmt.Errorf("stats: merge: %s", strings.TrimPrefix(err.Error(), "stats: "))
		}
	}
	n := newStats(vars, s.pairs)
	n.rows = s.rows + o.rows
	if n.hasMix = s.hasMix && o.hasMix; !n.hasMix {
		n.mixM = nil
	}
	for j, v := range vars {
		k := toO[j]
		n.count[j] = s.count[j] + o.count[k]
		if v.Kind == data.Discrete {
			copy(n.marg[j], s.marg[j])
			for c, x := range o.marg[k] {
				n.marg[j][oCode[k][c]] += x
			}
			continue
		}
		m := mergeMoments(
			contPair{n: s.count[j], mi: s.mean[j], m2i: s.m2[j]},
			contPair{n: o.count[k], mi: o.mean[k], m2i: o.m2[k]})
		n.mean[j], n.m2[j] = m.mi, m.m2i
	}
	if s.pairs {
		n.mergeDiscretePairs(s, nil)
		n.mergeDiscretePairs(o, func(k int) (int, []int) { return toS[k], oCode[k] })
		n.mergeMixed(s, nil)
		n.mergeMixed(o, func(k int) (int, []int) { return toS[k], oCode[k] })
		q := len(n.lay.cvars)
		for a := 0; a < q; a++ {
			for b := a + 1; b < q; b++ {
				ja, jb := n.lay.cvars[a], n.lay.cvars[b]
				ka, kb := toO[ja], toO[jb]
				n.cp[tri(a, b, q)] = mergeMoments(
					s.contPair(a, b),
					o.contPair(o.lay.sub[ka], o.lay.sub[kb]))
			}
		}
	}
	*s = *n
	return nil
}

// mergeDiscretePairs adds the discrete pair tables of src to those of s.
// remap gives, for a variable of src, the variable of s and the codes of
// its states in s; nil means the same variables and codes.
func (s *Stats) mergeDiscretePairs(src *Stats, remap func(k int) (int, []int)) {
	nd := len(src.lay.dvars)
	for a := 0; a < nd; a++ {
		ka := src.lay.dvars[a]
		ja, codeA := ka, []int(nil)
		if remap != nil {
			ja, codeA = remap(ka)
		}
		na := src.lay.states(a)
		for b := a + 1; b < nd; b++ {
			kb := src.lay.dvars[b]
			jb, codeB := kb, []int(nil)
			if remap != nil {
				jb, codeB = remap(kb)
			}
			nb := src.lay.states(b)
			off := src.lay.offset(a, b)
			t := src.dtab[off : off+int64(na*nb)]
			pa, pb := s.lay.sub[ja], s.lay.sub[jb]
			swap := pa > pb
			if swap {
				pa, pb = pb, pa
			}
			doff := s.lay.offset(pa, pb)
			stride := s.lay.states(pb)
			dst := s.dtab[doff : doff+int64(s.lay.states(pa)*stride)]
			for x := 0; x < na; x++ {
				cx := x
				if codeA != nil {
					cx = codeA[x]
				}
				for y, c := range t[x*nb : (x+1)*nb] {
					cy := y
					if codeB != nil {
						cy = codeB[y]
					}
					if swap {
						dst[cy*stride+cx] += c
					} else {
						dst[cx*stride+cy] += c
					}
				}
			}
		}
	}
}

// mergeMixed adds the discrete–continuous pair counts of src, and when s
// keeps them the per-state moments, to those of s. remap is as in
// mergeDiscretePairs.
func (s *Stats) mergeMixed(src *Stats, remap func(k int) (int, []int)) {
	nc := len(s.lay.cvars)
	for a, ka := range src.lay.dvars {
		ja, codeA := ka, []int(nil)
		if remap != nil {
			ja, codeA = remap(ka)
		}
		pa := s.lay.sub[ja]
		for b, kb := range src.lay.cvars {
			jb := kb
			if remap != nil {
				jb, _ = remap(kb)
			}
			pb := s.lay.sub[jb]
			s.mixN[pa*nc+pb] += src.mixN[a*len(src.lay.cvars)+b]
			if !s.hasMix {
				continue
			}
			for x := range src.lay.states(a) {
				cx := x
				if codeA != nil {
					cx = codeA[x]
				}
				dst := &s.mixM[s.lay.mixIndex(pa, cx, pb)]
				*dst = mergeMoments(*dst, src.mixM[src.lay.mixIndex(a, x, b)])
			}
		}
	}
}

// mergeMoments combines the moments of two disjoint sets of rows.
func mergeMoments(x, y contPair) contPair {
	if y.n == 0 {
		return x
	}
	if x.n == 0 {
		return y
	}
	n := x.n + y.n
	fn := float64(n)
	w := float64(x.n) * float64(y.n) / fn
	di, dj := y.mi-x.mi, y.mj-x.mj
	return contPair{
		n:   n,
		mi:  x.mi + di*float64(y.n)/fn,
		mj:  x.mj + dj*float64(y.n)/fn,
		m2i: x.m2i + y.m2i + di*di*w,
		m2j: x.m2j + y.m2j + dj*dj*w,
		c:   x.c + y.c + di*dj*w,
	}
}
