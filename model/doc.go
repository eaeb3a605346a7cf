// Package model holds what every latent tree model shares: the Model
// interface, scores (BIC, AIC), the JSON model file with its reader
// registry, imputation and row likelihoods, and Fit, the one entry point
// that chooses a model family for the data and fits it. It also holds the
// discrete family: categorical variables with any number of states (each
// hidden node may have its own), CPTs fitted by accelerated EM, from
// memory or from a data.Source, and mergeable E-step counts.
//
// A model is a tree from package tree, rooted at a chosen node, with a
// distribution at the root and a conditional distribution on every edge.
// The families are
//
//   - *Discrete (this package): discrete data; exact inference, EM with
//     missing cells, hidden-variable posteriors.
//   - *gaussian.Model (package model/gaussian): continuous data, jointly
//     Gaussian and Markov on the tree, fitted by EM from a closed-form
//     start.
//   - *spectral.Model (package model/spectral): discrete data, a tensor
//     network estimated without iterations (Song et al. 2013); fast, and
//     the spectral start of discrete EM, but its estimate P̂ may be ≤ 0 and
//     it has no hidden-variable posteriors.
//
// Every family implements the Model interface: log-likelihoods and scores
// of data, conditionals of any node given each row's observed cells,
// imputation of missing cells with the distribution of every filled cell,
// sampling, exact information distances (Choi et al. 2011, §3.1, additive
// along paths of the tree), validation and JSON model files. Missing cells
// are marginalised everywhere.
//
// # Choosing and fitting
//
// Fit is the one call that fits a model with a given tree to data and
// chooses the family: a Gaussian model when every column is continuous; a
// discrete one (ForData, the surrogate start of InitSurrogate, random
// starts or the spectral start, FitEM, and ChooseHiddenStates with
// FitOptions.AutoStates) when every column is discrete; a spectral one
// for FitOptions.Params ParamsSpectral. Both EMs marginalise missing cells
// — the discrete one per distinct row, the Gaussian one per missingness
// pattern — and stop at the one tolerance DefaultTol unless told
// otherwise. Each family's own Fit (FitEM and FitSource here,
// gaussian.Fit, spectral.Fit) takes that family's options.
//
// # Families register
//
// The families import model, never the reverse, so the layering stays
// acyclic: a family package registers itself with Register in its init
// function, as image formats do with package image. Read then reads its
// model files (by their "type" field: "discrete", "gaussian", "spectral")
// and Fit fits it. A new family (a mixed-type model next) plugs in with one
// Register call and one case where Fit chooses, and callers keep calling
// Fit and Read. Import the family packages a program fits or reads (package
// learn and the command line import them all); Fit and Read name the
// package to import for a type that is not registered.
//
// Randomness comes only from a rand.Source (math/rand/v2) passed in, as in
// gonum: the Src field of the options (nil: a fixed seed) or the src
// argument of Sample, so the same data and options give the same model
// whatever the number of workers. A *rand.Rand is a rand.Source too.
package model
