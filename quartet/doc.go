// Package quartet resolves quartets — which two of four variables sit on
// the same side of the tree — and builds latent trees from quartet tests
// (Ishteva, Park and Song, ICML 2013).
//
// For four discrete variables with joint probability table P, the three
// unfoldings A = P_{{12},{34}}, B = P_{{13},{24}} and C = P_{{14},{23}}
// (eqs. 2–4) have low rank exactly when their pairing is the true one; the
// nuclear-norm test picks the unfolding with the smallest sum of singular
// values and needs no number of hidden states. Spectral@k (Anandkumar et
// al. 2011) compares products of the top k singular values of pairwise
// tables, and the four-point condition uses any additive distance.
//
// Build inserts variables one at a time into a binary latent tree,
// descending through centroids so that each insertion costs O(log i)
// tests (Algorithm 2 and supplement Algorithms 3–5). Beyond the paper, by
// default it inserts the most dependent variables first and tests each
// against the leaf of every branch most dependent on it (when the oracle
// is a Closer), which keeps quartets tight: on exact tables this halves
// the trees the nuclear test gets wrong, and on 2,000 samples it lowers
// the Robinson–Foulds error by 16–41% (see results/quartet-trees.txt).
//
// Oracles answer quartet tests: DataOracle from the counts of a dataset
// (ResolveAll runs many tests in parallel), ModelOracle from the exact
// tables of a model, DistanceOracle by the four-point condition. The data
// must be discrete: NewDataOracle rejects continuous columns, naming them
// (the tests need 4-way tables; bin the columns first if that is meant).
//
// # Numerical failures
//
// A test that cannot compute a score — a singular value decomposition
// that does not converge (after dqds fails, the general SVD is tried), a
// NaN or infinite table cell, a NaN distance — never picks a pairing. The
// Table methods and FourPoint return a failed Result: Err wraps
// ErrNumerical and says which step failed, Pairing and Best are
// Unresolved, and each score that could not be computed is NaN (a
// non-converged SVD used to score 0, which won the nuclear test). The
// oracles' Resolve and ResolveAll return such a failure as an error naming
// the four variables, and Build stops with it: a tree built on a guessed
// quartet would hide the failure. (A quartet whose margin is merely below
// MinMargin is not a failure: it is Unresolved with a Best pairing, and
// Build counts it in BuildResult.Unresolved.)
//
// Broken internal invariants of the builder are returned as errors
// wrapping tree.ErrInternal, never as panics.
package quartet
