package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/internal/experiment"
	"github.com/latentree/latentree/structure"
)

func newExperimentCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:     "experiment",
		Short:   "Reproduce the experiments of the papers",
		Long:    "experiment runs the experiments of the papers latentree implements and writes their results as CSV and plots.",
		Example: `  latentree experiment structure-recovery --runs 200 --out results/structure-recovery`,
	}
	c.AddCommand(newRecoveryCmd(e), newNewsgroupsCmd(e), newQuartetRecoveryCmd(e), newQuartetTreesCmd(e), newSmallSampleCmd(e), newSpectralExpCmd(e), newNoisyorImageExpCmd(e), newNoisyorDepthExpCmd(e), newNoisyorRealExpCmd(e), newScaleExpCmd(e), newHiddenStatesExpCmd(e), newMixedExpCmd(e))
	return c
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(strings.ReplaceAll(f, "_", ""))
		if err != nil || v <= 0 {
			return nil, usagef("bad size %q", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func newRecoveryCmd(e *env) *cobra.Command {
	var (
		runs     int
		sizes    string
		trees    []string
		methods  []string
		seed     uint64
		out      string
		grouping string
	)
	c := &cobra.Command{
		Use:   "structure-recovery",
		Short: "Structure recovery vs sample size on the trees of JMLR 2011 §7.1 (Figure 7)",
		Long: `structure-recovery reproduces Figure 7 of Choi et al. (JMLR 2011): on the
double star (2 hidden, 80 observed), the HMM (78 hidden, 80 observed) and the
5-complete tree (25 hidden, 81 observed), with Gaussian edge correlations
ρ ~ U[0.2, 0.8] drawn anew in every run, it samples n rows, learns the tree
with RG, NJ, CLRG and CLNJ, and reports per method and size the structure
recovery error rate (share of runs whose tree differs from the truth), the mean
Robinson–Foulds distance, the mean error in the number of hidden variables and
the mean structure-learning time.

The sample covariance of each run is drawn from its Wishart distribution,
which is exactly the distribution of the statistics the learners see, so large
sizes cost no more than small ones.

Writes OUT.csv, OUT.svg and OUT.png (--out is a path prefix) and a table on
standard output.`,
		Example: `  latentree experiment structure-recovery --runs 200 --out results/structure-recovery
  latentree experiment structure-recovery --runs 10 --sizes 1000,10000 --trees double-star --methods rg,clrg`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.checkResults(nil, out, "csv", "svg", "png"); err != nil {
				return err
			}
			sz, err := parseInts(sizes)
			if err != nil {
				return err
			}
			var ms []structure.Method
			for _, m := range methods {
				pm, err := structure.ParseMethod(m)
				if err != nil {
					return usageError{err}
				}
				ms = append(ms, pm)
			}
			cfg := experiment.RecoveryConfig{Trees: trees, Methods: ms, Sizes: sz, Runs: runs, Seed: seed}
			if cfg.Options.RG.Grouping, err = structure.ParseGrouping(grouping); err != nil {
				return usagef("unknown --grouping %q", grouping)
			}
			for _, t := range trees {
				if _, err := experiment.RecoveryTree(t); err != nil {
					return usageError{err}
				}
			}
			progress, finish := e.lazyProgress("structure-recovery")
			cfg.Progress = progress
			rows, err := experiment.StructureRecovery(context.Background(), cfg)
			finish()
			if err != nil {
				return err
			}
			if err := writeFigure(e, out, rows, experiment.WriteRecoveryCSV, experiment.PlotRecovery); err != nil {
				return err
			}
			tw := tabwriter.NewWriter(e.stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "tree\tmethod\tsamples\texact\terror rate\tmean RF\thidden err\tseconds\t")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d/%d\t%.3f\t%.2f\t%.2f\t%.4f\t\n", r.Tree, r.Method, r.Samples, r.Exact, r.Runs, r.ErrorRate, r.MeanRF, r.MeanHiddenError, r.MeanSeconds)
			}
			return tw.Flush()
		},
	}
	f := c.Flags()
	f.IntVar(&runs, "runs", 200, "runs per tree and number of rows")
	f.StringVar(&sizes, "sizes", "100,200,500,1000,2000,5000,10000,20000,50000,100000,200000", "numbers of rows sampled per run (comma-separated)")
	f.StringSliceVar(&trees, "trees", nil, "trees (default double-star,hmm,5-complete)")
	f.StringSliceVar(&methods, "methods", nil, "methods (default rg,nj,clrg,clnj)")
	f.Uint64Var(&seed, "seed", 1, "random seed")
	f.StringVarP(&out, "out", "o", "", "path prefix for OUT.csv, OUT.svg and OUT.png")
	f.StringVar(&grouping, "grouping", "silhouette", "RG family detection: silhouette or threshold")
	return c
}

func newQuartetRecoveryCmd(e *env) *cobra.Command {
	var (
		reps  int
		sizes string
		seed  uint64
		out   string
	)
	c := &cobra.Command{
		Use:   "quartet-recovery",
		Short: "Quartet recovery vs sample size (ICML 2013 §6.1, Figure 4)",
		Long: `quartet-recovery reproduces Figure 4 of Ishteva et al. (ICML 2013): quartets
a,b–H–G–c,d with (k_H, k_G) ∈ {(2,4), (2,8), (4,4)} hidden states, 10-state
observed variables and perturbed CPTs (μ ∈ {0.5, 1}), sampled at 50…2,000 rows;
it reports the share of repetitions in which the nuclear-norm test, NJ's
four-point condition on the Lake distance, and Spectral@k (k = 1, 2, 4, 8)
recover the pairing {a,b | c,d}. Writes OUT.csv, OUT.svg, OUT.png.`,
		Example: `  latentree experiment quartet-recovery --reps 1000 --out results/quartet-recovery`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.checkResults(nil, out, "csv", "svg", "png"); err != nil {
				return err
			}
			sz, err := parseInts(sizes)
			if err != nil {
				return err
			}
			return runFigure(e, "quartet-recovery", out, func(progress func(done, total int)) ([]experiment.QuartetRow, error) {
				return experiment.QuartetRecovery(context.Background(), experiment.QuartetConfig{Reps: reps, Sizes: sz, Seed: seed, Progress: progress})
			}, experiment.WriteQuartetCSV, experiment.PlotQuartets, experiment.QuartetTable)
		},
	}
	f := c.Flags()
	f.IntVar(&reps, "reps", 1000, "repetitions per point")
	f.StringVar(&sizes, "sizes", "50,100,200,300,400,500,750,1000,1500,2000", "numbers of rows sampled per run (comma-separated)")
	f.Uint64Var(&seed, "seed", 1, "random seed")
	f.StringVarP(&out, "out", "o", "", "path prefix for OUT.csv, OUT.svg and OUT.png")
	return c
}

func newQuartetTreesCmd(e *env) *cobra.Command {
	var (
		reps       int
		sizes      string
		seed       uint64
		out        string
		candidates int
	)
	c := &cobra.Command{
		Use:   "quartet-trees",
		Short: "Tree recovery from quartet tests vs sample size (ICML 2013 §6.2, Figure 5)",
		Long: `quartet-trees reproduces Figure 5 of Ishteva et al. (ICML 2013): random binary
latent trees over 16 leaves from recursive splitting (β ∈ {0.2, 0.5}), hidden
variables with a random number of states in 2..8, 10-state observed variables
and perturbed CPTs (μ ∈ {0.2, 0.5, 1}), sampled at 50…2,000 rows. It reports
the mean Robinson–Foulds error of the trees built by the nuclear-norm quartet
test, Spectral@k (k = 2, 4, 8), neighbour joining on the Lake distance, CLNJ
and the Chow–Liu tree (a reference without hidden nodes).
Writes OUT.csv, OUT.svg, OUT.png.`,
		Example: `  latentree experiment quartet-trees --reps 200 --out results/quartet-trees`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.checkResults(nil, out, "csv", "svg", "png"); err != nil {
				return err
			}
			sz, err := parseInts(sizes)
			if err != nil {
				return err
			}
			return runFigure(e, "quartet-trees", out, func(progress func(done, total int)) ([]experiment.QuartetTreesRow, error) {
				return experiment.QuartetTrees(context.Background(), experiment.QuartetTreesConfig{Reps: reps, Sizes: sz, Seed: seed, Candidates: candidates, Progress: progress})
			}, experiment.WriteQuartetTreesCSV, experiment.PlotQuartetTrees, experiment.QuartetTreesTable)
		},
	}
	f := c.Flags()
	f.IntVar(&reps, "reps", 100, "repetitions (random trees) per β and μ")
	f.StringVar(&sizes, "sizes", "50,100,200,500,1000,2000", "numbers of rows sampled per run (comma-separated)")
	f.Uint64Var(&seed, "seed", 1, "random seed")
	f.IntVar(&candidates, "candidates", 0, "leaves per branch among which the quartet builder picks its representative by mutual information (0: default 8; -1: nearest by hops, as the paper)")
	f.StringVarP(&out, "out", "o", "", "path prefix for OUT.csv, OUT.svg and OUT.png")
	return c
}

// writeFigure writes an experiment's rows to OUT.csv and its figure to
// OUT.svg and OUT.png (out is the path prefix).
func writeFigure[R any](e *env, out string, rows []R, csv func(io.Writer, []R) error, plot func(io.Writer, []R, string) error) error {
	return e.writeResults(out, []output{
		{"csv", func(w io.Writer) error { return csv(w, rows) }},
		{"svg", func(w io.Writer) error { return plot(w, rows, "svg") }},
		{"png", func(w io.Writer) error { return plot(w, rows, "png") }},
	})
}

// runFigure runs an experiment with a progress bar, writes its rows as
// OUT.csv, OUT.svg and OUT.png and prints its table.
func runFigure[R any](e *env, name, out string, run func(progress func(done, total int)) ([]R, error),
	csv func(io.Writer, []R) error, plot func(io.Writer, []R, string) error, table func(io.Writer, []R)) error {
	progress, finish := e.lazyProgress(name)
	rows, err := run(progress)
	finish()
	if err != nil {
		return err
	}
	if err := writeFigure(e, out, rows, csv, plot); err != nil {
		return err
	}
	table(e.stdout, rows)
	return nil
}
