package data

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Every reader, on a file and on its gzip, detects the same delimiter, and
// reports a header left as one column while it holds another delimiter
// with the same error, naming the delimiter to set.
func TestDelimiterDetectionAllReaders(t *testing.T) {
	rows := func(sep string) string {
		var b strings.Builder
		b.WriteString(strings.Join([]string{"a", "b", "c"}, sep) + "\n")
		for i := range 30 {
			fmt.Fprintf(&b, "%d%s%s%s%d\n", i%2, sep, []string{"x", "y", "z"}[i%3], sep, i%4)
		}
		return b.String()
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, in string
		delim    rune
	}{
		{"semi.csv", rows(";"), ';'},
		{"pipe.csv", rows("|"), '|'},
		{"semi.tsv", rows(";"), ';'},
		{"comma.tsv", rows(","), ','},
		{"tab.csv", rows("\t"), '\t'},
		{"comma.csv", rows(","), ','},
		{"blank.csv", "\n\n" + rows(";"), ';'},
	} {
		labels, ds, errs := readAllWays(t, dir, c.name, c.in, ReadOptions{})
		for i := range labels {
			if errs[i] != nil {
				t.Errorf("%s, %s: %v", c.name, labels[i], errs[i])
				continue
			}
			if got := ds[i].Names(); !slices.Equal(got, []string{"a", "b", "c"}) || ds[i].NumRows() != 30 {
				t.Errorf("%s, %s: columns %q, %d rows", c.name, labels[i], got, ds[i].NumRows())
			}
		}
		_, rep, err := ReadCSV(strings.NewReader(c.in), ReadOptions{Name: c.name})
		if err != nil || rep.Delimiter != c.delim {
			t.Errorf("%s: delimiter %q (%v), want %q", c.name, rep.Delimiter, err, c.delim)
		}
	}
	for _, c := range []struct {
		name, in string
		delim    rune
		want     string
	}{
		{"semi.csv", rows(";"), ',', `:1: the header line is one column with the field delimiter ',', but split at ';' it has 3 columns: set the delimiter with --delimiter ';' (ReadOptions.Delimiter)`},
		{"tab.csv", rows("\t"), ',', `split at tab it has 3 columns: set the delimiter with --delimiter tab`},
		{"comma.csv", rows(","), ';', `:1: the header line is one column with the field delimiter ';', but split at ',' it has 3 columns: set the delimiter with --delimiter , (ReadOptions.Delimiter)`},
		{"pipe.csv", rows("|"), ':', `split at '|' it has 3 columns: set the delimiter with --delimiter '|'`},
		{"blank.csv", "\n\n" + rows(";"), ',', `:3: the header line is one column`},
		// Both ';' and '|': no delimiter is guessed.
		{"both.csv", "a;b|c\n1;2|3\n2;1|4\n", 0, `:1: the header line is one column with the field delimiter ',', but it has ';' and '|' outside quotes: set the delimiter with --delimiter (ReadOptions.Delimiter)`},
		{"both.tsv", "a;b,c\n1;2,3\n2;1,4\n", 0, `with the field delimiter tab, but it has ',' and ';' outside quotes`},
	} {
		labels, _, errs := readAllWays(t, dir, c.name, c.in, ReadOptions{Delimiter: c.delim})
		for i := range labels {
			if errs[i] == nil || !strings.Contains(errs[i].Error(), c.want) || !strings.Contains(errs[i].Error(), c.name) {
				t.Errorf("%s (delimiter %q), %s: error %v, want %q", c.name, c.delim, labels[i], errs[i], c.want)
			}
		}
	}
}
