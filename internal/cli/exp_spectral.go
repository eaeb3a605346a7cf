package cli

import (
	"context"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latentree/latentree/internal/experiment"
)

// spectralExpFlags are the flags of experiment spectral.
type spectralExpFlags struct {
	quick       bool
	sizes       string
	models      int
	largeSize   int
	largeModels int
	longMax     int
	longModels  int
	testRows    int
	mu          float64
	settings    []string
	topologies  []string
	methods     []string
	seed        uint64
	out         string
}

const spectralExpLong = `spectral reproduces Figure 2 of Song et al. (ICML 2013). On non-homogeneous
HMMs (a chain of O−2 hidden nodes, one observed child each and one more
observed variable at each end), random binary trees (recursive splitting,
β ~ U[0.2, 0.8]) and balanced binary trees, it draws --models random discrete
models per setting {O, n, k, k′} (O observed variables with n states, k true
hidden states, k′ fitted) with perturbed-identity CPTs: the row of parent
state a is (e_a + μ·u)/Σ with u ~ U[0,1]^s (--mu; with μ = 1 and 4 states, 0.5
on the diagonal on average), redrawn until every CPT from a hidden parent has
σ_min/σ_max ≥ 0.1 and every hidden state probability ≥ 0.2/k.
It samples N training rows (smaller N are prefixes of larger ones) and 1,000
test rows, fits every method on the true tree with k′ hidden states, and
reports per test row ε = |P̂(x) − P(x)| / P(x) against the exact P (median and
mean over the rows of all models), the training time and the share of rows
with P̂ ≤ 0. Methods:

  em-paper     EM with the paper's protocol: plain EM from 5 random starts,
               each to a relative change of the log-likelihood of 1e-4, the
               best on the training rows wins
  em-default   latentree's default EM (model.Fit with --hidden-states k′ only)
  parikh       spectral, the linker of Parikh et al. (2011)
  mstar        spectral, local M* (latentree's default linker)
  mstar-full   spectral, the paper's literal M*
  em-spectral  latentree's default EM from the spectral start

EM is slow at large N, so by default the EM methods run on only 5 of the
models at N ≥ 50,000 (--large-size, --large-models) and em-default and
em-spectral only at N ≤ 10,000 and on 3 models (--long-max-size,
--long-models); 0 lifts a bound. The default run takes 20–25 minutes on 2
cores; --quick about 2.

A method that fails is reported as such and the run goes on. Writes OUT.csv,
OUT.md, OUT.svg and OUT.png (--out is a path prefix) and the tables on
standard output. Same --seed, same results (times aside) on any number of
cores; settings differing only in k′ share their true models and data.`

func newSpectralExpCmd(e *env) *cobra.Command {
	var o spectralExpFlags
	c := &cobra.Command{
		Use:   "spectral",
		Short: "Spectral vs EM parameter estimates on misspecified latent trees (ICML 2013, Figure 2)",
		Long:  spectralExpLong,
		Example: `  latentree experiment spectral --out results/spectral
  latentree experiment spectral --quick
  latentree experiment spectral --sizes 1000,10000 --models 3 --topologies hmm --settings 16,4,4,2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.checkResults(nil, o.out, "csv", "md", "svg", "png"); err != nil {
				return err
			}
			cfg, err := o.config(cmd.Flags())
			if err != nil {
				return err
			}
			progress, finish := e.lazyProgress("spectral")
			cfg.Progress = progress
			rows, err := experiment.Spectral(context.Background(), cfg)
			finish()
			if err != nil {
				return err
			}
			if err := e.writeResults(o.out, []output{
				{"csv", func(w io.Writer) error { return experiment.WriteSpectralCSV(w, rows) }},
				{"md", func(w io.Writer) error { return experiment.WriteSpectralTable(w, rows) }},
				{"svg", func(w io.Writer) error { return experiment.PlotSpectral(w, rows, "svg") }},
				{"png", func(w io.Writer) error { return experiment.PlotSpectral(w, rows, "png") }},
			}); err != nil {
				return err
			}
			return experiment.WriteSpectralTable(e.stdout, rows)
		},
	}
	f := c.Flags()
	f.BoolVar(&o.quick, "quick", false, "a quick run: sizes 200,1000,5000, 3 models, 300 test rows (flags given explicitly win)")
	f.StringVar(&o.sizes, "sizes", "200,1000,5000,10000,50000,100000", "numbers of training rows")
	f.IntVar(&o.models, "models", 10, "random models per topology and setting")
	f.IntVar(&o.largeSize, "large-size", 50000, "EM methods run on only --large-models models at sizes ≥ this (0: no bound)")
	f.IntVar(&o.largeModels, "large-models", 5, "models the EM methods run on at sizes ≥ --large-size (0: no bound)")
	f.IntVar(&o.longMax, "long-max-size", 10000, "em-default and em-spectral run only at sizes ≤ this (0: no bound)")
	f.IntVar(&o.longModels, "long-models", 3, "models em-default and em-spectral run on (0: all)")
	f.IntVar(&o.testRows, "test-rows", 1000, "test rows per model")
	f.Float64Var(&o.mu, "mu", experiment.DefaultSpectralMu, "perturbation μ of the true CPTs: rows (e_a + μ·u)/Σ, u ~ U[0,1]^s")
	f.StringArrayVar(&o.settings, "settings", nil, "settings O,n,k,k′ separated by ';' or given repeatedly, e.g. --settings 16,4,4,2 (default 16,4,4,2; 16,4,4,3; 16,4,2,2)")
	f.StringSliceVar(&o.topologies, "topologies", nil, "topologies: hmm, random, balanced (default all)")
	f.StringSliceVar(&o.methods, "methods", nil, "methods (default em-paper, em-default, parikh, mstar, mstar-full, em-spectral)")
	f.Uint64Var(&o.seed, "seed", 1, "random seed (models and samples)")
	f.StringVarP(&o.out, "out", "o", "", "path prefix for OUT.csv, OUT.md, OUT.svg and OUT.png")
	return c
}

// config checks the flags and returns the experiment's configuration.
func (o *spectralExpFlags) config(f *pflag.FlagSet) (experiment.SpectralConfig, error) {
	cfg := experiment.SpectralConfig{Models: o.models, LargeSize: o.largeSize, LargeModels: o.largeModels, LongMaxSize: o.longMax, LongModels: o.longModels, TestRows: o.testRows, Mu: o.mu, Seed: o.seed}
	if o.quick {
		cfg.Sizes, cfg.Models, cfg.TestRows = []int{200, 1000, 5000}, 3, 300
	}
	if f.Changed("sizes") || !o.quick {
		sz, err := parseInts(o.sizes)
		if err != nil {
			return cfg, usagef("--sizes: %v", err)
		}
		if len(sz) == 0 {
			return cfg, usagef("--sizes %q: no sizes", o.sizes)
		}
		for _, n := range sz {
			if n < 10 {
				return cfg, usagef("--sizes: %d training rows: want at least 10", n)
			}
		}
		cfg.Sizes = sz
	}
	if f.Changed("models") || !o.quick {
		if o.models < 1 {
			return cfg, usagef("--models %d: want at least 1", o.models)
		}
		cfg.Models = o.models
	}
	if f.Changed("test-rows") || !o.quick {
		if o.testRows < 1 {
			return cfg, usagef("--test-rows %d: want at least 1", o.testRows)
		}
		cfg.TestRows = o.testRows
	}
	if !(o.mu > 0) || o.mu > 1e6 {
		return cfg, usagef("--mu %g: want a positive number", o.mu)
	}
	if o.largeSize < 0 || o.largeModels < 0 {
		return cfg, usagef("--large-size %d and --large-models %d: want non-negative (0: no bound)", o.largeSize, o.largeModels)
	}
	if o.longMax < 0 || o.longModels < 0 {
		return cfg, usagef("--long-max-size %d and --long-models %d: want non-negative (0: no bound)", o.longMax, o.longModels)
	}
	for _, arg := range o.settings {
		for _, s := range strings.Split(arg, ";") {
			set, err := parseSetting(s)
			if err != nil {
				return cfg, err
			}
			cfg.Settings = append(cfg.Settings, set)
		}
	}
	for _, t := range o.topologies {
		if !slices.Contains(experiment.SpectralTopologies, t) {
			return cfg, usagef("--topologies: unknown topology %q (want %s)", t, strings.Join(experiment.SpectralTopologies, ", "))
		}
	}
	cfg.Topologies = o.topologies
	all := experiment.SpectralMethods()
	for _, m := range o.methods {
		i := slices.IndexFunc(all, func(x experiment.SpectralMethod) bool { return x.Name == m })
		if i < 0 {
			var names []string
			for _, x := range all {
				names = append(names, x.Name)
			}
			return cfg, usagef("--methods: unknown method %q (want %s)", m, strings.Join(names, ", "))
		}
		cfg.Methods = append(cfg.Methods, all[i])
	}
	return cfg, nil
}

// parseSetting parses "O,n,k,k′".
func parseSetting(s string) (experiment.SpectralSetting, error) {
	var v [4]int
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return experiment.SpectralSetting{}, usagef("--settings %q: want O,n,k,k′ (four numbers)", s)
	}
	for i, p := range parts {
		x, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return experiment.SpectralSetting{}, usagef("--settings %q: %q is not a number", s, p)
		}
		v[i] = x
	}
	set := experiment.SpectralSetting{Observed: v[0], States: v[1], Hidden: v[2], Approx: v[3]}
	if set.Observed < 3 || set.States < 2 || set.Hidden < 2 || set.Approx < 1 {
		return set, usagef("--settings %q: want O ≥ 3, n ≥ 2, k ≥ 2, k′ ≥ 1", s)
	}
	return set, nil
}
