package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func writeTemp(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gz(s string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	zw.Close()
	return buf.Bytes()
}

type pqRow struct {
	A *int64  `parquet:"a,optional"`
	B *string `parquet:"b,optional"`
	C bool    `parquet:"c"`
	X float64 `parquet:"x"`
}

func pqBytes(t testing.TB, rows []pqRow) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[pqRow](&buf)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func samplePQ() []pqRow {
	var rows []pqRow
	for i := range 40 {
		r := pqRow{C: i%3 == 0, X: float64(i) / 3}
		if i%5 != 0 {
			a := int64(i % 4)
			r.A = &a
		}
		if i%7 != 0 {
			b := []string{"u", "v"}[i%2]
			r.B = &b
		}
		rows = append(rows, r)
	}
	return rows
}

// readAll reads every block and returns them.
func readAll(paths []string, opt BlockOptions) ([]*Dataset, error) {
	r, err := OpenBlocks(paths, opt)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []*Dataset
	for {
		d, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
}

func TestOpenBlocksBlocks(t *testing.T) {
	dir := t.TempDir()
	p := writeTemp(t, dir, "a.csv", []byte("n,s,x\n3,b,1.5\n3,a,2\n10,b,\n2,c,4\n2,b,5\n"))
	blocks, err := readAll([]string{p}, BlockOptions{ReadOptions: ReadOptions{Missing: MissingKeep, Continuous: []string{"x"}}, BlockRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 || blocks[0].NumRows() != 2 || blocks[2].NumRows() != 1 {
		t.Fatalf("got %d blocks", len(blocks))
	}
	// Every block has the states of the whole file, sorted.
	for _, k := range []int{0, 2} {
		if got := blocks[k].Var(0).States; !slices.Equal(got, []string{"2", "3", "10"}) {
			t.Errorf("block %d states %q", k, got)
		}
	}
	// Typed from the first block, states are sorted in the first block and
	// extended after.
	first, err := readAll([]string{p}, BlockOptions{ReadOptions: ReadOptions{Missing: MissingKeep, Continuous: []string{"x"}}, BlockRows: 2, FirstBlockTyping: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := first[0].Var(0).States; !slices.Equal(got, []string{"3"}) {
		t.Errorf("block 0 states %q", got)
	}
	if got := first[2].Var(0).States; !slices.Equal(got, []string{"3", "10", "2"}) {
		t.Errorf("block 2 states %q", got)
	}
	if got := blocks[1].Var(1).States; !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("block 1 s states %q", got)
	}
	if blocks[1].Var(2).Kind != Continuous || !isNaN(blocks[1].Continuous(2)[0]) {
		t.Errorf("x: %v %v", blocks[1].Var(2).Kind, blocks[1].Continuous(2))
	}
	// Parquet: nulls are missing, booleans and integers are labels.
	pp := writeTemp(t, dir, "a.parquet", pqBytes(t, samplePQ()))
	blocks, err = readAll([]string{pp}, BlockOptions{ReadOptions: ReadOptions{Missing: MissingKeep}, BlockRows: 16})
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 {
		t.Fatalf("%d blocks", len(blocks))
	}
	d := blocks[0]
	if !slices.Equal(d.Names(), []string{"a", "b", "c", "x"}) || !slices.Equal(d.Var(0).States, []string{"0", "1", "2", "3"}) ||
		!slices.Equal(d.Var(2).States, []string{"false", "true"}) || d.Var(3).Kind != Continuous {
		t.Fatalf("vars %+v", d.Vars())
	}
	if d.Discrete(0)[0] != Missing || d.Discrete(1)[0] != Missing || d.Discrete(1)[1] != 1 {
		t.Errorf("a %v b %v", d.Discrete(0)[:3], d.Discrete(1)[:3])
	}
	// Drop rows: a block with only dropped rows is skipped.
	blocks, err = readAll([]string{p}, BlockOptions{ReadOptions: ReadOptions{Missing: MissingDropRows, Continuous: []string{"x"}}, BlockRows: 1})
	if err != nil || len(blocks) != 4 {
		t.Fatalf("drop rows: %d blocks, %v", len(blocks), err)
	}
}

func isNaN(f float64) bool { return f != f }

func TestOpenBlocksErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeTemp(t, dir, "good.csv", []byte("a,b\n1,x\n2,y\n"))
	other := writeTemp(t, dir, "other.csv", []byte("a,c\n1,x\n2,y\n"))
	validGz := gz("a,b\n1,x\n2,y\n3,x\n")
	corruptGz := slices.Clone(validGz)
	for i := 12; i < len(corruptGz)-8; i++ {
		corruptGz[i] ^= 0x55
	}
	validPQ := pqBytes(t, samplePQ())
	corruptPQ := slices.Clone(validPQ)
	for i := 8; i < len(corruptPQ)/2; i++ {
		corruptPQ[i] ^= 0xA5
	}
	cont := "x,b\n" + strings.Repeat("", 0)
	for i := range 20 {
		cont += string(rune('0'+i%10)) + "." + string(rune('0'+i/10)) + ",u\n"
	}
	cont += "oops,u\n"
	laterNumbers := "x,b\n0,u\n1,v\n0,u\n1,v\n2,u\n3,v\n"
	cases := []struct {
		name  string
		paths []string
		opt   BlockOptions
		want  []string
	}{
		{"mismatch", []string{good, other}, BlockOptions{}, []string{"other.csv", "good.csv", `"b"`, `"c"`}},
		{"truncated gzip", []string{writeTemp(t, dir, "trunc.csv.gz", validGz[:len(validGz)-10])}, BlockOptions{}, []string{"trunc.csv.gz"}},
		{"corrupt gzip", []string{writeTemp(t, dir, "corrupt.csv.gz", corruptGz)}, BlockOptions{}, []string{"corrupt.csv.gz"}},
		{"not gzip", []string{writeTemp(t, dir, "plain.gz", []byte("a,b\n"))}, BlockOptions{}, []string{"plain.gz", "gzip"}},
		{"truncated parquet", []string{writeTemp(t, dir, "trunc.parquet", validPQ[:len(validPQ)/2])}, BlockOptions{}, []string{"trunc.parquet"}},
		{"corrupt parquet", []string{writeTemp(t, dir, "corrupt.parquet", corruptPQ)}, BlockOptions{ReadOptions: ReadOptions{Missing: MissingKeep}}, []string{"corrupt.parquet"}},
		{"later non-numeric", []string{writeTemp(t, dir, "cont.csv", []byte(cont))}, BlockOptions{BlockRows: 15, FirstBlockTyping: true}, []string{"cont.csv:22", `column "x"`, "oops"}},
		{"later numbers", []string{writeTemp(t, dir, "later.csv", []byte(laterNumbers))}, BlockOptions{ReadOptions: ReadOptions{MaxDiscreteStates: 2}, BlockRows: 4, FirstBlockTyping: true}, []string{"later.csv:6", `column "x"`, `value "2"`, "more than 2 distinct values", "--continuous x"}},
		{"missing", []string{writeTemp(t, dir, "miss.csv", []byte("a,b\n1,x\n2,\n"))}, BlockOptions{}, []string{"miss.csv:3", `column "b"`}},
		{"constant", []string{writeTemp(t, dir, "const0.csv", []byte("a,b\n1,x\n2,x\n")), writeTemp(t, dir, "const.csv", []byte("b,a\nx,1\nx,3\n"))}, BlockOptions{ReadOptions: ReadOptions{Columns: []string{"b"}}}, []string{"constant", `"b"`}},
		{"empty dir", []string{t.TempDir()}, BlockOptions{}, []string{"no data files"}},
		{"negative", []string{good}, BlockOptions{BlockRows: -1}, []string{"negative"}},
		{"drop constant", []string{good}, BlockOptions{ReadOptions: ReadOptions{DropConstant: true}}, []string{"DropConstant"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readAll(tc.paths, tc.opt)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	// A later-block parse error is a *ParseError with the line and column.
	_, err := readAll([]string{filepath.Join(dir, "cont.csv")}, BlockOptions{BlockRows: 15, FirstBlockTyping: true})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 22 || pe.Column != 1 || pe.ColumnName != "x" {
		t.Errorf("got %#v", err)
	}
}

// FuzzOpenBlocks reads arbitrary bytes as a gzip, Parquet and plain file:
// it must return blocks or an error naming the file, never panic.
func FuzzOpenBlocks(f *testing.F) {
	f.Add(gz("a,b\n1,x\n2,y\n3,x\n"), uint8(0))
	f.Add(pqBytes(f, samplePQ()), uint8(1))
	f.Add([]byte("a,b\n1,x\n"), uint8(2))
	// Typed from its column statistics (typeFromStats).
	type statsRow struct {
		A int32
		B bool
	}
	f.Add(pqStatsWrite(f, []statsRow{{0, true}, {1, false}, {1, true}, {0, false}, {7, true}}, 2), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, kind uint8) {
		name := []string{"f.csv.gz", "f.parquet", "f.csv"}[kind%3]
		p := writeTemp(t, t.TempDir(), name, b)
		_, err := readAll([]string{p}, BlockOptions{ReadOptions: ReadOptions{Missing: MissingKeep, KeepConstant: true}, BlockRows: 7})
		if err != nil && !strings.Contains(err.Error(), name) {
			t.Fatalf("error %q does not name %s", err, name)
		}
	})
}
