package discrete

import (
	"fmt"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// Surrogates returns, for every node, the observed node nearest to it in
// the tree (by the sum of edge lengths, counting unknown lengths as 1; the
// node itself if observed). Choi et al. (2011, §5.2) call it the
// surrogate of a hidden node.
func (m *Model) Surrogates() []int { return model.Surrogates(m.Tree) }

// InitSurrogate sets the parameters from the data as if every hidden node
// were a copy of its surrogate: the CPT of an edge p → v is the empirical
// conditional distribution of v's surrogate given p's surrogate, mixed
// with the uniform distribution (weight mix, default 0.1 when 0) so that
// no probability is 0. A hidden node's states are matched to its
// surrogate's states modulo its number of states. This moment-based start
// puts EM near a good optimum at once.
func (m *Model) InitSurrogate(d *data.Dataset, mix float64) error {
	if mix == 0 {
		mix = 0.1
	}
	if mix < 0 || mix > 1 {
		return fmt.Errorf("model: mixing weight %g outside [0, 1]", mix)
	}
	b, err := m.bind(d)
	if err != nil {
		return err
	}
	sur := m.Surrogates()
	r := m.Rooted()
	// state of node v in row i as seen through its surrogate, or −1.
	state := func(v, i int) int {
		s := sur[v]
		c := b.codes[s][i]
		if c == data.Missing {
			return -1
		}
		return int(b.remap[s][c]) % m.States[v]
	}
	for _, v := range r.Order {
		k := m.States[v]
		if v == m.Root {
			cnt := make([]float64, k)
			for i := 0; i < b.rows; i++ {
				if x := state(v, i); x >= 0 {
					cnt[x] += b.w(i)
				}
			}
			mixInto(m.Prior, cnt, 1, k, mix)
			continue
		}
		p := r.Parent[v]
		kp := m.States[p]
		cnt := make([]float64, kp*k)
		for i := 0; i < b.rows; i++ {
			a, x := state(p, i), state(v, i)
			if a >= 0 && x >= 0 {
				cnt[a*k+x] += b.w(i)
			}
		}
		mixInto(m.CPT[v], cnt, kp, k, mix)
	}
	return nil
}

// mixInto sets each row of dst to (1−mix)·(normalised src row) + mix/k, or
// to uniform when the row has no counts.
func mixInto(dst, src []float64, rows, k int, mix float64) {
	for a := 0; a < rows; a++ {
		s := 0.0
		for x := 0; x < k; x++ {
			s += src[a*k+x]
		}
		for x := 0; x < k; x++ {
			if s > 0 {
				dst[a*k+x] = (1-mix)*src[a*k+x]/s + mix/float64(k)
			} else {
				dst[a*k+x] = 1 / float64(k)
			}
		}
	}
}

// startSpectral projects the spectral estimate (model.Fit with
// model.ParamsSpectral: the spectral family must be registered) onto m
// (model.InitSpectral).
func startSpectral(m *Model, t *tree.Tree, d *data.Dataset, opt model.FitOptions, k, workers int) error {
	s, _, err := model.Fit(t, d, model.FitOptions{HiddenStates: k, Params: model.ParamsSpectral, Linker: opt.Linker, SpectralTol: opt.SpectralTol, EM: model.EMOptions{Workers: workers}})
	if err != nil {
		return err
	}
	p, ok := s.(interface{ Project(*Model) (int, error) })
	if !ok {
		return fmt.Errorf("model: a %T cannot start EM (it has no Project method)", s)
	}
	_, err = p.Project(m)
	return err
}
