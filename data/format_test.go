package data

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

func TestDetectFormat(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("a,b\n1,2\n"))
	zw.Close()
	files := map[string][]byte{
		"plain.csv":     []byte("a,b\n1,2\n"),
		"plain.tsv":     []byte("a\tb\n1\t2\n"),
		"data.csv.gz":   gz.Bytes(),
		"noext":         gz.Bytes(),
		"upper.CSV.GZ":  []byte(""),
		"named.gzip":    []byte("x"),
		"table.parquet": []byte(""),
		"table.pq":      []byte("PA"),
		"magic.csv":     []byte("PAR1 and more"),
		"short":         []byte("P"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]Format{
		"plain.csv": CSV, "plain.tsv": CSV, "data.csv.gz": GzipCSV, "noext": GzipCSV,
		"upper.CSV.GZ": GzipCSV, "named.gzip": GzipCSV, "table.parquet": Parquet,
		"table.pq": Parquet, "magic.csv": Parquet, "short": CSV, ".": Dir,
	} {
		got, err := DetectFormat(filepath.Join(dir, name))
		if err != nil || got != want {
			t.Errorf("DetectFormat(%s) = %v, %v; want %v", name, got, err, want)
		}
		if got.Blocks() != (want != CSV) {
			t.Errorf("%v.Blocks() = %v", got, got.Blocks())
		}
	}
	if _, err := DetectFormat(filepath.Join(dir, "missing.csv")); err == nil {
		t.Error("DetectFormat of a missing file: no error")
	}
}
