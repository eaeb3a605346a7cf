package data

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// readAllWays reads the CSV text in as a file named name: with ReadCSV
// from memory, with ReadCSVFile on the plain file and on its gzip, and
// with OpenBlocks (one block) on both. It returns the datasets (the blocks
// read by OpenBlocks concatenated) or errors, with a label for each.
func readAllWays(t *testing.T, dir, name, in string, opt ReadOptions) ([]string, []*Dataset, []error) {
	t.Helper()
	plain := writeTemp(t, dir, name, []byte(in))
	zipped := writeTemp(t, dir, name+".gz", gz(in))
	var labels []string
	var ds []*Dataset
	var errs []error
	add := func(label string, d *Dataset, err error) {
		labels, ds, errs = append(labels, label), append(ds, d), append(errs, err)
	}
	o := opt
	o.Name = plain
	d, _, err := ReadCSV(strings.NewReader(in), o)
	add("ReadCSV", d, err)
	d, _, err = ReadCSVFile(plain, opt)
	add("ReadCSVFile", d, err)
	d, _, err = ReadCSVFile(zipped, opt)
	add("ReadCSVFile(gzip)", d, err)
	for _, p := range []string{plain, zipped} {
		label := "OpenBlocks"
		if p == zipped {
			label += "(gzip)"
		}
		blocks, err := readAll([]string{p}, BlockOptions{ReadOptions: opt})
		if err == nil && len(blocks) != 1 {
			err = fmt.Errorf("%d blocks", len(blocks))
		}
		var d *Dataset
		if err == nil {
			d = blocks[0]
		}
		add(label, d, err)
	}
	// In blocks of 2 rows, typed from every row.
	var d2 *Dataset
	p, err := Pack(&Files{Paths: []string{zipped}, Options: BlockOptions{ReadOptions: opt, BlockRows: 2}})
	if err == nil {
		d2, err = p.Dataset()
	}
	add("OpenBlocks(gzip, 2 rows)", d2, err)
	return labels, ds, errs
}

// errorKey describes an error for comparison across readers: the fields
// of a *ParseError other than the file, which each reader names its own
// way.
func errorKey(err error) string {
	var pe *ParseError
	if !errors.As(err, &pe) {
		return "not a *ParseError: " + err.Error()
	}
	return fmt.Sprintf("line %d, column %d %q: %v", pe.Line, pe.Column, pe.ColumnName, pe.Err)
}

// wholeInput reports whether a and b are both errors of the checks made
// of the whole input (no rows, no rows left, a column constant or without
// values), which have no line. ReadCSV and OpenBlocks make them in
// different orders with different hints: OpenBlocks cannot drop constant
// columns, and names every file read rather than a column number.
func wholeInput(a, b error) bool {
	var pa, pb *ParseError
	return errors.As(a, &pa) && errors.As(b, &pb) && pa.Line == 0 && pb.Line == 0
}

// sameAllWays checks that every way of reading in gives the same dataset,
// or errors alike.
func sameAllWays(t *testing.T, dir, name, in string, opt ReadOptions) {
	t.Helper()
	labels, ds, errs := readAllWays(t, dir, name, in, opt)
	for i := 1; i < len(labels); i++ {
		switch {
		case (errs[0] == nil) != (errs[i] == nil):
			t.Errorf("%s: %s error %v, %s error %v", name, labels[0], errs[0], labels[i], errs[i])
		case errs[0] != nil:
			if a, b := errorKey(errs[0]), errorKey(errs[i]); a != b && !wholeInput(errs[0], errs[i]) {
				t.Errorf("%s: errors differ:\n%s: %s\n%s: %s", name, labels[0], a, labels[i], b)
			}
		default:
			if diff := sameDataset(ds[0], ds[i]); diff != "" {
				t.Errorf("%s: %s and %s differ: %s", name, labels[0], labels[i], diff)
			}
		}
	}
}

// TestReadersTypeAlike: a CSV file read whole by ReadCSV (from memory or
// from the file), by ReadCSVFile on its gzip, and by OpenBlocks on the
// plain and gzip files (in one block, and the gzip in blocks of 2 rows) gives the same variables (names, kinds, states and
// their order) and cells, or the same error (line, column and message).
func TestReadersTypeAlike(t *testing.T) {
	many := func(n int, cell func(i int) string) string {
		var b strings.Builder
		b.WriteString("x,c\n")
		for i := range n {
			fmt.Fprintf(&b, "%s,%s\n", cell(i), []string{"u", "v"}[i%2])
		}
		return b.String()
	}
	keep := ReadOptions{Missing: MissingKeep, KeepConstant: true}
	cases := []struct {
		name string // file name
		in   string
		opts []ReadOptions
	}{
		{"numbers.csv", "a,b\n2,x\n10,y\n1,x\n10,y\n", nil},
		{"leading.csv", "a,b\n01,x\n1,y\n1.0,x\n-0,y\n0,x\n+1,y\n1e0,x\n", nil},
		{"mixed.csv", "a,b\n1,x\n2,y\nten,x\n10,y\n", nil},
		{"negzero.csv", "a,b\n-0,x\n0,y\n0.0,x\n", nil},
		{"negzero-cont.csv", "a,b\n-0,x\n0,y\n0.5,x\n", []ReadOptions{{Continuous: []string{"a"}, KeepConstant: true}}},
		{"missing.csv", "a,b\n1,NA\n,y\n?,x\nNA,\n2,x\n", []ReadOptions{keep, {Missing: MissingDropRows}, {MissingTokens: []string{"?"}, Missing: MissingKeep}}},
		{"white.csv", "a , b\n 1 ,x \n2, y\n\t3\t,\"  x\"\n 1,\" \"\n", nil},
		{"bom-crlf.csv", "\ufeffa,b\r\n1,x\r\n2,\"y\r\nz\"\r\n3,x\r\n", nil},
		{"tabs.tsv", "a\tb\n1\tx\n2\ty\n", nil},
		{"tabcomma.tsv", "a\tb,c\n1\tx\n2\ty\n", nil},
		{"inf.csv", "a,b\n1,x\nInf,y\n2,x\n", nil},
		{"nan.csv", "a,b\n1,x\nNaN,y\n2,x\n", nil},
		{"inf-text.csv", "a,b\n1,x\nInf,y\nz,x\n", nil},
		{"forced.csv", "a,b\n1,x\n2,y\nz,x\n", []ReadOptions{{Continuous: []string{"a"}}, {Discrete: []string{"a"}}}},
		{"over-max.csv", many(30, func(i int) string { return strconv.Itoa(i * 7 % 30) }), []ReadOptions{{}, {MaxDiscreteStates: 30}, {MaxDiscreteStates: 29}}},
		{"over-max-text.csv", many(30, func(i int) string { return "s" + strconv.Itoa(i) }), nil},
		{"switch.csv", many(1100, func(i int) string { return strconv.Itoa(i * 37 % 1100) }), nil},
		{"switch-text.csv", many(1100, func(i int) string {
			if i == 1050 {
				return "oops"
			}
			return strconv.Itoa(i)
		}), nil},
		{"switch-text-early.csv", many(1100, func(i int) string {
			if i == 500 {
				return "oops"
			}
			return strconv.Itoa(i)
		}), nil},
		{"switch-inf.csv", many(1100, func(i int) string {
			if i == 1050 {
				return "-Inf"
			}
			return strconv.Itoa(i)
		}), nil},
		{"switch-forced.csv", many(1100, strconv.Itoa), []ReadOptions{{Discrete: []string{"x"}}}},
		{"constant.csv", "a,b\n1,x\n1.0,y\n", []ReadOptions{{}, {Continuous: []string{"a"}}, {KeepConstant: true}}},
		{"allmissing.csv", "a,b\n,x\n,y\n", []ReadOptions{keep}},
		{"ragged.csv", "a,b\n1,x\n2\n", nil},
		{"badutf8.csv", "a,b\n1,x\n2,\xff\n", nil},
		{"badquote.csv", "a,b\n1,x\"y\n", nil},
		{"blank-lines.csv", "\n\na,b\n1,x\n\n2,y\n", nil},
		{"empty-name.csv", "a,\n1,x\n2,y\n", nil},
		{"dup-name.csv", "a,a\n1,x\n2,y\n", nil},
		{"dup-name-late.csv", "\n\na,b,a\n1,x,2\n2,y,3\n", nil},
		{"bad-name-ignored.csv", "a,b,\xff\n1,x,2\n2,y,3\n", []ReadOptions{{Ignore: []string{"\xff"}}, {Columns: []string{"a", "b"}}}},
		{"header-only.csv", "a,b\n", nil},
		{"empty.csv", "", nil},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		opts := tc.opts
		if opts == nil {
			opts = []ReadOptions{{}, keep, {MaxDiscreteStates: 2, Missing: MissingKeep}}
		}
		for k, opt := range opts {
			t.Run(fmt.Sprintf("%s/%d", tc.name, k), func(t *testing.T) {
				sameAllWays(t, dir, tc.name, tc.in, opt)
			})
		}
	}
}

// TestReadersTypeAlikeRandom is the property behind TestReadersTypeAlike
// on random files made of tricky cells.
func TestReadersTypeAlikeRandom(t *testing.T) {
	cells := []string{"0", "1", "2", "01", "1.0", "-0", "+1", "1e0", " 2 ", "10", "-3.5",
		"NA", "", "?", " ", "x", "X", "yes", "Inf", "NaN", "1,5", "\"q\"\"\"", "é"}
	rnd := rand.New(rand.NewPCG(21, 4))
	dir := t.TempDir()
	for iter := range 300 {
		ncol, nrow := 1+rnd.IntN(4), 1+rnd.IntN(12)
		var b bytes.Buffer
		if rnd.IntN(4) == 0 {
			b.WriteString("\ufeff")
		}
		eol := "\n"
		if rnd.IntN(3) == 0 {
			eol = "\r\n"
		}
		for j := range ncol {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "c%d", j)
		}
		b.WriteString(eol)
		// Each column draws from its own few cells.
		pools := make([][]string, ncol)
		for j := range pools {
			for range 1 + rnd.IntN(6) {
				pools[j] = append(pools[j], cells[rnd.IntN(len(cells))])
			}
		}
		for range nrow {
			for j := range ncol {
				if j > 0 {
					b.WriteByte(',')
				}
				c := pools[j][rnd.IntN(len(pools[j]))]
				if strings.ContainsAny(c, ",\"") && c[0] != '"' {
					c = `"` + c + `"`
				}
				b.WriteString(c)
			}
			b.WriteString(eol)
		}
		opt := ReadOptions{
			Missing:           MissingPolicy(rnd.IntN(3)),
			MaxDiscreteStates: rnd.IntN(5),
			KeepConstant:      rnd.IntN(2) == 0,
		}
		if rnd.IntN(4) == 0 {
			opt.MissingTokens = []string{"?", "x"}
		}
		name := fmt.Sprintf("r%d.csv", iter)
		sameAllWays(t, dir, name, b.String(), opt)
		if t.Failed() {
			t.Fatalf("input %q, options %+v", b.String(), opt)
		}
	}
}

// BenchmarkOpenBlocks reads the file of BenchmarkReadCSV in blocks.
func BenchmarkOpenBlocks(b *testing.B) {
	in := binaryCSV(100000, 100, 7)
	p := writeTemp(b, b.TempDir(), "bench.csv", in)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		blocks, err := readAll([]string{p}, BlockOptions{})
		if err != nil || len(blocks) != 2 {
			b.Fatal(err)
		}
	}
}

// FuzzReadersTypeAlike checks TestReadersTypeAlike's property on arbitrary
// text: ReadCSV, ReadCSVFile and OpenBlocks, on the file and its gzip, give
// the same dataset or the same error.
func FuzzReadersTypeAlike(f *testing.F) {
	f.Add("a,b\n01,x\n1,y\n1.0,x\n-0,y\n", uint8(0), uint8(0))
	f.Add("\ufeffa\tb\r\n1\t \r\n2\tNA\r\n", uint8(2), uint8(3))
	f.Add("a,b\n1,x\nInf,y\nz,x\n", uint8(1), uint8(1))
	f.Add("\n\na,b,a\n1,x,2\n", uint8(0), uint8(0))
	f.Add("a;b\n1;x\n2;y\n", uint8(0), uint8(0))
	f.Add("a|b;c\n1|x;y\n", uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, in string, policy, maxStates uint8) {
		opt := ReadOptions{Missing: MissingPolicy(policy % 3), MaxDiscreteStates: int(maxStates % 8), KeepConstant: policy&4 != 0}
		sameAllWays(t, t.TempDir(), "f.csv", in, opt)
	})
}
