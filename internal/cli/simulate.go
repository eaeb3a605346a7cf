package cli

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

type simulateOpts struct {
	topology        string
	leaves, leaves2 int
	hidden          int
	degree, depth   int
	beta            float64
	model           string
	rhoMin, rhoMax  float64
	states          int
	thetaMin        float64
	thetaMax        float64
	obsStates       int
	hiddenStates    string
	cpt             string
	mu, alpha       float64
	continuous      float64
	contHidden      int
	leafStates      string
	separation      float64
	sepSpread       float64
	rows            int
	seed            uint64
	out             string
	newick          string
	treeJSON        string
	modelJSON       string
	distances       string
	json            bool
	covariate       float64
}

func newSimulateCmd(e *env) *cobra.Command {
	o := &simulateOpts{}
	c := &cobra.Command{
		Use:   "simulate",
		Short: "Sample data from a random latent tree model",
		Long: `simulate builds a latent tree topology, draws a model on it, and samples
--rows (-n) rows of its observed variables (named x1, x2, ...) as CSV or
Parquet. (--samples is the old name of --rows; it still works, with a notice,
until the next release.)

Topologies (--topology):
  star          one hidden node with --leaves observed leaves
  double-star   two adjacent hidden nodes with --leaves and --leaves2 leaves (JMLR 2011 §7.1: 40+40)
  hmm           a chain of --hidden hidden nodes, each with an observed child, plus an
                observed variable at both ends (JMLR §7.1: --hidden 78 gives 80 observed)
  complete      complete tree of internal degree --degree and --depth levels with an observed
                root (JMLR §7.1 5-complete: --degree 5 --depth 3, 25 hidden, 81 observed)
  binary        random binary tree over --leaves variables by recursive splitting with
                balance --beta (ICML 2013 §6.2)
  minimal       random minimal latent tree over --leaves variables; observed variables
                may be internal nodes

Models (--model):
  gaussian      edge correlations ρ ~ U[--rho-min, --rho-max]
  symmetric     --states K states, crossover θ ~ U[--theta-min, --theta-max] per edge
  general       --observed-states n for observed variables, --hidden-states k (or a range
                "2..8": each hidden node draws its own); CPTs --cpt dirichlet or perturbed
                (ICML 2013 §6.1, with --mu)
  mixed         discrete and continuous variables (a conditional-Gaussian tree): a share
                --continuous (0.4) of the leaves continuous, --continuous-hidden hidden
                nodes made continuous with everything below them, --leaf-states (2..5)
                states of discrete observed leaves, --hidden-states (2) of discrete
                hidden variables; a continuous variable's means under the states of a discrete
                parent are s within-state SDs apart, s drawn per variable from --separation (2)
                times [1 - --separation-spread, 1 + --separation-spread] (0.5: 1 to 3 SDs;
                --separation-spread 0 gives every variable --separation), its correlation with a
                continuous parent in [--rho-min, --rho-max] (default 0.4..0.8); tables of
                discrete nodes keep the parent's state with 20-45% Dirichlet(--alpha, default
                10) noise; observed internal nodes of the topology are discrete, with the
                hidden variables' states

--covariate SLOPE (discrete models: symmetric, general) adds a continuous
covariate column z, standard normal, on which the root's state depends by a
multinomial logit: the log-odds of the root's state s against state 0 change
by SLOPE·s per unit of z (simulate.Covariate); learn --method lcm and fit with
--covariates z estimate it. The model file then holds the regression, and its
prior the rows' mean shares; --newick's edge lengths are the model's without
the covariate, and --distances is refused.

The true tree is written with --newick / --tree-json (edge lengths are exact
information distances where defined), the true model (a model file that
score, infer, explain and draw read) with --model-json, and the exact distance
matrix of the observed variables with --distances.

The CSV goes to --out, or to standard output without it; "-" sends one other
output (e.g. --newick -) to standard output when --out is given. Two outputs
on standard output, or two outputs naming the same file, are an error. Files
are written all or none: a failure leaves every destination as it was. The
summary line (or --json) goes to standard output when it is free, and --json
to standard error otherwise. An --out name ending in .parquet (any case) writes
a Snappy-compressed Parquet file instead of CSV (integer state labels as INT32
columns, other labels as strings, Gaussian values as doubles), which learn and
stats --out read as they read the CSV.`,
		Example: `  # the HMM of JMLR 2011 §7.1 with 1,000 rows of Gaussian data
  latentree simulate --topology hmm --hidden 78 -n 1000 --seed 1 --out hmm.csv --newick hmm.nwk

  # a 16-leaf skewed binary tree with 10-state observed and 2..8-state hidden variables
  latentree simulate --topology binary --leaves 16 --beta 0.2 --model general \
      --observed-states 10 --hidden-states 2..8 --cpt perturbed --mu 0.5 -n 2000 --seed 7 > q.csv

  # one million rows as Parquet, then their statistics
  latentree simulate --topology hmm --hidden 78 --model symmetric -n 1000000 --out big.parquet
  latentree stats big.parquet --out big.lts

  # a mixed tree: 30 variables, half of them continuous, one continuous hidden subtree
  latentree simulate --topology binary --leaves 30 --model mixed --continuous 0.5 \
      --continuous-hidden 1 --leaf-states 2..4 --separation 2.5 -n 5000 --seed 3 \
      --out mixed.csv --model-json truth.json --newick truth.nwk

  # a latent class model whose classes depend on a covariate z
  latentree simulate --topology star --leaves 6 --model symmetric --covariate 1.2 \
      -n 2000 --seed 4 --out lca.csv

  # exact distances only (no rows)
  latentree simulate --topology minimal --leaves 50 -n 0 --distances d.csv --newick t.nwk`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runSimulate(e, cmd, o) },
	}
	f := c.Flags()
	f.StringVar(&o.topology, "topology", "minimal", "star, double-star, hmm, complete, binary or minimal")
	f.IntVar(&o.leaves, "leaves", 20, "number of observed leaves (star, binary, minimal) or leaves of the first hidden node (double-star)")
	f.IntVar(&o.leaves2, "leaves2", 0, "leaves of the second hidden node of a double star (default: --leaves)")
	f.IntVar(&o.hidden, "hidden", 78, "number of hidden nodes of an hmm")
	f.IntVar(&o.degree, "degree", 5, "internal degree of a complete tree")
	f.IntVar(&o.depth, "depth", 3, "depth of a complete tree")
	f.Float64Var(&o.beta, "beta", 0.5, "split balance of a binary tree, in (0,1)")
	f.StringVar(&o.model, "model", "gaussian", "gaussian, symmetric, general or mixed")
	f.Float64Var(&o.rhoMin, "rho-min", 0.2, "smallest edge correlation (gaussian; mixed: between continuous nodes, default 0.4)")
	f.Float64Var(&o.rhoMax, "rho-max", 0.8, "largest edge correlation (gaussian; mixed: between continuous nodes)")
	f.IntVar(&o.states, "states", 2, "number of states K (symmetric)")
	f.Float64Var(&o.thetaMin, "theta-min", 0, "smallest crossover probability (symmetric; default 0.05 or less for large K)")
	f.Float64Var(&o.thetaMax, "theta-max", 0, "largest crossover probability (symmetric; default 0.2 or 0.8/K)")
	f.IntVar(&o.obsStates, "observed-states", 2, "states of observed variables (general)")
	f.StringVar(&o.hiddenStates, "hidden-states", "", `states of hidden variables: "k" or a range "a..b" (general, default --observed-states; mixed: discrete hidden variables, default 2)`)
	f.StringVar(&o.cpt, "cpt", "dirichlet", "dirichlet or perturbed (general)")
	f.Float64Var(&o.mu, "mu", 0.5, "perturbation μ of the perturbed scheme")
	f.Float64Var(&o.alpha, "alpha", 1, "Dirichlet concentration (general; mixed: default 10)")
	f.Float64Var(&o.continuous, "continuous", 0.4, "share of the observed leaves that are continuous, in [0, 1] (mixed)")
	f.IntVar(&o.contHidden, "continuous-hidden", 0, "hidden nodes to make continuous with every observed variable below them, within --continuous (mixed)")
	f.StringVar(&o.leafStates, "leaf-states", "2..5", `states of discrete observed leaves: "k" or a range "a..b" (mixed)`)
	f.Float64Var(&o.separation, "separation", 2, "typical distance between the means of a continuous variable under consecutive states of its discrete parent, in within-state SDs (mixed)")
	f.Float64Var(&o.sepSpread, "separation-spread", 0.5, "each continuous variable's separation is drawn from --separation times [1-spread, 1+spread]; 0: all equal (mixed)")
	f.IntVarP(&o.rows, "rows", "n", 1000, "number of rows to sample (0: none, only the tree and --distances)")
	deprecatedAlias(f, "samples", "rows")
	f.Uint64Var(&o.seed, "seed", seed.Default, "random seed")
	f.StringVarP(&o.out, "out", "o", "", "write the data here instead of standard output: CSV, or Parquet for a name ending in .parquet")
	f.StringVar(&o.newick, "newick", "", "write the true tree in Newick format to this file")
	f.StringVar(&o.treeJSON, "tree-json", "", "write the true tree as JSON to this file")
	f.StringVar(&o.modelJSON, "model-json", "", "write the true model (a model file) to this file")
	f.StringVar(&o.distances, "distances", "", "write the exact information distances of the observed variables (CSV) to this file")
	f.Float64Var(&o.covariate, "covariate", 0, "add a standard normal covariate column z with this effect on the root's state (log-odds of state s against 0 per unit of z: SLOPE·s; symmetric and general models)")
	f.BoolVar(&o.json, "json", false, "print a JSON summary (on standard output, or on standard error when an output goes to standard output)")
	return c
}

// parseRange parses the value "k" or "a..b" of the flag named flag.
func parseRange(flag, s string) (lo, hi int, err error) {
	if a, b, ok := strings.Cut(s, ".."); ok {
		if _, err := fmt.Sscanf(a+" "+b, "%d %d", &lo, &hi); err != nil {
			return 0, 0, usagef("%s %q: want k or a..b", flag, s)
		}
		return lo, hi, nil
	}
	if _, err := fmt.Sscanf(s, "%d", &lo); err != nil {
		return 0, 0, usagef("%s %q: want k or a..b", flag, s)
	}
	return lo, lo, nil
}

func buildTopology(o *simulateOpts, rng *rand.Rand) (*tree.Tree, error) {
	switch o.topology {
	case "star":
		return simulate.Star(o.leaves)
	case "double-star", "doublestar":
		l2 := o.leaves2
		if l2 == 0 {
			l2 = o.leaves
		}
		return simulate.DoubleStar(o.leaves, l2)
	case "hmm":
		return simulate.HMM(o.hidden)
	case "complete":
		return simulate.CompleteKary(o.degree, o.depth)
	case "binary":
		return simulate.RandomBinary(rng, o.leaves, o.beta)
	case "minimal", "random":
		return simulate.RandomMinimal(rng, o.leaves, simulate.MinimalOptions{})
	}
	return nil, usagef("unknown --topology %q (want star, double-star, hmm, complete, binary or minimal)", o.topology)
}

func runSimulate(e *env, cmd *cobra.Command, o *simulateOpts) error {
	start := time.Now()
	if o.rows < 0 {
		return usagef("%s %d: want 0 or more rows", flagName(cmd, "rows"), o.rows)
	}
	// The data go to --out, or to standard output without it; any other
	// output on standard output is then an error, not mixed into the CSV.
	dataOut := o.out
	dataFlag := "--out"
	if dataOut == "" && o.rows > 0 {
		dataOut, dataFlag = "-", "the data (no --out)"
	}
	paths := []pathFlag{{dataFlag, dataOut}, {"--newick", o.newick}, {"--tree-json", o.treeJSON}, {"--model-json", o.modelJSON}, {"--distances", o.distances}}
	if err := e.checkPaths(nil, paths); err != nil {
		return err
	}
	rng := rand.New(seed.New(o.seed, seed.Simulate))
	t, err := buildTopology(o, rng)
	if err != nil {
		return err
	}
	if err := simulate.CheckRows(t, o.rows); err != nil {
		return usagef("%s: %v", flagName(cmd, "rows"), err)
	}
	var (
		m     model.Model
		dist  []float64
		distE error
	)
	obs := t.Observed()
	switch o.model {
	case "gaussian":
		g, err := simulate.Gaussian(rng, t, simulate.GaussianOptions{RhoMin: o.rhoMin, RhoMax: o.rhoMax})
		if err != nil {
			return usageError{err}
		}
		m, dist = g, g.Distances(obs)
	case "symmetric":
		s, err := simulate.Symmetric(rng, t, simulate.SymmetricOptions{States: o.states, ThetaMin: o.thetaMin, ThetaMax: o.thetaMax})
		if err != nil {
			return usageError{err}
		}
		m = s
		dist, distE = s.Distances(obs)
	case "general":
		opt := simulate.GeneralOptions{ObservedStates: o.obsStates, Mu: o.mu, Alpha: o.alpha}
		if o.hiddenStates != "" {
			lo, hi, err := parseRange("--hidden-states", o.hiddenStates)
			if err != nil {
				return err
			}
			opt.HiddenMin, opt.HiddenMax = lo, hi
		}
		if opt.Scheme, err = simulate.ParseCPTScheme(o.cpt); err != nil {
			return usagef("unknown --cpt %q (want dirichlet or perturbed)", o.cpt)
		}
		g, err := simulate.General(rng, t, opt)
		if err != nil {
			return usageError{err}
		}
		m = g
		dist, distE = g.Distances(obs)
	case "mixed":
		opt, err := mixedOptions(cmd, o)
		if err != nil {
			return err
		}
		mx, err := simulate.Mixed(rng, t, opt)
		if err != nil {
			return usageError{err}
		}
		m = mx
		dist, distE = mx.InformationDistances(obs)
	default:
		return usagef("unknown --model %q (want gaussian, symmetric, general or mixed)", o.model)
	}
	var (
		outs []output
		cov  *data.Dataset
	)
	if cmd.Flags().Changed("covariate") {
		dm, ok := m.(*discrete.Model)
		if !ok {
			return usagef("--covariate needs a discrete model (--model symmetric or general), not %s", o.model)
		}
		if o.distances != "" {
			return usagef("--covariate with --distances: the observed variables' distances under a covariate depend on the rows")
		}
		if cov, err = simulate.Covariate(rng, dm, o.rows, simulate.CovariateOptions{Slope: o.covariate}); err != nil {
			return usageError{err}
		}
	}
	if o.distances != "" {
		if distE != nil {
			return fmt.Errorf("cannot write --distances: %w", distE)
		}
		names := make([]string, len(obs))
		for i, v := range obs {
			names[i] = t.Name(v)
		}
		dm, err := distance.NewMatrix(names)
		if err != nil {
			return err
		}
		n := len(obs)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				dm.Set(i, j, dist[i*n+j])
			}
		}
		outs = append(outs, output{o.distances, func(w io.Writer) error { return distance.WriteCSV(w, dm) }})
	}
	outs = append(outs, treeOutputs(t, o.newick, o.treeJSON, "", nil)...)
	if o.modelJSON != "" {
		prov := simulatedModelProvenance(cmd)
		outs = append(outs, output{o.modelJSON, func(w io.Writer) error { return m.WriteJSON(w, prov) }})
	}
	if o.rows > 0 {
		d := cov
		if d == nil {
			if d, err = m.Sample(rng, o.rows); err != nil {
				return err
			}
		}
		write := data.WriteCSV
		if strings.HasSuffix(strings.ToLower(dataOut), ".parquet") {
			write = data.WriteParquet
		}
		outs = append(outs, output{dataOut, func(w io.Writer) error { return write(w, d) }})
	}
	// All files or none: a failure leaves every destination as it was.
	if err := e.writeOutputs(outs); err != nil {
		return err
	}
	summary := map[string]any{
		"topology": o.topology, "model": o.model, "observed": t.NumObserved(), "hidden": t.NumHidden(),
		"edges": t.NumEdges(), "rows": o.rows, "seed": o.seed, "seconds": time.Since(start).Seconds(),
		"samples": o.rows, // the old name of "rows", kept for one release
	}
	if mx, ok := m.(*mixed.Model); ok {
		n := 0
		for _, v := range obs {
			if mx.Kinds[v] == data.Continuous {
				n++
			}
		}
		summary["continuous"] = n
	}
	w := e.summaryWriter(paths)
	if o.json {
		return writeJSON(w, summary)
	}
	if w == e.stdout {
		fmt.Fprintf(w, "simulated %s tree (%d observed, %d hidden), %s model, %d rows, seed %d\n",
			o.topology, t.NumObserved(), t.NumHidden(), o.model, o.rows, o.seed)
	}
	return nil
}

// mixedOptions returns the options of simulate.Mixed the flags give; the
// ends of the correlation range not given by --rho-min or --rho-max are
// the model's defaults.
func mixedOptions(cmd *cobra.Command, o *simulateOpts) (simulate.MixedOptions, error) {
	opt := simulate.MixedOptions{Continuous: o.continuous, ContinuousHidden: o.contHidden, Separation: o.separation}
	if !(o.continuous >= 0 && o.continuous <= 1) {
		return opt, usagef("--continuous %g: want a share in [0, 1]", o.continuous)
	}
	if o.continuous == 0 {
		opt.Continuous = -1 // (0 means the default in MixedOptions)
	}
	if o.contHidden < 0 {
		return opt, usagef("--continuous-hidden %d: want 0 or more", o.contHidden)
	}
	if !(o.separation > 0) {
		return opt, usagef("--separation %g: want a positive number of SDs", o.separation)
	}
	switch {
	case !(o.sepSpread >= 0 && o.sepSpread < 1):
		return opt, usagef("--separation-spread %g: want a relative half-width in [0, 1)", o.sepSpread)
	case o.sepSpread == 0:
		opt.SeparationSpread = -1 // (0 means the default in MixedOptions)
	default:
		opt.SeparationSpread = o.sepSpread
	}
	var err error
	if opt.ObservedMin, opt.ObservedMax, err = parseRange("--leaf-states", o.leafStates); err != nil {
		return opt, err
	}
	if o.hiddenStates != "" {
		if opt.HiddenMin, opt.HiddenMax, err = parseRange("--hidden-states", o.hiddenStates); err != nil {
			return opt, err
		}
	}
	if cmd.Flags().Changed("alpha") { // (the flags' defaults are the other models')
		opt.Alpha = o.alpha
	}
	if cmd.Flags().Changed("rho-min") {
		opt.RhoMin = o.rhoMin
	}
	if cmd.Flags().Changed("rho-max") {
		opt.RhoMax = o.rhoMax
	}
	return opt, nil
}

// simulatedModelProvenance records the flags a simulated model was made
// with (outputs aside).
func simulatedModelProvenance(cmd *cobra.Command) *model.Provenance {
	opts := map[string]any{}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch f.Name {
		case "out", "newick", "tree-json", "model-json", "distances", "json":
		default:
			if f.Deprecated == "" {
				opts[f.Name] = f.Value.String()
			}
		}
	})
	return &model.Provenance{Created: time.Now().UTC().Format(time.RFC3339), Software: "latentree", Method: "simulate", Options: opts}
}
