package distance

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadMatrix(t *testing.T) {
	inf := math.Inf(1)
	abc := []string{"a", "b", "c"}
	want3 := []float64{
		0, 1, 2,
		1, 0, 3,
		2, 3, 0,
	}
	for _, tc := range []struct {
		name  string
		in    string
		opt   ReadOptions
		names []string
		d     []float64
	}{
		{"csv", "a,b,c\n0,1,2\n1,0,3\n2,3,0\n", ReadOptions{}, abc, want3},
		{"csv no final newline", "a,b,c\n0,1,2\n1,0,3\n2,3,0", ReadOptions{}, abc, want3},
		{"csv crlf bom blank lines spaces",
			"\uFEFF\r\n a , b ,c\r\n\r\n0, 1 ,2\r\n1,0,3\r\n  \r\n2,3,0 \r\n\r\n", ReadOptions{}, abc, want3},
		{"csv label empty", ",a,b,c\na,0,1,2\nb,1,0,3\nc,2,3,0\n", ReadOptions{}, abc, want3},
		{"csv label name", "name,a,b,c\na,0,1,2\nb,1,0,3\nc,2,3,0\n", ReadOptions{}, abc, want3},
		{"csv label quoted empty", `"",a,b,c` + "\na,0,1,2\nb,1,0,3\nc,2,3,0\n", ReadOptions{}, abc, want3},
		{"csv label numeric names", "id,1,2\n1,0,4\n2,4,0\n", ReadOptions{}, []string{"1", "2"}, []float64{0, 4, 4, 0}},
		{"csv variable called name", "name,b\n0,4\n4,0\n", ReadOptions{}, []string{"name", "b"}, []float64{0, 4, 4, 0}},
		{"csv semicolon", "a;b;c\n0;1;2\n1;0;3\n2;3;0\n", ReadOptions{}, abc, want3},
		{"csv tab label", "\ta\tb\tc\na\t0\t1\t2\nb\t1\t0\t3\nc\t2\t3\t0\n", ReadOptions{}, abc, want3},
		{"csv quoted names", `"x,1";"say ""hi""";z` + "\n0;1;2\n1;0;3\n2;3;0\n", ReadOptions{},
			[]string{"x,1", `say "hi"`, "z"}, want3},
		{"csv single", "only\n0\n", ReadOptions{}, []string{"only"}, []float64{0}},
		{"csv number forms", "a,b,c\n0,1e0,.2e1\n1.0,-0,0x1.8p1\n2,3,+0\n", ReadOptions{}, abc, want3},
		{"csv inf", "a,b,c\n0,inf,+Inf\nInf,0,3\ninfinity,3,0\n", ReadOptions{AllowInf: true}, abc,
			[]float64{0, inf, inf, inf, 0, 3, inf, 3, 0}},
		{"phylip square", "3\na 0 1 2\nb 1 0 3\nc 2 3 0\n", ReadOptions{}, abc, want3},
		{"phylip indented count crlf blank lines", "\r\n   3\r\na 0 1 2\r\n\r\nb 1 0 3\r\nc 2 3 0\r\n\r\n", ReadOptions{}, abc, want3},
		{"phylip strict names",
			"3\nHomo sapie0 1 2\nPan t.    1 0 3\nGorilla g.2 3 0\n", ReadOptions{},
			[]string{"Homo sapie", "Pan t.", "Gorilla g."}, want3},
		{"phylip strict name with digit word",
			"2\ntaxon 1    0 5\ntaxon 2    5 0\n", ReadOptions{},
			[]string{"taxon 1", "taxon 2"}, []float64{0, 5, 5, 0}},
		{"phylip relaxed long names",
			"3\nHomo_sapiens 0 1 2\nPan_troglodytes\t1 0 3\nGorilla_gorilla   2 3 0\n", ReadOptions{},
			[]string{"Homo_sapiens", "Pan_troglodytes", "Gorilla_gorilla"}, want3},
		{"phylip lower triangular strict names", "3\nHomo sap\nPan tro   1\nGorilla go2 3\n", ReadOptions{},
			[]string{"Homo sap", "Pan tro", "Gorilla go"}, want3},
		{"phylip lower triangular", "3\na\nb 1\nc 2 3\n", ReadOptions{}, abc, want3},
		{"phylip lower triangular with diagonal", "3\na 0\nb 1 0\nc 2 3 0\n", ReadOptions{}, abc, want3},
		{"phylip wrapped rows", "3\na 0 1\n 2\nb 1 0\n3\nc 2 3\n\n 0\n", ReadOptions{}, abc, want3},
		{"phylip single", "1\nx 0\n", ReadOptions{}, []string{"x"}, []float64{0}},
		{"phylip single lower", "1\nx\n", ReadOptions{}, []string{"x"}, []float64{0}},
		{"phylip inf", "2\na 0 inf\nb inf 0\n", ReadOptions{AllowInf: true}, []string{"a", "b"}, []float64{0, inf, inf, 0}},
		// Entries within the tolerance are averaged and the diagonal zeroed.
		{"tolerance normalises", "a,b\n1e-12,2\n2.25,-0\n", ReadOptions{Tol: 0.2}, []string{"a", "b"}, []float64{0, 2.125, 2.125, 0}},
		{"negative zero", "a,b\n0,-0\n-0,0\n", ReadOptions{}, []string{"a", "b"}, []float64{0, 0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadMatrix(strings.NewReader(tc.in), tc.opt)
			if err != nil {
				t.Fatalf("ReadMatrix: %v", err)
			}
			want := &Matrix{Names: tc.names, D: tc.d}
			if !sameMatrix(m, want) {
				t.Fatalf("got %+v, want %+v", m, want)
			}
		})
	}
}

func TestReadMatrixErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		opt  ReadOptions
		want []string
	}{
		// Empty input.
		{"empty", "", ReadOptions{Name: "d.csv"}, []string{"distance: d.csv: empty input"}},
		{"blank", " \n\t\r\n\n", ReadOptions{Name: "d.csv"}, []string{"d.csv: empty input"}},
		{"bom only", "\uFEFF", ReadOptions{}, []string{"distance: empty input"}},

		// CSV structure.
		{"csv header only", "a,b\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:1:", "after 0 of 2 rows", `row of "a" is missing`}},
		{"csv missing row", "a,b,c\n0,1,2\n1,0,3\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:3:", "after 2 of 3 rows", `row of "c" is missing`}},
		{"csv extra row", "a,b\n0,1\n1,0\n1,1\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:4:", "extra row", "2 variables"}},
		{"csv short row", "a,b,c\n0,1,2\n1,0\n2,3,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:3:", `row of "b" has 2 cells, want 3`}},
		{"csv long row", "a,b\n0,1,2\n1,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:2:", `row of "a" has 3 cells, want 2`}},
		{"csv label row short", ",a,b\na,0,1\nb,1\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:3:", `row of "b" has 2 cells, want 3`}},
		{"csv label mismatch", ",a,b\na,0,1\nc,1,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:3:", `row label "c"`, `header name "b"`}},
		{"csv label mismatch by name", "name,a,b\nb,0,1\na,1,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:2:", `row label "b"`, `header name "a"`}},
		{"csv duplicate names", "a,b,a\n0,1,2\n1,0,3\n2,3,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:1:", `duplicate variable name "a"`, "cells 1 and 3"}},
		{"csv empty name", "a,,c\n0,1,2\n1,0,3\n2,3,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:1:", "header cell 2 is empty"}},
		{"csv label only", ",\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:1:", "header cell 2 is empty"}},
		{"csv no variables", `""` + "\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:1:", "names no variables"}},
		{"csv bad quote", "a,b\n0,1\"x\n1,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:2:", `bare "`}},

		// CSV cells.
		{"csv non-numeric", "a,b,c\n0,1,2\n1,0,x3\n2,3,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:3:", `d(b,c) = "x3" is not a number`}},
		{"csv empty cell", "a,b\n0,\n1,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:2:", `d(a,b) = "" is empty`}},
		{"csv decimal comma", "a;b\n0;1,5\n1,5;0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:2:", `d(a,b) = "1,5" is not a number`}},
		{"csv out of range", "a,b\n0,1e999\n1e999,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:2:", `d(a,b) = "1e999" is out of range`}},
		{"csv nan", "a,b,c\n0,1,2\n1,0,NaN\n2,3,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:3:", "d(b,c) is NaN"}},
		{"csv negative", "a,b,c\n0,1,2\n1,0,3\n-2,3,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:4:", "d(c,a) = -2 is negative"}},
		{"csv asymmetric", "a,b,c\n0,1,2\n1,0,3\n2,3.5,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:4:", "asymmetric", "d(c,b) = 3.5", "d(b,c) = 3 on line 3", "tolerance 1e-09"}},
		{"csv asymmetric custom tol", "a,b\n0,1\n1.5,0\n", ReadOptions{Name: "d.csv", Tol: 0.1},
			[]string{"d.csv:3:", "d(b,a) = 1.5", "d(a,b) = 1 on line 2", "tolerance 0.1"}},
		{"csv diagonal", "a,b,c\n0,1,2\n1,0.001,3\n2,3,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:3:", "diagonal", "d(b,b) = 0.001", "not zero"}},
		{"csv inf", "a,b\n0,inf\ninf,0\n", ReadOptions{Name: "d.csv"},
			[]string{"d.csv:2:", "d(a,b) is infinite", "AllowInf"}},
		{"csv minus inf", "a,b\n0,-inf\n-inf,0\n", ReadOptions{Name: "d.csv", AllowInf: true},
			[]string{"d.csv:2:", "d(a,b) = -inf is negative"}},
		{"csv inf diagonal", "a,b\ninf,1\n1,0\n", ReadOptions{Name: "d.csv", AllowInf: true},
			[]string{"d.csv:2:", "d(a,a) = inf", "not zero"}},
		{"csv no name in options", "a,b\n0,1\n2,0\n", ReadOptions{},
			[]string{"distance: line 3:", "d(b,a) = 2", "d(a,b) = 1 on line 2"}},

		// PHYLIP structure.
		{"phylip zero", "0\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:1:", "number of variables is 0"}},
		{"phylip huge count", "\n99999999999999999999999\na 0\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:2:", "99999999999999999999999 is too large"}},
		{"phylip missing rows", "3\na 0 1 2\nb 1 0 3\n\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:3:", "after 2 of 3 rows"}},
		{"phylip big count few rows", "1000000000\na\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:2:", "after 1 of 1000000000 rows"}},
		{"phylip short row", "3\na 0 1 2\nb 1 0\nc 2 3 0\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:3:", `row of "b" has 2 distances, want 3`}},
		{"phylip short last row", "3\na 0 1 2\nb 1 0 3\nc 2 3\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:4:", `row of "c" has 2 distances, want 3`}},
		{"phylip long row", "2\na 0 1\nb 1 0 7\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:3:", `row of "b" has 3 distances, want 2`}},
		{"phylip long first row", "2\na 0 1 7\nb 1 0\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:2:", `row of "a" has 3 distances, want 2`}},
		{"phylip long continuation", "3\na 0 1\n2 9\nb 1 0 3\nc 2 3 0\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:3:", `row of "a" has more than 3 distances`, `"9"`}},
		{"phylip lower row too long", "3\na\nb 1 5\nc 2 3\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:3:", `row of "b" has 2 distances, want 1`}},
		{"phylip extra line", "2\na 0 1\nb 1 0\nc 1 1\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:4:", `unexpected line "c 1 1"`, "after the end of the matrix (2 rows)"}},
		{"phylip long extra line", "1\na 0\nthis line goes on and on and on and on and on and on\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:3:", `unexpected line "this line goes on and on and on and on a…"`}},
		{"phylip duplicate", "3\na 0 1 2\nb 1 0 3\na 2 3 0\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:4:", `duplicate variable name "a"`, "also on line 2"}},

		// PHYLIP cells.
		{"phylip non-numeric known column", "3\na 0 1 2\nb x 0 3\nc 2 3 0\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:3:", `d(b,a) = "x" is not a number`}},
		{"phylip non-numeric diagonal", "2\na 0 1\nb 1 zero\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:3:", `d(b,b) = "zero" is not a number`}},
		{"phylip non-numeric later column", "3\na 0 1 2\nb 1 0 3?\nc 2 3 0\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:3:", `row of "b", entry 3 = "3?" is not a number`}},
		{"phylip non-numeric continuation", "3\na 0 1\n2x\nb 1 0 3\nc 2 3 0\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:2:", `row of "a" has 2 distances, want 3`}},
		{"phylip non-numeric inside continuation", "4\na 0 1\n2 3x\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:3:", `row of "a", entry 4 = "3x" is not a number`}},
		{"phylip nan", "2\na 0 1\nb nan 0\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:3:", "d(b,a) is NaN"}},
		{"phylip negative", "2\na 0 -1\nb -1 0\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:2:", "d(a,b) = -1 is negative"}},
		{"phylip asymmetric", "3\na 0 1 2\nb 1 0 3\nc 2.5 3 0\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:4:", "asymmetric", "d(c,a) = 2.5", "d(a,c) = 2 on line 2"}},
		{"phylip diagonal", "2\na 1 1\nb 1 0\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:2:", "d(a,a) = 1", "not zero"}},
		{"phylip lower negative", "3\na\nb 1\nc 2 -3\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:4:", "d(c,b) = -3 is negative"}},
		{"phylip lower diagonal", "3\na 0\nb 1 0\nc 2 3 4\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:4:", "d(c,c) = 4", "not zero"}},
		{"phylip inf", "2\na 0 inf\nb inf 0\n", ReadOptions{Name: "d.phy"},
			[]string{"d.phy:2:", "d(a,b) is infinite"}},

		// Options.
		{"bad tolerance", "a\n0\n", ReadOptions{Tol: -0.5}, []string{"invalid tolerance -0.5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadMatrix(strings.NewReader(tc.in), tc.opt)
			if err == nil {
				t.Fatalf("got %+v, want an error", m)
			}
			wantErr(t, err, tc.want...)
			if !strings.HasPrefix(err.Error(), "distance: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadMatrixReaderError(t *testing.T) {
	_, err := ReadMatrix(failingReader{}, ReadOptions{Name: "x.csv"})
	wantErr(t, err, "reading x.csv", "disk on fire")
}

func TestReadMatrixFile(t *testing.T) {
	m, err := ReadMatrixFile(filepath.Join("testdata", "primates.phy"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := &Matrix{
		Names: []string{"Human", "Chimp", "Gorilla", "Orangutan"},
		D: []float64{
			0, 0.1, 0.15, 0.3,
			0.1, 0, 0.16, 0.31,
			0.15, 0.16, 0, 0.29,
			0.3, 0.31, 0.29, 0,
		},
	}
	if !sameMatrix(m, want) {
		t.Fatalf("got %+v, want %+v", m, want)
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("a,b\n0,1\n1,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadMatrixFile(bad, ReadOptions{})
	wantErr(t, err, bad+":3:", `d(b,b) = "x"`)
	_, err = ReadMatrixFile(bad, ReadOptions{Name: "other"})
	wantErr(t, err, "other:3:")

	_, err = ReadMatrixFile(filepath.Join(dir, "missing.csv"), ReadOptions{})
	wantErr(t, err, "missing.csv")
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error %v does not wrap os.ErrNotExist", err)
	}
}
