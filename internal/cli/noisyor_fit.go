package cli

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/noisyor"
	"github.com/latentree/latentree/noisyor/vem"
)

func init() { noisyorSubcommands = append(noisyorSubcommands, newNoisyorFitCmd) }

type noisyorFitOpts struct {
	out        string
	asJSON     bool
	method     string
	sources    int
	restarts   int
	maxIter    int
	tol        float64
	leak       float64
	fixLeak    bool
	maxFailure float64
	seed       uint64
}

func newNoisyorFitCmd(e *env) *cobra.Command {
	o := &noisyorFitOpts{}
	df := &dataFlags{}
	c := &cobra.Command{
		Use:   "fit DATA.csv --sources K",
		Short: "Fit a noisy-or network with K sources by variational EM",
		Long: `fit learns a noisy-or network with a given number of hidden sources (--sources)
from binary data by variational EM (--method vem, the only method): the
baseline of Jernite, Halpern & Sontag (NIPS 2013), after Šingliar & Hauskrecht
(JMLR 2006) with the bounds of Jaakkola & Jordan (1999). DATA.csv has a header
of effect names and 0/1 cells (also false/true, no/yes); "-" reads standard
input; with --missing keep, missing cells are marginalised.

Every source may cause every effect. Negative findings enter exactly; each
positive finding is bounded below by Jensen's inequality with a distribution
over its possible causes, which makes the posterior over the sources factorise
and gives a lower bound on the log-likelihood ("the bound"). The E-step
optimises those distributions and the posteriors row by row, the M-step the
priors, the failure probabilities and the leaks (unless --fix-leak). A start
stops when the bound changes by at most --tol relative, or after --max-iter
E-steps. --restarts random starts are run (priors and failures drawn with
--seed) and the one with the highest bound is kept: the paper's protocol is 16;
single starts often end in poor local optima (a source that dies, two merged).

The network is written to --out as a latentree model file of type noisy-or,
sources named X1..XK by decreasing prior, without the edges whose failure
exceeds --max-failure (sampling noise leaves many weak edges near 1); its
provenance records the options, the data file and the bound. The summary gives
the bound of every start.`,
		Example: `  latentree noisyor simulate --network image --rows 10000 --out img.csv --model truth.json
  latentree noisyor fit img.csv --sources 8 --out vem.json
  latentree noisyor fit img.csv --method vem --sources 8 --restarts 4 --seed 2 --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("fit needs one DATA.csv argument")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := o.options(cmd)
			if err != nil {
				return err
			}
			outs := []pathFlag{{"--out", o.out}}
			if err := e.checkPaths([]pathFlag{{"DATA", args[0]}}, outs); err != nil {
				return err
			}
			b, _, err := e.readBinary(args[0], df)
			if err != nil {
				return err
			}
			bar := e.newProgress(opt.Restarts, "VEM starts")
			last := 0
			opt.Progress = func(start, _ int, _ float64) {
				if start > last {
					bar.Add(start - last)
					last = start
				}
			}
			res, err := vem.Fit(b, opt)
			bar.Finish()
			if err != nil {
				return err
			}
			if o.out != "" {
				prov := provenance("vem", args[0], b.Rows, cmd, nil, nil)
				o.record(prov.Options, res, b.Rows)
				if err := e.writeOutputs([]output{{o.out, func(w io.Writer) error { return res.Network.WriteJSON(w, prov) }}}); err != nil {
					return err
				}
			}
			w := e.summaryWriter(outs)
			if o.asJSON {
				return writeJSON(w, noisyorFitJSON(res, args[0], b))
			}
			printNoisyorFit(w, res, b, opt.MaxFailure)
			return nil
		},
	}
	f := c.Flags()
	f.StringVarP(&o.out, "out", "o", "", `write the fitted network (model JSON) here ("-" for standard output)`)
	f.BoolVar(&o.asJSON, "json", false, "print the summary as JSON")
	f.StringVar(&o.method, "method", "vem", "fitting method: vem (variational EM)")
	f.IntVar(&o.sources, "sources", 0, "number of hidden sources K (required, ≥ 1)")
	f.IntVar(&o.restarts, "restarts", vem.DefaultRestarts, "random starts; the one with the highest bound is kept (≥ 1)")
	f.IntVar(&o.maxIter, "max-iter", vem.DefaultMaxIter, "most E-steps per start (≥ 1)")
	f.Float64Var(&o.tol, "tol", vem.DefaultTol, "a start stops when the bound changes by at most this, relative (> 0)")
	f.Float64Var(&o.leak, "leak", vem.DefaultLeak, fmt.Sprintf("leak every effect starts from (kept with --fix-leak), in [%g, 1 − %g]", vem.MinProb, vem.MinProb))
	f.BoolVar(&o.fixLeak, "fix-leak", false, "keep every leak at --leak instead of learning it")
	f.Float64Var(&o.maxFailure, "max-failure", vem.DefaultMaxFailure, "leave out of the network the edges whose failure exceeds this, in (0, 1] (1 keeps every pair)")
	f.Uint64Var(&o.seed, "seed", seed.Default, "random seed of the starts")
	df.register(f)
	for _, name := range []string{"discrete", "continuous", "max-states", "drop-constant"} {
		_ = f.MarkHidden(name)
	}
	return c
}

// options checks the flags and turns them into vem.Options (exit 2 for
// bad values).
func (o *noisyorFitOpts) options(cmd *cobra.Command) (vem.Options, error) {
	var opt vem.Options
	switch {
	case strings.ToLower(o.method) != "vem":
		return opt, usagef("--method %q: the only method is vem (variational EM)", o.method)
	case !cmd.Flags().Changed("sources"):
		return opt, usagef("--sources K is required: the number of hidden sources to fit")
	case o.sources < 1:
		return opt, usagef("--sources %d: want at least 1", o.sources)
	case o.restarts < 1:
		return opt, usagef("--restarts %d: want at least 1", o.restarts)
	case o.maxIter < 1:
		return opt, usagef("--max-iter %d: want at least 1", o.maxIter)
	case !(o.tol > 0) || math.IsInf(o.tol, 0):
		return opt, usagef("--tol %v: want a positive number (default %g)", o.tol, vem.DefaultTol)
	case !(o.leak >= vem.MinProb && o.leak <= 1-vem.MinProb):
		return opt, usagef("--leak %v: want a value in [%g, 1 − %g]", o.leak, vem.MinProb, vem.MinProb)
	case !(o.maxFailure > 0 && o.maxFailure <= 1):
		return opt, usagef("--max-failure %v: want a value in (0, 1]", o.maxFailure)
	}
	return vem.Options{Sources: o.sources, Restarts: o.restarts, MaxIter: o.maxIter, Tol: o.tol,
		Leak: o.leak, FixLeak: o.fixLeak, MaxFailure: o.maxFailure, Src: seed.New(o.seed, seed.Model)}, nil
}

// record adds the effective settings and the fit's bound to the
// provenance's options.
func (o *noisyorFitOpts) record(opts map[string]any, res *vem.Result, rows int) {
	opts["method"] = "vem"
	opts["sources"] = o.sources
	opts["restarts"] = o.restarts
	opts["max_iter"] = o.maxIter
	opts["tol"] = o.tol
	opts["leak"] = o.leak
	opts["fix_leak"] = o.fixLeak
	opts["max_failure"] = o.maxFailure
	opts["seed"] = o.seed
	opts["bound"] = res.Bound
	opts["bound_per_row"] = res.Bound / float64(rows)
	opts["iterations"] = res.Iterations
	opts["converged"] = res.Converged
	opts["best_start"] = res.Best + 1
	bounds := make([]float64, len(res.Starts))
	for i, s := range res.Starts {
		bounds[i] = s.Bound
	}
	opts["start_bounds"] = bounds
}

func noisyorFitJSON(res *vem.Result, input string, b *noisyor.Binary) map[string]any {
	type src struct {
		Name     string  `json:"name"`
		Prior    float64 `json:"prior"`
		Children int     `json:"children"`
	}
	type start struct {
		Bound      float64 `json:"bound"`
		Iterations int     `json:"iterations"`
		Converged  bool    `json:"converged"`
		Seconds    float64 `json:"seconds"`
	}
	net := res.Network
	sources := make([]src, len(net.Sources))
	for i, s := range net.Sources {
		sources[i] = src{s.Name, s.Prior, len(s.Children)}
	}
	starts := make([]start, len(res.Starts))
	for i, s := range res.Starts {
		starts[i] = start{s.Bound, s.Iterations, s.Converged, s.Seconds}
	}
	return map[string]any{
		"data": input, "method": "vem", "rows": b.Rows, "effects": b.NumEffects(),
		"sources": sources, "edges": net.NumEdges(),
		"bound": res.Bound, "bound_per_row": res.Bound / float64(b.Rows),
		"iterations": res.Iterations, "converged": res.Converged,
		"best_start": res.Best + 1, "starts": starts,
		"clamped_failures": res.ClampedFailures, "seconds": res.Duration.Seconds(),
	}
}

// printNoisyorFit prints the fit: the best start, the spread of the
// starts' bounds and every source with its strongest children.
func printNoisyorFit(w io.Writer, res *vem.Result, b *noisyor.Binary, maxFailure float64) {
	net := res.Network
	conv := "converged"
	if !res.Converged {
		conv = "stopped at --max-iter"
	}
	fmt.Fprintf(w, "variational EM: %s on %d rows, %s, %s in %s\n", plural(net.NumSources(), "source"), b.Rows,
		plural(b.NumEffects(), "effect"), plural(len(res.Starts), "start"), res.Duration.Round(time.Millisecond))
	fmt.Fprintf(w, "bound %.2f (%.4f per row) from start %d: %d E-steps, %s\n", res.Bound, res.Bound/float64(b.Rows), res.Best+1, res.Iterations, conv)
	if len(res.Starts) > 1 {
		bounds := make([]float64, len(res.Starts))
		near := 0
		for i, s := range res.Starts {
			bounds[i] = s.Bound
			if res.Bound-s.Bound <= 1e-3*math.Abs(res.Bound) {
				near++
			}
		}
		slices.Sort(bounds)
		fmt.Fprintf(w, "start bounds: worst %.2f, median %.2f; %d of %d within 0.1%% of the best\n", bounds[0], bounds[len(bounds)/2], near, len(bounds))
	}
	fmt.Fprintf(w, "%s with failure ≤ %g", plural(net.NumEdges(), "edge"), maxFailure)
	if res.ClampedFailures > 0 {
		fmt.Fprintf(w, "; %d at the smallest failure %g", res.ClampedFailures, vem.MinProb)
	}
	fmt.Fprintln(w)
	const show = 8
	for _, s := range net.Sources {
		ch := strongestFirst(s.Children)
		parts := make([]string, 0, show+1)
		for i, c := range ch {
			if i == show {
				parts = append(parts, fmt.Sprintf("… %d more", len(ch)-show))
				break
			}
			parts = append(parts, fmt.Sprintf("%s %.2f", net.Effects[c.Effect], c.Failure))
		}
		children := fmt.Sprintf("%d children", len(ch))
		if len(ch) == 1 {
			children = "1 child"
		}
		fmt.Fprintf(w, "  %-4s prior %.3f, %s: %s\n", s.Name, s.Prior, children, strings.Join(parts, ", "))
	}
	leaks := slices.Clone(net.Leak)
	slices.Sort(leaks)
	if len(leaks) > 0 {
		fmt.Fprintf(w, "leaks: median %.4f, largest %.4f\n", leaks[len(leaks)/2], leaks[len(leaks)-1])
	}
}
