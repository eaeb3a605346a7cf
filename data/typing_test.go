package data

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// The same data read from a CSV file, its gzip and a Parquet file give the
// same dataset: 70,000 rows of 0 and 1 (more than a block) and then
// decimals made a continuous column from the plain file and, typed from
// the first block, a discrete column with "0" and "0.0" as two states from
// the gzip.
func TestSameDataThreeEncodings(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,g\n")
	for i := range 70000 {
		fmt.Fprintf(&b, "%d,%c\n", i%2, 'a'+i%3)
	}
	for i := range 50 {
		fmt.Fprintf(&b, "%d.%d,a\n", i%5, i%4*25)
	}
	text := b.String()
	dir := t.TempDir()
	plain := writeTemp(t, dir, "d.csv", []byte(text))
	zipped := writeTemp(t, dir, "d.csv.gz", gz(text))
	want, _, err := ReadCSVFile(plain, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want.Var(0).Kind != Continuous {
		t.Fatalf("x read whole is %v", want.Var(0).Kind)
	}
	var pq bytes.Buffer
	if err := WriteParquet(&pq, want); err != nil {
		t.Fatal(err)
	}
	parquet := writeTemp(t, dir, "d.parquet", pq.Bytes())
	for _, path := range []string{plain, zipped, parquet} {
		for _, rows := range []int{0, 1000} {
			p, err := Pack(&Files{Paths: []string{path}, Options: BlockOptions{BlockRows: rows}})
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			got, err := p.Dataset()
			if err != nil {
				t.Fatal(err)
			}
			if diff := sameDataset(got, want); diff != "" {
				t.Errorf("%s in blocks of %d rows: %s", path, rows, diff)
			}
		}
		got, _, err := ReadCSVFile(path, ReadOptions{})
		if path == parquet {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if diff := sameDataset(got, want); diff != "" {
			t.Errorf("%s read whole: %s", path, diff)
		}
	}
}
