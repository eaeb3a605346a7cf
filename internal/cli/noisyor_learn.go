package cli

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/noisyor"
	"github.com/latentree/latentree/noisyor/quartetlearn"
)

func init() { noisyorSubcommands = append(noisyorSubcommands, newNoisyorLearnCmd) }

type noisyorLearnOpts struct {
	out, exact      string
	asJSON          bool
	rankTol, pmiTol float64
	test            string
	maxDepth        int
	maxQuartets     int
	pairZ           float64
	seed            uint64
	spreadTol       float64
	polish          string
	noPrune         bool
	paper           bool
	residualZ       float64
	holdout         float64
}

func newNoisyorLearnCmd(e *env) *cobra.Command {
	o := &noisyorLearnOpts{}
	df := &dataFlags{}
	c := &cobra.Command{
		Use:   "learn DATA.csv | --exact NETWORK.json",
		Short: "Learn a noisy-or network's sources, edges and parameters with quartet tests",
		Long: `learn discovers the hidden sources of binary data, their children and every
parameter (priors, failure probabilities, leaks) with the quartet method of
Jernite, Halpern & Sontag (NIPS 2013). DATA.csv has a header of effect names and
0/1 cells (also false/true, no/yes); "-" reads standard input.

Round d tests candidate quartets of effects, with the sources of earlier rounds
subtracted off: PRETEST (every triplet shares a parent: PMI − CPMI > --pmi-tol)
and the rank test (the third singular value of each 4×4 unfolding ≤ --rank-tol)
find singly-coupled quartets; MIXTURE gives a source's prior and failures from
one, EXTEND its other children by conditional PMI. Rounds continue until one
finds nothing; a source's depth is the round that found it. Leaks are what the
sources leave unexplained. On data τq defaults to 0.5/√rows, the largest standard
error of a cell of the quartet's table (0.011 at 2,000 rows, where the paper used
0.01; 0.005 at 10,000). τe defaults
to an adaptive rule (the gap must exceed 0.005, 0.2·(PMI − 1) and 4 standard
errors of its estimate from the counts), which finds weak sources (priors of a
few percent, failures near 0.5) that the paper's fixed τe = 0.1 misses; give
--pmi-tol 0.1 for the paper's rule. Sources are kept only when they improve the
BIC of their children's columns (quartets can pass the tests by chance, mostly
after subtracting off; --no-prune keeps them all); the summary counts the ones
dropped.

That is the paper's algorithm (--paper runs it alone). Real data are seldom a
network whose every source has a singly-coupled quartet (topics of words
overlap; effects have several parents), so by default a residual stage follows:
pairs of effects more dependent than the learned network explains (log PMI above
the network's by more than --residual-z standard errors; default a Bonferroni
bound of level 0.05 over the pairs) seed candidate sources, whose children are
the effects dependent on the pair's cluster and whose parameters start from
MIXTURE on the residual moments; each candidate that improves the BIC of its
members' columns (EM on those alone) is added and the whole network polished by
exact EM, and kept only when the BIC improves; edges that cannot pay for
themselves are trimmed, one at a time at the end. The summary reports every stage's candidates tested
and accepted and the thresholds used. On simulated networks that the quartets
recover, the residual stage finds no candidate and changes nothing.

--holdout F learns from a seeded random 1 − F of the rows and reports the
log-likelihood per row of the held-out F (exact, or by importance sampling for
rows beyond score's --max-exact, said in the summary).

--exact NETWORK.json runs the same algorithm on the exact moments of a given
network ("infinite data"), to see which sources the method can identify and at
which depth; its thresholds default to 1e-9.

The network is written to --out as a latentree model file of type noisy-or
(sources with prior, children and failures, depth, quartet and singular values;
leaks), which score and infer read.`,
		Example: `  latentree noisyor simulate --network image --rows 10000 --out img.csv --model truth.json
  latentree noisyor learn img.csv --out net.json
  latentree noisyor learn --exact truth.json --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.exact != "" {
				if len(args) != 0 {
					return usagef("learn takes DATA.csv or --exact NETWORK.json, not both")
				}
				return nil
			}
			if len(args) != 1 {
				return usagef("learn needs one DATA.csv argument (or --exact NETWORK.json)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := o.options(cmd)
			if err != nil {
				return err
			}
			input := pathFlag{flag: "--exact", path: o.exact}
			if o.exact == "" {
				input = pathFlag{flag: "DATA", path: args[0]}
			}
			outs := []pathFlag{{"--out", o.out}}
			if err := e.checkPaths([]pathFlag{input}, outs); err != nil {
				return err
			}
			var res *quartetlearn.Result
			var test *noisyor.Binary
			var held *noisyor.Score
			if o.exact != "" {
				net, err := e.readNoisyor(o.exact)
				if err != nil {
					return err
				}
				if res, err = quartetlearn.LearnExact(net, opt); err != nil {
					return err
				}
			} else {
				b, d, err := e.readBinary(args[0], df)
				if err != nil {
					return err
				}
				if o.holdout > 0 {
					if b, test, err = holdoutSplit(d, o.holdout, o.seed); err != nil {
						return err
					}
				}
				if res, err = quartetlearn.Learn(b, opt); err != nil {
					return err
				}
				if test != nil {
					if held, err = heldOut(res.Network, test); err != nil {
						return err
					}
				}
			}
			prov := provenance("quartet", input.path, res.Rows, cmd, nil, nil)
			if o.exact != "" {
				prov.Method = "quartet-exact"
				prov.Data = nil
			} else if res.Polish != nil {
				prov.Method = "quartet+em"
				if len(res.Stages) > 1 && res.Stages[1].Accepted+res.Stages[1].Extended > 0 {
					prov.Method = "quartet+residual+em"
				}
			}
			if o.out != "" {
				if err := e.writeOutputs([]output{{o.out, func(w io.Writer) error { return res.Network.WriteJSON(w, prov) }}}); err != nil {
					return err
				}
			}
			w := e.summaryWriter(outs)
			if o.asJSON {
				return writeJSON(w, noisyorLearnJSON(res, input.path, held))
			}
			printNoisyorLearn(w, res, input.path, held)
			return nil
		},
	}
	f := c.Flags()
	f.StringVarP(&o.out, "out", "o", "", `write the learned network (model JSON) here ("-" for standard output)`)
	f.StringVar(&o.exact, "exact", "", "learn from the exact moments of this noisy-or model file instead of data")
	f.BoolVar(&o.asJSON, "json", false, "print the summary as JSON")
	f.Float64Var(&o.rankTol, "rank-tol", 0, "τq: largest third singular value of a singly-coupled quartet's unfoldings (default 0.5/√rows on data, 1e-9 with --exact; the paper used 0.01)")
	f.Float64Var(&o.pmiTol, "pmi-tol", 0, "τe: PMI − CPMI above which three effects share a parent, in PRETEST and EXTEND (default: adaptive on data, 1e-9 with --exact; 0.1 is the paper's)")
	f.BoolVar(&o.noPrune, "no-prune", false, "keep every source found (by default a source must improve the BIC of its children's columns)")
	f.StringVar(&o.test, "test", "rank", "singly-coupled test: rank, or coherence (MIXTURE on the triplets agrees and reproduces the quartet within --rank-tol)")
	f.Float64Var(&o.spreadTol, "spread-tol", 0, "--test coherence: a quartet passes only if the source's prior, estimated separately from each of its four triplets of effects, "+
		"varies by at most this (max − min; default 0.05). Smaller is stricter, fewer spurious sources; raise it (e.g. 0.1) on few rows, where estimates of a true source scatter more")
	f.IntVar(&o.maxDepth, "max-depth", -1, "stop after this depth (-1: until a round finds nothing)")
	f.IntVar(&o.maxQuartets, "max-quartets", quartetlearn.DefaultMaxQuartets, "candidate quartets tested per round at most; beyond, that many are sampled")
	f.Float64Var(&o.pairZ, "pair-z", quartetlearn.DefaultPairZ, "candidate quartets are formed only from effects that are pairwise dependent; two effects count as dependent when their correlation is this many standard errors above 0 "+
		"(a one-sided z-test, z = correlation·√rows). Lower finds the quartets of weaker sources but tests many more quartets (slower, more chance passes); higher is faster and may miss weak sources")
	f.StringVar(&o.polish, "polish", "em", "finish the parameters on data: em (maximum-likelihood EM with the learned structure fixed) or none (the paper's moment estimates)")
	f.BoolVar(&o.paper, "paper", false, "run the paper's quartet algorithm alone (no residual stage)")
	f.Float64Var(&o.residualZ, "residual-z", 0, "residual stage: a pair of effects seeds a candidate source when its log PMI exceeds the network's by this many standard errors "+
		"(default: the one-sided Bonferroni bound of level 0.05 over the pairs, 4.26 for 100 effects)")
	f.Float64Var(&o.holdout, "holdout", 0, "learn from a random 1 − F of the rows (drawn with --seed) and report the log-likelihood per row of the other F (0 < F < 1)")
	f.Uint64Var(&o.seed, "seed", seed.Default, "seed for sampling candidate quartets (only when there are more than --max-quartets) and for --holdout's split")
	df.register(f)
	for _, name := range []string{"discrete", "continuous", "max-states", "drop-constant"} {
		_ = f.MarkHidden(name)
	}
	return c
}

func (o *noisyorLearnOpts) options(cmd *cobra.Command) (quartetlearn.Options, error) {
	var opt quartetlearn.Options
	t, err := quartetlearn.ParseTest(o.test)
	if err != nil {
		return opt, usagef("--test %q: want rank or coherence", o.test)
	}
	if o.rankTol < 0 || o.rankTol >= 1 {
		return opt, usagef("--rank-tol %v: want a value in [0, 1) (0: the default)", o.rankTol)
	}
	if o.pmiTol < 0 {
		return opt, usagef("--pmi-tol %v: want a value ≥ 0 (0: the default)", o.pmiTol)
	}
	if o.spreadTol < 0 {
		return opt, usagef("--spread-tol %v: want a value ≥ 0", o.spreadTol)
	}
	if cmd.Flags().Changed("spread-tol") && t != quartetlearn.TestCoherence {
		return opt, usagef("--spread-tol applies only to --test coherence")
	}
	if o.maxDepth < -1 {
		return opt, usagef("--max-depth %d: want -1 (no limit) or a depth ≥ 0", o.maxDepth)
	}
	if o.maxQuartets < 1 {
		return opt, usagef("--max-quartets %d: want at least 1", o.maxQuartets)
	}
	if !(o.pairZ > 0) {
		return opt, usagef("--pair-z %v: want a positive z-score", o.pairZ)
	}
	if o.exact != "" && cmd.Flags().Changed("pair-z") {
		return opt, usagef("--pair-z applies to data, not to --exact")
	}
	pol, err := quartetlearn.ParsePolish(o.polish)
	if err != nil {
		return opt, usagef("--polish %q: want em or none", o.polish)
	}
	if o.exact != "" && cmd.Flags().Changed("polish") {
		return opt, usagef("--polish applies to data, not to --exact (exact moments give exact parameters)")
	}
	if o.exact != "" && o.noPrune {
		return opt, usagef("--no-prune applies to data, not to --exact")
	}
	if o.residualZ < 0 || math.IsNaN(o.residualZ) || math.IsInf(o.residualZ, 0) {
		return opt, usagef("--residual-z %v: want a finite value ≥ 0 (0: the default)", o.residualZ)
	}
	if o.exact != "" && (o.paper || o.residualZ != 0 || o.holdout != 0) {
		return opt, usagef("--paper, --residual-z and --holdout apply to data, not to --exact (which runs the paper's algorithm)")
	}
	if o.paper && o.residualZ != 0 {
		return opt, usagef("--residual-z applies to the residual stage, which --paper turns off")
	}
	if o.holdout < 0 || o.holdout >= 1 || math.IsNaN(o.holdout) {
		return opt, usagef("--holdout %v: want a fraction of the rows in (0, 1)", o.holdout)
	}
	opt = quartetlearn.Options{Paper: o.paper, ResidualZ: o.residualZ, RankTol: o.rankTol, PMITol: o.pmiTol, Test: t, SpreadTol: o.spreadTol,
		PairZ: o.pairZ, MaxQuartets: o.maxQuartets, Src: seed.New(o.seed, seed.QuartetLearn), Polish: pol, NoPrune: o.noPrune}
	if o.maxDepth >= 0 {
		opt.MaxRounds = o.maxDepth + 1
	}
	return opt, nil
}

// readNoisyor reads a noisy-or model file.
func (e *env) readNoisyor(path string) (*noisyor.Network, error) {
	r, name, err := e.openInput(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	n, _, err := noisyor.ReadJSON(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

// holdoutSplit splits the rows of d at random (seeded) into a training
// part of 1 − frac of them and a held-out part.
func holdoutSplit(d *data.Dataset, frac float64, sd uint64) (*noisyor.Binary, *noisyor.Binary, error) {
	n := d.NumRows()
	k := int(math.Round(frac * float64(n)))
	if k < 1 || k >= n {
		return nil, nil, usagef("--holdout %v of %d rows holds out %d; want at least one row on each side", frac, n, k)
	}
	perm := rand.New(seed.New(sd, seed.Sample)).Perm(n)
	test, train := perm[:k], perm[k:]
	slices.Sort(test)
	slices.Sort(train)
	var parts [2]*noisyor.Binary
	for i, rows := range [][]int{train, test} {
		sub, err := d.Rows(rows)
		if err != nil {
			return nil, nil, err
		}
		if parts[i], err = noisyor.NewBinary(sub); err != nil {
			return nil, nil, err
		}
	}
	return parts[0], parts[1], nil
}

// heldOut scores the network on the held-out rows.
func heldOut(n *noisyor.Network, test *noisyor.Binary) (*noisyor.Score, error) {
	l, err := n.LogLikelihood(test, noisyor.LikOptions{})
	if err != nil {
		return nil, err
	}
	return n.Score(l, test.Rows), nil
}

// sourceLabel is the stage that found a source: its depth when the quartet
// stage did, "residual" otherwise.
func sourceLabel(s noisyor.Source) string {
	if s.Learned != nil {
		return fmt.Sprint(s.Learned.Depth)
	}
	return "residual"
}

// topChildren names a source by its strongest children (lowest failures
// first), at most k of them.
func topChildren(net *noisyor.Network, s noisyor.Source, k int, withFail bool) string {
	var parts []string
	for i, c := range strongestFirst(s.Children) {
		if i == k {
			parts = append(parts, "…")
			break
		}
		if withFail {
			parts = append(parts, fmt.Sprintf("%s %.3f", net.Effects[c.Effect], c.Failure))
		} else {
			parts = append(parts, net.Effects[c.Effect])
		}
	}
	return strings.Join(parts, ", ")
}

func noisyorLearnJSON(res *quartetlearn.Result, input string, held *noisyor.Score) map[string]any {
	net := res.Network
	type src struct {
		Name      string      `json:"name"`
		Stage     string      `json:"stage"`
		Depth     *int        `json:"depth,omitempty"`
		Prior     float64     `json:"prior"`
		Children  int         `json:"children"`
		Strongest []string    `json:"strongest"`
		Quartet   []string    `json:"quartet,omitempty"`
		Singular  *[3]float64 `json:"singular,omitempty"`
	}
	srcs := make([]src, len(net.Sources))
	for i, s := range net.Sources {
		srcs[i] = src{Name: s.Name, Stage: "residual", Prior: s.Prior, Children: len(s.Children)}
		for k, c := range strongestFirst(s.Children) {
			if k == 5 {
				break
			}
			srcs[i].Strongest = append(srcs[i].Strongest, net.Effects[c.Effect])
		}
		if p := s.Learned; p != nil {
			d, sv := p.Depth, p.Singular
			srcs[i].Stage, srcs[i].Depth, srcs[i].Singular = "quartets", &d, &sv
			for _, a := range p.Quartet {
				srcs[i].Quartet = append(srcs[i].Quartet, net.Effects[a])
			}
		}
	}
	doc := map[string]any{
		"input": input, "rows": res.Rows, "effects": net.NumEffects(), "sources": srcs,
		"edges": net.NumEdges(), "rounds": res.Rounds, "seconds": res.Time.Seconds(),
		"stages": res.Stages, "rank_tol": res.RankTol, "pmi_tol": res.PMITol,
	}
	if res.ResidualZ > 0 {
		doc["residual_z"] = res.ResidualZ
	}
	if held != nil {
		doc["holdout"] = held
	}
	if res.Rows > 0 {
		dropped := make([]map[string]any, len(res.Dropped))
		for i, s := range res.Dropped {
			dropped[i] = map[string]any{"depth": s.Learned.Depth, "prior": s.Prior, "children": len(s.Children)}
		}
		doc["dropped"] = dropped
	}
	if res.Polish != nil {
		doc["polish"] = map[string]any{"method": "em", "iterations": res.Polish.Iterations, "converged": res.Polish.Converged,
			"loglik": res.Polish.LogLik, "seconds": res.Polish.Duration.Seconds()}
	} else if res.PolishSkipped != "" {
		doc["polish_skipped"] = res.PolishSkipped
	}
	return doc
}

func printNoisyorLearn(w io.Writer, res *quartetlearn.Result, input string, held *noisyor.Score) {
	net := res.Network
	what := fmt.Sprintf("%d rows", res.Rows)
	if res.Rows == 0 {
		what = "exact moments"
	}
	fmt.Fprintf(w, "%s: %d effects, %s: %d sources, %d edges in %s\n", input, net.NumEffects(), what,
		net.NumSources(), net.NumEdges(), res.Time.Round(time.Millisecond))
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "depth\tquartets\tpretest\tpassed\tsources\tedges\ttime")
	for _, r := range res.Rounds {
		c := fmt.Sprint(r.Candidates)
		if r.Sampled {
			c += " (sampled)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%s\n", r.Depth, c, r.Pretest, r.Passed, r.Sources, r.Edges, r.Time.Round(time.Millisecond))
	}
	tw.Flush()
	if k := len(res.Dropped); k > 0 {
		fmt.Fprintf(w, "dropped %d source(s) that did not improve the BIC of their children's columns (--no-prune keeps them)\n", k)
	}
	if res.Rows > 0 {
		fmt.Fprintf(w, "thresholds: τq %.4g, τe %s", res.RankTol, pmiRule(res))
		if res.ResidualZ > 0 {
			fmt.Fprintf(w, ", residual z %.2f", res.ResidualZ)
		}
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "stage\ttested\taccepted\ttime")
		for _, st := range res.Stages {
			what := "quartets"
			if st.Name != "quartets" {
				what = "sources"
			}
			acc := fmt.Sprintf("%d sources", st.Accepted)
			if st.Extended > 0 {
				acc += fmt.Sprintf(", %d extended", st.Extended)
			}
			if st.Removed > 0 {
				acc += fmt.Sprintf(" (%d removed by trimming)", st.Removed)
			}
			fmt.Fprintf(tw, "%s\t%d %s\t%s\t%s\n", st.Name, st.Tested, what, acc, st.Time.Round(time.Millisecond))
		}
		tw.Flush()
	}
	if p := res.Polish; p != nil {
		conv := "converged"
		if !p.Converged {
			conv = "not converged"
		}
		what := "moment estimates polished by EM with the structure fixed"
		if len(res.Stages) > 1 && res.Stages[1].Accepted+res.Stages[1].Extended > 0 {
			what = "the network after the residual stage polished by EM to convergence"
		}
		fmt.Fprintf(w, "parameters: %s: %d updates (%s), log-likelihood %.2f (%.4f per row), %s\n", what,
			p.Iterations, conv, p.LogLik, p.LogLik/float64(max(1, res.Rows)), p.Duration.Round(time.Millisecond))
	} else if res.PolishSkipped != "" {
		fmt.Fprintf(w, "parameters: the moment estimates (EM polish skipped: %s)\n", res.PolishSkipped)
	}
	if held != nil {
		fmt.Fprintf(w, "held out: %d rows, log-likelihood %.2f (%.4f per row)", held.Rows, held.LogLik, held.PerRow)
		if held.Estimated > 0 {
			fmt.Fprintf(w, ", %d rows estimated (standard error %.2f)", held.Estimated, held.StdErr)
		}
		if held.NonPositive > 0 {
			fmt.Fprintf(w, ", %d rows of probability 0 left out", held.NonPositive)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "source\tdepth\tprior\tchildren\tstrongest children (failure)")
	for _, s := range net.Sources {
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%d\t%s\n", s.Name, sourceLabel(s), s.Prior, len(s.Children), topChildren(net, s, 6, true))
	}
	tw.Flush()
}

// pmiRule describes the τe the quartet stage used.
func pmiRule(res *quartetlearn.Result) string {
	if res.PMITolAdaptive {
		return fmt.Sprintf("adaptive (gap > %.3g, > %.2g·(PMI − 1) and > %.0f standard errors)", res.PMITol, quartetlearn.DefaultPMIRel, quartetlearn.DefaultPMIZ)
	}
	return fmt.Sprintf("%.4g", res.PMITol)
}
