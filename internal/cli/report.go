package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/explain"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/report"
)

func init() { viewCommands = append(viewCommands, newReportCmd) }

func newReportCmd(e *env) *cobra.Command {
	df := &dataFlags{}
	var out, title string
	var top int
	var asJSON bool
	c := &cobra.Command{
		Use:   "report MODEL.json [DATA.csv] --out report.html",
		Short: "One self-contained HTML page to explore a model: tree, hidden variables, summary",
		Long: `report writes one HTML file that shows a model and opens offline in any
browser (no network: its style, script and plots are inline):

  the tree         zoom (wheel) and pan (drag); collapse or expand a subtree by
                   its node's toggle or a double click; search a variable by
                   name (Enter goes to the next match); large trees open
                   collapsed to a readable depth
  a node's panel   click a node: its label and explanation (as latentree
                   explain gives it: related observed variables, states with
                   their shares and rising variables), its CPT P(node | parent)
                   and marginal (discrete) or its correlations (Gaussian), or
                   its sources and effects (noisy-or); in a mixed model a
                   continuous node's mean and variance per parent state (or
                   coefficient on its continuous parent), continuous nodes
                   drawn teal with a second outline
  the summary      method, options, data file and SHA-256, rows, scores and EM
                   result as the model file records them
  the EM trace     the log-likelihood per E-step, as a plot
  data quality     with DATA.csv: rows, missing cells per variable, constant
                   variables
  covariates       a model with covariates (--covariates): the root
                   regression's coefficients as explain prints them (β, and
                   after fit --se their SE, z and odds ratio's 95% interval)
  classification   with DATA.csv, per discrete hidden variable: entropy R²
                   (LatentGOLD), relative entropy (Mplus), expected
                   classification error, and by assigned state the rows,
                   modal and model shares and mean posteriors (formulas:
                   latentree explain --help)
  local dependence with DATA.csv, discrete and mixed models: the largest
                   bivariate residuals of the discrete observed pairs
                   (explain --residuals lists them all); left out when pairs
                   × rows exceed 2·10⁸

With DATA.csv the hidden variables' state shares are posterior shares over its
rows (its columns must be the model's observed variables; --ignore or
--columns leave out others). learn --report writes the same page for the model
it learns.

--json prints a JSON summary ({"model", "data", "out", "type", "observed",
"hidden", "rows", "bytes"}), on standard error when the page goes to
standard output; without it report prints nothing.`,
		Example: `  latentree learn docs.csv --out model.json --report report.html
  latentree report model.json --out report.html
  latentree report model.json docs.csv --out report.html --title "Newsgroups"
  latentree report net.json findings.csv --out net.html
  latentree report model.json --out report.html --json`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("give the page's file with --out (- for standard output)")
			}
			if top < 1 {
				return usagef("--top must be at least 1, got %d", top)
			}
			dataPath := ""
			if len(args) == 2 {
				dataPath = args[1]
			}
			if err := e.checkPaths([]pathFlag{{"MODEL", args[0]}, {"DATA", dataPath}}, []pathFlag{{"--out", out}}); err != nil {
				return err
			}
			in := report.Input{Title: title}
			summary := map[string]any{"model": args[0], "out": out}
			opt := explain.Options{Top: top}
			net, err := e.noisyorModel(cmd, args[0])
			if err != nil {
				return err
			}
			if net != nil && df.weights != "" {
				return usagef("--weights does not apply to a noisy-or model")
			}
			if net != nil {
				if dataPath != "" {
					if in.Data, err = e.readNoisyorDataset(net, dataPath, df); err != nil {
						return err
					}
				}
				opt.Data = in.Data
				in.Noisyor = net
				summary["type"], summary["observed"], summary["hidden"] = "noisy-or", net.NumEffects(), net.NumSources()
				if in.Explanation, err = explain.Noisyor(net, opt); err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
			} else {
				m, prov, err := e.readModel(args[0])
				if err != nil {
					return err
				}
				if dataPath != "" {
					if in.Data, err = e.readModelData(m, dataPath, df); err != nil {
						return err
					}
				}
				in.Model, in.Provenance = m, prov
				summary["type"], summary["observed"], summary["hidden"] = modelType(m), m.Structure().NumObserved(), m.Structure().NumHidden()
				opt.Data = in.Data
				if in.Explanation, err = explainForReport(m, opt); err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
				if in.Residuals, err = residualsForReport(m, in.Data); err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
			}
			if dataPath != "" {
				in.DataName = dataPath
				summary["data"], summary["rows"] = dataPath, in.Data.NumRows()
			}
			var size int64
			if err := e.writeTo(out, func(w io.Writer) error {
				cw := &countingWriter{w: w}
				err := report.Write(cw, in)
				size = cw.n
				return err
			}); err != nil {
				return err
			}
			if asJSON {
				summary["bytes"] = size
				return writeJSON(e.summaryWriter([]pathFlag{{"--out", out}}), summary)
			}
			return nil
		},
	}
	df.register(c.Flags())
	df.registerWeights(c.Flags(), "the states' shares and the classification quality count a row its weight times")
	c.Flags().StringVarP(&out, "out", "o", "", "write the HTML page to this file (- for standard output)")
	c.Flags().StringVar(&title, "title", "", "the page's title (default: from the data file's name)")
	c.Flags().IntVar(&top, "top", explain.DefaultTop, "observed variables listed per hidden variable and per state")
	c.Flags().BoolVar(&asJSON, "json", false, "print a JSON summary of the page written (on standard error when the page goes to standard output)")
	return c
}

// modelType names the kind of a model file in summaries: discrete,
// gaussian, mixed or spectral.
func modelType(m model.Model) string {
	switch {
	case isSpectral(m):
		return "spectral"
	case m.Kind() == data.Continuous:
		return "gaussian"
	case m.Kind() == data.Mixed:
		return "mixed"
	}
	return "discrete"
}

// explainForReport explains a model's hidden variables for its report; a
// spectral model, which has no parameters for them, gets none.
func explainForReport(m model.Model, opt explain.Options) (*explain.Explanation, error) {
	if isSpectral(m) {
		return nil, nil
	}
	return explain.Model(m, opt)
}

// reportResidualWork bounds pairs × rows of the residuals a report
// computes: one pass over the rows per pair.
const reportResidualWork = 2e8

// residualsForReport returns the bivariate residuals of a discrete or mixed
// model's discrete observed pairs in d; nil without data, for other
// models, with fewer than two discrete observed variables, or when pairs ×
// rows exceed reportResidualWork.
func residualsForReport(m model.Model, d *data.Dataset) ([]explain.Residual, error) {
	if d == nil || isSpectral(m) || m.Kind() == data.Continuous {
		return nil, nil
	}
	n := 0
	for _, v := range m.Structure().Observed() {
		if m.NodeKind(v) == data.Discrete {
			n++
		}
	}
	if n < 2 || float64(n)*float64(n-1)/2*float64(d.NumRows()) > reportResidualWork {
		return nil, nil
	}
	return explain.BivariateResiduals(m, d)
}

// learnReport is the output of learn --report: the page of the model just
// learned, with the data it was learned from (nil from a distance matrix).
func learnReport(path string, res *learn.Result, d *data.Dataset, source string, prov *model.Provenance) (output, error) {
	if res.Model == nil {
		return output{}, errors.New("--report needs a fitted model")
	}
	ex, err := explainForReport(res.Model, explain.Options{Data: d})
	if err != nil {
		return output{}, err
	}
	bvr, err := residualsForReport(res.Model, d)
	if err != nil {
		return output{}, err
	}
	in := report.Input{
		Model: res.Model, Provenance: prov, Explanation: ex, Data: d, DataName: source,
		Degenerate: res.Degenerate, Residuals: bvr,
		Timings: []report.Timing{
			{Name: "statistics", Duration: res.Timings.Stats},
			{Name: "structure", Duration: res.Timings.Structure},
			{Name: "fit", Duration: res.Timings.Fit},
			{Name: "total", Duration: res.Timings.Total},
		},
	}
	return output{path, func(w io.Writer) error { return report.Write(w, in) }}, nil
}
