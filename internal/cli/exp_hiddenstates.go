package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/internal/experiment"
)

func newHiddenStatesExpCmd(e *env) *cobra.Command {
	var (
		sets  int
		sizes string
		seed  uint64
		out   string
		lrn   bool
	)
	c := &cobra.Command{
		Use:   "hidden-states",
		Short: "--hidden-states auto against every uniform count from 2 to 5, by BIC",
		Long: `hidden-states checks that choosing the number of states of every hidden
variable by BIC (--hidden-states auto) is at least as good as every uniform
count from 2 to 5. On simulated discrete latent trees (random minimal and
binary topologies, 10–20 observed variables with 3 to 6 states, hidden
variables with 2 to 5) it learns the tree once (default structure step) and
fits it with each uniform count and with auto, and reports per data set the
BIC of each (−2 log L + κ log n, smaller is better), the counts auto chose
and whether it is at least as good as the best uniform count. With --learn it
also runs learn end to end with each uniform count and with its default. Writes OUT.csv
and OUT.md (--out is a path prefix) and the table on standard output.`,
		Example: `  latentree experiment hidden-states --out results/hidden-states`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if sets < 1 {
				return usagef("--data-sets %d: want at least 1", sets)
			}
			if err := e.checkResults(nil, out, "csv", "md"); err != nil {
				return err
			}
			sz, err := parseInts(sizes)
			if err != nil {
				return err
			}
			progress, finish := e.lazyProgress("hidden-states")
			rows, err := experiment.HiddenStates(context.Background(), experiment.HiddenStatesConfig{DataSets: sets, Sizes: sz, Seed: seed, Learn: lrn, Progress: progress})
			finish()
			if err != nil {
				return err
			}
			if err := e.writeResults(out, []output{
				{"csv", func(w io.Writer) error { return experiment.WriteHiddenStatesCSV(w, rows) }},
				{"md", func(w io.Writer) error { return experiment.WriteHiddenStatesTable(w, rows) }},
			}); err != nil {
				return err
			}
			return experiment.WriteHiddenStatesTable(e.stdout, rows)
		},
	}
	f := c.Flags()
	f.IntVar(&sets, "data-sets", 20, "simulated data sets")
	f.StringVar(&sizes, "sizes", "500,1000,2000,5000", "numbers of rows, used in turn")
	f.Uint64Var(&seed, "seed", 1, "random seed (trees, parameters and samples)")
	f.StringVarP(&out, "out", "o", "", "path prefix for OUT.csv and OUT.md")
	f.BoolVar(&lrn, "learn", false, "also run learn end to end (structure, contraction by BIC, fit) with every uniform count and with its default")
	return c
}
