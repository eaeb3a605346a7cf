package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/internal/experiment"

	"github.com/latentree/latentree/model"
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
between hidden nodes contracted).

Without --train and --test the files newsgroups100-train.csv and
newsgroups100-test.csv are looked for in the directory named by the
LATENTREE_DATA environment variable, then in examples/newsgroups (where a
clone of the repository has them) and shared/data under the current
directory and each of its parents, then under the directory of the latentree
executable and its parents.`,
		Example: `  latentree experiment newsgroups --train examples/newsgroups/newsgroups100-train.csv \
      --test examples/newsgroups/newsgroups100-test.csv --out results/newsgroups
  LATENTREE_DATA=$HOME/data latentree experiment newsgroups --methods clnj`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			train, test, err := newsgroupsFiles(trainPath, testPath)
			if err != nil {
				return err
			}
			if err := e.checkResults([]pathFlag{{"--train", train}, {"--test", test}}, out, "csv", "md"); err != nil {
				return err
			}
			return runNewsgroups(e, train, test, out, experiment.NewsgroupsConfig{
				Methods: methods, HiddenStates: hidden, Tol: tol, Seed: seed,
				Progress: func(m string) { fmt.Fprintf(e.stderr, "running %s\n", m) },
			})
		},
	}
	f := c.Flags()
	f.StringVar(&trainPath, "train", "", "training split (default: newsgroups100-train.csv, searched for as described above)")
	f.StringVar(&testPath, "test", "", "test split (default: newsgroups100-test.csv, searched for as described above)")
	f.StringVarP(&out, "out", "o", "", "path prefix for OUT.csv and OUT.md")
	f.StringSliceVar(&methods, "methods", nil, "methods (default chowliu,nj,rg,clnj,clrg,regclnj,regclrg,regclrg-30,clnj-default,clrg-default)")
	f.IntVar(&hidden, "hidden-states", 2, "states of every hidden variable")
	f.Float64Var(&tol, "tol", model.DefaultTol, "EM stopping rule (relative change of the log-likelihood)")
	f.Uint64Var(&seed, "seed", 1, "random seed")
	return c
}

func runNewsgroups(e *env, trainPath, testPath, out string, cfg experiment.NewsgroupsConfig) error {
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
	rows, err := experiment.Newsgroups(train, test, cfg)
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
}

// dataEnvVar names the environment variable holding the directory of the
// papers' data files.
const dataEnvVar = experiment.DataEnvVar

// newsgroupsFiles returns the training and test files of the 100
// newsgroup words: train and test as given on the command line (--train,
// --test), or, when empty, newsgroups100-train.csv and
// newsgroups100-test.csv found by findDataFile.
func newsgroupsFiles(train, test string) (string, string, error) {
	var err error
	if train == "" {
		if train, err = findDataFile("newsgroups100-train.csv", "--train"); err != nil {
			return "", "", err
		}
	}
	if test == "" {
		if test, err = findDataFile("newsgroups100-test.csv", "--test"); err != nil {
			return "", "", err
		}
	}
	return train, test, nil
}

// findDataFile finds a data file that was not named on the command line
// (see experiment.FindDataFile), or returns a usage error listing where it
// looked and how to pass the file.
func findDataFile(name, flag string) (string, error) {
	p, dirs := experiment.FindDataFile(name)
	if p != "" {
		return p, nil
	}
	env := "not set"
	if v := os.Getenv(dataEnvVar); v != "" {
		env = v
	}
	return "", usagef("cannot find %s: pass it with %s PATH, or set %s to the directory that holds it ($%s is %s; looked in %s)",
		name, flag, dataEnvVar, dataEnvVar, env, strings.Join(dirs, ", "))
}
