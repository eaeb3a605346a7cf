package data

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

type pqDecimalRow struct {
	D  int64 `parquet:"d,decimal(2:12)"`
	D4 int32 `parquet:"d4,decimal(4:9)"`
	Dt int32 `parquet:"day,date"`
	G  string
}

type pqTimestampRow struct {
	A  int64
	Ts int64 `parquet:"ts,timestamp(millisecond)"`
}

func pqWrite[T any](t *testing.T, rows []T, opts ...parquet.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Parquet DECIMAL columns are read as their values (they were read
// ×10^scale), DATE columns as their days, and TIMESTAMP columns, which
// were read as raw integers, are refused naming the column: the same
// data as CSV and as Parquet give the same dataset.
func TestParquetLogicalTypes(t *testing.T) {
	var rows []pqDecimalRow
	var csv strings.Builder
	csv.WriteString("d,d4,day,G\n")
	day0 := time.Date(2024, 2, 27, 0, 0, 0, 0, time.UTC)
	for i := range 30 {
		r := pqDecimalRow{D: int64(i*1234 - 9000), D4: int32(i%3 - 1), Dt: int32(day0.Unix()/86400) + int32(i%4), G: []string{"u", "v"}[i%2]}
		rows = append(rows, r)
		d := float64(r.D) / 100
		fmt.Fprintf(&csv, "%.2f,%.4f,%s,%s\n", d, float64(r.D4)/1e4, day0.AddDate(0, 0, i%4).Format(time.DateOnly), r.G)
	}
	dir := t.TempDir()
	pq := writeTemp(t, dir, "dec.parquet", pqWrite(t, rows))
	want, _, err := ReadCSV(strings.NewReader(csv.String()), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range []int{0, 7} {
		p, err := Pack(&Files{Paths: []string{pq}, Options: BlockOptions{BlockRows: rows}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Dataset()
		if err != nil {
			t.Fatal(err)
		}
		if diff := sameDataset(got, want); diff != "" {
			t.Errorf("blocks of %d rows: %s", rows, diff)
		}
	}
	if k, _ := want.Index("day"); !strings.HasPrefix(want.Var(k).States[0], "2024-02-27") || want.Var(k).NumStates() != 4 {
		t.Errorf("days %q", want.Var(k).States)
	}
	if k, _ := want.Index("d4"); strings.Join(want.Var(k).States, " ") != "-0.0001 0.0000 0.0001" {
		t.Errorf("d4 %q", want.Var(k).States)
	}
	ts := writeTemp(t, dir, "ts.parquet", pqWrite(t, []pqTimestampRow{{1, 1700000000000}, {2, 1700000001000}}))
	_, err = OpenBlocks([]string{ts}, BlockOptions{})
	if err == nil || !strings.Contains(err.Error(), `ts.parquet: column "ts": unsupported Parquet type`) || !strings.Contains(err.Error(), "TIMESTAMP") {
		t.Errorf("timestamp: %v", err)
	}
}

type pqTextRow struct {
	A int64
	S string
}

// A Parquet string longer than MaxFieldBytes is an error naming the file,
// row, column and limit, as in a CSV file.
func TestParquetFieldLimit(t *testing.T) {
	rows := []pqTextRow{{1, "x"}, {2, "y"}, {3, strings.Repeat("z", 101)}}
	path := writeTemp(t, t.TempDir(), "s.parquet", pqWrite(t, rows))
	_, err := readAll([]string{path}, BlockOptions{ReadOptions: ReadOptions{MaxFieldBytes: 100}})
	if want := path + `:3: column "S": cell of 101 bytes, longer than the limit of 100`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v\nwant %s…", err, want)
	}
	if _, err := readAll([]string{path}, BlockOptions{ReadOptions: ReadOptions{MaxFieldBytes: 101}}); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}
