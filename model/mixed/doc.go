// Package mixed is the conditional-Gaussian family of latent tree models
// (Lauritzen & Wermuth 1989; pouch latent trees, Poon et al. 2010): trees
// whose nodes, observed or hidden, are discrete or continuous, with no
// discrete node below a continuous one. A continuous node is Gaussian with
// a mean and variance for each state of a discrete parent, or
// linear-Gaussian in a continuous parent. All-discrete and all-Gaussian
// trees are special cases, so the family nests the discrete and Gaussian
// families.
//
// Layout assigns kinds to hidden nodes of a learned structure; New builds
// a model; Fit fits one by EM (see fit.go), FitSource by EM passes over
// a data.Source read block by block (data larger than memory), with the
// same start and E-steps; the model answers every
// operation of model.Model exactly (inference sums over the discrete
// nodes and integrates the Gaussian blocks below them in closed form).
package mixed
