package quartetlearn

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/noisyor"
)

// Defaults of Options for data (the paper's experiments) and for
// exact moments ("infinite data", perfect tests up to rounding).
const (
	DefaultRankTol      = 0.01
	DefaultPMITol       = 0.1
	DefaultPMIFloor     = 0.005
	DefaultPMIZ         = 4.0
	DefaultPMIRel       = 0.2
	DefaultPairZ        = 3.0
	DefaultMaxQuartets  = 4_000_000
	DefaultExactRankTol = 1e-9
	DefaultExactPMITol  = 1e-9
	// DefaultResidualAlpha is the family-wise level of the residual
	// stage's pair test (see Options.ResidualZ).
	DefaultResidualAlpha = 0.05
	DefaultResidualIter  = 30
	DefaultPatience      = 8
)

// RankTolFor is τq for data of the given number of rows: 0.5/√rows, the
// largest standard error of a cell of the quartet's 16-cell table (a cell
// at probability 1/2). The third singular value of a singly-coupled
// quartet's unfolding is 0 but for sampling noise of that order, and the
// noise shrinks with the rows, so a fixed τq is either too loose on large
// samples or too strict on small ones; 0.5/√rows is 0.011 at 2,000 rows
// (the paper's 0.01) and 0.005 at 10,000.
func RankTolFor(rows int) float64 {
	return 0.5 / math.Sqrt(float64(max(1, rows)))
}

// Test chooses how a candidate quartet is judged singly coupled.
type Test uint8

const (
	// TestRank is the rank test: the third singular value of each of the
	// quartet's three 4×4 unfoldings is at most RankTol.
	TestRank Test = iota
	// TestCoherence is the coherence test: MIXTURE on the quartet's
	// triplets must agree (spread of the prior estimates at most
	// SpreadTol) and the one-source mixture they define must reproduce
	// the quartet's joint distribution (largest absolute error at most
	// RankTol).
	TestCoherence
)

// String returns "rank" or "coherence".
func (t Test) String() string {
	switch t {
	case TestRank:
		return "rank"
	case TestCoherence:
		return "coherence"
	}
	return "Test(" + strconv.Itoa(int(t)) + ")"
}

// ParseTest parses "rank" or "coherence".
func ParseTest(s string) (Test, error) {
	switch s {
	case "rank":
		return TestRank, nil
	case "coherence":
		return TestCoherence, nil
	}
	return 0, fmt.Errorf("noisyor: unknown quartet test %q (want rank or coherence)", s)
}

// Options configure Learn and LearnExact. The zero value runs the
// paper's algorithm with its thresholds (τe adaptive on data), then, on
// data, the residual stage (see Paper).
type Options struct {
	// RankTol is τq, the rank test's bound on the third singular value
	// (of a joint distribution, so a probability scale). Zero means
	// RankTolFor(rows) for data (0.5/√rows; the paper used
	// DefaultRankTol, 0.01) and DefaultExactRankTol for exact moments.
	// With TestCoherence it bounds the reconstruction
	// error instead.
	RankTol float64
	// PMITol is τe: PRETEST and EXTEND call three effects siblings when
	// PMI exceeds CPMI by more than τe. Zero means, for data, an adaptive
	// rule: the gap must exceed DefaultPMIFloor, DefaultPMIRel·(PMI − 1)
	// and DefaultPMIZ standard errors of its estimate (delta method on
	// the counts), which works
	// for weak sources (priors of a few percent, failures near 0.5, whose
	// gaps are ~0.01) as for strong ones; the paper's fixed τe = 0.1
	// (DefaultPMITol) misses such sources entirely. For exact moments
	// zero means DefaultExactPMITol. A positive value is used as a fixed
	// threshold, as in the paper.
	PMITol float64
	// Test is the singly-coupled test (rank by default).
	Test Test
	// SpreadTol bounds the spread (max − min) of the prior estimates of
	// the coherence test; zero means 0.05.
	SpreadTol float64
	// PairZ is the z-score above which two effects count as dependent when
	// candidate quartets are enumerated from data (only 4-cliques of
	// dependent effects can be singly coupled). Zero means DefaultPairZ.
	PairZ float64
	// MaxRounds stops after rounds 0..MaxRounds−1 (sources of depth below
	// MaxRounds); zero means no limit: rounds continue until one finds
	// nothing.
	MaxRounds int
	// MaxQuartets bounds the candidate quartets tested per round: when the
	// dependence graph has more 4-cliques, a repair search from every
	// anchor effect (with Src) spends about that many tests instead of
	// enumerating them all. Zero means DefaultMaxQuartets.
	MaxQuartets int
	// NoRefine skips the final re-estimation. By default, once the
	// structure is learned, every source's prior and failures are
	// estimated again (twice, in order) with every other learned source
	// subtracted off: MIXTURE on its quartet, and each child's failure as
	// the median of eq. 5–6 over the quartet's six pairs. This removes
	// the bias that sources found later in a round, or a quartet that only
	// nearly passed the rank test, leave in the first estimates; with
	// exact moments it changes nothing. (Beyond the paper.)
	NoRefine bool
	// NoPrune keeps every source found. By default, on data, each source
	// is kept only if it improves the BIC of its children's columns: the
	// exact marginal log-likelihood of those columns with the source,
	// against the network without it whose leaks on them are refitted to
	// the data, must gain more than (1 + children)·ln(rows)/2; a source
	// with a prior of 1/2 or more (the method assumes less) or expected on
	// in fewer rows than it has parameters is dropped. On finite data a
	// quartet can pass the tests by chance, mostly after subtracting off;
	// this removes such sources, before and after the EM polish. (Beyond
	// the paper.)
	NoPrune bool
	// Polish chooses how the parameters are finished on data (exact
	// moments need no polish): PolishEM (the default) runs
	// maximum-likelihood EM with the learned structure fixed
	// (noisyor.Network.FitEM) from the moment estimates, when its exact
	// E-step is feasible, and keeps the moment estimates otherwise
	// (Result.PolishSkipped says why); PolishNone keeps the paper's
	// moment estimates.
	Polish Polish
	// Paper runs the paper's algorithm alone (with the refinement, the
	// pruning and the polish above unless they are turned off). By
	// default, on data with the EM polish, the residual stage follows:
	// candidate sources from the dependence the learned network leaves
	// unexplained, each kept only when it improves the BIC of the whole
	// network after EM (see Learn). Exact moments always run the paper's
	// algorithm alone.
	Paper bool
	// ResidualZ is the threshold of the residual stage: a pair of effects
	// seeds a candidate source when its log PMI exceeds the network's by
	// more than ResidualZ standard errors (delta method on the pair's
	// counts). Zero means the one-sided Bonferroni bound of level
	// DefaultResidualAlpha over the m(m−1)/2 pairs (4.26 for 100
	// effects), so that on data from the network itself a candidate
	// arises by chance with probability about DefaultResidualAlpha.
	ResidualZ float64
	// ResidualIter is the number of EM updates a candidate network gets
	// before its BIC is compared; zero means DefaultResidualIter.
	ResidualIter int
	// Patience stops the residual stage after that many candidates in a
	// row are rejected; zero means DefaultPatience.
	Patience int
	// Workers is the number of goroutines; zero means GOMAXPROCS. The
	// result does not depend on it.
	Workers int
	// Src drives the quartet search (see MaxQuartets); nil means the
	// fixed seed rand.NewPCG(1, 0x6e6f), the CLI's default --seed.
	Src rand.Source
	// Logger, if not nil, receives one line per round.
	Logger *slog.Logger
}

// Polish says how Learn finishes the parameters; see Options.Polish.
type Polish uint8

const (
	// PolishEM runs maximum-likelihood EM with the structure fixed.
	PolishEM Polish = iota
	// PolishNone keeps the method-of-moments estimates.
	PolishNone
)

// String returns "em" or "none".
func (p Polish) String() string {
	switch p {
	case PolishEM:
		return "em"
	case PolishNone:
		return "none"
	}
	return "Polish(" + strconv.Itoa(int(p)) + ")"
}

// ParsePolish parses "em" or "none".
func ParsePolish(s string) (Polish, error) {
	switch s {
	case "em":
		return PolishEM, nil
	case "none":
		return PolishNone, nil
	}
	return 0, fmt.Errorf("noisyor: unknown polish %q (want em or none)", s)
}

// Round reports one round (depth) of STRUCTURE-LEARN.
type Round struct {
	Depth int `json:"depth"`
	// Candidates is the number of quartets tested: 4-cliques of the
	// dependence graph (with, after round 0, a member whose moments
	// changed since the last round); Sampled says they were chosen by the
	// quartet search because there were more than MaxQuartets.
	Candidates int  `json:"candidates"`
	Sampled    bool `json:"sampled,omitempty"`
	// Pretest and Passed count the quartets that passed PRETEST and then
	// the singly-coupled test.
	Pretest int `json:"pretest"`
	Passed  int `json:"passed"`
	// Sources and Edges learned in the round.
	Sources int           `json:"sources"`
	Edges   int           `json:"edges"`
	Time    time.Duration `json:"time_ns"`
}

// Result is what Learn returns.
type Result struct {
	// Network is the learned network: sources in the order found, each
	// with its Learned provenance, and leaks.
	Network *noisyor.Network
	Rounds  []Round
	// Rows is the number of data rows (0 for exact moments).
	Rows int
	// Moments is the network as the quartet method estimated it (the
	// paper's estimates), before the EM polish; nil when there was none.
	Moments *noisyor.Network
	// Polish is the EM polish's run (nil when it did not run) and
	// PolishSkipped says why it did not run when it was asked for.
	Polish        *noisyor.EMResult
	PolishSkipped string
	// Dropped are the sources removed because they do not pay for
	// themselves in BIC on their children's columns (quartets that passed
	// the tests by chance), in the order found; see Options.NoPrune.
	Dropped []noisyor.Source
	// Stages counts the candidates each stage tested and accepted: the
	// paper's quartets (candidate quartets tested, sources kept after
	// pruning) and, unless Options.Paper, the residual stage (candidate
	// sources tried, sources kept).
	Stages []Stage
	// RankTol and PMITol are the thresholds the quartet stage used (τq;
	// τe, or its floor when the adaptive rule is on); ResidualZ the
	// residual stage's (0 when it did not run).
	RankTol, PMITol, ResidualZ float64
	// PMITolAdaptive says τe was the adaptive rule (PMITol its floor).
	PMITolAdaptive bool
	// LogLik is the log-likelihood of the training data under Network
	// when the EM polish ran (NaN otherwise).
	LogLik float64
	Time   time.Duration
}

// Learn learns a noisy-or network from binary data with quartet tests
// (Jernite, Halpern & Sontag 2013, Algorithm 1 and §4): round d tests the
// candidate quartets, with the sources of rounds < d subtracted off
// (eq. 3), by PRETEST and the rank (or coherence) test; each surviving
// quartet, in increasing order of its largest third singular value, gives
// a new source by MIXTURE (eq. 2) whose other children and failures EXTEND
// finds with conditional PMI (eqs. 4–6), unless it overlaps a source
// already found in the round and fails the test again with that round's
// sources subtracted off too. Rounds continue until one finds nothing (or
// Options.MaxRounds). Leaks are what the learned sources leave
// unexplained: ν_a = 1 − P(a = 0)/∏_X(1 − p_X + p_X f_{X,a}). Beyond the
// paper, and each step optional (Options.NoRefine, NoPrune, Polish), the
// sources are then re-estimated with the others subtracted off, those
// that do not improve the BIC of their children's columns are dropped,
// and the parameters are polished by EM.
//
// Moments use, for each set of effects, the rows that observe all of it,
// so missing cells are marginalised (unbiased when they are missing at
// random).
func Learn(b *noisyor.Binary, opt Options) (*Result, error) {
	if b == nil {
		return nil, errors.New("noisyor: nil data")
	}
	t0 := time.Now()
	if err := checkLearnInput(b); err != nil {
		return nil, err
	}
	if opt.Polish != PolishEM && opt.Polish != PolishNone {
		return nil, fmt.Errorf("noisyor: unknown polish %v", opt.Polish)
	}
	res, err := learn(newDataMoments(b), b.Names, false, opt)
	if err != nil {
		return nil, err
	}
	res.Rows = b.Rows
	res.LogLik = math.NaN()
	if !opt.NoPrune {
		res.Dropped = pruneLocal(res.Network, b)
	}
	if opt.Polish == PolishEM && res.Network.NumSources() > 0 {
		if err := polish(res, b, opt); err != nil {
			res.PolishSkipped = err.Error()
		} else {
			res.LogLik = res.Polish.LogLik
		}
	}
	quartets := Stage{Name: "quartets", Accepted: res.Network.NumSources(), Time: time.Since(t0)}
	for _, rd := range res.Rounds {
		quartets.Tested += rd.Candidates
	}
	res.Stages = []Stage{quartets}
	if !opt.Paper && opt.Polish == PolishEM && res.PolishSkipped == "" {
		if err := residualStage(res, b, opt); err != nil {
			return nil, err
		}
	}
	res.Time = time.Since(t0)
	return res, nil
}

// screenIter bounds the EM updates after which the polish screens the
// sources again (pruneLocal) before running to convergence: sources that
// passed the tests by chance cost EM much (they join effects into large
// components) and are recognised once the others fit.
const screenIter = 15

// polish runs the EM polish of Learn: screenIter updates, the pruning
// again unless opt.NoPrune, then EM to convergence from there. The
// reported run covers both parts.
func polish(res *Result, b *noisyor.Binary, opt Options) error {
	first, em, err := res.Network.FitEM(b, noisyor.EMOptions{Workers: opt.Workers, MaxIter: screenIter})
	if err != nil {
		return err
	}
	if !em.Converged {
		if !opt.NoPrune {
			res.Dropped = append(res.Dropped, pruneLocal(first, b)...)
		}
		next, em2, err := first.FitEM(b, noisyor.EMOptions{Workers: opt.Workers})
		if err != nil {
			return err
		}
		em = &noisyor.EMResult{Iterations: em.Iterations + em2.Iterations, Converged: em2.Converged, LogLik: em2.LogLik,
			Trace: append(em.Trace, em2.Trace[1:]...), Duration: em.Duration + em2.Duration}
		first = next
	} else if !opt.NoPrune {
		if more := pruneLocal(first, b); len(more) > 0 {
			res.Dropped = append(res.Dropped, more...)
			next, em2, err := first.FitEM(b, noisyor.EMOptions{Workers: opt.Workers})
			if err != nil {
				return err
			}
			first, em = next, em2
		}
	}
	res.Moments, res.Network, res.Polish = res.Network, first, em
	return nil
}

// LearnExact runs the same algorithm on the exact moments of net ("infinite
// data"), to study which networks the quartet method can identify and at
// which depth.
func LearnExact(net *noisyor.Network, opt Options) (*Result, error) {
	if err := net.Validate(); err != nil {
		return nil, err
	}
	if len(net.Effects) < 4 {
		return nil, fmt.Errorf("noisyor: %d effects; quartet learning needs at least 4", len(net.Effects))
	}
	return learn(newExactMoments(net), net.Effects, true, opt)
}

// checkLearnInput rejects data the method cannot use.
func checkLearnInput(b *noisyor.Binary) error {
	if len(b.Names) < 4 {
		return fmt.Errorf("noisyor: %d effects; quartet learning needs at least 4", len(b.Names))
	}
	if b.Rows == 0 {
		return errors.New("noisyor: no rows")
	}
	for a, name := range b.Names {
		if b.CountZeros(a) == 0 && b.Rows > b.Missing[a] {
			return fmt.Errorf("noisyor: effect %q is 1 in every observed row; the method needs P(%s = 0) > 0", name, name)
		}
		if b.Missing[a] == b.Rows {
			return fmt.Errorf("noisyor: effect %q has no observed cell", name)
		}
	}
	return nil
}

// gap returns the PMI-gap rule for a tensor with raw (unadjusted) moments
// resting on rows rows.
func (r resolved) gap(raw []float64, rows int64) gapRule {
	return gapRule{tau: r.pmiTol, z: r.pmiZ, rel: r.pmiRel, raw: raw, rows: rows}
}

// resolved are the options with defaults filled in.
type resolved struct {
	rankTol, pmiTol, spread, pairZ  float64
	pmiZ, pmiRel                    float64
	maxPrior                        float64
	maxQuartets, workers, maxRounds int
	test                            Test
}

func resolve(opt Options, exact bool) (resolved, error) {
	r := resolved{rankTol: opt.RankTol, pmiTol: opt.PMITol, spread: opt.SpreadTol, pairZ: opt.PairZ,
		maxQuartets: opt.MaxQuartets, workers: opt.Workers, test: opt.Test}
	check := func(name string, v float64) error {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("noisyor: %s is %v, want a finite value ≥ 0", name, v)
		}
		return nil
	}
	for _, c := range []struct {
		n string
		v float64
	}{{"RankTol", r.rankTol}, {"PMITol", r.pmiTol}, {"SpreadTol", r.spread}, {"PairZ", r.pairZ}} {
		if err := check(c.n, c.v); err != nil {
			return r, err
		}
	}
	if r.rankTol >= 1 {
		return r, fmt.Errorf("noisyor: RankTol %v is not below 1 (it bounds a singular value of a probability table)", r.rankTol)
	}
	if r.rankTol == 0 {
		r.rankTol = DefaultRankTol
		if exact {
			r.rankTol = DefaultExactRankTol
		}
	}
	if r.pmiTol == 0 {
		switch {
		case exact:
			r.pmiTol = DefaultExactPMITol
		default:
			// Adaptive: the gap must exceed a small floor and
			// DefaultPMIZ standard errors (see Options.PMITol).
			r.pmiTol, r.pmiZ, r.pmiRel = DefaultPMIFloor, DefaultPMIZ, DefaultPMIRel
		}
	}
	if r.spread == 0 {
		r.spread = 0.05
	}
	// On data, a quartet whose mixture has a prior far above 1/2 is noise
	// (the method assumes priors ≤ 1/2: CPMI's smaller root needs it).
	r.maxPrior = 1
	if !exact {
		r.maxPrior = 0.6
	}
	if r.pairZ == 0 {
		r.pairZ = DefaultPairZ
	}
	if r.maxQuartets < 0 {
		return r, fmt.Errorf("noisyor: MaxQuartets %d is negative", r.maxQuartets)
	}
	if r.maxQuartets == 0 {
		r.maxQuartets = DefaultMaxQuartets
	}
	if r.workers <= 0 {
		r.workers = runtime.GOMAXPROCS(0)
	}
	if r.test != TestRank && r.test != TestCoherence {
		return r, fmt.Errorf("noisyor: unknown test %v", r.test)
	}
	if opt.MaxRounds < 0 {
		return r, fmt.Errorf("noisyor: MaxRounds %d is negative", opt.MaxRounds)
	}
	r.maxRounds = opt.MaxRounds
	return r, nil
}

// Search settings when there are more cliques than Options.MaxQuartets:
// up to searchPhases phases per round, each anchor stopping after
// searchFound quartets that no source of the round explains.
const (
	searchPhases = 4
	searchFound  = 2
)

// verdict is a tested candidate quartet.
type verdict struct {
	q        quartetKey
	pass     bool
	pretest  bool
	singular [3]float64
	worst    float64
}

// learn is STRUCTURE-LEARN on any moments: rounds (learner.round) until
// one finds no source or MaxRounds is reached, then the refinement and
// the leaks.
func learn(mo moments, names []string, exact bool, opt Options) (*Result, error) {
	start := time.Now()
	r, err := resolve(opt, exact)
	if err != nil {
		return nil, err
	}
	if !exact && opt.RankTol == 0 {
		if d, ok := mo.(*dataMoments); ok {
			r.rankTol = RankTolFor(d.b.Rows)
		}
	}
	rng := seed.Rand(opt.Src, seed.QuartetLearn)
	m := mo.numEffects()
	l := &learner{mo: mo, r: r, exact: exact, m: m, learned: newLearnedIndex(m), net: &noisyor.Network{Effects: slices.Clone(names)}}
	res := &Result{Network: l.net, RankTol: r.rankTol, PMITol: r.pmiTol, PMITolAdaptive: r.pmiZ > 0}
	var touched bitset // effects whose moments changed in the last round
	for depth := 0; r.maxRounds == 0 || depth < r.maxRounds; depth++ {
		round, next := l.round(depth, touched, rng)
		res.Rounds = append(res.Rounds, round)
		if opt.Logger != nil {
			opt.Logger.Info("noisyor round", "depth", depth, "candidates", round.Candidates, "sampled", round.Sampled,
				"pretest", round.Pretest, "passed", round.Passed, "sources", round.Sources, "edges", round.Edges, "time", round.Time)
		}
		if round.Sources == 0 {
			break
		}
		touched = next
	}
	if !opt.NoRefine {
		for range 2 {
			refine(mo, l.learned, r)
		}
	}
	l.net.Leak = leaks(mo, l.learned)
	res.Time = time.Since(start)
	return res, nil
}

// learner is the state of learn between rounds: the sources found so far,
// in net and indexed by learned.
type learner struct {
	mo      moments
	r       resolved
	exact   bool
	m       int // effects
	learned *learnedIndex
	net     *noisyor.Network
}

// round runs round depth: the candidate quartets among the effects
// touched in the last round (all effects when touched is nil) are tested,
// all of them or, when there are more than MaxQuartets, those of a search
// in phases, and the passing ones become sources. It returns the round's
// report and the effects that got a new parent.
func (l *learner) round(depth int, touched bitset, rng *rand.Rand) (Round, bitset) {
	t0 := time.Now()
	r := l.r
	upto := len(l.learned.sources)
	adj := dependenceGraph(l.mo, l.learned, upto, l.exact, r.pmiTol*1e-3, r.pairZ, r.workers)
	cands, all := cliques(adj, touched, r.maxQuartets)
	round := Round{Depth: depth}
	next := newBitset(l.m)
	if !all {
		// Too many cliques to test them all: a search from every
		// anchor, in phases. A phase's passing quartets that this
		// round's sources already explain do not count, so later
		// phases spend their budget on sources not yet found.
		nAnchors := l.m
		if touched != nil {
			nAnchors = touched.count()
		}
		budget := min(max(50, r.maxQuartets/max(1, nAnchors)/searchPhases), 20000)
		round.Sampled = true
		for range searchPhases {
			pass, tested, pre := searchQuartets(l.mo, l.learned, upto, adj, touched, budget, searchFound, rng.Uint64(), r)
			round.Candidates += tested
			round.Pretest += pre
			round.Passed += len(pass)
			if l.absorb(pass, upto, &round, next) == 0 {
				break
			}
		}
	} else {
		pass, pre := l.testAll(cands, upto)
		round.Candidates = len(cands)
		round.Pretest += pre
		round.Passed = len(pass)
		l.absorb(pass, upto, &round, next)
	}
	// learned.sources point into net.Sources, which append may move:
	// rebuild the index on the final slice.
	l.learned = newLearnedIndex(l.m)
	for i := range l.net.Sources {
		l.learned.add(&l.net.Sources[i])
	}
	round.Time = time.Since(t0)
	return round, next
}

// testAll tests every candidate quartet, subtracting off the first upto
// learned sources, in blocks on the workers. It returns the passing ones
// in candidate order and the number that passed PRETEST.
func (l *learner) testAll(cands []quartetKey, upto int) ([]verdict, int) {
	const block = 512
	nb := (len(cands) + block - 1) / block
	blockPass := make([][]verdict, nb)
	blockPre := make([]int, nb)
	parallel.For(l.r.workers, nb, func(_, bi int) {
		var t [16]float64
		set := make([]int, 4)
		for i := bi * block; i < min(len(cands), (bi+1)*block); i++ {
			q := cands[i]
			for k := range 4 {
				set[k] = int(q[k])
			}
			v := testQuartet(l.mo, l.learned, upto, set, &t, l.r, false)
			if v.pretest {
				blockPre[bi]++
			}
			if v.pass {
				blockPass[bi] = append(blockPass[bi], v)
			}
		}
	})
	var pass []verdict
	pre := 0
	for bi := range nb {
		pre += blockPre[bi]
		pass = append(pass, blockPass[bi]...)
	}
	return pass, pre
}

// absorb turns passing quartets, in increasing order of their largest
// third singular value, into new sources of round, marking their children
// in next. It returns the number of sources added.
func (l *learner) absorb(pass []verdict, upto int, round *Round, next bitset) int {
	slices.SortStableFunc(pass, func(x, y verdict) int { return cmp.Compare(x.worst, y.worst) })
	var t [16]float64
	set := make([]int, 4)
	added := 0
	for _, v := range pass {
		for k := range 4 {
			set[k] = int(v.q[k])
		}
		// Subtract this round's sources too: a quartet they explain is
		// not a new source. (The paper skips every quartet that overlaps
		// a source found in the round; that would also delay a source
		// sharing one child with it to a later round.)
		if overlaps(l.learned, upto, set) {
			if w := testQuartet(l.mo, l.learned, len(l.learned.sources), set, &t, l.r, false); !w.pass {
				continue
			}
		}
		s, ok := newSource(l.mo, l.learned, set, v, round.Depth, l.r)
		if !ok {
			continue
		}
		s.Name = "X" + strconv.Itoa(len(l.net.Sources)+1)
		l.net.Sources = append(l.net.Sources, s)
		l.learned.add(&l.net.Sources[len(l.net.Sources)-1])
		added++
		round.Edges += len(s.Children)
		for _, c := range s.Children {
			next.set(c.Effect)
		}
	}
	round.Sources += added
	return added
}

// testQuartet computes the quartet's negative moments, subtracts off the
// first upto learned sources and applies PRETEST and the singly-coupled
// test. With all it computes all three unfoldings, which the repair search
// reads; without, the rank test stops at the first unfolding above τq (the
// later ones are left 0).
func testQuartet(mo moments, learned *learnedIndex, upto int, set []int, t *[16]float64, r resolved, all bool) verdict {
	v := verdict{q: quartetKey{int32(set[0]), int32(set[1]), int32(set[2]), int32(set[3])}}
	rows := mo.neg(set, t[:])
	if rows == 0 {
		return v
	}
	raw := *t
	learned.adjust(set, t[:], upto)
	if !pretest(t, r.gap(raw[:], rows)) {
		return v
	}
	v.pretest = true
	joint := *t
	noisyor.NegToJoint(joint[:], 4)
	bound := r.rankTol
	if all || r.test != TestRank {
		bound = math.Inf(1)
	}
	v.singular, v.pass = unfoldingsBelow(&joint, bound)
	v.worst = max(v.singular[0], v.singular[1], v.singular[2])
	switch r.test {
	case TestRank:
		v.pass = v.worst <= r.rankTol
	case TestCoherence:
		v.pass = coherent(&joint, r.spread, r.rankTol)
	}
	return v
}

// coherent is the coherence test: MIXTURE on the four triplets must agree
// (prior estimates within spread) and the one-source model they define
// must reproduce the quartet's joint within tol (largest absolute error).
func coherent(joint *[16]float64, spread, tol float64) bool {
	var priors []float64
	for o := range 4 {
		m := others(o)
		j := triplet8(joint, m[0], m[1], m[2])
		p, _, ok := mixture3(&j)
		if !ok {
			return false
		}
		priors = append(priors, p)
	}
	if slices.Max(priors)-slices.Min(priors) > spread {
		return false
	}
	prior, fail, ok := quartetMixture(joint)
	if !ok || !(prior > 0 && prior < 1) {
		return false
	}
	// Rebuild: each member's own-noise zero probability α_i from its
	// marginal P(i=0) = α_i(1 − p + p f_i).
	var alpha [4]float64
	for i := range 4 {
		p0 := 0.0
		for idx, v := range joint {
			if idx>>(3-i)&1 == 0 {
				p0 += v
			}
		}
		alpha[i] = p0 / (1 - prior + prior*fail[i])
	}
	worst := 0.0
	for idx, v := range joint {
		off, on := 1-prior, prior
		for i := range 4 {
			z := idx>>(3-i)&1 == 0
			a0, a1 := alpha[i], alpha[i]*fail[i]
			if z {
				off *= a0
				on *= a1
			} else {
				off *= 1 - a0
				on *= 1 - a1
			}
		}
		worst = math.Max(worst, math.Abs(off+on-v))
	}
	return worst <= tol
}

// overlaps reports whether a member of set is a child of a source learned
// in this round (index ≥ upto).
func overlaps(learned *learnedIndex, upto int, set []int) bool {
	for _, a := range set {
		for _, p := range learned.parents[a] {
			if p.Source >= upto {
				return true
			}
		}
	}
	return false
}

// newSource runs MIXTURE on the quartet (subtracting the sources of
// earlier rounds) and EXTEND over every other effect (subtracting every
// source known so far).
func newSource(mo moments, learned *learnedIndex, set []int, v verdict, depth int, r resolved) (noisyor.Source, bool) {
	var t [16]float64
	mo.neg(set, t[:])
	learned.adjust(set, t[:], len(learned.sources))
	joint := t
	noisyor.NegToJoint(joint[:], 4)
	prior, fail, ok := quartetMixture(&joint)
	if !ok || !(prior > 0) || prior > r.maxPrior {
		return noisyor.Source{}, false
	}
	prior = math.Min(prior, 1)
	// EXTEND from the pair with the smallest f_a·f_b.
	pa, pb := 0, 1
	for i := range 4 {
		for j := i + 1; j < 4; j++ {
			if fail[i]*fail[j] < fail[pa]*fail[pb] {
				pa, pb = i, j
			}
		}
	}
	a, b := set[pa], set[pb]
	fa, fb := clampFail(fail[pa]), clampFail(fail[pb])
	s := noisyor.Source{Prior: prior, Learned: &noisyor.Provenance{Depth: depth, Singular: v.singular, Pair: [2]int{a, b}}}
	for k := range 4 {
		s.Learned.Quartet[k] = set[k]
	}
	inQuartet := func(x int) int {
		for k, y := range set {
			if y == x {
				return k
			}
		}
		return -1
	}
	m := mo.numEffects()
	var t8 [8]float64
	trip := []int{a, b, 0}
	for x := range m {
		if k := inQuartet(x); k >= 0 {
			if f := clampFail(fail[k]); f < 1 {
				s.Children = append(s.Children, noisyor.Child{Effect: x, Failure: f})
			}
			continue
		}
		trip[2] = x
		rows := mo.neg(trip, t8[:])
		if rows == 0 {
			continue
		}
		raw := t8
		learned.adjust(trip, t8[:], len(learned.sources))
		ok, _, cpmi := r.gap(raw[:], rows).shares(t8[:], 3, 0, 1, 2)
		if !ok {
			continue
		}
		if f := clampFail(extendFailure(cpmi, fa, fb, prior)); f < 1 {
			s.Children = append(s.Children, noisyor.Child{Effect: x, Failure: f})
		}
	}
	return s, len(s.Children) >= 4
}

// clampFail maps a failure estimate into [0, 1]; 1 (no edge) for
// estimates at or above 1 − 1e-12 and for NaN.
func clampFail(f float64) float64 {
	switch {
	case math.IsNaN(f) || f >= 1-1e-12:
		return 1
	case f < 0:
		return 0
	}
	return f
}

// leaks returns ν_a = 1 − P(a = 0)/∏_X(1 − p_X + p_X f_{X,a}), clamped
// to [0, 1).
func leaks(mo moments, learned *learnedIndex) []float64 {
	m := mo.numEffects()
	nu := make([]float64, m)
	var t [2]float64
	set := []int{0}
	for a := range m {
		set[0] = a
		if mo.neg(set, t[:]) == 0 {
			continue
		}
		learned.adjust(set, t[:], len(learned.sources))
		v := 1 - t[0]
		if v < 0 || math.IsNaN(v) {
			v = 0
		}
		nu[a] = math.Min(v, 1-1e-12)
	}
	return nu
}

// refine re-estimates every learned source's parameters with all the
// other learned sources subtracted off (see Options.NoRefine). The
// structure is kept; a child whose failure reaches 1 is dropped.
func refine(mo moments, learned *learnedIndex, r resolved) {
	all := len(learned.sources)
	for id, s := range learned.sources {
		q := s.Learned.Quartet
		set := q[:]
		var t [16]float64
		if mo.neg(set, t[:]) == 0 {
			continue
		}
		learned.adjustSkip(set, t[:], all, id)
		joint := t
		noisyor.NegToJoint(joint[:], 4)
		prior, fail, ok := quartetMixture(&joint)
		if !ok || !(prior > 0) {
			continue
		}
		prior = math.Min(prior, 1)
		var fq [4]float64
		for k := range 4 {
			fq[k] = clampFail(fail[k])
		}
		est := make([]float64, 0, 6)
		kept := s.Children[:0]
		for _, c := range s.Children {
			f := c.Failure
			if k := slices.Index(set, c.Effect); k >= 0 {
				f = fq[k]
			} else {
				est = est[:0]
				var t4 [4]float64
				pair := make([]int, 2)
				for i := range 4 {
					if fq[i] >= 1 {
						continue
					}
					pair[0], pair[1] = set[i], c.Effect
					if mo.neg(pair, t4[:]) == 0 {
						continue
					}
					learned.adjustSkip(pair, t4[:], all, id)
					if f, ok := pairFailure(t4[0], t4[1], t4[2], fq[i], prior); ok {
						est = append(est, f)
					}
				}
				if len(est) > 0 {
					f = median(est)
				}
			}
			if f < 1 {
				kept = append(kept, noisyor.Child{Effect: c.Effect, Failure: f})
			}
		}
		s.Children = kept
		s.Prior = prior
	}
	// The index holds copies of the failures: rebuild it.
	rebuilt := newLearnedIndex(len(learned.parents))
	for _, s := range learned.sources {
		rebuilt.add(s)
	}
	*learned = *rebuilt
}

// pairFailure estimates f_{A,x} from the pairwise negative moments of a
// child a of A and x, with every other source subtracted off: then
// PMI(a,x) = (1−p+p·f_a·f_x)/((1−p+p·f_a)(1−p+p·f_x)) (leaks cancel), which
// is linear in f_x given p and f_a.
func pairFailure(nax, na, nx, fa, p float64) (float64, bool) {
	if !(na > 0 && nx > 0) {
		return 0, false
	}
	pmi := nax / (na * nx)
	d := 1 - p + p*fa
	den := p * (pmi*d - fa)
	if den == 0 || !finite(pmi) {
		return 0, false
	}
	f := (1 - p) * (1 - pmi*d) / den
	if !finite(f) {
		return 0, false
	}
	return clampFail(f), true
}
