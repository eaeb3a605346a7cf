// Package distance holds distance matrices between named variables and reads
// and writes them.
//
// A Matrix is a square, row-major table of distances between m variables,
// each identified by a unique name. In latentree the distances are
// information distances (Choi et al. 2011, §2.2): additive along the paths
// of a latent tree, zero from a variable to itself and +Inf between
// independent variables. Validate checks the properties every distance
// matrix must have: symmetry, a zero diagonal and finite, non-negative
// entries (+Inf off the diagonal only when asked for).
//
// Matrices are read from two formats, recognised automatically:
//
//   - CSV: a header row naming the variables, then one row of numbers per
//     variable, optionally preceded by a row-label column. Commas,
//     semicolons or tabs may separate the cells.
//   - PHYLIP distance matrices: a line holding the number of variables, then
//     one row per variable starting with its name. Square and
//     lower-triangular matrices are accepted, with names in the strict
//     (10-character field) or the relaxed (whitespace-separated) style.
//
// Errors from the readers name the input, the line and the variables
// involved, so that a bad cell can be found and fixed by hand.
//
// Information computes the information distances of all pairs of variables
// from sample statistics (stats.Compute): Gaussian −log|ρ|, the general
// discrete (Lake) distance, its rank-k variant, the symmetric-model
// distance and, for data that mix the two kinds, the Mixed distance below;
// pairs whose distance is infinite are listed as Degenerate.
// Discrete variables with different numbers of states get the rank-k
// distance by default, with the k of DefaultRank, which says why that k
// keeps distances additive along latent trees.
//
// # Mixed data
//
// For a mix of discrete and continuous variables (conditional-Gaussian
// trees: no discrete node below a continuous one) the distance is the
// canonical-correlation distance
//
//	d_ij = −Σ_{l≤r} log ρ_l(i, j)
//
// with ρ_1 ≥ ρ_2 ≥ … the canonical correlations of the features of i and
// j, the singular values of Σ_ii^{-1/2} Σ_ij Σ_jj^{-1/2}: the features of
// a discrete variable are the indicators of its states (all but one, or
// centred), those of a continuous variable its value. r is the number of
// hidden states less one: rank k = r+1 in InfoOptions.Rank, so that the
// default of 2 hidden states is r = 1. With r = 1 the distance of two
// continuous variables is −log|ρ|, the Gaussian distance; of a discrete
// and a continuous one −log η, η the correlation ratio (from the moments
// of the continuous variable within each state of the discrete one,
// stats.StateMoments); of two discrete ones −log σ₂ of their normalised
// joint table, the rank-2 discrete distance (the largest singular value,
// 1, is the canonical correlation of the constant features). So on data
// of one kind it is today's distance of rank 2, and a leaf that copies
// its parent is at distance 0.
//
// Why it is additive. Let h be a node on the path from i to j in the
// tree. i and j are independent given h, so Σ_ij = Cov(f_i, E[f_j | h]).
// When E[f_j | h] is linear in h's features — always when h is discrete
// (any function of a discrete variable is linear in its indicators), and
// when h is continuous for the side of h below it, whose nodes are all
// continuous and linear-Gaussian in h (one of the two sides of a path
// through h always is) — Σ_ij = Σ_ih Σ_hh^{-1} Σ_hj, and the whitened
// cross-covariances multiply: C_ij = C_ih C_hj. When h has a single
// feature (a binary discrete or a continuous node) C_ih and C_hj are a
// column and a row, so C_ij has rank 1 and its one canonical correlation
// is the product ρ(i, h)·ρ(h, j). With r = 1, binary discrete hidden nodes
// and continuous hidden nodes, −log ρ₁ is therefore exactly additive along
// every path, through continuous hidden nodes too, whatever the numbers
// of states of the observed leaves (internal observed nodes must be
// continuous or binary for the same reason). The four-point condition
// holds and the distance-based learners recover the tree; the tests check
// this on exact moments of random mixed models.
//
// For r > 1 (hidden variables of k = r+1 > 2 states) a continuous value
// has one feature, and one canonical correlation. Its column is then cut
// into q = BinsFor(k) = max(k, 5) quantile bins (QuantileBins, which needs
// the rows) and the data get the discrete rank-k distance. A bin is a
// function of its leaf, so the leaf's bins are independent of the rest of
// the tree given its parent, and when the hidden nodes on the path are
// discrete with k states and P(bins | parent) has rank k the product of
// the k singular values factors along the path (see DefaultRank): the
// distance is additive exactly when every hidden node on the path is
// discrete with k states. Through a continuous hidden node it is not (the
// conditional distribution of a bin is not linear in the node), and
// neither is it for r = 1 on binned data (use the unbinned Mixed distance
// there). Information refuses the Mixed distance of rank above 2 on
// statistics with continuous variables, saying so.
//
// Canonical computes the distance from exact covariance blocks (a model's
// moments); the Mixed distance from statistics is the same formula on
// sample moments, which the tests check.
// FromCorrelations turns a correlation matrix into Gaussian distances, and
// MutualInformation and TableMutualInformation give the mutual information
// that Chow–Liu trees and the quartet builder use.
//
// A numerical failure (a singular value decomposition that does not
// converge) is an error wrapping ErrNumerical, never a distance. At and
// Sub panic on an index out of range, as slice indexing does.
package distance
