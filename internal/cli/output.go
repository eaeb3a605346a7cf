package cli

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// Output safety. Every command follows two rules:
//
//  1. Before any work it calls checkPaths with every input and output path
//     it was given: an output that is an input or another output, two
//     outputs on standard output, or an output whose directory is missing
//     or not writable is a usage error naming the flags, found before the
//     data are read or a model is fitted.
//  2. It writes its files with writeOutputs (or writeTo, writeResults): each
//     file goes to a temporary file in the destination's directory, and only
//     when every file of the command has been written completely are they
//     renamed over their destinations. A failure leaves no partial file and
//     keeps the old contents of every destination; so does SIGINT or
//     SIGTERM (see tempFiles). New files get 0666 less the umask.
//
// A command's summary goes to standard output unless one of its outputs
// does ("-"); then it goes to standard error (see summaryWriter).

// pathFlag is a path given on the command line and how it was given: a
// flag ("--out") or an argument ("DATA"). An empty path was not given;
// "-" is standard input or output.
type pathFlag struct {
	flag, path string
}

// checkPaths checks the paths of a command before it does any work. It
// returns a usage error (exit 2) naming the flags when
//   - an output is one of the inputs (the same cleaned absolute path, or
//     the same file by os.SameFile when both exist),
//   - two outputs name the same file,
//   - more than one output is "-" (standard output), or more than one
//     input is "-" (standard input),
//   - an output's directory does not exist, is not a directory or is not
//     writable, or the output is an existing directory.
//
// Outputs that exist and are not regular files (/dev/null, a named pipe)
// are written in place and not checked for a writable directory. Empty
// paths are skipped.
func (e *env) checkPaths(inputs, outputs []pathFlag) error {
	type resolved struct {
		pathFlag
		abs  string
		info fs.FileInfo // nil if the file does not exist
	}
	resolve := func(list []pathFlag, what string) ([]resolved, error) {
		var out []resolved
		var stdio []string
		for _, p := range list {
			if p.path == "" {
				continue
			}
			if p.path == "-" {
				stdio = append(stdio, p.flag)
				continue
			}
			abs, err := filepath.Abs(p.path)
			if err != nil {
				return nil, usagef("%s %s: %v", p.flag, p.path, err)
			}
			r := resolved{pathFlag: p, abs: abs}
			if info, err := os.Stat(abs); err == nil {
				r.info = info
			}
			out = append(out, r)
		}
		if len(stdio) > 1 {
			verb := "both"
			if len(stdio) > 2 {
				verb = "all"
			}
			return nil, usagef("%s %s use %s (\"-\"); only one can, give the others a file", joinFlags(stdio), verb, what)
		}
		return out, nil
	}
	ins, err := resolve(inputs, "standard input")
	if err != nil {
		return err
	}
	outs, err := resolve(outputs, "standard output")
	if err != nil {
		return err
	}
	same := func(a, b resolved) bool {
		if a.abs == b.abs {
			return true
		}
		return a.info != nil && b.info != nil && os.SameFile(a.info, b.info)
	}
	for i, o := range outs {
		for _, in := range ins {
			if same(o, in) {
				return usagef("%s %s is also the input %s: writing it would destroy the input; choose another output file", o.flag, o.path, in.flag)
			}
		}
		for _, p := range outs[:i] {
			if same(o, p) {
				return usagef("%s and %s both write %s; choose different files", p.flag, o.flag, o.path)
			}
		}
	}
	for _, o := range outs {
		e.resolveOutput(o.path)
		if o.info != nil && o.info.IsDir() {
			return usagef("%s %s is a directory, not a file", o.flag, o.path)
		}
		if o.info != nil && !o.info.Mode().IsRegular() {
			continue // a device or pipe, written in place
		}
		if err := checkWritableDir(filepath.Dir(o.abs)); err != nil {
			return usagef("%s %s: %v", o.flag, o.path, err)
		}
	}
	return nil
}

// joinFlags joins flag names as "a, b and c".
func joinFlags(f []string) string {
	if len(f) < 2 {
		return strings.Join(f, "")
	}
	return strings.Join(f[:len(f)-1], ", ") + " and " + f[len(f)-1]
}

// checkWritableDir checks that dir is an existing directory in which a
// file can be created, by creating and removing one.
func checkWritableDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("directory %s does not exist", dir)
		}
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".latentree-check-*")
	if err != nil {
		return fmt.Errorf("cannot create files in directory %s", dir)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// summaryWriter returns where a command prints its summary (text or
// --json): standard output, unless an output is "-", in which case
// standard output carries that output alone and the summary goes to
// standard error.
func (e *env) summaryWriter(outputs []pathFlag) io.Writer {
	for _, o := range outputs {
		if o.path == "-" {
			return e.stderr
		}
	}
	return e.stdout
}

// output is a destination (a path, or an extension for writeResults) and
// the function that writes it.
type output struct {
	path string
	fn   func(io.Writer) error
}

// writeTo writes a result with fn to path, or to standard output when path
// is "" or "-", as writeOutputs does.
func (e *env) writeTo(path string, fn func(io.Writer) error) error {
	if path == "" {
		path = "-"
	}
	return e.writeOutputs([]output{{path, fn}})
}

// writeOutputs writes every output whose path is set ("-" is standard
// output). Files are written to temporary files next to their
// destinations; only when all of them, and the standard output, have been
// written are they renamed over their destinations. On error no
// destination is changed and the temporary files are removed.
func (e *env) writeOutputs(outs []output) error {
	temps := newTempFiles()
	defer temps.stop()
	var staged []*stagedFile
	abort := func() {
		for _, s := range staged {
			s.abort()
		}
	}
	for _, o := range outs {
		if o.path == "" || o.path == "-" {
			continue
		}
		s, err := e.stageFile(o.path, o.fn, temps)
		if err != nil {
			abort()
			return err
		}
		staged = append(staged, s)
	}
	for _, o := range outs {
		if o.path == "-" {
			err := o.fn(e.stdout)
			if err == nil {
				err = e.stdoutErr()
			}
			if err != nil {
				abort()
				return err
			}
		}
	}
	for i, s := range staged {
		if err := s.commit(); err != nil {
			for _, r := range staged[i:] {
				r.abort()
			}
			return err
		}
	}
	return nil
}

// resolveOutput records where an output path leads when the command
// starts: the file a symbolic link at path points to, or path itself. The
// files are written there (see stageFile), so a symbolic link planted at
// the destination while the command runs is replaced, never followed.
func (e *env) resolveOutput(path string) {
	if e.outputs == nil {
		e.outputs = map[string]string{}
	}
	dest := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		dest = real
	}
	e.outputs[path] = dest
}

// stagedFile is an output written to a temporary file, waiting to be
// renamed over its destination.
type stagedFile struct {
	dest, tmp string
	temps     *tempFiles
}

// stageFile writes fn's output for path to a temporary file next to its
// destination: the file path led to when checkPaths saw it (a symbolic
// link then present is followed, so the file it points to is replaced and
// the link kept), or path itself, a link planted since being replaced
// rather than followed. A destination that exists and is not a regular
// file (/dev/null, a named pipe) is written in place, since it cannot be
// replaced. A new file gets the permissions os.Create gives (0666 less the
// umask), a replaced one keeps its own.
func (e *env) stageFile(path string, fn func(io.Writer) error, temps *tempFiles) (*stagedFile, error) {
	dest, ok := e.outputs[path]
	if !ok {
		dest = path
	}
	keep := fs.FileMode(0)
	if info, err := os.Lstat(dest); err == nil {
		switch {
		case info.IsDir():
			return nil, fmt.Errorf("%s is a directory", path)
		case info.Mode().IsRegular():
			keep = info.Mode().Perm()
		case info.Mode()&fs.ModeSymlink == 0:
			return &stagedFile{}, writeInPlace(dest, path, fn)
		}
	}
	f, err := temps.create(dest)
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	s := &stagedFile{dest: dest, tmp: f.Name(), temps: temps}
	err = fn(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && keep != 0 {
		err = os.Chmod(s.tmp, keep)
	}
	if err != nil {
		s.abort()
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return s, nil
}

func writeInPlace(dest, path string, fn func(io.Writer) error) error {
	f, err := os.OpenFile(dest, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = fn(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func (s *stagedFile) commit() error {
	if s.tmp == "" {
		return nil
	}
	if err := os.Rename(s.tmp, s.dest); err != nil {
		s.abort()
		return fmt.Errorf("cannot replace %s: %w", s.dest, err)
	}
	s.temps.forget(s.tmp)
	s.tmp = ""
	return nil
}

func (s *stagedFile) abort() {
	if s.tmp != "" {
		os.Remove(s.tmp)
		s.temps.forget(s.tmp)
		s.tmp = ""
	}
}

// tempFiles are the temporary files of one writeOutputs. While they
// exist, SIGINT and SIGTERM remove them before the process exits (with
// 128 + the signal's number, as the shell reports a death by signal), so
// an interrupted write leaves no hidden .NAME.tmp-* file behind.
type tempFiles struct {
	mu    sync.Mutex
	names map[string]bool
	sigs  chan os.Signal
	done  chan struct{}
}

// exitCodes are the exit statuses after the signals tempFiles catches.
var exitCodes = map[os.Signal]int{os.Interrupt: 130, syscall.SIGTERM: 143}

func newTempFiles() *tempFiles {
	t := &tempFiles{names: map[string]bool{}, sigs: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(t.sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-t.sigs:
			t.mu.Lock() // held until exit: no file is created after this
			for name := range t.names {
				os.Remove(name)
			}
			os.Exit(exitCodes[sig])
		case <-t.done:
		}
	}()
	return t
}

// stop restores the default handling of the signals.
func (t *tempFiles) stop() {
	signal.Stop(t.sigs)
	close(t.done)
}

// create creates a temporary file next to dest, readable and writable as
// os.Create makes files (0666 less the umask).
func (t *tempFiles) create(dest string) (*os.File, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for range 100 {
		name := filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp-"+rand.Text()[:12])
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err == nil {
			t.names[name] = true
		}
		return f, err
	}
	return nil, fmt.Errorf("no free temporary name next to %s", dest)
}

func (t *tempFiles) forget(name string) {
	t.mu.Lock()
	delete(t.names, name)
	t.mu.Unlock()
}

// resultPaths returns the files writeResults writes for a path prefix, as
// outputs for checkPaths ("--out (.csv)" → prefix.csv), after creating the
// prefix's directory (so that checkPaths can check it is writable). An
// empty prefix gives none.
// checkResults checks, before any work, the files an experiment writes
// next to its --out path prefix (see resultPaths) against its inputs.
func (e *env) checkResults(inputs []pathFlag, prefix string, exts ...string) error {
	outs, err := resultPaths("--out", prefix, exts...)
	if err != nil {
		return err
	}
	return e.checkPaths(inputs, outs)
}

func resultPaths(flag, prefix string, exts ...string) ([]pathFlag, error) {
	if prefix == "" {
		return nil, nil
	}
	if prefix == "-" {
		return nil, usagef("%s is a path prefix for files; standard output (\"-\") cannot be used", flag)
	}
	if dir := filepath.Dir(prefix); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, usagef("%s %s: %v", flag, prefix, err)
		}
	}
	out := make([]pathFlag, len(exts))
	for i, x := range exts {
		out[i] = pathFlag{fmt.Sprintf("%s (.%s)", flag, x), prefix + "." + x}
	}
	return out, nil
}

// writeResults writes experiment results next to a path prefix: for every
// output, prefix+"."+path is written by its function, all or none (see
// writeOutputs). The prefix's directory is created if needed. An empty
// prefix writes nothing.
func (e *env) writeResults(prefix string, files []output) error {
	if prefix == "" {
		return nil
	}
	if dir := filepath.Dir(prefix); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	outs := make([]output, len(files))
	for i, f := range files {
		outs[i] = output{prefix + "." + f.path, f.fn}
	}
	return e.writeOutputs(outs)
}

// treeOutputs are the --newick, --tree-json and --dot outputs of a tree;
// continuous (see continuousNodes) marks the continuous nodes in the DOT.
func treeOutputs(t *tree.Tree, newick, treeJSON, dot string, continuous []bool) []output {
	return []output{
		{newick, func(w io.Writer) error { return tree.WriteNewick(w, t, tree.NewickOptions{}) }},
		{treeJSON, func(w io.Writer) error { return tree.WriteJSON(w, t) }},
		{dot, func(w io.Writer) error { return tree.WriteDOT(w, t, tree.DOTOptions{Continuous: continuous}) }},
	}
}

// continuousNodes marks, by node identifier of t, the continuous nodes of
// m, a mixed model whose structure is t or has t's node names; nil for
// other models (nothing to tell apart).
func continuousNodes(t *tree.Tree, m model.Model) []bool {
	if m == nil || m.Kind() != data.Mixed {
		return nil
	}
	s := m.Structure()
	marks := make([]bool, t.MaxID())
	for _, v := range t.Nodes() {
		u := v
		if s != t {
			var ok bool
			if u, ok = s.Lookup(t.Name(v)); !ok {
				return nil
			}
		}
		marks[v] = m.NodeKind(u) == data.Continuous
	}
	return marks
}
