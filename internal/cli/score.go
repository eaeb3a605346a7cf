package cli

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
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
// look like.
func (e *env) readModelData(m model.Model, path string, df *dataFlags) (*data.Dataset, error) {
	f := *df
	switch m := m.(type) {
	case *model.Discrete:
		f.discrete = append(append([]string(nil), df.discrete...), m.Tree.ObservedNames()...)
	case *model.Gaussian:
		f.continuous = append(append([]string(nil), df.continuous...), m.Tree.ObservedNames()...)
	}
	f.keepConstant = true
	d, _, err := e.readData(path, &f)
	return d, err
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
is better), and BIC in the convention of Choi et al. 2011, log L − (κ/2) log n.`,
		Example: `  latentree score model.json test.csv
  latentree score --json model.json test.csv`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
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

func newInferCmd(e *env) *cobra.Command {
	df := &dataFlags{}
	var (
		out      string
		mapState bool
		impute   bool
	)
	c := &cobra.Command{
		Use:   "infer MODEL.json DATA.csv",
		Short: "Posterior of the hidden variables for each row, and imputation of missing cells",
		Long: `infer writes, for every row of DATA.csv, the posterior distribution of every
hidden variable given the row's observed cells (columns "h1=0", "h1=1", ...),
or with --map its most likely state (columns "h1", ...). For a Gaussian model it
writes each hidden variable's conditional mean and standard deviation
("h1_mean", "h1_sd"), or with --map the means only.

With --impute it writes the data instead, every missing cell replaced by its
most likely value given the other cells of its row. Missing cells are read as
missing (--missing keep) by default here.`,
		Example: `  latentree infer model.json test.csv > posteriors.csv
  latentree infer --map model.json test.csv
  latentree infer --impute model.json incomplete.csv --out completed.csv`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			mod, d, err := e.readModelAndData(args[0], args[1], df)
			if err != nil {
				return err
			}
			if g, ok := mod.(*model.Gaussian); ok {
				return e.inferGaussian(g, d, out, mapState, impute)
			}
			m := mod.(*model.Discrete)
			t := m.Tree
			if impute {
				obs := make([]int, d.NumVars())
				for j := range obs {
					obs[j], _ = t.Lookup(d.Var(j).Name)
				}
				post, err := m.Posterior(d, obs, model.InferOptions{})
				if err != nil {
					return err
				}
				// The output uses the model's state labels, so that a state
				// absent from this data can still be imputed.
				vars := make([]data.Variable, len(obs))
				cols := make([][]uint16, len(obs))
				filled := 0
				for j, v := range obs {
					k := m.States[v]
					labels := m.StateLabels(v)
					dv := d.Var(j)
					vars[j] = data.Variable{Name: dv.Name, Kind: data.Discrete, States: labels}
					col := make([]uint16, d.NumRows())
					for r, c := range d.Discrete(j) {
						if c == data.Missing {
							col[r] = uint16(argmax(post[j][r*k : (r+1)*k]))
							filled++
							continue
						}
						for s, l := range labels {
							if l == dv.States[c] {
								col[r] = uint16(s)
							}
						}
					}
					cols[j] = col
				}
				d, err = data.FromDiscrete(vars, cols)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stderr, "imputed %d missing cells\n", filled)
				return e.writeTo(out, func(w io.Writer) error { return data.WriteCSV(w, d) })
			}
			hidden := t.Hidden()
			post, err := m.Posterior(d, hidden, model.InferOptions{})
			if err != nil {
				return err
			}
			return e.writeTo(out, func(w io.Writer) error {
				cw := csv.NewWriter(w)
				var header []string
				for _, h := range hidden {
					if mapState {
						header = append(header, t.Name(h))
						continue
					}
					for s := 0; s < m.States[h]; s++ {
						header = append(header, t.Name(h)+"="+strconv.Itoa(s))
					}
				}
				if err := cw.Write(header); err != nil {
					return err
				}
				rec := make([]string, 0, len(header))
				for r := 0; r < d.NumRows(); r++ {
					rec = rec[:0]
					for x, h := range hidden {
						k := m.States[h]
						p := post[x][r*k : (r+1)*k]
						if mapState {
							rec = append(rec, strconv.Itoa(argmax(p)))
							continue
						}
						for _, q := range p {
							rec = append(rec, strconv.FormatFloat(q, 'g', 6, 64))
						}
					}
					if err := cw.Write(rec); err != nil {
						return err
					}
				}
				cw.Flush()
				return cw.Error()
			})
		},
	}
	df.register(c.Flags())
	c.Flags().Lookup("missing").DefValue = "keep"
	_ = c.Flags().Set("missing", "keep")
	c.Flags().StringVarP(&out, "out", "o", "", "write here instead of standard output")
	c.Flags().BoolVar(&mapState, "map", false, "write the most likely state of each hidden variable instead of its distribution")
	c.Flags().BoolVar(&impute, "impute", false, "write the data with missing cells filled by their most likely values")
	return c
}

func argmax(p []float64) int {
	best := 0
	for i, x := range p {
		if x > p[best] {
			best = i
		}
	}
	return best
}

// inferGaussian writes conditional means and standard deviations of the
// hidden variables (or only means with --map), or the data with missing
// cells replaced by their conditional means.
func (e *env) inferGaussian(g *model.Gaussian, d *data.Dataset, out string, meanOnly, impute bool) error {
	t := g.Tree
	if impute {
		obs := make([]int, d.NumVars())
		for j := range obs {
			obs[j], _ = t.Lookup(d.Var(j).Name)
		}
		mean, _, err := g.Conditional(d, obs)
		if err != nil {
			return err
		}
		filled := 0
		for j := range obs {
			col := d.Continuous(j)
			for r, x := range col {
				if math.IsNaN(x) {
					col[r] = mean[j][r]
					filled++
				}
			}
		}
		fmt.Fprintf(e.stderr, "imputed %d missing cells\n", filled)
		return e.writeTo(out, func(w io.Writer) error { return data.WriteCSV(w, d) })
	}
	hidden := t.Hidden()
	mean, sd, err := g.Conditional(d, hidden)
	if err != nil {
		return err
	}
	return e.writeTo(out, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		var header []string
		for _, h := range hidden {
			if meanOnly {
				header = append(header, t.Name(h))
			} else {
				header = append(header, t.Name(h)+"_mean", t.Name(h)+"_sd")
			}
		}
		if err := cw.Write(header); err != nil {
			return err
		}
		rec := make([]string, 0, len(header))
		for r := 0; r < d.NumRows(); r++ {
			rec = rec[:0]
			for x := range hidden {
				rec = append(rec, strconv.FormatFloat(mean[x][r], 'g', 6, 64))
				if !meanOnly {
					rec = append(rec, strconv.FormatFloat(sd[x][r], 'g', 6, 64))
				}
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
}
