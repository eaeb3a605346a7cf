package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/pflag"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/tree"
)

// dataFlags are the options shared by every command that reads a dataset.
type dataFlags struct {
	discrete, continuous []string
	missing              string
	dropConstant         bool
	maxStates            int
	keepConstant         bool // not a flag: set by commands that score data
}

func (d *dataFlags) register(f *pflag.FlagSet) {
	f.StringSliceVar(&d.discrete, "discrete", nil, "treat these columns as discrete (comma-separated names)")
	f.StringSliceVar(&d.continuous, "continuous", nil, "treat these columns as continuous (comma-separated names)")
	f.StringVar(&d.missing, "missing", "error", "missing cells (empty, NA, NaN, ?): error, drop-rows or keep")
	f.BoolVar(&d.dropConstant, "drop-constant", false, "drop columns with a single observed value instead of failing")
	f.IntVar(&d.maxStates, "max-states", 10, "numeric columns with more distinct values than this are continuous")
}

func (d *dataFlags) options(name string, logger *slog.Logger) (data.ReadOptions, error) {
	opt := data.ReadOptions{
		Name:              name,
		Discrete:          d.discrete,
		Continuous:        d.continuous,
		DropConstant:      d.dropConstant,
		KeepConstant:      d.keepConstant,
		MaxDiscreteStates: d.maxStates,
		Logger:            logger,
	}
	switch d.missing {
	case "error":
		opt.Missing = data.MissingError
	case "drop-rows", "drop":
		opt.Missing = data.MissingDropRows
	case "keep":
		opt.Missing = data.MissingKeep
	default:
		return opt, usagef("unknown --missing %q (want error, drop-rows or keep)", d.missing)
	}
	if d.maxStates < 1 {
		return opt, usagef("--max-states must be at least 1")
	}
	return opt, nil
}

func (e *env) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// readData reads a CSV dataset from a file or "-".
func (e *env) readData(path string, df *dataFlags) (*data.Dataset, *data.ReadReport, error) {
	r, name, err := e.openInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	opt, err := df.options(name, e.logger())
	if err != nil {
		return nil, nil, err
	}
	return data.ReadCSV(bufio.NewReaderSize(r, 1<<20), opt)
}

// readTree reads a tree in Newick or latentree JSON format (detected from
// the first non-blank character).
func (e *env) readTree(path string) (*tree.Tree, error) {
	r, name, err := e.openInput(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	trimmed := bytes.TrimLeft(b, " \t\r\n\ufeff")
	var t *tree.Tree
	if len(trimmed) > 0 && trimmed[0] == '{' {
		t = tree.New()
		err = t.UnmarshalJSON(trimmed)
	} else {
		t, err = tree.ParseNewick(string(b), tree.NewickOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}
