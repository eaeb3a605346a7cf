package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// endless is a reader of n bytes (n < 0: without end): head, then fill.
type endless struct {
	head []byte
	fill byte
	n    int64
}

func (r *endless) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	if r.n > 0 && int64(len(p)) > r.n {
		p = p[:r.n]
	}
	k := copy(p, r.head)
	r.head = r.head[k:]
	for i := k; i < len(p); i++ {
		p[i] = r.fill
	}
	if r.n > 0 {
		r.n -= int64(len(p))
	}
	return len(p), nil
}

// boundedRead runs read, checking that it allocates at most maxAlloc bytes
// in all and returns within 2 s.
func boundedRead(t *testing.T, maxAlloc uint64, read func() error) error {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	t0 := time.Now()
	err := read()
	took := time.Since(t0)
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > maxAlloc {
		t.Errorf("allocated %d MiB, want at most %d MiB", grew>>20, maxAlloc>>20)
	}
	if took > 2*time.Second {
		t.Errorf("took %v", took)
	}
	return err
}

// Rows longer than MaxLineBytes (one 1 GiB line, a 400 MB quoted field,
// a stream of zero bytes without a line break) fail at the limit with
// memory bounded by it, naming the line where the row starts.
func TestLongRowsRefused(t *testing.T) {
	const limit = 4 << 20
	for _, c := range []struct {
		name string
		in   io.Reader
		want string
	}{
		{"long line", &endless{head: []byte("a,b\n1,2\n"), fill: '0', n: 1 << 30}, "big.csv:3: row longer than 4194304 bytes"},
		{"quoted field", &endless{head: []byte("a,b\n1,\""), fill: 'x', n: 400 << 20}, "big.csv:2: row longer than 4194304 bytes"},
		{"quoted lines", &endless{head: []byte("a,b\n1,2\n1,\""), fill: '\n', n: 400 << 20}, "big.csv:3: row longer than 4194304 bytes"},
		{"zeros", &endless{fill: 0, n: -1}, "big.csv:1: row longer than 4194304 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := boundedRead(t, 12*limit, func() error {
				_, _, err := ReadCSV(c.in, ReadOptions{Name: "big.csv", MaxLineBytes: limit})
				return err
			})
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), c.want) || !strings.Contains(err.Error(), "--max-line-bytes; ReadOptions.MaxLineBytes") {
				t.Errorf("error %v, want %s…", err, c.want)
			}
		})
	}
	// At the limit a row is read.
	row := "a,b\n1," + strings.Repeat("2", 10) + "\n3,4\n"
	if _, _, err := ReadCSV(strings.NewReader(row), ReadOptions{MaxLineBytes: 12, MaxFieldBytes: 10}); err != nil {
		t.Errorf("row of 12 bytes: %v", err)
	}
	if _, _, err := ReadCSV(strings.NewReader(row), ReadOptions{MaxLineBytes: 11}); err == nil || !strings.HasPrefix(err.Error(), "<input>:2: row longer than 11 bytes") {
		t.Errorf("row of 12 bytes, limit 11: %v", err)
	}
	if _, _, err := ReadCSV(strings.NewReader(row), ReadOptions{MaxLineBytes: -1}); err == nil {
		t.Error("negative MaxLineBytes accepted")
	}
}

// The default limit bounds a gzip file of one long line, read in blocks:
// 4.6 MB of gzip held a 1 GB line.
func TestLongRowGzipBlocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.csv.gz")
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	zw.Write([]byte("a,b\n"))
	zw.Write(bytes.Repeat([]byte("0"), DefaultMaxLineBytes+1))
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	err := boundedRead(t, 12*DefaultMaxLineBytes, func() error {
		r, err := OpenBlocks([]string{path}, BlockOptions{})
		if err != nil {
			return err
		}
		defer r.Close()
		_, err = r.Next()
		return err
	})
	if err == nil || !strings.HasPrefix(err.Error(), path+":2: row longer than 16777216 bytes") {
		t.Errorf("error %v", err)
	}
}

// Cells longer than MaxFieldBytes, and NUL bytes in cells, are errors
// naming the file, line and column.
func TestCellLimits(t *testing.T) {
	long := "a,b\n1,2\n3," + strings.Repeat("x", 101) + "\n"
	_, _, err := ReadCSV(strings.NewReader(long), ReadOptions{Name: "f.csv", MaxFieldBytes: 100})
	if want := `f.csv:3: column "b": cell of 101 bytes, longer than the limit of 100 (raise it with --max-field-bytes; ReadOptions.MaxFieldBytes)`; err == nil || err.Error() != want {
		t.Errorf("long cell: %v\nwant %s", err, want)
	}
	if _, _, err := ReadCSV(strings.NewReader(long), ReadOptions{MaxFieldBytes: 101}); err != nil {
		t.Errorf("cell at the limit: %v", err)
	}
	// A long cell of a column not read is no error.
	if _, _, err := ReadCSV(strings.NewReader("c,"+long[:len("a,b")]+"\n1,2,3\n4,5,"+strings.Repeat("y", 200)+"\n"), ReadOptions{Columns: []string{"c", "a"}, MaxFieldBytes: 100, KeepConstant: true}); err != nil {
		t.Errorf("long cell not read: %v", err)
	}
	nul := "a,b\n1,x\n2,x\x00y\n"
	_, _, err = ReadCSV(strings.NewReader(nul), ReadOptions{Name: "f.csv"})
	if want := `f.csv:3: column "b": NUL byte in the cell`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("NUL: %v\nwant %s…", err, want)
	}
	path := filepath.Join(t.TempDir(), "n.csv")
	os.WriteFile(path, []byte(nul), 0o600)
	r, err := OpenBlocks([]string{path}, BlockOptions{})
	if err == nil {
		_, err = r.Next()
		r.Close()
	}
	if want := path + `:3: column "b": NUL byte in the cell`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("NUL in blocks: %v\nwant %s…", err, want)
	}
}
