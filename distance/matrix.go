package distance

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// DefaultTol is the tolerance used when ValidateOptions.Tol or
// ReadOptions.Tol is zero.
const DefaultTol = 1e-9

// Matrix is an m×m matrix of distances between m named variables.
//
// D holds the entries in row-major order: the distance from variable i to
// variable j is D[i*m+j], where m = len(Names). The fields are exported so
// that algorithms can read the entries directly; code that builds a Matrix
// by hand should call Validate before using it.
//
// Methods taking indices panic when given one out of range, as slice
// indexing does: that is a programming error, not bad input.
type Matrix struct {
	// Names are the names of the variables, in row (and column) order.
	// They are non-empty, unique and have no leading or trailing white
	// space.
	Names []string
	// D holds the m×m entries in row-major order.
	D []float64
}

// ValidateOptions controls Matrix.Validate. The zero value asks for a
// finite matrix that is symmetric and has a zero diagonal up to DefaultTol.
type ValidateOptions struct {
	// Tol is the tolerance for symmetry and for the zero diagonal, relative
	// to max(1, |x|): entries a = D(i,j) and b = D(j,i) are accepted when
	// |a-b| ≤ Tol·max(1, |a|, |b|), and a diagonal entry x when
	// |x| ≤ Tol·max(1, |x|). Zero means DefaultTol; negative, NaN and
	// infinite values are rejected. To demand exact symmetry use a tiny
	// positive value such as math.SmallestNonzeroFloat64.
	Tol float64
	// AllowInf accepts +Inf off the diagonal, the distance between
	// independent variables. The diagonal must be zero regardless.
	AllowInf bool
}

// NewMatrix returns the m×m zero matrix over the given variable names. The
// names must be non-empty, unique and free of leading and trailing white
// space, and there must be at least one. The names are copied.
func NewMatrix(names []string) (*Matrix, error) {
	if err := checkNames(names); err != nil {
		return nil, err
	}
	m := len(names)
	return &Matrix{
		Names: append([]string(nil), names...),
		D:     make([]float64, m*m),
	}, nil
}

// Size returns the number of variables m.
func (m *Matrix) Size() int { return len(m.Names) }

// At returns the distance from variable i to variable j.
func (m *Matrix) At(i, j int) float64 {
	n := m.checkIndex(i, j)
	return m.D[i*n+j]
}

// Set sets the distance between variables i and j to v, in both the (i,j)
// and the (j,i) entries.
func (m *Matrix) Set(i, j int, v float64) {
	n := m.checkIndex(i, j)
	m.D[i*n+j] = v
	m.D[j*n+i] = v
}

func (m *Matrix) checkIndex(i, j int) int {
	n := len(m.Names)
	if uint(i) >= uint(n) || uint(j) >= uint(n) {
		panic(fmt.Sprintf("distance: index (%d,%d) out of range for a %d×%d matrix", i, j, n, n))
	}
	return n
}

// Index returns the index of the variable with the given name and whether
// there is one. It takes time linear in the number of variables.
func (m *Matrix) Index(name string) (int, bool) {
	for i, n := range m.Names {
		if n == name {
			return i, true
		}
	}
	return -1, false
}

// Sub returns the principal submatrix over the variables idx, in that order:
// entry (a,b) of the result is entry (idx[a], idx[b]) of m. The result shares
// nothing with m. The indices must be in range and should be distinct (a
// repeated index repeats a name, which Validate rejects).
func (m *Matrix) Sub(idx []int) *Matrix {
	n := len(m.Names)
	for _, i := range idx {
		if uint(i) >= uint(n) {
			panic(fmt.Sprintf("distance: Sub index %d out of range for %d variables", i, n))
		}
	}
	k := len(idx)
	s := &Matrix{Names: make([]string, k), D: make([]float64, k*k)}
	for a, i := range idx {
		s.Names[a] = m.Names[i]
		for b, j := range idx {
			s.D[a*k+b] = m.D[i*n+j]
		}
	}
	return s
}

// Clone returns a deep copy of m.
func (m *Matrix) Clone() *Matrix {
	return &Matrix{
		Names: append([]string(nil), m.Names...),
		D:     append([]float64(nil), m.D...),
	}
}

// Validate checks that m is a well-formed distance matrix: at least one
// variable, valid unique names, m×m entries, no NaN, no negative entry, a
// zero diagonal and symmetry within opt.Tol, and no infinite entry unless
// opt.AllowInf (and then only +Inf, off the diagonal). The error for a bad
// entry names both variables and shows the values.
func (m *Matrix) Validate(opt ValidateOptions) error {
	tol, err := tolerance(opt.Tol)
	if err != nil {
		return err
	}
	if err := checkNames(m.Names); err != nil {
		return err
	}
	n := len(m.Names)
	if len(m.D) != n*n {
		return fmt.Errorf("distance: matrix has %d entries, want %d×%d = %d", len(m.D), n, n, n*n)
	}
	return checkEntries(m, tol, opt.AllowInf, nil, false)
}

// tolerance returns the effective tolerance for a user-supplied one.
func tolerance(t float64) (float64, error) {
	switch {
	case t == 0:
		return DefaultTol, nil
	case t > 0 && !math.IsInf(t, 1):
		return t, nil
	}
	return 0, fmt.Errorf("distance: invalid tolerance %g (want a finite value ≥ 0)", t)
}

// checkName reports what is wrong with a variable name, or "" if nothing.
func checkName(name string) string {
	if name == "" {
		return "is empty"
	}
	if r, _ := utf8.DecodeRuneInString(name); unicode.IsSpace(r) {
		return "starts with white space"
	}
	if r, _ := utf8.DecodeLastRuneInString(name); unicode.IsSpace(r) {
		return "ends with white space"
	}
	return ""
}

func checkNames(names []string) error {
	if len(names) == 0 {
		return errors.New("distance: no variables (need at least one name)")
	}
	seen := make(map[string]int, len(names))
	for i, name := range names {
		if msg := checkName(name); msg != "" {
			return fmt.Errorf("distance: name %d (%q) %s", i+1, name, msg)
		}
		if j, dup := seen[name]; dup {
			return fmt.Errorf("distance: duplicate variable name %q (positions %d and %d)", name, j+1, i+1)
		}
		seen[name] = i
	}
	return nil
}

// checkEntries checks the entries of a matrix whose names and shape are
// known to be valid. tol must be an effective tolerance.
//
// When lines is nil the errors carry the plain "distance: " prefix (the
// Validate case). Otherwise lines[i] is the input line of row i and loc
// formats a location; the error then points at the line holding the bad
// entry. When lower is true only entries (i,j) with j ≤ i came from the
// input (the rest mirror them), so only those are checked and symmetry is
// not.
func checkEntries(m *Matrix, tol float64, allowInf bool, lines []lineRef, lower bool) error {
	n := len(m.Names)
	errAt := func(i int, format string, args ...any) error {
		if lines == nil {
			return fmt.Errorf("distance: "+format, args...)
		}
		return lines[i].errorf(format, args...)
	}
	for i := 0; i < n; i++ {
		last := n - 1
		if lower {
			last = i
		}
		for j := 0; j <= last; j++ {
			x := m.D[i*n+j]
			ni, nj := m.Names[i], m.Names[j]
			switch {
			case math.IsNaN(x):
				return errAt(i, "d(%s,%s) is NaN", ni, nj)
			case i == j:
				if math.IsInf(x, 0) || !(math.Abs(x) <= tol*math.Max(1, math.Abs(x))) {
					return errAt(i, "diagonal entry d(%s,%s) = %s is not zero (tolerance %g)", ni, nj, formatFloat(x), tol)
				}
				continue
			case x < 0:
				return errAt(i, "d(%s,%s) = %s is negative", ni, nj, formatFloat(x))
			case math.IsInf(x, 1) && !allowInf:
				return errAt(i, "d(%s,%s) is infinite (+Inf is accepted only with AllowInf)", ni, nj)
			}
			if lower || j > i {
				continue
			}
			y := m.D[j*n+i] // already checked: row j comes before row i
			if !symmetric(x, y, tol) {
				if lines == nil {
					return errAt(i, "asymmetric distances: d(%s,%s) = %s but d(%s,%s) = %s (tolerance %g)",
						ni, nj, formatFloat(x), nj, ni, formatFloat(y), tol)
				}
				return errAt(i, "asymmetric distances: d(%s,%s) = %s here but d(%s,%s) = %s on line %d (tolerance %g)",
					ni, nj, formatFloat(x), nj, ni, formatFloat(y), lines[j].line, tol)
			}
		}
	}
	return nil
}

// symmetric reports whether two non-negative, non-NaN entries agree within
// the relative tolerance tol.
func symmetric(a, b, tol float64) bool {
	if math.IsInf(a, 1) || math.IsInf(b, 1) {
		return a == b
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(a, b))
}

// normalize makes a validated matrix exactly symmetric with a zero
// diagonal: the diagonal is set to 0, each pair of off-diagonal entries to
// their mean, and -0 to 0.
func normalize(m *Matrix) {
	n := len(m.Names)
	for i := 0; i < n; i++ {
		m.D[i*n+i] = 0
		for j := i + 1; j < n; j++ {
			a, b := m.D[i*n+j], m.D[j*n+i]
			v := a
			if a != b && !math.IsInf(a, 1) {
				v = a + (b-a)/2
			}
			if v == 0 {
				v = 0 // turn -0 into +0
			}
			m.D[i*n+j], m.D[j*n+i] = v, v
		}
	}
}

// formatFloat formats x for output and messages: the shortest decimal form
// that reads back exactly, with infinities as "inf" and "-inf".
func formatFloat(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case math.IsNaN(x):
		return "nan"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// FromCorrelations returns the Gaussian information distances −log|r_ij|
// (Choi et al. 2011, eq. 5) of a correlation matrix r (row-major, one row
// per name); a zero correlation gives +Inf.
func FromCorrelations(names []string, r []float64) (*Matrix, error) {
	m, err := NewMatrix(names)
	if err != nil {
		return nil, err
	}
	n := len(names)
	if len(r) != n*n {
		return nil, fmt.Errorf("distance: %d correlations for %d variables", len(r), n)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			c := 0.5 * (r[i*n+j] + r[j*n+i])
			if math.IsNaN(c) || math.Abs(c) > 1+1e-9 {
				return nil, fmt.Errorf("distance: invalid correlation %g between %q and %q", c, names[i], names[j])
			}
			d := math.Inf(1)
			if c != 0 {
				d = math.Max(0, -math.Log(math.Abs(c)))
			}
			m.Set(i, j, d)
		}
	}
	return m, nil
}
