package learn

import (
	"errors"
	"fmt"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/tree"
)

// statsMoments returns the Gaussian moments of st when every variable is
// continuous and observed in every row and the pair statistics are there
// (the covariance a Gaussian latent tree's likelihood depends on), or nil.
// Stats' covariances divide by n − 1; the moments by n.
func statsMoments(st *stats.Stats) *gaussian.Moments {
	n := st.Rows()
	p := st.NumVars()
	if n < 2 || !st.HasPairs() || p == 0 {
		return nil
	}
	m := &gaussian.Moments{Names: st.Names(), Rows: int(n), Mean: make([]float64, p), Cov: make([]float64, p*p)}
	scale := float64(n-1) / float64(n)
	for i := range p {
		if st.Var(i).Kind != data.Continuous || st.Count(i) != n {
			return nil
		}
		m.Mean[i] = st.Mean(i)
		for j := i; j < p; j++ {
			c := st.Cov(i, j) * scale
			m.Cov[i*p+j], m.Cov[j*p+i] = c, c
		}
	}
	if m.Validate() != nil {
		return nil
	}
	return m
}

// structureMoments returns the Gaussian moments of a structure-only run's
// statistics st when the contraction may be chosen by BIC
// from them: opt's method contracts, and ContractAuto (without threshold
// options) or ContractBIC or ContractAIC is asked for. It returns nil
// moments when the threshold rule applies, and an error when BIC or AIC
// was asked for but the data are not all continuous and complete.
func structureMoments(st *stats.Stats, opt Options) (*gaussian.Moments, ContractRule, error) {
	c := opt.Contract
	if !opt.method().Contracts() || c.Rule == ContractThreshold || c.Rule == ContractAuto && (c.Threshold != 0 || c.KeepHiddenEdges) {
		return nil, ContractThreshold, nil
	}
	// From the statistics even when the rows are there: the same moments,
	// to the last bit, as a statistics file of the data gives.
	mom := statsMoments(st)
	rule := c.Rule
	if rule == ContractAuto {
		rule = ContractBIC
		// From the moments the search costs about variables³ per
		// round, whatever the number of rows.
		if mom == nil || !opt.affordable(len(mom.Names), len(mom.Names)) {
			return nil, ContractThreshold, nil
		}
	}
	if mom == nil {
		return nil, rule, fmt.Errorf("learn: contraction by %s without fitting parameters needs all-continuous data without missing cells (the Gaussian BIC from their covariance); use the threshold rule", rule)
	}
	return mom, rule, nil
}

// structureByBIC is the structure-only learning of Learn, FromStats and
// LearnSource when the contraction is chosen by BIC (or AIC) from the
// Gaussian moments mom of the data: the learner's tree without
// contraction, contracted by contractGaussian with the Chow–Liu tree as
// baseline, so that the result never has a lower log-likelihood than the
// Chow–Liu tree (its BIC is at most the Chow–Liu tree's and it has at
// least as many parameters). No parameters are returned; Result.Contraction
// says what the search did (Covariance true).
func structureByBIC(st *stats.Stats, d *data.Dataset, mom *gaussian.Moments, rule ContractRule, opt Options) (*Result, error) {
	if mom == nil {
		return nil, errors.New("learn: no moments to contract by")
	}
	sopt := opt
	sopt.Contract = ContractOptions{Rule: ContractThreshold, Threshold: -1, KeepHiddenEdges: true}
	// The Chow–Liu baseline is learned while the structure is (both only
	// read st).
	type baseline struct {
		t   *tree.Tree
		err error
	}
	clc := make(chan baseline, 1)
	go func() {
		t, err := chowLiu(st, opt.Distance.Pseudo)
		clc <- baseline{t, err}
	}()
	res, err := fromStats(st, d, sopt)
	b := <-clc
	if err != nil {
		return nil, err
	}
	res.ContractRule = rule
	t1 := time.Now()
	cl, err := b.t, b.err
	if err != nil {
		return nil, err
	}
	pr, err := contractGaussian(res.Tree, mom, opt.Fit, opt.pruneOptions(rule), opt.ContractProgress, cl)
	if err != nil {
		return nil, err
	}
	res.Tree = pr.Tree
	if err := renameHidden(res.Tree); err != nil {
		return nil, err
	}
	res.Contraction = &ContractReport{Rule: rule, Contracted: pr.Contracted, Evaluated: pr.Evaluated,
		InitialBIC: pr.InitialBIC, BIC: pr.BIC, ChowLiu: pr.Baseline == 0, Kept: "contracted", Covariance: true}
	if pr.Baseline == 0 {
		res.Contraction.Kept = "chowliu"
	}
	res.Report.Contracted = pr.Contracted
	res.Report.Hidden = res.Tree.NumHidden()
	res.Timings.Fit = time.Since(t1)
	return res, nil
}

// pruneOptions are the options of the search by rule (ContractBIC or
// ContractAIC): Contract.Prune, with AIC set by the rule and Workers
// defaulting to opt's.
func (o *Options) pruneOptions(rule ContractRule) PruneOptions {
	popt := o.Contract.Prune
	popt.AIC = rule == ContractAIC
	if popt.Workers == 0 {
		popt.Workers = o.Workers
	}
	return popt
}
