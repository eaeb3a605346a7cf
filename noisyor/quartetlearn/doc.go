// Package quartetlearn learns the structure and parameters of bipartite
// noisy-or networks (noisyor.Network) from binary data with quartet tests
// (Jernite, Halpern & Sontag, "Discovering hidden variables in noisy-or
// networks using quartet tests", NIPS 2013).
//
// Learn (from data) and LearnExact (from a network's exact moments,
// "infinite data") run STRUCTURE-LEARN of Jernite, Halpern & Sontag:
// round d tests candidate quartets of effects with the sources of earlier
// rounds subtracted off. PRETEST keeps quartets whose every triplet shares
// a parent (PMI − CPMI > τe, Lemma 2); the rank test keeps those whose
// three 4×4 unfoldings have a third singular value ≤ τq (singly coupled:
// one source is a parent of all four and no other source of two); the
// coherence test is an alternative. Survivors, in increasing order of that
// singular value, give new sources: MIXTURE (eq. 2, the median over the
// quartet's triplets) their prior and failures on the quartet, EXTEND
// (conditional PMI, eqs. 4–6) their other children. Rounds continue until
// one finds nothing (or Options.MaxRounds); a source's depth is its round. Leaks are what the
// sources leave unexplained. τq defaults to 0.5/√rows for data
// (RankTolFor: the largest standard error of a cell of the quartet's
// table; the paper's 0.01 is that at 2,000 rows) and to 1e-9 for exact
// moments; τe to 1e-9 for exact moments and, for data,
// to an adaptive rule (a gap above 0.005, above 0.2·(PMI − 1) and above 4
// standard errors of its estimate from the counts) that finds weak sources
// the paper's fixed τe = 0.1 misses (priors of a few percent, failures
// near 0.5). Beyond the paper, on data, a source is kept only if it
// improves the BIC of its children's columns (exact marginal likelihood
// with and without it): on finite data quartets can pass the tests by
// chance, mostly after subtracting off.
//
// Candidate quartets are never all C(m, 4): only 4-cliques of the graph of
// dependent effect pairs can be singly coupled, after round 0 only cliques
// with an effect whose moments the last round changed are tested again,
// and beyond Options.MaxQuartets cliques a seeded repair search runs from
// every effect instead: it starts from a random 4-clique through the
// effect and, while the quartet fails, replaces the member that the
// pattern of its three unfoldings points to. Quartet tables come from
// popcounts over bit-packed columns (noisyor.Binary), in parallel over
// quartets, with missing cells marginalised.
//
// After the moments, Learn polishes the parameters on data with
// maximum-likelihood EM for the learned structure (noisyor.Network.FitEM;
// Options.Polish), pruning again the sources that do not improve the BIC.
//
// # Beyond the paper: the residual stage
//
// Real binary data are not a bipartite network whose sources all have
// singly-coupled quartets: topics of words overlap, effects have several
// parents, and on 100 newsgroup words the paper's algorithm finds one
// source where variational EM finds eight. So, unless Options.Paper, Learn
// continues where the quartet stage stops (residual stage, grow.go):
//
//  1. Residual dependence. For every pair of effects, the excess of the
//     data's log PMI over the learned network's exact log PMI (eq. 1),
//     in standard errors of its estimate from the pair's counts (delta
//     method). Pairs above a Bonferroni bound over the m(m−1)/2 pairs
//     (Options.ResidualZ) are dependence the network does not explain;
//     on data from the network itself one arises with probability 0.05.
//  2. A candidate source. The strongest untried pair seeds it; effects
//     join while their combined evidence with the members (Stouffer's
//     sum of residual z-scores over √members) exceeds the Bonferroni
//     bound over the m effects, so a source's weak children, each only
//     a little dependent on each other child, join. Its prior and
//     failures start from the paper's own estimators on the residual:
//     MIXTURE on the quartet of its four first members and pairwise
//     failures for the rest, with the learned sources subtracted off
//     (eq. 3). Children may already have parents, so effects get several
//     parents and sources share children.
//  3. Acceptance. The candidate is first screened on the columns of its
//     members alone: the network's marginal on them is a small noisy-or
//     network (exact), fitted by EM to convergence there with the
//     candidate, the source it would extend and the leaks free and every
//     other source held, with and without the candidate; a candidate
//     that does not improve the BIC there goes no further, and the cost
//     of judging it is that of EM on a few columns (the merge and the
//     trims below are screened the same way). A candidate that passes is
//     added and the whole network polished by EM (noisyor.Network.FitEM:
//     exact likelihood). When a source of
//     the network already has at least two of the candidate's members as
//     children, giving it the other members instead is tried too (a
//     source whose first candidate lacked a weak child leaves residual
//     dependence that is its own, and a second source over nearly the same
//     children would also improve the BIC, by less). The better of the two
//     is kept when its BIC beats the network's own after the same number
//     of EM updates (so that a candidate is not credited with EM still
//     converging on the sources it shares with the network), and then the
//     edges that cannot pay for themselves are trimmed (the gain of an
//     edge if its source were observed, an upper bound, must reach
//     ln(rows)/2). A rejected candidate's pairs seed no
//     more; the stage ends when no untried pair is left or after
//     Options.Patience rejections in a row, and the network is polished
//     by EM to convergence.
//  4. Merge. Giving a weak child to the source already there can still
//     lose, after only a few EM updates, to a second source over nearly
//     the same children, each with about half the true prior. So each
//     pair of sources sharing at least two children, one of them added by
//     this stage, is tried as one source over the union of their children
//     (the parameters of the one with the larger prior, the sum of the
//     priors), polished by EM to convergence like the network itself; it
//     is kept when the BIC improves (mergeSources). Last, the edges whose
//     bound is below their cost, or whose failure is above 0.95, are
//     trimmed one at a time, weakest first
//     (trimGreedy): each removal (with its source, when that leaves it one
//     child) is kept when the BIC after a few EM updates of the whole
//     network beats the current one's, so that one edge that pays for
//     nothing (a failure near 1 left by the polish) is not kept because
//     removing it together with the others would lower the BIC; the
//     network is then polished to convergence again.
//
// Why this and not the alternatives the issue lists. Quartets that fail
// only the rank test are still quartets: a topic of rare words has few
// quartets whose PMI gaps pass at a few thousand rows, and those it has
// are seldom singly coupled once topics overlap. A spectral or
// anchor-word step needs the number of sources and anchors (words with
// one parent), which overlapping topics lack. Residual pairs need
// neither: they measure directly what the network still misses, they are
// cheap (m² exact moments), they are zero in expectation when the
// network is right (so on simulated networks the paper's answer is left
// alone: no candidate arises), and the exact EM with BIC judges every
// candidate on the likelihood of all the data rather than on a test of
// four columns. BIC rather than a held-out split: it uses every row for
// fitting, needs no second fit, and penalises each edge by ln(rows)/2,
// which is what keeps the weak edges of an over-generous cluster out.
//
// How to choose. Learn (data) and LearnExact (a network's exact moments)
// need no number of sources and no restarts; they find a source when it
// is singly coupled at some depth (noisyor.QuartetDepths says which are).
// For a known structure use noisyor.Network.FitEM directly; to fit a
// given number of sources without structural assumptions, the variational
// EM baseline in noisyor/vem.
//
// Randomness comes only from Options.Src (math/rand/v2), so the same
// inputs and seed give the same output whatever the number of cores.
package quartetlearn
