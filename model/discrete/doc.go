// Package discrete holds the discrete latent tree model: every node is a
// categorical variable with any number of states (each hidden node may have
// its own), with a prior at the root and a conditional probability table
// (CPT) on every edge.
//
// Model implements model.Model with exact inference (upward–downward
// passes over blocks of distinct rows, a bit-parallel fast path for binary
// models) and adds posteriors, pair and joint marginals, KL divergences
// and information distances. Its parameters are fitted by EM, marginalising
// missing cells:
//
//   - ForData and ForVariables make a model for a tree and data; New for
//     given numbers of states. InitSurrogate (moment-based), Randomize and
//     the spectral start (spectral.Model.Project) set starting parameters.
//   - Model.FitEM runs SQUAREM-accelerated EM with restarts
//     (model.EMOptions) on a dataset in memory; Model.FitEMSource and
//     FitSource run it over a data.Source (files re-read on every pass, or
//     packed rows), warming up on samples of the rows.
//   - Model.EStep, Counts.Merge and Model.MStep split one EM iteration into
//     map and reduce, for data spread over machines (Counts.WriteCounts,
//     ReadCounts).
//   - ChooseHiddenStates picks the number of states of every hidden
//     variable by BIC, merging (Model.MergeStates) and splitting
//     (Model.AddState) states node by node; model.Fit with AutoStates
//     first fits every uniform count from 2 to DefaultUniformMax and
//     starts it from the best.
//
// Hidden states have no names of their own, and EM may return them in any
// order (label switching). Model.Canonicalize orders them by a stated rule
// (a hidden root's states by decreasing share, every other hidden node's
// aligned to its parent's by greedy matching on joint probabilities);
// model.Fit, FitSource and package learn apply it to every model they fit,
// so that fits reaching the same optimum from different starts write the
// same model.
//
// Standard errors: Model.StandardErrors gives those of every probability
// from the exact observed information (Louis's identity, in logits, carried
// to probabilities by the delta method; boundary estimates within
// BoundaryTol of 0 or 1 held fixed and flagged by IsBoundary), and
// Model.Bootstrap bootstrap ones, with every replicate aligned to the
// fit's labelling. Model.SE holds them, and the model file keeps them.
//
// Once fitted, KL compares the distributions two models give the same
// observed variables (exactly for few observed configurations, by
// sampling otherwise); Model.WriteJSON writes a model file, and ReadJSON
// (or model.Read, for any family) reads it back.
//
// # Choosing
//
// Use this family for all-discrete data when you need a proper
// distribution with hidden-variable posteriors; model.Fit chooses it for
// such data (FitOptions.Params model.ParamsEM) and runs the steps above.
// Importing this package registers it with package model, whose Fit and
// Read then reach it (model files of type "discrete").
package discrete
