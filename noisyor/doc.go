// Package noisyor holds bipartite noisy-or networks: the model, its exact
// moments, likelihoods and posteriors, EM for a known structure, model
// files, sampling and generators.
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
// of Jernite, Halpern & Sontag, NIPS 2013): the probability that every effect of a set S is 0 is
// ∏_{a∈S}(1−ν_a) · ∏_X (1 − p_X + p_X ∏_{a∈S} f_{X,a}). Every joint
// distribution of a few effects follows from them by inclusion–exclusion
// (Joint), and removing a known source divides it out ("subtracting off",
// eq. 3), which is how the quartet learner finds sources hidden behind
// others.
//
// # What is here and what is elsewhere
//
// This package holds the network model and everything that needs only the
// model: exact moments (NegMoment, Joint), exact likelihoods and
// posteriors of data (LogLikelihood, Posteriors; importance sampling for
// rows beyond LikOptions.MaxExact), their scores (Score: BIC, AIC),
// maximum-likelihood EM for a known structure (FitEM), JSON model files
// (WriteJSON, ReadJSON), sampling (Sample), generators (ImageNetwork,
// RandomNetwork, QMRLike) and the structural depth analysis that says
// which sources quartets can find (QuartetDepths, DepthTable). Data enter
// as Binary, bit-packed columns built from a data.Dataset.
//
// How to choose a learner. When the structure is unknown, the quartet
// learner in noisyor/quartetlearn (Jernite, Halpern & Sontag, NIPS 2013)
// finds the sources, their children and the parameters, and polishes them
// with FitEM; it needs every source to be singly coupled at some depth
// (QuartetDepths says whether a network is) and, for data where that
// fails (overlapping sources, effects with several parents), continues
// with a residual stage that adds sources while the BIC of the whole
// network, fitted by FitEM, improves. When the structure is known,
// FitEM fits its parameters. The variational EM baseline in noisyor/vem
// (Šingliar & Hauskrecht, JMLR 2006) fits a given number of sources, each
// a possible parent of every effect, from random starts; it is slower and
// gives a lower bound, and is the paper's point of comparison.
//
// Randomness comes only from a rand.Source passed in (math/rand/v2), so the
// same inputs and seed give the same output whatever the number of cores.
package noisyor
