package cli

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
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
	r, name, err := e.openInput(path)
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t := m.Structure()
	f := *df
	if m.Kind() == data.Discrete {
		f.discrete = append(append([]string(nil), df.discrete...), t.ObservedNames()...)
	} else {
		f.continuous = append(append([]string(nil), df.continuous...), t.ObservedNames()...)
	}
	f.keepConstant = true
	opt, err := f.options(name, e.logger())
	if err != nil {
		return nil, err
	}
	d, _, err := data.ReadCSV(bytes.NewReader(raw), opt)
	if err != nil {
		// Forcing the kind of a variable the data lack fails: read the
		// columns as they are to say which variables differ.
		plain, perr := df.options(name, nil)
		if perr == nil {
			plain.KeepConstant, plain.Missing, plain.DropConstant = true, data.MissingKeep, false
			if d2, _, err2 := data.ReadCSV(bytes.NewReader(raw), plain); err2 == nil {
				if mm := model.CheckColumns(t, d2.Names()); mm != nil {
					return nil, mismatchError(name, mm)
				}
			}
		}
		return nil, err
	}
	if mm := model.CheckColumns(t, d.Names()); mm != nil {
		return nil, mismatchError(name, mm)
	}
	return d, nil
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
	var asJSON bool
	c := &cobra.Command{
		Use:   "score MODEL.json DATA.csv",
		Short: "Log-likelihood, BIC and AIC of data under a model",
		Long: `score prints the log-likelihood of DATA.csv under the model (natural log; missing
cells, with --missing keep, are marginalised), the average per row, the number
of free parameters κ, BIC = −2 log L + κ log n and AIC = −2 log L + 2κ (smaller
is better), and BIC in the convention of Choi et al. 2011, log L − (κ/2) log n.

The columns of DATA.csv must be the model's observed variables (in any order);
--ignore or --columns leave out others, such as an ID column.`,
		Example: `  latentree score model.json test.csv
  latentree score --json model.json test.csv
  latentree score --ignore id model.json test.csv`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.checkPaths([]pathFlag{{"MODEL", args[0]}, {"DATA", args[1]}}, nil); err != nil {
				return err
			}
			m, d, err := e.readModelAndData(args[0], args[1], df)
			if err != nil {
				return err
			}
			sc, err := m.Score(d, model.InferOptions{})
			if err != nil {
				return fmt.Errorf("%s: %w", args[1], err)
			}
			if asJSON {
				return writeJSON(e.stdout, map[string]any{"model": args[0], "data": args[1], "score": sc})
			}
			fmt.Fprintf(e.stdout, "%s under %s: %d rows\n", args[1], args[0], sc.Rows)
			fmt.Fprintf(e.stdout, "log-likelihood  %.2f\nper row         %.4f\nparameters      %d\nhidden          %d\nBIC             %.2f\nBIC (paper)     %.2f\nAIC             %.2f\n",
				sc.LogLik, sc.PerRow, sc.Params, sc.Hidden, sc.BIC, sc.BICPaper, sc.AIC)
			return nil
		},
	}
	df.register(c.Flags())
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
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
	c := &cobra.Command{
		Use:   "infer MODEL.json DATA.csv",
		Short: "Posterior of the hidden variables for each row, and imputation of missing cells",
		Long: `infer writes, for every row of DATA.csv, the posterior distribution of every
hidden variable given the row's observed cells (columns "h1=0", "h1=1", ...),
or with --map its most likely state (columns "h1", ...). For a Gaussian model it
writes each hidden variable's conditional mean and standard deviation
("h1_mean", "h1_sd"), or with --map the means only.

With --impute it writes the data instead, every missing cell replaced by its
most likely value (discrete) or its conditional mean (Gaussian) given the other
cells of its row, and prints how many cells it filled (and, for a discrete
model, the average probability of the filled values). On sparse binary data the
most likely value is nearly always 0: --probabilities FILE writes how sure each
filled value is, one line per missing cell and state, "row,column,value,prob"
(the posterior probability of each state), or for a Gaussian model one line per
missing cell, "row,column,mean,sd"; rows are numbered from 1, the first data
row. --json prints the same per cell (rows from 0) with the summary.

Missing cells are read as missing (--missing keep) by default here.`,
		Example: `  latentree infer model.json test.csv > posteriors.csv
  latentree infer --map model.json test.csv
  latentree infer --impute model.json incomplete.csv --out completed.csv
  latentree infer --impute --probabilities probs.csv model.json incomplete.csv --out completed.csv`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !f.impute {
				for _, name := range []string{"probabilities", "json"} {
					if cmd.Flags().Changed(name) {
						return usagef("--%s applies to --impute only", name)
					}
				}
			} else if f.mapState {
				return usagef("--map applies to the posteriors of hidden variables, not to --impute")
			}
			out := f.out
			if out == "" {
				out = "-"
			}
			outs := []pathFlag{{"--out", out}, {"--probabilities", f.probs}}
			if err := e.checkPaths([]pathFlag{{"MODEL", args[0]}, {"DATA", args[1]}}, outs); err != nil {
				return err
			}
			m, d, err := e.readModelAndData(args[0], args[1], df)
			if err != nil {
				return err
			}
			if f.impute {
				return e.impute(m, d, args, f, outs)
			}
			return e.writeTo(out, func(w io.Writer) error { return writePosteriors(w, m, d, f.mapState) })
		},
	}
	df.register(c.Flags())
	c.Flags().Lookup("missing").DefValue = "keep"
	_ = c.Flags().Set("missing", "keep")
	c.Flags().StringVarP(&f.out, "out", "o", "", "write here instead of standard output")
	c.Flags().BoolVar(&f.mapState, "map", false, "write the most likely state (Gaussian: the mean) of each hidden variable instead of its distribution")
	c.Flags().BoolVar(&f.impute, "impute", false, "write the data with missing cells filled by their most likely values (Gaussian: conditional means)")
	c.Flags().StringVar(&f.probs, "probabilities", "", "with --impute: write each filled cell's distribution to this CSV file (row,column,value,prob; Gaussian: row,column,mean,sd)")
	c.Flags().BoolVar(&f.asJSON, "json", false, "with --impute: print the summary and every filled cell's distribution as JSON")
	return c
}

// writePosteriors writes the distribution of every hidden variable in
// every row as CSV: state probabilities or the most likely state (discrete
// models), mean and standard deviation or the mean (Gaussian models).
func writePosteriors(w io.Writer, m model.Model, d *data.Dataset, mapState bool) error {
	t := m.Structure()
	hidden := t.Hidden()
	cond, err := m.Conditionals(d, hidden, model.InferOptions{})
	if err != nil {
		return err
	}
	discrete := m.Kind() == data.Discrete
	cw := csv.NewWriter(w)
	var header []string
	for _, c := range cond {
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
	meanProb := 0.0
	discrete := m.Kind() == data.Discrete
	if discrete && len(imp.Cells) > 0 {
		for _, c := range imp.Cells {
			meanProb += c.Prob
		}
		meanProb /= float64(len(imp.Cells))
	}
	if f.asJSON {
		doc := map[string]any{"model": args[0], "data": args[1], "rows": d.NumRows(), "imputed": len(imp.Cells), "cells": imp.Cells}
		if imp.Cells == nil {
			doc["cells"] = []model.ImputedCell{}
		}
		if discrete && len(imp.Cells) > 0 {
			doc["mean_prob"] = meanProb
		}
		return writeJSON(summary, doc)
	}
	if discrete && len(imp.Cells) > 0 {
		fmt.Fprintf(e.stderr, "imputed %d missing cells; average probability of the imputed values %.4f\n", len(imp.Cells), meanProb)
	} else {
		fmt.Fprintf(e.stderr, "imputed %d missing cells\n", len(imp.Cells))
	}
	return nil
}

// writeCellProbabilities writes the distribution of every filled cell in
// long format: "row,column,value,prob", one line per state, for discrete
// cells; "row,column,mean,sd" for continuous ones. Rows count from 1.
func writeCellProbabilities(w io.Writer, imp *model.Imputation) error {
	cw := csv.NewWriter(w)
	header := []string{"row", "column", "value", "prob"}
	if imp.Data.NumVars() > 0 && imp.Data.Var(0).Kind == data.Continuous {
		header = []string{"row", "column", "mean", "sd"}
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, c := range imp.Cells {
		row := strconv.Itoa(c.Row + 1)
		if c.States == nil {
			if err := cw.Write([]string{row, c.Name, formatFloat(c.Mean), formatFloat(c.SD)}); err != nil {
				return err
			}
			continue
		}
		for s, l := range c.States {
			if err := cw.Write([]string{row, c.Name, l, formatFloat(c.Probs[s])}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
