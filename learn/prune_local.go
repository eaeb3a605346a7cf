package learn

import (
	"cmp"
	"errors"
	"runtime"
	"slices"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

// scoreFunc is contractByBIC's candidate score (structure.ScoreFunc).
type scoreFunc = structure.ScoreFunc[pruneState]

// contractLocal is the contraction search of a discrete tree with local
// scores (PruneOptions.Refit false). Each round scores every edge at a
// hidden node of the current tree against the current model's messages
// (discrete.Contractor), takes the improving candidates best first, and
// keeps the best one together with every later one whose nodes and their
// neighbours share none with those already kept; the kept local fits are
// put together (discrete.Model.WithLocal) and the result, whose
// log-likelihood the next round's messages give exactly, replaces the
// current model when it scores at least the best candidate alone (else
// the best candidate alone does). Rounds stop when no candidate improves
// the score or after MaxEvals scorings. A candidate scored in an earlier
// round starts its local fit from its last one (pruneState.starts). The
// result does not depend on Workers: candidates are scored in parallel
// but compared in a fixed order. The input tree is scored with score(t,
// nil, false). ops puts the kept local fits together and scores the
// result (discreteOps, gaussianOps).
func contractLocal(t *tree.Tree, ops localOps, score scoreFunc, negScore func(float64, model.Model) float64, margin float64, opt PruneOptions, progress func(evaluated, contracted int)) (*structure.ContractResult[pruneState], error) {
	workers := opt.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	base := t.Clone()
	bs, bst, err := score(base, nil, false)
	if err != nil {
		return nil, err
	}
	res := &structure.ContractResult[pruneState]{Initial: bs, InitialState: bst}
	type cand struct{ keep, drop int }
	type outcome struct {
		t     *tree.Tree
		score float64
		state *pruneState
		err   error
	}
	// gain holds each candidate's last score less the score of the tree it
	// was scored on; changed the nodes within one edge of a kept
	// contraction in the last round.
	var gain map[[2]int]float64
	// fits holds each candidate's last local fit (discrete search), by
	// edge.
	fits := map[[2]int]*discrete.Local{}
	changed := map[int]bool{}
	near := func(c cand) bool { return changed[c.keep] || changed[c.drop] }
	for {
		var cands []cand
		for _, e := range base.Edges() {
			hu, hv := base.IsHidden(e.U), base.IsHidden(e.V)
			if !hu && !hv || opt.HiddenOnly && !(hu && hv) {
				continue
			}
			c := cand{e.U, e.V}
			if !hv {
				c = cand{e.V, e.U}
			}
			cands = append(cands, c)
		}
		slices.SortFunc(cands, func(a, b cand) int {
			return cmp.Or(cmp.Compare(min(a.keep, a.drop), min(b.keep, b.drop)), cmp.Compare(max(a.keep, a.drop), max(b.keep, b.drop)))
		})
		if gain != nil {
			// Rescore only the candidates near a kept contraction, new
			// ones, and those that came within margin of improving.
			kept := cands[:0]
			for _, c := range cands {
				g, seen := gain[edgeKey(c.keep, c.drop)]
				if !seen || g > -margin || near(c) {
					kept = append(kept, c)
				}
			}
			cands = kept
		}
		// A candidate scored before continues its local EM from its last
		// fit when its merged node has the same neighbours (fits is
		// written only between rounds).
		bst.starts = fits
		if opt.MaxEvals > 0 {
			cands = cands[:min(len(cands), opt.MaxEvals-res.Evaluated)]
		}
		if len(cands) == 0 {
			break
		}
		out := make([]outcome, len(cands))
		parallel.For(min(workers, len(cands)), len(cands), func(_, i int) {
			if ops.scoreEdge != nil {
				// The candidate's tree is made when it is kept.
				s, st, err := ops.scoreEdge(base, cands[i].keep, cands[i].drop, bst)
				out[i] = outcome{nil, s, st, err}
				return
			}
			ct := base.Clone()
			if err := ct.Contract(cands[i].keep, cands[i].drop); err != nil {
				out[i].err = err
				return
			}
			s, st, err := score(ct, bst, true)
			out[i] = outcome{ct, s, st, err}
		})
		res.Evaluated += len(cands)
		if gain == nil {
			gain = map[[2]int]float64{}
		}
		var better []int
		for i, o := range out {
			if o.err != nil {
				return nil, o.err
			}
			gain[edgeKey(cands[i].keep, cands[i].drop)] = o.score - bs
			if o.state != nil && o.state.local != nil {
				fits[edgeKey(cands[i].keep, cands[i].drop)] = o.state.local
			}
			if o.score > bs {
				better = append(better, i)
			}
		}
		if len(better) == 0 {
			if ops.lastRound != nil {
				edges, states := make([][2]int, len(cands)), make([]*pruneState, len(cands))
				for i, c := range cands {
					edges[i], states[i] = [2]int{c.keep, c.drop}, out[i].state
				}
				ops.lastRound(edges, states)
			}
			if progress != nil {
				progress(res.Evaluated, res.Contracted)
			}
			break
		}
		slices.SortStableFunc(better, func(i, j int) int { return cmp.Compare(out[j].score, out[i].score) })
		used := map[int]bool{}
		mark := func(c cand) {
			for _, v := range []int{c.keep, c.drop} {
				used[v] = true
				for _, w := range base.Neighbors(v) {
					used[w] = true
				}
			}
		}
		free := func(c cand) bool {
			for _, v := range []int{c.keep, c.drop} {
				if used[v] {
					return false
				}
				for _, w := range base.Neighbors(v) {
					if used[w] {
						return false
					}
				}
			}
			return true
		}
		// The contracted tree of a candidate scored without it (made the
		// same way as by the candidates' loop above).
		treeOf := func(i int) error {
			if out[i].t != nil {
				return nil
			}
			ct := base.Clone()
			if err := ct.Contract(cands[i].keep, cands[i].drop); err != nil {
				return err
			}
			out[i].t = ct
			return nil
		}
		if err := treeOf(better[0]); err != nil {
			return nil, err
		}
		first := &out[better[0]]
		if err := first.state.build(bst, first.t); err != nil {
			return nil, err
		}
		mark(cands[better[0]])
		cur, curTree, kept := first.state, first.t, 1
		var more []int
		for _, i := range better[1:] {
			if c := cands[i]; free(c) {
				mark(c)
				more = append(more, i)
			}
		}
		switch {
		case len(more) == 0:
		case ops.withAll != nil:
			edges, states := make([][2]int, len(more)), make([]*pruneState, len(more))
			for k, i := range more {
				edges[k], states[k] = [2]int{cands[i].keep, cands[i].drop}, out[i].state
			}
			nm, ct, err := ops.withAll(cur.m, curTree, edges, states)
			if err != nil {
				return nil, err
			}
			cur, curTree = &pruneState{m: nm}, ct
			kept += len(more)
		default:
			for _, i := range more {
				// Its local fit goes into the current model (its own
				// model, and tree, are not needed).
				c := cands[i]
				ct := curTree.Clone()
				if err := ct.Contract(c.keep, c.drop); err != nil {
					return nil, err
				}
				nm, err := ops.with(cur.m, ct, out[i].state)
				if err != nil {
					return nil, err
				}
				cur, curTree = &pruneState{m: nm}, ct
				kept++
			}
		}
		// The current model's contractor is no longer needed: the next
		// one is made in its memory.
		bst.handOver(cur)
		if kept > 1 {
			// The kept fits were each made against the current model:
			// score them together exactly, and keep the best candidate
			// alone if that scores higher.
			if cur.ll, err = ops.exact(cur); err != nil {
				return nil, err
			}
			if negScore(cur.ll, cur.m) < first.score {
				cur.handOver(first.state)
				cur, curTree, kept = first.state, first.t, 1
			} else if err := setFittedLengths(curTree, cur.m); err != nil {
				return nil, err
			}
		}
		changed = used
		base, bs, bst = curTree, negScore(cur.ll, cur.m), cur
		res.Contracted += kept
		if progress != nil {
			progress(res.Evaluated, res.Contracted)
		}
		if opt.MaxEvals > 0 && res.Evaluated >= opt.MaxEvals {
			break
		}
	}
	res.Tree, res.Score, res.State, res.Passes = base, bs, bst, 1
	return res, nil
}

// localOps are what contractLocal needs of a model family: with puts the
// local fit of cand (a candidate's state) into cur on ct, the contraction
// of cur's tree by cand's edge; exact returns the exact log-likelihood of
// a state's model. withAll, when set, replaces with: it puts several
// candidates, which share no node and no neighbour, in at once (their
// edges contracted in order in a copy of cur's tree base) and returns the
// model with every local fit and the tree, the same as with one candidate
// after another. scoreEdge, when set, is the search's score(ct, warm,
// true) of the contraction ct of base's edge keep–drop (drop merged into
// keep) without ct, which contractLocal then makes only for the
// candidates it keeps: a tree per candidate was a fifth of a small
// Gaussian search.
type localOps struct {
	with      func(cur model.Model, ct *tree.Tree, cand *pruneState) (model.Model, error)
	exact     func(s *pruneState) (float64, error)
	withAll   func(cur model.Model, base *tree.Tree, edges [][2]int, cands []*pruneState) (model.Model, *tree.Tree, error)
	scoreEdge func(base *tree.Tree, keep, drop int, warm *pruneState) (float64, *pruneState, error)
	// lastRound, when set, is given the candidates of the round that
	// ended the search with none improving (edges keep–drop, in the
	// round's order) and their states, scored against the final tree.
	lastRound func(edges [][2]int, states []*pruneState)
}

// discreteOps are the localOps of discrete models on d.
func discreteOps(d *data.Dataset, workers int) localOps {
	return localOps{
		with: func(cur model.Model, ct *tree.Tree, cand *pruneState) (model.Model, error) {
			cm, ok := cur.(*discrete.Model)
			if !ok || cand.local == nil {
				return nil, errors.New("learn: a local candidate has no local fit")
			}
			return cm.WithLocal(ct, cand.local, nil, nil)
		},
		exact: func(s *pruneState) (float64, error) {
			con, err := s.contractor(s.m.(*discrete.Model), d, workers)
			if err != nil {
				return 0, err
			}
			return con.LogLik, nil
		},
	}
}

// edgeKey is the key of the edge u–v, whichever way round.
func edgeKey(u, v int) [2]int {
	if u > v {
		u, v = v, u
	}
	return [2]int{u, v}
}
