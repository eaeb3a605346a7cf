package cli

import (
	"context"
	"io"
	"math"
	"slices"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/internal/experiment"
	"github.com/latentree/latentree/learn"
)

func newMixedExpCmd(e *env) *cobra.Command {
	var (
		runs, lruns     int
		sizes, lsizes   string
		methods         []string
		thresholds      []float64
		leaves, lleaves []int
		testRows, bins  int
		seed            uint64
		out             string
	)
	c := &cobra.Command{
		Use:   "mixed",
		Short: "Mixed tables: structure recovery and held-out log-likelihood against the alternatives",
		Long: `mixed runs the experiment of mixed-type latent trees on random
conditional-Gaussian trees (30–50% continuous leaves, 2–5-state discrete
leaves, binary discrete hidden variables, continuous hidden subtrees in two
trees of three; the parameters of simulate --model mixed).

Structure recovery: on --runs trees of 20–30 leaves it learns the structure
alone (statistics, mixed canonical-correlation distances, the method with its
default contraction) from the first n rows of one sample for every size, and
from the model's exact distances, and reports the share of trees recovered
exactly (Robinson–Foulds 0 and the true number of hidden variables) and the
mean Robinson–Foulds distance.

Held-out log-likelihood per row on 10,000 rows of the true model, on
--likelihood-runs trees of 10–16 leaves: the true model (the ceiling), learn's
default on the mixed table, a tree on each kind of column with independent
marginals of the other (categorical with ½ added to the counts, or Gaussian),
a discrete tree on the table with the continuous columns cut into --bins
quantile bins of the training rows (a value scored by P(bin)/width; the outer
bins end at the smallest and largest training value, and held-out values
beyond them take the outer bin's density), and a Gaussian tree on all columns
with the discrete ones coded 0, 1, ... (its density at a code read as the mass
of a unit-width bin).

Writes OUT.csv (one row per tree, size and method), OUT.md (the tables),
OUT.svg and OUT.png (--out is a path prefix) and the tables on standard
output.`,
		Example: `  latentree experiment mixed --out results/mixed
  latentree experiment mixed --runs 10 --likelihood-runs 2 --sizes 1000,10000 --likelihood-sizes 1000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.checkResults(nil, out, "csv", "md", "svg", "png"); err != nil {
				return err
			}
			sz, err := parseInts(sizes)
			if err != nil {
				return err
			}
			lsz, err := parseInts(lsizes)
			if err != nil {
				return err
			}
			switch {
			case runs < 0:
				return usagef("--runs %d: want 0 (skip) or more", runs)
			case lruns < 0:
				return usagef("--likelihood-runs %d: want 0 (skip) or more", lruns)
			case bins < 2:
				return usagef("--bins %d: want at least 2", bins)
			case testRows < 1:
				return usagef("--test-rows %d: want at least 1", testRows)
			case len(leaves) != 2 || leaves[0] < 4 || leaves[1] < leaves[0]:
				return usagef("--leaves %v: want two numbers 4 ≤ smallest ≤ largest", leaves)
			case len(lleaves) != 2 || lleaves[0] < 4 || lleaves[1] < lleaves[0]:
				return usagef("--likelihood-leaves %v: want two numbers 4 ≤ smallest ≤ largest", lleaves)
			}
			for _, n := range append(slices.Clone(sz), lsz...) {
				if n < 10 {
					return usagef("--sizes and --likelihood-sizes: %d rows, want at least 10", n)
				}
			}
			for _, e := range thresholds {
				if !(e > 0) || math.IsInf(e, 0) {
					return usagef("--thresholds %g: want positive finite distances", e)
				}
			}
			cfg := experiment.MixedConfig{
				MinLeaves: leaves[0], MaxLeaves: leaves[1], LikelihoodMinLeaves: lleaves[0], LikelihoodMaxLeaves: lleaves[1],
				Sizes: sz, LikelihoodSizes: lsz, RecoveryTrees: runs, LikelihoodTrees: lruns,
				Thresholds: thresholds, TestRows: testRows, Bins: bins, Seed: seed,
			}
			if runs == 0 {
				cfg.RecoveryTrees = -1
			}
			if lruns == 0 {
				cfg.LikelihoodTrees = -1
			}
			for _, m := range methods {
				pm, err := learn.ParseMethod(m)
				if err != nil {
					return usageError{err}
				}
				if !pm.UsesDistances() {
					return usagef("--methods %s: want a method that learns from distances (clnj, clrg, nj, rg, clblind, mst)", m)
				}
				cfg.Methods = append(cfg.Methods, pm)
			}
			progress, finish := e.lazyProgress("mixed")
			cfg.Progress = progress
			res, err := experiment.Mixed(context.Background(), cfg)
			finish()
			if err != nil {
				return err
			}
			if err := e.writeResults(out, []output{
				{"csv", func(w io.Writer) error { return experiment.WriteMixedCSV(w, res) }},
				{"md", func(w io.Writer) error { return experiment.WriteMixedTable(w, res) }},
				{"svg", func(w io.Writer) error { return experiment.PlotMixed(w, res, "svg") }},
				{"png", func(w io.Writer) error { return experiment.PlotMixed(w, res, "png") }},
			}); err != nil {
				return err
			}
			return experiment.WriteMixedTable(e.stdout, res)
		},
	}
	f := c.Flags()
	f.IntVar(&runs, "runs", 50, "random trees of the structure-recovery part (0: skip it)")
	f.IntVar(&lruns, "likelihood-runs", 10, "random trees of the held-out log-likelihood part (0: skip it)")
	f.StringVar(&sizes, "sizes", "100,1000,10000,100000", "training rows of the structure-recovery part (comma-separated)")
	f.StringVar(&lsizes, "likelihood-sizes", "100,1000,10000,100000", "training rows of the held-out log-likelihood part (comma-separated)")
	f.StringSliceVar(&methods, "methods", nil, "structure learners (default clnj,clrg,nj)")
	f.Float64SliceVar(&thresholds, "thresholds", nil, "also run every method with these contraction thresholds ε′ (a diagnostic)")
	f.IntSliceVar(&leaves, "leaves", []int{20, 30}, "smallest and largest number of leaves of the structure-recovery trees")
	f.IntSliceVar(&lleaves, "likelihood-leaves", []int{10, 16}, "smallest and largest number of leaves of the log-likelihood trees")
	f.IntVar(&testRows, "test-rows", 10000, "held-out rows")
	f.IntVar(&bins, "bins", 5, "quantile bins per continuous column of the discretised alternative")
	f.Uint64Var(&seed, "seed", 1, "random seed (trees, parameters and samples)")
	f.StringVarP(&out, "out", "o", "", "path prefix for OUT.csv, OUT.md, OUT.svg and OUT.png")
	return c
}
