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
