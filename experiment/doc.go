// Package experiment reproduces the experiments of the papers latentree
// implements, as library functions that return tables of results (written
// as CSV and plotted by the latentree experiment command).
//
// StructureRecovery reproduces Choi et al. (JMLR 2011, §7.1, Figure 7):
// structure recovery of the double star, HMM and 5-complete latent trees
// from samples of Gaussian models with edge correlations ρ ~ U[0.2, 0.8].
package experiment
