// Package model holds latent tree graphical models: the Model interface
// that every family implements, the discrete model, whose nodes are
// categorical variables with any number of states (each hidden node may
// have its own), and the Gaussian model. A model is a tree from package
// tree, rooted at a chosen node, with a distribution at the root and a
// conditional distribution on every edge. The spectral model (package
// model/spectral, a tensor network estimated without iterations) is a
// Model too.
//
// Every family implements the Model interface: log-likelihoods and scores
// (BIC, AIC) of data, conditionals of any node given each row's observed
// cells, imputation of missing cells with the distribution of every filled
// cell, sampling, exact information distances (Choi et al. 2011, §3.1,
// additive along paths of the tree), validation and JSON model files
// (Read reads any registered type back). Missing cells are marginalised
// everywhere.
//
// # Families
//
// A family package registers itself with Register in its init function, as
// image formats do with package image: Read then reads its model files
// (by their "type" field) and Fit fits it. Fit chooses the family from the
// data and FitOptions.Params, so a new family (a mixed-type model next)
// plugs in with a Register call and one case in Fit, and callers keep
// calling Fit and Read. The families import model, never the reverse, so
// the layering stays acyclic: package model/spectral registers "spectral"
// (imported by package learn and the command line; import it, or
// package learn, before asking Fit for spectral parameters or start).
//
// # Fitting
//
// Fit is the one call that fits a model with a given tree to data: a
// Gaussian latent tree (FitGaussian: closed-form start from the tree's
// edge lengths, then EM) when every column is continuous, a discrete one
// (ForData, the surrogate start of InitSurrogate or random starts, FitEM,
// and ChooseHiddenStates with FitOptions.AutoStates) when every column is
// discrete, or a spectral one (FitOptions.Params ParamsSpectral).  Both EMs marginalise missing cells — the discrete one per
// distinct row, the Gaussian one per missingness pattern — and stop at
// the one tolerance DefaultTol (relative change of the log-likelihood)
// unless told otherwise.
//
// Randomness comes only from a rand.Source (math/rand/v2) passed in, as in
// gonum: the Src field of the options (nil: a fixed seed) or the src
// argument of Sample, so the same data and options give the same model
// whatever the number of workers. A *rand.Rand is a rand.Source too.
package model
