// Package simulate builds the latent tree topologies and random models used
// in the experiments of Choi et al. (JMLR 2011, §7) and Ishteva et al. (ICML
// 2013, §6): stars, double stars, HMM-like chains, complete k-ary trees,
// random binary trees by recursive splitting, and random minimal latent
// trees whose observed variables may be internal nodes; and, on any
// topology, Gaussian, symmetric discrete, general discrete and mixed
// (conditional-Gaussian: discrete and continuous variables) models.
// Blank hides cells of any dataset completely at random.
//
// Observed variables are named x1, x2, ... in the order the topology
// creates them; hidden nodes are unnamed (see tree.Tree.AutoNameHidden).
package simulate
