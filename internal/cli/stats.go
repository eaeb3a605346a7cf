package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/stats"
)

// isStatsFile reports whether an input path names a statistics file
// (.lts), which stats reads as statistics instead of data.
func isStatsFile(path string) bool { return strings.EqualFold(filepath.Ext(path), ".lts") }

func newStatsCmd(e *env) *cobra.Command {
	df := &dataFlags{}
	var asJSON bool
	var out string
	var maxPair byteSize
	var force bool
	c := &cobra.Command{
		Use:   "stats DATA.csv…",
		Short: "Summarise a dataset, and write its sufficient statistics to a file (.lts)",
		Long: `stats reads a CSV dataset (header row required; "-" for standard input) the
way every other command does, and prints each variable's type, number of
states (discrete) or mean and standard deviation (continuous), and missing
cells. Use it to check how latentree will read your data.

With --out it also writes the dataset's sufficient statistics (counts,
marginals, every pairwise table and pairwise moments) to a compact binary
statistics file (.lts, documented in the stats package). Given several
inputs, it reads them one at a time as shards of one dataset and writes
their statistics merged; inputs ending in .lts are read as statistics
files. Statistics files of shards computed on different machines merge
exactly with "latentree stats merge", and "latentree learn --stats" learns
every distance-based structure from them without the rows.

Shards given to separate stats commands are read on their own, so a
column's type is inferred per shard: fix it with --discrete or --continuous
when shards could disagree (a numeric column with few distinct values in
one shard).`,
		Example: `  latentree stats newsgroups100-train.csv
  latentree stats --missing keep --json survey.csv

  # statistics per shard, merged, and a tree learned from them
  latentree stats part1.csv --out part1.lts
  latentree stats part2.csv --out part2.lts
  latentree stats merge part1.lts part2.lts --out all.lts
  latentree learn --stats all.lts --method clrg --newick tree.nwk

  # several shards at once
  latentree stats part1.csv part2.csv part3.csv --out all.lts`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStatsCmd(e, args, df, out, asJSON, force, stats.Options{MaxPairBytes: int64(maxPair)})
		},
	}
	df.register(c.Flags())
	df.registerWeights(c.Flags(), "frequency weights count a row its weight times in every count and moment (sampling weights are refused: the statistics are whole counts)")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().StringVarP(&out, "out", "o", "", "write the sufficient statistics to this file (.lts binary format; - for standard output)")
	c.Flags().Var(&maxPair, "max-pair-memory", "largest memory for the pair statistics, in bytes (default 4GiB): wider data are refused before reading")
	c.Flags().BoolVar(&force, "force", false, "merge statistics files even when two are the same file or have the same content")
	c.AddCommand(newStatsMergeCmd(e))
	return c
}

func runStatsCmd(e *env, args []string, df *dataFlags, out string, asJSON, force bool, sopt stats.Options) error {
	ins := make([]pathFlag, len(args))
	for i, a := range args {
		ins[i] = pathFlag{"DATA", a}
		if len(args) > 1 {
			ins[i].flag = fmt.Sprintf("DATA %d", i+1)
		}
	}
	outs := []pathFlag{{"--out", out}}
	if err := e.checkPaths(ins, outs); err != nil {
		return err
	}
	var statsIns []pathFlag // data files read twice are refused by data.OpenBlocks
	for _, in := range ins {
		if isStatsFile(in.path) {
			statsIns = append(statsIns, in)
		}
	}
	if err := checkNotRepeated(statsIns, force); err != nil {
		return err
	}
	if _, err := df.options("", nil); err != nil {
		return err
	}
	summary := e.summaryWriter(outs)
	source := args[0]
	if len(args) > 1 {
		source = fmt.Sprintf("%d inputs (%s)", len(args), strings.Join(args, ", "))
	}
	// One plain CSV file (or standard input) and no statistics to write:
	// the summary from the rows in memory, without pair statistics.
	// Parquet, gzip, directories and large files are read in blocks.
	if len(args) == 1 && out == "" && !isStatsFile(args[0]) && (args[0] == "-" || !blockFormat(args[0])) {
		d, rep, err := e.readData(args[0], df)
		if err != nil {
			return err
		}
		if !d.Weighted() {
			return printStatsSummary(summary, asJSON, args, source, int64(d.NumRows()), rep, stats.Summarize(d))
		}
		st, err := computeStats(args[0], d, stats.Options{NoPairs: true})
		if err != nil {
			return err
		}
		return printStatsSummary(summary, asJSON, args, source, st.Rows(), rep, st.Summary())
	}
	// Data files are read in row blocks as shards of one dataset (same
	// columns, kinds inferred from every row), with memory bounded by the
	// block; standard input and --drop-constant need the in-memory reader.
	var dataPaths []string
	streamed := !df.dropConstant && df.weights == ""
	for _, path := range args {
		if !isStatsFile(path) {
			dataPaths = append(dataPaths, path)
			streamed = streamed && path != "-"
		}
	}
	var all stats.Stats
	var rep *data.ReadReport
	var merged []string
	for _, path := range args {
		var st *stats.Stats
		name := path
		switch {
		case isStatsFile(path):
			var err error
			if st, err = e.readStatsFile(path); err != nil {
				return err
			}
		case streamed:
			if path != dataPaths[0] {
				continue // read with the first
			}
			var err error
			if st, err = e.streamStats(dataPaths, df, sopt); err != nil {
				return err
			}
			name = strings.Join(dataPaths, ", ")
		default:
			d, r, err := e.readData(path, df)
			if err != nil {
				return err
			}
			if r != nil {
				if rep == nil {
					rep = &data.ReadReport{}
				}
				rep.RowsDropped += r.RowsDropped
			}
			if st, err = computeStats(path, d, sopt); err != nil {
				return err
			}
		}
		if err := mergeInto(&all, st, merged, name, !isStatsFile(path)); err != nil {
			return err
		}
		merged = append(merged, name)
	}
	if out != "" {
		if err := e.writeTo(out, all.WriteBinary); err != nil {
			return err
		}
	}
	return printStatsSummary(summary, asJSON, args, source, all.Rows(), rep, all.Summary())
}

// streamStats computes the statistics of data files read in row blocks as
// shards of one dataset.
func (e *env) streamStats(paths []string, df *dataFlags, sopt stats.Options) (*stats.Stats, error) {
	opt, err := df.options("", e.logger())
	if err != nil {
		return nil, err
	}
	r, err := data.OpenBlocks(paths, data.BlockOptions{ReadOptions: opt})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return stats.ComputeBlocks(r, sopt)
}

// computeStats computes the statistics of one dataset read from path.
func computeStats(path string, d *data.Dataset, sopt stats.Options) (*stats.Stats, error) {
	st, err := stats.Compute(d, sopt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// mergeInto merges the statistics st of path into all, which holds those
// of the files merged so far, with an error naming the files.
func mergeInto(all, st *stats.Stats, merged []string, path string, fromData bool) error {
	if len(merged) == 0 {
		return all.Merge(st)
	}
	prev := merged[0]
	if len(merged) > 1 {
		prev = fmt.Sprintf("%s and %d more", merged[0], len(merged)-1)
	}
	for j := 0; j < st.NumVars(); j++ {
		v := st.Var(j)
		k, ok := all.Index(v.Name)
		if !ok || all.Var(k).Kind == v.Kind {
			continue
		}
		msg := fmt.Sprintf("%s: variable %q is %v here but %v in %s, so their statistics cannot be merged", path, v.Name, v.Kind, all.Var(k).Kind, prev)
		if fromData {
			msg += fmt.Sprintf(" (each file's column types are inferred on its own: set it with --discrete %s or --continuous %s)", v.Name, v.Name)
		}
		return errors.New(msg)
	}
	if err := all.Merge(st); err != nil {
		return fmt.Errorf("%s: cannot merge with %s: %w", path, prev, err)
	}
	return nil
}

// readStatsFile reads a statistics file, with errors naming it.
func (e *env) readStatsFile(path string) (*stats.Stats, error) {
	r, name, err := e.openInput(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	st, err := stats.ReadBinary(r)
	if errors.Is(err, stats.ErrNotBinary) {
		return nil, fmt.Errorf("%s is not a latentree statistics file (write one with: latentree stats DATA.csv --out FILE.lts)", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return st, nil
}

func printStatsSummary(w io.Writer, asJSON bool, files []string, source string, rows int64, rep *data.ReadReport, vars []stats.VarSummary) error {
	nd, nc := 0, 0
	for _, v := range vars {
		if v.Kind == "discrete" {
			nd++
		} else {
			nc++
		}
	}
	if asJSON {
		m := map[string]any{
			"rows": rows, "variables": len(vars),
			"discrete": nd, "continuous": nc, "report": rep, "columns": vars,
		}
		if len(files) == 1 {
			m["file"] = files[0]
		} else {
			m["files"] = files
		}
		return writeJSON(w, m)
	}
	fmt.Fprintf(w, "%s: %d rows, %d variables (%d discrete, %d continuous)\n", source, rows, len(vars), nd, nc)
	if rep != nil && rep.RowsDropped > 0 {
		fmt.Fprintf(w, "dropped %d rows with missing cells\n", rep.RowsDropped)
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
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
}

func newStatsMergeCmd(e *env) *cobra.Command {
	var out string
	var asJSON, force bool
	c := &cobra.Command{
		Use:   "merge STATS.lts… --out ALL.lts",
		Short: "Merge statistics files of shards of one dataset, exactly",
		Long: `stats merge reads statistics files (.lts, written by latentree stats --out)
of disjoint shards of one dataset and writes their merged statistics: counts
add exactly, discrete states are aligned by label (a state seen in one shard
only is added), and means and second moments combine exactly by the
pairwise update formulas (to rounding). The result is what latentree stats
would write for all the rows at once, up to the order of states.

Shards must have the same variables (in any order), each of the same kind
in all of them; a corrupt, truncated or mismatched file is an error naming
it, and so is a file given twice (by two names, or two files with the same
content: --force merges them anyway). It prints a summary of the merged statistics (--json for JSON).`,
		Example: `  latentree stats merge part1.lts part2.lts part3.lts --out all.lts
  latentree stats merge shards/*.lts --out all.lts --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("stats merge needs --out: the file for the merged statistics (- for standard output)")
			}
			ins := make([]pathFlag, len(args))
			for i, a := range args {
				ins[i] = pathFlag{fmt.Sprintf("STATS %d", i+1), a}
			}
			outs := []pathFlag{{"--out", out}}
			if err := e.checkPaths(ins, outs); err != nil {
				return err
			}
			if err := checkNotRepeated(ins, force); err != nil {
				return err
			}
			var all stats.Stats
			for i, path := range args {
				st, err := e.readStatsFile(path)
				if err != nil {
					return err
				}
				if err := mergeInto(&all, st, args[:i], path, false); err != nil {
					return err
				}
			}
			if err := e.writeTo(out, all.WriteBinary); err != nil {
				return err
			}
			source := fmt.Sprintf("%s (%d files merged)", out, len(args))
			if out == "-" {
				source = fmt.Sprintf("%d files merged", len(args))
			}
			return printStatsSummary(e.summaryWriter(outs), asJSON, args, source, all.Rows(), nil, all.Summary())
		},
	}
	c.Flags().StringVarP(&out, "out", "o", "", "write the merged statistics to this file (- for standard output)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	c.Flags().BoolVar(&force, "force", false, "merge files even when two are the same file or have the same content")
	return c
}
