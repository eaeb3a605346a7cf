package distance

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestWriteCSV(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name string
		m    *Matrix
		want string
	}{
		{"plain", mustMatrix(t, []string{"a", "b", "c"},
			0, 0.1, 1.0/3,
			0.1, 0, inf,
			1.0/3, inf, 0),
			"a,b,c\n0,0.1,0.3333333333333333\n0.1,0,inf\n0.3333333333333333,inf,0\n"},
		{"quoting", mustMatrix(t, []string{`x,1`, `say "hi"`, "p;q", "t\tu", "5"},
			0, 1, 2, 3, 4,
			1, 0, 5, 6, 7,
			2, 5, 0, 8, 9,
			3, 6, 8, 0, 1e-300,
			4, 7, 9, 1e-300, 0),
			"\"x,1\",\"say \"\"hi\"\"\",\"p;q\",\"t\tu\",5\n" +
				"0,1,2,3,4\n1,0,5,6,7\n2,5,0,8,9\n3,6,8,0,1e-300\n4,7,9,1e-300,0\n"},
		{"lone numeric name", mustMatrix(t, []string{"42"}, 0), "\"42\"\n0\n"},
		{"lone name", mustMatrix(t, []string{"x y"}, 0), "x y\n0\n"},
		{"leading byte-order mark", mustMatrix(t, []string{"\uFEFFa", "b"}, 0, 1, 1, 0), "\"\uFEFFa\",b\n0,1\n1,0\n"},
		{"invalid entries written as they are", mustMatrix(t, []string{"a", "b"}, 1, -2, math.NaN(), math.Inf(-1)),
			"a,b\n1,-2\nnan,-inf\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteCSV(&b, tc.m); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Fatalf("got\n%q\nwant\n%q", b.String(), tc.want)
			}
		})
	}
}

func TestWritePHYLIP(t *testing.T) {
	m := mustMatrix(t, []string{"Human", "Homo erect", "Pan_troglodytes"},
		0, 0.25, 1e-7,
		0.25, 0, math.Inf(1),
		1e-7, math.Inf(1), 0)
	want := "3\n" +
		"Human      0 0.25 1e-07\n" +
		"Homo erect 0.25 0 inf\n" +
		"Pan_troglodytes 1e-07 inf 0\n"
	var b bytes.Buffer
	if err := WritePHYLIP(&b, m); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", b.String(), want)
	}
}

func TestWriteErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		m      *Matrix
		csv    []string // nil: WriteCSV succeeds
		phylip []string // nil: WritePHYLIP succeeds
	}{
		{"no names", &Matrix{}, []string{"no variables"}, []string{"no variables"}},
		{"short D", &Matrix{Names: []string{"a", "b"}, D: []float64{0}},
			[]string{"1 entries", "want 2×2 = 4"}, []string{"1 entries"}},
		{"duplicate", &Matrix{Names: []string{"a", "a"}, D: make([]float64, 4)},
			[]string{`duplicate variable name "a"`}, []string{`duplicate variable name "a"`}},
		{"padded name", &Matrix{Names: []string{"a "}, D: make([]float64, 1)},
			[]string{"ends with white space"}, []string{"ends with white space"}},
		{"long name with space", &Matrix{Names: []string{"Homo sapiens"}, D: make([]float64, 1)},
			nil, []string{`"Homo sapiens"`, "longer than 10 characters", "white space"}},
		{"line break", &Matrix{Names: []string{"a\nb"}, D: make([]float64, 1)},
			nil, []string{`"a\nb"`, "line break"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			err := WriteCSV(&b, tc.m)
			if tc.csv == nil {
				if err != nil {
					t.Errorf("WriteCSV: %v", err)
				}
			} else {
				wantErr(t, err, tc.csv...)
			}
			err = WritePHYLIP(&b, tc.m)
			if tc.phylip == nil {
				if err != nil {
					t.Errorf("WritePHYLIP: %v", err)
				}
			} else {
				wantErr(t, err, tc.phylip...)
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteWriterError(t *testing.T) {
	m := mustMatrix(t, []string{"a", "b"}, 0, 1, 1, 0)
	wantErr(t, WriteCSV(failingWriter{}, m), "writing CSV", "disk full")
	wantErr(t, WritePHYLIP(failingWriter{}, m), "writing PHYLIP", "disk full")
}

// roundTripMatrices are valid matrices (with +Inf entries) whose names and
// values exercise quoting, padding and number formatting.
func roundTripMatrices(t *testing.T) []*Matrix {
	inf := math.Inf(1)
	return []*Matrix{
		mustMatrix(t, []string{"a"}, 0),
		mustMatrix(t, []string{"7"}, 0),
		mustMatrix(t, []string{"x y"}, 0),
		mustMatrix(t, []string{"a\rb", "c\u0085d", "e\u00a0f", "\xffg\xfe", "h\x00i"},
			0, 1, 2, 3, 4,
			1, 0, 5, 6, 7,
			2, 5, 0, 8, 9,
			3, 6, 8, 0, 10,
			4, 7, 9, 10, 0),
		mustMatrix(t, []string{"taxon 1", "taxon 2", "taxon_three_long"},
			0, 0.1, 1e-300,
			0.1, 0, 1e300,
			1e-300, 1e300, 0),
		mustMatrix(t, []string{`q"uote`, "comma,name", "semi;colon", "ünïcødé名前", "0", "1", "inf"},
			0, 1.0/3, 2.0/3, math.Pi, math.MaxFloat64, math.SmallestNonzeroFloat64, inf,
			1.0/3, 0, 1, 2, 3, 4, 5,
			2.0/3, 1, 0, 6, 7, 8, 9,
			math.Pi, 2, 6, 0, 10, 11, 12,
			math.MaxFloat64, 3, 7, 10, 0, 13, 14,
			math.SmallestNonzeroFloat64, 4, 8, 11, 13, 0, 15,
			inf, 5, 9, 12, 14, 15, 0),
	}
}

func TestRoundTrip(t *testing.T) {
	for _, m := range roundTripMatrices(t) {
		if err := m.Validate(ValidateOptions{AllowInf: true}); err != nil {
			t.Fatalf("fixture invalid: %v", err)
		}
		for _, f := range []struct {
			name  string
			write func(*bytes.Buffer, *Matrix) error
		}{
			{"CSV", func(b *bytes.Buffer, m *Matrix) error { return WriteCSV(b, m) }},
			{"PHYLIP", func(b *bytes.Buffer, m *Matrix) error { return WritePHYLIP(b, m) }},
		} {
			var b bytes.Buffer
			if err := f.write(&b, m); err != nil {
				t.Fatalf("Write%s(%q): %v", f.name, m.Names, err)
			}
			got, err := ReadMatrix(strings.NewReader(b.String()), ReadOptions{AllowInf: true})
			if err != nil {
				t.Fatalf("reading back %s of %q: %v\n%s", f.name, m.Names, err, b.String())
			}
			if !sameMatrix(got, m) {
				t.Errorf("%s round trip changed the matrix:\ngot  %+v\nwant %+v\n%s", f.name, got, m, b.String())
			}
		}
	}
}
