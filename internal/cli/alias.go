package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// aliasAnnotation marks a deprecated alias flag with the name of the flag
// it stands for.
const aliasAnnotation = "latentree_alias_of"

// deprecatedAlias registers alias as a hidden, deprecated old name of the
// flag target (already registered in f): both set the same value, and
// using alias prints pflag's deprecation notice on standard error (see
// routeDeprecationNotices). After parsing, resolveAliases marks target as
// set when alias was, so that code checks only target.
func deprecatedAlias(f *pflag.FlagSet, alias, target string) {
	t := f.Lookup(target)
	if t == nil {
		panic("deprecatedAlias: no flag --" + target)
	}
	f.AddFlag(&pflag.Flag{
		Name:        alias,
		Usage:       "old name of --" + target,
		Value:       t.Value,
		DefValue:    t.DefValue,
		NoOptDefVal: t.NoOptDefVal,
		Annotations: map[string][]string{aliasAnnotation: {target}},
	})
	// MarkDeprecated hides the flag from the help; it cannot fail here.
	_ = f.MarkDeprecated(alias, fmt.Sprintf("use --%s instead (--%s will be removed in the next release)", target, alias))
}

// resolveAliases runs after the flags of cmd are parsed: every deprecated
// alias that was given marks its target flag as given (with the same
// value), and giving both is a usage error.
func resolveAliases(cmd *cobra.Command) error {
	fs := cmd.Flags()
	var used []*pflag.Flag
	fs.Visit(func(fl *pflag.Flag) {
		if len(fl.Annotations[aliasAnnotation]) > 0 {
			used = append(used, fl)
		}
	})
	for _, fl := range used {
		target := fl.Annotations[aliasAnnotation][0]
		if fs.Changed(target) {
			return usagef("--%s is the old name of --%s: give --%s only", fl.Name, target, target)
		}
		if err := fs.Set(target, fl.Value.String()); err != nil {
			return usagef("--%s: %v", fl.Name, err)
		}
	}
	return nil
}

// flagName is how a flag is named in a message: "--name", or "--alias"
// when the user gave its deprecated alias.
func flagName(cmd *cobra.Command, name string) string {
	used := "--" + name
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if a := fl.Annotations[aliasAnnotation]; len(a) > 0 && a[0] == name {
			used = "--" + fl.Name
		}
	})
	return used
}

// routeDeprecationNotices sends pflag's notices about deprecated flags of
// c and its subcommands to w. Cobra prints them to the command's output,
// which is standard output here, where they would mix with the results.
func routeDeprecationNotices(c *cobra.Command, w io.Writer) {
	deprecated := false
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		deprecated = deprecated || fl.Deprecated != ""
	})
	if deprecated {
		c.Flags().SetOutput(w)
	}
	for _, s := range c.Commands() {
		routeDeprecationNotices(s, w)
	}
}
