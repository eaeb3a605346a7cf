package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/internal/experiment"
	"github.com/latentree/latentree/noisyor"
	"github.com/latentree/latentree/noisyor/quartetlearn"
)

func newNoisyorImageExpCmd(e *env) *cobra.Command {
	var (
		sizes    string
		testRows int
		restarts int
		maxIter  int
		noVEM    bool
		seed     uint64
		out      string
	)
	c := &cobra.Command{
		Use:   "noisyor-image",
		Short: "Quartet learning vs variational EM on the image network (NIPS 2013, Figure 3)",
		Long: `noisyor-image reproduces Figure 3 of Jernite, Halpern & Sontag (NIPS 2013) on
latentree's stand-in for the image network: 8 sources over an 8×8 pixel grid
(priors 0.25, failures 0.1, leaks 0.001), six of them learnable from the data
as they are and two only after one subtraction (depth 1). For each training
size it learns with variational EM (the true number of sources, --restarts
random starts, the best bound kept) and with the quartet method alone, as the
paper (noisyor learn --paper; τq = 0.01; the row marked * uses τq = 0.003), and reports the sources found, how many
have exactly the true children, the largest parameter errors, the held-out
log-likelihood per row (exact) and the time.

Writes OUT.csv, OUT.md and OUT.png (--out is a path prefix): the PNG is a grid
like the paper's figure (rows: N; columns: variational EM, quartet depth 0,
quartet depth 1, truth; pixel intensity 1 − failure, black = no edge; an empty
frame marks a true source not found).`,
		Example: `  latentree experiment noisyor-image --out results/noisyor-image
  latentree experiment noisyor-image --sizes 1000,10000 --restarts 4`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.checkResults(nil, out, "csv", "md", "png"); err != nil {
				return err
			}
			cfg := experiment.NoisyorImageConfig{TestRows: testRows, Restarts: restarts, VEMMaxIter: maxIter, SkipVEM: noVEM, Seed: seed}
			if cmd.Flags().Changed("sizes") {
				for _, s := range strings.Split(sizes, ",") {
					s = strings.TrimSpace(s)
					tol := 0.01
					label := s
					if strings.HasSuffix(s, "*") {
						s, tol = strings.TrimSuffix(s, "*"), 0.003
					}
					n, err := strconv.Atoi(s)
					if err != nil || n < 10 {
						return usagef("--sizes: %q: want a number of rows ≥ 10, optionally followed by * for τq = 0.003", label)
					}
					cfg.Settings = append(cfg.Settings, experiment.NoisyorImageSetting{Rows: n, RankTol: tol, Label: label})
				}
			}
			if testRows < 1 {
				return usagef("--test-rows %d: want at least 1", testRows)
			}
			if restarts < 1 {
				return usagef("--restarts %d: want at least 1", restarts)
			}
			if maxIter < 0 {
				return usagef("--vem-max-iter %d: want ≥ 0 (0: the default)", maxIter)
			}
			progress, finish := e.lazyProgress("noisyor-image")
			cfg.Progress = progress
			res, err := experiment.NoisyorImage(cfg)
			finish()
			if err != nil {
				return err
			}
			if err := e.writeResults(out, []output{
				{"csv", func(w io.Writer) error { return experiment.WriteNoisyorImageCSV(w, res.Rows) }},
				{"md", func(w io.Writer) error { return experiment.WriteNoisyorImageMarkdown(w, res.Rows) }},
				{"png", func(w io.Writer) error { return res.Grid.WritePNG(w) }},
			}); err != nil {
				return err
			}
			return experiment.WriteNoisyorImageMarkdown(e.stdout, res.Rows)
		},
	}
	f := c.Flags()
	f.StringVar(&sizes, "sizes", "100,500,1000,2000,10000,10000*", "numbers of training rows (comma-separated); a trailing * uses τq = 0.003")
	f.IntVar(&testRows, "test-rows", 10000, "held-out rows")
	f.IntVar(&restarts, "restarts", 16, "variational EM random starts (the best bound is kept)")
	f.IntVar(&maxIter, "vem-max-iter", 0, "variational EM E-steps per start at most (0: the library default)")
	f.BoolVar(&noVEM, "no-vem", false, "leave variational EM out")
	f.Uint64Var(&seed, "seed", 1, "random seed (samples and EM starts)")
	f.StringVarP(&out, "out", "o", "", "path prefix for OUT.csv, OUT.md and OUT.png")
	return c
}

func newNoisyorDepthExpCmd(e *env) *cobra.Command {
	var (
		sources, effects int
		median           float64
		seed             uint64
		maxQuartets      int
		out              string
	)
	c := &cobra.Command{
		Use:   "noisyor-depth",
		Short: "At which depth the quartet method finds each source of a QMR-like network (NIPS 2013, aQMR-DT table)",
		Long: `noisyor-depth reproduces the depth table of the aQMR-DT experiment of Jernite,
Halpern & Sontag (NIPS 2013) on a synthetic QMR-like network (aQMR-DT is not
public): --sources diseases and --effects findings with heavy-tailed numbers of
children, small priors, failures spread over (0.1, 0.95), leaks 0.01, subtypes
that share children with an earlier source, and pairs of twins that no method
can separate. It runs the quartet learner on the network's exact moments
("infinite data", perfect tests) and tabulates the sources and edges found at
each depth, next to the structural analysis: sources with a singly-coupled
triplet (learnable with known structure) and with a singly-coupled quartet,
after removing the sources of earlier depths. Writes OUT.csv and OUT.md.`,
		Example: `  latentree experiment noisyor-depth --out results/noisyor-depth
  latentree experiment noisyor-depth --sources 100 --effects 1000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.checkResults(nil, out, "csv", "md"); err != nil {
				return err
			}
			if sources < 2 || effects < 4 {
				return usagef("--sources %d --effects %d: want at least 2 sources and 4 effects", sources, effects)
			}
			if maxQuartets < 1 {
				return usagef("--max-quartets %d: want at least 1", maxQuartets)
			}
			cfg := experiment.NoisyorDepthConfig{QMR: noisyor.QMROptions{Sources: sources, Effects: effects, MedianChildren: median},
				Learn: quartetlearn.Options{MaxQuartets: maxQuartets}, Seed: seed}
			res, err := experiment.NoisyorDepth(cfg)
			if err != nil {
				return err
			}
			if err := e.writeResults(out, []output{
				{"csv", func(w io.Writer) error { return experiment.WriteNoisyorDepthCSV(w, res) }},
				{"md", func(w io.Writer) error { return experiment.WriteNoisyorDepthMarkdown(w, res) }},
			}); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout)
			return experiment.WriteNoisyorDepthMarkdown(e.stdout, res)
		},
	}
	f := c.Flags()
	f.IntVar(&sources, "sources", 570, "sources (diseases), as aQMR-DT")
	f.IntVar(&effects, "effects", 4000, "effects (findings)")
	f.Float64Var(&median, "median-children", 0, "median children per ordinary source (0: the library default)")
	f.IntVar(&maxQuartets, "max-quartets", quartetlearn.DefaultMaxQuartets, "candidate quartets tested per round at most; beyond, a seeded sample")
	f.Uint64Var(&seed, "seed", 1, "random seed (network and quartet sampling)")
	f.StringVarP(&out, "out", "o", "", "path prefix for OUT.csv and OUT.md")
	return c
}
