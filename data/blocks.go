package data

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// DefaultBlockRows is the number of rows per block when
// BlockOptions.BlockRows is zero.
const DefaultBlockRows = 65536

// BlockOptions configure OpenBlocks: the ReadOptions of every input file
// (Name is ignored: errors name each file by its path) and the block size.
type BlockOptions struct {
	ReadOptions
	// BlockRows is the largest number of rows in a block; zero means
	// DefaultBlockRows, negative values are an error.
	BlockRows int
	// FirstBlockTyping infers the kinds of the columns from the first
	// block alone and reads the files once, instead of reading them all
	// once first to infer kinds and states from every row, as ReadCSV
	// does from a whole file. The states of a discrete column then grow
	// from block to block, and a later value that does not fit the kind
	// inferred (a numeric column with few values in the first block and
	// more than MaxDiscreteStates in all) is an error naming it.
	FirstBlockTyping bool
}

// BlockReader reads a dataset as a sequence of row blocks. Each block is a
// *Dataset with the same variables, in the same order and of the same
// kinds; the states of a discrete variable in a block extend those of the
// previous block (labels seen for the first time are appended), so a state
// code means the same label in every block.
type BlockReader interface {
	// Next returns the next block, or io.EOF after the last one.
	Next() (*Dataset, error)
	// Names returns the variable names, in the blocks' column order.
	Names() []string
	// Close releases the open file.
	Close() error
}

// OpenBlocks opens CSV files (plain, or gzip-compressed), Parquet files
// (each told by DetectFormat) and directories (their files, except those
// whose names begin with "." or "_", in lexical order; see shardFiles) as
// the shards of one dataset, to be read in blocks of at most opt.BlockRows rows. A
// block never spans two files. Only one file is open at a time, and memory
// is bounded by the block size whatever the number of rows.
//
// Every file must have the same columns (the order may differ: the first
// file's order is the dataset's); the columns read are selected by
// opt.Columns and opt.Ignore in each. OpenBlocks first reads every file
// once to infer the kinds of the columns not forced by opt, and the states
// of the discrete ones, from every row, as ReadCSV infers them from a whole
// file, so that a file, its gzip and its Parquet form, read whole or in
// blocks of any size, give the same variables and cells; it returns the
// errors of that pass (a bad value, a missing cell under MissingError, a
// column constant (unless opt.KeepConstant) or never observed, no rows).
// A Parquet file whose column chunk statistics tell every column's values
// exactly (required boolean or integer columns whose minimum and maximum
// in each row group are at most 1 apart, as in binary data) is typed from
// them without being decoded; the reading pass then checks them: a value
// they do not give, or one they give that no row holds, is an error.
// Every block then has every state, in SortStates order. With
// opt.FirstBlockTyping the files are read once: kinds are inferred from
// the first block and then fixed, a later value that does not fit its
// column's kind is a *ParseError, and the checks of the whole stream are
// made at its end (the last call to Next returns the error instead of
// io.EOF); a column whose every value in the first block is missing and
// whose kind is not forced continuous is then an error. opt.DropConstant
// is not supported (a column can only be known to be constant at the end).
//
// Errors are *ParseError values naming the file, line and column; in a
// Parquet file the "line" is the 1-based row number. Parquet columns must
// be flat (not nested or repeated) booleans, integers, floats or strings;
// their values are read as the text a CSV file would hold (true/false,
// decimal integers, shortest round-trip floats) and a null is missing.
func OpenBlocks(paths []string, opt BlockOptions) (BlockReader, error) {
	return openBlocks(paths, opt, nil)
}

// typedFiles is what the typing pass of OpenBlocks found, for later passes
// over the same files to read them once (Files): the variables, the data
// rows (dropped ones included), and each file's size and modification time,
// to tell a file that changed since.
type typedFiles struct {
	vars   []Variable
	rows   int64
	files  []string
	infos  []os.FileInfo
	claims [][]pqClaim // per column, of typeFromStats
}

// check returns an error if the files listed are not those typed, or one
// changed size or modification time since.
func (t *typedFiles) check(files []string, infos []os.FileInfo) error {
	if !slices.Equal(files, t.files) {
		return fmt.Errorf("data: the input files changed since they were first read: %s, was %s", strings.Join(files, ", "), strings.Join(t.files, ", "))
	}
	for i, fi := range infos {
		was := t.infos[i]
		if fi.Size() != was.Size() || !fi.ModTime().Equal(was.ModTime()) {
			return &ParseError{File: files[i], Err: fmt.Errorf("the file changed since it was first read (%d bytes modified %s, was %d bytes modified %s): passes over the data would not read the same rows",
				fi.Size(), fi.ModTime().Format(time.RFC3339Nano), was.Size(), was.ModTime().Format(time.RFC3339Nano))}
		}
	}
	return nil
}

// openBlocks is OpenBlocks; with known (from an earlier typing pass over
// the same files) it reads the files once, with the variables known: the
// columns are seeded with their kinds and states, a value that does not
// fit them is an error, and so is a file listing, size, modification time
// or number of rows different from the typing pass's.
func openBlocks(paths []string, opt BlockOptions, known *typedFiles) (*blockReader, error) {
	if opt.BlockRows < 0 {
		return nil, fmt.Errorf("data: BlockRows is negative (%d)", opt.BlockRows)
	}
	if opt.BlockRows == 0 {
		opt.BlockRows = DefaultBlockRows
	}
	if opt.DropConstant {
		return nil, errors.New("data: DropConstant is not supported when reading in blocks (a column is only known to be constant at the end); use KeepConstant")
	}
	if len(paths) == 0 {
		return nil, errors.New("data: no input files")
	}
	files, infos, err := shardFiles(paths)
	if err != nil {
		return nil, err
	}
	if known != nil {
		if err := known.check(files, infos); err != nil {
			return nil, err
		}
	}
	opt.Name = ""
	base, err := newReader(opt.ReadOptions)
	if err != nil {
		return nil, err
	}
	br := &blockReader{opt: opt, base: base, files: files, fi: -1}
	if err := br.openNext(); err != nil {
		br.Close()
		return nil, err
	}
	switch {
	case known != nil:
		if err := br.seed(known.vars, known.claims); err != nil {
			br.Close()
			return nil, err
		}
		br.wantRows = known.rows
	case !opt.FirstBlockTyping:
		if err := br.typeAll(); err != nil {
			br.Close()
			return nil, err
		}
		br.typed = &typedFiles{vars: br.vars(), rows: br.wantRows, files: files, infos: infos}
		for _, c := range br.cols {
			br.typed.claims = append(br.typed.claims, slices.Clone(c.claims))
		}
	}
	return br, nil
}

// shardFiles lists the files of paths: a file is itself, a directory its
// entries in lexical order, except those whose names begin with "." or "_"
// (hidden files, _SUCCESS markers). A symbolic link in a directory is
// followed; a subdirectory (or a link to one), a broken link, or any entry
// that is not a regular file is an error naming it, never skipped
// silently, and so is a file listed twice (the same file by two paths or
// links), whose rows would be counted twice.
func shardFiles(paths []string) ([]string, []os.FileInfo, error) {
	var files []string
	var infos []os.FileInfo
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if !fi.IsDir() {
			files, infos = append(files, p), append(infos, fi)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, nil, err
		}
		n := len(files)
		for _, e := range ents { // os.ReadDir sorts by name
			name := e.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				continue
			}
			path := filepath.Join(p, name)
			fi, err := os.Stat(path) // follows a link
			switch {
			case err != nil:
				return nil, nil, fmt.Errorf("data: directory %s: %s: %w (remove it, or rename it to begin with \".\" or \"_\" to skip it)", p, name, err)
			case fi.IsDir():
				return nil, nil, fmt.Errorf("data: directory %s holds the subdirectory %s: shards are read from the directory itself, not from its subdirectories (give the subdirectory as an input of its own, or rename it to begin with \".\" or \"_\" to skip it)", p, name)
			case !fi.Mode().IsRegular():
				return nil, nil, fmt.Errorf("data: directory %s: %s is not a regular file (%v; rename it to begin with \".\" or \"_\" to skip it)", p, name, fi.Mode().Type())
			}
			files, infos = append(files, path), append(infos, fi)
		}
		if len(files) == n {
			return nil, nil, fmt.Errorf("data: directory %s has no data files", p)
		}
	}
	bySize := make(map[int64][]int)
	for i, fi := range infos {
		for _, k := range bySize[fi.Size()] {
			if os.SameFile(infos[k], fi) {
				return nil, nil, fmt.Errorf("data: %s and %s are the same file: its rows would be read twice", files[k], files[i])
			}
		}
		bySize[fi.Size()] = append(bySize[fi.Size()], i)
	}
	return files, infos, nil
}

// typeAll reads every file once to decide the kinds of the columns and
// the states of the discrete ones from all the rows, as ReadCSV decides
// them from a whole file (a numeric column with two values in the first
// block and decimals later is continuous, as read whole), makes the
// checks of the whole stream, and opens the first file again. The
// columns are then fixed: every block has the states of the whole
// dataset, in SortStates order.
func (b *blockReader) typeAll() error {
	for b.src != nil {
		if ps, ok := b.src.(*parquetSource); ok {
			done, err := b.typeFromStats(ps)
			if err != nil {
				return err
			}
			if done {
				if err := b.openNext(); err != nil {
					return err
				}
				continue
			}
		}
		n, err := b.readBlock()
		if err != nil {
			return err
		}
		if n == 0 {
			if err := b.openNext(); err != nil {
				return err
			}
		}
	}
	// The checks in ReadCSV's order: the kind of each column (or its
	// having no value), then those of the whole stream.
	if b.rows == 0 {
		return b.finish()
	}
	t := &b.base.typing
	kinds := make([]Kind, len(b.cols))
	for j, c := range b.cols {
		if c.observed == 0 {
			return b.finish()
		}
		kind, err := c.decide(t)
		if err != nil {
			return err
		}
		kinds[j] = kind
	}
	if err := b.finish(); err != nil {
		return err
	}
	for j, c := range b.cols {
		kind := kinds[j]
		switch {
		case c.float:
		case kind == Continuous:
			c.toFloat(nil, 0)
		default:
			c.codes = nil
			c.pq.recode(c.sortStates())
		}
		c.kind, c.fixed, c.closed = kind, true, true
		c.floats, c.codes = nil, nil
		c.observed, c.missing, c.haveFirst, c.varied, c.first = 0, 0, false, false, 0
	}
	b.wantRows = b.rows
	b.rows, b.kept, b.fi = 0, 0, -1
	return b.openNext()
}

// vars returns the variables of the columns, their states cloned.
func (b *blockReader) vars() []Variable {
	vars := make([]Variable, len(b.cols))
	for j, c := range b.cols {
		vars[j] = Variable{Name: c.name, Kind: c.kind, States: slices.Clone(c.labels)}
	}
	return vars
}

// seed fixes the columns to the variables of an earlier typing pass over
// the same files (typeAll): their kinds and states, which no value may
// extend.
func (b *blockReader) seed(vars []Variable, claims [][]pqClaim) error {
	if len(vars) != len(b.cols) || !slices.EqualFunc(vars, b.cols, func(v Variable, c *column) bool { return v.Name == c.name }) {
		names := make([]string, len(vars))
		for j, v := range vars {
			names[j] = v.Name
		}
		return fmt.Errorf("data: the columns read (%s) are not those first read (%s): the files or the options changed", quoteNames(b.names, 12), quoteNames(names, 12))
	}
	for j, c := range b.cols {
		v := vars[j]
		if claims != nil {
			c.claims = slices.Clone(claims[j])
		}
		if c.forced && c.kind != v.Kind {
			return &ParseError{File: b.base.name, ColumnName: c.name, Err: fmt.Errorf("column forced %v, but first read %v: the options changed", c.kind, v.Kind)}
		}
		c.kind, c.fixed, c.closed = v.Kind, true, true
		if v.Kind == Continuous {
			c.float, c.floatStart = true, 0
			continue
		}
		c.labels = slices.Clone(v.States)
		c.values = make([]float64, len(c.labels))
		for k, l := range c.labels {
			f, class := classify(l)
			c.values[k] = f
			if class == classText {
				c.text = true
			}
		}
		if len(c.labels) > linearLookup {
			c.index = make(map[string]uint16, 2*len(c.labels))
			for k, l := range c.labels {
				c.index[l] = uint16(k)
			}
		}
	}
	return nil
}

// rowSource reads the rows of one file.
type rowSource interface {
	// header returns the file's column names, as a CSV file's header line
	// has them (not cleaned); before the first call to next, line gives
	// the line of each.
	header() []string
	// next reads the next row; it returns io.EOF at the end.
	next() error
	// cell returns field j of the current row, cleaned (trimmed, valid
	// UTF-8): valid until the next call to next.
	cell(j int) (string, error)
	// line returns the line (CSV) or row (Parquet) of field j of the
	// current row.
	line(j int) int
	close() error
}

type blockReader struct {
	opt   BlockOptions
	base  *reader // its name is the current file's
	files []string
	fi    int
	src   rowSource
	cols  []*column
	names []string
	rows  int64 // data rows read, including dropped ones
	kept  int64
	// wantRows is the number of rows of the typing pass (typeAll, or the
	// one known), 0 if there was none: a different number at the end
	// means a file changed in between.
	wantRows int64
	typed    *typedFiles // what typeAll found, if it ran
	miss     []bool
	pqCols   []pqColumn // per column, of readBlockParquet
	pqDrop   []bool     // rows of a Parquet chunk dropped for a missing cell
	pqNone   []bool     // no row dropped (readBlockParquetWhole)
	pqSegs   []pqSegment
	pqErrs   []pqSegErr
	pqFast   []pqFast
	done     bool
	closed   bool
}

// Names returns the variable names in column order.
func (b *blockReader) Names() []string { return slices.Clone(b.names) }

// Close closes the open file, if any.
func (b *blockReader) Close() error {
	b.closed = true
	if b.src == nil {
		return nil
	}
	err := b.src.close()
	b.src = nil
	return err
}

// openNext closes the current file and opens the next one, checking its
// columns; it sets src to nil when there are no more files.
func (b *blockReader) openNext() error {
	if b.src != nil {
		err := b.src.close()
		b.src = nil
		if err != nil {
			return &ParseError{File: b.base.name, Err: err}
		}
	}
	b.fi++
	if b.fi >= len(b.files) {
		return nil
	}
	b.base.name = b.files[b.fi]
	src, err := openSource(b.base.name, b.base.opt)
	if err != nil {
		return err
	}
	b.src = src
	// Select the columns as ReadCSV would.
	rd, err := newReader(b.opt.ReadOptions)
	if err != nil {
		return err
	}
	rd.name = b.base.name
	var at liner = src
	if _, ok := src.(*parquetSource); ok {
		at = lineOne{} // the "line" of a Parquet file's names
	}
	if err := rd.selectColumns(src.header(), at); err != nil {
		return err
	}
	if b.cols == nil {
		b.cols = rd.cols
		for _, c := range rd.cols {
			b.names = append(b.names, c.name)
		}
		b.miss = make([]bool, len(b.cols))
		b.useFields()
		return nil
	}
	pos := make(map[string]int, len(rd.cols))
	for _, c := range rd.cols {
		pos[c.name] = c.pos
	}
	var only, lacks []string
	for _, c := range b.cols {
		if _, ok := pos[c.name]; !ok {
			lacks = append(lacks, c.name)
		}
	}
	for _, c := range rd.cols {
		if !slices.Contains(b.names, c.name) {
			only = append(only, c.name)
		}
	}
	if len(only) > 0 || len(lacks) > 0 {
		var why []string
		if len(lacks) > 0 {
			why = append(why, fmt.Sprintf("%s has no column %s", rd.name, quoteNames(lacks, 12)))
		}
		if len(only) > 0 {
			why = append(why, fmt.Sprintf("only %s has column %s", rd.name, quoteNames(only, 12)))
		}
		return &ParseError{File: rd.name, Err: fmt.Errorf("columns differ from those of %s: %s", b.files[0], strings.Join(why, "; "))}
	}
	for _, c := range b.cols {
		c.pos = pos[c.name]
	}
	b.useFields()
	return nil
}

// useFields tells a Parquet source which columns are read, and empties
// the cache of a column whose values the source keys differently (see
// pqSignature).
func (b *blockReader) useFields() {
	if ps, ok := b.src.(*parquetSource); ok {
		fields := make([]int, len(b.cols))
		for k, c := range b.cols {
			fields[k] = c.pos - 1
			if sig := ps.signature(c.pos - 1); sig != c.pqSig {
				c.pq, c.pqSig = pqCache{}, sig
			}
		}
		ps.use(fields)
	}
}

// Next reads the next block.
func (b *blockReader) Next() (*Dataset, error) {
	if b.closed {
		return nil, errors.New("data: Next on a closed BlockReader")
	}
	for !b.done {
		if b.src == nil {
			b.done = true
			break
		}
		n, err := b.readBlock()
		if err != nil {
			b.done = true
			return nil, err
		}
		if n > 0 {
			return b.build(n)
		}
		if err := b.openNext(); err != nil {
			b.done = true
			return nil, err
		}
	}
	b.Close()
	if b.wantRows > 0 && b.rows != b.wantRows {
		return nil, fmt.Errorf("data: %d data rows in %s, but %d when the files were first read: a file changed since", b.rows, strings.Join(b.files, ", "), b.wantRows)
	}
	if err := b.checkClaims(); err != nil {
		return nil, err
	}
	if err := b.finish(); err != nil {
		return nil, err
	}
	return nil, io.EOF
}

// finish makes the checks of the whole stream.
func (b *blockReader) finish() error {
	t := &b.base.typing
	t.name = strings.Join(b.files, ", ")
	if len(b.files) > 3 {
		t.name = fmt.Sprintf("%s, … (%d files)", strings.Join(b.files[:3], ", "), len(b.files))
	}
	if b.rows == 0 {
		return t.errorf(0, nil, "no data rows")
	}
	if b.kept == 0 {
		return t.errorf(0, nil, "all %d rows have a missing cell; no rows left after dropping them", b.rows)
	}
	for _, c := range b.cols {
		e := &ParseError{File: t.name, ColumnName: c.name}
		if c.observed == 0 {
			e.Err = fmt.Errorf("all %d values are missing (skip the column with --ignore)", b.kept)
			return e
		}
		if b.opt.KeepConstant {
			continue
		}
		isConst, val := c.constant(c.kind)
		if !isConst {
			continue
		}
		e.Err = fmt.Errorf("constant column: every observed value is %s (remove the column, or keep it with KeepConstant)", QuoteCell(val))
		return e
	}
	return nil
}

// readBlock reads up to BlockRows rows of the current file into the
// columns' buffers and returns the number kept.
func (b *blockReader) readBlock() (int, error) {
	for _, c := range b.cols {
		c.codes, c.floats = c.codes[:0], c.floats[:0]
	}
	if ps, ok := b.src.(*parquetSource); ok {
		return b.readBlockParquet(ps)
	}
	rd := b.base
	n := 0
	cells := make([]string, len(b.cols))
	for n < b.opt.BlockRows {
		err := b.src.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
		b.rows++
		anyMissing := false
		for k, c := range b.cols {
			s, err := b.src.cell(c.pos - 1)
			if err != nil {
				return 0, err
			}
			cells[k] = s
			m := rd.isMissing(s)
			b.miss[k] = m
			if m {
				if rd.opt.Missing == MissingError {
					return 0, rd.missingError(b.src.line(c.pos-1), c, s)
				}
				anyMissing = true
			}
		}
		if anyMissing && rd.opt.Missing == MissingDropRows {
			continue
		}
		for k, c := range b.cols {
			if b.miss[k] {
				c.addMissing()
				continue
			}
			if err := c.add(&rd.typing, cells[k], b.src); err != nil {
				return 0, err
			}
		}
		n++
	}
	b.kept += int64(n)
	return n, nil
}

// fix decides the kinds of the columns after the first block and sorts the
// states found in it as ReadCSV would.
func (b *blockReader) fix() error {
	t := &b.base.typing
	for _, c := range b.cols {
		if !c.float && !c.forced && len(c.labels) == 0 {
			return t.errorf(0, c, "every value of the first block is missing: the column's kind cannot be inferred (force it continuous, or read larger blocks)")
		}
		kind, err := c.decide(t)
		if err != nil {
			return err
		}
		c.kind, c.fixed = kind, true
		switch {
		case c.float:
		case kind == Continuous:
			c.toFloat(floatBuffer(c.floats, len(c.codes)), 0)
		case len(c.labels) == 0:
			return t.errorf(0, c, "every value of the first block is missing: the column's states cannot be known (read larger blocks)")
		default:
			recode := c.sortStates()
			recodeCells(c.codes, c.codes, recode)
			c.pq.recode(recode)
		}
	}
	return nil
}

// build returns the block of n rows held by the columns' buffers.
func (b *blockReader) build(n int) (*Dataset, error) {
	if !b.cols[0].fixed {
		if err := b.fix(); err != nil {
			return nil, err
		}
	}
	vars := make([]Variable, len(b.cols))
	disc := make([][]uint16, len(b.cols))
	cont := make([][]float64, len(b.cols))
	for j, c := range b.cols {
		vars[j] = Variable{Name: c.name, Kind: c.kind, States: c.labels}
		if c.kind == Discrete {
			disc[j] = slices.Clone(c.codes)
		} else {
			cont[j] = slices.Clone(c.floats)
		}
	}
	d, err := withColumns(vars, n, disc, cont)
	if err != nil {
		return nil, &ParseError{File: b.base.name, Err: err}
	}
	return d, nil
}

// lineOne is a liner whose every field is on line 1.
type lineOne struct{}

func (lineOne) line(int) int { return 1 }

// openHook, if not nil, is called with the path of every file openSource
// opens: tests count the reads.
var openHook func(path string)

// openSource opens one input file by its format (fileFormat).
func openSource(path string, opt ReadOptions) (rowSource, error) {
	if openHook != nil {
		openHook(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var magic [4]byte
	m, _ := io.ReadFull(f, magic[:])
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, &ParseError{File: path, Err: err}
	}
	switch fileFormat(magic[:m], path) {
	case Parquet:
		lim, err := newLimits(opt)
		if err != nil {
			f.Close()
			return nil, err
		}
		src, err := openParquet(path, f)
		if err != nil {
			f.Close()
			return nil, err
		}
		src.lim = lim
		return src, nil
	case GzipCSV:
		zr, err := gzip.NewReader(bufio.NewReaderSize(f, 64<<10))
		if err != nil {
			f.Close()
			return nil, &ParseError{File: path, Err: fmt.Errorf("not a valid gzip file: %w", err)}
		}
		src, err := openCSV(path, strings.TrimSuffix(path, filepath.Ext(path)), zr, opt, func() error { zr.Close(); return f.Close() })
		if err != nil {
			zr.Close()
			f.Close()
		}
		return src, err
	}
	src, err := openCSV(path, path, f, opt, f.Close)
	if err != nil {
		f.Close()
	}
	return src, err
}

// csvSource reads the rows of a CSV file.
type csvSource struct {
	rd     *reader
	raw    []string // the header's fields
	names  []string // cleaned
	rec    []string
	closer func() error
}

// openCSV reads the header of a CSV stream; extName is the name whose
// extension may select the tab delimiter.
func openCSV(name, extName string, in io.Reader, opt ReadOptions, closer func() error) (*csvSource, error) {
	opt.Name = extName
	rd, err := newReader(opt)
	if err != nil {
		return nil, err
	}
	rd.name = name
	if err := rd.start(in); err != nil {
		return nil, err
	}
	cr := rd.cr
	header, err := cr.Read()
	if err == io.EOF {
		return nil, rd.errorf(0, nil, "empty input: no header line")
	}
	if err != nil {
		return nil, rd.csvError(err)
	}
	raw := make([]string, len(header))
	names := make([]string, len(header))
	for j, h := range header {
		raw[j] = strings.Clone(h)
		s, _ := cleanField(raw[j]) // a bad name is an error if its column is read
		names[j] = s
	}
	return &csvSource{rd: rd, raw: raw, names: names, closer: closer}, nil
}

func (s *csvSource) header() []string { return s.raw }

func (s *csvSource) next() error {
	rec, err := s.rd.cr.Read()
	if err == io.EOF {
		return err
	}
	if err != nil {
		return s.rd.csvError(err)
	}
	if len(rec) != len(s.names) {
		return s.rd.errorf(s.rd.line(0), nil, "row has %d fields, but the header has %d", len(rec), len(s.names))
	}
	s.rec = rec
	return nil
}

func (s *csvSource) cell(j int) (string, error) {
	return s.rd.cleanCell(s.rec[j], j, s.names[j])
}

func (s *csvSource) line(j int) int { return s.rd.line(j) }

func (s *csvSource) close() error { return s.closer() }
