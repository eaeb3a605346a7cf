package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// pqStatsRow has required columns whose row groups' statistics tell their
// values (A, B, C, D) and one whose statistics do not (E: 0, 1, 2 in a
// row group, 1 never between them for all the reader knows).
type pqStatsRow struct {
	A int32
	B bool
	C int64
	D int32
	E int32
}

func pqStatsRows(n int) []pqStatsRow {
	rows := make([]pqStatsRow, n)
	for i := range rows {
		rows[i] = pqStatsRow{A: int32(i * 7 % 3 / 2), B: i%5 == 1, C: int64(i%2) - 1, D: 40, E: int32(i % 3)}
		if i >= 2800 {
			// From the fifth row group of 700 rows, D's values shift from
			// {40} to {41, 42}.
			rows[i].D = 41 + int32(i%2)
		}
	}
	return rows
}

// pqStatsWrite writes rows as a Parquet file with row groups of group rows.
func pqStatsWrite[T any](t testing.TB, rows []T, group int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, parquet.MaxRowsPerRowGroup(group), parquet.Compression(&parquet.Snappy))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Typing a Parquet file from its column statistics (typeFromStats) gives
// the blocks and errors of decoding it twice, for files that it types
// (required integer and boolean columns) and files it does not (a column
// whose statistics leave a value unknown), alone and with a CSV shard that
// adds a state, and the statistics CSV files of the same rows give.
func TestParquetStatsTypingAlike(t *testing.T) {
	dir := t.TempDir()
	rows := pqStatsRows(5000)
	whole := writeTemp(t, dir, "s.parquet", pqStatsWrite(t, rows, 700))
	var csv strings.Builder
	csv.WriteString("A,B,C,D,E\n")
	for _, r := range rows {
		fmt.Fprintf(&csv, "%d,%t,%d,%d,%d\n", r.A, r.B, r.C, r.D, r.E)
	}
	csvPath := writeTemp(t, dir, "s.csv", []byte(csv.String()))
	extra := writeTemp(t, dir, "x.csv", []byte("A,B,C,D,E\n2,false,0,40,1\n"))
	// One row group, in which D is 40, 41 and 42: not typed from its
	// statistics, and read first or last with a file that is.
	untyped := writeTemp(t, dir, "u.parquet", pqStatsWrite(t, rows, 5000))
	first := writeTemp(t, dir, "f.parquet", pqStatsWrite(t, rows[:2800], 700))
	cases := []struct {
		name  string
		paths []string
		opt   BlockOptions
		typed bool // typed from the statistics
	}{
		{"typed", []string{whole}, BlockOptions{ReadOptions: ReadOptions{Ignore: []string{"E"}}}, true},
		{"typed, small blocks", []string{whole}, BlockOptions{ReadOptions: ReadOptions{Ignore: []string{"E"}}, BlockRows: 999}, true},
		{"typed, some columns", []string{whole}, BlockOptions{ReadOptions: ReadOptions{Columns: []string{"D", "A"}}}, true},
		{"typed, then a CSV shard", []string{whole, extra}, BlockOptions{ReadOptions: ReadOptions{Ignore: []string{"E"}}}, true},
		{"a CSV shard, then typed", []string{extra, whole}, BlockOptions{ReadOptions: ReadOptions{Ignore: []string{"E"}}}, true},
		{"E too", []string{whole}, BlockOptions{}, false},
		{"an untyped shard, then a typed one", []string{untyped, first}, BlockOptions{ReadOptions: ReadOptions{Ignore: []string{"E"}}}, true},
		{"a typed shard, then an untyped one", []string{first, untyped}, BlockOptions{ReadOptions: ReadOptions{Ignore: []string{"E"}}}, true},
		{"E's statistics do not tell", []string{whole}, BlockOptions{ReadOptions: ReadOptions{Columns: []string{"A", "E"}}}, false},
		{"forced", []string{whole}, BlockOptions{ReadOptions: ReadOptions{Discrete: []string{"A"}, Ignore: []string{"E"}}}, false},
		{"a missing token", []string{whole}, BlockOptions{ReadOptions: ReadOptions{Ignore: []string{"E"}, Missing: MissingKeep, MissingTokens: []string{"40"}}}, false},
		{"constant in the first groups", []string{whole}, BlockOptions{ReadOptions: ReadOptions{Ignore: []string{"E"}, KeepConstant: true}}, true},
	}
	defer func(v bool) { pqStatsTyping = v }(pqStatsTyping)
	for _, c := range cases {
		pqStatsTyping = false
		want, werr := readAll(c.paths, c.opt)
		pqStatsTyping = true
		r, err := OpenBlocks(c.paths, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		claimed := false
		for _, col := range r.(*blockReader).cols {
			claimed = claimed || len(col.claims) > 0
		}
		if claimed != c.typed {
			t.Errorf("%s: typed from the statistics %v, want %v", c.name, claimed, c.typed)
		}
		r.Close()
		got, err := readAll(c.paths, c.opt)
		switch {
		case fmt.Sprint(err) != fmt.Sprint(werr):
			t.Errorf("%s: error %v, decoding twice %v", c.name, err, werr)
		case err == nil && dump(got) != dump(want):
			t.Errorf("%s: blocks differ from those of decoding twice", c.name)
		}
		if werr == nil && len(c.paths) == 1 && c.opt.MissingTokens == nil {
			fromCSV, err := readAll([]string{csvPath}, c.opt)
			if err != nil || dump(fromCSV) != dump(got) {
				t.Errorf("%s: blocks differ from the CSV file's (%v)", c.name, err)
			}
		}
	}
	// Every column constant but A: the constant column is an error, as
	// when decoded.
	if _, err := readAll([]string{whole}, BlockOptions{ReadOptions: ReadOptions{Columns: []string{"A", "C", "D"}}}); err != nil {
		t.Errorf("A, C, D: %v", err)
	}
	one := writeTemp(t, dir, "one.parquet", pqStatsWrite(t, rows[:100], 50))
	_, err := readAll([]string{one}, BlockOptions{ReadOptions: ReadOptions{Columns: []string{"A", "D"}}})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.ColumnName != "D" || !strings.Contains(err.Error(), `constant column: every observed value is "40"`) {
		t.Errorf("constant D: got %v", err)
	}
}

// A value that column statistics gave and that no row holds, and a value
// that a row holds and the statistics did not give, are errors naming the
// file and column (statistics written wrong: the claims are altered after
// typing, as a lying file would give them).
func TestParquetStatsTypingChecked(t *testing.T) {
	dir := t.TempDir()
	p := writeTemp(t, dir, "s.parquet", pqStatsWrite(t, pqStatsRows(3000), 1000))
	opt := BlockOptions{ReadOptions: ReadOptions{Columns: []string{"A", "B"}}, BlockRows: 512}
	read := func(alter func(c *column)) error {
		r, err := OpenBlocks([]string{p}, opt)
		if err != nil {
			return err
		}
		defer r.Close()
		alter(r.(*blockReader).cols[0])
		for {
			_, err := r.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	if err := read(func(*column) {}); err != nil {
		t.Fatal(err)
	}
	err := read(func(c *column) { c.claims = append(c.claims, pqClaim{key: 7, text: "7", file: p}) })
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != p || pe.ColumnName != "A" || !strings.Contains(err.Error(), `statistics give the value "7", which no row holds`) {
		t.Errorf("a value no row holds: got %v", err)
	}
	// The statistics gave 0 only: 1 is not a state.
	err = read(func(c *column) {
		if c.labels[1] != "1" {
			t.Fatalf("states %q", c.labels)
		}
		c.labels, c.values, c.claims = c.labels[:1], c.values[:1], c.claims[:1]
	})
	if !errors.As(err, &pe) || !strings.Contains(pe.File, p) || pe.ColumnName != "A" || !strings.Contains(err.Error(), `value "1" is not among the column's 1 states`) || !strings.Contains(err.Error(), "column statistics") {
		t.Errorf("a value not in the statistics: got %v", err)
	}
	// A later pass of Files, seeded with the first pass's variables,
	// checks the claims too.
	f := &Files{Paths: []string{p}, Options: opt}
	for pass := range 2 {
		if err := f.Scan(func(*Dataset) error { return nil }); err != nil {
			t.Fatalf("pass %d: %v", pass, err)
		}
	}
	if f.typed == nil || len(f.typed.claims[0]) != 2 {
		t.Fatalf("typed %+v", f.typed)
	}
	f.typed.claims[0] = append(f.typed.claims[0], pqClaim{key: 9, text: "9", file: p})
	if err := f.Scan(func(*Dataset) error { return nil }); err == nil || !strings.Contains(err.Error(), `value "9", which no row holds`) {
		t.Errorf("seeded pass: got %v", err)
	}
}

// A column's cache of Parquet values is each file's own: the INT32 -1 and
// the INT64 4294967295 have the same key (see pqKey), but not the same
// text.
func TestParquetCachePerFile(t *testing.T) {
	type r32 struct {
		X *int32 `parquet:"x,optional"`
	}
	type r64 struct {
		X *int64 `parquet:"x,optional"`
	}
	a, b, z := int32(-1), int64(4294967295), int32(0)
	dir := t.TempDir()
	p32 := writeTemp(t, dir, "a.parquet", pqStatsWrite(t, []r32{{&a}, {&z}, {&a}}, 10))
	p64 := writeTemp(t, dir, "b.parquet", pqStatsWrite(t, []r64{{&b}, {nil}, {&b}}, 10))
	for _, opt := range []BlockOptions{{ReadOptions: ReadOptions{Missing: MissingKeep}}, {ReadOptions: ReadOptions{Missing: MissingKeep}, FirstBlockTyping: true}} {
		blocks, err := readAll([]string{p32, p64}, opt)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range blocks {
			for _, c := range d.Discrete(0) {
				if c == Missing {
					got = append(got, "NA")
				} else {
					got = append(got, d.Var(0).States[c])
				}
			}
		}
		if want := "[-1 0 -1 4294967295 NA 4294967295]"; fmt.Sprint(got) != want {
			t.Errorf("%+v: cells %v, want %s", opt, got, want)
		}
	}
}

// takeCodes gives the codes of the leading values with cached codes, and
// stops at the first value without one (not cached, negative, or beyond
// the dense keys), whether values 0 and 1 are codes 0 and 1 or not.
func TestTakeCodes(t *testing.T) {
	identity := make([]int32, pqDense)
	swapped := make([]int32, pqDense)
	for i := range identity {
		identity[i], swapped[i] = pqUnknown, pqUnknown
	}
	identity[0], identity[1], identity[2], identity[900] = 0, 1, 2, 3
	swapped[0], swapped[1], swapped[2] = 1, 0, pqMissing
	for _, c := range []struct {
		dense []int32
		vals  []int32
		want  []uint16
	}{
		{identity, []int32{0, 1, 1, 0, 1}, []uint16{0, 1, 1, 0, 1}},
		{identity, []int32{0, 1, 2, 900, 1}, []uint16{0, 1, 2, 3, 1}},
		{identity, []int32{1, 0, 3, 1}, []uint16{1, 0}},
		{identity, []int32{1, -1, 0}, []uint16{1}},
		{identity, []int32{1, 1024, 0}, []uint16{1}},
		{identity, []int32{1025, 0}, []uint16{}},
		{swapped, []int32{0, 1, 1, 0}, []uint16{1, 0, 0, 1}},
		{swapped, []int32{0, 1, 2, 0}, []uint16{1, 0}},
	} {
		pg := pqPage{on: true, n: len(c.vals), i32: c.vals}
		pre := []uint16{7}
		got, n := pg.takeCodes(len(c.vals), c.dense, pre)
		if n != len(c.want) || fmt.Sprint(got) != fmt.Sprint(append([]uint16{7}, c.want...)) || pg.pos != n || pg.v != n {
			t.Errorf("%v: got %v (%d, page at %d, %d), want 7 then %v", c.vals, got, n, pg.pos, pg.v, c.want)
		}
	}
}
