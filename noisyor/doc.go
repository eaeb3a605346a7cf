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
// Randomness comes only from a rand.Source passed in (math/rand/v2), so the
// same inputs and seed give the same output whatever the number of cores.
package noisyor
