package distance

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// mustMatrix builds a matrix from names and row-major entries.
func mustMatrix(t *testing.T, names []string, d ...float64) *Matrix {
	t.Helper()
	m, err := NewMatrix(names)
	if err != nil {
		t.Fatalf("NewMatrix(%q): %v", names, err)
	}
	if len(d) != len(m.D) {
		t.Fatalf("mustMatrix: %d entries for %d names", len(d), len(names))
	}
	copy(m.D, d)
	return m
}

// sameMatrix reports whether a and b have the same names and bit-identical
// entries.
func sameMatrix(a, b *Matrix) bool {
	if !slices.Equal(a.Names, b.Names) || len(a.D) != len(b.D) {
		return false
	}
	for i := range a.D {
		if math.Float64bits(a.D[i]) != math.Float64bits(b.D[i]) {
			return false
		}
	}
	return true
}

// wantErr fails unless err is non-nil and its message contains every part.
func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one mentioning %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not mention %q", err, p)
		}
	}
}

func TestNewMatrix(t *testing.T) {
	names := []string{"a", "b", "c"}
	m, err := NewMatrix(names)
	if err != nil {
		t.Fatal(err)
	}
	if m.Size() != 3 || len(m.D) != 9 {
		t.Fatalf("Size %d, len(D) %d; want 3, 9", m.Size(), len(m.D))
	}
	for i, x := range m.D {
		if x != 0 {
			t.Errorf("D[%d] = %g, want 0", i, x)
		}
	}
	names[0] = "z"
	if m.Names[0] != "a" {
		t.Errorf("NewMatrix shares the names slice with its caller")
	}
	if err := m.Validate(ValidateOptions{}); err != nil {
		t.Errorf("zero matrix does not validate: %v", err)
	}
}

func TestNewMatrixErrors(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  []string
	}{
		{nil, []string{"no variables"}},
		{[]string{}, []string{"no variables"}},
		{[]string{"a", ""}, []string{"name 2", "is empty"}},
		{[]string{" a"}, []string{`" a"`, "starts with white space"}},
		{[]string{"a", "b\t"}, []string{`"b\t"`, "ends with white space"}},
		{[]string{"a", "b", "a"}, []string{`duplicate variable name "a"`, "positions 1 and 3"}},
	} {
		_, err := NewMatrix(tc.names)
		wantErr(t, err, tc.want...)
	}
}

func TestAtSetIndex(t *testing.T) {
	m := mustMatrix(t, []string{"x", "y", "z"}, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	m.Set(0, 2, 1.5)
	m.Set(2, 1, 0.25)
	m.Set(1, 1, 0) // the diagonal is set once
	want := []float64{
		0, 0, 1.5,
		0, 0, 0.25,
		1.5, 0.25, 0,
	}
	if !slices.Equal(m.D, want) {
		t.Fatalf("D = %v, want %v", m.D, want)
	}
	if got := m.At(2, 0); got != 1.5 {
		t.Errorf("At(2,0) = %g, want 1.5", got)
	}
	if got := m.At(1, 2); got != 0.25 {
		t.Errorf("At(1,2) = %g, want 0.25", got)
	}
	for name, want := range map[string]int{"x": 0, "y": 1, "z": 2} {
		if i, ok := m.Index(name); !ok || i != want {
			t.Errorf("Index(%q) = %d, %v; want %d, true", name, i, ok, want)
		}
	}
	if i, ok := m.Index("w"); ok || i != -1 {
		t.Errorf("Index(\"w\") = %d, %v; want -1, false", i, ok)
	}
}

func TestAtOutOfRangePanics(t *testing.T) {
	m := mustMatrix(t, []string{"a", "b"}, 0, 1, 1, 0)
	for _, ij := range [][2]int{{0, 2}, {2, 0}, {-1, 0}, {0, -1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("At(%d,%d) did not panic", ij[0], ij[1])
				}
			}()
			m.At(ij[0], ij[1])
		}()
	}
}

func TestSub(t *testing.T) {
	m := mustMatrix(t, []string{"a", "b", "c", "d"},
		0, 1, 2, 3,
		1, 0, 4, 5,
		2, 4, 0, 6,
		3, 5, 6, 0)
	s := m.Sub([]int{3, 1})
	want := mustMatrix(t, []string{"d", "b"}, 0, 5, 5, 0)
	if !sameMatrix(s, want) {
		t.Fatalf("Sub = %+v, want %+v", s, want)
	}
	s.Set(0, 1, 9)
	if m.At(3, 1) != 5 {
		t.Errorf("Sub shares entries with the original")
	}
	if e := m.Sub(nil); e.Size() != 0 || len(e.D) != 0 {
		t.Errorf("Sub(nil) = %+v, want an empty matrix", e)
	}
}

func TestClone(t *testing.T) {
	m := mustMatrix(t, []string{"a", "b"}, 0, 1, 1, 0)
	c := m.Clone()
	if !sameMatrix(m, c) {
		t.Fatalf("Clone = %+v, want %+v", c, m)
	}
	c.Names[0] = "z"
	c.D[1] = 7
	if m.Names[0] != "a" || m.D[1] != 1 {
		t.Errorf("Clone shares storage with the original")
	}
}

func TestValidate(t *testing.T) {
	inf := math.Inf(1)
	ab := []string{"a", "b"}
	abc := []string{"a", "b", "c"}
	for _, tc := range []struct {
		name string
		m    *Matrix
		opt  ValidateOptions
		want []string // nil: valid
	}{
		{"valid", mustMatrix(t, abc, 0, 1, 2, 1, 0, 3, 2, 3, 0), ValidateOptions{}, nil},
		{"single", mustMatrix(t, []string{"a"}, 0), ValidateOptions{}, nil},
		{"within default tol", mustMatrix(t, ab, 1e-10, 1, 1+1e-10, -1e-10), ValidateOptions{}, nil},
		{"relative tol", mustMatrix(t, ab, 0, 1e6, 1e6+1e-4, 0), ValidateOptions{}, nil},
		{"asymmetric", mustMatrix(t, abc, 0, 1, 2, 1, 0, 3, 2, 3.5, 0), ValidateOptions{},
			[]string{"asymmetric", "d(c,b) = 3.5", "d(b,c) = 3", "tolerance 1e-09"}},
		{"asymmetric beyond relative tol", mustMatrix(t, ab, 0, 1e6, 1e6+1e-2, 0), ValidateOptions{},
			[]string{"d(b,a) = 1.00000001e+06", "d(a,b) = 1e+06"}},
		{"custom tol accepts", mustMatrix(t, ab, 0, 1, 1.05, 0), ValidateOptions{Tol: 0.1}, nil},
		{"custom tol rejects", mustMatrix(t, ab, 0, 1, 1.2, 0), ValidateOptions{Tol: 0.1},
			[]string{"d(b,a) = 1.2", "d(a,b) = 1", "tolerance 0.1"}},
		{"diagonal", mustMatrix(t, ab, 0, 1, 1, 0.5), ValidateOptions{},
			[]string{"diagonal", "d(b,b) = 0.5", "not zero"}},
		{"diagonal inf", mustMatrix(t, ab, inf, 1, 1, 0), ValidateOptions{AllowInf: true},
			[]string{"d(a,a) = inf", "not zero"}},
		{"negative", mustMatrix(t, ab, 0, -1, -1, 0), ValidateOptions{},
			[]string{"d(a,b) = -1", "negative"}},
		{"nan", mustMatrix(t, ab, 0, 1, math.NaN(), 0), ValidateOptions{},
			[]string{"d(b,a) is NaN"}},
		{"inf rejected", mustMatrix(t, ab, 0, inf, inf, 0), ValidateOptions{},
			[]string{"d(a,b) is infinite", "AllowInf"}},
		{"inf allowed", mustMatrix(t, ab, 0, inf, inf, 0), ValidateOptions{AllowInf: true}, nil},
		{"inf one side", mustMatrix(t, ab, 0, inf, 1, 0), ValidateOptions{AllowInf: true},
			[]string{"d(b,a) = 1", "d(a,b) = inf"}},
		{"minus inf", mustMatrix(t, ab, 0, math.Inf(-1), math.Inf(-1), 0), ValidateOptions{AllowInf: true},
			[]string{"d(a,b) = -inf", "negative"}},
		{"short D", &Matrix{Names: ab, D: []float64{0, 1, 1}}, ValidateOptions{},
			[]string{"3 entries", "want 2×2 = 4"}},
		{"no names", &Matrix{}, ValidateOptions{}, []string{"no variables"}},
		{"duplicate names", &Matrix{Names: []string{"a", "a"}, D: make([]float64, 4)}, ValidateOptions{},
			[]string{`duplicate variable name "a"`}},
		{"negative tol", mustMatrix(t, ab, 0, 1, 1, 0), ValidateOptions{Tol: -1}, []string{"invalid tolerance -1"}},
		{"nan tol", mustMatrix(t, ab, 0, 1, 1, 0), ValidateOptions{Tol: math.NaN()}, []string{"invalid tolerance NaN"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.m.Validate(tc.opt)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			wantErr(t, err, tc.want...)
			if !strings.HasPrefix(err.Error(), "distance: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}
