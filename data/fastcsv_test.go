package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// bothPaths reads in with the fast path of ReadCSV and with the general
// path, and reports whether the fast path took the input and any
// difference between what the two give: the dataset and report, or the
// error. A declined input is read by the general path alone, so only what
// the fast path takes can differ.
func bothPaths(in []byte, opt ReadOptions) (taken bool, diff string) {
	fast, err := newReader(opt)
	if err != nil {
		return false, ""
	}
	fd, frep, ferr, ok := fast.readFast(in)
	if !ok {
		return false, ""
	}
	gen, _ := newReader(opt)
	gd, grep, gerr := gen.readStream(bytes.NewReader(in))
	switch {
	case (ferr == nil) != (gerr == nil):
		return true, fmt.Sprintf("fast error %v, general error %v", ferr, gerr)
	case ferr != nil:
		if ferr.Error() != gerr.Error() || errorKey(ferr) != errorKey(gerr) {
			return true, fmt.Sprintf("errors differ:\nfast:    %v\ngeneral: %v", ferr, gerr)
		}
		return true, ""
	}
	if d := sameDataset(fd, gd); d != "" {
		return true, d
	}
	if !reflect.DeepEqual(frep, grep) {
		return true, fmt.Sprintf("reports differ:\nfast:    %+v\ngeneral: %+v", frep, grep)
	}
	return true, ""
}

// fastCorpus is a corpus of small CSV inputs: numeric ones the fast path
// takes (fast true) and others it must decline or read alike.
var fastCorpus = []struct {
	name string
	in   string
	fast bool // the fast path takes it when missing cells are kept
}{
	{"ints", "a,b\n1,2\n3,4\n1,2\n", true},
	{"floats", "a,b\n1.5,2\n-3.25,4\n1e3,2\n", true},
	{"underscore", "a,b\n1,2\n2,1_0\n", true}, // strconv.ParseFloat takes 1_0
	{"hex and signs", "a,b\n+1,-2\n-0,0\n1E-3,2e+2\n.5,5.\n0x1p-2,3\n", true},
	{"labels alike", "a,b\n1,x\n1.0,y\n01,x\n", false},
	{"same value, other labels", "a\n1\n1.0\n01\n1e0\n+1\n1.00\n10e-1\n0.1e1\n001\n1.000\n0001\n1.0000\n2\n", true},
	{"constant labels", "a,b\n1,1\n1.0,2\n01,3\n1e0,4\n+1,5\n1.00,6\n10e-1,7\n0.1e1,8\n001,9\n1.000,10\n0001,11\n1.0000,12\n", true},
	{"missing", "a,b\n1,NA\n,2\n3,4\nNaN,5\n6,N/A\n", true},
	{"missing everywhere", "a,b\nNA,1\n,2\n", true},
	{"all missing column", "a,b\nNA,1\n,2\nNA,3\n", true},
	{"spaces", "a , b\n 1 ,2\t\n\t3,  4  \n\v1\f,2\n", true},
	{"crlf", "a,b\r\n1,2\r\n3,4\r\n", true},
	{"crlf no final", "a,b\r\n1,2\r\n3,4\r", true},
	{"empty lines", "\n\na,b\n\n1,2\r\n\r\n3,4\n\n", true},
	{"bom", "\ufeffa,b\n1,2\n3,4\n", true},
	{"lone cr", "a,b\n1,2\r3,4\n", false},
	{"cr cr lf", "a,b\n1,2\r\r\n3,4\n", false},
	{"quoted number", "a,b\n\"1\",2\n3,4\n", false},
	{"quoted header", "\"a\",\"b\"\n1,2\n3,4\n", true},
	{"quoted header with break", "\"a\nz\",b\n1,2\n3,4\n", true},
	{"inf", "a,b\n1,Inf\n2,3\n", false},
	{"infinity", "a,b\n1,-infinity\n2,3\n", false},
	{"nan as value", "a,b\n1,NAN\n2,3\n", false},
	{"nan as token", "a,b\n1,nan\n2,3\n", true},
	{"overflow", "a,b\n1,1e400\n2,3\n", false},
	{"underflow", "a,b\n1,1e-400\n2,3\n", true},
	{"text", "a,b\n1,x\n2,3\n", false},
	{"few fields", "a,b\n1\n2,3\n", false},
	{"many fields", "a,b\n1,2,3\n2,3\n", false},
	{"header only", "a,b\n", true},
	{"header only, no break", "a,b", false},
	{"no rows", "a,b\n\n\n", true},
	{"non-ascii", "a,b\n1,2\n3,\u00a04\n", false},
	{"nul", "a,b\n1,2\n3,\x004\n", false},
	{"trailing delimiter", "a,b,\n1,2,\n3,4,\n", false}, // an empty name
	{"trailing delimiter, ignored", "a,b,c\n1,2,\n3,4,\n", true},
	{"one column", "a\n1\n2\n3\n", true},
	{"whitespace line", "a\n1\n \n3\n", true},
	{"constant", "a,b\n1,1\n1,2\n", true},
	{"duplicate header", "a,a\n1,2\n", false},
}

// fastOptions are the options the corpus is read with, besides the
// defaults.
func fastOptions() []ReadOptions {
	return []ReadOptions{
		{},
		{Missing: MissingKeep},
		{Missing: MissingDropRows},
		{Missing: MissingKeep, KeepConstant: true},
		{Missing: MissingKeep, DropConstant: true},
		{MaxDiscreteStates: 1},
		{MaxDiscreteStates: 3, Missing: MissingKeep},
		{Discrete: []string{"a"}, Missing: MissingKeep},
		{Continuous: []string{"a"}, Missing: MissingKeep},
		{Continuous: []string{"b"}, Discrete: []string{"a"}},
		{Columns: []string{"b"}, Missing: MissingKeep},
		{Ignore: []string{"b"}, Missing: MissingKeep},
		{MissingTokens: []string{"-2", "NA"}, Missing: MissingKeep},
		{MissingTokens: []string{}, Missing: MissingKeep},
		{Delimiter: ';'},
		{MaxLineBytes: 6, MaxFieldBytes: 2, Missing: MissingKeep},
	}
}

// The fast path takes the numeric inputs of the corpus and gives the same
// dataset, report or error as the general path on every input and option.
func TestFastPathCorpus(t *testing.T) {
	for _, c := range fastCorpus {
		if taken, diff := bothPaths([]byte(c.in), ReadOptions{Missing: MissingKeep}); taken != c.fast {
			t.Errorf("%s: fast path taken %v, want %v", c.name, taken, c.fast)
		} else if diff != "" {
			t.Errorf("%s: %s", c.name, diff)
		}
		for _, opt := range fastOptions() {
			if _, diff := bothPaths([]byte(c.in), opt); diff != "" {
				t.Errorf("%s with %+v: %s", c.name, opt, diff)
			}
		}
	}
}

// randomNumericCSV returns a numeric CSV text with the given rows: columns
// of few and of many distinct values (around MaxDiscreteStates and the
// switch to floats), integers, decimals and exponents of either sign with
// spaces around some, missing cells, and CRLF or LF line ends.
func randomNumericCSV(rng *rand.Rand, rows int) []byte {
	var b bytes.Buffer
	cols := 1 + rng.IntN(6)
	distinct := make([]int, cols)
	for j := range cols {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "v%d", j)
		distinct[j] = []int{2, 5, 10, 11, 12, 1000, 1100, 1 << 20}[rng.IntN(8)]
	}
	eol := []string{"\n", "\r\n"}[rng.IntN(2)]
	b.WriteString(eol)
	for range rows {
		for j := range cols {
			if j > 0 {
				b.WriteByte(',')
			}
			if rng.IntN(20) == 0 {
				b.WriteString([]string{"", "NA", " ", "NaN"}[rng.IntN(4)])
				continue
			}
			if rng.IntN(10) == 0 {
				b.WriteString([]string{" ", "\t"}[rng.IntN(2)])
			}
			k := rng.IntN(distinct[j])
			switch rng.IntN(4) {
			case 0:
				b.WriteString(strconv.Itoa(k - distinct[j]/2))
			case 1:
				b.WriteString(strconv.FormatFloat(float64(k)/8, 'f', -1, 64))
			case 2:
				b.WriteString(strconv.FormatFloat(float64(k)*1e-7, 'e', -1, 64))
			default:
				b.WriteString(strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64))
			}
			if rng.IntN(10) == 0 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(eol)
	}
	return b.Bytes()
}

// On random numeric files, around the thresholds of type inference, the
// fast path is taken and gives what the general path gives.
func TestFastPathRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 4))
	for i := range 60 {
		in := randomNumericCSV(rng, []int{3, 20, 1500}[i%3])
		for _, opt := range []ReadOptions{{Missing: MissingKeep}, {Missing: MissingDropRows}, {Missing: MissingKeep, MaxDiscreteStates: 1100}, {Missing: MissingKeep, Continuous: []string{"v0"}}} {
			taken, diff := bothPaths(in, opt)
			if !taken {
				t.Fatalf("file %d with %+v: fast path not taken", i, opt)
			}
			if diff != "" {
				t.Fatalf("file %d with %+v: %s", i, opt, diff)
			}
		}
	}
}

// The fast path's reading of the rest of the input in parts once every
// column stores floats (readFloats), forced from the first row on, in up
// to three parts, gives what the general path gives, on the corpus and
// on random files, and declines what the fast path declines.
func TestFastPathFloatParts(t *testing.T) {
	defer func(m, c, p int) { bulkMin, bulkChunk, bulkParts = m, c, p }(bulkMin, bulkChunk, bulkParts)
	bulkMin, bulkChunk = 0, 1
	for _, parts := range []int{1, 3} {
		bulkParts = parts
		for _, c := range fastCorpus {
			if taken, diff := bothPaths([]byte(c.in), ReadOptions{Missing: MissingKeep}); taken != c.fast {
				t.Errorf("%s in %d parts: fast path taken %v, want %v", c.name, parts, taken, c.fast)
			} else if diff != "" {
				t.Errorf("%s in %d parts: %s", c.name, parts, diff)
			}
			// Columns forced continuous store floats from the first row.
			forced := []ReadOptions{{Continuous: []string{"a", "b"}}, {Continuous: []string{"a", "b"}, Missing: MissingKeep},
				{Continuous: []string{"a", "b"}, Missing: MissingDropRows}, {Continuous: []string{"a", "b"}, MaxLineBytes: 6, MaxFieldBytes: 2, Missing: MissingKeep}}
			for _, opt := range append(fastOptions(), forced...) {
				if _, diff := bothPaths([]byte(c.in), opt); diff != "" {
					t.Errorf("%s in %d parts with %+v: %s", c.name, parts, opt, diff)
				}
			}
		}
		// Inputs whose columns store floats after two rows, then lines the
		// fast path declines or must read alike.
		for _, tail := range []string{"1,2,3\n", "1\n", "1,\"2\"\n", "1,2\r3,4\n", "1,inf\n", "1,x\n", "1,2\n3,4",
			"1,NA\n5,6\n", "\n\n1,2\n\r\n3,NA\n", "12345678,1\n", "1,2\x00\n", "1,\u00e9\n", " 1 , 2 \n"} {
			in := "a,b\n1.5,2.5\n-3,7\n" + tail
			for _, opt := range []ReadOptions{{MaxDiscreteStates: 1}, {MaxDiscreteStates: 1, Missing: MissingKeep}, {MaxDiscreteStates: 1, Missing: MissingDropRows},
				{MaxDiscreteStates: 1, MaxLineBytes: 8, Missing: MissingKeep}, {MaxDiscreteStates: 1, Columns: []string{"b", "a"}},
				{MaxDiscreteStates: 1, Ignore: []string{"a"}}, {MaxDiscreteStates: 1, MissingTokens: []string{"-3", "7"}, Missing: MissingKeep}} {
				if _, diff := bothPaths([]byte(in), opt); diff != "" {
					t.Errorf("%q in %d parts with %+v: %s", in, parts, opt, diff)
				}
			}
		}
		rng := rand.New(rand.NewPCG(25, uint64(parts)))
		for i := range 30 {
			in := randomNumericCSV(rng, []int{3, 20, 1500}[i%3])
			if i%4 == 0 {
				// Empty lines between rows.
				in = bytes.ReplaceAll(in, []byte("\n1"), []byte("\n\n1"))
			}
			for _, opt := range []ReadOptions{{Missing: MissingKeep}, {Missing: MissingDropRows}, {Missing: MissingKeep, Continuous: []string{"v0"}}, {}} {
				taken, diff := bothPaths(in, opt)
				if !taken && opt.Missing != MissingError {
					t.Fatalf("file %d in %d parts with %+v: fast path not taken", i, parts, opt)
				}
				if diff != "" {
					t.Fatalf("file %d in %d parts with %+v: %s", i, parts, opt, diff)
				}
			}
		}
	}
}

// ReadCSV falls back to the general path on what the fast path declines,
// and streams an input larger than fastLimit: both give the dataset of the
// general path.
func TestReadCSVFallsBack(t *testing.T) {
	in := "a,b\n1,x\n2,y\n3,x\n"
	d, _, err := ReadCSV(strings.NewReader(in), ReadOptions{})
	if err != nil || d.Var(1).Kind != Discrete || !reflect.DeepEqual(d.Var(1).States, []string{"x", "y"}) {
		t.Fatalf("labels: %v, %+v", err, d)
	}
	var b strings.Builder
	b.WriteString("a,b\n")
	for i := 0; b.Len() <= fastLimit; i++ {
		fmt.Fprintf(&b, "%d.25,%d\n", i, i%3)
	}
	big := b.String()
	d, _, err = ReadCSV(strings.NewReader(big), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gen, _ := newReader(ReadOptions{})
	want, _, err := gen.readStream(strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	if diff := sameDataset(d, want); diff != "" {
		t.Error(diff)
	}
}

// FuzzFastPath checks that on any input the fast path, when it takes the
// input, gives the dataset, report or error of the general path.
func FuzzFastPath(f *testing.F) {
	for _, c := range fastCorpus {
		f.Add(c.in, uint8(0), uint8(0))
	}
	f.Add("a,b\n1,2\n1.0,3\n01,4\n", uint8(1), uint8(1))
	f.Add("a;b\n1;2\n3;NA\n", uint8(2), uint8(3))
	f.Add("a,b\n1.5,2\n-3,7\n4,NA\n\n5e-1,6\n", uint8(33), uint8(1))
	f.Fuzz(func(t *testing.T, in string, policy, maxStates uint8) {
		opt := ReadOptions{Missing: MissingPolicy(policy % 3), MaxDiscreteStates: int(maxStates % 8), KeepConstant: policy&4 != 0}
		if policy&8 != 0 {
			opt.Continuous = []string{"a"}
		}
		if policy&16 != 0 {
			opt.Discrete = []string{"b"}
		}
		if policy&32 != 0 {
			// readFloats from the first row on, in up to three parts.
			defer func(m, c, p int) { bulkMin, bulkChunk, bulkParts = m, c, p }(bulkMin, bulkChunk, bulkParts)
			bulkMin, bulkChunk, bulkParts = 0, 1, 3
		}
		if _, diff := bothPaths([]byte(in), opt); diff != "" {
			t.Error(diff)
		}
	})
}

// BenchmarkReadCSVGaussian reads 80 continuous variables × 1,000 rows of
// 17-digit decimals (about 1.5 MB), the input of a small learn command,
// with the fast path of ReadCSV and with the general path.
func BenchmarkReadCSVGaussian(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	for j := range 80 {
		if j > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, "x%d", j+1)
	}
	buf.WriteByte('\n')
	for range 1000 {
		for j := range 80 {
			if j > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64))
		}
		buf.WriteByte('\n')
	}
	in := buf.Bytes()
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := ReadCSV(bytes.NewReader(in), ReadOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("general", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			rd, _ := newReader(ReadOptions{})
			if _, _, err := rd.readStream(bytes.NewReader(in)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// readWhole reads all of its input whatever the size it is told, and
// returns a read error with what came before it.
func TestReadWhole(t *testing.T) {
	in := []byte("a,b\n1,2\n3,4\n")
	for _, size := range []int{0, 1, len(in) - 1, len(in), len(in) + 1, 1000} {
		got, err := readWhole(bytes.NewReader(in), size)
		if err != nil || !bytes.Equal(got, in) {
			t.Errorf("size %d: %q, %v", size, got, err)
		}
	}
	bad := errors.New("disk")
	for _, size := range []int{0, 3, 100} {
		got, err := readWhole(io.MultiReader(bytes.NewReader(in[:5]), errReader{bad}), size)
		if !errors.Is(err, bad) || !bytes.Equal(got, in[:5]) {
			t.Errorf("size %d with an error: %q, %v", size, got, err)
		}
	}
	// ReadCSVFile sizes its buffer by the file's.
	path := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(path, in, 0o666); err != nil {
		t.Fatal(err)
	}
	d, _, err := ReadCSVFile(path, ReadOptions{})
	if err != nil || d.NumRows() != 2 {
		t.Fatalf("ReadCSVFile: %v", err)
	}
}
