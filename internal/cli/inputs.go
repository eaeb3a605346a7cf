package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// dataFlags are the options shared by every command that reads a dataset.
type dataFlags struct {
	columns, ignore      []string
	delimiter            string
	discrete, continuous []string
	missing              string
	dropConstant         bool
	maxStates            int
	maxLine, maxField    byteSize
	keepConstant         bool // not a flag: set by commands that score data
	// weights and weightKind: --weights and --weight-kind, registered
	// only by the commands that use row weights (registerWeights).
	weights, weightKind string
}

// checkSE refuses bootstrap standard errors with sampling weights, before
// any work (--se gives the sandwich estimator for them).
func (d *dataFlags) checkSE(bootstrap bool) error {
	if bootstrap && d.weights != "" {
		if k, err := data.ParseWeightKind(d.weightKind); err == nil && k == data.Sampling {
			return usagef("--bootstrap does not apply to sampling weights (resampling rows ignores the survey design); --se gives the sandwich (robust) standard errors for them")
		}
	}
	return nil
}

// registerWeights adds --weights and --weight-kind; what the weights do
// is the command's (use).
func (d *dataFlags) registerWeights(f *pflag.FlagSet, use string) {
	f.StringVar(&d.weights, "weights", "", "a column of row weights, not a variable: "+use)
	f.StringVar(&d.weightKind, "weight-kind", "frequency", "what --weights are: frequency (whole numbers of copies: a table of distinct rows with counts gives the expanded rows' results; n = their sum) or sampling (survey weights, normalised to sum to the number of rows: n = rows; --se gives sandwich standard errors, no --bootstrap)")
}

func (d *dataFlags) register(f *pflag.FlagSet) {
	f.StringSliceVar(&d.columns, "columns", nil, "read only these columns, in this order (comma-separated names)")
	f.StringSliceVar(&d.ignore, "ignore", nil, "skip these columns, e.g. an ID column (comma-separated names)")
	f.StringVar(&d.delimiter, "delimiter", "auto", `field delimiter: a character, "tab", or auto (from the header line: comma, else tab, else ';' or '|'; tab for .tsv/.tab files)`)
	f.StringSliceVar(&d.discrete, "discrete", nil, "treat these columns as discrete (comma-separated names)")
	f.StringSliceVar(&d.continuous, "continuous", nil, "treat these columns as continuous (comma-separated names)")
	f.StringVar(&d.missing, "missing", "error", "missing cells (empty, NA, NaN, ?): error, drop-rows or keep")
	f.BoolVar(&d.dropConstant, "drop-constant", false, "drop columns with a single observed value (with --missing keep, also columns with none) instead of failing")
	f.IntVar(&d.maxStates, "max-states", 10, "numeric columns with more distinct values than this are continuous")
	f.Var(&d.maxLine, "max-line-bytes", "longest row of a CSV file, in bytes (default 16MiB): a longer row is an error, so memory stays bounded")
	f.Var(&d.maxField, "max-field-bytes", "longest cell of a column read, in bytes (default 64KiB)")
}

// parseDelimiter reads --delimiter: "auto" (or empty) detects it, "tab"
// or "\t" is a tab, and any other single character is itself.
func parseDelimiter(s string) (rune, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return 0, nil
	case "tab", `\t`:
		return '\t', nil
	case "comma":
		return ',', nil
	case "semicolon":
		return ';', nil
	}
	r, size := utf8.DecodeRuneInString(s)
	if size != len(s) || r == utf8.RuneError || r == '"' || r == '\r' || r == '\n' {
		return 0, usagef("--delimiter %q: want one character (not a quote or line break), tab or auto", s)
	}
	return r, nil
}

func (d *dataFlags) options(name string, logger *slog.Logger) (data.ReadOptions, error) {
	opt := data.ReadOptions{
		Name:              name,
		Columns:           d.columns,
		Ignore:            d.ignore,
		Discrete:          d.discrete,
		Continuous:        d.continuous,
		DropConstant:      d.dropConstant,
		KeepConstant:      d.keepConstant,
		MaxDiscreteStates: d.maxStates,
		MaxLineBytes:      int(d.maxLine),
		MaxFieldBytes:     int(d.maxField),
		Logger:            logger,
	}
	var err error
	if opt.Missing, err = data.ParseMissing(d.missing); err != nil {
		return opt, usagef("unknown --missing %q (want error, drop-rows or keep)", d.missing)
	}
	if d.maxStates < 1 {
		return opt, usagef("--max-states must be at least 1")
	}
	if opt.Delimiter, err = parseDelimiter(d.delimiter); err != nil {
		return opt, err
	}
	if opt.WeightKind, err = data.ParseWeightKind(d.weightKind); err != nil {
		return opt, usagef("unknown --weight-kind %q (want frequency or sampling)", d.weightKind)
	}
	opt.Weights = d.weights
	return opt, nil
}

func (e *env) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// readData reads a dataset from a CSV file or "-", or, read in row blocks
// (data.OpenBlocks), from a Parquet file, a gzip-compressed CSV file or a
// directory of shards, into memory.
func (e *env) readData(path string, df *dataFlags) (*data.Dataset, *data.ReadReport, error) {
	if path != "-" && blockFormat(path) {
		if df.dropConstant {
			return nil, nil, usagef("--drop-constant needs a CSV file (%s is read in blocks, and a column is only known to be constant at the end)", path)
		}
		opt, err := df.options("", e.logger())
		if err != nil {
			return nil, nil, err
		}
		p, err := data.Pack(&data.Files{Paths: []string{path}, Options: data.BlockOptions{ReadOptions: opt}})
		if err != nil {
			return nil, nil, err
		}
		d, err := p.Dataset()
		if err != nil {
			return nil, nil, err
		}
		d, err = weightBy(path, d, opt)
		return d, nil, err
	}
	return e.readCSV(path, df, nil)
}

// weightBy makes the weight column of opt (if any) of a dataset read in
// blocks its row weights (data.Dataset.WeightBy).
func weightBy(path string, d *data.Dataset, opt data.ReadOptions) (*data.Dataset, error) {
	if opt.Weights == "" {
		return d, nil
	}
	w, err := d.WeightBy(opt.Weights, opt.WeightKind)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, nil
}

// readCSV reads a CSV file or "-" with the options of the data flags,
// changed by adjust when it is not nil.
func (e *env) readCSV(path string, df *dataFlags, adjust func(*data.ReadOptions)) (*data.Dataset, *data.ReadReport, error) {
	r, name, err := e.openInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	opt, err := df.options(name, e.logger())
	if err != nil {
		return nil, nil, err
	}
	if adjust != nil {
		adjust(&opt)
	}
	var in io.Reader
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() <= smallInput {
			// Read whole into a buffer of its size (data.ReadCSV), the
			// megabyte of bufio's buffer would be touched for nothing.
			in = f
		} else {
			in = statReader{bufio.NewReaderSize(r, 1<<20), f}
		}
	} else {
		in = bufio.NewReaderSize(r, 1<<20)
	}
	return data.ReadCSV(in, opt)
}

// smallInput is the size of a data file below which readCSV gives it to
// data.ReadCSV unbuffered (which reads a file of at most 32 MiB whole).
const smallInput = 16 << 20

// statReader is a buffered file that reports the file's Stat, by which
// data.ReadCSV sizes the buffer it reads a small file into.
type statReader struct {
	io.Reader
	f *os.File
}

func (r statReader) Stat() (fs.FileInfo, error) { return r.f.Stat() }

// readTree reads a tree in Newick format, as a latentree tree document, or
// from a latentree model file (what learn --out and fit --out write: its
// tree). The format is detected from the content.
func (e *env) readTree(path string) (*tree.Tree, error) {
	r, name, err := e.openInput(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := readAll(r, name)
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimLeft(b, " \t\r\n\ufeff")
	var t *tree.Tree
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var head struct {
			Format string          `json:"format"`
			Tree   json.RawMessage `json:"tree"`
		}
		t = tree.New()
		if json.Unmarshal(trimmed, &head) == nil && head.Format == model.ModelFormat {
			if len(head.Tree) == 0 {
				return nil, fmt.Errorf("%s: latentree model file without a tree", name)
			}
			if err := t.UnmarshalJSON(head.Tree); err != nil {
				return nil, fmt.Errorf("%s: tree of the model: %w", name, err)
			}
			return t, nil
		}
		err = t.UnmarshalJSON(trimmed)
	} else {
		t, err = tree.ParseNewick(string(b), tree.NewickOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}
