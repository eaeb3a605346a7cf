package cli

import (
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
)

// inMemoryLimit is the size of the largest single plain CSV file that learn
// reads into memory as a Dataset; larger files, compressed or Parquet files
// and shards are read in blocks.
const inMemoryLimit = 256 << 20

// reportSampleRows bounds the rows a report explains on data read in
// blocks (a random sample of them).
const reportSampleRows = 100_000

// useBlocks reports whether learn reads args in row blocks (learnBlocks)
// rather than with the in-memory CSV reader.
func useBlocks(args []string, stream, dropConstant bool) (bool, error) {
	if len(args) == 0 {
		return false, nil
	}
	for _, a := range args {
		if a == "-" {
			if len(args) > 1 {
				return false, usagef("standard input (-) cannot be one of several data shards")
			}
			return false, nil
		}
	}
	if stream || len(args) > 1 {
		return true, nil
	}
	// A large CSV file is read in blocks unless --drop-constant asks for
	// the in-memory reader.
	if fi, err := os.Stat(args[0]); err == nil && fi.Size() > inMemoryLimit && !dropConstant {
		return true, nil
	}
	return blockFormat(args[0]), nil
}

// blockFormat reports whether path is read only in row blocks
// (data.OpenBlocks): a directory, a Parquet or a gzip file. Errors are
// left to the reader.
func blockFormat(path string) bool {
	f, err := data.DetectFormat(path)
	return err == nil && f.Blocks()
}

// learnBlocks learns from data files read in row blocks: held in memory
// as a data.Packed (read once), or re-read on every pass with --stream.
// It returns the result, a dataset for the report (all rows, or a sample
// of reportSampleRows; nil with --stream), the number of rows and the
// time spent reading.
func (e *env) learnBlocks(cmd *cobra.Command, o *learnOpts, m learn.Method, paths []string) (*learn.Result, *data.Dataset, int, time.Duration, error) {
	if o.df.dropConstant {
		return nil, nil, 0, 0, usagef("--drop-constant needs a single plain CSV file, read into memory (Parquet, gzip, several files and --stream are read in blocks, and a column is only known to be constant at the end)")
	}
	ropt, err := o.df.options("", e.logger())
	if err != nil {
		return nil, nil, 0, 0, err
	}
	files := data.Files{Paths: paths, Options: data.BlockOptions{ReadOptions: ropt}}
	t0 := time.Now()
	var src data.Source = files
	var packed *data.Packed
	var vars []data.Variable
	if o.stream {
		if vars, err = firstBlockVars(files); err != nil {
			return nil, nil, 0, 0, err
		}
	} else {
		if packed, err = data.Pack(files); err != nil {
			return nil, nil, 0, 0, err
		}
		src, vars = packed, packed.Vars()
	}
	readTime := time.Since(t0)
	continuous, discrete := true, true
	for _, v := range vars {
		continuous = continuous && v.Kind == data.Continuous
		discrete = discrete && v.Kind == data.Discrete
	}
	opt, err := o.learnOptions(cmd, m, false, continuous)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	if !opt.StructureOnly && !discrete {
		if !continuous {
			return nil, nil, 0, 0, errors.New(strings.Join(paths, ", ") + " mixes continuous and discrete columns: parameters can be fitted to one kind only; use --structure-only, or --columns/--ignore to choose variables")
		}
		if o.stream {
			return nil, nil, 0, 0, usagef("--stream fits discrete data only; continuous data are read into memory (drop --stream)")
		}
	}
	var d *data.Dataset
	if packed != nil && (continuous && !opt.StructureOnly) {
		// Gaussian fits need the rows in memory.
		if d, err = packed.Dataset(); err != nil {
			return nil, nil, 0, 0, err
		}
		src = d
	}
	finish := e.learnProgress(&opt)
	res, err := learn.LearnSource(src, opt)
	finish()
	if err != nil {
		return nil, nil, 0, 0, err
	}
	rows := res.Rows
	if d == nil && packed != nil && o.report != "" {
		if packed.NumRows() <= reportSampleRows {
			d, err = packed.Dataset()
		} else {
			d, err = packed.Sample(reportSampleRows, rand.New(rand.NewPCG(o.em.seed, 0x5e)))
		}
		if err != nil {
			return nil, nil, 0, 0, err
		}
	}
	return res, d, rows, readTime, nil
}

// firstBlockVars returns the variables of the first block of files.
func firstBlockVars(files data.Files) ([]data.Variable, error) {
	r, err := data.OpenBlocks(files.Paths, files.Options)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := r.Next()
	if err == io.EOF {
		return nil, errors.New(strings.Join(files.Paths, ", ") + ": no rows")
	}
	if err != nil {
		return nil, err
	}
	return b.Vars(), nil
}
