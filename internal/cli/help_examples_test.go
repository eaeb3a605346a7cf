package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestHelpExamplesUseKnownFlags: every latentree command line in a
// command's --help examples names an existing command and only flags that
// command has, under their current names (not a deprecated alias), so that
// the help never shows what fails.
func TestHelpExamplesUseKnownFlags(t *testing.T) {
	root := newRoot(&env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard})
	checked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range exampleCommands(c.Example) {
			checked++
			checkExample(t, root, c.CommandPath(), line)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if checked < 20 {
		t.Errorf("only %d example command lines found", checked)
	}
}

// exampleCommands returns the latentree command lines of an Example text,
// with continuation lines joined.
func exampleCommands(ex string) []string {
	var out []string
	var cur string
	for _, l := range strings.Split(ex, "\n") {
		l = strings.TrimSpace(l)
		if cur != "" {
			cur += " " + strings.TrimSuffix(l, "\\")
			if !strings.HasSuffix(l, "\\") {
				out = append(out, cur)
				cur = ""
			}
			continue
		}
		// A command may follow an environment assignment or another
		// command: take the part from "latentree ".
		i := strings.Index(l, "latentree ")
		if i < 0 || strings.HasPrefix(l, "#") {
			continue
		}
		l = l[i:]
		if strings.HasSuffix(l, "\\") {
			cur = strings.TrimSuffix(l, "\\")
			continue
		}
		out = append(out, l)
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

func checkExample(t *testing.T, root *cobra.Command, where, line string) {
	t.Helper()
	var args []string
	for _, tok := range strings.Fields(line)[1:] {
		if tok == "|" || tok == "&&" || tok == ";" || tok == "#" || strings.HasPrefix(tok, ">") ||
			strings.HasPrefix(tok, "2>") || strings.HasPrefix(tok, "<") {
			break
		}
		args = append(args, strings.Trim(tok, `"'`))
	}
	cmd, rest, err := root.Find(args)
	if err == nil && cmd == root && len(rest) == 1 && (rest[0] == "--version" || rest[0] == "--help") {
		return
	}
	if err != nil || cmd == root {
		t.Errorf("%s --help: %q: no such command (%v)", where, line, err)
		return
	}
	for _, a := range rest {
		if a == "-" || a == "--" || !strings.HasPrefix(a, "-") {
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, _, _ := strings.Cut(a[2:], "=")
			fl := cmd.Flags().Lookup(name)
			if fl == nil {
				fl = cmd.InheritedFlags().Lookup(name)
			}
			switch {
			case fl == nil:
				t.Errorf("%s --help: %q: %s has no flag --%s", where, line, cmd.CommandPath(), name)
			case fl.Deprecated != "":
				t.Errorf("%s --help: %q: --%s is deprecated (%s)", where, line, name, fl.Deprecated)
			}
			continue
		}
		if c := a[1]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' { // -n 5, -o x (not -1)
			if cmd.Flags().ShorthandLookup(a[1:2]) == nil && cmd.InheritedFlags().ShorthandLookup(a[1:2]) == nil {
				t.Errorf("%s --help: %q: %s has no flag -%s", where, line, cmd.CommandPath(), a[1:2])
			}
		}
	}
}
