// Package stats computes, once, the sufficient statistics of a dataset that
// every later method of latentree needs: per-variable counts, discrete
// marginals, continuous means and variances, and for every pair of variables
// the discrete joint count table, the continuous pairwise-complete moments
// (count, means, sums of squared deviations and the co-moment), or, for a
// discrete–continuous pair, the number of rows where both are observed.
//
// Information distances, Chow–Liu trees, quartet tests and EM
// initialisation all read a shared *Stats instead of rescanning the data.
//
// # Missing values
//
// A discrete cell equal to data.Missing and a continuous NaN are missing.
// Marginals, means and variances use the rows where the variable is observed;
// pair tables and pairwise moments use the rows where both variables are
// observed (pairwise-complete statistics).
//
// # Speed
//
// Compute works in parallel over pairs of variables. Binary variables are
// bit-packed once and their 2×2 tables come from popcounts of word-wise ANDs;
// other discrete pairs use a counting loop over combined state indices;
// continuous pairs accumulate centred cross products. All kernels walk the
// rows in cache-sized blocks with the pair loop inside the block loop, so a
// thousand variables by a hundred thousand rows stay cache friendly.
//
// # Shards
//
// Statistics of disjoint row sets (shards) of the same variables combine
// exactly with Merge: counts add, discrete state labels are aligned by label,
// and moments combine with the pairwise update formulas of Chan, Golub and
// LeVeque. Stats round-trip through JSON (MarshalJSON, UnmarshalJSON), so
// shards can be computed on different machines.
//
// Quartet counts the four-way joint table of four discrete variables
// straight from the data, into a reused buffer, for the quartet tests of
// Ishteva et al. (2013); quartet.DataOracle.ResolveAll runs many of them in
// parallel, one buffer per worker.
package stats
