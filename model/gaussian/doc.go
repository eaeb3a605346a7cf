// Package gaussian holds the Gaussian latent tree model: every node is a
// real variable, jointly Gaussian and Markov on the tree, parameterised by
// each node's mean and variance and its correlation with its parent.
//
// New makes a model on a tree; Fit fits one to continuous data by EM from a
// closed-form start (the tree's edge lengths as −log|ρ|, signs from the
// data), marginalising missing cells per missingness pattern, with a Cache
// for repeated fits to the same data. On complete data the likelihood
// depends only on the sample moments (Moments): FitMoments and
// LogLikMoments work from them, as from a statistics file, and a
// Contractor scores the contraction of an edge exactly from them with the
// rest of the model held (the search of package learn). Model implements
// model.Model (log-likelihoods by exact belief propagation, conditional
// means and standard deviations, imputation, sampling, information
// distances −log|ρ|, JSON model files of type "gaussian").
//
// # Choosing
//
// Use this family for all-continuous data; model.Fit chooses it for such
// data. Importing this package registers it with package model, whose Fit
// and Read then reach it.
package gaussian
