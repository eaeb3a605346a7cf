package stats

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/parquet-go/parquet-go"
)

// blockRow is one row of the streamed test data; nil is missing.
type blockRow struct {
	D *int64   `parquet:"d,optional"` // discrete numeric: 1,2,3 early; 10,20,4 later
	B *string  `parquet:"b,optional"` // binary
	S *string  `parquet:"s,optional"` // discrete text: "c", "aa" only later
	T *bool    `parquet:"t,optional"` // boolean
	X *float64 `parquet:"x,optional"` // continuous
	Y *float64 `parquet:"y,optional"` // continuous
}

func blockRows(rows int, seed uint64) []blockRow {
	rng := rand.New(rand.NewPCG(seed, 3))
	out := make([]blockRow, rows)
	for i := range out {
		r := &out[i]
		miss := func() bool { return rng.IntN(10) == 0 }
		if !miss() {
			v := []int64{1, 2, 3}[rng.IntN(3)]
			if i > rows/3 && rng.IntN(2) == 0 {
				v = []int64{10, 20, 4}[rng.IntN(3)]
			}
			r.D = &v
		}
		if !miss() {
			v := []string{"no", "yes"}[rng.IntN(2)]
			r.B = &v
		}
		if !miss() {
			v := []string{"b", "a"}[rng.IntN(2)]
			if i > rows/2 && rng.IntN(3) == 0 {
				v = []string{"c", "aa"}[rng.IntN(2)]
			}
			r.S = &v
		}
		if !miss() {
			v := rng.IntN(3) == 0
			r.T = &v
		}
		x := rng.NormFloat64()*3 + 100
		if !miss() {
			r.X = &x
		}
		if !miss() {
			v := 0.5*x + rng.NormFloat64()*1e-3
			r.Y = &v
		}
	}
	return out
}

// blockCSV returns rows as CSV text with the given column order.
func blockCSV(rows []blockRow, cols []string) string {
	var b strings.Builder
	b.WriteString(strings.Join(cols, ",") + "\n")
	for _, r := range rows {
		for k, c := range cols {
			if k > 0 {
				b.WriteByte(',')
			}
			switch {
			case c == "d" && r.D != nil:
				b.WriteString(strconv.FormatInt(*r.D, 10))
			case c == "b" && r.B != nil:
				b.WriteString(*r.B)
			case c == "s" && r.S != nil:
				b.WriteString(*r.S)
			case c == "t" && r.T != nil:
				b.WriteString(strconv.FormatBool(*r.T))
			case c == "x" && r.X != nil:
				b.WriteString(strconv.FormatFloat(*r.X, 'g', -1, 64))
			case c == "y" && r.Y != nil:
				b.WriteString(strconv.FormatFloat(*r.Y, 'g', -1, 64))
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func writeFile(t testing.TB, path string, b []byte) string {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func gzipBytes(t testing.TB, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func parquetBytes(t testing.TB, rows []blockRow, rowGroup int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[blockRow](&buf)
	for lo := 0; lo < len(rows); lo += rowGroup {
		if _, err := w.Write(rows[lo:min(lo+rowGroup, len(rows))]); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func computeBlocksFiles(t *testing.T, paths []string, blockRows int, opt Options) *Stats {
	t.Helper()
	r, err := data.OpenBlocks(paths, data.BlockOptions{
		ReadOptions: data.ReadOptions{Missing: data.MissingKeep},
		BlockRows:   blockRows,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := ComputeBlocks(r, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sameOrder checks that got has want's variables' states in the same
// order (variables aligned by name).
func sameOrder(t *testing.T, got, want *Stats) {
	t.Helper()
	for j := 0; j < want.NumVars(); j++ {
		v := want.Var(j)
		k, _ := got.Index(v.Name)
		if g := got.Var(k).States; !slices.Equal(g, v.States) {
			t.Fatalf("states of %q: got %q, want %q", v.Name, g, v.States)
		}
	}
}

// TestComputeBlocksEqualsCompute checks that statistics streamed in blocks
// from CSV, gzip CSV, Parquet and directories of shards equal Compute on
// the whole file read in memory: counts exactly, moments to 1e-12, and the
// states in the same order.
func TestComputeBlocksEqualsCompute(t *testing.T) {
	const rows = 3000
	all := blockRows(rows, 1)
	cols := []string{"d", "b", "s", "t", "x", "y"}
	text := blockCSV(all, cols)
	d, _, err := data.ReadCSV(strings.NewReader(text), data.ReadOptions{Missing: data.MissingKeep})
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := d.Index("x"); d.Var(k).Kind != data.Continuous {
		t.Fatal("x should be continuous")
	}
	if k, _ := d.Index("d"); !slices.Equal(d.Var(k).States, []string{"1", "2", "3", "4", "10", "20"}) {
		t.Fatalf("d states %q", d.Var(k).States)
	}
	dir := t.TempDir()
	csvPath := writeFile(t, filepath.Join(dir, "all.csv"), []byte(text))
	gzPath := writeFile(t, filepath.Join(dir, "all.csv.gz"), gzipBytes(t, text))
	gzNoExt := writeFile(t, filepath.Join(dir, "all-gzip"), gzipBytes(t, text))
	pqPath := writeFile(t, filepath.Join(dir, "all.parquet"), parquetBytes(t, all, 700))
	pqNoExt := writeFile(t, filepath.Join(dir, "all-parquet"), parquetBytes(t, all, 1000))
	// A directory of shards of every format, in lexical order, one with its
	// columns in another order, plus files to skip.
	shards := filepath.Join(dir, "shards")
	os.Mkdir(shards, 0o755)
	writeFile(t, filepath.Join(shards, "part-0.csv"), []byte(blockCSV(all[:500], cols)))
	writeFile(t, filepath.Join(shards, "part-1.csv.gz"), gzipBytes(t, blockCSV(all[500:1200], []string{"y", "t", "s", "x", "b", "d"})))
	writeFile(t, filepath.Join(shards, "part-2.parquet"), parquetBytes(t, all[1200:2900], 300))
	writeFile(t, filepath.Join(shards, "part-3.csv"), []byte(blockCSV(all[2900:], cols)))
	writeFile(t, filepath.Join(shards, "_SUCCESS"), nil)
	writeFile(t, filepath.Join(shards, ".part-0.csv.crc"), []byte("junk"))

	for _, opt := range []Options{{}, {Workers: 1}, {NoPairs: true}} {
		want, err := Compute(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name  string
			paths []string
			block int
		}{
			{"csv", []string{csvPath}, 64},
			{"csv-one-block", []string{csvPath}, 0},
			{"gzip", []string{gzPath}, 100},
			{"gzip-magic", []string{gzNoExt}, 999},
			{"parquet", []string{pqPath}, 64},
			{"parquet-magic", []string{pqNoExt}, 50},
			{"dir", []string{shards}, 128},
			{"files", []string{filepath.Join(shards, "part-0.csv"), filepath.Join(shards, "part-1.csv.gz"),
				filepath.Join(shards, "part-2.parquet"), filepath.Join(shards, "part-3.csv")}, 333},
		} {
			t.Run(fmt.Sprintf("%s/%+v", tc.name, opt), func(t *testing.T) {
				got := computeBlocksFiles(t, tc.paths, tc.block, opt)
				sameStats(t, got, want, 1e-12)
				sameOrder(t, got, want)
				if !slices.Equal(got.Names(), want.Names()) && !strings.HasPrefix(tc.name, "parquet") {
					t.Errorf("names %q, want %q", got.Names(), want.Names())
				}
			})
		}
	}
}

// TestComputeBlocksLateStates checks state order when the first block has
// the large numbers and the small ones come later, for numeric and text
// labels.
func TestComputeBlocksLateStates(t *testing.T) {
	text := "n,w\n10,zz\n20,zz\n10,y\n2,b\n3,a\n20,a\n1,zz\n"
	d, _, err := data.ReadCSV(strings.NewReader(text), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Compute(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, filepath.Join(t.TempDir(), "late.csv"), []byte(text))
	for _, block := range []int{1, 2, 3, 7} {
		got := computeBlocksFiles(t, []string{path}, block, Options{})
		sameStats(t, got, want, 0)
		sameOrder(t, got, want)
	}
	if k, _ := want.Index("n"); !slices.Equal(want.Var(k).States, []string{"1", "2", "3", "10", "20"}) {
		t.Fatalf("Compute's order changed: %q", want.Var(k).States)
	}
}

func TestComputeBlocksErrors(t *testing.T) {
	if _, err := ComputeBlocks(nil, Options{}); err == nil {
		t.Error("nil reader: no error")
	}
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "bad.csv"), []byte("a,b\n1,x\n2,y\n3,\n"))
	r, err := data.OpenBlocks([]string{path}, data.BlockOptions{BlockRows: 2, FirstBlockTyping: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = ComputeBlocks(r, Options{})
	if err == nil || !strings.Contains(err.Error(), "bad.csv:4") || !strings.Contains(err.Error(), `column "b"`) {
		t.Fatalf("error %v, want one naming bad.csv:4 and column b", err)
	}
	if _, err := ComputeBlocks(r, Options{Workers: -1}); err == nil {
		t.Error("after an error: no error")
	}
}
