package distance

import (
	"bytes"
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	"",
	"a,b,c\n0,1,2\n1,0,3\n2,3,0\n",
	"\uFEFF a , b \r\n0,1\r\n1,0\r\n",
	",a,b\na,0,1\nb,1,0\n",
	"name,1,2\n1,0,4\n2,4,0\n",
	"a;b\n0;1\n1;0\n",
	"\ta\tb\na\t0\tinf\nb\tinf\t0\n",
	`"x,1";"say ""hi"""` + "\n0;1\n1;0\n",
	"\"42\"\n0\n",
	"a,b\n0,1e999\n1e999,0\n",
	"a,b\n0,nan\nnan,0\n",
	"a,b\n0,-0\n-0,0x1p-2\n",
	"a,b\n1e-12,2\n2.0000000001,-1e-11\n",
	"3\na 0 1 2\nb 1 0 3\nc 2 3 0\n",
	"3\nHomo sapie0 1 2\nPan t.    1 0 3\nGorilla g.2 3 0\n",
	"2\ntaxon 1    0 5\ntaxon 2    5 0\n",
	"3\na\nb 1\nc 2 3\n",
	"3\na 0\nb 1 0\nc 2 3 0\n",
	"3\na 0 1\n 2\nb 1 0\n3\nc 2 3\n\n 0\n",
	"1\nx\n",
	"1\nx y       0\n",
	"99999999999999999999\n",
	"1000000000\na\n",
	"2\na 0 1\nb 1 0\nc 1 1\n",
	"2\na 0 inf\nb inf 0\n",
	"a,b\n0,1\"x\n1,0\n",
	"\"a\nb\",c\n0,1\n1,0\n",
}

// FuzzReadMatrix checks that ReadMatrix never panics, that whatever it
// accepts is a valid, exactly symmetric matrix with a zero diagonal, and
// that writing it as CSV (and as PHYLIP, when that can represent it) and
// reading it back reproduces it bit for bit.
func FuzzReadMatrix(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, in string, allowInf bool) {
		opt := ReadOptions{Name: "fuzz", AllowInf: allowInf}
		m, err := ReadMatrix(strings.NewReader(in), opt)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "distance: ") {
				t.Fatalf("error %q lacks the package prefix", err)
			}
			return
		}
		if err := m.Validate(ValidateOptions{AllowInf: allowInf}); err != nil {
			t.Fatalf("ReadMatrix accepted an invalid matrix: %v", err)
		}
		n := m.Size()
		for i := 0; i < n; i++ {
			if m.At(i, i) != 0 {
				t.Fatalf("diagonal entry %d is %g", i, m.At(i, i))
			}
			for j := 0; j < i; j++ {
				if m.At(i, j) != m.At(j, i) {
					t.Fatalf("d(%d,%d) = %g but d(%d,%d) = %g", i, j, m.At(i, j), j, i, m.At(j, i))
				}
			}
		}

		var b bytes.Buffer
		if err := WriteCSV(&b, m); err != nil {
			t.Fatalf("WriteCSV: %v", err)
		}
		got, err := ReadMatrix(bytes.NewReader(b.Bytes()), opt)
		if err != nil {
			t.Fatalf("reading back CSV: %v\n%q", err, b.String())
		}
		if !sameMatrix(got, m) {
			t.Fatalf("CSV round trip changed the matrix:\ngot  %q %v\nwant %q %v", got.Names, got.D, m.Names, m.D)
		}

		b.Reset()
		if err := WritePHYLIP(&b, m); err != nil {
			return // a name PHYLIP cannot hold
		}
		got, err = ReadMatrix(bytes.NewReader(b.Bytes()), opt)
		if err != nil {
			t.Fatalf("reading back PHYLIP: %v\n%q", err, b.String())
		}
		if !sameMatrix(got, m) {
			t.Fatalf("PHYLIP round trip changed the matrix:\ngot  %q %v\nwant %q %v", got.Names, got.D, m.Names, m.D)
		}
	})
}
