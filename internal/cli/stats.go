package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/data"
)

func newStatsCmd(e *env) *cobra.Command {
	df := &dataFlags{}
	var asJSON bool
	c := &cobra.Command{
		Use:   "stats DATA.csv",
		Short: "Summarise a dataset: variables, types, states, missing cells",
		Long: `stats reads a CSV dataset (header row required; "-" for standard input) the
way every other command does, and prints each variable's type, number of
states (discrete) or mean and standard deviation (continuous), and missing
cells. Use it to check how latentree will read your data.`,
		Example: `  latentree stats newsgroups100-train.csv
  latentree stats --missing keep --json survey.csv`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, rep, err := e.readData(args[0], df)
			if err != nil {
				return err
			}
			type varSummary struct {
				Name    string   `json:"name"`
				Kind    string   `json:"kind"`
				States  []string `json:"states,omitempty"`
				Counts  []int    `json:"counts,omitempty"`
				Mean    *float64 `json:"mean,omitempty"`
				SD      *float64 `json:"sd,omitempty"`
				Missing int      `json:"missing"`
			}
			vars := make([]varSummary, d.NumVars())
			nd, nc := 0, 0
			for j := range vars {
				v := d.Var(j)
				s := varSummary{Name: v.Name, Kind: v.Kind.String(), Missing: d.MissingCount(j)}
				if v.Kind == data.Discrete {
					nd++
					s.States = v.States
					s.Counts = make([]int, len(v.States))
					for _, x := range d.Discrete(j) {
						if x != data.Missing {
							s.Counts[x]++
						}
					}
				} else {
					nc++
					m, sd := meanSD(d.Continuous(j))
					s.Mean, s.SD = &m, &sd
				}
				vars[j] = s
			}
			if asJSON {
				return writeJSON(e.stdout, map[string]any{
					"file": args[0], "rows": d.NumRows(), "variables": d.NumVars(),
					"discrete": nd, "continuous": nc, "report": rep, "columns": vars,
				})
			}
			fmt.Fprintf(e.stdout, "%s: %d rows, %d variables (%d discrete, %d continuous)\n", args[0], d.NumRows(), d.NumVars(), nd, nc)
			if rep != nil && rep.RowsDropped > 0 {
				fmt.Fprintf(e.stdout, "dropped %d rows with missing cells\n", rep.RowsDropped)
			}
			tw := tabwriter.NewWriter(e.stdout, 2, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "variable\ttype\tstates / mean ± sd\tmissing")
			for _, s := range vars {
				desc := ""
				if s.Kind == "discrete" {
					parts := make([]string, len(s.States))
					for k, l := range s.States {
						parts[k] = fmt.Sprintf("%s:%d", l, s.Counts[k])
					}
					if len(parts) > 6 {
						parts = append(parts[:6], fmt.Sprintf("… (%d states)", len(s.States)))
					}
					desc = strings.Join(parts, " ")
				} else {
					desc = fmt.Sprintf("%.4g ± %.4g", *s.Mean, *s.SD)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", s.Name, s.Kind, desc, s.Missing)
			}
			return tw.Flush()
		},
	}
	df.register(c.Flags())
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
