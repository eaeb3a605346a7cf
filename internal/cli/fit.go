package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// emFlags are the parameter-learning options shared by learn and fit.
type emFlags struct {
	hiddenSpec   string
	hiddenStates int
	auto         bool
	restarts     int
	tol          float64
	maxIter      int
	pseudo       float64
	seed         uint64
	random       bool
}

func (f *emFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.hiddenSpec, "hidden-states", "2", `states of every hidden variable, or "auto": chosen per hidden variable by BIC`)
	fs.IntVar(&f.restarts, "restarts", 0, "extra random EM starts tried besides the surrogate start (10 iterations each; the best continues)")
	fs.Float64Var(&f.tol, "tol", 1e-5, "stop EM when the relative change of the log-likelihood is at most this")
	fs.IntVar(&f.maxIter, "max-iter", 1000, "maximum EM iterations")
	fs.Float64Var(&f.pseudo, "em-pseudo", 0, "pseudo-count added to expected counts in the M-step")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed for EM restarts")
	fs.BoolVar(&f.random, "random-init", false, "start EM from random parameters instead of the surrogate (moment-based) start")
}

// fitted is the outcome of fitting parameters.
type fitted struct {
	m       model.Model
	em      *model.EMResult
	seconds float64
}

// writeModel writes a fitted model as JSON.
func writeModel(w io.Writer, m model.Model, prov *model.Provenance) error {
	switch m := m.(type) {
	case *model.Discrete:
		return m.WriteJSON(w, prov)
	case *model.Gaussian:
		return m.WriteJSON(w, prov)
	}
	return fmt.Errorf("cannot write a %T", m)
}

func (e *env) fitParams(t *tree.Tree, d *data.Dataset, f *emFlags) (*fitted, error) {
	if d.AllContinuous() {
		start := time.Now()
		g, res, err := model.FitGaussian(t, d, model.GaussianFitOptions{MaxIter: f.maxIter, Tol: 1e-8})
		if err != nil {
			return nil, err
		}
		return &fitted{m: g, em: res, seconds: time.Since(start).Seconds()}, nil
	}
	if !d.AllDiscrete() {
		return nil, fmt.Errorf("parameter learning needs all columns discrete or all continuous; use --structure-only")
	}
	if err := f.parseHidden(); err != nil {
		return nil, err
	}
	start := time.Now()
	m, err := model.ForData(t, d, f.hiddenStates)
	if err != nil {
		return nil, err
	}
	opt := model.EMOptions{MaxIter: f.maxIter, Tol: f.tol, Pseudo: f.pseudo, Rand: rand.New(rand.NewPCG(f.seed, 0xe3)), Restarts: f.restarts, KeepInit: true}
	if f.random {
		opt.KeepInit = false
		if opt.Restarts <= 0 {
			opt.Restarts = 5
		}
	} else {
		if err := m.InitSurrogate(d, 0); err != nil {
			return nil, err
		}
		if f.restarts <= 0 {
			opt.Restarts = -1
		}
	}
	bar := e.newProgress(f.maxIter, "EM")
	last := 0
	opt.Progress = func(it int, _ float64) { bar.Add(it - last); last = it }
	res, err := m.FitEM(d, opt)
	bar.Finish()
	if err != nil {
		return nil, err
	}
	if f.auto {
		opt.Progress = nil
		chosen, splits, err := model.ChooseHiddenStates(m, d, model.StatesOptions{EM: opt, Rand: opt.Rand})
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(e.stderr, "hidden states chosen by BIC: %d splits accepted\n", splits)
		if _, ll, err := chosen.LogLikelihood(d, model.InferOptions{}); err == nil {
			res.LogLik = ll
		}
		m = chosen
	}
	return &fitted{m: m, em: res, seconds: time.Since(start).Seconds()}, nil
}

func fileDigest(path string) string {
	if path == "-" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

func provenance(method, dataPath string, rows int, f *emFlags, ft *fitted, sc *model.Score) *model.Provenance {
	return &model.Provenance{
		Created:  time.Now().UTC().Format(time.RFC3339),
		Software: "latentree",
		Method:   method,
		Options: map[string]any{"hidden_states": f.hiddenSpec, "tol": f.tol, "max_iter": f.maxIter,
			"restarts": f.restarts, "em_pseudo": f.pseudo, "seed": f.seed, "random_init": f.random},
		Data:   &model.DataInfo{File: dataPath, Rows: rows, SHA256: fileDigest(dataPath)},
		Scores: sc,
		EM:     ft.em,
	}
}

func newFitCmd(e *env) *cobra.Command {
	df := &dataFlags{}
	ef := &emFlags{}
	var out string
	var asJSON bool
	c := &cobra.Command{
		Use:   "fit TREE DATA.csv",
		Short: "Fit the parameters of a latent tree model to data by EM",
		Long: `fit reads a tree (Newick or latentree JSON) whose observed nodes are columns of
DATA.csv. For discrete data it gives every hidden node --hidden-states
states and fits all conditional probability tables by EM, starting from the
surrogate (moment-based) start: every hidden node a noisy copy of its nearest
observed variable. For continuous data it fits a Gaussian latent tree: edge
correlations in closed form from the tree's edge lengths (information
distances) where it has them, then EM. Missing cells (with --missing keep) are marginalised. The model is
written as JSON with --out.`,
		Example: `  latentree fit tree.nwk train.csv --out model.json
  latentree fit --hidden-states 3 --missing keep tree.nwk survey.csv --out model.json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := e.readTree(args[0])
			if err != nil {
				return err
			}
			d, _, err := e.readData(args[1], df)
			if err != nil {
				return err
			}
			ft, err := e.fitParams(t, d, ef)
			if err != nil {
				return err
			}
			sc, err := ft.m.Score(d, model.InferOptions{})
			if err != nil {
				return err
			}
			if out != "" {
				if err := e.writeTo(out, func(w io.Writer) error {
					return writeModel(w, ft.m, provenance("fit", args[1], d.NumRows(), ef, ft, sc))
				}); err != nil {
					return err
				}
			}
			return e.printFit(args[1], ft, sc, asJSON)
		},
	}
	df.register(c.Flags())
	ef.register(c.Flags())
	c.Flags().StringVarP(&out, "out", "o", "", "write the model (JSON) to this file")
	c.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return c
}

func (e *env) printFit(src string, ft *fitted, sc *model.Score, asJSON bool) error {
	if asJSON {
		return writeJSON(e.stdout, map[string]any{"data": src, "em": ft.em, "em_seconds": ft.seconds, "score": sc})
	}
	conv := "converged"
	if !ft.em.Converged {
		conv = "stopped at --max-iter"
	}
	if _, ok := ft.m.(*model.Gaussian); ok {
		fmt.Fprintf(e.stdout, "Gaussian model: closed-form start, EM %d iterations (%s) on %d complete rows, %.2fs\n", ft.em.Iterations, conv, ft.em.DistinctRows, ft.seconds)
	} else {
		fmt.Fprintf(e.stdout, "EM: %d iterations (%s), %d distinct of %d rows, %.2fs\n", ft.em.Iterations, conv, ft.em.DistinctRows, ft.em.Rows, ft.seconds)
	}
	fmt.Fprintf(e.stdout, "log-likelihood %.2f (%.4f per row), %d parameters, %d hidden, BIC %.2f (paper convention %.2f), AIC %.2f\n",
		sc.LogLik, sc.PerRow, sc.Params, sc.Hidden, sc.BIC, sc.BICPaper, sc.AIC)
	return nil
}

// parseHidden reads --hidden-states: a positive number or "auto".
func (f *emFlags) parseHidden() error {
	if f.hiddenSpec == "" {
		f.hiddenSpec = "2"
	}
	if f.hiddenSpec == "auto" {
		f.auto, f.hiddenStates = true, 2
		return nil
	}
	k, err := strconv.Atoi(f.hiddenSpec)
	if err != nil || k < 1 {
		return usagef("--hidden-states %q: want a positive number or auto", f.hiddenSpec)
	}
	f.hiddenStates = k
	return nil
}
