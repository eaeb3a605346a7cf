package data

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countRows reads paths in blocks and returns the number of rows.
func countRows(paths []string) (int, error) {
	r, err := OpenBlocks(paths, BlockOptions{})
	if err != nil {
		return 0, err
	}
	defer r.Close()
	n := 0
	for {
		b, err := r.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += b.NumRows()
	}
}

// A shard directory follows symbolic links to files and refuses, naming
// them, subdirectories, links to directories, broken links and a file
// read twice: none is skipped silently (stats s/ counted 1,000 of 2,000
// rows when half the shards were links).
func TestShardDirectoryLinks(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	write := func(path string) {
		if err := os.WriteFile(path, []byte("a,b\n0,x\n1,y\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := filepath.Join(dir, "s")
	os.Mkdir(s, 0o700)
	write(filepath.Join(s, "part1.csv"))
	write(filepath.Join(other, "part2.csv"))
	if err := os.Symlink(filepath.Join(other, "part2.csv"), filepath.Join(s, "part2.csv")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	os.WriteFile(filepath.Join(s, "_SUCCESS"), nil, 0o600)
	if n, err := countRows([]string{s}); err != nil || n != 4 {
		t.Errorf("linked shard: %d rows, %v; want 4", n, err)
	}
	for _, c := range []struct {
		name string
		make func(path string) error
		want string
	}{
		{"sub", func(p string) error { return os.Mkdir(p, 0o700) }, "holds the subdirectory sub: shards are read from the directory itself"},
		{"linkdir", func(p string) error { return os.Symlink(other, p) }, "holds the subdirectory linkdir"},
		{"broken", func(p string) error { return os.Symlink(filepath.Join(other, "nope"), p) }, "broken: stat"},
		{"twice.csv", func(p string) error { return os.Symlink(filepath.Join(s, "part1.csv"), p) }, "are the same file: its rows would be read twice"},
	} {
		p := filepath.Join(s, c.name)
		if err := c.make(p); err != nil {
			t.Fatal(err)
		}
		if _, err := countRows([]string{s}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		os.Remove(p)
	}
	// The same file given twice.
	f := filepath.Join(s, "part1.csv")
	if _, err := countRows([]string{f, s}); err == nil || !strings.Contains(err.Error(), "are the same file") {
		t.Errorf("file and its directory: %v", err)
	}
}

// gzip text is decompressed by ReadCSV whatever its source (standard
// input gave a "bare quote" error), and Parquet data is refused with a
// message saying to give its path.
func TestReadCSVSniffsInput(t *testing.T) {
	plain := "a\tb\n1\tx\n2\ty\n3\tx\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(plain))
	zw.Close()
	want, _, err := ReadCSV(strings.NewReader(plain), ReadOptions{Name: "d.tsv"})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadCSV(bytes.NewReader(gz.Bytes()), ReadOptions{Name: "d.tsv.gz"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := sameDataset(got, want); diff != "" {
		t.Errorf("gzip read differently: %s", diff)
	}
	_, _, err = ReadCSV(strings.NewReader("PAR1\x15\x04"), ReadOptions{Name: "<stdin>"})
	if err == nil || !strings.HasPrefix(err.Error(), "<stdin>: Parquet data, not CSV") {
		t.Errorf("Parquet on standard input: %v", err)
	}
	_, _, err = ReadCSV(strings.NewReader("\x1f\x8bxx"), ReadOptions{Name: "<stdin>"})
	if err == nil || !strings.HasPrefix(err.Error(), "<stdin>: not a valid gzip file") {
		t.Errorf("bad gzip: %v", err)
	}
}
