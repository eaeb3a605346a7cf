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
// discrete (Lake) distance, its rank-k variant and the symmetric-model
// distance; pairs whose distance is infinite are listed as Degenerate.
// Discrete variables with different numbers of states get the rank-k
// distance by default, with the k of DefaultRank, which says why that k
// keeps distances additive along latent trees.
// FromCorrelations turns a correlation matrix into Gaussian distances, and
// MutualInformation and TableMutualInformation give the mutual information
// that Chow–Liu trees and the quartet builder use.
//
// A numerical failure (a singular value decomposition that does not
// converge) is an error wrapping ErrNumerical, never a distance. At and
// Sub panic on an index out of range, as slice indexing does.
package distance
