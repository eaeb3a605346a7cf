package learn

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

// PruneOptions configures ContractByBIC.
type PruneOptions struct {
	// QuickIter is the number of EM iterations that score a candidate
	// contraction, warm-started from the current model (0:
	// DefaultQuickIter).
	QuickIter int
	// Passes, MaxEvals, Batch, Workers and HiddenOnly are those of
	// structure.ContractOptions (the result does not depend on Workers).
	Passes, MaxEvals, Batch, Workers int
	HiddenOnly                       bool
	// AIC scores by AIC (−2 log L + 2κ) instead of BIC (−2 log L + κ log
	// n), for the search and for the choice of a baseline: a smaller
	// penalty per parameter (2 instead of log n) that keeps more hidden
	// variables on few rows.
	AIC bool
	// Refit scores every candidate contraction of a discrete tree by
	// QuickIter EM iterations of the whole model and refits each kept
	// contraction to convergence (structure.ContractByScore: the search
	// before local scoring, about a model fit per candidate). By default
	// a discrete tree is searched with local scores (contractLocal): each
	// candidate re-fits only the parameters at the merged node
	// (discrete.Contractor: DefaultLocalIter EM iterations, the rest of
	// the model held, exact log-likelihoods), the messages of the rest are
	// computed once per round, every round keeps the best candidate and
	// the improving ones apart from it, and the chosen tree is fitted by
	// EM once at the end; Passes and Batch then do not apply. A Gaussian
	// tree on data without missing cells is searched likewise from the
	// data's moments (contractGaussian, gaussian.Contractor: exact local
	// scores). Mixed trees, and Gaussian trees on data with missing cells,
	// are always searched by refitting.
	Refit bool
	// LocalIter is the number of EM iterations of a local candidate score
	// (0: DefaultLocalIter).
	LocalIter int
}

// DefaultLocalIter is the number of EM iterations of a local candidate
// score (discrete.Contractor.Contract), which stops sooner when the
// largest change of a parameter falls to localTol. On the newsgroups
// data 4 iterations kept worse trees than the refitting search, 8 and
// 12 the same better one.
const DefaultLocalIter = 8

const localTol = 1e-6

// FirstFitGain is the bound on the remaining gain in log-likelihood
// (model.EMOptions.Gain, a floor on the default tolerance) at which the EM
// of the input tree stops in the local contraction search of a discrete
// tree, as a fraction of one parameter's penalty (log n / 2 for BIC): the
// search ranks contractions of that fit, and fits the chosen tree again
// at the end. On the 50 simulated binary trees of
// TestContractLocalVsRefit (200–10,000 rows), 0.1 saved 44% of the
// E-steps of that fit (DefaultTol's rule: 6,098 in all), and the
// searches' BIC was 0.09 lower on average, 0.51 higher on the worst
// tree; 0.3 saved 55% and was 7 higher on one tree. On the newsgroups
// data (8,121 rows, 98 hidden nodes) 0.1 stops after 175 E-steps instead
// of 256. On large data DefaultTol·|L| is the larger tolerance.
const FirstFitGain = 0.1

// DefaultQuickIter is the default number of EM iterations per candidate
// contraction.
const DefaultQuickIter = 5

// PruneResult is what ContractByBIC returns.
type PruneResult struct {
	// Tree is the chosen tree and Model its fitted model (fitted to Tree
	// itself: node identifiers are not compacted; Model.Tree == Tree).
	Tree  *tree.Tree
	Model model.Model
	// EM is the EM run that fitted Model.
	EM *model.EMResult
	// BIC is Model's BIC on the data (−2 log L + κ log n, smaller is
	// better); InitialBIC that of the input tree fitted by model.Fit
	// (with the search's stopping rule, see ContractByBIC).
	BIC, InitialBIC float64
	// Contracted counts the contractions kept, Evaluated the candidates
	// scored.
	Contracted, Evaluated int
	// Baseline is the index of the baseline tree chosen instead of the
	// contracted tree because its BIC was lower, or −1.
	Baseline int
	// InitialEM is the EM run that fitted the input tree (nil when the
	// caller gave the fit); SearchTime the wall-clock time of the
	// search, that fit included, before the final EM and the baselines.
	InitialEM  *model.EMResult
	SearchTime time.Duration
}

// pruneState is a model fitted to a tree during the search.
type pruneState struct {
	m  model.Model
	ll float64
	em *model.EMResult
	// local is the local fit of a candidate of the local search, whose
	// model m (the current model WithLocal local) is built when the
	// candidate is kept (pruneState.build).
	local *discrete.Local
	// starts holds, for a current model of the local search, the last
	// local fits of the candidates scored in earlier rounds, by edge
	// (edgeKey): a candidate's EM continues from there when its merged
	// node has the same neighbours (discrete.LocalOptions.From).
	starts map[[2]int]*discrete.Local
	// glocal is local for a Gaussian candidate (contractGaussian).
	glocal *gaussian.Contraction
	// con scores contractions of m locally (discrete m, local search),
	// computed once on first use.
	conOnce sync.Once
	con     *discrete.Contractor
	conErr  error
	// reuse, when set, is a contractor no longer needed, in whose memory
	// con is made (handOver).
	reuse *discrete.Contractor
	// gcon is con for a Gaussian m (contractGaussian); gprev, when set,
	// is an earlier model's, whose binding to the moments gcon shares
	// (gaussian.Model.ContractorAfter).
	gconOnce sync.Once
	gcon     *gaussian.Contractor
	gconErr  error
	gprev    *gaussian.Contractor
}

// contractor returns the local scorer of s's discrete model on d.
func (s *pruneState) contractor(dm *discrete.Model, d *data.Dataset, workers int) (*discrete.Contractor, error) {
	s.conOnce.Do(func() {
		if s.reuse != nil {
			s.con, s.conErr = s.reuse.Reuse(dm, d, workers)
			s.reuse = nil
			return
		}
		s.con, s.conErr = dm.Contractor(d, workers)
	})
	return s.con, s.conErr
}

// handOver gives s's contractor, if it has one, to next to be made in
// (discrete.Contractor.Reuse): s's contractor must not be used afterwards.
func (s *pruneState) handOver(next *pruneState) {
	if s.con != nil && next != s && next.con == nil {
		next.reuse, s.con = s.con, nil
	}
	if s.gcon != nil && next != s && next.gprev == nil {
		next.gprev = s.gcon
	}
}

// build sets s.m, the model of a local candidate, to from's model
// WithLocal s.local on ct, and ct's edge lengths to its distances; it
// does nothing when s.m is set.
func (s *pruneState) build(from *pruneState, ct *tree.Tree) error {
	if s.m != nil {
		return nil
	}
	if s.glocal != nil {
		gm, err := s.glocal.BuildOn(ct)
		if err != nil {
			return err
		}
		s.m = gm
		return setFittedLengths(ct, gm)
	}
	fm, ok := from.m.(*discrete.Model)
	if !ok || s.local == nil {
		return errors.New("learn: a local candidate has no local fit")
	}
	nm, err := fm.WithLocal(ct, s.local, nil, nil)
	if err != nil {
		return err
	}
	s.m = nm
	return setFittedLengths(ct, nm)
}

// contracted returns the nodes keep and drop of the edge of old whose
// contraction (drop merged into keep) gives ct, or ok false. When drop
// has two neighbours both choices give ct; the first in old's order is
// returned.
func contracted(old, ct *tree.Tree) (keep, drop int, ok bool) {
	drop = -1
	for _, v := range old.Nodes() {
		if !ct.Has(v) {
			if drop >= 0 {
				return 0, 0, false
			}
			drop = v
		}
	}
	if drop < 0 {
		return 0, 0, false
	}
	nb := old.Neighbors(drop)
	for _, u := range nb {
		all := ct.Has(u)
		for _, w := range nb {
			if w != u && !ct.HasEdge(u, w) {
				all = false
			}
		}
		if all {
			return u, drop, true
		}
	}
	return 0, 0, false
}

// ContractByBIC contracts edges of t at hidden nodes while the BIC of the
// fitted model improves (the score −BIC = 2 log L − κ log n, higher is
// better). The input tree is fitted by model.Fit with fit (for the local
// search of a discrete tree, with EM stopped sooner: FirstFitGain unless
// fit.EM sets Gain or another stopping rule). A discrete tree,
// and a Gaussian one on data without missing cells, is searched with local
// scores by default (see PruneOptions.Refit): each candidate re-fits only
// the parameters at the merged node, with the rest of the model held, and
// the chosen tree is fitted by EM once at the end (a Gaussian search fits
// the input tree by at most 30 E-steps of SQUAREM with the relative rule,
// ranks candidates by their cost against the refitted neighbourhood, and
// may try its best borderline candidate by a whole fit: contractGaussian).
// With Refit, and on Gaussian and mixed trees (structure.ContractByScore),
// each candidate is scored by QuickIter EM iterations
// warm-started from the current model (a Gaussian candidate starts from
// the current correlations, since contracted edge lengths −log|ρ| are
// summed; a discrete one from the current model's pairwise marginals on
// the new edges), and a kept contraction is then fitted by EM to
// convergence from there. Because EM never lowers the likelihood, each
// kept contraction lowers the BIC, and the result's BIC is at most that
// of model.Fit on t.
//
// Each baseline tree (for example the Chow–Liu tree, which every latent
// tree learned by CLGrouping reduces to when all its hidden nodes are
// merged into observed ones) is also fitted by model.Fit; when one has a
// lower BIC than the contracted tree it is returned instead. So the
// result is never worse in BIC than t or any baseline, each fitted by
// model.Fit with the same options. AutoStates applies to the first fit
// only: contraction keeps the numbers of states it chose.
//
// On mixed data (a conditional-Gaussian model, package mixed) a candidate
// starts from the current model's parameters on every edge the
// contraction left as it was (same parent, same kinds) and from the
// moment-based start (mixed.Model.Start) elsewhere, and runs 2·QuickIter
// iterations of plain EM (to convergence once kept); a
// candidate whose contraction puts a continuous observed node between
// discrete ones (mixed.Layout refuses it) is never kept. t and the
// baselines must admit a mixed model (Learn repairs them first).
func ContractByBIC(t *tree.Tree, d *data.Dataset, fit model.FitOptions, opt PruneOptions, baselines ...*tree.Tree) (*PruneResult, error) {
	return contractByBIC(t, d, fit, opt, nil, nil, baselines...)
}

// contractByBIC is ContractByBIC with a progress callback (see
// structure.ContractOptions.Progress).
// initial, if not nil, is the input tree already fitted with fit.
func contractByBIC(t *tree.Tree, d *data.Dataset, fit model.FitOptions, opt PruneOptions, progress func(evaluated, contracted int), initial *pruneState, baselines ...*tree.Tree) (*PruneResult, error) {
	if t == nil {
		return nil, errors.New("learn: no tree to prune")
	}
	if d == nil || d.NumRows() == 0 {
		return nil, errors.New("learn: no data rows to prune with")
	}
	if opt.QuickIter < 0 {
		return nil, fmt.Errorf("learn: QuickIter %d must be positive (0: %d)", opt.QuickIter, DefaultQuickIter)
	}
	quickIter := opt.QuickIter
	if quickIter == 0 {
		quickIter = DefaultQuickIter
	}
	if opt.LocalIter < 0 {
		return nil, fmt.Errorf("learn: LocalIter %d must be positive (0: %d)", opt.LocalIter, DefaultLocalIter)
	}
	localIter := opt.LocalIter
	if localIter == 0 {
		localIter = DefaultLocalIter
	}
	if !opt.Refit && initial == nil && d.AllContinuous() {
		// Complete continuous data: the local search from their moments.
		if mom, err := gaussian.MomentsOf(d); err == nil {
			return contractGaussian(t, mom, fit, opt, progress, baselines...)
		}
	}
	logN := math.Log(d.SampleSize())
	penalty := logN
	if opt.AIC {
		penalty = 2
	}
	negScore := func(ll float64, m model.Model) float64 { return 2*ll - float64(m.NumParams())*penalty }
	bicOf := func(s *pruneState) float64 { return -2*s.ll + float64(s.m.NumParams())*logN }
	// Zero Tol and MaxIter mean the defaults in both EMs.
	tol, maxIter := fit.EM.Tol, fit.EM.MaxIter
	// Every candidate is fitted to the same data: share its moments.
	cache := &gaussian.Cache{}
	score := func(ct *tree.Tree, warm *pruneState, quick bool) (float64, *pruneState, error) {
		var (
			m   model.Model
			res *model.EMResult
			err error
		)
		iters := maxIter
		if quick {
			iters = quickIter
		}
		var wm model.Model
		if warm != nil {
			wm = warm.m
		}
		switch w := wm.(type) {
		case *gaussian.Model:
			// Edge lengths are −log|ρ| of the warm model, summed by the
			// contraction: gaussian.Fit starts from the same correlations.
			// Candidates are ranked by plain EM with the relative-change
			// rule, which stops sooner than fit's rule (SQUAREM to a bound
			// on the remaining gain); the chosen model is run to fit's
			// rule at the end.
			m, res, err = gaussian.Fit(ct, d, gaussian.Options{MaxIter: iters, Tol: tol, Cache: cache, Accel: model.AccelNone, Stop: model.StopRelative})
		case *discrete.Model:
			if !opt.Refit {
				if !quick {
					// A kept candidate keeps its local fit: EM runs once,
					// on the chosen tree.
					return negScore(warm.ll, w), warm, nil
				}
				keep, drop, ok := contracted(w.Tree, ct)
				if !ok {
					return 0, nil, errors.New("learn: a candidate tree is not a contraction of the current one")
				}
				con, err := warm.contractor(w, d, opt.Workers)
				if err != nil {
					return 0, nil, err
				}
				kappa, err := discrete.NumParamsOn(ct, model.DefaultRoot(ct), w.States)
				if err != nil {
					return 0, nil, err
				}
				// The candidate's model is built only if it is kept
				// (pruneState.local). A fit that cannot come within the
				// search's margin (penalty) of the current score ends
				// early: its score, below that, is all the search needs.
				floor := (negScore(warm.ll, w) - penalty + float64(kappa)*penalty) / 2
				loc, ll, err := con.FitLocalWith(ct, keep, drop, discrete.LocalOptions{Iters: localIter, Tol: localTol, Pseudo: fit.EM.Pseudo,
					From: warm.starts[edgeKey(keep, drop)], Screen: true, Floor: floor})
				if err != nil {
					return 0, nil, err
				}
				return 2*ll - float64(kappa)*penalty, &pruneState{ll: ll, local: loc}, nil
			}
			var dm *discrete.Model
			if dm, err = warmDiscrete(w, ct); err == nil {
				em := fit.EM
				em.MaxIter, em.Tol, em.Restarts, em.KeepInit, em.Src, em.Progress = iters, tol, -1, true, nil, nil
				// Candidates are ranked with the relative-change rule, which
				// stops sooner than StopAuto; the chosen model is run to
				// fit's own rule at the end.
				em.Stop = model.StopRelative
				res, err = dm.FitEM(d, em)
				m = dm
			}
		case *mixed.Model:
			// A contraction that puts a continuous observed node between
			// discrete ones admits no conditional-Gaussian model: never
			// kept.
			if _, _, lerr := mixed.Layout(ct, kindOf(d), false); lerr != nil {
				return math.Inf(-1), nil, nil
			}
			var mm *mixed.Model
			if mm, err = warmMixed(w, ct, d, fit); err == nil {
				t, n := tol, iters
				switch {
				case quick:
					// 2·QuickIter iterations: the edges a contraction
					// changed start from moments, not from the current
					// model's pairwise marginals as a discrete candidate
					// does, and take longer to recover (with QuickIter
					// alone, simulated mixed trees kept a third more
					// hidden nodes at a higher BIC).
					t, n = 0, 2*quickIter
				case t == 0:
					t = model.DefaultTol
				}
				res, err = plainEM(mm, d, n, t, fit.EM.Workers)
				m = mm
			}
		default: // the input tree
			var dm *discrete.Model
			if initial != nil {
				dm, _ = initial.m.(*discrete.Model)
			}
			if dm != nil {
				// The same parameters on ct, the search's copy of t.
				c := dm.Clone()
				c.Tree = ct
				m, res = c, initial.em
			} else {
				f := fit
				if d.AllContinuous() {
					// Ranked like every Gaussian candidate (see above).
					f.EM.Accel, f.EM.Stop = model.AccelNone, model.StopRelative
				}
				if !opt.Refit && d.AllDiscrete() && f.EM.Gain == 0 && f.EM.Stop == model.StopAuto {
					// The local search only ranks contractions of this
					// fit, and the chosen tree is fitted again at the
					// end: EM stops at a fraction of a parameter's
					// penalty.
					f.EM.Gain = FirstFitGain * penalty / 2
				}
				m, res, err = model.Fit(ct, d, f)
			}
		}
		if err != nil {
			return 0, nil, err
		}
		if err := setFittedLengths(ct, m); err != nil {
			return 0, nil, err
		}
		st := &pruneState{m: m, ll: res.LogLik, em: res}
		if dm, ok := m.(*discrete.Model); ok && warm == nil && !opt.Refit {
			// Candidates' log-likelihoods are exact at their parameters:
			// so is the input tree's.
			con, err := st.contractor(dm, d, opt.Workers)
			if err != nil {
				return 0, nil, err
			}
			st.ll = con.LogLik
		}
		return negScore(st.ll, m), st, nil
	}
	var cr *structure.ContractResult[pruneState]
	var err error
	t0 := time.Now()
	if _, warmDiscrete := initialModel(initial).(*discrete.Model); !opt.Refit && (warmDiscrete || initial == nil && d.AllDiscrete()) {
		cr, err = contractLocal(t, discreteOps(d, opt.Workers), score, negScore, penalty, opt, progress)
	} else {
		cr, err = structure.ContractByScore(t, score, structure.ContractOptions{Passes: opt.Passes, MaxEvals: opt.MaxEvals, Batch: opt.Batch, Workers: opt.Workers, HiddenOnly: opt.HiddenOnly, Progress: progress})
	}
	if err != nil {
		return nil, err
	}
	searchTime := time.Since(t0)
	if dm, ok := cr.State.m.(*discrete.Model); ok && cr.Contracted > 0 {
		// Finish the chosen model with fit's stopping rule (EM from its
		// parameters only raises the likelihood, so the BIC only falls).
		em := fit.EM
		em.Restarts, em.KeepInit, em.Src = -1, true, nil
		res, err := dm.FitEM(d, em)
		if err != nil {
			return nil, err
		}
		cr.State.ll, cr.State.em = res.LogLik, res
		if err := setFittedLengths(cr.Tree, dm); err != nil {
			return nil, err
		}
	}
	if _, ok := cr.State.m.(*gaussian.Model); ok && cr.Contracted > 0 {
		// Finish the chosen model with fit's rule, from the closed-form
		// start at its fitted edge lengths (the correlations it reached).
		g := fit
		g.EM.Progress = nil
		m, res, err := model.Fit(cr.Tree, d, g)
		if err != nil {
			return nil, err
		}
		if res.LogLik > cr.State.ll {
			cr.State.m, cr.State.ll, cr.State.em = m, res.LogLik, res
			if err := setFittedLengths(cr.Tree, m); err != nil {
				return nil, err
			}
		}
	}
	out := &PruneResult{Tree: cr.Tree, Model: cr.State.m, EM: cr.State.em, BIC: bicOf(cr.State), InitialBIC: bicOf(cr.InitialState),
		Contracted: cr.Contracted, Evaluated: cr.Evaluated, Baseline: -1, SearchTime: searchTime}
	if initial == nil && cr.InitialState != nil {
		out.InitialEM = cr.InitialState.em
	}
	best := cr.Score
	for i, b := range baselines {
		if b == nil {
			continue
		}
		bt := b.Clone()
		m, res, err := model.Fit(bt, d, fit)
		if err != nil {
			return nil, fmt.Errorf("learn: baseline tree %d: %w", i, err)
		}
		if err := setFittedLengths(bt, m); err != nil {
			return nil, err
		}
		if sc := negScore(res.LogLik, m); sc > best {
			best = sc
			out.Tree, out.Model, out.EM, out.BIC, out.Baseline = bt, m, res, bicOf(&pruneState{m: m, ll: res.LogLik}), i
		}
	}
	return out, nil
}

// initialModel returns s's model, or nil.
func initialModel(s *pruneState) model.Model {
	if s == nil {
		return nil
	}
	return s.m
}

// setFittedLengths sets every edge length of t to the information distance of
// the fitted model m: −log|ρ| for a Gaussian model, the discrete
// information distance (when defined) for a discrete one.
func setFittedLengths(t *tree.Tree, m model.Model) error {
	switch m := m.(type) {
	case *gaussian.Model:
		r := m.Rooted()
		for _, v := range r.Order {
			if p := r.Parent[v]; p >= 0 {
				if err := t.SetEdgeLength(v, p, -math.Log(math.Max(math.Abs(m.Rho[v]), 1e-300))); err != nil {
					return err
				}
			}
		}
	case *discrete.Model:
		lengths := m.EdgeDistances()
		for i, e := range m.Tree.Edges() {
			l := lengths[i]
			if math.IsInf(l, 0) {
				l = math.NaN() // independent: unknown length
			}
			// The edge exists and l is NaN or a finite distance ≥ 0,
			// which SetEdgeLength accepts.
			if err := t.SetEdgeLength(e.U, e.V, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// warmDiscrete returns a model on ct, a contraction of old's tree with the
// same node identifiers and numbers of states, whose prior is the root's
// marginal under old and whose CPT on every edge p → v is P(v | p) under
// old: the contracted model agrees with old on the pairwise marginals of
// its edges.
func warmDiscrete(old *discrete.Model, ct *tree.Tree) (*discrete.Model, error) {
	states := make([]int, ct.MaxID())
	copy(states, old.States)
	m, err := discrete.New(ct, model.DefaultRoot(ct), states)
	if err != nil {
		return nil, err
	}
	copy(m.Labels, old.Labels)
	marg := old.Marginals()
	copy(m.Prior, marg[m.Root])
	r := m.Rooted()
	// Every edge of ct joins nodes at most two edges apart in old's tree
	// (a contraction merges one node into a neighbour).
	var pairs [][2]int
	for _, v := range r.Order {
		if p := r.Parent[v]; p >= 0 {
			pairs = append(pairs, [2]int{p, v})
		}
	}
	joints := old.PairMarginalsNear(pairs)
	for i, pv := range pairs {
		p, v := pv[0], pv[1]
		j := joints[i]
		if j == nil { // not a contraction of old's tree
			j = old.PairMarginal(p, v)
		}
		kv := states[v]
		cpt := m.CPT[v]
		for a := 0; a < states[p]; a++ {
			s := 0.0
			for b := 0; b < kv; b++ {
				s += j[a*kv+b]
			}
			for b := 0; b < kv; b++ {
				if s > 0 {
					cpt[a*kv+b] = j[a*kv+b] / s
				} else {
					cpt[a*kv+b] = 1 / float64(kv)
				}
			}
		}
	}
	return m, nil
}

// warmMixed returns a mixed model on ct, a contraction of old's tree with
// the same node identifiers, for d: kinds and root by mixed.Layout, the
// numbers of states of old's discrete hidden nodes, the moment-based start
// (mixed.Model.Start), and then old's parameters on every node whose
// parent, kind, parent's kind and numbers of states are as in old.
func warmMixed(old *mixed.Model, ct *tree.Tree, d *data.Dataset, fit model.FitOptions) (*mixed.Model, error) {
	opt := mixed.FitOptionsOf(fit)
	opt.States = old.States
	m, err := mixed.Prepare(ct, d, opt)
	if err != nil {
		return nil, err
	}
	if err := m.Start(d); err != nil {
		return nil, err
	}
	ro, rn := old.Rooted(), m.Rooted()
	same := func(v int) bool {
		return v < len(old.Kinds) && old.Tree.Has(v) && old.Kinds[v] == m.Kinds[v] && old.States[v] == m.States[v]
	}
	for _, v := range rn.Order {
		p := rn.Parent[v]
		if !same(v) || ro.Parent[v] != p || p >= 0 && !same(p) {
			continue
		}
		switch {
		case p < 0 && m.Kinds[v] == data.Discrete:
			copy(m.Prior, old.Prior)
		case m.Kinds[v] == data.Discrete:
			copy(m.CPT[v], old.CPT[v])
		default:
			copy(m.Mean[v], old.Mean[v])
			copy(m.Var[v], old.Var[v])
			m.Coef[v] = old.Coef[v]
		}
	}
	return m, m.Validate()
}

// plainEM runs plain EM on m from its parameters (EStep and MStep) for at
// most maxIter E-steps, stopping when an iteration's relative gain in
// log-likelihood is at most tol (0: never), as mixed.Fit's EM does. m ends
// with the parameters of the last E-step, whose log-likelihood is the
// result's LogLik.
func plainEM(m *mixed.Model, d *data.Dataset, maxIter int, tol float64, workers int) (*model.EMResult, error) {
	if maxIter == 0 {
		maxIter = model.DefaultMaxIter
	}
	res := &model.EMResult{Rows: d.NumRows(), DistinctRows: d.NumRows()}
	for it := range maxIter {
		x, err := m.EStep(d, model.InferOptions{Workers: workers})
		if err != nil {
			return nil, err
		}
		if math.IsNaN(x.LogLik) {
			return nil, errors.New("learn: mixed EM reached a NaN log-likelihood")
		}
		res.Trace = append(res.Trace, x.LogLik)
		res.Iterations, res.LogLik = it+1, x.LogLik
		if it > 0 && tol > 0 && x.LogLik-res.Trace[it-1] <= tol*math.Abs(res.Trace[it-1]) {
			res.Converged = true
			break
		}
		if it == maxIter-1 {
			break
		}
		floored, err := m.MStep(x)
		if err != nil {
			return nil, err
		}
		res.Floored = res.Floored[:0]
		for _, v := range floored {
			res.Floored = append(res.Floored, m.Tree.Name(v))
		}
	}
	return res, nil
}
