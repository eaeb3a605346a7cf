package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/explain"
	"github.com/latentree/latentree/model"
)

func init() { viewCommands = append(viewCommands, newExplainCmd) }

func newExplainCmd(e *env) *cobra.Command {
	df := &dataFlags{}
	var top, words int
	var asJSON, residuals bool
	var out string
	c := &cobra.Command{
		Use:   "explain MODEL.json [DATA.csv]",
		Short: "What each hidden variable stands for: related observed variables, states and labels",
		Long: `explain lists every hidden variable of a model, top-down from the root
(breadth-first), with a short label made of the names of its most related
observed variables (--label-words of them), and:

  discrete model   the --top observed variables with the highest mutual
                   information with it (exact, from the model, in nats), and
                   for each of its states its share and the --top observed
                   values whose probability rises most in that state, as
                   "god 0.61 (0.05)": P(god = 1 | state) = 0.61, P(god = 1) =
                   0.05 (a value other than 1 is named, "god=0"); with one
                   hidden variable (a latent class model, learn --method
                   lcm) each state, a class, also gets its profile: every
                   observed variable's most probable value and its
                   probability in the class (--json: the full table)
  Gaussian model   the --top observed variables with the strongest
                   correlations with it, with their signs
  mixed model      (discrete and continuous variables) the --top observed
                   variables by first canonical correlation with it (|ρ|
                   between continuous variables, shown signed; the
                   correlation ratio η between a discrete and a continuous
                   one), and for each state of a discrete hidden variable
                   its share, the discrete values whose probability rises
                   most (as above) and the continuous variables whose mean
                   shifts most, "y +1.20 SD": (E[y | state] − E[y]) / SD(y);
                   with one hidden variable its profile gives continuous
                   variables as mean±SD in the class
  noisy-or network each source's effects by failure probability, lowest
                   (strongest) first, and its states off and on as above

The states' shares are the model's probabilities, or with DATA.csv the mean
posterior of each state over the rows (missing cells, with --missing keep,
marginalised). With DATA.csv every discrete hidden variable (and noisy-or
source) also gets its classification quality, from each row's posterior p_ik
= P(h = k | row i) over the n rows, K states (without DATA.csv it is not
shown: it needs the rows' posteriors):

  modal / model    the share of rows whose most likely state is k (modal
                   assignment), and the model-estimated share π_k = Σ_i p_ik/n
  entropy R²       LatentGOLD's: 1 − E/E₀, E = −Σ_i Σ_k p_ik ln p_ik / n the
                   mean posterior entropy, E₀ = −Σ_k π_k ln π_k
  relative entropy Mplus's "entropy": 1 − E/ln K (against equal shares,
                   whatever the shares; at least entropy R²)
  error            1 − Σ_k (Σ of p_ik over rows assigned to k)/n, the expected
                   share of rows the modal assignment misclassifies
  mean posterior   per assigned state l, the mean posterior of every state
                   over the rows assigned to l (its own: Mplus's AvePP); times
                   the rows assigned to l, the classification table's column l

--residuals (needs DATA.csv) adds the bivariate residuals of every pair of
discrete observed variables, largest first: over the N rows where both are
observed, BVR = Pearson χ²/df of the pair's two-way table, observed O_ij
against expected E_ij = N·P(a = i, b = j) (exact, from the model's pair
marginal), df = (K_a − 1)(K_b − 1): LatentGOLD's statistic. Pairs above 3.84
are marked *: the model does not account for their association (a local
dependence). For mixed models only the discrete pairs are listed; Gaussian,
spectral and noisy-or models have none. DATA.csv's columns must be the model's observed variables
(noisy-or: the effects, 0/1); a Gaussian model has no states and does not use
the data beyond checking them. Spectral models have no parameters for their
hidden variables and cannot be explained.

The text goes to standard output or --out; --json writes the explanation as
JSON ({"model", "data", "kind", "from_data", "rows", "hidden": [{"node",
"name", "label", "parent", "depth", "kind" (mixed), "related": [{"name",
"mi" | "corr" | "failure" | "strength"}], "states": [{"label", "share",
"rising": [{"name", "state", "prob", "base"}], "shifts": [{"name", "mean",
"base", "sd", "z"}] (mixed), "profile": [{"name", "mode", "prob", "states",
"probs"} | {"name", "mean", "sd"} (continuous)]}], "classification" (with
DATA.csv): {"node", "name", "states", "rows", "model_shares",
"modal_shares", "entropy", "entropy_r2", "relative_entropy",
"classification_error", "avepp" (row: assigned state, column: state),
"table" (row: state, column: assigned state; sums of posteriors)}}],
"residuals" (--residuals): [{"a", "b", "bvr", "chi2", "df", "rows",
"impossible" (rows in cells of probability 0, left out), "states",
"observed", "expected" (row-major)}]}).`,
		Example: `  latentree learn docs.csv --out model.json
  latentree explain model.json
  latentree explain model.json docs.csv --top 8
  latentree explain model.json docs.csv --json --out explain.json
  latentree explain lcm.json answers.csv --residuals
  latentree explain net.json findings.csv`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if top < 1 {
				return usagef("--top must be at least 1, got %d", top)
			}
			if words < 1 {
				return usagef("--label-words must be at least 1, got %d", words)
			}
			dataPath := ""
			if len(args) == 2 {
				dataPath = args[1]
			}
			if residuals && dataPath == "" {
				return usagef("--residuals needs DATA.csv: the residuals compare the data's pair tables with the model's")
			}
			if err := e.checkPaths([]pathFlag{{"MODEL", args[0]}, {"DATA", dataPath}}, []pathFlag{{"--out", out}}); err != nil {
				return err
			}
			opt := explain.Options{Top: top, LabelWords: words}
			var ex *explain.Explanation
			var res []explain.Residual
			var ses *explain.StdErrors
			var covs *explain.Covariates
			net, err := e.noisyorModel(cmd, args[0])
			if err != nil {
				return err
			}
			if net != nil && df.weights != "" {
				return usagef("--weights does not apply to a noisy-or model")
			}
			if net != nil && residuals {
				return usagef("--residuals needs a latent tree model; %s is a noisy-or network", args[0])
			}
			if net != nil {
				if dataPath != "" {
					if opt.Data, err = e.readNoisyorDataset(net, dataPath, df); err != nil {
						return err
					}
				}
				ex, err = explain.Noisyor(net, opt)
			} else {
				// err is the enclosing one: explain.Model's error below
				// must reach the check after this block.
				var m model.Model
				if m, _, err = e.readModel(args[0]); err != nil {
					return err
				}
				if dataPath != "" {
					var d *data.Dataset
					if d, err = e.readModelData(m, dataPath, df); err != nil {
						return err
					}
					opt.Data = d
				}
				ex, err = explain.Model(m, opt)
				ses, covs = explain.StandardErrors(m), explain.CovariateEffects(m)
				if err == nil && residuals {
					res, err = explain.BivariateResiduals(m, opt.Data)
				}
			}
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			write := func(w io.Writer) error {
				if err := ex.WriteText(w); err != nil {
					return err
				}
				if residuals {
					if _, err := fmt.Fprintln(w); err != nil {
						return err
					}
					if err := explain.WriteResiduals(w, res); err != nil {
						return err
					}
				}
				if covs != nil {
					if _, err := fmt.Fprintln(w); err != nil {
						return err
					}
					if err := explain.WriteCovariates(w, covs); err != nil {
						return err
					}
				}
				return writeStdErrors(w, ses)
			}
			if asJSON {
				doc := struct {
					Model string `json:"model"`
					Data  string `json:"data,omitempty"`
					*explain.Explanation
					Residuals      []explain.Residual  `json:"residuals,omitempty"`
					Covariates     *explain.Covariates `json:"covariates,omitempty"`
					StandardErrors *explain.StdErrors  `json:"standard_errors,omitempty"`
				}{args[0], dataPath, ex, res, covs, ses}
				write = func(w io.Writer) error { return writeJSON(w, doc) }
			}
			return e.writeTo(out, write)
		},
	}
	df.register(c.Flags())
	df.registerWeights(c.Flags(), "the states' shares, the classification quality and the residuals' tables count a row its weight times")
	c.Flags().IntVar(&top, "top", explain.DefaultTop, "observed variables listed per hidden variable and per state")
	c.Flags().IntVar(&words, "label-words", explain.DefaultLabelWords, "observed names in a hidden variable's label")
	c.Flags().BoolVar(&asJSON, "json", false, "write the explanation as JSON")
	c.Flags().BoolVar(&residuals, "residuals", false, "also list the bivariate residuals of every pair of discrete observed variables (needs DATA.csv)")
	c.Flags().StringVarP(&out, "out", "o", "", "write to this file instead of standard output")
	return c
}
