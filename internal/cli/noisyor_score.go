package cli

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/noisyor"
)

// noisyorFlags are the options score and infer take for noisy-or models.
type noisyorFlags struct {
	maxExact, samples int
	seed              uint64
}

// noisyorFlagNames are the flags of noisyorFlags, refused for other models.
var noisyorFlagNames = []string{"max-exact", "importance-samples", "seed"}

// addNoisyorFlags registers the noisy-or options of score and infer.
func addNoisyorFlags(f *pflag.FlagSet) *noisyorFlags {
	nf := &noisyorFlags{}
	f.IntVar(&nf.maxExact, "max-exact", noisyor.DefaultMaxExact, "noisy-or models: the most terms summed to compute a row exactly. The sources a row's positive findings couple form groups; "+
		"a group of s sources with p positive findings costs the smaller of 2^s (every on/off state of its sources) and 2^p·(s+1) terms. "+
		"Groups above this are estimated by importance sampling (see --importance-samples) and counted in the summary. "+
		"Raising it makes more rows exact; time grows with the terms (each doubling allows one more source or positive finding per group)")
	f.IntVar(&nf.samples, "importance-samples", noisyor.DefaultSamples, "noisy-or models: importance samples drawn for each group of sources above --max-exact (≥ 2); more samples give a smaller standard error, in proportional time")
	deprecatedAlias(f, "samples", "importance-samples")
	f.Uint64Var(&nf.seed, "seed", seed.Default, "noisy-or models: random seed of the importance sampler")
	return nf
}

func (nf *noisyorFlags) options(cmd *cobra.Command) (noisyor.LikOptions, error) {
	if nf.maxExact < 1 {
		return noisyor.LikOptions{}, usagef("--max-exact must be at least 1")
	}
	if nf.samples < 2 {
		return noisyor.LikOptions{}, usagef("%s must be at least 2", flagName(cmd, "importance-samples"))
	}
	return noisyor.LikOptions{MaxExact: nf.maxExact, Samples: nf.samples, Src: seed.New(nf.seed, seed.NoisyOrLik)}, nil
}

// noisyorModel returns the network in the model file at path when its
// "type" is "noisy-or", and nil for any other file (which the caller reads
// as usual; standard input is kept readable), after checking that no
// noisy-or flag was given for it.
func (e *env) noisyorModel(cmd *cobra.Command, path string) (*noisyor.Network, error) {
	raw, name, err := e.readInput(path)
	if err != nil {
		return nil, err
	}
	if path == "-" {
		e.stdin = io.MultiReader(bytes.NewReader(raw), e.stdin)
	}
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &head) != nil || head.Type != noisyor.FormatType {
		for _, f := range noisyorFlagNames {
			if cmd.Flags().Changed(f) {
				return nil, usagef("%s applies to noisy-or models only", flagName(cmd, f))
			}
		}
		return nil, nil
	}
	n, _, err := noisyor.ReadJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

// readNoisyorData reads data for a noisy-or network: every column 0/1
// (false/true, no/yes), missing cells as --missing says, and the columns
// exactly the network's effects (in any order); otherwise the error names
// the effects missing from the data and the columns that are not effects.
func (e *env) readNoisyorData(n *noisyor.Network, path string, df *dataFlags) (*noisyor.Binary, error) {
	d, err := e.readNoisyorDataset(n, path, df)
	if err != nil {
		return nil, err
	}
	b, err := noisyor.NewBinary(d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inputName(path), err)
	}
	return b, nil
}

// inputName is how an input path is named in messages.
func inputName(path string) string {
	if path == "-" {
		return "<stdin>"
	}
	return path
}

// readNoisyorDataset is readNoisyorData before packing: the dataset, its
// columns checked to be the network's effects.
func (e *env) readNoisyorDataset(n *noisyor.Network, path string, df *dataFlags) (*data.Dataset, error) {
	f := *df
	f.keepConstant = true
	f.discrete = nil
	d, _, err := e.readDataAllDiscrete(path, &f)
	if err != nil {
		return nil, missingCellHint(err)
	}
	name := inputName(path)
	mm := &model.MismatchError{}
	have := make(map[string]bool, d.NumVars())
	for _, c := range d.Names() {
		have[c] = true
		if _, ok := n.Index(c); !ok {
			mm.NotInModel = append(mm.NotInModel, c)
		}
	}
	for _, a := range n.Effects {
		if !have[a] {
			mm.MissingInData = append(mm.MissingInData, a)
		}
	}
	if len(mm.MissingInData) > 0 || len(mm.NotInModel) > 0 {
		return nil, mismatchError(name, mm)
	}
	return d, nil
}

// printNoisyorScore prints score's summary for a noisy-or network.
func printNoisyorScore(w io.Writer, modelPath, dataPath string, sc *noisyor.Score) error {
	fmt.Fprintf(w, "%s under %s: %d rows\n", dataPath, modelPath, sc.Rows)
	if sc.NonPositive > 0 {
		fmt.Fprintf(w, "rows with P = 0 %d (left out of the log-likelihood; the first is row %d)\n", sc.NonPositive, sc.FirstZero)
	}
	fmt.Fprintf(w, "log-likelihood  %.2f\nper row         %.4f\nparameters      %d\nhidden          %d\nBIC             %.2f\nBIC (paper)     %.2f\nAIC             %.2f\n",
		sc.LogLik, sc.PerRow, sc.Params, sc.Hidden, sc.BIC, sc.BICPaper, sc.AIC)
	fmt.Fprintf(w, "exact rows      %d\n", sc.Exact)
	var err error
	if sc.Estimated > 0 {
		_, err = fmt.Fprintf(w, "estimated rows  %d (importance sampling; standard error of the log-likelihood %.4f)\n", sc.Estimated, sc.StdErr)
	} else {
		_, err = fmt.Fprintf(w, "estimated rows  0\n")
	}
	return err
}

// noisyorLikelihood reads the data at path for n and computes their
// likelihood with the flags' options, as set adjusts them; it returns the
// options used too.
func (e *env) noisyorLikelihood(cmd *cobra.Command, n *noisyor.Network, path string, df *dataFlags, nf *noisyorFlags, set func(*noisyor.LikOptions)) (*noisyor.Likelihood, *noisyor.Binary, noisyor.LikOptions, error) {
	opt, err := nf.options(cmd)
	if err != nil {
		return nil, nil, opt, err
	}
	b, err := e.readNoisyorData(n, path, df)
	if err != nil {
		return nil, nil, opt, err
	}
	set(&opt)
	l, err := n.LogLikelihood(b, opt)
	if err != nil {
		return nil, nil, opt, fmt.Errorf("%s: %w", path, err)
	}
	return l, b, opt, nil
}

// scoreNoisyor is score for a noisy-or network: the summary, or with
// --rows every row's probability and log-likelihood, as for other models.
func (e *env) scoreNoisyor(cmd *cobra.Command, n *noisyor.Network, args []string, df *dataFlags, nf *noisyorFlags, rows, asJSON bool, dest string, outs []pathFlag) error {
	l, b, _, err := e.noisyorLikelihood(cmd, n, args[1], df, nf, func(o *noisyor.LikOptions) { o.Rows = rows })
	if err != nil {
		return err
	}
	sc := n.Score(l, b.Rows)
	doc := map[string]any{"model": args[0], "data": args[1], "score": sc}
	if !rows {
		return e.writeTo(dest, func(w io.Writer) error {
			if asJSON {
				return writeJSON(w, doc)
			}
			return printNoisyorScore(w, args[0], args[1], sc)
		})
	}
	prob := make([]float64, len(l.Rows))
	for r, x := range l.Rows {
		prob[r] = math.Exp(x)
	}
	return e.writeScoreRows(dest, outs, asJSON, doc, prob, l.Rows, func(w io.Writer) error {
		return printNoisyorScore(w, args[0], args[1], sc)
	})
}

// inferNoisyor is infer for a noisy-or network: every row's posterior
// probability that each source is on (CSV columns named after the
// sources), or with --map the most likely state of each source (1 when the
// posterior is at least 0.5), or with --json one document. A row with
// probability 0 under the network has empty cells (null in JSON).
func (e *env) inferNoisyor(cmd *cobra.Command, n *noisyor.Network, args []string, df *dataFlags, f *inferFlags, nf *noisyorFlags) error {
	for _, name := range []string{"impute", "probabilities"} {
		if cmd.Flags().Changed(name) {
			return usagef("--%s does not apply to a noisy-or model (its effects are binary findings; infer writes the posteriors of its sources)", name)
		}
	}
	out := f.out
	if out == "" {
		out = "-"
	}
	outs := []pathFlag{{"--out", out}}
	if err := e.checkPaths([]pathFlag{{"MODEL", args[0]}, {"DATA", args[1]}}, outs); err != nil {
		return err
	}
	l, b, opt, err := e.noisyorLikelihood(cmd, n, args[1], df, nf, func(o *noisyor.LikOptions) { o.Posteriors = true })
	if err != nil {
		return err
	}
	write := func(w io.Writer) error { return writeNoisyorPosteriors(w, n, l.Posteriors, f.mapState) }
	if f.asJSON {
		write = func(w io.Writer) error { return writeNoisyorPosteriorsJSON(w, n, args, l, f.mapState) }
	}
	if err := e.writeOutputs([]output{{out, write}}); err != nil {
		return err
	}
	if l.Approx > 0 {
		fmt.Fprintf(e.stderr, "%d of %d rows estimated by importance sampling (%d importance samples; raise --max-exact to compute more rows exactly)\n", l.Approx, b.Rows, opt.Samples)
	}
	switch {
	case l.Zero == 1:
		fmt.Fprintf(e.stderr, "row %d has probability 0 under the model; its posteriors are left empty\n", l.FirstZero+1)
	case l.Zero > 1:
		fmt.Fprintf(e.stderr, "%d rows have probability 0 under the model (the first is row %d); their posteriors are left empty\n", l.Zero, l.FirstZero+1)
	}
	return nil
}

// noisyorCell appends the cell of a source in a row: its posterior (with
// prec significant digits, −1 for all), or with mapState 0 or 1; nothing
// when the posterior is NaN.
func noisyorCell(buf []byte, p float64, mapState bool, prec int) []byte {
	switch {
	case math.IsNaN(p):
		return buf
	case mapState && p >= 0.5:
		return append(buf, '1')
	case mapState:
		return append(buf, '0')
	}
	return strconv.AppendFloat(buf, p, 'g', prec, 64)
}

// writeNoisyorPosteriors writes the posteriors as CSV, one column per
// source.
func writeNoisyorPosteriors(w io.Writer, n *noisyor.Network, post [][]float64, mapState bool) error {
	header := make([]string, n.NumSources())
	for s, src := range n.Sources {
		header[s] = src.Name
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf []byte
	for _, row := range post {
		buf = buf[:0]
		for s, p := range row {
			if s > 0 {
				buf = append(buf, ',')
			}
			buf = noisyorCell(buf, p, mapState, 6)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// writeNoisyorPosteriorsJSON writes {"model", "data", "rows", "sources",
// "exact_rows", "estimated_rows", "zero_rows", "posteriors" (or with
// --map "states"): [[...], ...]}, one row per line, null for a row with
// probability 0.
func writeNoisyorPosteriorsJSON(w io.Writer, n *noisyor.Network, args []string, l *noisyor.Likelihood, mapState bool) error {
	names := make([]string, n.NumSources())
	for s, src := range n.Sources {
		names[s] = src.Name
	}
	head, err := json.MarshalIndent(map[string]any{"model": args[0], "data": args[1], "rows": len(l.Posteriors),
		"sources": names, "exact_rows": l.Exact, "estimated_rows": l.Approx, "zero_rows": l.Zero}, "", "  ")
	if err != nil {
		return err
	}
	key := "posteriors"
	if mapState {
		key = "states"
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(head[:len(head)-2])
	fmt.Fprintf(bw, ",\n  %q: [", key)
	var buf []byte
	for r, row := range l.Posteriors {
		buf = buf[:0]
		if r > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n    "...)
		if len(row) > 0 && math.IsNaN(row[0]) {
			buf = append(buf, "null"...)
		} else {
			buf = append(buf, '[')
			for s, p := range row {
				if s > 0 {
					buf = append(buf, ", "...)
				}
				buf = noisyorCell(buf, p, mapState, -1)
			}
			buf = append(buf, ']')
		}
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	if len(l.Posteriors) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}
