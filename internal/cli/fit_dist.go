package cli

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/mixed"
)

// Map-reduce EM (fit --estep and fit --mstep): one plain EM iteration as
// an E-step per shard, wherever the shards are, and one M-step over the
// sum of their counts.

const distGroup = "Distributed EM (one plain EM iteration in map-reduce form)"

const distHelp = `
--estep and --mstep split one plain EM iteration (as --em-accel none) into a
map and a reduce step, for data in shards on other machines or run by a
scheduler (Slurm, Spark; see the README, "More data than one machine"):

  fit --estep MODEL.json SHARD.csv --out counts.json
      computes the expected counts of the E-step of the discrete or mixed
      model MODEL.json over the rows of SHARD.csv (its parameters are not
      changed); data flags apply, as for score.
  fit --mstep MODEL.json COUNTS.json... --out NEXT.json
      adds up the counts of every shard and writes the model after the
      M-step (with --em-pseudo if given, discrete models only), printing the
      summed log-likelihood of the E-step (of MODEL.json's parameters) and
      the number of rows.

Counts carry fingerprints of the model's structure and parameters: counts of
another model, or of another iteration, are refused. K iterations from
MODEL.json over shards equal fit's plain EM (--em-accel none) for K
iterations from the same parameters, to rounding (about 1e-15). Start from
any model file, e.g. fit --em-accel none --max-iter 1 on a sample. For a
mixed (conditional-Gaussian) model the counts are its expected sufficient
statistics (state counts, and weighted first and second moments of the
continuous nodes), and K iterations equal K iterations of its plain EM.
Gaussian models are left out.`

const distExamples = `
  latentree fit --estep model.json shard1.csv --out counts1.json
  latentree fit --estep model.json shard2.csv --out counts2.json
  latentree fit --mstep model.json counts1.json counts2.json --out model2.json`

// distFlags are the flags of fit --estep and --mstep.
type distFlags struct {
	estep, mstep bool
	force        bool
}

func (f *distFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.estep, "estep", false, "args MODEL SHARD: write the expected counts of one E-step of MODEL over SHARD (--out)")
	fs.BoolVar(&f.mstep, "mstep", false, "args MODEL COUNTS...: sum the counts and write the model after the M-step (--out)")
	fs.BoolVar(&f.force, "force", false, "with --mstep: add counts files even when two are the same file or have the same content")
}

// args checks the number of arguments for the mode the flags select.
func (f *distFlags) args(cmd *cobra.Command, args []string) error {
	switch {
	case f.estep && f.mstep:
		return usagef("--estep and --mstep are two steps: give one")
	case f.estep && len(args) != 2:
		return usagef("fit --estep takes MODEL and SHARD, got %d arguments", len(args))
	case f.mstep && len(args) < 2:
		return usagef("fit --mstep takes MODEL and at least one counts file, got %d arguments", len(args))
	case !f.estep && !f.mstep && len(args) != 2:
		return usagef("fit takes TREE and DATA, got %d arguments", len(args))
	}
	return nil
}

// onlyFlags rejects every flag set that is not in allowed.
func onlyFlags(cmd *cobra.Command, mode string, allowed ...string) error {
	var bad []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if !slices.Contains(allowed, fl.Name) {
			bad = append(bad, "--"+fl.Name)
		}
	})
	if len(bad) > 0 {
		return usagef("%s does not apply to fit %s (it takes %s)", strings.Join(bad, ", "), mode, "--"+strings.Join(allowed, ", --"))
	}
	return nil
}

// readDistModel reads a model file and requires a model that has
// map-reduce EM: discrete or mixed.
func (e *env) readDistModel(path, mode string) (model.Model, error) {
	m, _, err := e.readModel(path)
	if err != nil {
		return nil, err
	}
	switch m.(type) {
	case *discrete.Model, *mixed.Model:
		return m, nil
	}
	return nil, fmt.Errorf("%s: fit %s needs a discrete or mixed model; distributed EM is left out for %T models", path, mode, m)
}

// distCounts are the counts of one E-step of a discrete model
// (*discrete.Counts) or a mixed one (*mixed.Counts).
type distCounts interface {
	WriteCounts(w io.Writer) error
	TotalLogLik() float64
}

// countsSummary returns the rows (an int when whole), the log-likelihood
// over the rows of positive probability, and the number of rows of
// probability 0 of counts.
func countsSummary(c distCounts) (rows any, ll float64, impossible int) {
	switch c := c.(type) {
	case *discrete.Counts:
		return c.Rows, c.LogLik, c.Impossible
	case *mixed.Counts:
		rows = c.Rows
		if c.Rows == math.Round(c.Rows) && c.Rows < 1<<53 {
			rows = int(c.Rows)
		}
		return rows, c.LogLik, c.Impossible
	}
	return nil, 0, 0
}

// runEStep is fit --estep MODEL SHARD --out COUNTS.
func (e *env) runEStep(cmd *cobra.Command, args []string, df *dataFlags, out string, asJSON bool) error {
	allowed := []string{"estep", "out", "json", "columns", "ignore", "delimiter", "discrete", "continuous", "missing", "drop-constant", "max-states"}
	if err := onlyFlags(cmd, "--estep", allowed...); err != nil {
		return err
	}
	if out == "" {
		return usagef("fit --estep needs --out, the counts file (- for standard output)")
	}
	outs := []pathFlag{{"--out", out}}
	if err := e.checkPaths([]pathFlag{{"MODEL", args[0]}, {"SHARD", args[1]}}, outs); err != nil {
		return err
	}
	m, err := e.readDistModel(args[0], "--estep")
	if err != nil {
		return err
	}
	d, err := e.readModelData(m, args[1], df)
	if err != nil {
		return err
	}
	start := time.Now()
	var c distCounts
	switch m := m.(type) {
	case *discrete.Model:
		c, err = m.EStep(d, model.InferOptions{})
	case *mixed.Model:
		c, err = m.Counts(d, model.InferOptions{})
	}
	if err != nil {
		return fmt.Errorf("%s: %w", args[1], err)
	}
	sec := time.Since(start).Seconds()
	if err := e.writeTo(out, c.WriteCounts); err != nil {
		return err
	}
	w := e.summaryWriter(outs)
	rows, ll, impossible := countsSummary(c)
	if asJSON {
		return writeJSON(w, map[string]any{"step": "estep", "model": args[0], "data": args[1], "rows": rows, "loglik": c.TotalLogLik(), "impossible_rows": impossible, "seconds": sec})
	}
	fmt.Fprintf(w, "E-step of %s on %s: %v rows, log-likelihood %s, %.2fs\n", args[0], args[1], rows, countsLogLik(impossible, ll), sec)
	return nil
}

// countsLogLik describes the log-likelihood of counts: −Inf with the
// number of rows of probability 0, as score reports it, when there are.
func countsLogLik(impossible int, ll float64) string {
	if impossible > 0 {
		return fmt.Sprintf("-Inf (%d rows of probability 0; %.6f over the others)", impossible, ll)
	}
	return fmt.Sprintf("%.6f", ll)
}

// runMStep is fit --mstep MODEL COUNTS... --out NEXT.
func (e *env) runMStep(cmd *cobra.Command, args []string, pseudo float64, out string, asJSON, force bool) error {
	if err := onlyFlags(cmd, "--mstep", "mstep", "out", "json", "em-pseudo", "force"); err != nil {
		return err
	}
	if out == "" {
		return usagef("fit --mstep needs --out, the file of the next model (- for standard output)")
	}
	if !(pseudo >= 0) || math.IsInf(pseudo, 0) {
		return usagef("--em-pseudo %g: want a finite value ≥ 0", pseudo)
	}
	ins := []pathFlag{{"MODEL", args[0]}}
	for i, p := range args[1:] {
		ins = append(ins, pathFlag{fmt.Sprintf("COUNTS %d", i+1), p})
	}
	outs := []pathFlag{{"--out", out}}
	if err := e.checkPaths(ins, outs); err != nil {
		return err
	}
	if err := checkNotRepeated(ins[1:], force); err != nil {
		return err
	}
	m, err := e.readDistModel(args[0], "--mstep")
	if err != nil {
		return err
	}
	if _, ok := m.(*mixed.Model); ok && pseudo != 0 {
		return usagef("--em-pseudo does not apply to a mixed model (its EM has no pseudo-counts)")
	}
	var sum distCounts
	for _, path := range args[1:] {
		r, name, err := e.openInput(path)
		if err != nil {
			return err
		}
		var c distCounts
		switch m.(type) {
		case *discrete.Model:
			c, err = discrete.ReadCounts(r)
		case *mixed.Model:
			c, err = mixed.ReadCounts(r)
		}
		r.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if sum == nil {
			sum = c
			continue
		}
		switch s := sum.(type) {
		case *discrete.Counts:
			err = s.Merge(c.(*discrete.Counts))
		case *mixed.Counts:
			err = s.Merge(c.(*mixed.Counts))
		}
		if err != nil {
			return fmt.Errorf("%s: %w (against %s)", name, err, args[1])
		}
	}
	switch m := m.(type) {
	case *discrete.Model:
		err = m.MStep(sum.(*discrete.Counts), pseudo)
	case *mixed.Model:
		_, err = m.MStepCounts(sum.(*mixed.Counts))
	}
	if err != nil {
		return fmt.Errorf("%s and %s: %w", args[0], args[1], err)
	}
	rows, ll, impossible := countsSummary(sum)
	opts := map[string]any{"model": args[0], "counts": args[1:], "estep_loglik": ll}
	if impossible > 0 {
		opts["estep_impossible_rows"] = impossible
	}
	if pseudo > 0 {
		opts["em-pseudo"] = pseudo
	}
	info := &model.DataInfo{}
	switch r := rows.(type) {
	case int:
		info.Rows = r
	case float64:
		info.Rows = int(math.Min(math.Round(r), math.MaxInt32))
	}
	prov := &model.Provenance{Created: time.Now().UTC().Format(time.RFC3339), Software: "latentree", Method: "fit --mstep", Options: opts, Data: info}
	if err := e.writeTo(out, func(w io.Writer) error { return m.WriteJSON(w, prov) }); err != nil {
		return err
	}
	w := e.summaryWriter(outs)
	if asJSON {
		return writeJSON(w, map[string]any{"step": "mstep", "model": args[0], "counts": args[1:], "rows": rows, "loglik": sum.TotalLogLik(), "impossible_rows": impossible})
	}
	fmt.Fprintf(w, "M-step from %s: %v rows, log-likelihood %s at the parameters of %s\n", plural(len(args)-1, "counts file"), rows, countsLogLik(impossible, ll), args[0])
	return nil
}
