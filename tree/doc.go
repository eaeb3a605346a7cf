// Package tree provides the undirected latent tree used throughout latentree.
//
// A Tree has two kinds of node: observed nodes, which stand for a variable of
// the data and carry its name, and hidden nodes, which stand for a latent
// variable. Observed nodes may be leaves or internal nodes; hidden nodes are
// usually internal with degree at least three (a minimal latent tree, in the
// sense of Pearl 1988 and Choi et al. 2011 §2.3), but the type does not insist
// on it so that intermediate results of learning algorithms can be held.
// Every edge may carry a length (an information distance); NaN marks an edge
// whose length is unknown.
//
// Node identifiers are small integers that stay valid while nodes are added
// and removed: a removed node leaves a gap, and Compact renumbers the nodes
// densely when a caller wants that.
//
// The package also defines the bipartitions ("splits") of the observed
// variables induced by the edges, the Robinson–Foulds distance between two
// trees over the same observed variables, and the formats latentree reads and
// writes: Newick, a full-fidelity JSON form and Graphviz DOT.
package tree
