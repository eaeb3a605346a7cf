package cli

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/explain"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
)

// seFlags are fit's and learn's --se and --bootstrap.
type seFlags struct {
	se        bool
	bootstrap int
}

func (f *seFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.se, "se", false, "discrete models: standard errors of every probability from the observed information (the exact Hessian of the log-likelihood, in logits, carried to probabilities by the delta method; probabilities within 1e-6 of 0 or 1 are boundary estimates, held fixed and flagged; with sampling weights the sandwich (robust) estimator from it and the rows' scores); written to the model file (--out) and shown by explain")
	fs.IntVar(&f.bootstrap, "bootstrap", 0, "discrete models: bootstrap standard errors instead, from this many replicates (≥ 2) of the rows, each refitted by EM from the fit and aligned to its labelling (drawn with --seed; the result does not depend on the number of cores)")
}

// on reports whether standard errors were asked for.
func (f *seFlags) on() bool { return f.se || f.bootstrap != 0 }

// check rejects a bad --bootstrap before any work.
func (f *seFlags) check() error {
	if f.bootstrap != 0 && f.bootstrap < 2 {
		return usagef("--bootstrap %d: want at least 2 replicates", f.bootstrap)
	}
	return nil
}

// add computes the standard errors of m, fitted to d, and stores them in
// the model (so that --out writes them). em are the fit's EM options (the
// bootstrap refits use their tolerance and acceleration).
func (f *seFlags) add(m model.Model, d *data.Dataset, em model.EMOptions, seedValue uint64) error {
	dm, ok := m.(*discrete.Model)
	if !ok {
		return fmt.Errorf("--se and --bootstrap need a discrete model (all columns discrete, parameters by EM); this model is a %T", m)
	}
	var (
		se  *discrete.StdErrors
		err error
	)
	if f.bootstrap > 0 {
		se, err = dm.Bootstrap(d, discrete.BootstrapOptions{Replicates: f.bootstrap, Src: seed.New(seedValue, seed.Bootstrap),
			EM: model.EMOptions{Tol: em.Tol, MaxIter: em.MaxIter, Accel: em.Accel, Stop: em.Stop}})
	} else {
		se, err = dm.StandardErrors(d, discrete.SEOptions{})
	}
	if err != nil {
		return err
	}
	dm.SE = se
	return nil
}

// printSE says how a model's standard errors were computed and how many
// estimates are on the boundary.
func printSE(w io.Writer, m model.Model) {
	dm, ok := m.(*discrete.Model)
	if !ok || dm.SE == nil {
		return
	}
	n, boundary := 0, 0
	count := func(p []float64) {
		for _, x := range p {
			n++
			if discrete.IsBoundary(x) {
				boundary++
			}
		}
	}
	count(dm.Prior)
	for _, c := range dm.CPT {
		count(c)
	}
	how := "observed information (exact Hessian)"
	switch dm.SE.Method {
	case discrete.SEBootstrap:
		how = fmt.Sprintf("bootstrap, %d replicates", dm.SE.Replicates)
	case discrete.SESandwich:
		how = "sandwich for sampling weights (robust)"
	}
	fmt.Fprintf(w, "standard errors: %s, for %d probabilities; %d boundary estimates (within 1e-6 of 0 or 1); explain shows them\n", how, n, boundary)
}

// seGroup is the flag group of --se and --bootstrap.
const seGroup = "Standard errors"

// writeStdErrors writes explain's standard errors after a blank line,
// when the model has them.
func writeStdErrors(w io.Writer, ses *explain.StdErrors) error {
	if ses == nil {
		return nil
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return explain.WriteStdErrors(w, ses)
}
