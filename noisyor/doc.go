// Package noisyor holds bipartite noisy-or networks and learns them from
// binary data with quartet tests (Jernite, Halpern & Sontag, NIPS 2013).
//
// A noisy-or network has hidden binary sources (causes: diseases, topics,
// objects in an image) and observed binary effects (symptoms, words,
// pixels). Each source X is on with probability Prior; an active source
// turns each of its children a on with probability 1 − f_{X,a}, where
// f_{X,a} is the edge's failure probability; a leak turns a on with
// probability ν_a by itself; a is 1 when anything turned it on. Any source
// may have any effect as a child, so the network is not a tree.
//
// The negative moments of the model have a closed form (NegMoment, eq. 1
// of the paper): the probability that every effect of a set S is 0 is
// ∏_{a∈S}(1−ν_a) · ∏_X (1 − p_X + p_X ∏_{a∈S} f_{X,a}). Every joint
// distribution of a few effects follows from them by inclusion–exclusion
// (Joint), and removing a known source divides it out ("subtracting off",
// eq. 3), which is how the learner finds sources hidden behind others.
//
// # Learning with quartets
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
// one finds nothing; a source's depth is its round. Leaks are what the
// sources leave unexplained. τq defaults to the paper's 0.01 for data and
// to 1e-9 for exact moments; τe to 1e-9 for exact moments and, for data,
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
// and beyond LearnOptions.MaxQuartets cliques a seeded repair search runs
// from every effect instead: it starts from a random 4-clique through the
// effect and, while the quartet fails, replaces the member that the pattern
// of its three unfoldings points to. Quartet tables come from popcounts over bit-packed columns
// (Binary), in parallel over quartets, with missing cells marginalised.
//
// The variational EM baseline (Šingliar & Hauskrecht), which fits a given
// number of sources from random starts, is in noisyor/vem.
//
// Randomness comes only from a rand.Source passed in (math/rand/v2), so the
// same inputs and seed give the same output whatever the number of cores.
package noisyor
