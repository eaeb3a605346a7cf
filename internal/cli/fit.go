package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/names"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/model/spectral"
	"github.com/latentree/latentree/tree"
)

// emFlags are the parameter-learning flags shared by learn and fit.
type emFlags struct {
	hiddenSpec string
	restarts   int
	tol        float64
	maxIter    int
	pseudo     float64
	seed       uint64
	random     bool
	accel      string
	stop       string
	sample     int
}

func (f *emFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.hiddenSpec, "hidden-states", "2", `discrete data: states of every hidden variable, or "auto" (chosen per hidden variable by BIC); mixed data: states of every discrete hidden variable, or "auto" (the best number for all by BIC, 2 to 5)`)
	fs.IntVar(&f.restarts, "restarts", 0, "discrete and mixed data: extra random EM starts tried besides the surrogate start (every hidden variable a noisy copy of its nearest observed variable; mixed data: the moment-based start); each runs 10 iterations (mixed data: 20) and the best continues. More starts guard against poor local optima, at 10 E-steps each")
	fs.Float64Var(&f.tol, "tol", model.DefaultTol, "EM tolerance (> 0): EM stops when its bound on the remaining gain is at most tol·|log-likelihood| (--em-stop auto; Gaussian EM: at most tol·min(|log-likelihood|, 100)) or when the relative change is at most tol (--em-stop relative)")
	fs.IntVar(&f.maxIter, "max-iter", model.DefaultMaxIter, "maximum EM iterations, counted in E-steps (≥ 1; a SQUAREM cycle takes three)")
	fs.Float64Var(&f.pseudo, "em-pseudo", 0, "discrete data, parameter stage: pseudo-count added to EM's expected counts each time the conditional probability tables are re-estimated (the M-step), so that no probability becomes exactly 0 for a combination the rows never show (≥ 0; 0: maximum likelihood). Raise it (0.1 to 1) when rows are few for the number of states, or when new data get probability 0 under the model (score). Not the structure stage's --table-pseudo")
	fs.Uint64Var(&f.seed, "seed", seed.Default, seedHelp)
	fs.BoolVar(&f.random, "random-init", false, "discrete data: start EM from random parameters (5 starts unless --restarts) instead of the surrogate start")
	fs.StringVar(&f.accel, "em-accel", "squarem", "EM acceleration, squarem or none (plain EM)")
	fs.IntVar(&f.sample, "em-sample", 0, "discrete data: warm EM up on random samples of this many rows, then 8 times more while at most a quarter of the rows, before the passes over all rows (0: auto, rows/32 from 1,000,000 rows on; -1: never)")
	fs.StringVar(&f.stop, "em-stop", "auto", `EM stopping rule, auto (bound on the remaining gain) or relative (relative change of the log-likelihood; the paper's protocol is --em-accel none --em-stop relative --tol 1e-4 --random-init)`)
}

// seedHelp is fit's --seed help: what EM draws at random. learn adds what
// its structure learners draw (learnSeedHelp).
const seedHelp = "random seed of EM: its random starts (--restarts, --init random), the row samples of its warm-up (--em-sample) and the trial fits of --hidden-states auto"

// fitOptions turns the flags into model.FitOptions, rejecting values out
// of range and flags that do not apply to continuous data.
func (f *emFlags) fitOptions(cmd *cobra.Command, continuous bool) (model.FitOptions, error) {
	changed := cmd.Flags().Changed
	var opt model.FitOptions
	if continuous {
		for _, name := range []string{"hidden-states", "restarts", "em-pseudo", "random-init", "em-sample"} {
			if changed(name) {
				return opt, usagef("--%s does not apply to continuous data (a Gaussian latent tree has no hidden states, restarts or pseudo-counts, and its EM runs on the data's moments, not on samples of rows)", name)
			}
		}
	}
	switch {
	case !(f.tol > 0) || math.IsInf(f.tol, 0):
		return opt, usagef("--tol %g: want a positive number (default %g)", f.tol, model.DefaultTol)
	case f.maxIter < 1:
		return opt, usagef("--max-iter %d: want at least 1", f.maxIter)
	case f.restarts < 0:
		return opt, usagef("--restarts %d: want 0 or more", f.restarts)
	case f.pseudo < 0 || math.IsNaN(f.pseudo) || math.IsInf(f.pseudo, 0):
		return opt, usagef("--em-pseudo %g: want a finite value ≥ 0", f.pseudo)
	}
	accel, err := model.ParseAccel(f.accel)
	if err != nil {
		return opt, usagef("--em-accel %q: want squarem or none", f.accel)
	}
	stop, err := model.ParseStop(f.stop)
	if err != nil {
		return opt, usagef("--em-stop %q: want auto or relative", f.stop)
	}
	opt.EM = model.EMOptions{Tol: f.tol, MaxIter: f.maxIter, Accel: accel, Stop: stop}
	if continuous {
		return opt, nil
	}
	switch f.hiddenSpec {
	case "": // learn's default: learn.Learn decides
	case "auto":
		opt.AutoStates, opt.HiddenStates = true, 2
	default:
		k, err := strconv.Atoi(f.hiddenSpec)
		if err != nil || k < 1 || k > data.MaxStates {
			return opt, usagef("--hidden-states %q: want a number from 1 to %d or auto", f.hiddenSpec, data.MaxStates)
		}
		opt.HiddenStates = k
	}
	opt.EM.Pseudo, opt.EM.Restarts = f.pseudo, f.restarts
	opt.EM.Sample = f.sample
	opt.EM.Src = seed.New(f.seed, seed.Fit)
	if f.random {
		opt.Init = model.InitRandom
	}
	return opt, nil
}

// Flag groups of fit: the EM flags (emFlags and --init) and the spectral
// ones.
const (
	emGroup       = "Parameters (EM)"
	spectralGroup = "Parameters (spectral)"
)

// spectralFlags are fit's flags that choose how parameters are estimated
// (--params) and where discrete EM starts (--init), and that configure the
// spectral estimate.
type spectralFlags struct {
	params, init, linker string
	tol                  float64
	// keep names flags of the EM group that --params spectral leaves
	// alone (learn's --seed also drives the quartet order).
	keep []string
}

func (f *spectralFlags) registerInit(fs *pflag.FlagSet) {
	fs.StringVar(&f.init, "init", "surrogate", "discrete data: start of EM: surrogate (every hidden variable a noisy copy of its nearest observed variable), random (5 random starts unless --restarts; as --random-init) or spectral (the spectral estimate, see --params, projected onto valid tables)")
}

func (f *spectralFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.params, "params", "em", "discrete data: how parameters are estimated: em, or spectral (hierarchical tensor decomposition of Song et al. 2013 with --hidden-states as k′: no iterations, P̂ may be ≤ 0 for some rows)")
	fs.StringVar(&f.linker, "linker", "mstar", "with --params spectral or --init spectral: how the table linking two adjacent hidden variables is estimated: mstar (Song et al.'s M*, from representatives of the edge's neighbouring variables), parikh (Parikh et al. 2011: from the pair table of one representative on each side) or mstar-full (the paper's literal M*, from the whole sub-tensor: slower)")
	fs.Float64Var(&f.tol, "spectral-tol", model.DefaultSpectralTol, "with --params spectral or --init spectral: singular values below this times the largest are cut, in (0, 1)")
}

// apply sets opt's Params, Init, Linker and SpectralTol from the flags,
// rejecting bad values and flags that do not apply: EM flags with
// --params spectral, --linker and --spectral-tol without spectral
// parameters or start, and any of them on continuous data. opt comes from
// emFlags.fitOptions.
func (f *spectralFlags) apply(cmd *cobra.Command, opt *model.FitOptions, continuous bool) error {
	changed := cmd.Flags().Changed
	params, err := model.ParseParams(f.params)
	if err != nil {
		return usagef("--params %q: want em or spectral", f.params)
	}
	linker, err := model.ParseLinker(f.linker)
	if err != nil {
		return usagef("--linker %q: want mstar, parikh or mstar-full", f.linker)
	}
	init, err := model.ParseInit(f.init)
	if err != nil {
		return usagef("--init %q: want surrogate, random or spectral", f.init)
	}
	if !(f.tol > 0 && f.tol < 1) {
		return usagef("--spectral-tol %g: want a number in (0, 1) (default %g)", f.tol, model.DefaultSpectralTol)
	}
	if changed("random-init") && changed("init") && init != model.InitRandom {
		return usagef("--random-init and --init %s contradict each other (--random-init is --init random)", f.init)
	}
	if opt.Init == model.InitRandom { // --random-init
		init = model.InitRandom
	}
	if continuous {
		for _, name := range []string{"params", "init", "linker", "spectral-tol"} {
			if changed(name) {
				return usagef("--%s does not apply to continuous data (spectral parameters and EM starts are for discrete latent trees)", name)
			}
		}
		return nil
	}
	if params == model.ParamsSpectral {
		var bad string
		cmd.Flags().Visit(func(fl *pflag.Flag) {
			if g := fl.Annotations[groupAnnotation]; bad == "" && len(g) > 0 && g[0] == emGroup && fl.Name != "hidden-states" && !slices.Contains(f.keep, fl.Name) {
				bad = fl.Name
			}
		})
		if bad != "" {
			return usagef("--%s does not apply to --params spectral (no EM is run)", bad)
		}
		if opt.AutoStates {
			return usagef("--hidden-states auto does not apply to --params spectral: give k′, the number of states of every hidden variable")
		}
		*opt = model.FitOptions{HiddenStates: opt.HiddenStates, Params: params, Linker: linker, SpectralTol: f.tol}
		return nil
	}
	if init != model.InitSpectral {
		for _, name := range []string{"linker", "spectral-tol"} {
			if changed(name) {
				return usagef("--%s applies only to --params spectral or --init spectral", name)
			}
		}
	} else {
		opt.Linker, opt.SpectralTol = linker, f.tol
	}
	opt.Init = init
	return nil
}

// writeModel writes a fitted model as JSON.
func writeModel(w io.Writer, m model.Model, prov *model.Provenance) error {
	return m.WriteJSON(w, prov)
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

// provenance records how a model was made: the method, every flag the user
// set, the data file and its digest, the scores and the EM run.
func provenance(method, dataPath string, rows int, cmd *cobra.Command, em *model.EMResult, sc *model.Score) *model.Provenance {
	opts := map[string]any{}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		// Outputs are not options; an old flag name is recorded under
		// its new one (resolveAliases sets both).
		if f.Name != "out" && f.Name != "newick" && f.Name != "tree-json" && f.Name != "dot" && f.Name != "report" && f.Name != "json" && f.Deprecated == "" {
			opts[f.Name] = f.Value.String()
		}
	})
	return &model.Provenance{
		Created:  time.Now().UTC().Format(time.RFC3339),
		Software: "latentree",
		Method:   method,
		Options:  opts,
		Data:     &model.DataInfo{File: dataPath, Rows: rows, SHA256: fileDigest(dataPath)},
		Scores:   sc,
		EM:       em,
	}
}

func newFitCmd(e *env) *cobra.Command {
	df := &dataFlags{}
	ef := &emFlags{}
	sf := &spectralFlags{}
	dist := &distFlags{}
	sef := &seFlags{}
	var out string
	var asJSON, repair bool
	var covariates []string
	c := &cobra.Command{
		Use:   "fit TREE DATA.csv | fit --estep MODEL SHARD.csv | fit --mstep MODEL COUNTS...",
		Short: "Fit the parameters of a latent tree model to data, by EM or spectrally",
		Long: `fit reads a tree (Newick, latentree tree JSON, or a model file written by
learn --out or fit --out, whose tree it takes) whose observed nodes are
columns of DATA.csv, and fits a model on it by EM.

For discrete data it gives every hidden node --hidden-states states and fits
all conditional probability tables, starting from the surrogate (moment-based)
start: every hidden node a noisy copy of its nearest observed variable. For
continuous data it fits a Gaussian latent tree: edge correlations in closed
form from the tree's edge lengths (information distances) where it has them,
then EM. For data that mix continuous and discrete columns it fits a
conditional-Gaussian (mixed) latent tree: a hidden node is continuous when
all its branches but one hold only continuous variables, else discrete with
--hidden-states states; a continuous node is Gaussian per state of a discrete
parent or linear in a continuous one; EM from a moment-based start, with
--restarts random starts besides. No discrete node may sit below a continuous
one, so the tree must not put a continuous variable between discrete ones;
--repair hangs each such variable under a new discrete hidden variable that
takes its place (as learn does) instead of refusing the tree.
Missing cells (with --missing keep) are marginalised in all three.
The model is written as JSON with --out.

--init random starts EM from random parameters instead (5 starts unless
--restarts); --init spectral from the spectral estimate (below) projected onto
valid conditional probability tables, with --linker and --spectral-tol.

--params spectral (discrete data) fits instead the hierarchical tensor
decomposition of Song et al. (ICML 2013): no iterations and no local optima,
every hidden variable given rank k′ = --hidden-states, one linker per edge
between hidden nodes (--linker), singular values below --spectral-tol times the
largest cut. The result is a spectral model, whose estimate P̂ of a row can be
≤ 0: the summary counts those rows and gives the log-likelihood of the others,
and the rank of every linker. EM flags do not apply. score and infer --impute
work with spectral models; they have no hidden-variable posteriors.
` + distHelp,
		Example: `  latentree fit tree.nwk train.csv --out model.json
  latentree fit --hidden-states 3 --missing keep tree.nwk survey.csv --out model.json
  latentree fit old-model.json new-data.csv --out refitted.json
  latentree fit --se tree.nwk survey.csv --out model.json
  latentree fit --covariates age,sex --se tree.nwk survey.csv --out model.json
  latentree fit --params spectral --hidden-states 2 tree.nwk train.csv --out spectral.json
  latentree fit --init spectral --linker parikh tree.nwk train.csv` + distExamples,
		Args: dist.args,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := sef.check(); err != nil {
				return err
			}
			if err := df.checkSE(sef.bootstrap > 0); err != nil {
				return err
			}
			if sef.on() && (dist.estep || dist.mstep) {
				return usagef("--se and --bootstrap apply to a fit, not to --estep or --mstep")
			}
			if df.weights != "" && (dist.estep || dist.mstep) {
				return usagef("--weights does not apply to map-reduce EM (--estep, --mstep): its counts files count rows, not weights")
			}
			if dist.estep {
				return e.runEStep(cmd, args, df, out, asJSON)
			}
			if dist.mstep {
				return e.runMStep(cmd, args, ef.pseudo, out, asJSON, dist.force)
			}
			if err := e.checkPaths([]pathFlag{{"TREE", args[0]}, {"DATA", args[1]}}, []pathFlag{{"--out", out}}); err != nil {
				return err
			}
			pre, err := ef.fitOptions(cmd, false)
			if err != nil {
				return err
			}
			if err := sf.apply(cmd, &pre, false); err != nil {
				return err
			}
			t, err := e.readTree(args[0])
			if err != nil {
				return err
			}
			// The names the model file will give unnamed hidden nodes,
			// so that the summary and --json use them too.
			t.AutoNameHidden("h")
			d, _, err := e.readData(args[1], df)
			if err != nil {
				return err
			}
			continuous := d.AllContinuous() && len(covariates) == 0
			var repaired []string
			if len(covariates) > 0 {
				if repair {
					return usagef("--repair applies to mixed data, not to --covariates")
				}
			} else if !continuous && !d.AllDiscrete() {
				if err := mixedFlags(cmd); err != nil {
					return err
				}
				if repaired, err = repairTree(t, d, args[0], repair); err != nil {
					return err
				}
			} else if repair {
				return usagef("--repair applies only to data that mix continuous and discrete columns")
			}
			opt, err := ef.fitOptions(cmd, continuous)
			if err != nil {
				return err
			}
			if err := sf.apply(cmd, &opt, continuous); err != nil {
				return err
			}
			isSpectral := opt.Params == model.ParamsSpectral
			bar := &progress{}
			if !isSpectral {
				bar = e.newProgress(opt.EM.MaxIter, "EM")
				last := 0
				opt.EM.Progress = func(it int, _ float64) { bar.Add(it - last); last = it }
			}
			start := time.Now()
			var (
				m  model.Model
				em *model.EMResult
			)
			if len(covariates) > 0 {
				m, em, err = discrete.FitWithCovariates(t, d, covariates, opt)
			} else {
				m, em, err = model.Fit(t, d, opt)
			}
			bar.Finish()
			if err != nil {
				return modelSizeError(err)
			}
			if sef.on() {
				if err := sef.add(m, d, opt.EM, ef.seed); err != nil {
					return err
				}
			}
			sc, err := m.Score(d, model.InferOptions{})
			if err != nil {
				return err
			}
			sec := time.Since(start).Seconds()
			if out != "" {
				if err := e.writeTo(out, func(w io.Writer) error {
					return writeModel(w, m, provenance("fit", args[1], d.NumRows(), cmd, em, sc))
				}); err != nil {
					return err
				}
			}
			if s, ok := m.(*spectral.Model); ok {
				if asJSON {
					return writeJSON(e.stdout, map[string]any{"data": args[1], "params": "spectral", "hidden_states": s.HiddenStates,
						"linker": s.Linker.String(), "spectral_tol": s.Tol, "seconds": sec, "score": sc, "edges": append([]spectral.EdgeSpectrum{}, s.Edges...)})
				}
				printSpectralSummary(e.stdout, s, sc, sec)
				return nil
			}
			if asJSON {
				js := map[string]any{"data": args[1], "params": "em", "em": em, "em_seconds": sec, "score": sc}
				if len(repaired) > 0 {
					js["repaired"] = repaired
				}
				return writeJSON(e.stdout, js)
			}
			if n := len(repaired); n > 0 {
				fmt.Fprintf(e.stdout, "%s between discrete ones in the tree, each hung under a new discrete hidden variable (--repair): %s\n",
					plural(n, "continuous variable"), names.Quote(repaired, 5))
			}
			printFitSummary(e.stdout, m, em, sc, sec, startFamily)
			printSE(e.stdout, m)
			return nil
		},
	}
	f := c.Flags()
	flagGroup(f, "Input", func(f *pflag.FlagSet) {
		df.register(f)
		f.StringSliceVar(&covariates, "covariates", nil, "discrete models: columns that predict the root's state (comma-separated), by a multinomial logit P(root = k | x) = softmax(β_k·[1, x]), β = 0 for state 0; the other columns are the tree's variables. A discrete column is categorical (dummy coded against its first state), a continuous one enters on its own scale; a missing covariate cell is an error naming its row. EM fits the model without them first, then with them (Newton steps for β); explain shows β, with --se their standard errors and odds ratios; infer and score need the covariates' columns")
		df.registerWeights(f, "every fit counts a row its weight times (EM, starts, standard errors); BIC's n is the weights' sum (frequency) or the rows (sampling)")
		f.BoolVar(&repair, "repair", false, "mixed data: hang every continuous variable that the tree puts between discrete ones under a new discrete hidden variable (as learn does) instead of refusing the tree")
	})
	flagGroup(f, emGroup, func(f *pflag.FlagSet) { ef.register(f); sf.registerInit(f) })
	flagGroup(f, spectralGroup, func(f *pflag.FlagSet) { sf.register(f) })
	flagGroup(f, seGroup, func(f *pflag.FlagSet) { sef.register(f) })
	flagGroup(f, distGroup, func(f *pflag.FlagSet) { dist.register(f) })
	flagGroup(f, "Output", func(f *pflag.FlagSet) {
		f.StringVarP(&out, "out", "o", "", "write the model (JSON) to this file (with --estep: the counts)")
		f.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	})
	useGroupedHelp(c)
	return c
}

// repairTree checks that the tree t (read from path) admits a
// conditional-Gaussian model of d; with repair it hangs the continuous
// variables between discrete ones under new discrete hidden variables
// (mixed.Repair) and returns their names, without it such variables are an
// error that says how to proceed.
func repairTree(t *tree.Tree, d *data.Dataset, path string, repair bool) ([]string, error) {
	kind := mixed.ColumnKinds(d)
	if repair {
		moved, err := mixed.Repair(t, kind)
		t.AutoNameHidden("h")
		return moved, err
	}
	bad := mixed.Misplaced(t, kind)
	if len(bad) == 0 {
		return nil, nil
	}
	vs := make([]string, len(bad))
	for i, v := range bad {
		vs[i] = t.Name(v)
	}
	return nil, fmt.Errorf("%s: the tree puts %s between discrete variables: %s; a conditional-Gaussian model has no discrete node below a continuous one. Add --repair to hang each under a new discrete hidden variable that takes its place (as learn does), or edit the tree", path, plural(len(bad), "continuous variable"), names.Quote(vs, 5))
}

// printSpectralSummary prints what a spectral fit did: k′, the linker,
// the time, the log-likelihood of the rows with P̂ > 0 and the count of the
// others, and the ranks of the linkers (edges where singular values were
// cut are named, the first few).
func printSpectralSummary(w io.Writer, s *spectral.Model, sc *model.Score, seconds float64) {
	fmt.Fprintf(w, "spectral model: k′ = %d, linker %s, %d rows, %.2fs\n", s.HiddenStates, s.Linker, sc.Rows, seconds)
	fmt.Fprintf(w, "log-likelihood %.2f over the %d rows with P̂ > 0; %d rows with P̂ ≤ 0\n", sc.LogLik, sc.Rows-sc.NonPositive, sc.NonPositive)
	ranks := map[int]int{}
	var cutEdges []string
	cut := 0
	for _, e := range s.Edges {
		ranks[e.Rank]++
		if e.Cut > 0 {
			cut += e.Cut
			cutEdges = append(cutEdges, fmt.Sprintf("%s–%s rank %d, %d cut", e.Parent, e.Child, e.Rank, e.Cut))
		}
	}
	keys := make([]int, 0, len(ranks))
	for r := range ranks {
		keys = append(keys, r)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, r := range keys {
		parts[len(keys)-1-i] = fmt.Sprintf("rank %d on %d", r, ranks[r])
	}
	if len(s.Edges) == 0 {
		fmt.Fprintln(w, "no linkers")
		return
	}
	fmt.Fprintf(w, "%s: %s; %s cut (below %g of the largest)\n", plural(len(s.Edges), "linker"), strings.Join(parts, ", "), plural(cut, "singular value"), s.Tol)
	const show = 5
	if len(cutEdges) > show {
		cutEdges = append(cutEdges[:show], plural(len(cutEdges)-show, "more edge"))
	}
	if len(cutEdges) > 0 {
		fmt.Fprintf(w, "  cut: %s\n", strings.Join(cutEdges, "; "))
	}
}

// fitStart says where the EM that printFitSummary reports started.
type fitStart int

const (
	startFamily fitStart = iota // the family's own start
	startWarm                   // the parameters of a contraction search
	// startKinds: a mixed model on learn's trees of each kind, joined,
	// started from the Gaussian family's fit of the continuous tree.
	startKinds
)

// printFitSummary prints what EM did and the model's scores.
func printFitSummary(w io.Writer, m model.Model, em *model.EMResult, sc *model.Score, seconds float64, start fitStart) {
	conv := "converged"
	if !em.Converged {
		conv = "stopped at --max-iter"
	}
	if start == startWarm {
		fmt.Fprintf(w, "EM: %d final E-steps from the contraction search's parameters (%s), %d rows, %.2fs in all\n", em.Iterations, conv, em.Rows, seconds)
	} else if _, ok := m.(*mixed.Model); ok && start == startKinds {
		fmt.Fprintf(w, "conditional-Gaussian (mixed) model: started from the Gaussian fit of the continuous columns' tree (moment-based elsewhere), EM %d E-steps (%s) on %d rows, %.2fs\n", em.Iterations, conv, em.Rows, seconds)
	} else if _, ok := m.(*gaussian.Model); ok {
		fmt.Fprintf(w, "Gaussian model: closed-form start, EM %d E-steps (%s) on %d rows (%d missingness patterns), %.2fs\n", em.Iterations, conv, em.Rows, em.Patterns, seconds)
	} else if _, ok := m.(*mixed.Model); ok {
		fmt.Fprintf(w, "conditional-Gaussian (mixed) model: moment-based start, EM %d E-steps (%s) on %d rows, %.2fs\n", em.Iterations, conv, em.Rows, seconds)
	} else {
		rows := fmt.Sprintf("%d rows", em.Rows)
		if em.DistinctRows < em.Rows {
			rows = fmt.Sprintf("%d distinct of %d rows", em.DistinctRows, em.Rows)
		}
		fmt.Fprintf(w, "EM: %d E-steps (%s), %s, %.2fs\n", em.Iterations, conv, rows, seconds)
	}
	if len(em.Stages) > 0 {
		fmt.Fprint(w, "  after a warm-up on samples of")
		for i, s := range em.Stages {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(w, "%s %d rows (%d E-steps)", sep, s.Rows, s.Iterations)
		}
		fmt.Fprintln(w)
	}
	if ph := em.Phases; ph.Restarts.ESteps > 0 || ph.Sample.ESteps > 0 {
		fmt.Fprintf(w, "  E-steps by phase: %d in the restarts (%.2fs), %d on samples (%.2fs), %d on all rows (%.2fs)\n",
			ph.Restarts.ESteps, ph.Restarts.Seconds, ph.Sample.ESteps, ph.Sample.Seconds, ph.Full.ESteps, ph.Full.Seconds)
	}
	fmt.Fprintf(w, "log-likelihood %.2f (%.4f per row), %d parameters, %d hidden, BIC %.2f (paper convention %.2f), AIC %.2f\n",
		sc.LogLik, sc.PerRow, sc.Params, sc.Hidden, sc.BIC, sc.BICPaper, sc.AIC)
	if sc.WeightKind != "" {
		fmt.Fprintf(w, "rows weighted by %s weights: n = %.6g\n", sc.WeightKind, sc.N)
	}
}

// plural returns "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// modelSizeError makes a *model.ModelSizeError a usage error naming
// --hidden-states, and returns other errors as they are.
func modelSizeError(err error) error {
	var se *model.ModelSizeError
	if errors.As(err, &se) {
		return usagef("--hidden-states %d: %v", se.HiddenStates, err)
	}
	return err
}
