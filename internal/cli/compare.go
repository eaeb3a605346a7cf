package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/tree"
)

func newCompareCmd(e *env) *cobra.Command {
	var asJSON bool
	var out string
	c := &cobra.Command{
		Use:   "compare A B",
		Short: "Robinson–Foulds distance between two trees over the same observed variables",
		Long: `compare reads two trees (Newick, latentree tree JSON, or the model JSON that
learn --out and fit --out write; "-" for one of them reads standard input)
over the same observed variables and prints their Robinson–Foulds distance: the
number of bipartitions of the observed variables induced by an edge of one tree
but not the other. Observed variables may be internal nodes, so bipartitions
that separate a single variable count too. The normalised distance divides by
the number of splits of both trees, leaving out single-variable splits present
in both (for ordinary leaf-labelled trees this is the classical normalised RF).

The result goes to standard output, or to --out; --json writes it as JSON
({"a", "b", "rf", "normalized_rf", "hidden_a", "hidden_b", "only_in_a",
"only_in_b", "same_topology"}).`,
		Example: `  latentree compare true.nwk learned.nwk
  latentree compare --json true.json learned.nwk
  latentree compare true.nwk model.json
  latentree compare --json true.nwk learned.nwk --out rf.json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.checkPaths([]pathFlag{{"A", args[0]}, {"B", args[1]}}, []pathFlag{{"--out", out}}); err != nil {
				return err
			}
			a, err := e.readTree(args[0])
			if err != nil {
				return err
			}
			b, err := e.readTree(args[1])
			if err != nil {
				return err
			}
			rf, err := tree.RobinsonFoulds(a, b)
			if err != nil {
				return err
			}
			side := func(s []tree.Split) [][]string {
				out := make([][]string, len(s))
				for i, x := range s {
					out[i] = x.Smaller()
				}
				return out
			}
			onlyA, onlyB := side(rf.OnlyA), side(rf.OnlyB)
			return e.writeTo(out, func(w io.Writer) error {
				if asJSON {
					return writeJSON(w, map[string]any{
						"a": args[0], "b": args[1],
						"rf": rf.RF, "normalized_rf": rf.Normalized,
						"hidden_a": a.NumHidden(), "hidden_b": b.NumHidden(),
						"only_in_a": onlyA, "only_in_b": onlyB,
						"same_topology": rf.RF == 0,
					})
				}
				var text strings.Builder
				fmt.Fprintf(&text, "Robinson–Foulds distance: %d (normalised %.4f)\n", rf.RF, rf.Normalized)
				fmt.Fprintf(&text, "hidden nodes: %d in %s, %d in %s\n", a.NumHidden(), args[0], b.NumHidden(), args[1])
				for _, x := range []struct {
					name  string
					split [][]string
				}{{args[0], onlyA}, {args[1], onlyB}} {
					if len(x.split) == 0 {
						continue
					}
					fmt.Fprintf(&text, "splits only in %s (smaller side):\n", x.name)
					for _, s := range x.split {
						fmt.Fprintf(&text, "  {%s}\n", strings.Join(s, ", "))
					}
				}
				_, err := io.WriteString(w, text.String())
				return err
			})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().StringVarP(&out, "out", "o", "", "write the result to this file instead of standard output")
	return c
}
