package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/quartet"
)

func newQuartetCmd(e *env) *cobra.Command {
	df := &dataFlags{}
	var (
		vars      []string
		test      string
		k         int
		minMargin float64
		asJSON    bool
		out       string
	)
	c := &cobra.Command{
		Use:   "quartet DATA.csv --vars a,b,c,d",
		Short: "Resolve a quartet: which two of four variables sit on the same side",
		Long: `quartet resolves the relation of four discrete variables from their 4-way
table: the nuclear-norm test of Ishteva et al. (ICML 2013) picks the pairing
whose unfolding has the smallest sum of singular values and needs no number of
hidden states; --test spectral uses Spectral@k (Anandkumar et al. 2011) with
--k. It prints the chosen pairing, the three scores and the relative margin;
--min-margin reports "unresolved" below it. With more than four --vars it
resolves every quartet among them, in parallel, one line each. The result
goes to standard output, or to --out; --json writes it as JSON.`,
		Example: `  latentree quartet data.csv --vars x1,x2,x3,x4
  latentree quartet data.csv --vars x1,x2,x3,x4 --test spectral --k 2 --json
  latentree quartet data.csv --vars x1,x2,x3,x4,x5,x6 --json --out quartets.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(vars) < 4 {
				return usagef("--vars needs at least four variable names, got %d", len(vars))
			}
			if len(vars) > maxQuartetVars {
				return usagef("--vars names %d variables; at most %d (%d quartets)", len(vars), maxQuartetVars, choose4(maxQuartetVars))
			}
			tst, err := quartet.ParseTest(test)
			if err != nil {
				return usageError{err}
			}
			if err := e.checkPaths([]pathFlag{{"DATA", args[0]}}, []pathFlag{{"--out", out}}); err != nil {
				return err
			}
			d, _, err := e.readData(args[0], df)
			if err != nil {
				return err
			}
			sel, err := d.SelectNames(vars)
			if err != nil {
				return usageError{err}
			}
			o, err := quartet.NewDataOracle(sel, tst, k, minMargin)
			if err != nil {
				if !sel.AllDiscrete() {
					return fmt.Errorf("%s: %w (if they are state codes, --discrete NAMES or a larger --max-states reads them as discrete)", args[0], err)
				}
				return err
			}
			if len(vars) > 4 {
				return e.writeTo(out, func(w io.Writer) error { return allQuartets(w, o, vars, asJSON) })
			}
			r, err := o.Resolve([4]int{0, 1, 2, 3})
			if err != nil {
				return err
			}
			pairing := "unresolved"
			if r.Pairing != quartet.Unresolved {
				a, b := r.Pairing.Pairs()
				pairing = fmt.Sprintf("{%s, %s | %s, %s}", vars[a[0]], vars[a[1]], vars[b[0]], vars[b[1]])
			}
			labels := [3]string{
				fmt.Sprintf("{%s,%s|%s,%s}", vars[0], vars[1], vars[2], vars[3]),
				fmt.Sprintf("{%s,%s|%s,%s}", vars[0], vars[2], vars[1], vars[3]),
				fmt.Sprintf("{%s,%s|%s,%s}", vars[0], vars[3], vars[1], vars[2]),
			}
			if asJSON {
				scores := map[string]float64{}
				for i, l := range labels {
					scores[l] = r.Scores[i]
				}
				doc := map[string]any{"test": test, "k": k, "pairing": pairing, "scores": scores, "margin": r.Margin}
				return e.writeTo(out, func(w io.Writer) error { return writeJSON(w, doc) })
			}
			var text strings.Builder
			fmt.Fprintf(&text, "pairing: %s (relative margin %.4g)\n", pairing, r.Margin)
			what := "nuclear norm (smallest wins)"
			if tst == quartet.TestSpectral {
				what = fmt.Sprintf("log Π top-%d singular values (largest wins)", k)
			}
			fmt.Fprintf(&text, "scores, %s:\n", what)
			for i, l := range labels {
				fmt.Fprintf(&text, "  %-30s %.6g\n", l, r.Scores[i])
			}
			return e.writeTo(out, func(w io.Writer) error { _, err := io.WriteString(w, text.String()); return err })
		},
	}
	df.register(c.Flags())
	c.Flags().StringSliceVar(&vars, "vars", nil, "the four variables (comma-separated)")
	c.Flags().StringVar(&test, "test", "nuclear", "nuclear or spectral")
	c.Flags().IntVar(&k, "k", 2, "k for Spectral@k")
	c.Flags().Float64Var(&minMargin, "min-margin", 0, "report unresolved below this relative margin")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().StringVarP(&out, "out", "o", "", "write the result to this file instead of standard output")
	return c
}

// maxQuartetVars bounds --vars (27,405 quartets).
const maxQuartetVars = 30

func choose4(n int) int { return n * (n - 1) * (n - 2) * (n - 3) / 24 }

// allQuartets resolves every quartet of the oracle's variables and writes
// one line (or JSON object) per quartet to w.
func allQuartets(w io.Writer, o *quartet.DataOracle, vars []string, asJSON bool) error {
	m := len(vars)
	qs := make([][4]int, 0, choose4(m))
	for a := 0; a < m; a++ {
		for b := a + 1; b < m; b++ {
			for c := b + 1; c < m; c++ {
				for d := c + 1; d < m; d++ {
					qs = append(qs, [4]int{a, b, c, d})
				}
			}
		}
	}
	res, err := o.ResolveAll(qs, 0)
	if err != nil {
		return err
	}
	type row struct {
		Vars    [4]string `json:"vars"`
		Pairing string    `json:"pairing"`
		Margin  float64   `json:"margin"`
	}
	rows := make([]row, len(qs))
	unresolved := 0
	for i, q := range qs {
		r := row{Vars: [4]string{vars[q[0]], vars[q[1]], vars[q[2]], vars[q[3]]}, Pairing: "unresolved", Margin: res[i].Margin}
		if res[i].Pairing != quartet.Unresolved {
			a, b := res[i].Pairing.Pairs()
			r.Pairing = fmt.Sprintf("{%s, %s | %s, %s}", r.Vars[a[0]], r.Vars[a[1]], r.Vars[b[0]], r.Vars[b[1]])
		} else {
			unresolved++
		}
		rows[i] = r
	}
	if asJSON {
		return writeJSON(w, rows)
	}
	var text strings.Builder
	fmt.Fprintf(&text, "%d quartets of %d variables (%d unresolved)\n", len(rows), m, unresolved)
	for _, r := range rows {
		fmt.Fprintf(&text, "  %-40s margin %.4g\n", r.Pairing, r.Margin)
	}
	_, err = io.WriteString(w, text.String())
	return err
}
