// Package explain says what the hidden variables of a latent tree model
// stand for: for every hidden variable, top-down from the root, the
// observed variables that characterise it and a short label made of their
// names, and for a discrete model its states, how large they are and which
// observed values become more likely in each.
//
//   - Discrete models (Model with a *discrete.Model): the observed
//     variables are ranked by their mutual information (nats) with the
//     hidden variable, computed exactly from the model's pair marginals
//     (one pass over the tree per hidden variable). Each state s of the
//     hidden variable has its share, P(h = s) from the model or, with
//     Options.Data, the mean posterior P(h = s | row) over the rows
//     (missing cells marginalised), and the observed values x = b whose
//     probability rises most, P(x = b | h = s) − P(x = b), with both
//     probabilities.
//   - Gaussian models (Model with a *gaussian.Model): the observed
//     variables ranked by the absolute value of their correlation with the
//     hidden variable, with its sign; no states.
//   - Mixed (conditional-Gaussian) models (Model with a *mixed.Model):
//     every observed variable is ranked by its first canonical
//     correlation with the hidden variable (Related.Strength: |ρ| for two
//     continuous variables, the correlation ratio η for a discrete and a
//     continuous one, the first non-trivial correspondence-analysis
//     singular value for two discrete ones), computed exactly from the
//     parameters. A discrete hidden variable has states as in a discrete
//     model, whose discrete observed values rise (Rising) and whose
//     continuous observed variables' means shift, (E[x | h = s] − E[x]) /
//     SD(x) (Shifts); a continuous one has no states, and its continuous
//     related variables carry their signed correlation.
//   - Noisy-or networks (Noisyor): each source's effects ranked by the
//     failure probability of their edge, lowest (strongest) first, with
//     the exact mutual information of source and effect; the states are
//     "off" and "on", their shares the prior or the mean posterior over
//     the rows, and the effects whose probability of being on (or off)
//     rises most.
//
// # Classification quality and local dependence
//
// With Options.Data, every discrete hidden variable (of a discrete or
// mixed model; every noisy-or source) also gets its Classification, from
// the rows' posteriors p_ik = P(h = k | row i), n rows, K states:
// model-estimated shares π_k = Σ_i p_ik / n and modal shares (the rows
// whose most likely state is k); the mean posterior entropy E = −Σ_i Σ_k
// p_ik ln p_ik / n; LatentGOLD's entropy R² = 1 − E / E₀ with E₀ = −Σ_k π_k
// ln π_k; Mplus's relative entropy ("entropy") = 1 − E / ln K, which
// measures E against equal shares and so is at least the entropy R²; the
// classification table (state × assigned state, sums of posteriors), the
// expected classification error of the modal assignment, and the average
// posterior probabilities by assigned state (AvePP). ClassifyModel
// computes them for any model.Model with hidden-variable posteriors
// (through its Conditionals), Classify from one Conditional.
//
// BivariateResiduals gives the local-dependence check: for every pair of
// discrete observed variables, LatentGOLD's bivariate residual, the
// Pearson χ² of the pair's two-way table in the data (rows where both are
// observed) against the table the model expects (that many rows times the
// model's exact pair marginal), divided by (K_a − 1)(K_b − 1). A pair the
// model's hidden variables do not connect closely enough, such as two
// questions that depend on each other beyond the class in a latent class
// model, stands out with a large BVR; a latent tree that joins them
// removes it.
//
// The label of a hidden variable is the names of its first LabelWords
// related observed variables joined by " · "; Explanation.Labels maps
// hidden names to labels for drawings and reports, and WriteText prints a
// readable summary.
package explain
