package data

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// filesShards writes three shards of different sizes to a directory: a
// plain CSV file, a gzip-compressed one and a Parquet file, with a state
// of "m, spaced" seen only in the last one.
func filesShards(t *testing.T) (dir string, paths []string) {
	t.Helper()
	dir = t.TempDir()
	csvOf := func(d *Dataset) []byte {
		var b bytes.Buffer
		if err := WriteCSV(&b, d); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	first := pqTestData(t, 100)
	for i := range first.NumRows() {
		if first.Discrete(2)[i] == 2 {
			first.Discrete(2)[i] = 0
		}
	}
	paths = append(paths, writeTemp(t, dir, "part1.csv", csvOf(first)))
	paths = append(paths, writeTemp(t, dir, "part2.csv.gz", gz(string(csvOf(pqTestData(t, 150))))))
	pq := writeParquetBlocks(t, t.TempDir(), 16, pqTestData(t, 70))
	b, err := os.ReadFile(pq)
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, writeTemp(t, dir, "part3.parquet", b))
	return dir, paths
}

// scanDump scans f and describes its blocks, counting the files opened.
func scanDump(t *testing.T, f *Files) (string, map[string]int, error) {
	t.Helper()
	var mu sync.Mutex
	opens := make(map[string]int)
	openHook = func(path string) {
		mu.Lock()
		opens[filepath.Base(path)]++
		mu.Unlock()
	}
	defer func() { openHook = nil }()
	var blocks []*Dataset
	err := f.Scan(func(b *Dataset) error {
		blocks = append(blocks, b) // OpenBlocks gives every block its own memory
		return nil
	})
	return dump(blocks), opens, err
}

// Files types the columns from every row on its first pass (reading each
// file twice) and reads each file once on later passes, which give the
// same blocks: the same variables, states in the same order, and cells.
func TestFilesLaterPassesReadOnce(t *testing.T) {
	dir, paths := filesShards(t)
	opt := BlockOptions{ReadOptions: ReadOptions{Missing: MissingKeep}, BlockRows: 32}
	want, err := readAll(paths, opt)
	if err != nil {
		t.Fatal(err)
	}
	f := &Files{Paths: []string{dir}, Options: opt}
	var first string
	for pass, opened := range []int{2, 1, 1} {
		got, opens, err := scanDump(t, f)
		if err != nil {
			t.Fatalf("pass %d: %v", pass+1, err)
		}
		if got != dump(want) {
			t.Errorf("pass %d: blocks differ from OpenBlocks':\n%s\nwant\n%s", pass+1, got, dump(want))
		}
		if pass == 0 {
			first = got
		} else if got != first {
			t.Errorf("pass %d differs from pass 1", pass+1)
		}
		for _, p := range paths {
			if n := opens[filepath.Base(p)]; n != opened {
				t.Errorf("pass %d opened %s %d times, want %d", pass+1, filepath.Base(p), n, opened)
			}
		}
	}
	if !strings.Contains(first, `"a b" "c" "d e f"`) {
		t.Errorf("the state seen in the last shard only is not in the first block's:\n%s", first)
	}
}

// A file changed between passes makes the later pass an error: changed
// size, or (same size, modification time restored) a value not among the
// states of the first pass.
func TestFilesChangedBetweenPasses(t *testing.T) {
	cases := []struct {
		name   string
		change func(old []byte) []byte
		want   string
	}{
		{"longer", func(old []byte) []byte { return append(old, old[bytes.IndexByte(old, '\n')+1:]...) }, "changed since it was first read"},
		{"new state", func(old []byte) []byte { return bytes.Replace(old, []byte("yes"), []byte("yep"), 1) }, `value "yep" is not among`},
		{"text in a continuous column", func(old []byte) []byte {
			// The last cell is b = 99/7, continuous.
			return append(old[:len(old)-4], "abc\n"...)
		}, "found continuous when the files were first read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, paths := filesShards(t)
			f := &Files{Paths: []string{dir}, Options: BlockOptions{ReadOptions: ReadOptions{Missing: MissingKeep}, BlockRows: 32}}
			if _, _, err := scanDump(t, f); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(paths[0])
			if err != nil {
				t.Fatal(err)
			}
			old, _ := os.ReadFile(paths[0])
			now := c.change(bytes.Clone(old))
			if bytes.Equal(now, old) {
				t.Fatal("the change changes nothing")
			}
			if err := os.WriteFile(paths[0], now, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(paths[0], fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			_, _, err = scanDump(t, f)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "part1.csv") {
				t.Errorf("got %v, want an error naming part1.csv with %q", err, c.want)
			}
		})
	}
}
