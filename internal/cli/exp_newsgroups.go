package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/experiment"
)

func newNewsgroupsCmd(e *env) *cobra.Command {
	var (
		trainPath, testPath, out string
		methods                  []string
		hidden                   int
		tol                      float64
		seed                     uint64
	)
	c := &cobra.Command{
		Use:   "newsgroups",
		Short: "Held-out likelihood on 20 Newsgroups (JMLR 2011 Table 4)",
		Long: `newsgroups reproduces Table 4 of Choi et al. (JMLR 2011): on the 20 Newsgroups
100-word binary data (8,121 training and 8,121 test documents) it learns a
latent tree with each method, fits binary hidden variables by EM and reports
train and test log-likelihood, test BIC (paper convention log L − κ/2 log n),
hidden variables, parameters and times, next to the paper's numbers and those
of the original MATLAB toolbox.

Methods named as in the paper (chowliu, nj, rg, clnj, clrg) use the paper's
settings; clnj-default and clrg-default are latentree's defaults (short edges
between hidden nodes contracted).`,
		Example: `  latentree experiment newsgroups --train ../shared/data/newsgroups100-train.csv \
      --test ../shared/data/newsgroups100-test.csv --out results/newsgroups`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			df := &dataFlags{maxStates: 10, missing: "error"}
			train, _, err := e.readData(trainPath, df)
			if err != nil {
				return err
			}
			df.keepConstant = true
			df.discrete = train.Names()
			test, _, err := e.readData(testPath, df)
			if err != nil {
				return err
			}
			rows, err := experiment.Newsgroups(train, test, experiment.NewsgroupsConfig{
				Methods: methods, HiddenStates: hidden, Tol: tol, Seed: seed,
				Progress: func(m string) { fmt.Fprintf(e.stderr, "running %s\n", m) },
			})
			if err != nil {
				return err
			}
			if err := e.writeResults(out, []output{
				{"csv", func(w io.Writer) error { return experiment.WriteNewsgroupsCSV(w, rows) }},
				{"md", func(w io.Writer) error { return experiment.WriteNewsgroupsMarkdown(w, rows) }},
			}); err != nil {
				return err
			}
			return experiment.WriteNewsgroupsMarkdown(e.stdout, rows)
		},
	}
	f := c.Flags()
	f.StringVar(&trainPath, "train", "../shared/data/newsgroups100-train.csv", "training split")
	f.StringVar(&testPath, "test", "../shared/data/newsgroups100-test.csv", "test split")
	f.StringVarP(&out, "out", "o", "", "path prefix for OUT.csv and OUT.md")
	f.StringSliceVar(&methods, "methods", nil, "methods (default chowliu,nj,rg,clnj,clrg,clnj-default)")
	f.IntVar(&hidden, "hidden-states", 2, "states of every hidden variable")
	f.Float64Var(&tol, "tol", 1e-5, "EM stopping rule (relative change of the log-likelihood)")
	f.Uint64Var(&seed, "seed", 1, "random seed")
	return c
}
