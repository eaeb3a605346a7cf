package data

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// sameDataset returns a description of the first difference between a and
// b, or "" if they hold the same variables (names, kinds, states) and the
// same cells (floats compared bit for bit, any NaN equal to any NaN).
func sameDataset(a, b *Dataset) string {
	if a.NumVars() != b.NumVars() || a.NumRows() != b.NumRows() {
		return fmt.Sprintf("shape %dx%d vs %dx%d", a.NumRows(), a.NumVars(), b.NumRows(), b.NumVars())
	}
	for j := 0; j < a.NumVars(); j++ {
		va, vb := a.Var(j), b.Var(j)
		if va.Name != vb.Name || va.Kind != vb.Kind || !slices.Equal(va.States, vb.States) {
			return fmt.Sprintf("variable %d: %+v vs %+v", j, va, vb)
		}
		if da, db := a.Discrete(j), b.Discrete(j); (da == nil) != (db == nil) || !slices.Equal(da, db) {
			return fmt.Sprintf("variable %q: codes %v vs %v", va.Name, da, db)
		}
		ca, cb := a.Continuous(j), b.Continuous(j)
		if (ca == nil) != (cb == nil) || len(ca) != len(cb) {
			return fmt.Sprintf("variable %q: continuous columns %v vs %v", va.Name, ca, cb)
		}
		for i := range ca {
			x, y := ca[i], cb[i]
			if math.IsNaN(x) && math.IsNaN(y) {
				continue
			}
			if math.Float64bits(x) != math.Float64bits(y) {
				return fmt.Sprintf("variable %q, row %d: %v vs %v", va.Name, i, x, y)
			}
		}
	}
	return ""
}

func mustDiscrete(t *testing.T, vars []Variable, cols [][]uint16) *Dataset {
	t.Helper()
	d, err := FromDiscrete(vars, cols)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Discrete: "discrete", Continuous: "continuous", Kind(7): "Kind(7)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", uint8(k), got, want)
		}
	}
}

func TestVariable(t *testing.T) {
	v := Variable{Name: "x", Kind: Discrete, States: []string{"lo", "mid", "hi"}}
	if v.NumStates() != 3 {
		t.Errorf("NumStates = %d, want 3", v.NumStates())
	}
	if k, ok := v.StateIndex("hi"); !ok || k != 2 {
		t.Errorf("StateIndex(hi) = %d, %v; want 2, true", k, ok)
	}
	if k, ok := v.StateIndex("none"); ok || k != -1 {
		t.Errorf("StateIndex(none) = %d, %v; want -1, false", k, ok)
	}
	if n := (Variable{Name: "y", Kind: Continuous}).NumStates(); n != 0 {
		t.Errorf("continuous NumStates = %d, want 0", n)
	}
}

func TestNew(t *testing.T) {
	states := []string{"a", "b"}
	d, err := New([]Variable{
		{Name: "x", Kind: Discrete, States: states},
		{Name: "y", Kind: Continuous, States: []string{"ignored"}},
	}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d.NumRows() != 3 || d.NumVars() != 2 {
		t.Fatalf("shape %dx%d, want 3x2", d.NumRows(), d.NumVars())
	}
	if !slices.Equal(d.Discrete(0), []uint16{0, 0, 0}) || d.Continuous(0) != nil {
		t.Errorf("column x = %v / %v", d.Discrete(0), d.Continuous(0))
	}
	if !slices.Equal(d.Continuous(1), []float64{0, 0, 0}) || d.Discrete(1) != nil {
		t.Errorf("column y = %v / %v", d.Discrete(1), d.Continuous(1))
	}
	if d.Var(1).States != nil {
		t.Errorf("continuous variable kept states %v", d.Var(1).States)
	}
	states[0] = "changed"
	if d.Var(0).States[0] != "a" {
		t.Error("New did not copy the states")
	}
	if !slices.Equal(d.Names(), []string{"x", "y"}) {
		t.Errorf("Names = %v", d.Names())
	}
	if j, ok := d.Index("y"); !ok || j != 1 {
		t.Errorf("Index(y) = %d, %v", j, ok)
	}
	if _, ok := d.Index("z"); ok {
		t.Error("Index(z) found")
	}
	vs := d.Vars()
	vs[0].Name = "changed"
	if d.Var(0).Name != "x" {
		t.Error("Vars did not copy")
	}
	if d.AllDiscrete() || d.AllContinuous() {
		t.Error("mixed dataset reported as all discrete or all continuous")
	}
	if err := d.Validate(); err != nil {
		t.Error(err)
	}

	bad := []struct {
		vars []Variable
		rows int
		want string
	}{
		{nil, -1, "negative"},
		{[]Variable{{Kind: Continuous}}, 1, "no name"},
		{[]Variable{{Name: "a", Kind: Continuous}, {Name: "a", Kind: Continuous}}, 1, `duplicate variable name "a"`},
		{[]Variable{{Name: "a", Kind: Discrete}}, 1, `"a" has no states`},
		{[]Variable{{Name: "a", Kind: Discrete, States: make([]string, MaxStates+1)}}, 1, "more than the maximum"},
		{[]Variable{{Name: "a", Kind: Kind(9)}}, 1, "unknown kind"},
	}
	for _, c := range bad {
		if _, err := New(c.vars, c.rows); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%v, %d) error = %v, want it to contain %q", c.vars, c.rows, err, c.want)
		}
	}
	if _, err := New([]Variable{{Name: "a", Kind: Discrete, States: make([]string, MaxStates)}}, 1); err != nil {
		t.Errorf("New with MaxStates states: %v", err)
	}
}

func TestFromDiscreteAndMissing(t *testing.T) {
	vars := []Variable{
		{Name: "a", Kind: Discrete, States: []string{"0", "1"}},
		{Name: "b", Kind: Discrete, States: []string{"x", "y", "z"}},
	}
	d := mustDiscrete(t, vars, [][]uint16{{0, 1, Missing, 1}, {2, 2, 0, Missing}})
	if !d.AllDiscrete() || d.AllContinuous() {
		t.Error("AllDiscrete/AllContinuous wrong")
	}
	if d.NumRows() != 4 {
		t.Errorf("NumRows = %d, want 4", d.NumRows())
	}
	if d.MissingCount(0) != 1 || d.MissingCount(1) != 1 || !d.HasMissing() {
		t.Errorf("MissingCount = %d, %d; HasMissing = %v", d.MissingCount(0), d.MissingCount(1), d.HasMissing())
	}
	if _, err := FromDiscrete(vars, [][]uint16{{0, 2}, {0, 0}}); err == nil || !strings.Contains(err.Error(), "state code 2 out of range") {
		t.Errorf("out-of-range code: error %v", err)
	}
	if _, err := FromDiscrete(vars, [][]uint16{{0, 1}, {0}}); err == nil || !strings.Contains(err.Error(), `column "b" has 1 cells, want 2`) {
		t.Errorf("ragged columns: error %v", err)
	}
	if _, err := FromDiscrete(vars, [][]uint16{{0}}); err == nil {
		t.Error("FromDiscrete with too few columns succeeded")
	}
	if _, err := FromDiscrete([]Variable{{Name: "c", Kind: Continuous}}, [][]uint16{{0}}); err == nil || !strings.Contains(err.Error(), "not discrete") {
		t.Errorf("continuous variable: error %v", err)
	}
	e, err := FromDiscrete(nil, nil)
	if err != nil || e.NumVars() != 0 || e.NumRows() != 0 {
		t.Errorf("empty FromDiscrete = %v, %v", e, err)
	}
}

func TestFromContinuous(t *testing.T) {
	d, err := FromContinuous([]string{"u", "v"}, [][]float64{{1, math.NaN(), 3}, {-1, 0, 2.5}})
	if err != nil {
		t.Fatal(err)
	}
	if !d.AllContinuous() || d.AllDiscrete() || d.NumRows() != 3 {
		t.Errorf("AllContinuous=%v AllDiscrete=%v rows=%d", d.AllContinuous(), d.AllDiscrete(), d.NumRows())
	}
	if d.MissingCount(0) != 1 || d.MissingCount(1) != 0 || !d.HasMissing() {
		t.Errorf("missing counts %d %d", d.MissingCount(0), d.MissingCount(1))
	}
	if d.Discrete(0) != nil {
		t.Error("Discrete of a continuous column is not nil")
	}
	if _, err := FromContinuous([]string{"u"}, [][]float64{{1, math.Inf(-1)}}); err == nil || !strings.Contains(err.Error(), `row 2, variable "u": infinite value`) {
		t.Errorf("infinite value: error %v", err)
	}
	if _, err := FromContinuous([]string{"u", "v"}, [][]float64{{1, 2}, {1}}); err == nil {
		t.Error("ragged columns accepted")
	}
	if _, err := FromContinuous([]string{"u", "u"}, [][]float64{{1}, {1}}); err == nil {
		t.Error("duplicate names accepted")
	}
	if _, err := FromContinuous([]string{"u"}, nil); err == nil {
		t.Error("names/columns mismatch accepted")
	}
	c, _ := FromContinuous([]string{"w"}, [][]float64{{1, 2}})
	if c.HasMissing() {
		t.Error("HasMissing true without missing cells")
	}
}

func TestSelectAndRows(t *testing.T) {
	vars := []Variable{
		{Name: "a", Kind: Discrete, States: []string{"0", "1"}},
		{Name: "b", Kind: Discrete, States: []string{"x", "y", "z"}},
	}
	d := mustDiscrete(t, vars, [][]uint16{{0, 1, 1}, {2, 0, 1}})
	s, err := d.SelectNames([]string{"b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Names(), []string{"b", "a"}) || s.NumRows() != 3 {
		t.Fatalf("Select names %v rows %d", s.Names(), s.NumRows())
	}
	if j, _ := s.Index("a"); j != 1 {
		t.Errorf("Index(a) in selection = %d, want 1", j)
	}
	if !slices.Equal(s.Discrete(0), []uint16{2, 0, 1}) {
		t.Errorf("selected column b = %v", s.Discrete(0))
	}
	s.Discrete(0)[0] = 1
	if d.Discrete(1)[0] != 1 {
		t.Error("Select copied the column data; it should share it")
	}
	s.Discrete(0)[0] = 2
	if _, err := d.Select([]int{0, 0}); err == nil {
		t.Error("selecting a column twice succeeded")
	}
	if _, err := d.Select([]int{2}); err == nil {
		t.Error("out-of-range column selected")
	}
	if _, err := d.SelectNames([]string{"nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown name: error %v", err)
	}

	r, err := d.Rows([]int{2, 0, 2})
	if err != nil {
		t.Fatal(err)
	}
	want := mustDiscrete(t, vars, [][]uint16{{1, 0, 1}, {1, 2, 1}})
	if diff := sameDataset(r, want); diff != "" {
		t.Error(diff)
	}
	r.Discrete(0)[0] = 0
	if d.Discrete(0)[2] != 1 {
		t.Error("Rows shares data; it should copy")
	}
	if _, err := d.Rows([]int{3}); err == nil {
		t.Error("out-of-range row accepted")
	}

	c, _ := FromContinuous([]string{"u"}, [][]float64{{1.5, 2.5}})
	rc, err := c.Rows([]int{1})
	if err != nil || !slices.Equal(rc.Continuous(0), []float64{2.5}) {
		t.Errorf("continuous Rows = %v, %v", rc, err)
	}
}

func TestValidateCatchesCorruption(t *testing.T) {
	d := mustDiscrete(t, []Variable{{Name: "a", Kind: Discrete, States: []string{"0", "1"}}}, [][]uint16{{0, 1}})
	d.Discrete(0)[1] = 5
	if err := d.Validate(); err == nil || !strings.Contains(err.Error(), `row 2, variable "a": state code 5`) {
		t.Errorf("Validate = %v", err)
	}
	c, _ := FromContinuous([]string{"u"}, [][]float64{{1, 2}})
	c.Continuous(0)[0] = math.Inf(1)
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "infinite") {
		t.Errorf("Validate = %v", err)
	}
}
