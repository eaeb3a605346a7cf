package cli

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/quartet"
	"github.com/latentree/latentree/regcl"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

type learnOpts struct {
	df         dataFlags
	method     string
	distances  string
	distKind   string
	rank       int
	pseudo     float64
	samples    int
	contract   float64
	tau, eps   float64
	grouping   string
	rangeStat  bool
	newick     string
	treeJSON   string
	dot        string
	json       bool
	verbose    bool
	em         emFlags
	structOnly bool
	out        string
	keepHidden bool
	maxHidden  int
	qtest      string
	qk, qreps  int
	qorder     string
	qcands     int
}

func newLearnCmd(e *env) *cobra.Command {
	o := &learnOpts{}
	c := &cobra.Command{
		Use:   "learn [DATA.csv]",
		Short: "Learn a latent tree structure from data or from a distance matrix",
		Long: `learn estimates information distances between the observed variables of a
dataset (Gaussian −log|ρ| for continuous columns, the determinant distance of
Lake 1994 for discrete ones, or its rank-k form with --rank) and learns a
latent tree over them with one of the methods of Choi et al. (JMLR 2011):

  clnj      Chow–Liu tree, then neighbor joining on every neighbourhood (default)
  clrg      Chow–Liu tree, then recursive grouping on every neighbourhood
  nj        neighbor joining (Saitou & Nei 1987), observed variables at leaves
  rg        recursive grouping
  clblind   Chow–Liu tree with the blind transformation
  chowliu   the Chow–Liu tree itself (no hidden variables)
  regclnj   regularized CLNJ (§6.4): neighbourhood subtrees kept only when they
            improve the BIC, so the data choose the number of hidden variables
  regclrg   regularized CLRG
  quartet   divide-and-conquer binary tree from quartet tests (Ishteva et al.
            2013): --test nuclear (no number of hidden states needed) or
            spectral --k K

With --distances it reads a distance matrix (CSV with a header row of names, or
PHYLIP) instead of data; pass --samples to set the thresholds of RG as for
distances estimated from that many samples.

The tree is written with --newick, --tree-json and --dot (hidden nodes named
h1, h2, ...); the summary goes to standard output (--json for machines).`,
		Example: `  latentree simulate --topology hmm --hidden 78 -n 10000 --seed 1 --out hmm.csv --newick true.nwk
  latentree learn hmm.csv --method clrg --newick learned.nwk
  latentree compare true.nwk learned.nwk

  latentree learn --distances d.csv --method nj --contract -1 --newick nj.nwk`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runLearn(e, o, args) },
	}
	f := c.Flags()
	o.df.register(f)
	f.StringVarP(&o.method, "method", "m", "clnj", "clnj, clrg, nj, rg, clblind, chowliu, regclnj or regclrg")
	f.StringVar(&o.qtest, "test", "nuclear", "quartet method: nuclear or spectral test")
	f.IntVar(&o.qk, "k", 2, "quartet method: k for Spectral@k")
	f.IntVar(&o.qreps, "reps", 1, "quartet method: representatives per branch (majority over reps³ tests)")
	f.StringVar(&o.qorder, "order", "closest", "quartet method: insertion order: closest (most dependent first), random (--seed) or given")
	f.IntVar(&o.qcands, "candidates", 8, "quartet method: leaves per branch among which representatives are picked by mutual information (-1: nearest by hops)")
	f.IntVar(&o.maxHidden, "max-hidden", 0, "regclnj/regclrg: stop at this many hidden variables (0: when the BIC stops improving)")
	f.StringVar(&o.distances, "distances", "", "learn from this distance matrix instead of data")
	f.StringVar(&o.distKind, "distance", "auto", "auto, gaussian, discrete or symmetric")
	f.IntVar(&o.rank, "rank", 0, "rank-k discrete distance (product of the top k singular values)")
	f.Float64Var(&o.pseudo, "pseudo", 0, "pseudo-count added to every cell of the pairwise tables")
	f.IntVar(&o.samples, "samples", 0, "sample size behind --distances (sets RG thresholds)")
	f.Float64Var(&o.contract, "contract", 0, "contract edges shorter than this (default −log 0.9; negative: never)")
	f.Float64Var(&o.tau, "tau", 0, "RG threshold τ on distances (default from the sample size)")
	f.Float64Var(&o.eps, "eps", 0, "RG threshold ε on the sibling statistic (default from the sample size)")
	f.StringVar(&o.grouping, "grouping", "silhouette", "RG family detection: silhouette (k-medoids, as the paper's experiments) or threshold")
	f.BoolVar(&o.rangeStat, "range-statistic", false, "use the paper's range statistic Λ (eq. 25) instead of the weighted deviation")
	f.StringVar(&o.newick, "newick", "", "write the tree in Newick format to this file (- for standard output)")
	f.StringVar(&o.treeJSON, "tree-json", "", "write the tree as JSON to this file")
	f.StringVar(&o.dot, "dot", "", "write the tree in Graphviz DOT format to this file")
	f.BoolVar(&o.json, "json", false, "print the summary as JSON")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "also list degenerate pairs")
	f.BoolVar(&o.structOnly, "structure-only", false, "learn the structure only (no EM)")
	f.StringVarP(&o.out, "out", "o", "", "write the fitted model (JSON) to this file")
	f.BoolVar(&o.keepHidden, "keep-hidden-edges", false, "do not contract short edges between hidden nodes (the paper's behaviour)")
	o.em.register(f)
	return c
}

func runLearn(e *env, o *learnOpts, args []string) error {
	start := time.Now()
	if (len(args) == 1) == (o.distances != "") {
		return usagef("give either a data file or --distances, not both or neither")
	}
	var (
		dm        *distance.Matrix
		degen     []distance.Degenerate
		samples   = o.samples
		source    string
		rows      int
		st        *stats.Stats
		statsTime time.Duration
		ds        *data.Dataset
	)
	method := strings.ToLower(o.method)
	if o.distances != "" {
		source = o.distances
		r, name, err := e.openInput(o.distances)
		if err != nil {
			return err
		}
		dm, err = distance.ReadMatrix(r, distance.ReadOptions{Name: name, AllowInf: true})
		r.Close()
		if err != nil {
			return err
		}
		if method == "chowliu" {
			return usagef("chowliu needs data (mutual information); give a data file")
		}
	} else {
		source = args[0]
		d, _, err := e.readData(args[0], &o.df)
		if err != nil {
			return err
		}
		ds = d
		rows = d.NumRows()
		samples = rows
		t0 := time.Now()
		st, err = stats.Compute(d, stats.Options{})
		if err != nil {
			return err
		}
		statsTime = time.Since(t0)
		if method != "chowliu" && method != "quartet" {
			kind := map[string]distance.Kind{"auto": distance.Auto, "gaussian": distance.Gaussian, "discrete": distance.Discrete, "symmetric": distance.Symmetric}
			k, ok := kind[o.distKind]
			if !ok {
				return usagef("unknown --distance %q (want auto, gaussian, discrete or symmetric)", o.distKind)
			}
			dm, degen, err = distance.Information(st, distance.InfoOptions{Kind: k, Rank: o.rank, Pseudo: o.pseudo})
			if err != nil {
				return err
			}
		}
	}
	var (
		t   *tree.Tree
		rep *structure.Report
	)
	t1 := time.Now()
	if method == "regclnj" || method == "regclrg" {
		return e.runRegCL(o, method, ds, source, start, statsTime)
	}
	var qres *quartet.BuildResult
	if method == "quartet" {
		if ds == nil {
			return usagef("the quartet method needs a data file")
		}
		var err error
		if t, qres, err = buildQuartetTree(ds, st, o.qtest, o.qk, o.qreps, o.qorder, o.qcands, o.em.seed); err != nil {
			return err
		}
		rep = &structure.Report{Method: "quartet", Observed: t.NumObserved(), Hidden: t.NumHidden(), Added: t.NumHidden()}
	} else if method == "chowliu" {
		mi, err := distance.MutualInformation(st, o.pseudo)
		if err != nil {
			return err
		}
		if t, err = structure.ChowLiu(st.Names(), mi); err != nil {
			return err
		}
		rep = &structure.Report{Method: "chowliu", Observed: t.NumObserved()}
	} else {
		m, err := structure.ParseMethod(method)
		if err != nil {
			return usageError{err}
		}
		opt := structure.Options{Method: m, Samples: samples, Contract: o.contract, KeepHiddenEdges: o.keepHidden,
			RG: structure.RGOptions{Tau: o.tau, Eps: o.eps, Range: o.rangeStat}}
		switch o.grouping {
		case "silhouette":
			opt.RG.Grouping = structure.GroupSilhouette
		case "threshold":
			opt.RG.Grouping = structure.GroupThreshold
		default:
			return usagef("unknown --grouping %q (want silhouette or threshold)", o.grouping)
		}
		if t, rep, err = structure.Learn(dm, opt); err != nil {
			return err
		}
	}
	learnTime := time.Since(t1)
	t.AutoNameHidden("h")
	var (
		ft *fitted
		sc *model.Score
	)
	if ds != nil && !o.structOnly {
		{
			var err error
			if ft, err = e.fitParams(t, ds, &o.em); err != nil {
				return err
			}
			if sc, err = ft.m.Score(ds, model.InferOptions{}); err != nil {
				return err
			}
			if o.out != "" {
				if err := e.writeTo(o.out, func(w io.Writer) error {
					return writeModel(w, ft.m, provenance(method, args[0], ds.NumRows(), &o.em, ft, sc))
				}); err != nil {
					return err
				}
			}
		}
	} else if o.out != "" {
		return usagef("--out writes a fitted model: it needs a data file and no --structure-only")
	}
	if err := e.writeOutputs(treeOutputs(t, o.newick, o.treeJSON, o.dot)); err != nil {
		return err
	}
	if o.newick == "-" || o.treeJSON == "-" || o.dot == "-" {
		return nil
	}
	if o.json {
		out := map[string]any{
			"source": source, "method": method, "rows": rows, "observed": t.NumObserved(), "hidden": t.NumHidden(),
			"edges": t.NumEdges(), "report": rep, "stats_seconds": statsTime.Seconds(),
			"structure_seconds": learnTime.Seconds(), "total_seconds": time.Since(start).Seconds(),
		}
		if o.verbose || len(degen) <= 50 {
			out["degenerate_pairs"] = degen
		}
		out["degenerate_count"] = len(degen)
		if qres != nil {
			out["quartet_tests"], out["quartet_unresolved"] = qres.Tests, qres.Unresolved
		}
		if ft != nil {
			out["em"], out["em_seconds"], out["score"] = ft.em, ft.seconds, sc
		}
		return writeJSON(e.stdout, out)
	}
	fmt.Fprintf(e.stdout, "%s: %s tree over %d observed variables with %d hidden variables (%d edges)\n",
		source, method, t.NumObserved(), t.NumHidden(), t.NumEdges())
	if rep.Contracted > 0 || rep.Suppressed > 0 {
		fmt.Fprintf(e.stdout, "contracted %d short edges, removed %d redundant hidden nodes\n", rep.Contracted, rep.Suppressed)
	}
	if qres != nil {
		fmt.Fprintf(e.stdout, "%d quartet tests\n", qres.Tests)
	}
	if rep.Tau > 0 {
		fmt.Fprintf(e.stdout, "RG thresholds: τ = %.3g, ε = %.3g\n", rep.Tau, rep.Eps)
	}
	if len(degen) > 0 {
		fmt.Fprintf(e.stdout, "%d pairs have infinite distance (independent or singular)", len(degen))
		if !o.verbose {
			fmt.Fprint(e.stdout, "; -v lists them")
		}
		fmt.Fprintln(e.stdout)
		if o.verbose {
			for _, p := range degen {
				fmt.Fprintf(e.stdout, "  %s – %s: %s\n", p.A, p.B, p.Reason)
			}
		}
	}
	if ft != nil {
		if err := e.printFit(source, ft, sc, false); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "time: statistics %s, structure %s, total %s\n", round(statsTime), round(learnTime), round(time.Since(start)))
	return nil
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

func (e *env) runRegCL(o *learnOpts, method string, ds *data.Dataset, source string, start time.Time, statsTime time.Duration) error {
	if ds == nil {
		return usagef("%s needs a data file (it fits parameters while it learns the structure)", method)
	}
	if err := o.em.parseHidden(); err != nil {
		return err
	}
	if o.em.auto {
		return usagef("%s chooses hidden variables by BIC with a fixed number of states; give --hidden-states a number", method)
	}
	inner := structure.MethodNJ
	if method == "regclrg" {
		inner = structure.MethodRG
	}
	t1 := time.Now()
	res, err := regcl.Learn(ds, regcl.Options{Inner: inner, HiddenStates: o.em.hiddenStates, MaxHidden: o.maxHidden,
		EM:   model.EMOptions{Tol: o.em.tol, MaxIter: o.em.maxIter, Pseudo: o.em.pseudo},
		Rand: rand.New(rand.NewPCG(o.em.seed, 0x4e6))})
	if err != nil {
		return err
	}
	sec := time.Since(t1).Seconds()
	t := res.Tree
	sc, err := res.Model.Score(ds, model.InferOptions{})
	if err != nil {
		return err
	}
	ft := &fitted{m: res.Model, em: res.EM, seconds: sec}
	outs := append(treeOutputs(t, o.newick, o.treeJSON, o.dot), output{o.out, func(w io.Writer) error {
		return res.Model.WriteJSON(w, provenance(method, source, ds.NumRows(), &o.em, ft, sc))
	}})
	if err := e.writeOutputs(outs); err != nil {
		return err
	}
	if o.newick == "-" || o.treeJSON == "-" || o.dot == "-" {
		return nil
	}
	if o.json {
		return writeJSON(e.stdout, map[string]any{
			"source": source, "method": method, "rows": ds.NumRows(), "observed": t.NumObserved(), "hidden": t.NumHidden(),
			"edges": t.NumEdges(), "steps": res.Steps, "candidates_evaluated": res.Evaluated, "em": res.EM, "score": sc,
			"stats_seconds": statsTime.Seconds(), "structure_seconds": sec, "total_seconds": time.Since(start).Seconds(),
		})
	}
	fmt.Fprintf(e.stdout, "%s: %s tree over %d observed variables with %d hidden variables (%d edges)\n",
		source, method, t.NumObserved(), t.NumHidden(), t.NumEdges())
	fmt.Fprintf(e.stdout, "%d subtrees incorporated of %d evaluated\n", len(res.Steps), res.Evaluated)
	if err := e.printFit(source, ft, sc, false); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "time: total %s\n", round(time.Since(start)))
	return nil
}
