package data

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestWriteCSVExact(t *testing.T) {
	d, err := New([]Variable{
		{Name: "a,b", Kind: Discrete, States: []string{"x", `say "hi"`, "two\nlines", " pad"}},
		{Name: "v", Kind: Continuous},
	}, 5)
	if err != nil {
		t.Fatal(err)
	}
	copy(d.Discrete(0), []uint16{0, 1, 2, Missing, 3})
	copy(d.Continuous(1), []float64{0.1, math.NaN(), 0, 1e-320, 12345678.9})
	d.Continuous(1)[2] = math.Copysign(0, -1)
	var b strings.Builder
	if err := WriteCSV(&b, d); err != nil {
		t.Fatal(err)
	}
	want := "\"a,b\",v\n" +
		"x,0.1\n" +
		"\"say \"\"hi\"\"\",\n" +
		"\"two\nlines\",-0\n" +
		",1e-320\n" +
		"\" pad\",1.23456789e+07\n"
	if b.String() != want {
		t.Errorf("WriteCSV =\n%q\nwant\n%q", b.String(), want)
	}

	// A single column with missing cells quotes the empty field.
	s := mustDiscrete(t, []Variable{{Name: "s", Kind: Discrete, States: []string{"p"}}}, [][]uint16{{0, Missing, 0}})
	b.Reset()
	if err := WriteCSV(&b, s); err != nil {
		t.Fatal(err)
	}
	if b.String() != "s\np\n\"\"\np\n" {
		t.Errorf("single column: %q", b.String())
	}
}

func TestWriteCSVErrors(t *testing.T) {
	if err := WriteCSV(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil dataset accepted")
	}
	d := mustDiscrete(t, []Variable{{Name: "s", Kind: Discrete, States: []string{"a", " "}}}, [][]uint16{{0}})
	if err := WriteCSV(&bytes.Buffer{}, d); err == nil || !strings.Contains(err.Error(), `"s" has an empty state label`) {
		t.Errorf("error %v", err)
	}
	d = mustDiscrete(t, []Variable{{Name: "s", Kind: Discrete, States: []string{"a"}}}, [][]uint16{{0}})
	d.Discrete(0)[0] = 3
	if err := WriteCSV(&bytes.Buffer{}, d); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("error %v", err)
	}
	c, _ := FromContinuous([]string{"u"}, [][]float64{{1}})
	c.Continuous(0)[0] = math.Inf(1)
	if err := WriteCSV(&bytes.Buffer{}, c); err == nil || !strings.Contains(err.Error(), "infinite") {
		t.Errorf("error %v", err)
	}
	if err := WriteCSV(failWriter{}, mustDiscrete(t, []Variable{{Name: "s", Kind: Discrete, States: []string{"a"}}}, [][]uint16{{0}})); err == nil {
		t.Error("write error not reported")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// forcedOptions returns options that force every variable of d to its kind
// and keep missing cells.
func forcedOptions(d *Dataset) ReadOptions {
	opt := ReadOptions{Missing: MissingKeep, Name: "roundtrip.csv"}
	for _, v := range d.Vars() {
		if v.Kind == Discrete {
			opt.Discrete = append(opt.Discrete, v.Name)
		} else {
			opt.Continuous = append(opt.Continuous, v.Name)
		}
	}
	return opt
}

func roundTrip(t testing.TB, d *Dataset) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCSV(&b, d); err != nil {
		t.Fatalf("WriteCSV: %v", err)
	}
	back, _, err := ReadCSV(bytes.NewReader(b.Bytes()), forcedOptions(d))
	if err != nil {
		t.Fatalf("reading back %q: %v", b.String(), err)
	}
	if diff := sameDataset(d, back); diff != "" {
		t.Fatalf("round trip changed the dataset: %s\nCSV: %q", diff, b.String())
	}
}

func TestRoundTrip(t *testing.T) {
	d, err := New([]Variable{
		{Name: "id, with comma", Kind: Discrete, States: []string{"-2", "3", "10"}},
		{Name: `q"uote`, Kind: Discrete, States: []string{"a\nb", "c,d", `e"f`, "zz"}},
		{Name: "x", Kind: Continuous},
		{Name: "y", Kind: Continuous},
	}, 6)
	if err != nil {
		t.Fatal(err)
	}
	copy(d.Discrete(0), []uint16{0, 1, 2, Missing, 2, 0})
	copy(d.Discrete(1), []uint16{3, 2, 1, 0, Missing, 0})
	copy(d.Continuous(2), []float64{math.Pi, -1e300, 5e-324, math.NaN(), 0.1 + 0.2, math.Copysign(0, -1)})
	copy(d.Continuous(3), []float64{1, 1, 1, 1, 1, 2})
	roundTrip(t, d)

	s := mustDiscrete(t, []Variable{{Name: "only", Kind: Discrete, States: []string{"0", "1"}}}, [][]uint16{{Missing, 1, 0, Missing}})
	roundTrip(t, s)

	// A lone name holding ';' or '|' must not make the header read back
	// as delimited by it (found by FuzzReadCSV).
	for _, name := range []string{"|", "a;b", "x|y"} {
		roundTrip(t, mustDiscrete(t, []Variable{{Name: name, Kind: Discrete, States: []string{"0", "1"}}}, [][]uint16{{0, 1}}))
	}
}
