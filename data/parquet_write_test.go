package data

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// readParquetFile reads a whole Parquet file with OpenBlocks, in one block.
func readParquetFile(t *testing.T, path string, opt ReadOptions) (*Dataset, error) {
	t.Helper()
	blocks, err := readAll([]string{path}, BlockOptions{ReadOptions: opt, BlockRows: 1 << 20})
	if err != nil {
		return nil, err
	}
	if len(blocks) != 1 {
		t.Fatalf("%s: %d blocks", path, len(blocks))
	}
	return blocks[0], nil
}

// writeParquetBlocks writes the blocks with one ParquetWriter to a file of
// dir and returns its path; groupRows, if not zero, is the number of rows
// per row group.
func writeParquetBlocks(t *testing.T, dir string, groupRows int, blocks ...*Dataset) string {
	t.Helper()
	var b bytes.Buffer
	p, err := NewParquetWriter(&b, blocks[0].Vars())
	if err != nil {
		t.Fatal(err)
	}
	if groupRows > 0 {
		p.groupRows = groupRows
	}
	for _, d := range blocks {
		if err := p.Write(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return writeTemp(t, dir, "d.parquet", b.Bytes())
}

// readCSVOf reads d written by WriteCSV.
func readCSVOf(t *testing.T, d *Dataset, opt ReadOptions) (*Dataset, error) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCSV(&b, d); err != nil {
		t.Fatal(err)
	}
	back, _, err := ReadCSV(&b, opt)
	return back, err
}

// pqTestData has INT32, string and double columns, missing cells and names
// out of lexical order.
func pqTestData(t *testing.T, rows int) *Dataset {
	t.Helper()
	d, err := New([]Variable{
		{Name: "z01", Kind: Discrete, States: []string{"0", "1"}},
		{Name: "answer", Kind: Discrete, States: []string{"no", "yes"}},
		{Name: "m, spaced", Kind: Discrete, States: []string{"a b", "c", "d e f"}},
		{Name: "ints", Kind: Discrete, States: []string{"-3", "2", "10"}},
		{Name: "padded", Kind: Discrete, States: []string{"01", "02"}},
		{Name: "x", Kind: Continuous},
		{Name: "b", Kind: Continuous},
	}, rows)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		d.Discrete(0)[i] = uint16(i % 2)
		d.Discrete(1)[i] = uint16(i / 3 % 2)
		d.Discrete(2)[i] = uint16(i % 3)
		if i%4 == 1 {
			d.Discrete(2)[i] = Missing
		}
		d.Discrete(3)[i] = uint16(i * 7 % 3)
		d.Discrete(4)[i] = uint16(i / 2 % 2)
		d.Continuous(5)[i] = math.Sin(float64(i)) * 1e3
		if i%5 == 2 {
			d.Continuous(5)[i] = math.NaN()
		}
		d.Continuous(6)[i] = float64(i) / 7
	}
	if rows >= 2 {
		d.Continuous(6)[0] = math.Copysign(0, -1)
		d.Continuous(6)[1] = 5e-324
	}
	return d
}

func TestWriteParquetRoundTrip(t *testing.T) {
	dir := t.TempDir()
	d := pqTestData(t, 300)
	path := filepath.Join(dir, "d.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteParquet(f, d); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// Column types and order.
	b, _ := os.ReadFile(path)
	pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	wantKinds := []parquet.Kind{parquet.Int32, parquet.ByteArray, parquet.ByteArray, parquet.Int32, parquet.ByteArray, parquet.Double, parquet.Double}
	var names []string
	for j, fld := range pf.Schema().Fields() {
		names = append(names, fld.Name())
		if !fld.Optional() || fld.Type().Kind() != wantKinds[j] {
			t.Errorf("column %q: optional %v, kind %v; want optional %v", fld.Name(), fld.Optional(), fld.Type().Kind(), wantKinds[j])
		}
		if wantKinds[j] == parquet.ByteArray {
			if lt := fld.Type().LogicalType(); lt == nil || lt.String() != "STRING" {
				t.Errorf("column %q: logical type %v, want STRING", fld.Name(), lt)
			}
		}
	}
	if !slices.Equal(names, d.Names()) {
		t.Errorf("file columns %q, want the dataset's order %q", names, d.Names())
	}
	if pf.NumRows() != 300 {
		t.Errorf("%d rows", pf.NumRows())
	}
	for _, g := range pf.Metadata().RowGroups {
		for _, c := range g.Columns {
			if c.MetaData.Codec.String() != "SNAPPY" {
				t.Errorf("column %v: codec %v", c.MetaData.PathInSchema, c.MetaData.Codec)
			}
			j, _ := d.Index(c.MetaData.PathInSchema[0])
			if dict := slices.Contains(c.MetaData.Encoding, format.RLEDictionary); dict != (d.Var(j).Kind == Discrete) {
				t.Errorf("column %v: encodings %v", c.MetaData.PathInSchema, c.MetaData.Encoding)
			}
		}
	}
	// Every cell reads back, with the kinds forced or inferred, as from
	// the CSV text of the same data.
	for _, opt := range []ReadOptions{forcedOptions(d), {Missing: MissingKeep}, {Missing: MissingKeep, MaxDiscreteStates: 2}} {
		got, err := readParquetFile(t, path, opt)
		if err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		want, err := readCSVOf(t, d, opt)
		if err != nil {
			t.Fatal(err)
		}
		if diff := sameDataset(got, want); diff != "" {
			t.Errorf("%+v: Parquet and CSV differ: %s", opt, diff)
		}
	}
	got, err := readParquetFile(t, path, forcedOptions(d))
	if err != nil {
		t.Fatal(err)
	}
	if diff := sameDataset(got, d); diff != "" {
		t.Errorf("round trip changed the dataset: %s", diff)
	}
	// With the default options, a missing cell is an error, as in CSV.
	if _, err := readParquetFile(t, path, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "missing value") {
		t.Errorf("missing cells with MissingError: %v", err)
	}
}

// TestWriteParquetBlocks: several Write calls, with row groups split across
// and within them, give the file of the whole dataset; the states of later
// blocks may extend those of the first.
func TestWriteParquetBlocks(t *testing.T) {
	t.Parallel()
	const groupRows = 40
	dir := t.TempDir()
	d := pqTestData(t, 250)
	var blocks []*Dataset
	for lo := 0; lo < 250; lo += 90 {
		rows := make([]int, 0, 90)
		for i := lo; i < min(250, lo+90); i++ {
			rows = append(rows, i)
		}
		b, err := d.Rows(rows)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, b)
	}
	path := writeParquetBlocks(t, dir, groupRows, blocks...)
	b, _ := os.ReadFile(path)
	pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	for _, g := range pf.RowGroups() {
		sizes = append(sizes, g.NumRows())
	}
	if !slices.Equal(sizes, []int64{40, 40, 40, 40, 40, 40, 10}) {
		t.Errorf("row groups of %v rows", sizes)
	}
	got, err := readParquetFile(t, path, forcedOptions(d))
	if err != nil {
		t.Fatal(err)
	}
	if diff := sameDataset(got, d); diff != "" {
		t.Errorf("blocks: %s", diff)
	}
	// Blocks read from the file in small blocks (and so with their own
	// codes) write the same data again.
	rb, err := readAll([]string{path}, BlockOptions{ReadOptions: forcedOptions(d), BlockRows: 33})
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "again")
	os.Mkdir(again, 0o755)
	got, err = readParquetFile(t, writeParquetBlocks(t, again, groupRows, rb...), forcedOptions(d))
	if err != nil {
		t.Fatal(err)
	}
	if diff := sameDataset(got, d); diff != "" {
		t.Errorf("rewritten blocks: %s", diff)
	}

	// A later block with new states: new integers in an INT32 column and
	// new labels in a string column are written; a label that is not an
	// integer in an INT32 column is an error, and nothing of that block is
	// written.
	v := []Variable{{Name: "n", Kind: Discrete, States: []string{"0", "1"}}, {Name: "s", Kind: Discrete, States: []string{"a"}}}
	b1 := mustDiscrete(t, v, [][]uint16{{0, 1, 1}, {0, 0, 0}})
	v2 := []Variable{{Name: "n", Kind: Discrete, States: []string{"5", "0", "1"}}, {Name: "s", Kind: Discrete, States: []string{"b", "a"}}}
	b2 := mustDiscrete(t, v2, [][]uint16{{0, 2, Missing}, {0, 1, 0}})
	v3 := []Variable{{Name: "n", Kind: Discrete, States: []string{"0", "1", "x"}}, {Name: "s", Kind: Discrete, States: []string{"a"}}}
	b3 := mustDiscrete(t, v3, [][]uint16{{2}, {0}})
	var buf bytes.Buffer
	p, err := NewParquetWriter(&buf, v)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(b1); err != nil {
		t.Fatal(err)
	}
	if err := p.Write(b3); err == nil || !strings.Contains(err.Error(), `state "x" is not a decimal int32`) || !strings.Contains(err.Error(), `"n"`) {
		t.Errorf("non-integer state in an INT32 column: %v", err)
	}
	if err := p.Write(b2); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	got, err = readParquetFile(t, writeTemp(t, dir, "new.parquet", buf.Bytes()), ReadOptions{Missing: MissingKeep})
	if err != nil {
		t.Fatal(err)
	}
	want := mustDiscrete(t, []Variable{{Name: "n", Kind: Discrete, States: []string{"0", "1", "5"}}, {Name: "s", Kind: Discrete, States: []string{"a", "b"}}},
		[][]uint16{{0, 1, 1, 2, 1, Missing}, {0, 0, 0, 1, 0, 1}})
	if diff := sameDataset(got, want); diff != "" {
		t.Errorf("extended states: %s", diff)
	}
}

// TestWriteParquetManyStates: a string column of many states, and an
// INT32 column of large integers, read back.
func TestWriteParquetManyStates(t *testing.T) {
	const rows, k = 5000, 3000
	labels, ints := make([]string, k), make([]string, k)
	for c := range k {
		labels[c] = "s" + strconvI(int64(c))
		ints[c] = strconvI(int64(c)*1_000_003 - math.MaxInt32)
	}
	SortStates(labels)
	d, err := New([]Variable{{Name: "s", Kind: Discrete, States: labels}, {Name: "n", Kind: Discrete, States: ints}}, rows)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		d.Discrete(0)[i] = uint16(i % k)
		d.Discrete(1)[i] = uint16((i * 7) % k)
	}
	var b bytes.Buffer
	if err := WriteParquet(&b, d); err != nil {
		t.Fatal(err)
	}
	got, err := readParquetFile(t, writeTemp(t, t.TempDir(), "many.parquet", b.Bytes()), forcedOptions(d))
	if err != nil {
		t.Fatal(err)
	}
	if diff := sameDataset(got, d); diff != "" {
		t.Errorf("%s", diff)
	}
}

// TestWriteParquetEmpty: a dataset without rows is a valid Parquet file
// with its columns, which OpenBlocks rejects as ReadCSV rejects the CSV.
func TestWriteParquetEmpty(t *testing.T) {
	d := pqTestData(t, 0)
	var b bytes.Buffer
	if err := WriteParquet(&b, d); err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if pf.NumRows() != 0 || len(pf.Schema().Fields()) != d.NumVars() {
		t.Errorf("%d rows, %d columns", pf.NumRows(), len(pf.Schema().Fields()))
	}
	path := writeTemp(t, t.TempDir(), "empty.parquet", b.Bytes())
	if _, err := readParquetFile(t, path, forcedOptions(d)); err == nil || !strings.Contains(err.Error(), "no data rows") {
		t.Errorf("reading an empty file: %v", err)
	}
	if _, err := readCSVOf(t, d, forcedOptions(d)); err == nil {
		t.Error("reading an empty CSV file: no error")
	}
	// A writer closed at once writes the same.
	var c bytes.Buffer
	p, err := NewParquetWriter(&c, d.Vars())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil || p.Close() != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), c.Bytes()) {
		t.Error("closing at once differs from writing no rows")
	}
}

func TestWriteParquetErrors(t *testing.T) {
	v := []Variable{{Name: "a", Kind: Discrete, States: []string{"0", "1"}}, {Name: "x", Kind: Continuous}}
	for _, c := range []struct {
		vars []Variable
		want string
	}{
		{nil, "no variables"},
		{[]Variable{{Name: "", Kind: Continuous}}, "no name"},
		{[]Variable{{Name: "a", Kind: Continuous}, {Name: "a", Kind: Continuous}}, "duplicate"},
		{[]Variable{{Name: "a", Kind: Discrete}}, "no states"},
		{[]Variable{{Name: "a", Kind: Kind(9)}}, "unknown kind"},
		{[]Variable{{Name: "a", Kind: Discrete, States: []string{"x", " "}}}, "empty state label"},
		{[]Variable{{Name: "a", Kind: Discrete, States: []string{"x", "\xff"}}}, "not valid UTF-8"},
	} {
		if _, err := NewParquetWriter(&bytes.Buffer{}, c.vars); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.vars, err, c.want)
		}
	}
	d, err := New(v, 2)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	p, err := NewParquetWriter(&b, v)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := New([]Variable{v[1], v[0]}, 1)
	fewer, _ := New(v[:1], 1)
	bad, _ := New(v, 2)
	bad.Discrete(0)[1] = 2
	inf, _ := New(v, 2)
	inf.Continuous(1)[0] = math.Inf(-1)
	for _, c := range []struct {
		d    *Dataset
		want string
	}{
		{nil, "nil dataset"},
		{other, `column 1 of the dataset is continuous variable "x"`},
		{fewer, "1 variables, the writer 2"},
		{bad, "row 2, variable \"a\": state code 2 out of range"},
		{inf, "row 1, variable \"x\": infinite value"},
	} {
		if err := p.Write(c.d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Write: %v, want %q", err, c.want)
		}
	}
	// The writer is still usable.
	if err := p.Write(d); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Write(d); err == nil || !strings.Contains(err.Error(), "after Close") {
		t.Errorf("Write after Close: %v", err)
	}
	if err := WriteParquet(&bytes.Buffer{}, nil); err == nil {
		t.Error("WriteParquet(nil): no error")
	}
	// A failing writer: the error is returned, and again after.
	p, err = NewParquetWriter(failWriter{}, v)
	if err != nil {
		t.Fatal(err)
	}
	err = p.Write(d)
	if err == nil {
		err = p.Close()
	} else if p.Close() == nil {
		t.Error("Close after a failed Write: no error")
	}
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("failing writer: %v", err)
	}
}

func BenchmarkWriteParquet(b *testing.B) {
	const rows, cols = 200000, 50
	vars := make([]Variable, cols)
	codes := make([][]uint16, cols)
	rng := rand.New(rand.NewPCG(1, 2))
	for j := range vars {
		vars[j] = Variable{Name: "x" + strconvI(int64(j+1)), Kind: Discrete, States: []string{"0", "1"}}
		codes[j] = make([]uint16, rows)
		for i := range codes[j] {
			codes[j][i] = uint16(rng.IntN(2))
		}
	}
	d, err := FromDiscrete(vars, codes)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	b.ResetTimer()
	for b.Loop() {
		buf.Reset()
		if err := WriteParquet(&buf, d); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes")
	b.StopTimer()
	path := writeTemp(b, b.TempDir(), "bench.parquet", buf.Bytes())
	r, err := OpenBlocks([]string{path}, BlockOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	n := 0
	for {
		blk, err := r.Next()
		if err != nil {
			break
		}
		n += blk.NumRows()
	}
	if n != rows {
		b.Fatalf("read %d rows", n)
	}
}
