package cli

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/spectral"
)

// readModel reads a latentree model file.
func (e *env) readModel(path string) (model.Model, *model.Provenance, error) {
	r, name, err := e.openInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	m, p, err := model.Read(r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, p, nil
}

// readModelAndData reads a model file and data to use with it.
func (e *env) readModelAndData(modelPath, dataPath string, df *dataFlags) (model.Model, *data.Dataset, error) {
	m, _, err := e.readModel(modelPath)
	if err != nil {
		return nil, nil, err
	}
	d, err := e.readModelData(m, dataPath, df)
	if err != nil {
		return nil, nil, err
	}
	return m, d, nil
}

// readModelData reads data for a model: the model's variables are read as
// discrete (or continuous, for a Gaussian model) whatever their values
// look like, and constant columns are kept. When the data's columns are
// not the model's observed variables, the error names the variables
// missing on each side.
func (e *env) readModelData(m model.Model, path string, df *dataFlags) (*data.Dataset, error) {
	d, err := e.readModelDataset(m, path, df)
	return d, missingCellHint(err)
}

// missingCellHint adds to the error of a missing cell (read with --missing
// error) what --missing keep does with a model. The data package's message
// names --missing keep and drop-rows without saying that a model can use
// the rows with their missing cells.
func missingCellHint(err error) error {
	var pe *data.ParseError
	if errors.As(err, &pe) && pe.Err != nil && strings.HasPrefix(pe.Err.Error(), "missing value") {
		return fmt.Errorf("%w, and the model then marginalises them (each row is used with the cells it has)", err)
	}
	return err
}

func (e *env) readModelDataset(m model.Model, path string, df *dataFlags) (*data.Dataset, error) {
	if path != "-" && blockFormat(path) {
		return e.readModelBlocks(m, path, df)
	}
	in, name, err := e.openInput(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	// The text read is kept to read it again, as it is, if the first
	// reading fails; the reader's row limits bound it on an endless input.
	var kept bytes.Buffer
	r := io.TeeReader(in, &kept)
	f := forceModelKinds(m, df)
	f.keepConstant = true
	opt, err := f.options(name, e.logger())
	if err != nil {
		return nil, err
	}
	d, _, err := data.ReadCSV(r, opt)
	if err != nil {
		// The whole input again: what was read, then the rest.
		again := io.MultiReader(bytes.NewReader(kept.Bytes()), in)
		// Forcing the kind of a variable the data lack fails: read the
		// columns as they are to say which variables differ.
		plain, perr := df.options(name, nil)
		if perr == nil {
			plain.KeepConstant, plain.Missing, plain.DropConstant = true, data.MissingKeep, false
			if d2, _, err2 := data.ReadCSV(again, plain); err2 == nil {
				if mm := model.CheckModelColumns(m, d2.Names()); mm != nil {
					return nil, mismatchError(name, mm)
				}
			}
		}
		return nil, err
	}
	if mm := model.CheckModelColumns(m, d.Names()); mm != nil {
		return nil, mismatchError(name, mm)
	}
	return d, nil
}

// readModelBlocks is readModelData for a Parquet or gzip file or a
// directory of shards, read in row blocks into memory.
func (e *env) readModelBlocks(m model.Model, path string, df *dataFlags) (*data.Dataset, error) {
	// The columns first (as --columns and --ignore select them), to name
	// the variables that differ.
	plain, err := df.options("", nil)
	if err != nil {
		return nil, err
	}
	plain.KeepConstant, plain.Missing, plain.DropConstant = true, data.MissingKeep, false
	r, err := data.OpenBlocks([]string{path}, data.BlockOptions{ReadOptions: plain})
	if err != nil {
		return nil, err
	}
	names := r.Names()
	r.Close()
	if w := df.weights; w != "" {
		names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == w })
	}
	if mm := model.CheckModelColumns(m, names); mm != nil {
		return nil, mismatchError(path, mm)
	}
	f := forceModelKinds(m, df)
	f.keepConstant, f.dropConstant = true, false
	opt, err := f.options("", e.logger())
	if err != nil {
		return nil, err
	}
	p, err := data.Pack(&data.Files{Paths: []string{path}, Options: data.BlockOptions{ReadOptions: opt}})
	if err != nil {
		return nil, err
	}
	d, err := p.Dataset()
	if err != nil {
		return nil, err
	}
	return weightBy(path, d, opt)
}

// forceModelKinds returns the data flags with every observed variable of m
// forced to the kind the model gives it (NodeKind: discrete or continuous,
// whatever its values look like; a mixed model has both kinds).
func forceModelKinds(m model.Model, df *dataFlags) dataFlags {
	t := m.Structure()
	f := *df
	f.discrete = append([]string(nil), df.discrete...)
	f.continuous = append([]string(nil), df.continuous...)
	for _, v := range t.Observed() {
		if m.NodeKind(v) == data.Continuous {
			f.continuous = append(f.continuous, t.Name(v))
		} else {
			f.discrete = append(f.discrete, t.Name(v))
		}
	}
	for _, c := range model.Covariates(m) {
		if c.Kind == data.Continuous {
			f.continuous = append(f.continuous, c.Name)
		} else {
			f.discrete = append(f.discrete, c.Name)
		}
	}
	return f
}

// mismatchError prefixes the data's name and suggests --ignore or
// --columns for columns the model does not have.
func mismatchError(name string, err error) error {
	var mm *model.MismatchError
	if errors.As(err, &mm) && len(mm.NotInModel) > 0 {
		return fmt.Errorf("%s: %w (skip columns with --ignore, or select the model's with --columns)", name, err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

func newScoreCmd(e *env) *cobra.Command {
	df := &dataFlags{}
	var asJSON, rows bool
	var out string
	var nf *noisyorFlags
	c := &cobra.Command{
		Use:   "score MODEL.json DATA.csv",
		Short: "Log-likelihood, BIC and AIC of data under a model, or per row",
		Long: `score prints the log-likelihood of DATA.csv under the model (natural log; missing
cells, with --missing keep, are marginalised), the average per row, the number
of free parameters κ, BIC = −2 log L + κ log n and AIC = −2 log L + 2κ (smaller
is better), and BIC in the convention of Choi et al. 2011, log L − (κ/2) log n.
A spectral model's estimate P̂ can be ≤ 0 for some rows: they are counted
("rows with P̂ ≤ 0") and left out of the log-likelihood.

The summary goes to standard output, or to --out.

With --rows it writes one line per row of DATA.csv, in input order, to --out or
standard output: "row,prob,loglik", where row counts data rows from 1 (the
header is not a row), prob is the model's probability of the row's observed
cells (a density for a Gaussian model, a probability times a density for a
mixed one, P̂ for a spectral one) and loglik its
natural log, computed directly (so finite where prob underflows to 0), empty
where prob ≤ 0. The summary then goes to standard error, or to standard output
when --out is a file. With --rows --json the rows are written as one JSON
object instead, {"model", "data", "score", "rows": [{"row", "prob",
"loglik"}, ...]}, loglik null where prob ≤ 0; nothing else is printed unless
--out is a file, in which case the summary is printed as JSON too. --rows needs
every row: --missing drop-rows does not apply.

The columns of DATA.csv must be the model's observed variables (in any order);
--ignore or --columns leave out others, such as an ID column.

A noisy-or model (type "noisy-or", from latentree noisyor) takes 0/1 data, one
column per effect. Each row is computed exactly (negative findings in closed
form, the sources of the positive findings summed over their states), unless a
group of coupled sources needs more work than --max-exact: such rows are
estimated by importance sampling (--importance-samples, --seed) and the
summary counts them, with the standard error of the log-likelihood. Rows with
probability 0 are counted and left out, as above. κ counts priors, failures
and leaks.`,
		Example: `  latentree score model.json test.csv
  latentree score --json model.json test.csv
  latentree score --ignore id model.json test.csv
  latentree score --json model.json test.csv --out score.json
  latentree score --rows model.json test.csv --out rows.csv
  latentree score net.json findings.csv`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if rows && (df.missing == "drop-rows" || df.missing == "drop") {
				return usagef("--missing %s does not apply to --rows, which writes one line per input row (use --missing keep to marginalise missing cells)", df.missing)
			}
			// dest receives the rows with --rows, else the summary.
			dest := out
			if dest == "" {
				dest = "-"
			}
			outs := []pathFlag{{"--out", dest}}
			if err := e.checkPaths([]pathFlag{{"MODEL", args[0]}, {"DATA", args[1]}}, outs); err != nil {
				return err
			}
			if net, err := e.noisyorModel(cmd, args[0]); err != nil || net != nil {
				if err != nil {
					return err
				}
				if df.weights != "" {
					return usagef("--weights does not apply to a noisy-or model")
				}
				return e.scoreNoisyor(cmd, net, args, df, nf, rows, asJSON, dest, outs)
			}
			m, d, err := e.readModelAndData(args[0], args[1], df)
			if err != nil {
				return err
			}
			sc, err := m.Score(d, model.InferOptions{})
			if err != nil {
				return fmt.Errorf("%s: %w", args[1], err)
			}
			doc := map[string]any{"model": args[0], "data": args[1], "score": sc}
			if !rows {
				return e.writeTo(dest, func(w io.Writer) error {
					if asJSON {
						return writeJSON(w, doc)
					}
					return printScore(w, args[0], args[1], sc, isSpectral(m))
				})
			}
			prob, ll, err := model.RowLikelihoods(m, d, model.InferOptions{})
			if err != nil {
				return fmt.Errorf("%s: %w", args[1], err)
			}
			return e.writeScoreRows(dest, outs, asJSON, doc, prob, ll, func(w io.Writer) error {
				return printScore(w, args[0], args[1], sc, isSpectral(m))
			})
		},
	}
	df.register(c.Flags())
	df.registerWeights(c.Flags(), "each row's log-likelihood counts its weight times (--rows still writes one line per row); BIC's n is the weights' sum (frequency) or the rows (sampling)")
	c.Flags().BoolVar(&rows, "rows", false, `write every row's probability and log-likelihood ("row,prob,loglik", rows from 1) instead of only the summary`)
	c.Flags().StringVarP(&out, "out", "o", "", "write the summary (with --rows: the rows) to this file instead of standard output")
	c.Flags().BoolVar(&asJSON, "json", false, `print JSON (with --rows: one object with the summary and a "rows" array)`)
	nf = addNoisyorFlags(c.Flags())
	return c
}

// isSpectral reports whether m is a spectral model, whose P̂ may be ≤ 0.
func isSpectral(m model.Model) bool {
	_, ok := m.(*spectral.Model)
	return ok
}

// printScore prints score's summary. Rows with P̂ ≤ 0 are reported for a
// spectral model (and for any model that has them).
func printScore(w io.Writer, modelPath, dataPath string, sc *model.Score, spectral bool) error {
	fmt.Fprintf(w, "%s under %s: %d rows", dataPath, modelPath, sc.Rows)
	if sc.WeightKind != "" {
		fmt.Fprintf(w, " with %s weights (n = %.6g)", sc.WeightKind, sc.N)
	}
	fmt.Fprintln(w)
	if spectral || sc.NonPositive > 0 {
		fmt.Fprintf(w, "rows with P̂ ≤ 0 %d (left out of the log-likelihood)\n", sc.NonPositive)
	}
	_, err := fmt.Fprintf(w, "log-likelihood  %.2f\nper row         %.4f\nparameters      %d\nhidden          %d\nBIC             %.2f\nBIC (paper)     %.2f\nAIC             %.2f\n",
		sc.LogLik, sc.PerRow, sc.Params, sc.Hidden, sc.BIC, sc.BICPaper, sc.AIC)
	return err
}

// finite reports whether x is a number other than ±Inf.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// writeScoreRows writes every row's probability and log-likelihood to
// dest, as CSV or (asJSON) in the summary document doc, then the summary
// (printed by summary, or doc as JSON) unless the document on standard
// output already holds it.
func (e *env) writeScoreRows(dest string, outs []pathFlag, asJSON bool, doc map[string]any, prob, ll []float64, summary func(io.Writer) error) error {
	write := func(w io.Writer) error { return writeRowsCSV(w, prob, ll) }
	if asJSON {
		write = func(w io.Writer) error { return writeRowsJSON(w, doc, prob, ll) }
	}
	if err := e.writeOutputs([]output{{dest, write}}); err != nil {
		return err
	}
	switch {
	case asJSON && dest == "-":
		return nil // the rows' document holds the summary
	case asJSON:
		return writeJSON(e.summaryWriter(outs), doc)
	}
	return summary(e.summaryWriter(outs))
}

// writeRowsCSV writes "row,prob,loglik", one line per row, rows from 1,
// full precision; loglik is empty where it is not finite (prob ≤ 0).
func writeRowsCSV(w io.Writer, prob, ll []float64) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("row,prob,loglik\n")
	var buf []byte
	for r := range prob {
		buf = strconv.AppendInt(buf[:0], int64(r+1), 10)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, prob[r], 'g', -1, 64)
		buf = append(buf, ',')
		if finite(ll[r]) {
			buf = strconv.AppendFloat(buf, ll[r], 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// writeRowsJSON writes the summary document doc with a "rows" array, one
// row per line: {"row": r, "prob": p, "loglik": l}, rows from 1, null
// where a value is not finite.
func writeRowsJSON(w io.Writer, doc map[string]any, prob, ll []float64) error {
	head, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	// head ends with "\n}": reopen the object to append the rows.
	bw.Write(head[:len(head)-2])
	bw.WriteString(",\n  \"rows\": [")
	num := func(buf []byte, x float64) []byte {
		if !finite(x) {
			return append(buf, "null"...)
		}
		return strconv.AppendFloat(buf, x, 'g', -1, 64)
	}
	var buf []byte
	for r := range prob {
		buf = buf[:0]
		if r > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n    {\"row\": "...)
		buf = strconv.AppendInt(buf, int64(r+1), 10)
		buf = append(buf, ", \"prob\": "...)
		buf = num(buf, prob[r])
		buf = append(buf, ", \"loglik\": "...)
		buf = num(buf, ll[r])
		buf = append(buf, '}')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	if len(prob) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}

// inferFlags are the options of infer.
type inferFlags struct {
	out, probs       string
	mapState, impute bool
	asJSON           bool
}

func newInferCmd(e *env) *cobra.Command {
	df := &dataFlags{}
	f := &inferFlags{}
	var nf *noisyorFlags
	c := &cobra.Command{
		Use:   "infer MODEL.json DATA.csv",
		Short: "Posterior of the hidden variables for each row, and imputation of missing cells",
		Long: `infer writes, for every row of DATA.csv, the posterior distribution of every
hidden variable given the row's observed cells (columns "h1=0", "h1=1", ...),
or with --map its most likely state (columns "h1", ...). For a Gaussian model it
writes each hidden variable's conditional mean and standard deviation
("h1_mean", "h1_sd"), or with --map the means only. A mixed model (discrete and
continuous variables) has both: probabilities for its discrete hidden
variables, mean and standard deviation for its continuous ones, in one file.

With --impute it writes the data instead, every missing cell replaced by its
most likely value (discrete) or its conditional mean (Gaussian) given the other
cells of its row, and prints how many cells it filled (and, for a discrete
model, the average probability of the filled values). On sparse binary data the
most likely value is nearly always 0: --probabilities FILE writes how sure each
filled value is, one line per missing cell and state, "row,column,value,prob"
(the posterior probability of each state), or for a Gaussian model one line per
missing cell, "row,column,mean,sd", and for a mixed model both in one file,
"row,column,value,prob,mean,sd" (the fields of the other kind empty); rows are
numbered from 1, the first data row. --json prints the same per cell (rows from 0) with the summary.

A spectral model (fit --params spectral) has no hidden-variable posteriors: only
--impute applies to it.

Missing cells are an error by default, as in every command: --missing keep
marginalises them (each row's posteriors come from the cells it has) and
--missing drop-rows leaves their rows out. --impute, which fills them, reads
them as missing without --missing keep.

For a noisy-or model (type "noisy-or") infer writes each row's posterior
probability that every source is on, one column per source (with --map, 1 when
it is at least 0.5, else 0), or with --json one document {"model", "data",
"rows", "sources", "exact_rows", "estimated_rows", "zero_rows", "posteriors":
[[...], ...]} ("states" with --map). Posteriors are exact up to --max-exact
terms per group of coupled sources and estimated by importance sampling beyond
(--importance-samples, --seed); rows with probability 0 under the model are left empty
(null). --impute does not apply.`,
		Example: `  latentree infer model.json test.csv > posteriors.csv
  latentree infer --map model.json test.csv
  latentree infer --missing keep model.json incomplete.csv --out posteriors.csv
  latentree infer net.json findings.csv --out sources.csv
  latentree infer --impute model.json incomplete.csv --out completed.csv
  latentree infer --impute --probabilities probs.csv model.json incomplete.csv --out completed.csv`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if net, err := e.noisyorModel(cmd, args[0]); err != nil || net != nil {
				if err != nil {
					return err
				}
				if df.weights != "" {
					return usagef("--weights does not apply to a noisy-or model")
				}
				return e.inferNoisyor(cmd, net, args, df, f, nf)
			}
			if !f.impute {
				for _, name := range []string{"probabilities", "json"} {
					if cmd.Flags().Changed(name) {
						return usagef("--%s applies to --impute only", name)
					}
				}
			} else if df.weights != "" {
				return usagef("--weights does not apply to --impute, which writes the rows' cells (weights change no imputation; skip the column with --ignore)")
			} else if f.mapState {
				return usagef("--map applies to the posteriors of hidden variables, not to --impute")
			} else if cmd.Flags().Changed("missing") && df.missing != "keep" {
				return usagef("--missing %s does not apply to --impute, which fills the missing cells: it reads them as missing (--missing keep)", df.missing)
			}
			out := f.out
			if out == "" {
				out = "-"
			}
			outs := []pathFlag{{"--out", out}, {"--probabilities", f.probs}}
			if err := e.checkPaths([]pathFlag{{"MODEL", args[0]}, {"DATA", args[1]}}, outs); err != nil {
				return err
			}
			read := df
			if f.impute {
				keep := *df
				keep.missing = "keep"
				read = &keep
			}
			m, d, err := e.readModelAndData(args[0], args[1], read)
			if err != nil {
				return err
			}
			if f.impute {
				return e.impute(m, d, args, f, outs)
			}
			if isSpectral(m) {
				return fmt.Errorf("%s: a spectral model has no hidden-variable posteriors (it estimates the joint distribution of the observed variables only); infer --impute works with it", args[0])
			}
			return e.writeTo(out, func(w io.Writer) error { return writePosteriors(w, m, d, f.mapState) })
		},
	}
	df.register(c.Flags())
	df.registerWeights(c.Flags(), "read and left out of the variables; a row's answers do not depend on weights, so they change nothing")
	c.Flags().StringVarP(&f.out, "out", "o", "", "write here instead of standard output")
	c.Flags().BoolVar(&f.mapState, "map", false, "write the most likely state (Gaussian: the mean) of each hidden variable instead of its distribution")
	c.Flags().BoolVar(&f.impute, "impute", false, "write the data with missing cells filled by their most likely values (Gaussian: conditional means)")
	c.Flags().StringVar(&f.probs, "probabilities", "", "with --impute: write each filled cell's distribution to this CSV file (row,column,value,prob; Gaussian: row,column,mean,sd)")
	c.Flags().BoolVar(&f.asJSON, "json", false, "with --impute: print the summary and every filled cell's distribution as JSON (noisy-or models: write the posteriors as JSON)")
	nf = addNoisyorFlags(c.Flags())
	return c
}

// writePosteriors writes the distribution of every hidden variable in
// every row as CSV: state probabilities or the most likely state (discrete
// nodes), mean and standard deviation or the mean (continuous nodes: those
// of a Gaussian model, and the continuous hidden nodes of a mixed one).
func writePosteriors(w io.Writer, m model.Model, d *data.Dataset, mapState bool) error {
	t := m.Structure()
	hidden := t.Hidden()
	cond, err := m.Conditionals(d, hidden, model.InferOptions{})
	if err != nil {
		return err
	}
	if len(cond) != len(hidden) {
		return fmt.Errorf("the model gave %d posteriors for %d hidden variables", len(cond), len(hidden))
	}
	isDiscrete := make([]bool, len(cond))
	for x := range cond {
		c := &cond[x]
		isDiscrete[x] = m.NodeKind(hidden[x]) == data.Discrete
		if isDiscrete[x] && len(c.Prob) != len(c.Labels)*d.NumRows() || !isDiscrete[x] && (len(c.Mean) != d.NumRows() || len(c.SD) != d.NumRows()) {
			return fmt.Errorf("the model's posterior of %s does not have one entry per row", c.Name)
		}
	}
	cw := csv.NewWriter(w)
	var header []string
	for x, c := range cond {
		discrete := isDiscrete[x]
		switch {
		case mapState:
			header = append(header, c.Name)
		case discrete:
			for _, l := range c.Labels {
				header = append(header, c.Name+"="+l)
			}
		default:
			header = append(header, c.Name+"_mean", c.Name+"_sd")
		}
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	rec := make([]string, 0, len(header))
	for r := 0; r < d.NumRows(); r++ {
		rec = rec[:0]
		for x := range cond {
			c := &cond[x]
			discrete := isDiscrete[x]
			switch {
			case discrete && mapState:
				s, _ := c.Mode(r)
				rec = append(rec, c.Labels[s])
			case discrete:
				for _, q := range c.Row(r) {
					rec = append(rec, formatFloat(q))
				}
			default:
				rec = append(rec, formatFloat(c.Mean[r]))
				if !mapState {
					rec = append(rec, formatFloat(c.SD[r]))
				}
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// impute writes the completed data (--out), the distributions of the
// filled cells (--probabilities) and the summary (text, or --json).
func (e *env) impute(m model.Model, d *data.Dataset, args []string, f *inferFlags, outs []pathFlag) error {
	imp, err := m.Impute(d, model.ImputeOptions{})
	if err != nil {
		return fmt.Errorf("%s: %w", args[1], err)
	}
	written := []output{{outs[0].path, func(w io.Writer) error { return data.WriteCSV(w, imp.Data) }}}
	if f.probs != "" {
		written = append(written, output{f.probs, func(w io.Writer) error { return writeCellProbabilities(w, imp) }})
	}
	if err := e.writeOutputs(written); err != nil {
		return err
	}
	summary := e.summaryWriter(outs)
	// The average probability of the discrete cells filled (a mixed
	// model fills discrete and continuous cells).
	meanProb, nDiscrete := 0.0, 0
	for _, c := range imp.Cells {
		if c.States != nil {
			meanProb += c.Prob
			nDiscrete++
		}
	}
	discrete := nDiscrete > 0
	if discrete {
		meanProb /= float64(nDiscrete)
	}
	if f.asJSON {
		doc := map[string]any{"model": args[0], "data": args[1], "rows": d.NumRows(), "imputed": len(imp.Cells), "cells": imp.Cells}
		if imp.Cells == nil {
			doc["cells"] = []model.ImputedCell{}
		}
		if discrete {
			doc["mean_prob"] = meanProb
		}
		return writeJSON(summary, doc)
	}
	switch {
	case discrete && nDiscrete < len(imp.Cells):
		fmt.Fprintf(e.stderr, "imputed %d missing cells (%d discrete, %d continuous); average probability of the imputed discrete values %.4f\n", len(imp.Cells), nDiscrete, len(imp.Cells)-nDiscrete, meanProb)
	case discrete:
		fmt.Fprintf(e.stderr, "imputed %d missing cells; average probability of the imputed values %.4f\n", len(imp.Cells), meanProb)
	default:
		fmt.Fprintf(e.stderr, "imputed %d missing cells\n", len(imp.Cells))
	}
	return nil
}

// writeCellProbabilities writes the distribution of every filled cell in
// long format: "row,column,value,prob", one line per state, for discrete
// cells; "row,column,mean,sd" for continuous ones. Data with columns of
// both kinds (a mixed model's) get "row,column,value,prob,mean,sd", value
// and prob empty on a continuous cell's line, mean and sd on a discrete
// cell's. Rows count from 1.
func writeCellProbabilities(w io.Writer, imp *model.Imputation) error {
	cw := csv.NewWriter(w)
	var hasDisc, hasCont bool
	for j := 0; j < imp.Data.NumVars(); j++ {
		if imp.Data.Var(j).Kind == data.Continuous {
			hasCont = true
		} else {
			hasDisc = true
		}
	}
	mixed := hasDisc && hasCont
	header := []string{"row", "column", "value", "prob"}
	switch {
	case mixed:
		header = append(header, "mean", "sd")
	case hasCont:
		header = []string{"row", "column", "mean", "sd"}
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, c := range imp.Cells {
		row := strconv.Itoa(c.Row + 1)
		if c.States == nil {
			rec := []string{row, c.Name, formatFloat(c.Mean), formatFloat(c.SD)}
			if mixed {
				rec = []string{row, c.Name, "", "", formatFloat(c.Mean), formatFloat(c.SD)}
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
			continue
		}
		for s, l := range c.States {
			rec := []string{row, c.Name, l, formatFloat(c.Probs[s])}
			if mixed {
				rec = append(rec, "", "")
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
