package stats

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
)

// scribbled is a Source that gives the blocks of src and overwrites every
// cell of each block after fn returns, as a source reusing its buffers
// would: statistics must not keep references to a block.
type scribbled struct{ src data.Source }

func (s scribbled) Scan(fn func(*data.Dataset) error) error {
	return s.src.Scan(func(b *data.Dataset) error {
		err := fn(b)
		for j := 0; j < b.NumVars(); j++ {
			clear(b.Discrete(j))
			for i := range b.Continuous(j) {
				b.Continuous(j)[i] = math.NaN()
			}
		}
		return err
	})
}

type sourceFunc func(fn func(*data.Dataset) error) error

func (f sourceFunc) Scan(fn func(*data.Dataset) error) error { return f(fn) }

// TestComputeSourceEqualsCompute checks that statistics computed over the
// blocks of a Packed (several block sizes) and of Files (CSV, Parquet,
// shards) equal Compute on the whole file read with ReadCSV: counts
// exactly, moments to 1e-12, the states in the same order.
func TestComputeSourceEqualsCompute(t *testing.T) {
	const rows = 3000
	all := blockRows(rows, 2)
	cols := []string{"d", "b", "s", "t", "x", "y"}
	text := blockCSV(all, cols)
	ropt := data.ReadOptions{Missing: data.MissingKeep}
	d, _, err := data.ReadCSV(strings.NewReader(text), ropt)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	csvPath := writeFile(t, filepath.Join(dir, "all.csv"), []byte(text))
	pqPath := writeFile(t, filepath.Join(dir, "all.parquet"), parquetBytes(t, all, 700))
	shards := filepath.Join(dir, "shards")
	if err := os.Mkdir(shards, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(shards, "part-0.csv"), []byte(blockCSV(all[:900], cols)))
	writeFile(t, filepath.Join(shards, "part-1.csv.gz"), gzipBytes(t, blockCSV(all[900:2000], []string{"y", "t", "s", "x", "b", "d"})))
	writeFile(t, filepath.Join(shards, "part-2.parquet"), parquetBytes(t, all[2000:], 300))

	files := func(path string, block int) *data.Files {
		return &data.Files{Paths: []string{path}, Options: data.BlockOptions{ReadOptions: ropt, BlockRows: block}}
	}
	packed := func(src data.Source, block int) data.Source {
		p, err := data.Pack(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetBlockRows(block); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, opt := range []Options{{}, {Workers: 1}, {NoPairs: true}} {
		want, err := Compute(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			src  data.Source
		}{
			{"dataset", d},
			{"csv", files(csvPath, 64)},
			{"parquet", files(pqPath, 500)},
			{"shards", files(shards, 128)},
			{"scribbled", scribbled{files(csvPath, 100)}},
			{"packed-1", packed(files(csvPath, 64), 1)},
			{"packed-7", packed(files(pqPath, 64), 7)},
			{"packed-1000", packed(files(shards, 0), 1000)},
			{"packed-65536", packed(d, 65536)},
		} {
			t.Run(fmt.Sprintf("%s/%+v", tc.name, opt), func(t *testing.T) {
				got, err := ComputeSource(tc.src, opt)
				if err != nil {
					t.Fatal(err)
				}
				sameStats(t, got, want, 1e-12)
				sameOrder(t, got, want)
			})
		}
	}
}

func TestComputeSourceErrors(t *testing.T) {
	d, _, err := data.ReadCSV(strings.NewReader("a,b\n1,x\n2,y\n"), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		src  data.Source
		opt  Options
		want string
	}{
		{"nil", nil, Options{}, "nil source"},
		{"no blocks", sourceFunc(func(func(*data.Dataset) error) error { return nil }), Options{}, "no rows"},
		{"source error", sourceFunc(func(fn func(*data.Dataset) error) error {
			if err := fn(d); err != nil {
				return err
			}
			return boom
		}), Options{}, "boom"},
		{"compute error", d, Options{Workers: -1}, "negative"},
		{"file error", &data.Files{Paths: []string{filepath.Join(t.TempDir(), "none.csv")}}, Options{}, "none.csv"},
		{"merge error", sourceFunc(func(fn func(*data.Dataset) error) error {
			if err := fn(d); err != nil {
				return err
			}
			other, err := d.SelectNames([]string{"a"})
			if err != nil {
				return err
			}
			return fn(other)
		}), Options{}, `"b"`},
	} {
		s, err := ComputeSource(tc.src, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: stats %v, error %v; want an error with %q", tc.name, s != nil, err, tc.want)
		}
	}
}
