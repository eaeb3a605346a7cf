package cli

import (
	"errors"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/seed"
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

// learnBlocks learns from data files read in row blocks (learn.Files):
// held in memory as a data.Packed (read once), or re-read on every pass
// with --stream. It returns the result, a dataset for the report (all
// rows, or a sample of reportSampleRows; nil with --stream or without
// --report) and the time spent reading.
func (e *env) learnBlocks(cmd *cobra.Command, o *learnOpts, m learn.Method, paths []string) (*learn.Result, *data.Dataset, time.Duration, error) {
	if o.df.dropConstant {
		return nil, nil, 0, usagef("--drop-constant needs a single plain CSV file, read into memory (Parquet, gzip, several files and --stream are read in blocks, and a column is only known to be constant at the end)")
	}
	ropt, err := o.df.options("", e.logger())
	if err != nil {
		return nil, nil, 0, err
	}
	files, err := learn.OpenFiles(paths, learn.FilesOptions{Read: data.BlockOptions{ReadOptions: ropt}, Stream: o.stream})
	if err != nil {
		return nil, nil, 0, err
	}
	opt, err := o.learnOptions(cmd, m, false, files.AllContinuous())
	if err != nil {
		return nil, nil, 0, err
	}
	finish := e.learnProgress(&opt)
	res, err := files.Learn(opt)
	finish()
	switch {
	case isColumnsError(err):
		return nil, nil, 0, columnsError(strings.Join(paths, ", "), err)
	case errors.Is(err, learn.ErrStreamContinuous):
		return nil, nil, 0, usagef("--stream fits discrete and mixed data; all-continuous data are read into memory (drop --stream)")
	case err != nil:
		return nil, nil, 0, err
	}
	var d *data.Dataset
	if o.report != "" {
		if d, err = files.Sample(reportSampleRows, seed.New(o.em.seed, seed.Sample)); err != nil {
			return nil, nil, 0, err
		}
	}
	return res, d, files.ReadTime(), nil
}

// isColumnsError reports whether err is about columns of the data that
// learning cannot use: a row identifier (*data.IdentifierError) or a mix
// of kinds (*learn.MixedKindsError).
func isColumnsError(err error) bool {
	var ie *data.IdentifierError
	var me *learn.MixedKindsError
	return errors.As(err, &ie) || errors.As(err, &me)
}

// columnsError is such an error, as the library words it, about source.
func columnsError(source string, err error) error {
	var ie *data.IdentifierError
	var me *learn.MixedKindsError
	switch {
	case errors.As(err, &ie):
		return errors.New(source + ": " + strings.TrimPrefix(ie.Error(), "data: "))
	case errors.As(err, &me):
		return errors.New(source + ": " + strings.TrimPrefix(me.Error(), "learn: "))
	}
	return err
}
