// Package data holds datasets of named observed variables, each either
// discrete (a finite set of states with their original labels) or continuous,
// and reads and writes them as CSV.
//
// A Dataset is stored by column: a discrete column is a []uint16 of state
// codes (indices into Variable.States, Missing for a missing cell) and a
// continuous column a []float64 (NaN for a missing cell). Column slices are
// shared, not copied, by the accessors; treat them as read-only.
package data
