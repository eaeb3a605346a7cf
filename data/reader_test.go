package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func read(t *testing.T, in string, opt ReadOptions) (*Dataset, *ReadReport) {
	t.Helper()
	if opt.Name == "" {
		opt.Name = "t.csv"
	}
	d, rep, err := ReadCSV(strings.NewReader(in), opt)
	if err != nil {
		t.Fatalf("ReadCSV: %v", err)
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return d, rep
}

func TestReadCSVFixture(t *testing.T) {
	in := "\ufeffage, smoker ,score,city\r\n" +
		"30,yes,1.5,\"Paris, FR\"\r\n" +
		"2, no ,NA,Oslo\r\n" +
		"\r\n" +
		"10,yes,2.25,\"Paris, FR\"\r\n" +
		"2,no,-0.5,Oslo\r\n"
	d, rep := read(t, in, ReadOptions{Missing: MissingKeep, Continuous: []string{"score"}})
	want, err := New([]Variable{
		{Name: "age", Kind: Discrete, States: []string{"2", "10", "30"}},
		{Name: "smoker", Kind: Discrete, States: []string{"no", "yes"}},
		{Name: "score", Kind: Continuous},
		{Name: "city", Kind: Discrete, States: []string{"Oslo", "Paris, FR"}},
	}, 4)
	if err != nil {
		t.Fatal(err)
	}
	copy(want.Discrete(0), []uint16{2, 0, 1, 0})
	copy(want.Discrete(1), []uint16{1, 0, 1, 0})
	copy(want.Continuous(2), []float64{1.5, math.NaN(), 2.25, -0.5})
	copy(want.Discrete(3), []uint16{1, 0, 1, 0})
	if diff := sameDataset(d, want); diff != "" {
		t.Fatal(diff)
	}
	wantRep := &ReadReport{
		Rows:      4,
		Delimiter: ',',
		Columns: []ColumnReport{
			{Name: "age", Kind: Discrete, States: 3},
			{Name: "smoker", Kind: Discrete, States: 2},
			{Name: "score", Kind: Continuous, Forced: true, MissingCells: 1},
			{Name: "city", Kind: Discrete, States: 2},
		},
	}
	if fmt.Sprintf("%+v", rep) != fmt.Sprintf("%+v", wantRep) {
		t.Errorf("report\n got %+v\nwant %+v", rep, wantRep)
	}
}

func TestReadCSVErrors(t *testing.T) {
	many := func(n int, prefix string, tail string) string {
		var b strings.Builder
		b.WriteString("id,v\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%d,%s%d\n", i%2, prefix, i)
		}
		b.WriteString(tail)
		return b.String()
	}
	cases := []struct {
		name string
		in   string
		opt  ReadOptions
		want []string // substrings of the message
	}{
		{"empty", "", ReadOptions{}, []string{"t.csv: empty input: no header"}},
		{"bom only", "\ufeff", ReadOptions{}, []string{"t.csv: empty input"}},
		{"blank lines only", "\n\r\n\n", ReadOptions{}, []string{"t.csv: empty input"}},
		{"header only", "a,b\n", ReadOptions{}, []string{"t.csv: no data rows after the header"}},
		{"empty header name", "a,,c\n1,2,3\n", ReadOptions{}, []string{"t.csv:1: column 2: empty header name"}},
		{"blank header name", "a, ,c\n1,2,3\n", ReadOptions{}, []string{"t.csv:1: column 2: empty header name"}},
		{"duplicate header", "a,b, a\n1,2,3\n", ReadOptions{}, []string{`t.csv:1: column "a": duplicate header name (columns 1 and 3)`}},
		{"ragged long", "a,b\n1,2\n1,2,3\n", ReadOptions{}, []string{"t.csv:3: row has 3 fields, but the header has 2"}},
		{"ragged short", "a,b\n1,2\n\n3\n", ReadOptions{}, []string{"t.csv:4: row has 1 fields, but the header has 2"}},
		{"invalid utf8", "a,b\n1,2\n1,x\xffy\n", ReadOptions{}, []string{`t.csv:3: column "b": invalid UTF-8`}},
		{"invalid utf8 header", "a,\xfe\n1,2\n", ReadOptions{}, []string{"t.csv:1: column 2: header name: invalid UTF-8"}},
		{"bare quote", "a,b\n1,2\n1,x\"y\n", ReadOptions{}, []string{"t.csv:3: malformed CSV at byte 4", `bare "`}},
		{"unterminated quote", "a,b\n1,2\n1,\"xy\n", ReadOptions{}, []string{"t.csv:3: malformed CSV", `extraneous or missing "`}},
		{"missing NA", "a,b\n1,2\n3,NA\n", ReadOptions{}, []string{`t.csv:3: column "b": missing value ("NA")`, "--missing drop-rows"}},
		{"missing empty", "a,b\n1,2\n,4\n", ReadOptions{}, []string{`t.csv:3: column "a": missing value (empty cell)`}},
		{"missing after multiline field", "a,b\n\"x\ny\",1\nz,?\n", ReadOptions{}, []string{`t.csv:4: column "b": missing value ("?")`}},
		{"missing with crlf and blank line", "a,b\r\n1,2\r\n\r\n3, null \r\n", ReadOptions{}, []string{`t.csv:4: column "b": missing value ("null")`}},
		{"infinite", "a,b\n1,2\n1,Inf\n3,4\n", ReadOptions{}, []string{`t.csv:3: column "b": infinite value "Inf"`}},
		{"minus infinity", "a,b\n1,2\n1,3\n0,-inf\n", ReadOptions{}, []string{`t.csv:4: column "b": infinite value "-inf"`}},
		{"out of range", "a,b\n1,2\n1,1e999\n", ReadOptions{}, []string{`t.csv:3: column "b": infinite value "1e999"`}},
		{"nan not a token", "a,b\n1,2\n1,NaN\n", ReadOptions{MissingTokens: []string{}}, []string{`t.csv:3: column "b": not-a-number value "NaN"`}},
		{"forced continuous text", "a,b\n1,2\n1,x\n", ReadOptions{Continuous: []string{"b"}}, []string{`t.csv:3: column "b": non-numeric value "x" in a column forced continuous`}},
		{"forced continuous inf", "a,b\n1,2\n1,+Inf\n", ReadOptions{Continuous: []string{"b"}}, []string{`t.csv:3: column "b": infinite value "+Inf"`}},
		{"all missing keep", "a,b\n1,\n2,NA\n", ReadOptions{Missing: MissingKeep}, []string{`t.csv: column "b": all 2 values are missing`}},
		{"all missing drop", "a,b\n1,\n2,NA\n", ReadOptions{Missing: MissingDropRows}, []string{`t.csv: column "b": all 2 values are missing`}},
		{"constant", "a,b\n1,x\n2,x\n", ReadOptions{}, []string{`t.csv: column "b": constant column: every observed value is "x"`, "--drop-constant"}},
		{"constant continuous", "a,b\n1,1\n2,1.0\n", ReadOptions{Continuous: []string{"b"}}, []string{`t.csv: column "b": constant column`}},
		{"unknown forced", "a,b\n1,2\n2,1\n", ReadOptions{Discrete: []string{"x", "a", "y", "x"}}, []string{`t.csv: columns forced discrete are not in the header: "x", "y"`}},
		{"forced both ways", "a,b\n1,2\n2,1\n", ReadOptions{Discrete: []string{"b"}, Continuous: []string{"b"}}, []string{`t.csv: column "b": column is forced both discrete and continuous`}},
		{"all rows dropped", "a,b\n1,\n,2\n", ReadOptions{Missing: MissingDropRows}, []string{"t.csv: all 2 rows have a missing cell", "line 2"}},
		{"no columns left", "a,b\n1,2\n1,2\n", ReadOptions{DropConstant: true}, []string{"t.csv: no columns left"}},
		{"too many states", many(MaxStates+1, "s", ""), ReadOptions{}, []string{fmt.Sprintf("t.csv:%d: column \"v\": more than 65535 distinct values", MaxStates+2)}},
		{"text after float switch", many(1500, "", "1,abc\n"), ReadOptions{}, []string{`t.csv:1502: column "v": non-numeric value "abc" in a numeric column with more than 1024 distinct values`}},
		{"inf after float switch", many(1500, "", "1,-Inf\n"), ReadOptions{}, []string{`t.csv:1502: column "v": infinite value "-Inf"`}},
		{"forced continuous text after switch", many(1500, "", "1,abc\n"), ReadOptions{Continuous: []string{"v"}}, []string{`t.csv:1502: column "v": non-numeric value "abc" in a column forced continuous`}},
		{"semicolon ragged", "a;b\n1;2\n1,2\n", ReadOptions{Delimiter: ';'}, []string{"t.csv:3: row has 1 fields, but the header has 2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opt := c.opt
			opt.Name = "t.csv"
			d, rep, err := ReadCSV(strings.NewReader(c.in), opt)
			if err == nil {
				t.Fatalf("no error; got %d×%d dataset", d.NumRows(), d.NumVars())
			}
			if d != nil || rep != nil {
				t.Error("dataset or report returned with an error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *ParseError", err)
			} else if pe.File != "t.csv" {
				t.Errorf("ParseError.File = %q", pe.File)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestParseErrorFields(t *testing.T) {
	_, _, err := ReadCSV(strings.NewReader("a,b,c\n1,2,3\n4,5,\n"), ReadOptions{Name: "x.csv"})
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *ParseError", err)
	}
	if pe.File != "x.csv" || pe.Line != 3 || pe.Column != 3 || pe.ColumnName != "c" {
		t.Errorf("ParseError = %+v", pe)
	}
	inner := errors.New("boom")
	e := &ParseError{File: "f", Line: 2, Column: 4, Err: inner}
	if e.Error() != "f:2: column 4: boom" || !errors.Is(e, inner) {
		t.Errorf("Error() = %q, Is = %v", e.Error(), errors.Is(e, inner))
	}
	if s := (&ParseError{File: "f"}).Error(); s != "f: invalid input" {
		t.Errorf("Error() = %q", s)
	}
	_, _, err = ReadCSV(strings.NewReader("a\n1\n"), ReadOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "<input>: ") {
		t.Errorf("default name: error %v", err)
	}
}

func TestReadOptionsErrors(t *testing.T) {
	for _, opt := range []ReadOptions{
		{Delimiter: '"'},
		{Delimiter: '\n'},
		{Delimiter: 0xD800},
		{MaxDiscreteStates: -1},
		{Missing: MissingPolicy(9)},
	} {
		if _, _, err := ReadCSV(strings.NewReader("a,b\n1,2\n2,1\n"), opt); err == nil {
			t.Errorf("options %+v accepted", opt)
		}
	}
}

func TestMissingPolicyString(t *testing.T) {
	for p, want := range map[MissingPolicy]string{MissingError: "error", MissingDropRows: "drop-rows", MissingKeep: "keep", 5: "MissingPolicy(5)"} {
		if got := p.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}

func TestTypeInference(t *testing.T) {
	var b strings.Builder
	b.WriteString("bin,yn,f50,f5,f5c,word\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "%d,%s,%g,%g,%g,%s\n", i%2, []string{"yes", "no", "maybe"}[i%3], float64(i)*0.25-3, float64(i%5)/2, float64(i%5)/2, []string{"b", "10", "2"}[i%3])
	}
	d, rep := read(t, b.String(), ReadOptions{Continuous: []string{"f5c"}})
	type want struct {
		kind   Kind
		states []string
	}
	wants := []want{
		{Discrete, []string{"0", "1"}},
		{Discrete, []string{"maybe", "no", "yes"}},
		{Continuous, nil},
		{Discrete, []string{"0", "0.5", "1", "1.5", "2"}},
		{Continuous, nil},
		{Discrete, []string{"10", "2", "b"}},
	}
	for j, w := range wants {
		v := d.Var(j)
		if v.Kind != w.kind || !slices.Equal(v.States, w.states) {
			t.Errorf("column %q: %v %q, want %v %q", v.Name, v.Kind, v.States, w.kind, w.states)
		}
		if rep.Columns[j].Kind != w.kind || rep.Columns[j].States != len(w.states) {
			t.Errorf("report for %q: %+v", v.Name, rep.Columns[j])
		}
	}
	if !rep.Columns[4].Forced || rep.Columns[3].Forced {
		t.Error("Forced flags wrong")
	}
	for i := 0; i < 50; i++ {
		if got, want := d.Continuous(2)[i], float64(i)*0.25-3; got != want {
			t.Fatalf("f50 row %d = %v, want %v", i, got, want)
		}
		if got, want := d.Continuous(4)[i], float64(i%5)/2; got != want {
			t.Fatalf("f5c row %d = %v, want %v", i, got, want)
		}
		if got, want := d.Discrete(3)[i], uint16(i%5); got != want {
			t.Fatalf("f5 row %d = %v, want %v", i, got, want)
		}
		if got, want := d.Discrete(0)[i], uint16(i%2); got != want {
			t.Fatalf("bin row %d = %v, want %v", i, got, want)
		}
	}
	// Forcing discrete keeps a 50-value numeric column discrete.
	d, _ = read(t, b.String(), ReadOptions{Discrete: []string{"f50"}, Continuous: []string{"f5c"}})
	if v := d.Var(2); v.Kind != Discrete || len(v.States) != 50 || v.States[0] != "-3" || v.States[49] != "9.25" {
		t.Errorf("forced discrete f50 = %v %q", v.Kind, v.States)
	}
}

func TestMaxDiscreteStatesBoundary(t *testing.T) {
	in := "a,b\n1,x\n2,y\n3,x\n4,y\n"
	d, _ := read(t, in, ReadOptions{MaxDiscreteStates: 4})
	if d.Var(0).Kind != Discrete {
		t.Error("4 distinct values with MaxDiscreteStates 4 should be discrete")
	}
	d, _ = read(t, in, ReadOptions{MaxDiscreteStates: 3})
	if d.Var(0).Kind != Continuous || !slices.Equal(d.Continuous(0), []float64{1, 2, 3, 4}) {
		t.Errorf("4 distinct values with MaxDiscreteStates 3: %v %v", d.Var(0).Kind, d.Continuous(0))
	}
}

func TestNumericStateOrdering(t *testing.T) {
	d, _ := read(t, "n,m\n10,10\n2,2\n-3,-3\n1.5,1.5\n1e1,x\n002,2\n", ReadOptions{})
	// 10 and 1e1 tie numerically and are ordered by label, as are 002 and 2.
	if got, want := d.Var(0).States, []string{"-3", "1.5", "002", "2", "10", "1e1"}; !slices.Equal(got, want) {
		t.Errorf("numeric states %q, want %q", got, want)
	}
	if got, want := d.Discrete(0), []uint16{4, 3, 0, 1, 5, 2}; !slices.Equal(got, want) {
		t.Errorf("codes %v, want %v", got, want)
	}
	if got, want := d.Var(1).States, []string{"-3", "1.5", "10", "2", "x"}; !slices.Equal(got, want) {
		t.Errorf("mixed states %q, want %q", got, want)
	}
	// Forced discrete with an infinite label: numeric order with Inf last.
	d, _ = read(t, "a,b\n3,1\nInf,2\n-1,1\n", ReadOptions{Discrete: []string{"a"}})
	if got, want := d.Var(0).States, []string{"-1", "3", "Inf"}; !slices.Equal(got, want) {
		t.Errorf("forced states %q, want %q", got, want)
	}
	// A non-numeric column may contain "Inf" as an ordinary label.
	d, _ = read(t, "a,b\nInf,1\nlow,2\n", ReadOptions{})
	if got, want := d.Var(0).States, []string{"Inf", "low"}; !slices.Equal(got, want) {
		t.Errorf("text states %q, want %q", got, want)
	}
}

func TestMissingDropRows(t *testing.T) {
	in := "a,b,c\n" +
		"1,x,0.5\n" + // 2
		"NA,y,1\n" + // 3 dropped
		"0,y,2\n" + // 4
		"1,?,\n" + // 5 dropped (two cells)
		"0,x,3\n" + // 6
		"1, ,4\n" // 7 dropped
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	d, rep := read(t, in, ReadOptions{Missing: MissingDropRows, Logger: logger})
	if rep.Rows != 6 || rep.RowsDropped != 3 || !slices.Equal(rep.DroppedLines, []int{3, 5, 7}) {
		t.Errorf("report rows %d dropped %d lines %v; want 6, 3, [3 5 7]", rep.Rows, rep.RowsDropped, rep.DroppedLines)
	}
	for j, want := range []int{1, 2, 1} {
		if got := rep.Columns[j].MissingCells; got != want {
			t.Errorf("column %d MissingCells = %d, want %d", j, got, want)
		}
	}
	if d.NumRows() != 3 || d.HasMissing() {
		t.Fatalf("rows %d, missing %v", d.NumRows(), d.HasMissing())
	}
	if !slices.Equal(d.Discrete(0), []uint16{1, 0, 0}) || !slices.Equal(d.Discrete(1), []uint16{0, 1, 0}) {
		t.Errorf("columns %v %v", d.Discrete(0), d.Discrete(1))
	}
	// c has 0.5, 2, 3 in kept rows: states ordered numerically.
	if !slices.Equal(d.Var(2).States, []string{"0.5", "2", "3"}) || !slices.Equal(d.Discrete(2), []uint16{0, 1, 2}) {
		t.Errorf("column c %q %v", d.Var(2).States, d.Discrete(2))
	}
	if !strings.Contains(logs.String(), "dropped rows") || !strings.Contains(logs.String(), "rows=3") {
		t.Errorf("log %q", logs.String())
	}

	// More dropped rows than MaxReportedLines.
	var b strings.Builder
	b.WriteString("a,b\n")
	for i := 0; i < 25; i++ {
		fmt.Fprintf(&b, "%d,NA\n%d,%d\n", i%2, i%2, i%3)
	}
	_, rep = read(t, b.String(), ReadOptions{Missing: MissingDropRows})
	if rep.RowsDropped != 25 || len(rep.DroppedLines) != MaxReportedLines || rep.DroppedLines[9] != 20 {
		t.Errorf("dropped %d lines %v", rep.RowsDropped, rep.DroppedLines)
	}
}

func TestMissingKeepAndTokens(t *testing.T) {
	in := "a,b,c\n1,x,NA\n-,y,2\n0,NA,3\n,x,?\n"
	// "NA" is not a missing token here, so it is an ordinary value.
	if _, _, err := ReadCSV(strings.NewReader(in), ReadOptions{Missing: MissingKeep, MissingTokens: []string{"-", "?"}, Continuous: []string{"c"}}); err == nil ||
		!strings.Contains(err.Error(), `<input>:2: column "c": non-numeric value "NA"`) {
		t.Errorf("error %v", err)
	}
	in = "a,b,c\n1,x,5\n-,y,2\n0,NA,3\n,x,?\n"
	d, rep := read(t, in, ReadOptions{Missing: MissingKeep, MissingTokens: []string{" - ", "?"}, Continuous: []string{"c"}})
	if !slices.Equal(d.Discrete(0), []uint16{1, Missing, 0, Missing}) {
		t.Errorf("a = %v", d.Discrete(0))
	}
	if !slices.Equal(d.Var(1).States, []string{"NA", "x", "y"}) || !slices.Equal(d.Discrete(1), []uint16{1, 2, 0, 1}) {
		t.Errorf("b = %q %v", d.Var(1).States, d.Discrete(1))
	}
	c := d.Continuous(2)
	if c[0] != 5 || c[1] != 2 || c[2] != 3 || !math.IsNaN(c[3]) {
		t.Errorf("c = %v", c)
	}
	if rep.Columns[0].MissingCells != 2 || rep.Columns[1].MissingCells != 0 || rep.Columns[2].MissingCells != 1 {
		t.Errorf("missing cells %+v", rep.Columns)
	}
	if d.MissingCount(0) != 2 || d.MissingCount(2) != 1 {
		t.Errorf("MissingCount %d %d", d.MissingCount(0), d.MissingCount(2))
	}
}

func TestDropConstant(t *testing.T) {
	in := "a,k,b,z\n1,same,x,7\n0,same,y,7\n1,NA,x,7.0\n"
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	d, rep := read(t, in, ReadOptions{DropConstant: true, Missing: MissingKeep, Continuous: []string{"z"}, Logger: logger})
	if !slices.Equal(d.Names(), []string{"a", "b"}) || d.NumRows() != 3 {
		t.Fatalf("names %v rows %d", d.Names(), d.NumRows())
	}
	want := []DroppedColumn{
		{Name: "k", Reason: `constant: every observed value is "same"`},
		{Name: "z", Reason: `constant: every observed value is "7"`},
	}
	if !slices.Equal(rep.ColumnsDropped, want) {
		t.Errorf("ColumnsDropped = %+v, want %+v", rep.ColumnsDropped, want)
	}
	if !rep.Columns[1].Dropped || !rep.Columns[3].Dropped || rep.Columns[0].Dropped || rep.Columns[1].MissingCells != 1 {
		t.Errorf("column reports %+v", rep.Columns)
	}
	if strings.Count(logs.String(), "dropped constant column") != 2 || !strings.Contains(logs.String(), "column=k") {
		t.Errorf("log %q", logs.String())
	}
	// Without DropConstant the first constant column is an error.
	if _, _, err := ReadCSV(strings.NewReader(in), ReadOptions{Missing: MissingKeep}); err == nil || !strings.Contains(err.Error(), `column "k": constant`) {
		t.Errorf("error %v", err)
	}
	// Nil logger is fine.
	read(t, in, ReadOptions{DropConstant: true, Missing: MissingKeep})
}

func TestDelimitersAndTrimming(t *testing.T) {
	for _, comma := range []rune{';', '\t', '|'} {
		in := strings.NewReplacer(",", string(comma)).Replace("\ufeff x ,y\n 1 , a b \n0,\"c,d\"\n")
		d, _ := read(t, in, ReadOptions{Delimiter: comma})
		if !slices.Equal(d.Names(), []string{"x", "y"}) {
			t.Errorf("comma %q: names %q", comma, d.Names())
		}
		if !slices.Equal(d.Var(1).States, []string{"a b", "c" + string(comma) + "d"}) {
			t.Errorf("comma %q: states %q", comma, d.Var(1).States)
		}
	}
}

func TestLineBreaksInFields(t *testing.T) {
	// encoding/csv turns a CRLF ending a line inside a quoted field into LF
	// but leaves a CR before it; ReadCSV normalises what is left so that
	// WriteCSV's output reads back the same.
	d, _ := read(t, "x,y\n\"a\r\r\nb\",1\n\"c\rd\",2\n", ReadOptions{})
	if got, want := d.Var(0).States, []string{"a\nb", "c\rd"}; !slices.Equal(got, want) {
		t.Errorf("states %q, want %q", got, want)
	}
	roundTrip(t, d)
}

func TestFloatMode(t *testing.T) {
	// 3000 distinct values, with missing cells early and late, switch to
	// float storage after 1024 distinct values.
	var b strings.Builder
	b.WriteString("v,w\n")
	var want []float64
	for i := 0; i < 3000; i++ {
		if i == 5 || i == 2500 {
			b.WriteString("NA,1\n")
			want = append(want, math.NaN())
			continue
		}
		x := float64(i)/7 - 100
		fmt.Fprintf(&b, "%s,%d\n", strconv.FormatFloat(x, 'g', -1, 64), i%2)
		want = append(want, x)
	}
	d, rep := read(t, b.String(), ReadOptions{Missing: MissingKeep})
	if d.Var(0).Kind != Continuous || rep.Columns[0].MissingCells != 2 {
		t.Fatalf("kind %v, report %+v", d.Var(0).Kind, rep.Columns[0])
	}
	got := d.Continuous(0)
	for i := range want {
		if got[i] != want[i] && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Fatalf("row %d: %v, want %v", i, got[i], want[i])
		}
	}
	// With MaxDiscreteStates above the count the column stays discrete.
	in := strings.ReplaceAll(b.String(), "NA,1\n", "")
	d, _ = read(t, in, ReadOptions{MaxDiscreteStates: 5000})
	if v := d.Var(0); v.Kind != Discrete || len(v.States) != 2998 || v.States[0] != "-100" {
		t.Errorf("kind %v, %d states", v.Kind, len(v.States))
	}
	// 1500 spellings of the number 1 make a constant float-mode column.
	b.Reset()
	b.WriteString("one,w\n")
	for i := 0; i < 1500; i++ {
		fmt.Fprintf(&b, "1.%s,%d\n", strings.Repeat("0", i), i%2)
	}
	if _, _, err := ReadCSV(strings.NewReader(b.String()), ReadOptions{Name: "t.csv"}); err == nil || !strings.Contains(err.Error(), `t.csv: column "one": constant column: every observed value is "1"`) {
		t.Errorf("error %v", err)
	}
}

func TestReadCSVFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.csv")
	if err := os.WriteFile(p, []byte("a,b\n1,2\n0,NA\n1,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := ReadCSVFile(p, ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), p+":3: column \"b\"") {
		t.Errorf("error %v", err)
	}
	d, _, err := ReadCSVFile(p, ReadOptions{Missing: MissingKeep})
	if err != nil || d.NumRows() != 3 {
		t.Errorf("ReadCSVFile = %v, %v", d, err)
	}
	if _, _, err := ReadCSVFile(filepath.Join(dir, "none.csv"), ReadOptions{}); err == nil || !strings.Contains(err.Error(), "none.csv") {
		t.Errorf("missing file: error %v", err)
	}
}

func TestNewsgroups(t *testing.T) {
	// The split ships with the repository (examples/newsgroups, with its
	// provenance): a clone must find it.
	const path = "../examples/newsgroups/newsgroups100-train.csv"
	d, rep, err := ReadCSVFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.NumVars() != 100 || d.NumRows() != 8121 || rep.Rows != 8121 {
		t.Fatalf("%d vars, %d rows, want 100, 8121", d.NumVars(), d.NumRows())
	}
	for j := 0; j < d.NumVars(); j++ {
		v := d.Var(j)
		if v.Kind != Discrete || !slices.Equal(v.States, []string{"0", "1"}) {
			t.Fatalf("variable %q: %v %q", v.Name, v.Kind, v.States)
		}
	}
	if d.Var(0).Name != "aids" || d.HasMissing() {
		t.Errorf("first variable %q, missing %v", d.Var(0).Name, d.HasMissing())
	}
	if err := d.Validate(); err != nil {
		t.Error(err)
	}
}

func TestMemoryPerCell(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	const rows, cols = 40000, 100
	in := binaryCSV(rows, cols, 1)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, _, err := ReadCSV(bytes.NewReader(in), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perCell := float64(after.HeapAlloc-before.HeapAlloc) / (rows * cols)
	runtime.KeepAlive(d)
	runtime.KeepAlive(in)
	t.Logf("retained %.2f bytes per cell", perCell)
	if perCell > 2.5 {
		t.Errorf("dataset retains %.2f bytes per cell, want about 2", perCell)
	}
}

// binaryCSV returns a rows×cols CSV of pseudo-random 0/1 values.
func binaryCSV(rows, cols int, seed uint64) []byte {
	var b bytes.Buffer
	for j := 0; j < cols; j++ {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "v%d", j)
	}
	b.WriteByte('\n')
	x := seed*0x9E3779B97F4A7C15 + 1
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('0' + byte(x>>40&1))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func BenchmarkReadCSV(b *testing.B) {
	in := binaryCSV(100000, 100, 7)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		d, _, err := ReadCSV(bytes.NewReader(in), ReadOptions{})
		if err != nil || d.NumRows() != 100000 {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteCSV(b *testing.B) {
	d, _, err := ReadCSV(bytes.NewReader(binaryCSV(100000, 100, 7)), ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := WriteCSV(&buf, d); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(buf.Len()))
	}
}

func FuzzReadCSV(f *testing.F) {
	seeds := []string{
		"a,b\n1,2\n3,4\n",
		"\ufeffage,smoker\r\n30,yes\r\n40,no\r\n\r\n",
		"a,b,c\n1,NA,0.5\n0,x,1.5\n1,y,\n0,x,2.5\n",
		"a\n\"\"\n1\n2\n",
		"x,y\n\"q\"\"uote\",1\n\"multi\nline\",2\n",
		"x,y\n1,Inf\n2,3\n",
		"x,y\n1,x\"y\n",
		"x,x\n1,2\n",
		"a;b\n1;2\n2;1\n",
		"a\tb\nyes\tno\nno\tyes\n",
		"a,b\n-0,0\n0,1\n1e-320,2\n",
		"k,v\n1,1\n1,2\n",
		"x,y\n\"a\r\r\nb\",1\n\"c\",2\n",
		"x,y\na\rb,1\n\ufeffc,2\n",
		// Column selection, ID columns, all-missing columns, detection.
		"id,a,b\nr1,1,x\nr2,0,y\n",
		"id\ta\tb\nr1\t1\tx\nr2\t0\ty\n",
		"\"i\td\",a\nr1,1\nr2,0\n",
		"a,empty,b\n1,,x\n0,NA,y\n",
		"x,a,x,,b\n1,1,2,3,0\n2,0,3,4,1\n",
		"a,b\n1,1e99999\n2,3\n",
		// Delimiters told by the header, or a header left as one column.
		"a;b|c\n1;2|3\n",
		"\n\r\na|b\n1|2\n2|1\n",
		"\"a;b\"\n1\n2\n",
	}
	// cols lists names for Columns or Ignore; delim 3 detects the delimiter.
	cols := []string{"", "a", "b,a", "id", "x", "a,a", "empty", "b", "zz"}
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i%3), uint8(i), i%2 == 0, uint8(i%4), cols[i%len(cols)], i%3 == 0)
	}
	f.Fuzz(func(t *testing.T, in []byte, policy, maxStates uint8, dropConstant bool, delim uint8, names string, ignore bool) {
		opt := ReadOptions{
			Name:              "fuzz.csv",
			Missing:           MissingPolicy(policy % 3),
			MaxDiscreteStates: int(maxStates % 16),
			DropConstant:      dropConstant,
			Delimiter:         []rune{',', ';', '\t', 0}[delim%4],
		}
		var list []string
		if names != "" {
			list = strings.Split(names, ",")
		}
		if ignore {
			opt.Ignore = list
		} else {
			opt.Columns = list
		}
		d, rep, err := ReadCSV(bytes.NewReader(in), opt)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error %q (%T) is not a ParseError naming the file", err, err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("Validate: %v", err)
		}
		if d.NumVars() == 0 || d.NumRows() == 0 || d.NumRows() != rep.Rows-rep.RowsDropped {
			t.Fatalf("%d vars, %d rows, report %+v", d.NumVars(), d.NumRows(), rep)
		}
		if opt.Missing != MissingKeep && d.HasMissing() {
			t.Fatal("missing cells kept")
		}
		for _, n := range opt.Ignore {
			if _, ok := d.Index(strings.TrimSpace(n)); ok {
				t.Fatalf("ignored column %q read", n)
			}
		}
		if len(opt.Columns) > 0 && !opt.DropConstant {
			for i, n := range opt.Columns {
				if d.Var(i).Name != strings.TrimSpace(n) {
					t.Fatalf("columns %q, dataset %q", opt.Columns, d.Names())
				}
			}
			if d.NumVars() != len(opt.Columns) {
				t.Fatalf("columns %q, dataset %q", opt.Columns, d.Names())
			}
		}
		if len(rep.Columns)+len(rep.Skipped) < d.NumVars() {
			t.Fatalf("report: %d columns, %d skipped; %d variables", len(rep.Columns), len(rep.Skipped), d.NumVars())
		}
		roundTrip(t, d)
	})
}

func TestKeepConstant(t *testing.T) {
	d, _, err := ReadCSV(strings.NewReader("a,b\n1,0\n1,1\n"), ReadOptions{KeepConstant: true})
	if err != nil || d.NumVars() != 2 || d.Var(0).NumStates() != 1 {
		t.Fatalf("KeepConstant: %v", err)
	}
	if _, _, err := ReadCSV(strings.NewReader("a,b\n1,0\n1,1\n"), ReadOptions{}); err == nil {
		t.Fatal("constant column accepted without KeepConstant")
	}
}

// TestReadCSVFileGzip reads a gzip-compressed CSV file whatever its name,
// equal to the plain file, and names the file when the gzip stream is
// broken.
func TestReadCSVFileGzip(t *testing.T) {
	const in = "a,b,x\n0,1,0.5\n1,1,2.5\n1,0,-1\n"
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"d.csv.gz", "d.csv"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		opt := ReadOptions{Continuous: []string{"x"}}
		d, _, err := ReadCSVFile(p, opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, _ := read(t, in, opt)
		if d.NumRows() != want.NumRows() || d.NumVars() != want.NumVars() {
			t.Fatalf("%s: %d rows, %d vars", name, d.NumRows(), d.NumVars())
		}
		if !slices.Equal(d.Discrete(0), want.Discrete(0)) || !slices.Equal(d.Discrete(1), want.Discrete(1)) ||
			!slices.Equal(d.Continuous(2), want.Continuous(2)) {
			t.Errorf("%s: cells differ from the plain file's", name)
		}
		os.Remove(p)
	}
	bad := filepath.Join(dir, "bad.csv.gz")
	if err := os.WriteFile(bad, buf.Bytes()[:buf.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadCSVFile(bad, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "bad.csv.gz") {
		t.Errorf("truncated gzip: error %v, want one naming the file", err)
	}
}
