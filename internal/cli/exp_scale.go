package cli

import (
	"context"
	"io"
	"math"
	"os"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/internal/experiment"
)

func newScaleExpCmd(e *env) *cobra.Command {
	var (
		rows, vars       string
		rowVars, varRows int
		maxEM            float64
		seed             uint64
		tmp              string
		out              string
		asJSON           bool
		targets          bool
		runs, cmdRuns    int
		trees            int
		treeLeaves       int
		treeRows         int
	)
	c := &cobra.Command{
		Use:   "scale",
		Short: "Time and peak memory of statistics, structure and EM against rows and variables",
		Long: `scale measures how latentree scales. On binary data sampled from a random
binary latent tree with a symmetric model (θ ~ U[0.05, 0.2]), at each point
of two grids — rows (--rows, default 10⁴ … 10⁷) at --row-vars variables
(default 100), and variables (--vars, default 10, 100, 1,000) at --var-rows
rows (default 10⁵) — it writes the rows to a CSV file and a Parquet file
(int32 columns, Snappy) in --tmp, in chunks so that generating them takes bounded
memory, and measures one step at a time, after a garbage collection:

  stats-csv      statistics of the CSV file, read in blocks
  stats-parquet  statistics of the Parquet file, read in blocks (they must
                 equal those of the CSV file)
  structure      the CLNJ structure from those statistics
  learn-em       the whole learn job from the Parquet file, as latentree learn
                 FILE.parquet runs it: reading the rows into a data.Packed
                 (one bit per binary cell), statistics, CLNJ, the default
                 contraction and EM with its warm-up on samples; skipped when
                 rows × variables exceeds --max-em-cells

Then (unless --targets=false) it measures issue 25's targets:

  newsgroups-learn    learn with default options (CLNJ, the contraction by
                      BIC, EM) on the 20 Newsgroups training split, the
                      median of --target-runs runs, with the test split's
                      BIC (skipped when the splits are not found, as for
                      experiment newsgroups)
  learn-em-tree       learn with default options on each of --trees random
                      binary latent trees (--tree-leaves observed variables,
                      --tree-rows rows), with EM's E-steps by phase and what
                      EM run on from the result to tolerance 1e-9 gains;
                      learn-em-trees gives their medians
  structure-only-cmd  the whole command latentree learn --structure-only on
                      an 80-variable × 1,000-row Gaussian CSV file (simulate
                      --topology hmm), process start included, the median of
                      --cmd-runs runs after one untimed

It records the wall-clock seconds, the CPU seconds (user and system, all
threads) and the peak heap in use (sampled every 10 ms). At 10⁷ rows and
100 variables the data files take about 2.7 GB in --tmp, and the whole run
about 15 minutes, the targets about 5 more.

Writes OUT.csv, OUT.md, OUT.svg and OUT.png (--out is a path prefix) and the
table on standard output (JSON with --json).`,
		Example: `  latentree experiment scale --out results/scale
  latentree experiment scale --rows 10000,100000,1000000 --vars 10,100 --max-em-cells 1e8
  latentree experiment scale --rows 1000,2000 --vars 10 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.checkResults(nil, out, "csv", "md", "svg", "png"); err != nil {
				return err
			}
			cfg := experiment.ScaleConfig{RowVars: rowVars, VarRows: varRows, Seed: seed, TempDir: tmp,
				Targets: experiment.ScaleTargets{Skip: !targets, Runs: runs, CmdRuns: cmdRuns, Trees: trees, TreeLeaves: treeLeaves, TreeRows: treeRows}}
			if runs < 1 {
				return usagef("--target-runs %d: want at least 1", runs)
			}
			if cmdRuns < 1 {
				return usagef("--cmd-runs %d: want at least 1", cmdRuns)
			}
			if trees < 0 || treeLeaves < 4 || treeRows < 10 {
				return usagef("--trees %d, --tree-leaves %d, --tree-rows %d: want 0 or more trees of at least 4 variables and 10 rows", trees, treeLeaves, treeRows)
			}
			if trees == 0 {
				cfg.Targets.Trees = -1
			}
			if targets {
				cfg.Targets.NewsgroupsTrain, _ = experiment.FindDataFile("newsgroups100-train.csv")
				cfg.Targets.NewsgroupsTest, _ = experiment.FindDataFile("newsgroups100-test.csv")
				if exe, err := os.Executable(); err == nil {
					cfg.Targets.Command = exe
				}
			}
			var err error
			if cfg.Rows, err = parseInts(rows); err != nil || len(cfg.Rows) == 0 {
				return usagef("--rows %q: want comma-separated numbers of rows", rows)
			}
			if cfg.Vars, err = parseInts(vars); err != nil || len(cfg.Vars) == 0 {
				return usagef("--vars %q: want comma-separated numbers of variables", vars)
			}
			for _, n := range cfg.Rows {
				if n < 10 {
					return usagef("--rows: %d rows: want at least 10", n)
				}
			}
			if varRows < 10 {
				return usagef("--var-rows %d: want at least 10", varRows)
			}
			for _, m := range cfg.Vars {
				if m < 3 {
					return usagef("--vars: %d variables: want at least 3", m)
				}
			}
			if rowVars < 3 {
				return usagef("--row-vars %d: want at least 3", rowVars)
			}
			switch {
			case math.IsNaN(maxEM):
				return usagef("--max-em-cells %g: want a number (0 or negative: no bound)", maxEM)
			case maxEM <= 0:
				cfg.MaxEMCells = -1
			default:
				cfg.MaxEMCells = maxEM
			}
			if tmp != "" {
				if err := checkWritableDir(tmp); err != nil {
					return usagef("--tmp %s: %v", tmp, err)
				}
			}
			progress, finish := e.lazyProgress("scale")
			cfg.Progress = progress
			res, err := experiment.Scale(context.Background(), cfg)
			finish()
			if err != nil {
				return err
			}
			if err := e.writeResults(out, []output{
				{"csv", func(w io.Writer) error { return experiment.WriteScaleCSV(w, res) }},
				{"md", func(w io.Writer) error { return experiment.WriteScaleTable(w, res) }},
				{"svg", func(w io.Writer) error { return experiment.PlotScale(w, res, rowVars, varRows, "svg") }},
				{"png", func(w io.Writer) error { return experiment.PlotScale(w, res, rowVars, varRows, "png") }},
			}); err != nil {
				return err
			}
			if asJSON {
				return writeJSON(e.stdout, res)
			}
			return experiment.WriteScaleTable(e.stdout, res)
		},
	}
	f := c.Flags()
	f.StringVar(&rows, "rows", "10000,100000,1000000,10000000", "numbers of rows of the rows grid")
	f.IntVar(&rowVars, "row-vars", experiment.DefaultScaleRowVars, "number of variables of the rows grid")
	f.StringVar(&vars, "vars", "10,100,1000", "numbers of variables of the variables grid")
	f.IntVar(&varRows, "var-rows", experiment.DefaultScaleVarRows, "number of rows of the variables grid")
	f.Float64Var(&maxEM, "max-em-cells", experiment.DefaultScaleMaxEMCells, "skip learn-em above this many rows × variables (0: no bound)")
	f.Uint64Var(&seed, "seed", 1, "random seed (trees, models and rows)")
	f.StringVar(&tmp, "tmp", "", "directory for the data files (default the system's temporary directory)")
	f.StringVarP(&out, "out", "o", "", "path prefix for OUT.csv, OUT.md, OUT.svg and OUT.png")
	f.BoolVar(&asJSON, "json", false, "print the rows as JSON instead of the table")
	f.BoolVar(&targets, "targets", true, "measure issue 25's targets after the grid")
	f.IntVar(&runs, "target-runs", experiment.DefaultScaleTargetRuns, "timed runs of the newsgroups target (the median is reported)")
	f.IntVar(&cmdRuns, "cmd-runs", experiment.DefaultScaleCmdRuns, "timed runs of the whole-command target, after one untimed (the median is reported)")
	f.IntVar(&trees, "trees", experiment.DefaultScaleTrees, "random trees of the EM target (0: none)")
	f.IntVar(&treeLeaves, "tree-leaves", experiment.DefaultScaleTreeLeaves, "observed variables of each tree of the EM target")
	f.IntVar(&treeRows, "tree-rows", experiment.DefaultScaleTreeRows, "rows of each tree of the EM target")
	return c
}
