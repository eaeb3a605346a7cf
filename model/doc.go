// Package model holds what every latent tree model shares, and Fit, the
// one entry point that chooses a model family for the data and fits it.
//
// A model is a tree from package tree, rooted at a chosen node, with a
// distribution at the root and a conditional distribution on every edge.
// Each family is a package of its own:
//
//   - discrete.Model (package model/discrete): categorical variables with
//     any number of states (each hidden node may have its own);
//     conditional probability tables fitted by accelerated EM in memory or
//     over a data.Source, mergeable E-step counts, exact inference with
//     hidden-variable posteriors.
//   - gaussian.Model (package model/gaussian): continuous variables,
//     jointly Gaussian and Markov on the tree, fitted by EM from a
//     closed-form start.
//   - spectral.Model (package model/spectral): discrete variables, a
//     tensor network estimated without iterations (Song et al. 2013); fast,
//     and the spectral start of discrete EM, but its estimate P̂ may be ≤ 0
//     and it has no hidden-variable posteriors.
//
// This package holds the Model interface they implement (log-likelihoods,
// scores, conditionals of any node given each row's observed cells,
// imputation, sampling, exact information distances, validation, JSON
// model files), the types those operations share (Score, Conditional,
// Imputation, InferOptions, EMOptions and EMResult, Provenance), the
// JSON envelope with Read, and helpers for family packages (CheckColumns,
// CheckNodes, MissingColumns, StateRemap, DefaultRoot, Surrogates,
// ImputeDiscrete, RowLikelihoods, Header and WriteDocument, Workers).
// Missing cells are marginalised everywhere.
//
// # Choosing and fitting
//
// Fit fits a model with a given tree to data and chooses the family: a
// Gaussian model when every column is continuous, a discrete one when every
// column is discrete (with the start of FitOptions.Init, and the number of
// hidden states chosen by BIC with FitOptions.AutoStates), a spectral one
// for FitOptions.Params ParamsSpectral. Both EMs marginalise missing cells
// and stop at the one tolerance DefaultTol unless told otherwise. For a
// family's own options call its Fit (discrete.Model.FitEM and
// discrete.FitSource, gaussian.Fit, spectral.Fit).
//
// # Families register
//
// The families import model, never the reverse, so the layering stays
// acyclic (model, then discrete and gaussian, then spectral, which projects
// onto a discrete model). A family package registers itself with Register
// in its init function, as image formats do with package image: Read then
// reads its model files (by their "type" field: "discrete", "gaussian",
// "spectral") and Fit fits it. A new family (the mixed-type model next)
// plugs in with one Register call and one case where Fit chooses; callers
// keep calling Fit and Read. Import the family packages a program fits or
// reads: package learn imports them all, and so does every program that
// uses it.
//
// Randomness comes only from a rand.Source (math/rand/v2) passed in, as in
// gonum: the Src field of the options (nil: a fixed seed, the
// same for every call of one function) or the src
// argument of Sample, so the same data and options give the same model
// whatever the number of workers. A *rand.Rand is a rand.Source too.
package model
