// Package cli implements the latentree command line: one cobra command per
// file, sharing the input/output conventions of this file.
package cli

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// usageError marks errors in how the command was called (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// env is what every command needs from the outside world.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// outputs maps each output path checkPaths saw to where it led then
	// (see resolveOutput).
	outputs map[string]string
}

// checkedWriter is standard output as the commands see it: it keeps the
// first write error, so that a command whose output was lost (a full disk,
// a closed pipe) fails with exit 1 even where it printed with fmt.Fprintf
// and did not look at the error; later writes fail at once.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}

// failed returns the error that lost the output.
func (c *checkedWriter) failed() error {
	return fmt.Errorf("writing standard output: %w", c.err)
}

// stdoutErr returns the error that lost part of standard output, or nil.
func (e *env) stdoutErr() error {
	if c, ok := e.stdout.(*checkedWriter); ok && c.err != nil {
		return c.failed()
	}
	return nil
}

// Main runs the command line with the given arguments and returns the exit
// code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &checkedWriter{w: stdout}
	e := &env{stdin: stdin, stdout: out, stderr: stderr}
	var root *cobra.Command
	if len(args) > 0 && commands[args[0]] != nil {
		// The command named alone: building every command's flags took
		// more time than a small learn's reading of its data.
		root = newRootWith(e, commands[args[0]])
	} else {
		root = newRoot(e)
	}
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(out)
	root.SetErr(stderr)
	routeDeprecationNotices(root, stderr)
	err := root.Execute()
	if err == nil && out.err != nil {
		err = out.failed()
	}
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(stderr, "latentree: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		fmt.Fprintln(stderr, "Run 'latentree --help' or 'latentree COMMAND --help' for usage.")
		return ExitUsage
	}
	return ExitFailure
}

// isCobraUsage recognises the errors cobra returns for bad flags and
// arguments (it has no typed errors for them).
func isCobraUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "requires at most", "required flag", "if any flags in the group"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// commands are the constructors of the commands, by name: Main builds
// one alone when the first argument names it (others, as help, need every
// command: newRoot, which adds these and viewCommands).
var commands = map[string]func(*env) *cobra.Command{
	"simulate": newSimulateCmd, "learn": newLearnCmd, "compare": newCompareCmd, "stats": newStatsCmd,
	"fit": newFitCmd, "score": newScoreCmd, "infer": newInferCmd, "quartet": newQuartetCmd,
	"experiment": newExperimentCmd, "noisyor": newNoisyorCmd, "version": newVersionCmd,
}

// newRoot returns the root command with every command.
func newRoot(e *env) *cobra.Command {
	root := newRootWith(e)
	// (cobra lists commands sorted by name whatever the order they are
	// added in.)
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		root.AddCommand(commands[name](e))
	}
	for _, c := range viewCommands {
		root.AddCommand(c(e))
	}
	return root
}

// newRootWith returns the root command with the commands made by cmds.
func newRootWith(e *env, cmds ...func(*env) *cobra.Command) *cobra.Command {
	root := &cobra.Command{
		Use:   "latentree",
		Short: "Learn latent tree models: hidden variables that explain observed data",
		Long: `latentree discovers hidden structure in data: from samples of observed
variables it learns which unobserved (latent) variables explain their
dependencies, how they connect in a tree, and the model's parameters.

Data are CSV files (or tab-separated: detected for .tsv files or a header
with tabs) with a header row; "-" reads standard input; --columns and
--ignore choose the columns to read. Results go to standard output or --out;
--json gives machine-readable output.

Flags mean the same in every command: --rows (-n) is a number of rows,
--out (-o) the file a result is written to ("-": standard output), --json
machine-readable output (where a number is not finite, as the log-likelihood
−∞ of rows a model gives probability 0, or a statistic without enough values,
it is null), --seed the seed of anything random, and --missing
how missing cells are read: error (the default), drop-rows or keep (kept as
missing: marginalised by the models).

Output files are checked before any work (an output that is an input or
another output, two outputs on standard output, or a missing directory is an
error) and written all or none: each goes to a temporary file renamed over the
destination only when every output is complete, so a failure never leaves a
partial file or replaces a good one. New files get 0666 less the umask, as
any file a program creates; a replaced file keeps its permissions. A symbolic
link at an output when the command starts is followed (the file it points to
is replaced), one planted later is replaced. SIGINT or SIGTERM while writing
removes the temporary files. A failed write to standard output is an error
(exit 1).`,
		Example: `  latentree simulate --topology hmm --hidden 78 --model gaussian -n 1000 --seed 1 --out hmm.csv --newick hmm.nwk
  latentree stats hmm.csv
  latentree compare true.nwk learned.nwk
  latentree version`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Old flag names given for new ones count as the new ones.
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error { return resolveAliases(cmd) },
		// --version prints what latentree version prints.
		Version: readVersion().text(),
	}
	root.SetVersionTemplate("{{.Version}}")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	for _, c := range cmds {
		root.AddCommand(c(e))
	}
	return root
}

// maxWholeInput is the most readAll reads: a tree or model file is read
// whole (a Newick tree of 100,000 leaves takes about 1 MB), and standard input without end (/dev/zero) must fail
// rather than exhaust memory.
const maxWholeInput = 64 << 20

// readAll reads all of r, the input name, failing beyond maxWholeInput
// bytes.
func readAll(r io.Reader, name string) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(r, maxWholeInput+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(raw) > maxWholeInput {
		return nil, fmt.Errorf("%s: more than %d bytes (64 MiB), the most read whole for a tree or model file: is it the right file?", name, maxWholeInput)
	}
	return raw, nil
}

// readInput reads all of a named file, or of standard input for "-" (at
// most maxWholeInput bytes).
func (e *env) readInput(path string) ([]byte, string, error) {
	r, name, err := e.openInput(path)
	if err != nil {
		return nil, name, err
	}
	defer r.Close()
	raw, err := readAll(r, name)
	return raw, name, err
}

// openInput opens a named file, or standard input for "-".
func (e *env) openInput(path string) (io.ReadCloser, string, error) {
	if path == "-" {
		return io.NopCloser(e.stdin), "<stdin>", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, path, err
	}
	return f, path, nil
}
