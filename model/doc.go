// Package model holds latent tree graphical models: a discrete model, whose
// nodes are categorical variables with any number of states (each hidden
// node may have its own), and a Gaussian model. A model is a tree from
// package tree, rooted at a chosen node, with a distribution at the root and
// a conditional distribution on every edge.
//
// Models are sampled (Sample), queried for exact marginals of single nodes
// and pairs of nodes, and for the exact information distances of Choi et
// al. (JMLR 2011, §3.1), which are additive along paths of the tree.
package model
