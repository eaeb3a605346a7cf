// Package experiment reproduces the experiments of the papers latentree
// implements, as library functions that return rows of results (written as
// CSV or tables, and plotted, by the latentree experiment command). Each
// experiment takes a config struct whose zero value gives its defaults,
// with a Seed from which all of its randomness is drawn, so that a run can
// be repeated exactly.
//
// StructureRecovery reproduces Choi et al. (JMLR 2011, §7.1, Figure 7):
// structure recovery of the double star, HMM and 5-complete latent trees
// from samples of Gaussian models with edge correlations ρ ~ U[0.2, 0.8]
// (command: experiment structure-recovery; PlotRecovery draws it).
//
// Newsgroups reproduces JMLR 2011 Table 4 on the 20 Newsgroups data: each
// method learns a tree on the training split, EM fits it and both splits
// are scored, next to the numbers of the paper and of the original
// toolbox (command: experiment newsgroups).
//
// QuartetRecovery reproduces the quartet experiment of Ishteva, Park and
// Song (ICML 2013, §6.1): how often the nuclear-norm test, the four-point
// condition on the Lake distance and Spectral@k resolve a sampled quartet
// correctly (command: experiment quartet-recovery; PlotQuartets).
//
// QuartetTrees extends it to whole trees: the Robinson–Foulds error of the
// trees built from quartet tests (latentree's builder and the paper's),
// neighbour joining, CLNJ and Chow–Liu on random binary latent trees
// (command: experiment quartet-trees; PlotQuartetTrees).
//
// SmallSample compares, on random Gaussian and discrete latent trees with
// few rows, each method's default with the same method without
// contraction and with the Chow–Liu tree, by the BIC of the fitted model
// and a held-out log-likelihood (command: experiment small-sample).
//
// Spectral reproduces Figure 2 of Song et al. (ICML 2013): the relative
// error of P̂ on held-out rows for EM (the paper's protocol, latentree's
// accelerated default and EM from the spectral start) and the spectral
// estimates (Parikh et al.'s linker, local and literal M*) on
// non-homogeneous HMMs and random and balanced binary latent trees, with
// k′ below or equal to the true number of hidden states (command:
// experiment spectral; PlotSpectral).
//
// NoisyorImage reproduces Figure 3 of Jernite, Halpern & Sontag (NIPS
// 2013): variational EM against quartet learning on the 8-source image
// network by training size, with exact held-out log-likelihoods and a PNG
// grid of the sources (command: experiment noisyor-image). NoisyorDepth
// reproduces their aQMR-DT depth table on a synthetic QMR-like network
// from exact moments (command: experiment noisyor-depth).
//
// HiddenStates checks that choosing the number of states of every hidden
// variable by BIC (model.FitOptions.AutoStates) is at least as good as
// every uniform count from 2 to 5, on simulated trees whose observed
// variables have 3 to 6 states (command: experiment hidden-states).
//
// Mixed measures mixed-type (conditional-Gaussian) latent trees (issue
// 24) on random mixed trees: structure recovery from mixed
// canonical-correlation distances against the number of rows, and the
// held-out log-likelihood of learn's default on the mixed table against
// the alternatives without a mixed model (drop one kind of column,
// discretise the continuous columns, code the discrete ones as numbers)
// (command: experiment mixed; PlotMixed).
//
// Scale is latentree's own benchmark: time and peak heap of the statistics
// of streamed CSV and Parquet files, CLNJ from the statistics and learning
// with EM, against the numbers of rows and of variables of binary data
// (command: experiment scale; PlotScale).
package experiment
