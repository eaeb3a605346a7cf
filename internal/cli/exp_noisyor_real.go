package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/internal/experiment"
	"github.com/latentree/latentree/noisyor/vem"
)

func newNoisyorRealExpCmd(e *env) *cobra.Command {
	var (
		trainPath, testPath string
		kmin, kmax          int
		restarts            int
		simulated, simRows  int
		noVEM, noTree       bool
		noWords             bool
		seed                uint64
		out                 string
	)
	c := &cobra.Command{
		Use:   "noisyor-real",
		Short: "Noisy-or learner vs variational EM (best K) vs the latent tree on held-out log-likelihood",
		Long: `noisyor-real compares, on held-out rows, the noisy-or learner (noisyor learn's
default: the paper's quartets, then the residual stage), the paper's algorithm
alone (--paper), variational EM with K = --k-min … --k-max sources (--restarts
starts each; the K with the best test log-likelihood is reported, timed as the
whole search over K) and the latent tree learn builds by default. Datasets: the
100 newsgroup words as 0/1 (newsgroups100-train.csv / -test.csv, found as for
experiment newsgroups, or --train and --test), and --simulated random noisy-or
networks whose sources overlap and whose effects have several parents (12
sources on 60 effects, 8–20 children each; --sim-rows training and as many test
rows). Writes OUT.csv (rows, then VEM's test log-likelihood for every K), OUT.md
and OUT.png (one panel per dataset: VEM against K, the others as lines).`,
		Example: `  latentree experiment noisyor-real --out results/noisyor-real
  latentree experiment noisyor-real --simulated 0 --k-max 8 --restarts 4`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var sets []experiment.NoisyorRealSet
			if !noWords {
				train, test, err := newsgroupsFiles(trainPath, testPath)
				if err != nil {
					return err
				}
				if err := e.checkResults([]pathFlag{{"--train", train}, {"--test", test}}, out, "csv", "md", "png"); err != nil {
					return err
				}
				df := &dataFlags{maxStates: 10, keepConstant: true, missing: "error"}
				tr, _, err := e.readDataAllDiscrete(train, df)
				if err != nil {
					return err
				}
				te, _, err := e.readDataAllDiscrete(test, df)
				if err != nil {
					return err
				}
				sets = append(sets, experiment.NoisyorRealSet{Name: "newsgroups", Train: tr, Test: te})
			} else if err := e.checkResults(nil, out, "csv", "md", "png"); err != nil {
				return err
			}
			if simulated < 0 || simRows < 100 {
				return usagef("--simulated %d --sim-rows %d: want ≥ 0 networks and ≥ 100 rows", simulated, simRows)
			}
			if kmin < 1 || kmax < kmin || restarts < 1 {
				return usagef("--k-min %d --k-max %d --restarts %d: want 1 ≤ k-min ≤ k-max and at least 1 start", kmin, kmax, restarts)
			}
			sim, _, err := experiment.NoisyorRealSimulated(simulated, simRows, simRows, seed)
			if err != nil {
				return err
			}
			sets = append(sets, sim...)
			if len(sets) == 0 {
				return usagef("no dataset: --no-words with --simulated 0")
			}
			res, err := experiment.NoisyorReal(sets, experiment.NoisyorRealConfig{KMin: kmin, KMax: kmax, Restarts: restarts,
				SkipVEM: noVEM, SkipTree: noTree, Seed: seed,
				Progress: func(s string) { fmt.Fprintf(e.stderr, "running %s\n", s) }})
			if err != nil {
				return err
			}
			if err := e.writeResults(out, []output{
				{"csv", func(w io.Writer) error { return experiment.WriteNoisyorRealCSV(w, res) }},
				{"md", func(w io.Writer) error { return experiment.WriteNoisyorRealMarkdown(w, res) }},
				{"png", func(w io.Writer) error { return experiment.PlotNoisyorReal(w, res, "png") }},
			}); err != nil {
				return err
			}
			return experiment.WriteNoisyorRealMarkdown(e.stdout, res)
		},
	}
	f := c.Flags()
	f.StringVar(&trainPath, "train", "", "training split of the words (default: newsgroups100-train.csv, searched for as experiment newsgroups does)")
	f.StringVar(&testPath, "test", "", "test split of the words (default: newsgroups100-test.csv)")
	f.BoolVar(&noWords, "no-words", false, "leave the newsgroup words out")
	f.IntVar(&simulated, "simulated", 2, "simulated networks with overlapping sources and multi-parent effects")
	f.IntVar(&simRows, "sim-rows", 8000, "training rows (and as many test rows) of each simulated network")
	f.IntVar(&kmin, "k-min", 2, "fewest VEM sources")
	f.IntVar(&kmax, "k-max", 16, "most VEM sources")
	f.IntVar(&restarts, "restarts", vem.DefaultRestarts, "VEM random starts per K (the best bound is kept)")
	f.BoolVar(&noVEM, "no-vem", false, "leave variational EM out")
	f.BoolVar(&noTree, "no-tree", false, "leave the latent tree out")
	f.Uint64Var(&seed, "seed", 1, "random seed (simulated networks and rows, VEM starts, EM)")
	f.StringVarP(&out, "out", "o", "", "path prefix for OUT.csv, OUT.md and OUT.png")
	return c
}
