package data

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestColumnsSelectAndOrder(t *testing.T) {
	// id is text with a missing cell and a bad number; note has an
	// invalid UTF-8 byte: neither is looked at once skipped.
	in := "id,b,note,a\nr1,1,ok,x\n,0,\xff,y\nr3,1,fine,x\n"
	d, rep := read(t, in, ReadOptions{Columns: []string{"a", " b"}})
	if !slices.Equal(d.Names(), []string{"a", "b"}) || d.NumRows() != 3 {
		t.Fatalf("names %v, %d rows", d.Names(), d.NumRows())
	}
	if got := d.Var(0).States; !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("a has states %v", got)
	}
	if !slices.Equal(d.Discrete(1), []uint16{1, 0, 1}) {
		t.Errorf("b = %v", d.Discrete(1))
	}
	if !slices.Equal(rep.Skipped, []string{"id", "note"}) || len(rep.Columns) != 2 || rep.Columns[0].Name != "a" {
		t.Errorf("report: skipped %v, columns %+v", rep.Skipped, rep.Columns)
	}
}

func TestIgnoreColumns(t *testing.T) {
	in := "id,a,b,id2\nr1,1,x,NA\nr2,0,y,\nr3,1,x,q\n"
	d, rep := read(t, in, ReadOptions{Ignore: []string{"id", "id2"}})
	if !slices.Equal(d.Names(), []string{"a", "b"}) || d.NumRows() != 3 {
		t.Fatalf("names %v, %d rows", d.Names(), d.NumRows())
	}
	if !slices.Equal(rep.Skipped, []string{"id", "id2"}) {
		t.Errorf("skipped %v", rep.Skipped)
	}
	// A duplicated or empty name is fine in a column that is not read.
	if err := func() error {
		_, _, err := ReadCSV(strings.NewReader("x,a,x,,b\n1,1,2,3,0\n2,0,3,4,1\n"), ReadOptions{Ignore: []string{"x"}})
		return err
	}(); err == nil || !strings.Contains(err.Error(), "column 4: empty header name") {
		t.Errorf("empty name in a column read: %v", err)
	}
	d, rep = read(t, "x,a,x,,b\n1,1,2,3,0\n2,0,3,4,1\n", ReadOptions{Columns: []string{"b", "a"}})
	if !slices.Equal(d.Names(), []string{"b", "a"}) || !slices.Equal(rep.Skipped, []string{"x", "x", "#4"}) {
		t.Errorf("names %v, skipped %v", d.Names(), rep.Skipped)
	}
}

func TestColumnsIgnoreErrors(t *testing.T) {
	in := "id,a,b\nr1,1,x\nr2,0,y\n"
	for _, c := range []struct {
		opt  ReadOptions
		want string
	}{
		{ReadOptions{Columns: []string{"a", "zz", "yy"}},
			`t.csv:1: selected columns are not in the header: "zz", "yy" (the header has 3 columns: "id", "a", "b")`},
		{ReadOptions{Ignore: []string{"ID"}},
			`t.csv:1: columns to ignore are not in the header: "ID" (the header has 3 columns: "id", "a", "b")`},
		{ReadOptions{Columns: []string{"a", "a"}}, `t.csv:1: column "a": column selected twice`},
		{ReadOptions{Columns: []string{"a", "b"}, Ignore: []string{"b"}}, `t.csv:1: column "b": column both selected and ignored`},
		{ReadOptions{Ignore: []string{"id", "a", "b"}}, `t.csv:1: no columns left to read: every column is ignored`},
		{ReadOptions{Ignore: []string{"id"}, Discrete: []string{"id"}},
			`t.csv: columns forced discrete are not read (not selected, or ignored): "id"`},
		{ReadOptions{Columns: []string{"a"}, Continuous: []string{"b"}},
			`t.csv: columns forced continuous are not read (not selected, or ignored): "b"`},
		{ReadOptions{Discrete: []string{"x9"}},
			`t.csv: columns forced discrete are not in the header: "x9" (the header has 3 columns: "id", "a", "b")`},
	} {
		c.opt.Name = "t.csv"
		_, _, err := ReadCSV(strings.NewReader(in), c.opt)
		var pe *ParseError
		if err == nil || !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: error\n%v\nwant prefix\n%s", c.opt, err, c.want)
		}
	}
	// A long header is listed in part.
	var b strings.Builder
	for i := range 30 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("v" + string(rune('a'+i%26)) + string(rune('a'+i/26)))
	}
	b.WriteString("\n" + strings.Repeat("1,", 29) + "1\n")
	_, _, err := ReadCSV(strings.NewReader(b.String()), ReadOptions{Columns: []string{"nope"}})
	if err == nil || !strings.Contains(err.Error(), "(the header has 30 columns: ") || !strings.Contains(err.Error(), "… (18 more)") {
		t.Errorf("long header: %v", err)
	}
}

func TestDelimiterDetection(t *testing.T) {
	for _, c := range []struct {
		name, in string
		opt      rune
		want     rune
		names    []string
	}{
		{"t.csv", "a\tb\n1\t2\n2\t1\n", 0, '\t', []string{"a", "b"}},
		{"t.csv", "a,b\n1,2\n2,1\n", 0, ',', []string{"a", "b"}},
		// A comma in the header means comma-separated, even with tabs.
		{"t.csv", "a\tx,b\n1\t2,3\n2\t1,4\n", 0, ',', []string{"a\tx", "b"}},
		// Tabs inside quotes do not count.
		{"t.csv", "\"a\tb\"\n1\n2\n", 0, ',', []string{"a\tb"}},
		// A .tsv name means tabs, even without a tab in the header, unless
		// the header has exactly one other delimiter.
		{"data.TSV", "a b\n1\n2\n", 0, '\t', []string{"a b"}},
		{"data.TSV", "a,b\n1,2\n2,1\n", 0, ',', []string{"a", "b"}},
		{"data.tsv", "a;b\n1;2\n2;1\n", 0, ';', []string{"a", "b"}},
		// Without a comma or a tab, ';' or '|' if the header has only one
		// of them.
		{"t.csv", "a;b;c\n1;2;3\n2;1;4\n", 0, ';', []string{"a", "b", "c"}},
		{"t.csv", "a | b\n1|2\n2|1\n", 0, '|', []string{"a", "b"}},
		{"t.csv", "a;b,c\n1;2,3\n2;1,4\n", 0, ',', []string{"a;b", "c"}},
		{"t.csv", "a|b\tc\n1|2\t3\n2|1\t4\n", 0, '\t', []string{"a|b", "c"}},
		{"t.csv", "\"a;b\"\n1\n2\n", 0, ',', []string{"a;b"}},
		{"t.csv", "x\n1\n2\n", 0, ',', []string{"x"}},
		// The header is the first line that is not empty.
		{"t.csv", "\n\r\na\tb\n1\t2\n2\t1\n", 0, '\t', []string{"a", "b"}},
		{"data.tab", "a\tb\n1\t2\n2\t1\n", 0, '\t', []string{"a", "b"}},
		{"<stdin>", "\ufeffa\tb\r\n1\t2\r\n2\t1\r\n", 0, '\t', []string{"a", "b"}},
		// An explicit delimiter wins.
		{"t.tsv", "a;b\n1;2\n2;1\n", ';', ';', []string{"a", "b"}},
		{"t.csv", "\"a;b\"\n1\n2\n", '|', '|', []string{"a;b"}},
	} {
		d, rep := read(t, c.in, ReadOptions{Name: c.name, Delimiter: c.opt})
		if rep.Delimiter != c.want || !slices.Equal(d.Names(), c.names) {
			t.Errorf("%s %q: delimiter %q, names %q; want %q, %q", c.name, c.in, rep.Delimiter, d.Names(), c.want, c.names)
		}
	}
	// ReadCSVFile detects a .tsv file by its name.
	path := filepath.Join(t.TempDir(), "x.tsv")
	if err := os.WriteFile(path, []byte("p q\tr\n1\t2\n2\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, rep, err := ReadCSVFile(path, ReadOptions{})
	if err != nil || rep.Delimiter != '\t' || !slices.Equal(d.Names(), []string{"p q", "r"}) {
		t.Errorf("ReadCSVFile .tsv: %v %v", err, d)
	}
}

func TestAllMissingColumn(t *testing.T) {
	in := "a,empty,b,gone\n1,,x,NA\n0,NA,y,\n1,?,x,\n"
	var logs bytes.Buffer
	d, rep := read(t, in, ReadOptions{Missing: MissingKeep, DropConstant: true, Continuous: []string{"gone"},
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if !slices.Equal(d.Names(), []string{"a", "b"}) || d.NumRows() != 3 {
		t.Fatalf("names %v, %d rows", d.Names(), d.NumRows())
	}
	want := []DroppedColumn{{Name: "empty", Reason: "all 3 values are missing"}, {Name: "gone", Reason: "all 3 values are missing"}}
	if !slices.Equal(rep.ColumnsDropped, want) || !rep.Columns[1].Dropped || rep.Columns[3].Kind != Continuous {
		t.Errorf("report %+v", rep)
	}
	if !strings.Contains(logs.String(), "column=empty") {
		t.Errorf("log %q", logs.String())
	}
	// Without DropConstant, or with another policy, it is an error that
	// says what to do.
	for _, opt := range []ReadOptions{{Missing: MissingKeep}, {Missing: MissingDropRows, DropConstant: true}} {
		opt.Name = "t.csv"
		_, _, err := ReadCSV(strings.NewReader(in), opt)
		if err == nil || !strings.Contains(err.Error(), `t.csv: column "empty": all 3 values are missing (skip the column with --ignore, or drop it with --missing keep --drop-constant)`) {
			t.Errorf("%+v: %v", opt, err)
		}
	}
	// Only all-missing columns: nothing left.
	if _, _, err := ReadCSV(strings.NewReader("a\n\nNA\n"), ReadOptions{Missing: MissingKeep, DropConstant: true}); err == nil || !strings.Contains(err.Error(), "no columns left") {
		t.Errorf("only empty columns: %v", err)
	}
}

func TestQuoteCell(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{strings.Repeat("x", 40), `"` + strings.Repeat("x", 40) + `"`},
		{strings.Repeat("x", 41), `"` + strings.Repeat("x", 40) + `…" (41 bytes)`},
		// Cut at a character boundary: é is 2 bytes.
		{strings.Repeat("x", 39) + "éé", `"` + strings.Repeat("x", 39) + `…" (43 bytes)`},
		{"a\"b\n", `"a\"b\n"`},
	} {
		if got := QuoteCell(c.in); got != c.want {
			t.Errorf("QuoteCell(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// A huge cell (under a raised MaxFieldBytes) is not echoed whole in any
// error message.
func TestLongCellsCappedInErrors(t *testing.T) {
	big := strings.Repeat("z", 1<<20)
	cases := []struct {
		in   string
		opt  ReadOptions
		want string
	}{
		{"a,b\n1," + big + "\n2,3\n", ReadOptions{Continuous: []string{"b"}},
			`non-numeric value "zzzz`},
		{"a,b\n1," + big + "\n2,3\n", ReadOptions{Discrete: []string{"a"}, DropConstant: false, MaxDiscreteStates: 1, Continuous: []string{"b"}},
			`(1048576 bytes) in a column forced continuous`},
		{"a,b\n1,x" + big + "\n2,x" + big + "\n", ReadOptions{},
			`constant column: every observed value is "xzzz`},
		{"a," + big + "," + big + "\n1,2,3\n2,3,4\n", ReadOptions{},
			`duplicate header name`},
		{"a,b\n1,1e" + strings.Repeat("9", 1<<20) + "\n2,3\n", ReadOptions{},
			`infinite value "1e999`},
	}
	for i, c := range cases {
		c.opt.Name = "t.csv"
		c.opt.MaxFieldBytes = 4 << 20
		_, _, err := ReadCSV(strings.NewReader(c.in), c.opt)
		if err == nil {
			t.Errorf("case %d: no error", i)
			continue
		}
		if msg := err.Error(); len(msg) > 400 || !strings.Contains(msg, c.want) || !strings.Contains(msg, "bytes)") {
			t.Errorf("case %d: error of %d bytes: %.300s", i, len(msg), msg)
		}
	}
	// The report of a dropped constant column is capped too.
	_, rep := read(t, "a,b\n1,x"+big+"\n2,x"+big+"\n", ReadOptions{DropConstant: true, MaxFieldBytes: 4 << 20})
	if len(rep.ColumnsDropped) != 1 || len(rep.ColumnsDropped[0].Reason) > 200 {
		t.Errorf("dropped: %d columns, reason of %d bytes", len(rep.ColumnsDropped), len(rep.ColumnsDropped[0].Reason))
	}
}

// lineReader returns one line per Read and counts the calls.
type lineReader struct {
	lines []string
	reads int
}

func (r *lineReader) Read(p []byte) (int, error) {
	r.reads++
	if len(r.lines) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.lines[0])
	r.lines[0] = r.lines[0][n:]
	if r.lines[0] == "" {
		r.lines = r.lines[1:]
	}
	return n, nil
}

// Detection reads no further than the header line, so a stream that is
// slow to deliver its rows is not waited on.
func TestDelimiterDetectionReadsOnlyTheHeader(t *testing.T) {
	for _, c := range []struct {
		lines []string
		want  rune
		reads int
	}{
		{[]string{"a\tb\n", "1\t2\n", "2\t1\n"}, '\t', 1},
		{[]string{"a,", "b\n", "1,2\n"}, ',', 2},
		// A line break inside quotes does not end the header.
		{[]string{"\"a\n", "b\"\tc\n", "1\t2\n"}, '\t', 2},
		{[]string{"a\tb"}, '\t', 2},
	} {
		r := &lineReader{lines: slices.Clone(c.lines)}
		got := detectDelimiter("<stdin>", scanHeader(bufio.NewReaderSize(r, 64<<10), 0))
		if got != c.want || r.reads != c.reads {
			t.Errorf("%q: %q after %d reads, want %q after %d", c.lines, got, r.reads, c.want, c.reads)
		}
	}
}
