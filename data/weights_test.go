package data

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestReadWeights(t *testing.T) {
	in := "a,b,n\nx,1,3\ny,0,1\nx,0,0\ny,1,2\n"
	d, _, err := ReadCSV(strings.NewReader(in), ReadOptions{Name: "t.csv", Weights: "n"})
	if err != nil {
		t.Fatal(err)
	}
	if d.NumVars() != 2 || d.Names()[0] != "a" || d.Names()[1] != "b" || !d.Weighted() || d.WeightKind() != Frequency {
		t.Fatalf("columns %v, weighted %v %v", d.Names(), d.Weighted(), d.WeightKind())
	}
	w := d.Weights()
	if len(w) != 4 || w[0] != 3 || w[1] != 1 || w[2] != 0 || w[3] != 2 || d.SampleSize() != 6 {
		t.Fatalf("weights %v, n %g", w, d.SampleSize())
	}
	if s := d.WeightedSum([]float64{1, 2, math.Inf(-1), 4}); s != 3+2+8 {
		t.Errorf("weighted sum %g, want 13 (a row of weight 0 adds nothing, even −∞)", s)
	}
	// Selecting columns keeps the weights; selecting rows keeps theirs.
	s, err := d.SelectNames([]string{"b"})
	if err != nil || s.Weights()[3] != 2 {
		t.Fatalf("select: %v %v", s, err)
	}
	r, err := d.Rows([]int{3, 0})
	if err != nil || r.Weights()[0] != 2 || r.Weights()[1] != 3 {
		t.Fatalf("rows: %v %v", r.Weights(), err)
	}
	// --columns without the weight column still reads it; a constant
	// weight column is kept.
	d, _, err = ReadCSV(strings.NewReader("a,b,n\nx,1,2\ny,0,2\n"), ReadOptions{Weights: "n", Columns: []string{"b", "a"}})
	if err != nil || d.NumVars() != 2 || d.Names()[0] != "b" || d.SampleSize() != 4 {
		t.Fatalf("columns: %v, n %v, %v", d, d.SampleSize(), err)
	}
	// Sampling weights are scaled to sum to the number of rows.
	d, _, err = ReadCSV(strings.NewReader("a,w\nx,0.5\ny,1.5\nx,2\n"), ReadOptions{Weights: "w", WeightKind: Sampling})
	if err != nil {
		t.Fatal(err)
	}
	if rw := d.RowWeights(); d.SampleSize() != 3 || math.Abs(rw[0]-0.375) > 1e-15 || math.Abs(rw[2]-1.5) > 1e-15 {
		t.Errorf("sampling weights %v, n %g", rw, d.SampleSize())
	}
}

func TestReadWeightsErrors(t *testing.T) {
	for _, c := range []struct {
		in, kind, want string
	}{
		{"a,n\nx,1\ny,-2\n", "frequency", `t.csv: data: row 2, weight column "n": weight -2 is negative`},
		{"a,n\nx,1\ny,1.5\n", "frequency", `t.csv: data: row 2, weight column "n": frequency weight 1.5 is not a whole number of copies (sampling weights may be fractions)`},
		{"a,n\nx,0\ny,0\n", "sampling", `t.csv: data: weight column "n": every weight is 0`},
		{"a,n\nx,1\ny,many\n", "frequency", `t.csv: data: row 2, weight column "n": "many" is not a number`},
		{"a,n\nx,1\ny,\n", "frequency", `t.csv: data: row 2, weight column "n": missing weight`},
		{"a,n\nx,1\ny,inf\nz,3\nw,4\nv,5\nu,6\nt,7\ns,8\nr,9\nq,10\np,11\n", "sampling", `t.csv:3: column "n": infinite value "inf" in a numeric column`},
		{"a,m\nx,1\ny,2\n", "frequency", `t.csv: data: no weight column "n"`},
		{"n\n1\n2\n", "frequency", `t.csv: data: the weight column "n" is the only column`},
	} {
		k, err := ParseWeightKind(c.kind)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = ReadCSV(strings.NewReader(c.in), ReadOptions{Name: "t.csv", Weights: "n", WeightKind: k, Missing: MissingKeep})
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v\nwant %s", c.in, err, c.want)
		}
	}
	if _, _, err := ReadCSV(strings.NewReader("a,n\nx,1\n"), ReadOptions{Name: "t.csv", Weights: "n", Ignore: []string{"n"}}); err == nil || !strings.Contains(err.Error(), "the weight column is also ignored") {
		t.Errorf("ignored weight column: %v", err)
	}
	if _, err := ParseWeightKind("survey-ish"); err == nil {
		t.Error("unknown weight kind accepted")
	}
	d, err := New([]Variable{{Name: "a", Kind: Continuous}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.SetWeights([]float64{1}, Frequency); err == nil || err.Error() != "data: 1 weights for 2 rows" {
		t.Errorf("short weights: %v", err)
	}
	if err := d.SetWeights([]float64{1, math.NaN()}, Sampling); err == nil || err.Error() != "data: row 2: missing weight" {
		t.Errorf("NaN weight: %v", err)
	}
}

func TestSortedValues(t *testing.T) {
	col := []float64{3, math.NaN(), 1, 2, 1}
	v, c := SortedValues(col, nil)
	if fmt.Sprint(v, c) != "[1 1 2 3] [1 2 3 4]" {
		t.Errorf("unweighted: %v %v", v, c)
	}
	v, c = SortedValues(col, []float64{2, 5, 0, 1, 3})
	if fmt.Sprint(v, c) != "[1 2 3] [3 4 6]" {
		t.Errorf("weighted: %v %v (a row of weight 0 and a missing value left out)", v, c)
	}
}
