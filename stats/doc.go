// Package stats computes, once, the sufficient statistics of a dataset that
// every later method of latentree needs: per-variable counts, discrete
// marginals, continuous means and variances, and for every pair of variables
// the discrete joint count table, the continuous pairwise-complete moments
// (count, means, sums of squared deviations and the co-moment), or, for a
// discrete–continuous pair, the number of rows where both are observed and
// the moments of the continuous variable within each state of the discrete
// one (count, mean, sum of squared deviations: StateMoments), from which
// the correlation ratio of the mixed information distance follows.
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
// shards can be computed on different machines, and through the compact
// binary format below (WriteBinary, ReadBinary), which the command
// "latentree stats --out part.lts" writes and "latentree stats merge"
// merges.
//
// ComputeBlocks computes the statistics of a data.BlockReader (CSV, gzip
// CSV, Parquet files or directories of shards, read in row blocks) by
// computing each block and merging: the result equals Compute on the whole
// data read in memory, counts exactly and moments to rounding, with the
// states of each discrete variable in the order ReadCSV gives them (a state
// first seen in a later block is moved to its place at the end).
//
// # Statistics files
//
// WriteBinary writes a Stats in a versioned binary format (files ending in
// .lts, version BinaryVersion = 1); ReadBinary reads it back exactly
// (counts, and moments bit for bit). Unsigned integers are LEB128 varints
// ("uvarint", as encoding/binary; the shortest encoding, which ReadBinary
// requires), floats are IEEE-754 binary64 little-endian (f64), strings are
// a uvarint byte length and UTF-8 bytes. A file is
//
//	header (20 bytes)
//	  magic    8 bytes  89 4C 54 53 0D 0A 1A 0A  ("\x89LTS\r\n\x1a\n")
//	  version  u16 LE   1
//	  flags    u16 LE   bit 0: pair statistics present; bit 1: state
//	                    moments present (set with bit 0 when there are
//	                    discrete and continuous variables); other bits 0
//	  length   u64 LE   number of payload bytes
//	payload
//	  rows     uvarint  rows seen
//	  nvars    uvarint  number of variables, in column order; each:
//	    name   string
//	    kind   1 byte   0 discrete, 1 continuous
//	    discrete:   nstates uvarint, nstates state labels (strings),
//	                count uvarint (rows where observed),
//	                marginal: nstates uvarints (count per state)
//	    continuous: count uvarint, mean f64, m2 f64 (sum of squared
//	                deviations from the mean)
//	  if flags bit 0 (pairs):
//	    discrete pair tables: for each pair of discrete variables a < b in
//	      column order, the na×nb joint counts (uvarints), row-major with
//	      the states of a as rows
//	    mixed counts: for each discrete variable in column order and each
//	      continuous variable in column order, the rows where both are
//	      observed (uvarint)
//	    continuous pairs: for each pair of continuous variables a < b in
//	      column order: n uvarint, mean_a f64, mean_b f64, m2_a f64,
//	      m2_b f64, co-moment f64 (over the n rows where both are observed)
//	  if flags bit 1 (state moments):
//	    for each discrete variable in column order, each of its states and
//	      each continuous variable in column order: n uvarint (rows where
//	      both are observed and the discrete one is in that state), mean
//	      f64 and m2 f64 of the continuous one over them (0 and 0 when n
//	      is 0)
//	checksum   u32 LE   CRC-32C (Castagnoli) of the header and payload
//
// Nothing may follow the checksum. ReadBinary reports a wrong magic
// (ErrNotBinary), an unknown version or flag, a truncated file, a checksum
// mismatch and any inconsistent content (as UnmarshalJSON) as errors.
// Files without bit 1 that have discrete and continuous variables (written
// before the state moments were kept) still read: their statistics lack
// the state moments (HasStateMoments is false), and merging them with
// others drops those moments. A fuzz test checks that ReadBinary never
// panics and that whatever it accepts encodes back to the same bytes. A
// later version may add sections (for
// example the four-way tables of chosen quartets) behind new flags.
//
// Quartet counts the four-way joint table of four discrete variables
// straight from the data, into a reused buffer, for the quartet tests of
// Ishteva et al. (2013); quartet.DataOracle.ResolveAll runs many of them in
// parallel, one buffer per worker.
package stats
