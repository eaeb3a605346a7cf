// Package tree provides the undirected latent tree used throughout latentree,
// its bipartitions and the Robinson–Foulds distance, and the file formats
// latentree reads and writes.
//
// # Trees
//
// A Tree has two kinds of node: observed nodes, which stand for a variable of
// the data and carry its name, and hidden nodes, which stand for a latent
// variable and may have a name. Observed nodes may be leaves or internal
// nodes; hidden nodes are usually internal with degree at least three (a
// minimal latent tree, in the sense of Pearl 1988 and Choi et al. 2011 §2.3),
// but the type does not insist on it so that intermediate results of
// learning algorithms can be held: NonMinimal finds the offending hidden
// nodes and SuppressHidden removes them. Every edge may carry a length (an
// information distance); NaN marks an edge whose length is unknown. Names are
// unique within a tree.
//
// Node identifiers are small integers that stay valid while nodes are added
// and removed: a removed node leaves a gap, and Compact renumbers the nodes
// densely when a caller wants that. Methods given an identifier that names no
// live node panic, as slice indexing does; bad input is reported by errors.
// Validate checks that a tree is a single tree with valid lengths. Root
// orients a tree for message passing; Contract and ReplaceSubtree are the
// structural edits used by the learning algorithms.
//
// # Splits and Robinson–Foulds
//
// Removing an edge divides the observed variables in two: Splits lists the
// distinct bipartitions of a tree, as Bitset values over the positions of the
// sorted observed names, hidden nodes belonging to neither side. Because
// observed variables may be internal nodes, singleton splits ({x} | rest) are
// kept: a star with observed centre x and a hidden star with x as a leaf
// differ by the split {x}. RobinsonFoulds counts the splits found in only one
// of two trees over the same observed variables, and normalises the count by
// the number of splits of both trees less the singleton splits they share;
// for trees whose observed variables are all leaves this is the usual
// normalised Robinson–Foulds distance over non-trivial splits.
//
// # Formats
//
// Newick (ReadNewick, ParseNewick, WriteNewick, Tree.Newick) is the standard
// parenthesised form read by R's ape and DendroPy. Leaves are observed
// variables, unlabelled internal nodes hidden ones and labelled internal nodes
// observed ones (or hidden ones, with NewickOptions.HiddenInternalLabels); an
// unlabelled root of degree two is removed, since latent trees are unrooted.
// Output is deterministic and reads back to the same tree, degree-two hidden
// nodes included.
//
// The JSON form (Tree.MarshalJSON, Tree.UnmarshalJSON, WriteJSON, ReadJSON)
// keeps everything: node identifiers, names of hidden nodes and exact lengths,
// as the document
//
//	{"format":"latentree-tree","version":1,
//	 "nodes":[{"id":0,"name":"a","hidden":false},{"id":1,"hidden":true}],
//	 "edges":[{"u":0,"v":1,"length":0.5}]}
//
// with null for an unknown length.
//
// WriteDOT draws a tree for Graphviz, observed nodes as boxes and hidden
// nodes as small circles.
//
// # Errors
//
// Bad input (names, lengths, files) gives an error naming what is wrong.
// An error wrapping ErrInternal reports a broken invariant of latentree, a
// bug; the packages of the module return those rather than panic. Only
// misuse that Go itself would treat as an index out of range panics: a
// node identifier that is not in the tree (check it with Has) and a
// Bitset of negative size or of mismatched capacity.
package tree
