package discrete

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
)

// AddState gives hidden node h one more state by splitting its most
// probable state in two: the new state takes half of that state's
// probability in h's CPT (or the prior), and the CPTs of h's children
// given the new state copy those of the split state, perturbed by rng so
// that EM can tell the two apart. The distribution of the observed
// variables is unchanged up to the perturbation.
func (m *Model) AddState(h int, src rand.Source) error {
	if src == nil {
		return model.ErrNoSource
	}
	rng := rand.New(src)
	t := m.Tree
	if !t.Has(h) || !t.IsHidden(h) {
		return fmt.Errorf("model: node %d is not a hidden node", h)
	}
	r := m.Rooted()
	k := m.States[h]
	marg := m.Marginals()[h]
	split := 0
	for s := range marg {
		if marg[s] > marg[split] {
			split = s
		}
	}
	widen := func(rows []float64, nrows int) []float64 {
		out := make([]float64, nrows*(k+1))
		for a := 0; a < nrows; a++ {
			copy(out[a*(k+1):a*(k+1)+k], rows[a*k:(a+1)*k])
			half := out[a*(k+1)+split] / 2
			out[a*(k+1)+split], out[a*(k+1)+k] = half, half
		}
		return out
	}
	if h == m.Root {
		m.Prior = widen(m.Prior, 1)
	} else {
		m.CPT[h] = widen(m.CPT[h], m.States[r.Parent[h]])
	}
	for _, c := range r.Children[h] {
		kc := m.States[c]
		rows := append([]float64(nil), m.CPT[c]...)
		base := rows[split*kc : (split+1)*kc]
		fresh := make([]float64, kc)
		s := 0.0
		for x := range fresh {
			fresh[x] = base[x] * (0.8 + 0.4*rng.Float64())
			s += fresh[x]
		}
		for x := range fresh {
			fresh[x] /= s
		}
		m.CPT[c] = append(rows, fresh...)
	}
	m.States[h] = k + 1
	return nil
}

// trialTol stops the short EM runs that judge one more hidden state: they
// only rank candidates, so they stop earlier than the final fit.
const trialTol = 1e-5

// StatesOptions configures ChooseHiddenStates.
type StatesOptions struct {
	// Max is the largest number of states tried per hidden node
	// (default 8).
	Max int
	// TrialIter bounds the EM iterations of each trial (default 30).
	TrialIter int
	// EM configures the final EM run.
	EM model.EMOptions
	// Src perturbs split states (nil: the fixed seed rand.NewPCG(1, 8)).
	Src rand.Source
}

// ChooseHiddenStates chooses the number of states of every hidden node by
// BIC: starting from the fitted model m, it tries, node by node (highest
// degree first), one more state (splitting the most probable one, then a
// short EM); a node keeps the extra state while the BIC on d improves, up
// to Max. All parameters are then refined by EM. It returns the new model
// (m is not changed) and the number of accepted splits.
func ChooseHiddenStates(m *Model, d *data.Dataset, opt StatesOptions) (*Model, int, error) {
	chosen, splits, _, err := chooseHiddenStates(m, d, opt)
	return chosen, splits, err
}

// chooseHiddenStates is ChooseHiddenStates that also returns the final EM
// run of the chosen model.
func chooseHiddenStates(m *Model, d *data.Dataset, opt StatesOptions) (*Model, int, *model.EMResult, error) {
	if d == nil || d.NumRows() == 0 {
		return nil, 0, nil, errors.New("model: no data")
	}
	maxK := opt.Max
	if maxK == 0 {
		maxK = 8
	}
	trial := opt.TrialIter
	if trial == 0 {
		trial = 30
	}
	rng := seed.Rand(opt.Src, seed.States)
	logn := math.Log(float64(d.NumRows()))
	bic := func(mm *Model, ll float64) float64 { return -2*ll + float64(mm.NumParams())*logn }
	cur := m.Clone()
	cur.rooted = m.rooted
	_, ll, err := cur.LogLikelihood(d, model.InferOptions{Workers: opt.EM.Workers})
	if err != nil {
		return nil, 0, nil, err
	}
	best := bic(cur, ll)
	hidden := cur.Tree.Hidden()
	// Highest degree first.
	for i := 1; i < len(hidden); i++ {
		for j := i; j > 0 && cur.Tree.Degree(hidden[j]) > cur.Tree.Degree(hidden[j-1]); j-- {
			hidden[j], hidden[j-1] = hidden[j-1], hidden[j]
		}
	}
	accepted := 0
	for _, h := range hidden {
		for cur.States[h] < maxK {
			cand := cur.Clone()
			cand.rooted = cur.rooted
			if err := cand.AddState(h, rng); err != nil {
				return nil, 0, nil, err
			}
			res, err := cand.FitEM(d, model.EMOptions{Restarts: -1, MaxIter: trial, Tol: trialTol, Workers: opt.EM.Workers, Pseudo: opt.EM.Pseudo, Accel: opt.EM.Accel, Stop: opt.EM.Stop})
			if err != nil {
				return nil, 0, nil, err
			}
			if b := bic(cand, res.LogLik); b < best {
				cur, best = cand, b
				accepted++
				continue
			}
			break
		}
	}
	final := opt.EM
	final.Restarts, final.KeepInit = -1, true
	res, err := cur.FitEM(d, final)
	if err != nil {
		return nil, 0, nil, err
	}
	return cur, accepted, res, nil
}
