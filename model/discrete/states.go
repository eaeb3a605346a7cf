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

// MergeStates merges state b of hidden node h into state a, leaving h
// one state fewer (states above b move down by one): the new state a
// takes the probability of both in h's CPT (or the prior), and the CPTs
// of h's children given it are the average of their rows given a and b,
// weighted by h's marginal probabilities of a and b. It undoes AddState
// up to the perturbation, and starts EM from a model with one state
// fewer that is close to m.
func (m *Model) MergeStates(h, a, b int) error {
	t := m.Tree
	if !t.Has(h) || !t.IsHidden(h) {
		return fmt.Errorf("model: node %d is not a hidden node", h)
	}
	k := m.States[h]
	if a < 0 || b < 0 || a >= k || b >= k || a == b {
		return fmt.Errorf("model: cannot merge states %d and %d of a node with %d states", a, b, k)
	}
	if k < 2 {
		return fmt.Errorf("model: node %s has one state", t.Name(h))
	}
	r := m.Rooted()
	marg := m.Marginals()[h]
	wa, wb := marg[a], marg[b]
	if !(wa+wb > 0) {
		wa, wb = 1, 1
	}
	wa, wb = wa/(wa+wb), wb/(wa+wb)
	// narrow sums column b into column a of every row and drops it.
	narrow := func(rows []float64, nrows int) []float64 {
		out := make([]float64, 0, nrows*(k-1))
		for i := 0; i < nrows; i++ {
			row := rows[i*k : (i+1)*k]
			for s, p := range row {
				switch s {
				case a:
					out = append(out, p+row[b])
				case b:
				default:
					out = append(out, p)
				}
			}
		}
		return out
	}
	if h == m.Root {
		m.Prior = narrow(m.Prior, 1)
	} else {
		m.CPT[h] = narrow(m.CPT[h], m.States[r.Parent[h]])
	}
	for _, c := range r.Children[h] {
		kc := m.States[c]
		rows := m.CPT[c]
		out := make([]float64, 0, (k-1)*kc)
		for s := 0; s < k; s++ {
			switch s {
			case a:
				for x := 0; x < kc; x++ {
					out = append(out, wa*rows[a*kc+x]+wb*rows[b*kc+x])
				}
			case b:
			default:
				out = append(out, rows[s*kc:(s+1)*kc]...)
			}
		}
		m.CPT[c] = out
	}
	m.States[h] = k - 1
	return nil
}

// closestStates returns the two states of hidden node h whose merge loses
// the least: the pair (a, b) minimising
// wa·wb/(wa+wb) · Σ_children ‖P(c | a) − P(c | b)‖², with wa and wb
// h's marginal probabilities of a and b, and a the more probable one.
func (m *Model) closestStates(h int, marg []float64) (int, int) {
	r := m.Rooted()
	k := m.States[h]
	bestA, bestB, best := 0, 1, math.Inf(1)
	for a := 0; a < k; a++ {
		for b := a + 1; b < k; b++ {
			d := 0.0
			for _, c := range r.Children[h] {
				kc := m.States[c]
				for x := 0; x < kc; x++ {
					diff := m.CPT[c][a*kc+x] - m.CPT[c][b*kc+x]
					d += diff * diff
				}
			}
			w := 0.0
			if s := marg[a] + marg[b]; s > 0 {
				w = marg[a] * marg[b] / s
			}
			if c := w * d; c < best {
				bestA, bestB, best = a, b, c
			}
		}
	}
	if marg[bestB] > marg[bestA] {
		bestA, bestB = bestB, bestA
	}
	return bestA, bestB
}

// trialTol stops the short EM runs that judge a split or a merge: they
// only rank candidates, so they stop earlier than the final fit.
const trialTol = 1e-5

// DefaultUniformMax is the largest uniform number of hidden states that
// model.Fit with AutoStates tries before it refines node by node.
const DefaultUniformMax = 5

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
// BIC, starting from the fitted model m: node by node (highest degree
// first), it tries to merge the two closest states of the node (see
// MergeStates) and, when no merge is kept, to split its most probable
// state (see AddState); each trial is a short EM run from the moved model,
// and a move is kept when the BIC on d of the trial's fit is below that of
// the current model. A node keeps merging (down to 2 states) or splitting
// (up to Max) while the BIC improves. All parameters are then refined by
// EM. The result's BIC is never above that of m's parameters (EM does not
// lower the likelihood). It returns the new model (m is not changed), its
// final EM run and the number of moves kept.
func ChooseHiddenStates(m *Model, d *data.Dataset, opt StatesOptions) (*Model, *model.EMResult, int, error) {
	chosen, moves, res, err := chooseHiddenStates(m, d, opt)
	return chosen, res, moves, err
}

// bicOf is −2 log L + κ log n.
func bicOf(m *Model, ll float64, n float64) float64 {
	return -2*ll + float64(m.NumParams())*math.Log(n)
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
	n := d.SampleSize()
	cur := m.Clone()
	cur.rooted = m.rooted
	_, ll, err := cur.LogLikelihood(d, model.InferOptions{Workers: opt.EM.Workers})
	if err != nil {
		return nil, 0, nil, err
	}
	best := bicOf(cur, ll, n)
	hidden := cur.Tree.Hidden()
	// Highest degree first.
	for i := 1; i < len(hidden); i++ {
		for j := i; j > 0 && cur.Tree.Degree(hidden[j]) > cur.Tree.Degree(hidden[j-1]); j-- {
			hidden[j], hidden[j-1] = hidden[j-1], hidden[j]
		}
	}
	// try fits a moved copy of cur briefly and keeps it when its BIC is
	// lower.
	try := func(move func(*Model) error) (bool, error) {
		cand := cur.Clone()
		cand.rooted = cur.rooted
		if err := move(cand); err != nil {
			return false, err
		}
		res, err := cand.FitEM(d, model.EMOptions{Restarts: -1, KeepInit: true, MaxIter: trial, Tol: trialTol, Stop: model.StopRelative,
			Workers: opt.EM.Workers, Pseudo: opt.EM.Pseudo, Accel: opt.EM.Accel})
		if err != nil {
			return false, err
		}
		if b := bicOf(cand, res.LogLik, n); b < best {
			cur, best = cand, b
			return true, nil
		}
		return false, nil
	}
	moves := 0
	for _, h := range hidden {
		merged := false
		for cur.States[h] > 2 {
			a, b := cur.closestStates(h, cur.Marginals()[h])
			ok, err := try(func(c *Model) error { return c.MergeStates(h, a, b) })
			if err != nil {
				return nil, 0, nil, err
			}
			if !ok {
				break
			}
			merged = true
			moves++
		}
		for !merged && cur.States[h] < maxK {
			ok, err := try(func(c *Model) error { return c.AddState(h, rng) })
			if err != nil {
				return nil, 0, nil, err
			}
			if !ok {
				break
			}
			moves++
		}
	}
	final := opt.EM
	final.Restarts, final.KeepInit = -1, true
	res, err := cur.FitEM(d, final)
	if err != nil {
		return nil, 0, nil, err
	}
	return cur, moves, res, nil
}
