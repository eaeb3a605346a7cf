// Package regcl implements regularized CLGrouping (Choi et al. 2011,
// §6.4): regCLNJ and regCLRG grow a latent tree from the Chow–Liu tree one
// neighbourhood at a time, keeping a learned subtree only when it improves
// the BIC, so that the number of hidden variables is chosen by the data.
//
// latentree's reading of the paper: every hidden variable already in the
// model is completed from its posterior given the neighbourhood it was
// learned on (the paper's "augmented samples"; latentree takes the most
// likely state by default, a sample with Options.SampleHidden). In
// the completed data the model is a fully observed tree, whose
// log-likelihood decomposes over edges, so replacing the star of edges
// around an internal node i by a latent subtree S changes the BIC by
//
//	ΔBIC = [log L_S(x_N) − log L_star(x_N)] − ½ (κ_S − κ_star) log n
//
// where N is the closed neighbourhood of i, L_star the maximum-likelihood
// star model on N and L_S the subtree fitted by local EM. The best subtree
// is incorporated while some ΔBIC is positive (or until a requested
// number of hidden variables), then all parameters are refined by EM on
// the whole tree.
//
// Discrete data give discrete models; continuous data give Gaussian latent
// trees, whose hidden variables are completed with their conditional
// means. Missing cells are kept: the distances are pairwise-complete and
// every likelihood in ΔBIC is marginalised over them by EM.
package regcl
