package cli

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/noisyor"
)

func init() { noisyorSubcommands = append(noisyorSubcommands, newNoisyorSimulateCmd) }

type noisyorSimOpts struct {
	network                  string
	sources, effects         int
	minChildren, maxChildren int
	medianChildren           float64
	priorMin, priorMax       float64
	failureMin, failureMax   float64
	leak                     float64
	learnable                bool
	subtypes                 float64
	twins, nearTwins         int
	rows                     int
	seed                     uint64
	out, model               string
	json                     bool
}

// The flags that shape each kind of network; the others are rejected.
var noisyorSimFlags = map[string][]string{
	"random": {"sources", "effects", "min-children", "max-children", "prior-min", "prior-max", "failure-min", "failure-max", "leak", "learnable"},
	"qmr": {"sources", "effects", "min-children", "max-children", "median-children", "prior-min", "prior-max", "failure-min", "failure-max",
		"leak", "subtypes", "twins", "near-twins"},
	"image": {},
}

func newNoisyorSimulateCmd(e *env) *cobra.Command {
	o := &noisyorSimOpts{}
	c := &cobra.Command{
		Use:   "simulate",
		Short: "Sample 0/1 data from a noisy-or network: the image network, a random or a QMR-DT-like one",
		Long: `simulate builds a bipartite noisy-or network, samples --rows rows of its
effects as a CSV of 0/1 columns, and writes the true network as a model file
(type noisy-or) with --model.

Networks (--network):
  image    the stand-in for the image network of Šingliar & Hauskrecht used in
           Jernite et al. (2013), Fig. 3: 8 sources (shapes: bars, a cross, a
           block, a frame, a letter L, two diagonals) over 8×8 pixels p0_0..p7_7,
           priors 0.25, failures 0.1, leaks 0.001; the two diagonals are found
           only after one subtraction (depth 1). No other flag applies.
  random   --sources X1.. over --effects e1..; each source draws
           --min-children..--max-children children uniformly, priors and failures
           uniform in their ranges (defaults: 20 sources, 100 effects, 4..12
           children, priors 0.05..0.3, failures 0.05..0.5, leak 0.001).
           --learnable redraws the children of unlearnable sources until every
           source has a singly-coupled quartet at some depth.
  qmr      a network shaped like aQMR-DT (570 diseases D1.. over 4,000 findings
           F1..): log-normal children counts (median --median-children 60, up to
           600), popular findings shared by many diseases, a fraction --subtypes
           (0.17) of diseases that are subtypes of another (depths 1, 2, 3), and
           --twins / --near-twins pairs sharing all children but one / two (never
           learnable); priors log-uniform 0.001..0.05, failures 0.1..0.95, leak 0.01.

--leak 0 means no leaks; --subtypes 0, --twins 0 and --near-twins 0 mean none.

The summary gives the structural depth of every source, as if the quartet
tests were perfect: depth d means the source has a singly-coupled quartet
(four children no other remaining source is a parent of two of) once the
sources of depths below d are subtracted off; -1 means never. Triplet depths
are the same with three children (parameters learnable with known structure).

The CSV goes to --out, or to standard output without it; --rows 0 samples
nothing and writes only the model (to --model, or standard output without
it). Files are written all or none. The summary (or --json, which lists every
source's depths) goes to standard output when it is free, and --json to
standard error otherwise.`,
		Example: `  # the image network of Fig. 3 with 10,000 rows
  latentree noisyor simulate --network image --rows 10000 --seed 1 --out img.csv --model truth.json

  # a random quartet-learnable network of 30 sources over 200 effects
  latentree noisyor simulate --network random --sources 30 --effects 200 --learnable \
      --rows 5000 --out rand.csv --model rand.json

  # the QMR-like network only, with its depth table as JSON
  latentree noisyor simulate --network qmr --rows 0 --model qmr.json --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runNoisyorSimulate(e, cmd, o) },
	}
	f := c.Flags()
	f.StringVar(&o.network, "network", "image", "image, random or qmr")
	f.IntVar(&o.sources, "sources", 0, "number of sources (random: 20, qmr: 570)")
	f.IntVar(&o.effects, "effects", 0, "number of effects (random: 100, qmr: 4000)")
	f.IntVar(&o.minChildren, "min-children", 0, "fewest children of a source (random: 4, qmr: 6)")
	f.IntVar(&o.maxChildren, "max-children", 0, "most children of a source (random: 12, qmr: 600)")
	f.Float64Var(&o.medianChildren, "median-children", 0, "median number of children of an ordinary disease (qmr: 60)")
	f.Float64Var(&o.priorMin, "prior-min", 0, "smallest prior (random: 0.05, qmr: 0.001)")
	f.Float64Var(&o.priorMax, "prior-max", 0, "largest prior (random: 0.3, qmr: 0.05)")
	f.Float64Var(&o.failureMin, "failure-min", 0, "smallest failure probability (random: 0.05, qmr: 0.1)")
	f.Float64Var(&o.failureMax, "failure-max", 0, "largest failure probability (random: 0.5, qmr: 0.95)")
	f.Float64Var(&o.leak, "leak", 0, "leak of every effect, 0 for none (random: 0.001, qmr: 0.01)")
	f.BoolVar(&o.learnable, "learnable", false, "make the random network quartet-learnable")
	f.Float64Var(&o.subtypes, "subtypes", 0, "fraction of diseases that are subtypes of another (qmr: 0.17)")
	f.IntVar(&o.twins, "twins", 0, "pairs of diseases sharing all children but one each (qmr: 1)")
	f.IntVar(&o.nearTwins, "near-twins", 0, "pairs of diseases sharing all children but two each (qmr: 1)")
	f.IntVarP(&o.rows, "rows", "n", 1000, "number of rows to sample (0: none, only the model)")
	f.Uint64Var(&o.seed, "seed", seed.Default, "random seed")
	f.StringVarP(&o.out, "out", "o", "", "write the CSV here instead of standard output")
	f.StringVar(&o.model, "model", "", "write the true network (model JSON) to this file")
	f.BoolVar(&o.json, "json", false, "print a JSON summary (on standard output, or on standard error when an output goes to standard output)")
	return c
}

// buildNoisyorNetwork makes the network the options ask for.
func buildNoisyorNetwork(cmd *cobra.Command, o *noisyorSimOpts, src rand.Source) (*noisyor.Network, error) {
	allowed, ok := noisyorSimFlags[o.network]
	if !ok {
		return nil, usagef("unknown --network %q (want image, random or qmr)", o.network)
	}
	var bad []string
	for _, list := range noisyorSimFlags {
		for _, name := range list {
			if cmd.Flags().Changed(name) && !slices.Contains(allowed, name) {
				bad = append(bad, "--"+name)
			}
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		bad = slices.Compact(bad)
		verb := "does"
		if len(bad) > 1 {
			verb = "do"
		}
		return nil, usagef("%s %s not apply to --network %s", joinFlags(bad), verb, o.network)
	}
	// A flag given as 0 means "none" where the options' zero means the
	// default.
	off := func(name string, v float64) float64 {
		if cmd.Flags().Changed(name) && v == 0 {
			return -1
		}
		return v
	}
	offInt := func(name string, v int) int {
		if cmd.Flags().Changed(name) && v == 0 {
			return -1
		}
		return v
	}
	for _, p := range []struct {
		name string
		v    int
	}{{"sources", o.sources}, {"effects", o.effects}, {"min-children", o.minChildren}, {"max-children", o.maxChildren}} {
		if cmd.Flags().Changed(p.name) && p.v <= 0 {
			return nil, usagef("--%s %d: want a positive number", p.name, p.v)
		}
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"median-children", o.medianChildren}, {"prior-min", o.priorMin}, {"prior-max", o.priorMax}, {"failure-min", o.failureMin}, {"failure-max", o.failureMax}} {
		if cmd.Flags().Changed(p.name) && !(p.v > 0) {
			return nil, usagef("--%s %v: want a positive number", p.name, p.v)
		}
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"leak", o.leak}, {"subtypes", o.subtypes}} {
		if !(p.v >= 0) {
			return nil, usagef("--%s %v: want a number ≥ 0", p.name, p.v)
		}
	}
	if o.twins < 0 || o.nearTwins < 0 {
		return nil, usagef("--twins %d, --near-twins %d: want numbers ≥ 0", o.twins, o.nearTwins)
	}
	var (
		n   *noisyor.Network
		err error
	)
	switch o.network {
	case "image":
		return noisyor.ImageNetwork(), nil
	case "random":
		n, err = noisyor.RandomNetwork(src, noisyor.RandomOptions{
			Sources: o.sources, Effects: o.effects, MinChildren: o.minChildren, MaxChildren: o.maxChildren,
			PriorMin: o.priorMin, PriorMax: o.priorMax, FailureMin: o.failureMin, FailureMax: o.failureMax,
			Leak: off("leak", o.leak), Learnable: o.learnable,
		})
	case "qmr":
		n, err = noisyor.QMRLike(src, noisyor.QMROptions{
			Sources: o.sources, Effects: o.effects, MinChildren: o.minChildren, MaxChildren: o.maxChildren,
			MedianChildren: o.medianChildren, PriorMin: o.priorMin, PriorMax: o.priorMax,
			FailureMin: o.failureMin, FailureMax: o.failureMax, Leak: off("leak", o.leak),
			Subtypes: off("subtypes", o.subtypes), Twins: offInt("twins", o.twins), NearTwins: offInt("near-twins", o.nearTwins),
		})
	}
	if err != nil {
		// Every failure here comes from the options (ranges, or a network
		// too dense to be learnable).
		return nil, usageError{err}
	}
	return n, nil
}

// noisyorSourceDepth is one source of the --json summary.
type noisyorSourceDepth struct {
	Name         string `json:"name"`
	Children     int    `json:"children"`
	Depth        int    `json:"depth"`
	TripletDepth int    `json:"triplet_depth"`
}

type noisyorDepthRow struct {
	Depth   int `json:"depth"`
	Sources int `json:"sources"`
	Edges   int `json:"edges"`
}

func depthRows(t []noisyor.DepthCount) []noisyorDepthRow {
	out := make([]noisyorDepthRow, len(t))
	for i, r := range t {
		out[i] = noisyorDepthRow(r)
	}
	return out
}

func runNoisyorSimulate(e *env, cmd *cobra.Command, o *noisyorSimOpts) error {
	start := time.Now()
	if o.rows < 0 {
		return usagef("--rows %d: want a number ≥ 0", o.rows)
	}
	dataOut, dataFlag := o.out, "--out"
	if o.rows == 0 && o.out != "" {
		return usagef("--out %s with --rows 0: there are no rows to write", o.out)
	}
	if dataOut == "" && o.rows > 0 {
		dataOut, dataFlag = "-", "the data (no --out)"
	}
	modelOut, modelFlag := o.model, "--model"
	if o.rows == 0 && modelOut == "" {
		modelOut, modelFlag = "-", "the model (--rows 0, no --model)"
	}
	paths := []pathFlag{{dataFlag, dataOut}, {modelFlag, modelOut}}
	if err := e.checkPaths(nil, paths); err != nil {
		return err
	}
	n, err := buildNoisyorNetwork(cmd, o, seed.New(o.seed, seed.NoisyOrNetwork))
	if err != nil {
		return err
	}
	var outs []output
	if o.rows > 0 {
		d, err := n.Sample(seed.New(o.seed, seed.NoisyOrRows), o.rows)
		if err != nil {
			return err
		}
		outs = append(outs, output{dataOut, func(w io.Writer) error { return data.WriteCSV(w, d) }})
	}
	if modelOut != "" {
		prov := simulateProvenance(cmd, o.network)
		outs = append(outs, output{modelOut, func(w io.Writer) error { return n.WriteJSON(w, prov) }})
	}
	if err := e.writeOutputs(outs); err != nil {
		return err
	}
	qd, td := noisyor.QuartetDepths(n), noisyor.TripletDepths(n)
	w := e.summaryWriter(paths)
	if o.json {
		src := make([]noisyorSourceDepth, len(n.Sources))
		for i, s := range n.Sources {
			src[i] = noisyorSourceDepth{Name: s.Name, Children: len(s.Children), Depth: qd[i], TripletDepth: td[i]}
		}
		return writeJSON(w, map[string]any{
			"network": o.network, "sources": n.NumSources(), "effects": n.NumEffects(), "edges": n.NumEdges(),
			"rows": o.rows, "seed": o.seed, "seconds": time.Since(start).Seconds(),
			"depths": depthRows(noisyor.DepthTable(n, qd)), "triplet_depths": depthRows(noisyor.DepthTable(n, td)),
			"source_depths": src,
		})
	}
	if w != e.stdout {
		return nil
	}
	fmt.Fprintf(w, "simulated %s network (%d sources, %d effects, %d edges), %d rows, seed %d\n",
		o.network, n.NumSources(), n.NumEffects(), n.NumEdges(), o.rows, o.seed)
	for _, kind := range []struct {
		name  string
		depth []int
	}{{"quartet", qd}, {"triplet", td}} {
		for _, r := range noisyor.DepthTable(n, kind.depth) {
			fmt.Fprintf(w, "%s depth %2d: %4d sources, %6d edges", kind.name, r.Depth, r.Sources, r.Edges)
			if n.NumSources() <= 30 && r.Sources > 0 {
				var names []string
				for s, d := range kind.depth {
					if d == r.Depth {
						names = append(names, n.Sources[s].Name)
					}
				}
				fmt.Fprintf(w, " (%s)", strings.Join(names, " "))
			}
			fmt.Fprintln(w)
		}
	}
	return nil
}

// simulateProvenance records the flags a simulated network was made with.
func simulateProvenance(cmd *cobra.Command, network string) *model.Provenance {
	opts := map[string]any{}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Name != "out" && f.Name != "model" && f.Name != "json" && f.Name != "rows" {
			opts[f.Name] = f.Value.String()
		}
	})
	return &model.Provenance{
		Created:  time.Now().UTC().Format(time.RFC3339),
		Software: "latentree",
		Method:   "noisyor simulate --network " + network,
		Options:  opts,
	}
}
