package data

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// pqParRow has the column kinds of Parquet files: optional integers (with
// nulls), strings, booleans, doubles, and integers with more distinct
// values than a column interns, which switches to floats partway through
// a batch.
type pqParRow struct {
	A *int32
	B *string
	C bool
	D float64
	E int64
	F *float64
	G int32 `parquet:"g,dict"`
	H float32
	I *float32 `parquet:"i,dict"`
	J *int64   `parquet:"j,dict"`
	K *int32   `parquet:"k,dict"`
	L int32
}

func pqParRows(n int) []pqParRow {
	rows := make([]pqParRow, n)
	for i := range rows {
		r := &rows[i]
		if i%7 != 3 {
			a := int32(i % 5)
			r.A = &a
		}
		if i%11 != 5 {
			b := []string{"x", "y", "3", "z w"}[i%4]
			r.B = &b
		}
		r.C = i%3 == 0
		r.D = math.Sin(float64(i))
		r.E = int64(i * i % 3001)
		if i%13 != 0 {
			f := float64(i%9) / 4
			r.F = &f
		}
		r.G = int32(i * 7 % 4)
		r.H = float32(i%6) / 8
		if i%17 != 1 {
			h := float32(i%5) - 1.5
			r.I = &h
			j := int64(i%3) - 1
			r.J = &j
		}
		r.L = int32(i % 4)
		if i >= 50 && i%2500 != 7 {
			// Nulls in a few rows only: many pages and batches have none.
			k := int32(i%3) * 5
			r.K = &k
		}
	}
	return rows
}

// Reading a Parquet file column by column in parallel, with the pages of
// numbers decoded whole and cells with cached codes taken in bulk, gives
// the blocks and errors of reading it on one goroutine through the Parquet
// library's values cell by cell, for any number of goroutines, block size,
// missing-value policy and missing tokens. The files have nulls, several
// row groups ("written", "groups": 3, the latter with small pages), plain
// and dictionary-encoded pages.
func TestParquetParallelAlike(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"generic": writeTemp(t, dir, "g.parquet", pqWrite(t, pqParRows(10000))),
		"written": writeParquetBlocks(t, dir, 3000, pqTestData(t, 9000)),
		"groups":  writeTemp(t, dir, "r.parquet", pqWrite(t, pqParRows(10000), parquet.MaxRowsPerRowGroup(3500), parquet.PageBufferSize(2048))),
	}
	defer func(w int, d, b, wh bool) { columnWorkers, pqDecodePages, pqBulk, pqWhole = w, d, b, wh }(columnWorkers, pqDecodePages, pqBulk, pqWhole)
	for name, p := range files {
		for _, opt := range []BlockOptions{
			{ReadOptions: ReadOptions{Missing: MissingKeep}},
			{ReadOptions: ReadOptions{Missing: MissingKeep}, BlockRows: 1000},
			{ReadOptions: ReadOptions{Missing: MissingDropRows}, BlockRows: 4999},
			{ReadOptions: ReadOptions{Missing: MissingError}},
			{ReadOptions: ReadOptions{Missing: MissingKeep, MissingTokens: []string{"3", "0.5"}}, BlockRows: 777},
			{ReadOptions: ReadOptions{Missing: MissingKeep, MaxDiscreteStates: 2000}},
			{ReadOptions: ReadOptions{Missing: MissingKeep, Discrete: []string{"E", "x"}}, FirstBlockTyping: true, BlockRows: 100},
			{ReadOptions: ReadOptions{Missing: MissingKeep, Continuous: []string{"B", "answer"}}},
		} {
			columnWorkers, pqDecodePages, pqBulk, pqWhole = 1, false, false, false
			want, werr := readAll([]string{p}, opt)
			pqDecodePages, pqBulk = true, true
			for _, whole := range []bool{false, true} {
				pqWhole = whole
				for _, w := range []int{1, 2, 3, 16} {
					columnWorkers = w
					got, err := readAll([]string{p}, opt)
					switch {
					case fmt.Sprint(err) != fmt.Sprint(werr):
						t.Errorf("%s, %+v, whole blocks %v, %d goroutines: error %v, one goroutine %v", name, opt, whole, w, err, werr)
					case err == nil && dump(got) != dump(want):
						t.Errorf("%s, %+v, whole blocks %v, %d goroutines: blocks differ from one goroutine's", name, opt, whole, w)
					}
				}
			}
		}
	}
}

// BenchmarkOpenBlocksParquetInt32 reads in blocks 100 binary columns ×
// 200,000 rows of INT32 Parquet columns, with the bulk loops (bulk) and
// cell by cell (per-cell): as latentree simulate writes them (nullable,
// dictionary-encoded, one row in 20 missing in every other column), and as
// experiment scale writes them (required, plain, Snappy). Issue 25's
// target, statistics of 10^7 such rows in at most 10 s on 2 cores, leaves
// about 0.2 s for the 200,000 rows, reading and statistics.
func BenchmarkOpenBlocksParquetInt32(b *testing.B) {
	const rows, cols = 200_000, 100
	vars := make([]Variable, cols)
	g := parquet.Group{}
	for j := range vars {
		vars[j] = Variable{Name: fmt.Sprintf("v%03d", j), Kind: Discrete, States: []string{"0", "1"}}
		g[vars[j].Name] = parquet.Leaf(parquet.Int32Type)
	}
	d, err := New(vars, rows)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for j := range cols {
		for i := range rows {
			d.Discrete(j)[i] = uint16(rng.IntN(2))
		}
	}
	// The scale file: no missing cells.
	var scale bytes.Buffer
	pw := parquet.NewWriter(&scale, parquet.NewSchema("scale", g), parquet.Compression(&parquet.Snappy))
	row := make([]parquet.Row, 1)
	for i := range rows {
		r := row[0][:0]
		for j := range cols {
			r = append(r, parquet.Int32Value(int32(d.Discrete(j)[i])).Level(0, 0, j))
		}
		row[0] = r
		if _, err := pw.WriteRows(row); err != nil {
			b.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		b.Fatal(err)
	}
	for j := 1; j < cols; j += 2 {
		for i := range rows {
			if rng.IntN(20) == 0 {
				d.Discrete(j)[i] = Missing
			}
		}
	}
	var sim bytes.Buffer
	w, err := NewParquetWriter(&sim, vars)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Write(d); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	defer func(v bool) { pqBulk = v }(pqBulk)
	for _, file := range []struct {
		name string
		buf  *bytes.Buffer
	}{{"simulate", &sim}, {"scale", &scale}} {
		p := writeTemp(b, dir, file.name+".parquet", file.buf.Bytes())
		for _, bulk := range []bool{true, false} {
			name := file.name + "/" + map[bool]string{true: "bulk", false: "per-cell"}[bulk]
			b.Run(name, func(b *testing.B) {
				pqBulk = bulk
				b.SetBytes(int64(file.buf.Len()))
				b.ReportAllocs()
				cpu0, ops := cpuSeconds(), 0
				for b.Loop() {
					ops++
					r, err := OpenBlocks([]string{p}, BlockOptions{ReadOptions: ReadOptions{Missing: MissingKeep}})
					if err != nil {
						b.Fatal(err)
					}
					n := 0
					for {
						blk, err := r.Next()
						if err == io.EOF {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
						n += blk.NumRows()
					}
					r.Close()
					if n != rows {
						b.Fatalf("%d rows", n)
					}
				}
				// CPU time per read: on a shared machine the wall time says
				// little.
				b.ReportMetric((cpuSeconds()-cpu0)/float64(ops), "cpu-s/op")
			})
		}
	}
}

// Reading whole blocks column by column (readBlockParquetWhole) meets the
// first error readBlockParquet meets, batch by batch, in Parquet files
// damaged here and there: a decoding error before the check errors of its
// batch, a check error before an add error of the same or a later row.
func TestParquetWholeErrorsAlike(t *testing.T) {
	dir := t.TempDir()
	good := pqWrite(t, pqParRows(6000), parquet.MaxRowsPerRowGroup(2500), parquet.PageBufferSize(1024), parquet.Compression(&parquet.Snappy))
	defer func(w int, wh bool) { columnWorkers, pqWhole = w, wh }(columnWorkers, pqWhole)
	errs := 0
	for i := range 60 {
		b := bytes.Clone(good)
		at := 4 + (len(b)-12)*i/60
		for k := at; k < min(at+6, len(b)-8); k++ {
			b[k] ^= 0x5a
		}
		p := writeTemp(t, dir, fmt.Sprintf("d%d.parquet", i), b)
		for _, opt := range []BlockOptions{
			{ReadOptions: ReadOptions{Missing: MissingKeep}, BlockRows: 1500},
			{ReadOptions: ReadOptions{Missing: MissingError, Columns: []string{"C", "D", "E", "G", "H", "L"}, MissingTokens: []string{"2974"}}, BlockRows: 700},
			{ReadOptions: ReadOptions{Missing: MissingKeep, Continuous: []string{"G"}, MaxDiscreteStates: 1000}, FirstBlockTyping: true, BlockRows: 3000},
		} {
			columnWorkers, pqWhole = 1, false
			want, werr := readAll([]string{p}, opt)
			if werr != nil {
				errs++
			}
			pqWhole = true
			for _, w := range []int{1, 2, 5} {
				columnWorkers = w
				got, err := readAll([]string{p}, opt)
				switch {
				case fmt.Sprint(err) != fmt.Sprint(werr):
					t.Errorf("damage at %d, %+v, %d goroutines: error %v, batch by batch %v", at, opt, w, err, werr)
				case dump(got) != dump(want):
					t.Errorf("damage at %d, %+v, %d goroutines: blocks differ from batch by batch", at, opt, w)
				}
			}
		}
	}
	if errs < 20 {
		t.Errorf("only %d of 180 reads of damaged files failed", errs)
	}
}
