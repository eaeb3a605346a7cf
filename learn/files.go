package learn

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/seed"
)

// ErrMixedKinds is returned (wrapped, in a *MixedKindsError) when a
// method that fits discrete or Gaussian models only (regclnj, regclrg,
// lcm) is to fit parameters to data that mix continuous and discrete
// columns.
var ErrMixedKinds = errors.New("learn: the method fits parameters to all-discrete or all-continuous data only; use another method (clnj, the default, fits a conditional-Gaussian model to mixed data) or learn the structure alone (StructureOnly)")

// A MixedKindsError is the error (it wraps ErrMixedKinds) for a method
// that fits discrete or Gaussian models only, given data that mix
// continuous and discrete columns: it names the method and the columns of
// each kind.
type MixedKindsError struct {
	Method               Method
	Continuous, Discrete []string
	// Integers names the continuous columns whose values are distinct
	// integers (data.DistinctIntegers): row identifiers, perhaps.
	Integers []string
}

// maxNamed is the number of columns of each kind a MixedKindsError names.
const maxNamed = 6

func (e *MixedKindsError) Error() string {
	list := func(names []string) string {
		var b strings.Builder
		for i, n := range names {
			if i == maxNamed {
				fmt.Fprintf(&b, " and %d more", len(names)-maxNamed)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(data.QuoteCell(n))
			if slices.Contains(e.Integers, n) {
				b.WriteString(" (distinct integers: an identifier?)")
			}
		}
		return b.String()
	}
	count := func(n int, kind string) string {
		if n == 1 {
			return "1 column is " + kind
		}
		return fmt.Sprintf("%d columns are %s", n, kind)
	}
	return fmt.Sprintf("learn: %s fits parameters to all-discrete or all-continuous data only, but %s (%s) and %s (%s); "+
		"use another method (clnj, the default, fits a conditional-Gaussian model to mixed data), "+
		"skip the columns of one kind (--ignore, data.ReadOptions.Ignore), force their kind (--discrete or --continuous, data.ReadOptions.Discrete or Continuous), "+
		"or learn the structure alone (--structure-only, Options.StructureOnly)",
		e.Method, count(len(e.Continuous), "continuous"), list(e.Continuous), count(len(e.Discrete), "discrete"), list(e.Discrete))
}

// Unwrap returns ErrMixedKinds.
func (e *MixedKindsError) Unwrap() error { return ErrMixedKinds }

// mixedKinds returns the *MixedKindsError of method m for the variables
// vars, whose rows are in src (nil if they are not at hand).
func mixedKinds(m Method, vars []data.Variable, src data.Source) error {
	e := &MixedKindsError{Method: m}
	for _, v := range vars {
		if v.Kind == data.Continuous {
			e.Continuous = append(e.Continuous, v.Name)
		} else {
			e.Discrete = append(e.Discrete, v.Name)
		}
	}
	if src != nil {
		ints, err := data.DistinctIntegers(src)
		if err != nil {
			return err
		}
		e.Integers = ints
	}
	return e
}

// ErrStreamContinuous is returned when parameters are to be fitted to
// all-continuous data in streamed files: Gaussian EM needs the rows in
// memory (discrete and mixed EM read the files on every pass).
var ErrStreamContinuous = errors.New("learn: parameters are fitted to streamed files only for discrete or mixed data; hold all-continuous data in memory (FilesOptions.Stream false)")

// FilesOptions configures OpenFiles.
type FilesOptions struct {
	// Read configures the reading of the files (data.OpenBlocks; its
	// DropConstant is not supported).
	Read data.BlockOptions
	// Stream re-reads the files on every pass (data.Files) instead of
	// holding their rows in memory as a data.Packed, read once: for
	// discrete or mixed data larger than memory. Parameters can then be
	// fitted to discrete or mixed data only (not all-continuous), and
	// Sample has no rows to give.
	Stream bool
}

// Files is a dataset in files opened for learning: CSV files (plain or
// gzip-compressed), Parquet files and directories of them, read as the
// shards of one dataset (data.OpenBlocks). Unless FilesOptions.Stream,
// its rows are read once into a data.Packed (binary columns at one bit
// per cell), and unpacked into a Dataset only when a fit needs them
// (continuous data: Gaussian EM works on rows in memory).
//
// OpenFiles reads the variables first, so that a caller can choose the
// options by the kind of data (Vars, AllContinuous) before Learn;
// FromFiles does both in one call.
type Files struct {
	paths    []string
	files    *data.Files
	packed   *data.Packed
	vars     []data.Variable
	rows     *data.Dataset // the rows unpacked, once needed
	readTime time.Duration
}

// OpenFiles opens the files at paths and reads them into memory, or,
// with opt.Stream, only their first block (for the variables).
func OpenFiles(paths []string, opt FilesOptions) (*Files, error) {
	f := &Files{paths: paths, files: &data.Files{Paths: paths, Options: opt.Read}}
	t0 := time.Now()
	if opt.Stream {
		vars, err := firstBlockVars(f.files)
		if err != nil {
			return nil, err
		}
		f.vars = vars
	} else {
		p, err := data.Pack(f.files)
		if err != nil {
			return nil, err
		}
		f.packed, f.vars = p, p.Vars()
	}
	f.readTime = time.Since(t0)
	return f, nil
}

// firstBlockVars returns the variables of the first block of files, which
// then know them and read the files once a pass.
func firstBlockVars(files *data.Files) ([]data.Variable, error) {
	var vars []data.Variable
	errFirst := errors.New("first block read")
	err := files.Scan(func(b *data.Dataset) error {
		vars = b.Vars()
		return errFirst
	})
	if err != nil && err != errFirst {
		return nil, err
	}
	if vars == nil {
		return nil, errors.New(strings.Join(files.Paths, ", ") + ": no rows")
	}
	return vars, nil
}

// Vars returns the variables, in column order.
func (f *Files) Vars() []data.Variable { return f.vars }

// AllContinuous reports whether every variable is continuous.
func (f *Files) AllContinuous() bool { return f.all(data.Continuous) }

// AllDiscrete reports whether every variable is discrete.
func (f *Files) AllDiscrete() bool { return f.all(data.Discrete) }

func (f *Files) all(k data.Kind) bool {
	for _, v := range f.vars {
		if v.Kind != k {
			return false
		}
	}
	return true
}

// ReadTime is the time OpenFiles spent reading.
func (f *Files) ReadTime() time.Duration { return f.readTime }

// Learn learns a latent tree from the files as LearnSource does from a
// data.Packed or, with Stream, from data.Files; all-continuous data to fit
// are unpacked into a Dataset and go to Learn. Fitting parameters to
// streamed files of continuous columns only is ErrStreamContinuous.
func (f *Files) Learn(opt Options) (*Result, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	// Continuous data to fit are unpacked into a Dataset: Gaussian EM
	// works on rows in memory.
	inMemory := !opt.StructureOnly && f.AllContinuous()
	if inMemory && f.packed == nil {
		// An identifier read as a continuous column: name it first.
		if err := data.CheckIdentifiers(f.files); err != nil {
			return nil, &filesError{paths: f.paths, err: err}
		}
		return nil, ErrStreamContinuous
	}
	var src data.Source = f.files
	if f.packed != nil {
		src = f.packed
		if inMemory {
			d, err := f.dataset()
			if err != nil {
				return nil, err
			}
			src = d
		}
	}
	res, err := LearnSource(src, opt)
	var me *MixedKindsError
	if errors.As(err, &me) {
		return nil, &filesError{paths: f.paths, err: err}
	}
	return res, err
}

// filesError names the files an error is about.
type filesError struct {
	paths []string
	err   error
}

func (e *filesError) Error() string { return strings.Join(e.paths, ", ") + ": " + e.err.Error() }
func (e *filesError) Unwrap() error { return e.err }

// dataset returns the rows unpacked, unpacking them on the first call.
func (f *Files) dataset() (*data.Dataset, error) {
	if f.rows == nil {
		d, err := f.packed.Dataset()
		if err != nil {
			return nil, err
		}
		f.rows = d
	}
	return f.rows, nil
}

// Sample returns rows to look at the data by, as a report does: the rows
// Learn unpacked, or all of them when there are at most n, or else n rows
// drawn at random with src (nil: the fixed seed rand.NewPCG(1, 0x5e)). With Stream it returns
// nil: the rows were never held.
func (f *Files) Sample(n int, src rand.Source) (*data.Dataset, error) {
	switch {
	case f.rows != nil:
		return f.rows, nil
	case f.packed == nil:
		return nil, nil
	case f.packed.NumRows() <= n:
		return f.dataset()
	}
	return f.packed.Sample(n, seed.Rand(src, seed.Sample))
}

// FromFiles learns a latent tree from data files in one call: OpenFiles
// and Files.Learn. The result's Timings.Total does not include reading.
func FromFiles(paths []string, fopt FilesOptions, opt Options) (*Result, error) {
	f, err := OpenFiles(paths, fopt)
	if err != nil {
		return nil, err
	}
	return f.Learn(opt)
}
