// Package data holds datasets of named observed variables, each either
// discrete (a finite set of states with their original labels) or continuous,
// and reads and writes them as CSV.
//
// A Dataset is stored by column: a discrete column is a []uint16 of state
// codes (indices into Variable.States, Missing for a missing cell) and a
// continuous column a []float64 (NaN for a missing cell). Column slices are
// shared, not copied, by the accessors; treat them as read-only.
//
// ReadCSV (reader.go) streams a delimited text file with a header line into
// a Dataset, as configured by ReadOptions (options.go): which columns to
// read (Columns, Ignore), the delimiter (detected when zero), column kinds,
// and what to do with missing cells and constant columns; it returns a
// ReadReport of what it decided and a *ParseError naming the file, line and
// column of bad input, quoting at most MaxQuotedCell bytes of any cell.
// WriteCSV (writer.go) writes a Dataset back so that ReadCSV reads it as it
// was.
//
// # Streaming
//
// OpenBlocks (blocks.go) reads data larger than memory as a BlockReader of
// row blocks (BlockOptions.BlockRows rows, DefaultBlockRows by default):
// plain or gzip CSV and Parquet files (flat boolean, integer, float and
// string columns, nulls missing), several files or directories of shards
// read as one dataset with the same columns; DetectFormat (format.go) tells
// which a path is, by its first bytes or its name. Column kinds and states
// are inferred from every row, in a first pass over the files, as ReadCSV
// infers them from a whole file (BlockOptions.FirstBlockTyping infers them
// from the first block and reads the files once; the states of a discrete
// variable then grow from block to block, so codes are stable, and
// SortStates gives the order ReadCSV would give them). Memory is bounded by
// the block size, and errors name the file, line (Parquet: row) and column.
//
// # Limits
//
// Every CSV reader bounds what one row may take: a row longer than
// ReadOptions.MaxLineBytes (DefaultMaxLineBytes, 16 MiB; a quoted field's
// line breaks count in its row) and a cell of a column read longer than
// MaxFieldBytes (DefaultMaxFieldBytes, 64 KiB) are errors naming the file,
// line and limit, so that a file of one long line, a huge quoted field or
// an endless stream fail at the limit instead of exhausting memory. A
// discrete column has at most MaxStates states. Cells holding a NUL byte
// are errors.
// ReadCSV and OpenBlocks build columns with one column builder (column.go:
// type inference, interning, the switch to float storage, state order), so
// a file read whole, its gzip, and either read in one block give the same
// variables and cells.
//
// # Sources
//
// A Source (source.go) gives a dataset's rows as blocks, pass after pass,
// for methods that read the data many times (EM: one pass per iteration).
// A Dataset is a Source of one block; Files re-reads files with OpenBlocks
// on every pass; Packed (packed.go) holds the rows in memory at the fewest
// bits a discrete cell needs (1 for a binary variable, up to 16, plus a
// missing-cell bitmap for columns with missing cells, float64 for
// continuous ones), states in SortStates order: Pack reads a Source once,
// Scan unpacks it in blocks into reused buffers, Dataset and Sample (rows
// drawn uniformly without replacement) unpack all or some rows.
package data
