// Package spectral holds the spectral latent tree model: a tensor network
// (Song, Xing & Parikh, ICML 2013) fitted in one pass, without
// iterations, from the joint tables of a few observed variables around
// every hidden node. Model gives an estimate P̂ of the joint distribution of
// the observed variables, which may be ≤ 0 for some rows and is never
// renormalised; it has no hidden-variable posteriors, so Conditionals and
// Impute work for observed variables only.
//
// Fit and FitWeighted fit a Model to discrete data on a given tree (Options:
// the rank k′ of the hidden variables, the linker estimator
// model.Linker, the singular-value cutoff). Model.Project turns the
// estimate into conditional probability tables of a discrete model, the
// spectral start of EM (model.InitSpectral).
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
