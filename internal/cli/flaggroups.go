package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const groupAnnotation = "latentree_group"

// flagGroup gives the flags registered by add a heading in the help, so
// that a command with many flags lists them by stage.
func flagGroup(fs *pflag.FlagSet, heading string, add func(*pflag.FlagSet)) {
	before := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
	add(fs)
	fs.VisitAll(func(f *pflag.Flag) {
		if !before[f.Name] {
			_ = fs.SetAnnotation(f.Name, groupAnnotation, []string{heading}) // the flag exists: cannot fail
		}
	})
}

// useGroupedHelp makes c's usage list its flags under the headings given
// by flagGroup, in the order the headings were first used.
func useGroupedHelp(c *cobra.Command) {
	c.SetUsageFunc(func(c *cobra.Command) error {
		writeGroupedUsage(c.OutOrStderr(), c)
		return nil
	})
	c.SetHelpFunc(func(c *cobra.Command, _ []string) {
		w := c.OutOrStdout()
		if c.Long != "" {
			fmt.Fprintln(w, strings.TrimSpace(c.Long))
			fmt.Fprintln(w)
		}
		writeGroupedUsage(w, c)
	})
}

func writeGroupedUsage(w io.Writer, c *cobra.Command) {
	fmt.Fprintf(w, "Usage:\n  %s\n", c.UseLine())
	if c.Example != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", c.Example)
	}
	var order []string
	groups := map[string]*pflag.FlagSet{}
	inherited := c.InheritedFlags()
	fs := c.Flags()
	fs.SortFlags = false
	fs.VisitAll(func(f *pflag.Flag) {
		if inherited.Lookup(f.Name) != nil {
			return
		}
		h := "Other flags"
		if a := f.Annotations[groupAnnotation]; len(a) > 0 {
			h = a[0]
		}
		if groups[h] == nil {
			groups[h] = pflag.NewFlagSet(h, pflag.ContinueOnError)
			groups[h].SortFlags = false
			order = append(order, h)
		}
		groups[h].AddFlag(f)
	})
	for _, h := range order {
		fmt.Fprintf(w, "\n%s:\n%s", h, groups[h].FlagUsagesWrapped(100))
	}
}
