package learn

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/tree"
)

// gaussInitialIter bounds the E-steps of the input tree's fit
// (gaussInitial). Without jumps to the bound, 20 E-steps gave searches as
// good as 30 with them (the earlier rule) over 410 simulated searches
// (random binary trees and HMMs of 12 to 80 variables, 200 to 10,000
// rows): final BIC 117 lower in sum on 360 of them (three seed sets,
// each lower), on the 50 trees of TestContractGaussianVsRefit 0.3 per
// tree higher in the paper's convention; at 15 the gain shrank to 52.
const gaussInitialIter = 20

// gaussLocalIter bounds the BFGS steps of a Gaussian candidate's local
// fit (gaussian.Contractor.Contract), which stops sooner when a step gains
// at most gaussLocalTol nat; on the 14-variable test fixture the fits
// took 5 to 20 steps.
const (
	gaussLocalIter = 50
	gaussLocalTol  = 1e-4
)

// gaussPolishFits bounds the candidates contractGaussian fits whole after
// the search, and gaussPolishMargin is how far below an improvement (in
// BIC) a candidate's local score may be for it to be tried. On 50
// simulated trees (TestContractGaussianVsRefit, long form) it lowered the
// BIC of one by 0.13.
const (
	gaussPolishFits   = 4
	gaussPolishMargin = 4.0
)

// boundSlack is how far below a decision's threshold (in nats of Change)
// a contraction's upper bound must be for the search to take the bound
// for its Change (gaussian.Contractor.ScoreBound): room for the rounding
// of the log-likelihoods the thresholds are computed from.
const boundSlack = 1e-6

// bestLocal scores every contraction of an edge at a hidden node of s's
// tree locally (gaussian.Contractor, on up to workers goroutines) and
// returns the best by its Change less the penalty of the edge it removes
// (first in edge order among equals), as the contracted tree and its
// Contraction (whose model is not built: gaussian.Contractor.Score), or
// nil when there is no candidate; and the number of candidates scored.
func bestLocal(s *pruneState, mom *gaussian.Moments, penalty float64, hiddenOnly bool, workers int) (*tree.Tree, *gaussian.Contraction, int, error) {
	g := s.m.(*gaussian.Model)
	con, err := s.gcontractor(g, mom)
	if err != nil {
		return nil, nil, 0, err
	}
	t := g.Tree
	type cand struct{ keep, drop int }
	var cands []cand
	for _, e := range t.Edges() {
		hu, hv := t.IsHidden(e.U), t.IsHidden(e.V)
		if !hu && !hv || hiddenOnly && !(hu && hv) {
			continue
		}
		keep, drop := e.U, e.V
		if !hv {
			keep, drop = e.V, e.U
		}
		cands = append(cands, cand{keep, drop})
	}
	if len(cands) == 0 {
		return nil, nil, 0, nil
	}
	// Scored without the contracted trees; the best's is made after.
	out := make([]*gaussian.Contraction, len(cands))
	errs := make([]error, len(cands))
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// A candidate whose bound puts it below -gaussPolishMargin is not
	// refitted around its edge: it cannot be chosen.
	floor := (-gaussPolishMargin-penalty)/2 - boundSlack
	parallel.For(min(workers, len(cands)), len(cands), func(_, i int) {
		out[i], errs[i] = con.ScoreBound(nil, cands[i].keep, cands[i].drop, gaussLocalIter, gaussLocalTol, floor)
	})
	var (
		bc      *gaussian.Contraction
		bi      int
		bestVal = math.Inf(-1)
	)
	for i, c := range out {
		if errs[i] != nil {
			return nil, nil, i, errs[i]
		}
		if v := 2*c.Change + penalty; v > bestVal {
			bc, bi, bestVal = c, i, v
		}
	}
	if bc == nil {
		return nil, nil, len(cands), nil
	}
	best := t.Clone()
	if err := best.Contract(cands[bi].keep, cands[bi].drop); err != nil {
		return nil, nil, len(cands), err
	}
	return best, bc, len(cands), nil
}

// gcontractor returns the local scorer of s's Gaussian model on mom.
func (s *pruneState) gcontractor(g *gaussian.Model, mom *gaussian.Moments) (*gaussian.Contractor, error) {
	s.gconOnce.Do(func() {
		s.gcon, s.gconErr = g.ContractorAfter(mom, s.gprev)
		s.gprev = nil
	})
	return s.gcon, s.gconErr
}

// gaussianOps are the localOps of Gaussian models on complete data with
// moments mom.
func gaussianOps(mom *gaussian.Moments) localOps {
	return localOps{
		withAll: func(cur model.Model, base *tree.Tree, edges [][2]int, cands []*pruneState) (model.Model, *tree.Tree, error) {
			cm, ok := cur.(*gaussian.Model)
			if !ok {
				return nil, nil, errors.New("learn: a local candidate is not Gaussian")
			}
			// The edges contracted one after another in one copy, with
			// the root with would have chosen at each step.
			ct := base.Clone()
			root := cm.Root
			cs := make([]*gaussian.Contraction, len(cands))
			for k, e := range edges {
				if cands[k].glocal == nil {
					return nil, nil, errors.New("learn: a local candidate is not Gaussian")
				}
				if err := ct.Contract(e[0], e[1]); err != nil {
					return nil, nil, err
				}
				if !ct.Has(root) {
					root = model.DefaultRoot(ct)
				}
				cs[k] = cands[k].glocal
			}
			nm, err := cm.WithContractions(ct, root, cs...)
			return nm, ct, err
		},
		exact: func(s *pruneState) (float64, error) {
			con, err := s.gcontractor(s.m.(*gaussian.Model), mom)
			if err != nil {
				return 0, err
			}
			return con.LogLik, nil
		},
	}
}

// gaussOptions are the Gaussian fit options of fit.
func gaussOptions(fit model.FitOptions) gaussian.Options {
	return gaussian.Options{MaxIter: fit.EM.MaxIter, Tol: fit.EM.Tol, Accel: fit.EM.Accel, Stop: fit.EM.Stop}
}

// contractGaussian is ContractByBIC for a Gaussian tree on complete data,
// from their moments alone (the local search, PruneOptions.Refit false).
// The input tree is fitted by gaussian.FitMoments with fit's EM options;
// every round scores each edge at a hidden node by the contractor of the
// current model (gaussian.Contractor: the merged node's correlations
// refitted with the rest of the model held, exact log-likelihoods) and
// keeps the best candidate and the improving ones apart from it
// (contractLocal); the chosen tree is then fitted once by FitMoments from
// the correlations the search reached. The result is the best in BIC of
// that fit, the input tree's fit and the baselines' fits.
func contractGaussian(t *tree.Tree, mom *gaussian.Moments, fit model.FitOptions, opt PruneOptions, progress func(evaluated, contracted int), baselines ...*tree.Tree) (*PruneResult, error) {
	if t == nil {
		return nil, errors.New("learn: no tree to prune")
	}
	logN := math.Log(float64(mom.Rows))
	penalty := logN
	if opt.AIC {
		penalty = 2
	}
	scoreOf := func(ll float64, params int) float64 { return 2*ll - float64(params)*penalty }
	negScore := func(ll float64, m model.Model) float64 { return scoreOf(ll, m.NumParams()) }
	bicOf := func(ll float64, m model.Model) float64 { return -2*ll + float64(m.NumParams())*logN }
	gopt := gaussOptions(fit)
	fitTree := func(ct *tree.Tree, o gaussian.Options) (*pruneState, error) {
		g, res, err := gaussian.FitMoments(ct, mom, o)
		if err != nil {
			return nil, err
		}
		if err := setFittedLengths(ct, g); err != nil {
			return nil, err
		}
		return &pruneState{m: g, ll: res.LogLik, em: res}, nil
	}
	// scoreLocal scores the contraction ct (nil: not made) of the edge
	// keep–drop of warm's tree.
	scoreLocal := func(ct *tree.Tree, keep, drop int, warm *pruneState) (float64, *pruneState, error) {
		w := warm.m.(*gaussian.Model)
		con, err := warm.gcontractor(w, mom)
		if err != nil {
			return 0, nil, err
		}
		// The search (contractLocal, margin penalty) keeps a candidate
		// whose score is above the current one and rescores one within
		// margin of it: a candidate whose bound puts it margin below
		// (2·Change + penalty ≤ −penalty) is decided by the bound.
		c, err := con.ScoreBound(ct, keep, drop, gaussLocalIter, gaussLocalTol, -penalty-boundSlack)
		if err != nil {
			return 0, nil, err
		}
		// Ranked by the contraction's own cost (Change), not by what the
		// refit around it also gains where the current model is short of
		// its maximum; the state's log-likelihood is exact. Its model is
		// built when the candidate is kept (pruneState.build). The
		// contraction of an edge at a hidden node removes one edge.
		return scoreOf(con.LogLik+c.Change, w.NumParams()-1), &pruneState{glocal: c, ll: c.LogLik}, nil
	}
	score := func(ct *tree.Tree, warm *pruneState, quick bool) (float64, *pruneState, error) {
		if warm == nil {
			st, err := fitTree(ct, gaussInitial(gopt))
			if err != nil {
				return 0, nil, err
			}
			return negScore(st.ll, st.m), st, nil
		}
		w := warm.m.(*gaussian.Model)
		if !quick {
			return negScore(warm.ll, w), warm, nil
		}
		keep, drop, ok := contracted(w.Tree, ct)
		if !ok {
			return 0, nil, errors.New("learn: a candidate tree is not a contraction of the current one")
		}
		return scoreLocal(ct, keep, drop, warm)
	}
	// With more than one worker, the baselines are fitted while the
	// search runs (FitMoments only reads mom); with one, after it.
	type fitted struct {
		st  *pruneState
		err error
	}
	based := make([]chan fitted, len(baselines))
	if opt.Workers != 1 && runtime.GOMAXPROCS(0) > 1 {
		for i, b := range baselines {
			if b == nil {
				continue
			}
			based[i] = make(chan fitted, 1)
			go func() {
				st, err := fitTree(b.Clone(), gopt)
				based[i] <- fitted{st, err}
			}()
		}
	}
	// The baselines' fits; those started are waited for on every return.
	waitBaselines := func() []fitted {
		out := make([]fitted, len(based))
		for i, c := range based {
			if c != nil {
				out[i] = <-c
				based[i] = nil
			} else if baselines[i] != nil {
				out[i].st, out[i].err = fitTree(baselines[i].Clone(), gopt)
			}
		}
		return out
	}
	defer func() {
		for _, c := range based {
			if c != nil {
				<-c
			}
		}
	}()
	ops := gaussianOps(mom)
	ops.scoreEdge = func(base *tree.Tree, keep, drop int, warm *pruneState) (float64, *pruneState, error) {
		if w, ok := warm.m.(*gaussian.Model); !ok || w.Tree != base {
			return 0, nil, errors.New("learn: a candidate is not of the current Gaussian model's tree")
		}
		// The merged node of score's candidate: contracted's choice,
		// which differs from keep only when drop has two neighbours
		// (then both choices give the same tree).
		if nb := base.Neighbors(drop); len(nb) == 2 {
			keep = nb[0]
		}
		return scoreLocal(nil, keep, drop, warm)
	}
	// fitContraction fits cand, the tree of the scored contraction c,
	// whole, from the correlations c's model has.
	fitContraction := func(cand *tree.Tree, c *gaussian.Contraction) (*pruneState, error) {
		cm, err := c.BuildOn(cand)
		if err != nil {
			return nil, err
		}
		if err := setFittedLengths(cand, cm); err != nil {
			return nil, err
		}
		return fitTree(cand, gopt)
	}
	// The last round's candidates, scored against the search's final
	// tree: the polish's first candidate is the best of them.
	var lastEdges [][2]int
	var lastStates []*pruneState
	if opt.MaxEvals == 0 { // else the last round may have scored a part
		ops.lastRound = func(edges [][2]int, states []*pruneState) { lastEdges, lastStates = edges, states }
	}
	cr, err := contractLocal(t, ops, score, negScore, penalty, opt, progress)
	if err != nil {
		return nil, err
	}
	// The polish's first candidate: the best contraction by local score
	// at the search's end (from its last round, or cr.State's contractor
	// when that round scored against an earlier tree), fitted whole. With
	// more than one worker it is found and fitted while the chosen tree
	// is fitted; with one, after. Either way the result is the same.
	first := func(workers int) polishFirst {
		var (
			cand *tree.Tree
			c    *gaussian.Contraction
			ev   int
			err  error
		)
		if lastStates != nil {
			// The search scored every candidate that could be within
			// gaussPolishMargin of improving against its final tree in
			// its last round (one it did not rescore was a margin of
			// penalty ≥ gaussPolishMargin below at its last score).
			bi, bestVal := -1, math.Inf(-1)
			for i, st := range lastStates {
				if st != nil && st.glocal != nil {
					if v := 2*st.glocal.Change + penalty; v > bestVal {
						bi, bestVal = i, v
					}
				}
			}
			if bi >= 0 {
				c = lastStates[bi].glocal
				cand = cr.Tree.Clone()
				err = cand.Contract(lastEdges[bi][0], lastEdges[bi][1])
			}
		} else {
			cand, c, ev, err = bestLocal(cr.State, mom, penalty, opt.HiddenOnly, workers)
		}
		if err != nil || cand == nil || 2*c.Change+penalty < -gaussPolishMargin {
			return polishFirst{ev: ev, err: err}
		}
		st, err := fitContraction(cand, c)
		return polishFirst{st: st, ev: ev, err: err}
	}
	var pf polishFirst
	havePF := false
	best := cr.InitialState
	if cr.Contracted > 0 {
		var spec chan polishFirst
		if cr.State != nil && opt.Workers != 1 && runtime.GOMAXPROCS(0) > 1 {
			spec = make(chan polishFirst, 1)
			go func() { spec <- first(1) }()
		}
		// Fit the chosen tree (a copy: the search's state shares it), from
		// the closed-form start at the correlations the search reached
		// (its edge lengths).
		st, err := fitTree(cr.Tree.Clone(), gopt)
		if spec != nil {
			pf, havePF = <-spec, true
		}
		if err != nil {
			return nil, err
		}
		if negScore(st.ll, st.m) >= negScore(best.ll, best.m) {
			best = st
		} else {
			havePF = false // the polish starts from the input tree
		}
		if best != cr.InitialState && !havePF && cr.State != nil {
			pf, havePF = first(opt.Workers), true
		}
	}
	contracted, evaluated := 0, cr.Evaluated
	if best != cr.InitialState {
		contracted = cr.Contracted
	} else {
		// Nothing contracted: the input tree, fitted by fit's own rule.
		st, err := fitTree(best.m.Structure(), gopt)
		if err != nil {
			return nil, err
		}
		if negScore(st.ll, st.m) >= negScore(best.ll, best.m) {
			best = st
		}
	}
	// Polish: the local scores are lower bounds on what refitting the whole
	// model gives. The best candidate by local score (first at the
	// search's end, then at the last model kept), when within
	// gaussPolishMargin of improving the BIC, is fitted whole and kept if
	// it does improve it; up to gaussPolishFits times.
	for i := range gaussPolishFits {
		var st *pruneState
		if i == 0 && havePF {
			evaluated += pf.ev
			if pf.err != nil {
				return nil, pf.err
			}
			if st = pf.st; st == nil {
				break
			}
		} else {
			if best.gcon == nil && best.gprev == nil && cr.State != nil {
				// The search's binding to the moments serves.
				best.gprev = cr.State.gcon
			}
			cand, c, ev, err := bestLocal(best, mom, penalty, opt.HiddenOnly, opt.Workers)
			evaluated += ev
			if err != nil {
				return nil, err
			}
			if cand == nil || 2*c.Change+penalty < -gaussPolishMargin {
				break
			}
			if st, err = fitContraction(cand, c); err != nil {
				return nil, err
			}
		}
		evaluated++
		if negScore(st.ll, st.m) <= negScore(best.ll, best.m) {
			break
		}
		best = st
		contracted++
	}
	out := &PruneResult{Tree: best.m.Structure(), Model: best.m, EM: best.em, BIC: bicOf(best.ll, best.m), InitialBIC: bicOf(cr.InitialState.ll, cr.InitialState.m),
		Contracted: contracted, Evaluated: evaluated, Baseline: -1}
	top := negScore(best.ll, best.m)
	for i, f := range waitBaselines() {
		if baselines[i] == nil {
			continue
		}
		st, err := f.st, f.err
		if err != nil {
			return nil, fmt.Errorf("learn: baseline tree %d: %w", i, err)
		}
		if sc := negScore(st.ll, st.m); sc > top {
			top = sc
			out.Tree, out.Model, out.EM, out.BIC, out.Baseline = st.m.Structure(), st.m, st.em, bicOf(st.ll, st.m), i
		}
	}
	return out, nil
}

// polishFirst is the polish's first candidate fitted (st nil: none
// within gaussPolishMargin) and the candidates scored to find it.
type polishFirst struct {
	st  *pruneState
	ev  int
	err error
}

// gaussInitial returns the options of the input tree's fit: SQUAREM with
// the relative-change rule, no jumps of edges to the bound (their trial
// E-steps took a third of a capped fit) and at most gaussInitialIter
// E-steps, which stops far sooner than StopAuto on the trees the learners
// give before contraction (their hidden nodes near observed ones put
// edges near |ρ| = 1, where EM crawls: on 80 variables of a Gaussian HMM
// StopAuto took 965 E-steps, the relative rule 88, 34 nat lower). The
// search ranks candidates by what each contraction costs against the
// neighbourhood refitted (gaussian.Contraction.Change), so that it does
// not credit a contraction with what the refit gains where this fit
// stopped short; the chosen tree is fitted by fit's own rule.
func gaussInitial(o gaussian.Options) gaussian.Options {
	o.Stop = model.StopRelative
	o.NoSnap = true
	if o.MaxIter >= 0 {
		// At most gaussInitialIter E-steps (0 means DefaultMaxIter).
		o.MaxIter = min(cmp.Or(o.MaxIter, model.DefaultMaxIter), gaussInitialIter)
	}
	return o
}
