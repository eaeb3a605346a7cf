// Package learn is latentree's entry point from data to a fitted latent
// tree model: one call runs the whole path
//
//	data → statistics → information distances (or quartet tests)
//	     → structure → parameters (EM) → scores
//
// with any of latentree's structure learners, and returns one Result
// holding the tree, what the learner did, the fitted model, its scores and
// the time each stage took.
//
// Learn starts from a dataset, LearnSource from rows read on every pass
// (a data.Packed or data.Files), FromFiles from data files (CSV, gzip,
// Parquet, directories of shards: packed in memory or streamed, see
// OpenFiles), FromStats from sufficient statistics
// (structure only: parameters need rows) and FromDistances from a distance
// matrix (structure only). Options.Method picks the learner:
//
//	clnj     Chow–Liu tree, then neighbor joining on every neighbourhood (default)
//	clrg     Chow–Liu tree, then recursive grouping on every neighbourhood
//	nj       neighbor joining (Saitou & Nei 1987)
//	rg       recursive grouping (Choi et al. 2011, §4)
//	clblind  Chow–Liu tree with the blind transformation
//	chowliu  the Chow–Liu tree (maximum mutual information; no hidden variables)
//	mst      minimum spanning tree of the information distances
//	quartet  binary tree from quartet tests (Ishteva, Park & Song 2013)
//	regclnj  regularized CLNJ: subtrees kept only when they improve the BIC
//	regclrg  regularized CLRG
//	lcm      latent class model: one hidden variable over all observed ones
//
// The lcm method (latent class analysis) fits the star tree LCMTree with
// 1, 2, ... classes (LCMOptions.MaxClasses; Fit.HiddenStates fixes the
// number), each by EM from LCMOptions.Restarts random starts run to
// convergence (model.FullRestarts: poLCA's nrep), and keeps the number of
// smallest BIC; Result.LCM is the table of fits, with the starts that
// replicated the best log-likelihood.
//
// Each stage has its own options struct, whose zero value is the default;
// Options.Validate rejects options that do not apply to the chosen method
// (RG thresholds for CLNJ, quartet settings for RG, ...) rather than
// ignoring them. Randomness comes only from Options.Src (nil: a fixed
// seed), so the same data and options give the same result.
//
// Parameters are fitted by model.Fit: a Gaussian latent tree for
// continuous data, a discrete one (EM from the surrogate start) for
// discrete data.
//
// # Contraction
//
// NJ and RG resolve every family into hidden nodes, many of them joined by
// edges of length about 0 that the data do not support. When parameters
// are fitted, Learn contracts an edge at a hidden node only when the BIC of
// the fitted model improves (ContractByBIC), and returns the Chow–Liu tree
// instead when its BIC is better: the result's BIC is never worse than
// that of the learner's tree or of the Chow–Liu tree. Candidates are scored
// locally, with the rest of the model held, and the chosen tree is fitted
// once at the end: on discrete data by a few EM iterations of the
// parameters at the merged node (discrete.Contractor), on continuous data
// without missing cells exactly from the covariance (gaussian.Contractor),
// which also lets the structure alone (StructureOnly, FromStats) be
// contracted by BIC on such data, never below the Chow–Liu tree in
// log-likelihood; PruneOptions.Refit scores every candidate by EM on the
// whole model instead, as mixed data and Gaussian data with missing cells
// always are. On
// discrete data of at most CompareLCMBudget variables × rows it also fits
// latent class models (screened random starts, classes 1, 2, ... while the
// score improves) and returns the best of them when it scores better still
// (ContractReport.Kept). On 100–500
// rows BIC keeps few hidden variables; ContractAIC keeps more, and
// ContractThreshold is the paper's rule (contract edges shorter than ε′),
// used when no parameters are fitted and the covariance does not give the
// likelihood (discrete data, missing cells).
//
// # Hidden states
//
// On discrete data whose variables have more than 2 states the number of
// states of every hidden variable is chosen by BIC by default (within
// AutoStatesBudget): the learner's tree is fitted with 2 to 5 states per
// hidden variable, the contraction search runs with the best of them, and
// the states of the contracted tree's hidden variables are then merged and
// split one variable at a time while the BIC improves. Binary data, or a
// given Fit.HiddenStates, keep a uniform count. Result.HiddenStates says
// which was used.
//
// # Structure of mixed data
//
// On data that mix discrete and continuous columns the distance-based
// methods use the canonical-correlation distance (distance.Mixed: −log of
// the first canonical correlation of the columns' features by default,
// additive along conditional-Gaussian trees with binary discrete and
// continuous hidden variables; from statistics, so FromStats works too).
// A rank k > 2 (Distance.Rank, or Fit.HiddenStates) cuts the continuous
// columns into quantile bins and uses the discrete rank-k distance, which
// needs the rows. chowliu weighs every pair by the Gaussian mutual
// information of its first canonical correlation, and quartet runs its
// tests on the data with the continuous columns cut into quantile bins
// (on all-continuous data quartet tests remain an error).
package learn
