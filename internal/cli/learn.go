package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/internal/names"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model/spectral"
	"github.com/latentree/latentree/quartet"
	"github.com/latentree/latentree/structure"
)

type learnOpts struct {
	df         dataFlags
	method     string
	matrix     string
	statsFile  string
	matrixRows int
	distKind   string
	rank       int
	pseudo     float64
	contract   float64
	keepHidden bool
	rule       string
	tau, eps   float64
	grouping   string
	rangeStat  bool
	qtest      string
	qk, qreps  int
	qorder     string
	qcands     int
	maxHidden  int
	maxClasses int
	blrt       int
	blrtStarts int
	blrtFirst  int
	covariates []string
	em         emFlags
	spec       spectralFlags
	structOnly bool
	out        string
	newick     string
	treeJSON   string
	dot        string
	report     string
	json       bool
	verbose    bool
	stream     bool
	maxPair    byteSize
	se         seFlags
}

func methodList() string {
	var b strings.Builder
	for _, m := range learn.Methods {
		fmt.Fprintf(&b, "  %-9s %s\n", m, m.Description())
	}
	return b.String()
}

func newLearnCmd(e *env) *cobra.Command {
	o := &learnOpts{}
	c := &cobra.Command{
		Use:   "learn [DATA…]",
		Short: "Learn a latent tree from data, statistics or a distance matrix, and fit its parameters",
		Long: `learn estimates information distances between the observed variables of a
dataset (Gaussian −log|ρ| for continuous columns, the determinant distance of
Lake 1994 for discrete ones, or its rank-k form when their numbers of states
differ or with --rank), learns a latent tree over them with one of these
methods (--method):

` + methodList() + `
then fits the model's parameters by EM (unless --structure-only) and reports
its log-likelihood, BIC and AIC. Continuous data give a Gaussian latent tree,
discrete data a discrete one with --hidden-states states per hidden variable,
and data that mix continuous and discrete columns a conditional-Gaussian
(mixed) tree, whose hidden variables are discrete (--hidden-states states) or
continuous (when all their branches but one hold only continuous variables);
the summary says so. A continuous variable the learner puts between discrete
ones is hung under a new discrete hidden variable (a discrete node cannot
have a continuous parent in such a model).

After clnj, clrg, nj and rg, an edge at a hidden node is contracted only when
the BIC of the fitted model improves, and the Chow–Liu tree is returned when
its BIC is better: the model is never worse in BIC than the learner's tree or
the Chow–Liu tree (--contraction bic, the default when parameters are
fitted). --contraction aic keeps more hidden variables; --contraction
threshold contracts edges shorter than --contract (the paper's rule, and the
default with --distance-matrix, and with --structure-only or --stats on
discrete data or data with missing cells). With --structure-only or --stats
on continuous data without missing cells the contraction is by the Gaussian
BIC computed from the covariance (no model is returned), so that the tree
never has a lower Gaussian log-likelihood than the Chow–Liu tree.

DATA is a CSV file (or - for standard input), a gzip-compressed CSV file, a
Parquet file, or several such files or directories of them read as the shards
of one dataset (same columns). A single plain CSV file up to 256 MiB is read
into memory; anything larger, compressed or sharded is read in row blocks
and, for discrete data, held at one bit per binary cell (data.Packed), and
EM warms up on samples before its passes over every row (--em-sample). On
such data the contraction is by threshold unless --contraction bic is asked
for (it fits a model per candidate). --stream re-reads the files on every EM
pass instead, for discrete or mixed data larger than memory.

With --distance-matrix it reads a distance matrix (CSV with a header row of
names, or PHYLIP) instead of data and learns the structure only;
--matrix-rows, the number of rows the distances were estimated from, sets
RG's thresholds as on data of that many rows. (--samples is its old name; it
still works, with a notice, until the next release.)

With --stats it reads a statistics file (.lts, written by latentree stats
--out and merged from shards by latentree stats merge) instead of data and
learns the structure only, with any method that needs no rows: clnj, clrg,
nj, rg, clblind, mst and chowliu give the same tree as on the data with
--structure-only. quartet, regclnj and regclrg need the rows, and so do
parameters (EM) and --report; --contraction bic and aic need the rows on
discrete data (on continuous data the covariance is enough).

Flags that do not apply to the chosen method or data are rejected, not
ignored. The tree is written with --newick, --tree-json and --dot (hidden
nodes named h1, h2, ...), the fitted model with --out; the summary goes to
standard output (to standard error when a tree is written to standard
output), as JSON with --json.`,
		Example: `  latentree simulate --topology hmm --hidden 78 -n 10000 --seed 1 --out hmm.csv --newick true.nwk
  latentree learn hmm.csv --method clrg --newick learned.nwk --out model.json
  latentree compare true.nwk learned.nwk

  latentree learn votes.csv --method regclnj --hidden-states 3 --out model.json
  latentree learn --distance-matrix d.csv --method nj --contract -1 --newick nj.nwk
  latentree learn shards/ --out model.json           # a directory of CSV or Parquet shards

  latentree stats part1.csv --out part1.lts   # on one machine
  latentree stats part2.csv --out part2.lts   # on another
  latentree stats merge part1.lts part2.lts --out all.lts
  latentree learn --stats all.lts --method clrg --newick tree.nwk`,
		RunE: func(cmd *cobra.Command, args []string) error { return runLearn(e, cmd, o, args) },
	}
	f := c.Flags()
	flagGroup(f, "Input", func(f *pflag.FlagSet) {
		o.df.register(f)
		o.df.registerWeights(f, "statistics, structure and fit count a row its weight times (sampling weights: --method lcm or a tree given to fit, since the pair statistics are whole counts); BIC's n is the weights' sum (frequency) or the rows (sampling)")
		f.StringVar(&o.matrix, "distance-matrix", "", "learn the structure from this distance matrix (CSV or PHYLIP) instead of data")
		f.IntVar(&o.matrixRows, "matrix-rows", 0, "with --distance-matrix: the number of rows the distances were estimated from, which sets the default --tau and --eps of rg and clrg (0: the distances are exact)")
		deprecatedAlias(f, "samples", "matrix-rows")
		f.StringVar(&o.statsFile, "stats", "", "learn the structure from this statistics file (.lts, from latentree stats --out) instead of data")
		f.BoolVar(&o.stream, "stream", false, "re-read the data files on every EM pass instead of holding the rows in memory (discrete or mixed data larger than memory)")
		f.Var(&o.maxPair, "max-pair-memory", "largest memory for the pair statistics, in bytes (default 4GiB): wider data are refused before the statistics are computed")
	})
	flagGroup(f, "Method", func(f *pflag.FlagSet) {
		f.StringVarP(&o.method, "method", "m", "clnj", "structure learner: "+learn.MethodNames())
	})
	flagGroup(f, "Distances (clnj, clrg, nj, rg, clblind, mst)", func(f *pflag.FlagSet) {
		f.StringVar(&o.distKind, "distance", "auto", "how the distance between two variables is measured (0 when one determines the other, larger the weaker they depend): "+
			"auto (gaussian for continuous data, discrete for discrete data), gaussian (−log |correlation|), "+
			"discrete (from the determinant of the pair's joint table when every variable has the same number of states: assumes nothing about the model; otherwise the rank-k form, see --rank), or "+
			"symmetric (the K-state symmetric channel distance: assumes every edge copies its parent's state or, with one error probability, switches to any other state uniformly, "+
			"as simulate --model symmetric; less noisy than discrete when that holds, biased when it does not)")
		f.IntVar(&o.rank, "rank", 0, "discrete distance from the k strongest directions of dependence of each pair (product of the top k singular values of its normalised table) instead of all of them (k ≥ 1). "+
			"Default: all of them (the determinant distance) when every variable has the same number of states; otherwise k = --hidden-states (2 with auto) "+
			"capped by the smallest number of states of a variable, which the summary reports. Set it to the number of hidden states you expect")
		f.Float64Var(&o.pseudo, "table-pseudo", 0, "structure stage: pseudo-count added to every cell of each pair's count table before distances (or chowliu's mutual information) are computed; 0 uses the raw counts. "+
			"Raise it (0.5 to 1) on few rows or sparse data when many pairs have infinite distance (the summary counts them, -v lists them); it weakens every dependence a little. "+
			"Parameters are smoothed by --em-pseudo")
	})
	flagGroup(f, "Contraction (clnj, clrg, nj, rg)", func(f *pflag.FlagSet) {
		f.StringVar(&o.rule, "contraction", "auto", "learners add hidden variables generously; contracting an edge at a hidden node removes one. Which edges: "+
			"bic (only while the fitted model's BIC improves: never worse than the uncontracted tree or the Chow–Liu tree, but one model fit per candidate), "+
			"aic (the same with AIC, which keeps more hidden variables), or threshold (edges shorter than --contract: fast, no fitting); "+
			"auto: bic when parameters are fitted on data in memory with variables² × rows up to 5×10⁸ (10⁸ for data that mix continuous and discrete columns), "+
			"and with --structure-only or --stats on continuous data without missing cells (the Gaussian BIC from their covariance, whatever the rows), else threshold")
		f.Float64Var(&o.contract, "contract", 0, "threshold rule: contract edges shorter than this distance, which join a hidden variable to a near copy of itself (default −log 0.9 ≈ 0.105; "+
			"larger removes more hidden variables, negative never contracts)")
		f.BoolVar(&o.keepHidden, "keep-hidden-edges", false, "threshold rule: contract only edges between a hidden and an observed node, never a short edge between two hidden nodes (the paper's behaviour): "+
			"keeps more hidden variables, some of them near copies of each other")
	})
	flagGroup(f, "Recursive grouping (rg, clrg)", func(f *pflag.FlagSet) {
		f.Float64Var(&o.tau, "tau", 0, "τ: the tests of which variables are siblings use only distances shorter than this, longer estimated distances being too noisy (default from the number of rows); larger uses more, noisier distances")
		f.Float64Var(&o.eps, "eps", 0, "ε: tolerance of the sibling tests, how much the differences of two variables' distances to the others may vary and still make them siblings (default from the number of rows); larger groups more variables into families")
		f.StringVar(&o.grouping, "grouping", "silhouette", "how variables are grouped into families of siblings: silhouette (clustering, with the number of families that separates them best; as the paper's experiments) or threshold (any two within ε are in one family)")
		f.BoolVar(&o.rangeStat, "range-statistic", false, "measure how much two variables' distance differences vary by their range, max − min, as the paper (eq. 25), instead of a weighted deviation that one noisy far variable cannot dominate")
	})
	flagGroup(f, "Quartet tests (quartet)", func(f *pflag.FlagSet) {
		f.StringVar(&o.qtest, "test", "nuclear", "test that decides which two of four variables sit on the same side of the tree: nuclear (needs no number of hidden states) or spectral (assumes --k hidden states)")
		f.IntVar(&o.qk, "k", 2, "--test spectral: the number of hidden states it assumes")
		f.IntVar(&o.qreps, "representatives", 1, "the tree is built by inserting variables one by one, and each insertion is decided by quartet tests against leaves that represent the branches of the tree so far; "+
			"with r representatives per branch every decision is a majority vote over r³ tests: more robust to one wrong test, r³ times slower")
		f.StringVar(&o.qorder, "order", "closest", "insertion order: closest (most dependent first), random (drawn with --seed) or given")
		f.IntVar(&o.qcands, "candidates", 8, "the representatives of a branch are chosen among this many of its leaves nearest its centre, as the ones most dependent on the variable being inserted (tests on strongly dependent quartets are the reliable ones); "+
			"more looks further for a strong leaf, at little cost. -1: take the nearest leaves by hops without looking at dependence (the paper's rule)")
	})
	flagGroup(f, "Regularized CLGrouping (regclnj, regclrg)", func(f *pflag.FlagSet) {
		f.IntVar(&o.maxHidden, "max-hidden", 0, "grow up to this many hidden variables (0: until the BIC stops improving)")
	})
	flagGroup(f, "Latent class analysis (lcm)", func(f *pflag.FlagSet) {
		f.IntVar(&o.maxClasses, "max-classes", 0, fmt.Sprintf("fit 1 to this many classes and print their fit table (LL, parameters, AIC, BIC, adjusted BIC, CAIC, entropy R², smallest class share, whether the best LL replicated); the smallest BIC is kept (0: up to %d, stopping once two in a row do not improve the BIC). --hidden-states fixes the number; --restarts sets the random starts (default %d), each run to convergence, in parallel", learn.DefaultMaxClasses, learn.DefaultLCMRestarts))
		f.IntVar(&o.blrt, "blrt", 0, "bootstrap likelihood-ratio test of k−1 against k classes for every k ≥ 2 of the table, with this many replicates drawn from the fitted k−1-class model (0: none); p = (1 + #{LR_b ≥ LR}) / (B + 1). Replicates run in parallel; the p-values depend on --seed, not on the cores")
		f.IntVar(&o.blrtFirst, "blrt-first", 0, "--blrt: index of the first replicate, so that a job array's tasks each run their own range (replicate b draws from --seed and b only; the README shows how to merge the parts)")
		f.StringSliceVar(&o.covariates, "covariates", nil, "columns that predict the class (comma-separated): the class is modelled by a multinomial logit on them, P(class = k | x) = softmax(β_k·[1, x]) with β = 0 for class 1 (poLCA's formula); the other columns are the items. A discrete column is categorical (dummy coded against its first state), a continuous one enters on its own scale; a missing covariate cell is an error naming its row. Every fit of the table has them; explain shows the coefficients, with --se their standard errors and odds ratios; infer needs the covariates' columns")
		f.IntVar(&o.blrtStarts, "blrt-starts", 0, fmt.Sprintf("--blrt: random starts of each of a replicate's two fits (k−1 and k classes), each run to convergence (0: %d)", learn.DefaultBLRTStarts))
	})
	flagGroup(f, emGroup, func(f *pflag.FlagSet) {
		f.BoolVar(&o.structOnly, "structure-only", false, "learn the structure only; fit no parameters")
		o.em.register(f)
		o.spec.registerInit(f)
	})
	flagGroup(f, spectralGroup, func(f *pflag.FlagSet) { o.spec.register(f) })
	flagGroup(f, seGroup, func(f *pflag.FlagSet) { o.se.register(f) })
	o.spec.keep = []string{"seed"}
	hs := f.Lookup("hidden-states")
	o.em.hiddenSpec, hs.DefValue = "", ""
	hs.Usage = `discrete data: states of every hidden variable, or "auto" (chosen per hidden variable by BIC: the best of 2 to 5 for all, then split or merged per variable). ` +
		`Default: auto when some variable has more than 2 states and variables² × rows is at most 10⁷ (80 variables × 1,500 rows), else 2; the summary says which was used. ` +
		`Mixed data: states of every discrete hidden variable (default 2), or "auto" (the best number for all by BIC, 2 to 5)`
	f.Lookup("restarts").Usage += fmt.Sprintf(". With --method lcm: the random starts of every fit (default %d), each run to convergence, in parallel; the fit table reports how many reached the best log-likelihood", learn.DefaultLCMRestarts)
	f.Lookup("seed").Usage = "random seed of EM (its random starts, --em-sample warm-up samples, --hidden-states auto trials), of --order random of the quartet method, and of the sampling steps of regclnj and regclrg"
	flagGroup(f, "Output", func(f *pflag.FlagSet) {
		f.StringVarP(&o.out, "out", "o", "", "write the fitted model (JSON) to this file")
		f.StringVar(&o.newick, "newick", "", "write the tree in Newick format to this file (- for standard output)")
		f.StringVar(&o.treeJSON, "tree-json", "", "write the tree as JSON to this file (- for standard output)")
		f.StringVar(&o.dot, "dot", "", "write the tree in Graphviz DOT format to this file (- for standard output)")
		f.StringVar(&o.report, "report", "", "write the fitted model's HTML report to this file (see latentree report)")
		f.BoolVar(&o.json, "json", false, "print the summary as JSON")
		f.BoolVarP(&o.verbose, "verbose", "v", false, "also list every pair at infinite distance")
	})
	useGroupedHelp(c)
	return c
}

// learnOptions turns the flags into learn.Options, rejecting flags that do
// not apply and values out of range. continuous says whether the data are
// all continuous; fromMatrix whether the input is a distance matrix.
func (o *learnOpts) learnOptions(cmd *cobra.Command, m learn.Method, fromMatrix, continuous bool) (learn.Options, error) {
	fs := cmd.Flags()
	changed := fs.Changed
	fromStats := o.statsFile != ""
	opt := learn.Options{Method: m, StructureOnly: o.structOnly || fromMatrix || fromStats}
	for _, g := range learn.OptionGroups() {
		if g.Applies(m) {
			continue
		}
		for _, field := range g.Fields {
			for _, name := range fieldFlags[field] {
				if changed(name) {
					return opt, usagef("--%s does not apply to --method %s (it applies to %s)", name, m, g.Methods)
				}
			}
		}
	}
	if fromMatrix {
		for _, name := range []string{"distance", "rank", "table-pseudo", "structure-only", "out", "hidden-states", "restarts", "tol", "max-iter", "em-pseudo", "em-accel", "em-stop", "random-init", "init", "params", "linker", "spectral-tol", "discrete", "continuous", "missing", "drop-constant", "max-states", "columns", "ignore", "delimiter"} {
			if fs.Lookup(name) != nil && changed(name) {
				return opt, usagef("--%s does not apply to --distance-matrix (a distance matrix gives the structure only)", name)
			}
		}
	} else if changed("matrix-rows") {
		return opt, usagef("%s applies to --distance-matrix only (with data or statistics, the number of rows is known)", flagName(cmd, "matrix-rows"))
	}
	if fromStats {
		for _, name := range []string{"structure-only", "out", "report", "hidden-states", "restarts", "tol", "max-iter", "em-pseudo", "em-accel", "em-stop", "random-init", "init", "params", "linker", "spectral-tol", "discrete", "continuous", "missing", "drop-constant", "max-states", "columns", "ignore", "delimiter"} {
			if fs.Lookup(name) != nil && changed(name) {
				return opt, usagef("--%s does not apply to --stats (statistics give the structure only; parameters and the reading of data need the rows)", name)
			}
		}
	}
	if o.structOnly {
		for _, name := range []string{"out", "hidden-states", "restarts", "tol", "max-iter", "em-pseudo", "em-accel", "em-stop", "random-init", "init", "params", "linker", "spectral-tol"} {
			if changed(name) {
				return opt, usagef("--%s sets parameter learning, which --structure-only skips", name)
			}
		}
	}
	if continuous {
		for _, name := range []string{"hidden-states", "restarts", "em-pseudo", "random-init"} {
			if changed(name) {
				return opt, usagef("--%s does not apply to continuous data (a Gaussian latent tree has no hidden states, restarts or pseudo-counts)", name)
			}
		}
	}
	if changed("k") && o.qtest != "spectral" {
		return opt, usagef("--k applies to --test spectral only")
	}
	// Values the library's options cannot tell apart from their defaults:
	// a flag given as 0 (or, for --k, --representatives and --candidates,
	// whose defaults are not 0, below the flag's range). Every other range
	// is checked by learn.Options.Validate (see fieldFlags).
	switch {
	case changed("matrix-rows") && o.matrixRows < 1:
		return opt, usagef("%s %d: want at least 1", flagName(cmd, "matrix-rows"), o.matrixRows)
	case changed("rank") && o.rank < 1:
		return opt, usagef("--rank %d: want at least 1", o.rank)
	case changed("tau") && !(o.tau > 0):
		return opt, usagef("--tau %g: want a positive distance", o.tau)
	case changed("eps") && !(o.eps > 0):
		return opt, usagef("--eps %g: want a positive finite value", o.eps)
	case o.qk < 1:
		return opt, usagef("--k %d: want at least 1", o.qk)
	case o.qreps < 1:
		return opt, usagef("--representatives %d: want at least 1", o.qreps)
	case o.qcands == 0 || o.qcands < -1:
		return opt, usagef("--candidates %d: want a positive number, or -1 for the nearest leaves by hops", o.qcands)
	}
	kind, err := distance.ParseKind(o.distKind)
	if err != nil {
		return opt, usagef("unknown --distance %q (want auto, gaussian, discrete or symmetric)", o.distKind)
	}
	if m.UsesDistances() && !fromMatrix {
		opt.Distance = learn.DistanceOptions{Kind: kind, Rank: o.rank, Pseudo: o.pseudo}
	}
	if m == learn.ChowLiu {
		opt.Distance.Pseudo = o.pseudo
	}
	if fromMatrix {
		opt.Samples = o.matrixRows
	}
	if m.Contracts() {
		rule, err := learn.ParseContractRule(o.rule)
		if err != nil {
			return opt, usageError{err}
		}
		if rule == learn.ContractBIC || rule == learn.ContractAIC {
			for _, name := range []string{"contract", "keep-hidden-edges"} {
				if changed(name) {
					return opt, usagef("--%s applies to --contraction threshold, not %s", name, rule)
				}
			}
			if fromMatrix {
				return opt, usagef("--contraction %s scores fitted models; a distance matrix has no data to fit: use threshold", rule)
			}
		}
		opt.Contract = learn.ContractOptions{Rule: rule, Threshold: o.contract, KeepHiddenEdges: o.keepHidden}
	}
	if m.UsesRG() {
		opt.RG = structure.RGOptions{Tau: o.tau, Eps: o.eps, Range: o.rangeStat}
		var err error
		if opt.RG.Grouping, err = structure.ParseGrouping(o.grouping); err != nil {
			return opt, usagef("unknown --grouping %q (want silhouette or threshold)", o.grouping)
		}
	}
	if m == learn.Quartet {
		tst, err := quartet.ParseTest(o.qtest)
		if err != nil {
			return opt, usageError{err}
		}
		ord, err := quartet.ParseOrder(o.qorder)
		if err != nil {
			return opt, usagef("unknown --order %q (want closest, random or given)", o.qorder)
		}
		opt.Quartet = learn.QuartetOptions{Test: tst, Reps: o.qreps, Order: ord, Candidates: o.qcands}
		if tst == quartet.TestSpectral {
			opt.Quartet.K = o.qk
		}
	}
	if m.Regularized() {
		opt.Reg.MaxHidden = o.maxHidden
	}
	if !opt.StructureOnly {
		fo, err := o.em.fitOptions(cmd, continuous)
		if err != nil {
			return opt, err
		}
		if err := o.spec.apply(cmd, &fo, continuous); err != nil {
			return opt, err
		}
		opt.Fit = fo
		if m == learn.LCM && !changed("hidden-states") {
			opt.Fit.HiddenStates = 0 // chosen by BIC
		}
	}
	opt.LCM.Covariates = o.covariates
	if m == learn.LCM {
		opt.LCM.MaxClasses, opt.LCM.BLRT, opt.LCM.BLRTStarts, opt.LCM.BLRTFirst = o.maxClasses, o.blrt, o.blrtStarts, o.blrtFirst
	}
	opt.Src = seed.New(o.em.seed, seed.Learn)
	opt.MaxPairBytes = int64(o.maxPair)
	if err := opt.Validate(); err != nil {
		return opt, optionError(cmd, err)
	}
	return opt, nil
}

// fieldFlags names the flags that set learn.Options' fields.
var fieldFlags = map[string][]string{
	"Samples":                  {"matrix-rows"},
	"Distance.Kind":            {"distance"},
	"Distance.Rank":            {"rank"},
	"Distance.Pseudo":          {"table-pseudo"},
	"Contract.Rule":            {"contraction"},
	"Contract.Threshold":       {"contract"},
	"Contract.KeepHiddenEdges": {"keep-hidden-edges"},
	"RG.Tau":                   {"tau"},
	"RG.Eps":                   {"eps"},
	"RG.Grouping":              {"grouping"},
	"RG.Range":                 {"range-statistic"},
	"Quartet.Test":             {"test"},
	"Quartet.K":                {"k"},
	"Quartet.Reps":             {"representatives"},
	"Quartet.Order":            {"order"},
	"Quartet.Candidates":       {"candidates"},
	"Reg.MaxHidden":            {"max-hidden"},
	"LCM.MaxClasses":           {"max-classes"},
	"LCM.BLRT":                 {"blrt"},
	"LCM.BLRTStarts":           {"blrt-starts"},
	"LCM.BLRTFirst":            {"blrt-first"},
	"LCM.Covariates":           {"covariates"},
	"Fit.EM.Restarts":          {"restarts"},
	"Fit.Init":                 {"random-init", "init"},
	"Fit.Params":               {"params"},
	"Fit.Linker":               {"linker"},
	"Fit.SpectralTol":          {"spectral-tol"},
	"Fit.EM.Sample":            {"em-sample"},
	"Fit.HiddenStates":         {"hidden-states"},
}

// optionError is a usage error for learn.Options.Validate's error,
// naming the flag when the error is about the value of one.
func optionError(cmd *cobra.Command, err error) error {
	var oe *learn.OptionError
	if errors.As(err, &oe) {
		if names, ok := fieldFlags[oe.Option]; ok {
			return usagef("%s %v: want %s", flagName(cmd, names[0]), oe.Value, oe.Want)
		}
	}
	var ae *learn.AutoStatesError
	if errors.As(err, &ae) {
		return usagef("%s chooses hidden variables by BIC with a fixed number of states; give --hidden-states a number", ae.Method)
	}
	return usageError{err}
}

func runLearn(e *env, cmd *cobra.Command, o *learnOpts, args []string) error {
	start := time.Now()
	fromMatrix := o.matrix != ""
	fromStats := o.statsFile != ""
	given := 0
	for _, b := range []bool{len(args) >= 1, fromMatrix, fromStats} {
		if b {
			given++
		}
	}
	if given != 1 {
		return usagef("give one of a data file, --stats or --distance-matrix")
	}
	m, err := learn.ParseMethod(o.method)
	if err != nil {
		return usageError{err}
	}
	source := o.matrix
	switch {
	case fromStats:
		source = o.statsFile
	case !fromMatrix:
		source = strings.Join(args, ", ")
	}
	if o.stream && (fromMatrix || fromStats) {
		return usagef("--stream applies to data files, not to --stats or --distance-matrix")
	}
	if cmd.Flags().Changed("max-pair-memory") && (fromMatrix || fromStats) {
		return usagef("--max-pair-memory applies to data, not to --stats or --distance-matrix")
	}
	blocks, err := useBlocks(args, o.stream, o.df.dropConstant)
	if err != nil {
		return err
	}
	if o.df.weights != "" {
		switch {
		case fromMatrix || fromStats:
			return usagef("--weights applies to data rows, not to --stats or --distance-matrix (weight the rows when computing the statistics: latentree stats --weights)")
		case o.stream || len(args) > 1:
			return usagef("--weights needs the rows of one data file in memory (not --stream or several shards)")
		}
		if k, err := data.ParseWeightKind(o.df.weightKind); err == nil && k == data.Sampling && m != learn.LCM {
			return usagef("--weight-kind sampling: --method %s learns from pair statistics, which hold whole counts; use --method lcm, or fit a given tree (latentree fit --weights)", m)
		}
		blocks = false
	}
	if o.stream && !blocks {
		return usagef("--stream reads data files, not standard input")
	}
	if err := o.se.check(); err != nil {
		return err
	}
	if err := o.df.checkSE(o.se.bootstrap > 0); err != nil {
		return err
	}
	if o.se.on() && (fromMatrix || fromStats || blocks || o.structOnly) {
		return usagef("--se and --bootstrap need a fitted model and its data rows in memory (not --stats, --distance-matrix, --stream, data read in blocks or --structure-only)")
	}
	if fromMatrix && !m.UsesDistances() {
		return usagef("--method %s needs a data file (it does not learn from distances)", m)
	}
	if fromStats && m.NeedsRows() {
		return usagef("--method %s needs the data rows, not only their statistics (with --stats use clnj, clrg, nj, rg, clblind, mst or chowliu)", m)
	}
	// Every check that does not need the data runs before it is read.
	pre, err := o.learnOptions(cmd, m, fromMatrix, false)
	if err != nil {
		return err
	}
	in := pathFlag{"DATA", source}
	ins := []pathFlag{in}
	if len(args) > 1 {
		ins = nil
		for _, a := range args {
			ins = append(ins, pathFlag{"DATA", a})
		}
	}
	if fromMatrix {
		in.flag = "--distance-matrix"
	}
	if fromStats {
		in.flag = "--stats"
	}
	if o.report != "" && (fromMatrix || o.structOnly) {
		return usagef("--report shows a fitted model: it does not apply with --distance-matrix or --structure-only")
	}
	outs := []pathFlag{{"--out", o.out}, {"--newick", o.newick}, {"--tree-json", o.treeJSON}, {"--dot", o.dot}, {"--report", o.report}}
	if fromMatrix || fromStats {
		ins = []pathFlag{in}
	}
	if err := e.checkPaths(ins, outs); err != nil {
		return err
	}
	summary := e.summaryWriter(outs)
	var res *learn.Result
	var d *data.Dataset
	rows := 0
	var readTime time.Duration
	switch {
	case blocks:
		var err error
		if res, d, readTime, err = e.learnBlocks(cmd, o, m, args); err != nil {
			return err
		}
		rows = res.Rows
	case fromStats:
		st, err := e.readStatsFile(o.statsFile)
		if err != nil {
			return err
		}
		if !st.HasPairs() {
			return fmt.Errorf("%s has no pair statistics (written with NoPairs); learning a structure needs them", o.statsFile)
		}
		rows = int(st.Rows())
		if res, err = learn.FromStats(st, pre); err != nil {
			return fmt.Errorf("%s: %w", o.statsFile, err)
		}
	case fromMatrix:
		r, name, err := e.openInput(o.matrix)
		if err != nil {
			return err
		}
		dm, err := distance.ReadMatrix(r, distance.ReadOptions{Name: name, AllowInf: true, MaxLineBytes: int(o.df.maxLine), MaxFieldBytes: int(o.df.maxField)})
		r.Close()
		if err != nil {
			return err
		}
		if res, err = learn.FromDistances(dm, pre); err != nil {
			return err
		}
	default:
		var err error
		d, _, err = e.readData(args[0], &o.df)
		if err != nil {
			return err
		}
		rows = d.NumRows()
		if !d.AllContinuous() && !d.AllDiscrete() && !o.structOnly {
			if err := mixedFlags(cmd); err != nil {
				return err
			}
		}
		opt, err := o.learnOptions(cmd, m, false, d.AllContinuous())
		if err != nil {
			return err
		}
		finish := e.learnProgress(&opt)
		res, err = learn.Learn(d, opt)
		finish()
		if isColumnsError(err) {
			return columnsError(source, err)
		}
		if err != nil {
			return modelSizeError(err)
		}
		if o.se.on() && res.Model != nil {
			if err := o.se.add(res.Model, d, opt.Fit.EM, o.em.seed); err != nil {
				return err
			}
		}
	}
	written := treeOutputs(res.Tree, o.newick, o.treeJSON, o.dot, continuousNodes(res.Tree, res.Model))
	if res.Model != nil && (o.out != "" || o.report != "") {
		prov := provenance(string(m), source, rows, cmd, res.EM, res.Score)
		written = append(written, output{o.out, func(w io.Writer) error { return writeModel(w, res.Model, prov) }})
		if o.report != "" {
			name := source
			if d != nil && d.NumRows() < rows {
				// Data read in blocks: the report explains a sample.
				name = fmt.Sprintf("%s (a random sample of %d of its %d rows)", source, d.NumRows(), rows)
			}
			rep, err := learnReport(o.report, res, d, name, prov)
			if err != nil {
				return err
			}
			written = append(written, rep)
		}
	}
	if err := e.writeOutputs(written); err != nil {
		return err
	}
	if err := printLearn(summary, source, rows, res, o, readTime, time.Since(start)); err != nil || o.json {
		return err
	}
	printSE(summary, res.Model)
	return nil
}

// learnProgress shows EM's and the contraction search's progress on
// standard error (on a terminal) while parameters are fitted; the
// returned function ends the bars.
func (e *env) learnProgress(opt *learn.Options) func() {
	if opt.StructureOnly {
		return func() {}
	}
	bar := e.newProgress(max(opt.Fit.EM.MaxIter, 1), "EM")
	last := 0
	opt.Fit.EM.Progress = func(it int, _ float64) { bar.Add(it - last); last = it }
	search := e.newProgress(-1, "contraction search (candidates scored)")
	scored := 0
	opt.ContractProgress = func(evaluated, _ int) { search.Add(evaluated - scored); scored = evaluated }
	return func() { bar.Finish(); search.Finish() }
}

func printLearn(w io.Writer, source string, rows int, res *learn.Result, o *learnOpts, readTime, total time.Duration) error {
	t, rep := res.Tree, res.Report
	if o.json {
		out := map[string]any{
			"source": source, "method": res.Method, "rows": rows, "observed": t.NumObserved(), "hidden": t.NumHidden(),
			"edges": t.NumEdges(), "report": rep, "stats_seconds": res.Timings.Stats.Seconds(),
			"structure_seconds": res.Timings.Structure.Seconds(), "total_seconds": total.Seconds(),
		}
		if readTime > 0 {
			out["read_seconds"] = readTime.Seconds()
		}
		if o.verbose || len(res.Degenerate) <= 50 {
			out["degenerate_pairs"] = res.Degenerate
		}
		if res.DistanceRank > 0 {
			out["distance_rank"] = res.DistanceRank
		}
		out["degenerate_count"] = len(res.Degenerate)
		if q := res.Quartet; q != nil {
			out["quartet_tests"], out["quartet_unresolved"] = q.Tests, q.Unresolved
		}
		if r := res.Reg; r != nil {
			out["steps"], out["candidates_evaluated"] = r.Steps, r.Evaluated
		}
		if c := res.Contraction; c != nil {
			out["contraction"] = c
		}
		if l := res.LCM; l != nil {
			out["lcm"] = l
			if w := lcmWarnings(l); len(w) > 0 {
				out["warnings"] = w
			}
		}
		if res.Method.Contracts() {
			out["contraction_rule"] = res.ContractRule
		}
		if h := res.HiddenStates; h != nil {
			out["hidden_state_counts"] = h
		}
		if mx := res.Mixed; mx != nil {
			out["mixed"] = mx
		}
		if res.Model != nil {
			out["em"], out["em_seconds"], out["score"] = res.EM, res.Timings.Fit.Seconds(), res.Score
			if s, ok := res.Model.(*spectral.Model); ok {
				out["params"], out["hidden_states"], out["linker"], out["edges"] = "spectral", s.HiddenStates, s.Linker.String(), s.Edges
			}
		}
		return writeJSON(w, out)
	}
	fmt.Fprintf(w, "%s: %s tree over %d observed variables with %d hidden variables (%d edges)\n",
		source, res.Method, t.NumObserved(), t.NumHidden(), t.NumEdges())
	switch {
	case res.DistanceRank > 0 && o.rank == 0 && res.Mixed != nil:
		fmt.Fprintf(w, "distance: mixed canonical-correlation distance of rank %d (the top %d canonical correlations of each pair; --rank sets the rank)\n", res.DistanceRank, res.DistanceRank-1)
	case res.DistanceRank > 0 && o.rank == 0:
		fmt.Fprintf(w, "distance: rank-%d (the variables have different numbers of states; --rank sets k)\n", res.DistanceRank)
	}
	if c := res.Contraction; c != nil {
		from := ""
		if c.Covariance {
			from = " (from the covariance)"
		}
		fmt.Fprintf(w, "contraction by %s%s: %d edges contracted of %d candidates scored, BIC %.2f → %.2f", strings.ToUpper(c.Rule.String()), from, c.Contracted, c.Evaluated, c.InitialBIC, c.BIC)
		switch c.Kept {
		case "chowliu":
			fmt.Fprint(w, " (the Chow–Liu tree scored best)")
		case "kinds":
			fmt.Fprint(w, " (the trees of the continuous and of the discrete columns, each learned alone and joined by one edge, scored best)")
		case "lcm":
			fmt.Fprintf(w, " (a latent class model with %d classes scored best)", c.LCM.Classes)
		}
		fmt.Fprintln(w)
	} else if res.Model != nil && res.ContractRule == learn.ContractThreshold && o.rule == "auto" && o.contract == 0 && !o.keepHidden {
		fmt.Fprintf(w, "contracted %d short edges (threshold rule: the BIC search is not run by default on data this large; --contraction bic runs it)\n", rep.Contracted)
	} else if rep.Contracted > 0 || rep.Suppressed > 0 {
		fmt.Fprintf(w, "contracted %d short edges, removed %d redundant hidden nodes\n", rep.Contracted, rep.Suppressed)
	}
	if l := res.LCM; l != nil {
		printLCM(w, l)
	}
	if q := res.Quartet; q != nil {
		fmt.Fprintf(w, "%d quartet tests (%d unresolved)\n", q.Tests, q.Unresolved)
	}
	if r := res.Reg; r != nil {
		fmt.Fprintf(w, "%d subtrees incorporated of %d evaluated\n", len(r.Steps), r.Evaluated)
	}
	if rep.Tau > 0 {
		fmt.Fprintf(w, "RG thresholds: τ = %.3g, ε = %.3g\n", rep.Tau, rep.Eps)
	}
	if n := len(res.Degenerate); n > 0 {
		fmt.Fprintf(w, "%d pairs have infinite distance (independent or singular)", n)
		if !o.verbose {
			fmt.Fprint(w, "; -v lists them")
		}
		fmt.Fprintln(w)
		if o.verbose {
			for _, p := range res.Degenerate {
				fmt.Fprintf(w, "  %s – %s: %s\n", p.A, p.B, p.Reason)
			}
		}
	}
	if h := res.HiddenStates; h != nil {
		fmt.Fprintf(w, "hidden states: %s\n", statesLine(h))
		printStatesTable(w, h)
	}
	if mx := res.Mixed; mx != nil {
		printMixed(w, mx)
	}
	if s, ok := res.Model.(*spectral.Model); ok {
		printSpectralSummary(w, s, res.Score, res.Timings.Fit.Seconds())
	} else if res.Model != nil {
		warm := res.Contraction != nil && res.Contraction.Kept != "lcm"
		if res.Mixed != nil {
			// A mixed model is warm only when a contraction was kept (the
			// search's model, run to convergence from the current one).
			warm = warm && res.Contraction.Kept == "contracted" && res.Contraction.Contracted > 0
		}
		start := startFamily
		switch {
		case warm:
			start = startWarm
		case res.Mixed != nil && res.Contraction != nil && res.Contraction.Kept == "kinds":
			start = startKinds
		}
		printFitSummary(w, res.Model, res.EM, res.Score, res.Timings.Fit.Seconds(), start)
	}
	fmt.Fprint(w, "time: ")
	if readTime > 0 {
		fmt.Fprintf(w, "reading %s, ", round(readTime))
	}
	if res.Timings.Stats > 0 {
		fmt.Fprintf(w, "statistics %s, ", round(res.Timings.Stats))
	}
	fmt.Fprintf(w, "structure %s", round(res.Timings.Structure))
	if res.Model != nil {
		fmt.Fprintf(w, ", parameters %s", round(res.Timings.Fit))
	}
	fmt.Fprintf(w, ", total %s\n", round(total))
	return nil
}

// printMixed says that a conditional-Gaussian model was fitted to data
// that mix the kinds, with its hidden variables of each kind, the
// continuous variables moved under new discrete hidden nodes, and the
// continuous columns that may be row identifiers.
func printMixed(w io.Writer, mx *learn.MixedReport) {
	fmt.Fprintf(w, "mixed data (%s, %s): conditional-Gaussian model with %s and %s",
		plural(mx.Continuous, "continuous column"), plural(mx.Discrete, "discrete column"),
		plural(mx.HiddenDiscrete, "discrete hidden variable"), plural(mx.HiddenContinuous, "continuous hidden variable"))
	switch {
	case mx.HiddenDiscrete > 0 && mx.AutoStates:
		fmt.Fprintf(w, " (%d states each, chosen by BIC among 2 to 5)", mx.HiddenStates)
	case mx.HiddenDiscrete > 0:
		fmt.Fprintf(w, " (%d states; --hidden-states sets them)", mx.HiddenStates)
	}
	fmt.Fprintln(w)
	if n := len(mx.Repaired); n > 0 {
		fmt.Fprintf(w, "  %s between discrete ones in the learned tree, each hung under a new discrete hidden variable: %s\n",
			plural(n, "continuous variable"), names.Quote(mx.Repaired, 5))
	}
	if n := len(mx.Integers); n > 0 {
		fmt.Fprintf(w, "  note: %s distinct integers, modelled as continuous variables (row identifiers? --ignore skips a column): %s\n",
			plural(n, "continuous column holds"), names.Quote(mx.Integers, 5))
	}
}

// mixedFlags rejects the parameter flags that do not apply to data that
// mix continuous and discrete columns (see model.FitOptions.ValidateFor).
func mixedFlags(cmd *cobra.Command) error {
	changed := cmd.Flags().Changed
	// Flags given their default value (--params em, --init surrogate)
	// say what mixed EM does.
	defaults := map[string]string{"params": "em", "init": "surrogate"}
	for _, name := range []string{"em-pseudo", "em-sample", "random-init", "init", "params", "linker", "spectral-tol", "em-accel", "em-stop"} {
		f := cmd.Flags().Lookup(name)
		if f == nil || !changed(name) || defaults[name] != "" && f.Value.String() == defaults[name] {
			continue
		}
		switch name {
		case "em-accel":
			continue
		case "em-stop":
			if f.Value.String() == "relative" {
				continue // mixed EM's rule
			}
			return usagef("--em-stop %s does not apply to mixed data (mixed EM stops when the relative gain in log-likelihood is at most --tol: --em-stop relative)", f.Value)
		}
		return usagef("--%s does not apply to mixed data (a conditional-Gaussian latent tree is fitted by its own EM from a moment-based start, with --restarts random starts besides: no pseudo-counts, warm-up on samples, other starts or spectral parameters)", name)
	}
	return nil
}

// statesLine describes the hidden-state counts: "uniform 2", "auto (2–4
// per variable)", and for the default choice what sets it.
func statesLine(h *learn.StatesReport) string {
	if !h.Auto {
		return fmt.Sprintf("uniform %d", h.Max)
	}
	counts := fmt.Sprintf("%d–%d per variable", h.Min, h.Max)
	if h.Min == h.Max {
		counts = fmt.Sprintf("%d for every variable", h.Min)
	}
	if h.Default {
		return "auto (" + counts + "; chosen by BIC by default for variables with more than 2 states, --hidden-states K fixes them)"
	}
	return "auto (" + counts + ")"
}

// printLCM prints the latent class method's fit table, one line per
// number of classes, and a warning for every best log-likelihood that was
// not replicated.
func printLCM(w io.Writer, l *learn.LCMReport) {
	blrt := false
	for _, f := range l.Fits {
		blrt = blrt || f.BLRT != nil
	}
	fmt.Fprintf(w, "fit table of latent class models (kept: %s; replicated: starts within %g of the best log-likelihood; aBIC uses ln((n+2)/24), CAIC ln n + 1):\n", l.Rule, learn.LCMReplicateTol)
	fmt.Fprintf(w, "  %7s %12s %6s %12s %12s %12s %12s %7s %8s %10s", "classes", "log-lik", "params", "AIC", "BIC", "aBIC", "CAIC", "entR²", "smallest", "replicated")
	if blrt {
		fmt.Fprintf(w, " %10s", "BLRT p")
	}
	fmt.Fprintln(w)
	for _, f := range l.Fits {
		rep := "-"
		if f.Starts > 0 {
			rep = fmt.Sprintf("%d/%d", f.Replicated, f.Starts)
		}
		fmt.Fprintf(w, "  %7d %12.2f %6d %12.2f %12.2f %12.2f %12.2f %7.3f %8.3f %10s", f.Classes, f.LogLik, f.Params, f.AIC, f.BIC, f.ABIC, f.CAIC, f.EntropyR2, f.SmallestShare, rep)
		if blrt {
			p := "-"
			if f.BLRT != nil {
				p = fmt.Sprintf("%.4f", f.BLRT.P)
			}
			fmt.Fprintf(w, " %10s", p)
		}
		if f.Classes == l.Classes {
			fmt.Fprint(w, "  ← kept")
		}
		fmt.Fprintln(w)
	}
	for _, f := range l.Fits {
		if b := f.BLRT; b != nil {
			reps := fmt.Sprintf("%d replicates", b.Replicates)
			if b.First > 0 {
				reps = fmt.Sprintf("replicates %d to %d", b.First, b.First+b.Replicates-1)
			}
			fmt.Fprintf(w, "BLRT %d vs %d classes: LR %.2f, %d of %s at least as large, p = %.4f (%d starts per replicate fit)\n",
				f.Classes-1, f.Classes, b.LR, b.Exceed, reps, b.P, b.Starts)
		}
	}
	for _, msg := range lcmWarnings(l) {
		fmt.Fprintf(w, "warning: %s\n", msg)
	}
}

// lcmWarnings are the warnings of a latent class fit table: a best
// log-likelihood reached by one start only.
func lcmWarnings(l *learn.LCMReport) []string {
	var out []string
	for _, k := range l.NotReplicated() {
		for _, f := range l.Fits {
			if f.Classes == k {
				out = append(out, fmt.Sprintf("the best log-likelihood of %d classes (%.2f) was not replicated: only 1 of %d starts reached it within %g; more --restarts may find a better one",
					k, f.LogLik, f.Starts, learn.LCMReplicateTol))
			}
		}
	}
	return out
}

// printStatesTable prints the fit table of the uniform numbers of hidden
// states that --hidden-states auto compared, if any.
func printStatesTable(w io.Writer, h *learn.StatesReport) {
	if len(h.Fits) == 0 {
		return
	}
	fmt.Fprintf(w, "  fit table of the learned tree with K states at every hidden variable (kept: %s; entR² and smallest: the least sharply classified hidden variable and the rarest state):\n", h.Rule)
	fmt.Fprintf(w, "  %7s %12s %6s %12s %12s %12s %12s %7s %8s\n", "K", "log-lik", "params", "AIC", "BIC", "aBIC", "CAIC", "entR²", "smallest")
	screened := false
	for _, f := range h.Fits {
		mark := ""
		switch {
		case f.Screened:
			mark, screened = "  (screened)", true
		case f.States == h.Uniform:
			mark = "  ← start of the per-variable search"
		}
		fmt.Fprintf(w, "  %7d %12.2f %6d %12.2f %12.2f %12.2f %12.2f %7.3f %8.3f%s\n", f.States, f.LogLik, f.Params, f.AIC, f.BIC, f.ABIC, f.CAIC, f.EntropyR2, f.SmallestShare, mark)
	}
	if screened {
		fmt.Fprintln(w, "  (screened: EM stopped after 150 E-steps, its bound on the remaining gain showing that K could not win; the log-likelihood is a lower bound)")
	}
}

func round(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(time.Millisecond)
	case d > time.Millisecond:
		return d.Round(time.Microsecond)
	}
	return d
}
