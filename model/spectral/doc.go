// Package spectral holds the spectral latent tree model: a tensor network
// (Song, Xing & Parikh, ICML 2013) fitted in one pass, without
// iterations, from the joint tables of a few observed variables around
// every hidden node. Model gives an estimate P̂ of the joint distribution of
// the observed variables, which may be ≤ 0 for some rows and is never
// renormalised; it has no hidden-variable posteriors, so Conditionals and
// Impute work for observed variables only.
//
// Fit and FitWeighted fit a Model to discrete data on a given tree
// (Options: HiddenStates, the rank k′ of the hidden variables; Linker, the
// estimator model.Linker; Tol, the singular-value cutoff). Model.Edges
// reports each linker's singular values and the rank kept (EdgeSpectrum),
// the place to look when k′ seems too small or too large. Model.Project
// turns the estimate into conditional probability tables of a discrete
// model, the spectral start of EM (model.InitSpectral). Model.WriteJSON
// writes a model file; model.Read reads it back.
//
// # Choosing
//
// Fit a spectral model for a fast estimate of the observed joint, or to
// start EM; fit a discrete model by EM (package model/discrete) for a proper
// distribution with hidden-variable posteriors. Importing this package
// registers the family with package model, whose Fit then fits it for
// FitOptions.Params model.ParamsSpectral and whose Read reads its files
// (type "spectral").
package spectral
