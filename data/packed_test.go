package data

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// Packed is a Source.
var _ Source = (*Packed)(nil)

// packRow is one row of the packing test data; nil is missing. The fields
// are in the order of their names, the order of the Parquet columns.
type packRow struct {
	A    *string  `parquet:"a,optional"`    // "no"/"yes", some missing
	B1   *string  `parquet:"b1"`            // "0"/"1", never missing
	G    *string  `parquet:"g,optional"`    // 2 states, then 3, 5, 20 (width 1, 2, 4, 8)
	Late *string  `parquet:"late,optional"` // "m", "z"; "a" only from row 150
	N    *string  `parquet:"n,optional"`    // "10", "20"; "3" only from row 100
	Wide *string  `parquet:"wide,optional"` // up to 300 labels (width 16), unsorted
	X    *float64 `parquet:"x,optional"`    // continuous
}

var packCols = []string{"a", "b1", "g", "late", "n", "wide", "x"}

// packReadOptions read packRows as ReadCSV and the blocks must agree.
func packReadOptions() ReadOptions {
	return ReadOptions{Missing: MissingKeep, Discrete: []string{"g", "n"}, Continuous: []string{"x"}}
}

func packRows(rows int, seed uint64) []packRow {
	rng := rand.New(rand.NewPCG(seed, 11))
	str := func(s string) *string { return &s }
	out := make([]packRow, rows)
	for i := range out {
		r := &out[i]
		miss := func() bool { return i > 0 && rng.IntN(8) == 0 }
		if !miss() {
			r.A = str([]string{"no", "yes"}[rng.IntN(2)])
		}
		r.B1 = str(strconv.Itoa(rng.IntN(2)))
		if !miss() {
			k := 2
			switch {
			case i >= 120:
				k = 20
			case i >= 80:
				k = 5
			case i >= 40:
				k = 3
			}
			r.G = str(strconv.Itoa(1 + rng.IntN(k)))
		}
		if !miss() {
			v := []string{"m", "z"}[rng.IntN(2)]
			if i >= 150 && rng.IntN(3) == 0 {
				v = "a"
			}
			r.Late = str(v)
		}
		if !miss() {
			v := []string{"10", "20"}[rng.IntN(2)]
			if i >= 100 && rng.IntN(3) == 0 {
				v = "3"
			}
			r.N = str(v)
		}
		if !miss() {
			r.Wide = str(fmt.Sprintf("w%d", 299-rng.IntN(min(i+1, 300))))
		}
		if !miss() {
			x := rng.NormFloat64() * 10
			r.X = &x
		}
	}
	return out
}

func packCSV(rows []packRow) string {
	var b strings.Builder
	b.WriteString(strings.Join(packCols, ",") + "\n")
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	for _, r := range rows {
		x := ""
		if r.X != nil {
			x = strconv.FormatFloat(*r.X, 'g', -1, 64)
		}
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s,%s\n", s(r.A), s(r.B1), s(r.G), s(r.Late), s(r.N), s(r.Wide), x)
	}
	return b.String()
}

func packParquet(t testing.TB, rows []packRow) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[packRow](&buf)
	for lo := 0; lo < len(rows); lo += 97 {
		if _, err := w.Write(rows[lo:min(lo+97, len(rows))]); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mustPack(t testing.TB, src Source) *Packed {
	t.Helper()
	p, err := Pack(src)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// scanAll concatenates the blocks of a Scan into a new Dataset (copying
// them, as the blocks are reused) and checks each block's size and
// variables.
func scanAll(t *testing.T, p *Packed) *Dataset {
	t.Helper()
	d, err := New(p.Vars(), 0)
	if err != nil {
		t.Fatal(err)
	}
	nblocks := 0
	err = p.Scan(func(b *Dataset) error {
		nblocks++
		if b.NumRows() != p.BlockRows() && d.rows+b.NumRows() != p.NumRows() {
			return fmt.Errorf("block %d has %d rows, block rows %d", nblocks, b.NumRows(), p.BlockRows())
		}
		if s := sameVars(b.Vars(), p.Vars()); s != "" {
			return fmt.Errorf("block %d: %s", nblocks, s)
		}
		if err := b.Validate(); err != nil {
			return err
		}
		for j := range d.vars {
			if d.vars[j].Kind == Discrete {
				d.disc[j] = append(d.disc[j], b.Discrete(j)...)
			} else {
				d.cont[j] = append(d.cont[j], b.Continuous(j)...)
			}
		}
		d.rows += b.NumRows()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := max(1, (p.NumRows()+p.BlockRows()-1)/p.BlockRows()); nblocks != want {
		t.Fatalf("%d blocks, want %d", nblocks, want)
	}
	return d
}

func sameVars(a, b []Variable) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d variables vs %d", len(a), len(b))
	}
	for j := range a {
		if a[j].Name != b[j].Name || a[j].Kind != b[j].Kind || !slices.Equal(a[j].States, b[j].States) {
			return fmt.Sprintf("variable %d: %+v vs %+v", j, a[j], b[j])
		}
	}
	return ""
}

// checkPacked checks that p holds want: Vars, Dataset, Scan at several
// block sizes.
func checkPacked(t *testing.T, p *Packed, want *Dataset) {
	t.Helper()
	if p.NumRows() != want.NumRows() || p.NumVars() != want.NumVars() || !slices.Equal(p.Names(), want.Names()) {
		t.Fatalf("shape %dx%d %q, want %dx%d %q", p.NumRows(), p.NumVars(), p.Names(), want.NumRows(), want.NumVars(), want.Names())
	}
	if s := sameVars(p.Vars(), want.Vars()); s != "" {
		t.Fatal(s)
	}
	d, err := p.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	if s := sameDataset(d, want); s != "" {
		t.Fatalf("Dataset: %s", s)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	old := p.BlockRows()
	defer p.SetBlockRows(old)
	for _, br := range []int{1, 7, 64, 100, 65536} {
		if err := p.SetBlockRows(br); err != nil {
			t.Fatal(err)
		}
		if s := sameDataset(scanAll(t, p), want); s != "" {
			t.Fatalf("Scan in blocks of %d: %s", br, s)
		}
	}
}

// colShift returns the cell width shift of variable name, and whether the
// column has a missing-cell bitmap.
func colShift(t *testing.T, p *Packed, name string) (uint, bool) {
	t.Helper()
	j := slices.Index(p.Names(), name)
	if j < 0 {
		t.Fatalf("no variable %q", name)
	}
	return p.cols[j].shift, p.cols[j].miss != nil
}

// TestPackFiles packs CSV, gzip CSV, Parquet and shards read in blocks of
// several sizes and checks the result against ReadCSV of the whole file:
// the states in the same order (late states, states to reorder), every
// cell, and the cell widths (a column whose states grow past 2, 4 and 16
// in later blocks is re-packed wider).
func TestPackFiles(t *testing.T) {
	const rows = 1000
	all := packRows(rows, 1)
	text := packCSV(all)
	want, _, err := ReadCSV(strings.NewReader(text), packReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	for name, states := range map[string][]string{
		"late": {"a", "m", "z"},
		"n":    {"3", "10", "20"},
	} {
		j, _ := want.Index(name)
		if got := want.Var(j).States; !slices.Equal(got, states) {
			t.Fatalf("ReadCSV: states of %q are %q, want %q", name, got, states)
		}
	}
	dir := t.TempDir()
	csvPath := writeTemp(t, dir, "all.csv", []byte(text))
	gzPath := writeTemp(t, dir, "all.csv.gz", gz(text))
	pqPath := writeTemp(t, dir, "all.parquet", packParquet(t, all))
	shards := filepath.Join(dir, "shards")
	if err := os.Mkdir(shards, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTemp(t, shards, "part-0.csv", []byte(packCSV(all[:130])))
	writeTemp(t, shards, "part-1.csv.gz", gz(packCSV(all[130:555])))
	writeTemp(t, shards, "part-2.parquet", packParquet(t, all[555:]))

	// The late states are late: the first block of 16 rows lacks them.
	blocks, err := readAll([]string{csvPath}, BlockOptions{ReadOptions: packReadOptions(), BlockRows: 16, FirstBlockTyping: true})
	if err != nil {
		t.Fatal(err)
	}
	first := blocks[0]
	for name, n := range map[string]int{"g": 2, "late": 2, "n": 2} {
		j, _ := first.Index(name)
		if first.Var(j).NumStates() != n {
			t.Fatalf("first block: %q has states %q", name, first.Var(j).States)
		}
	}

	for _, tc := range []struct {
		name  string
		paths []string
	}{
		{"csv", []string{csvPath}},
		{"gzip", []string{gzPath}},
		{"parquet", []string{pqPath}},
		{"shards", []string{shards}},
	} {
		for _, br := range []int{1, 16, 0} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, br), func(t *testing.T) {
				p := mustPack(t, &Files{Paths: tc.paths, Options: BlockOptions{ReadOptions: packReadOptions(), BlockRows: br}})
				if p.BlockRows() != DefaultBlockRows {
					t.Errorf("BlockRows %d", p.BlockRows())
				}
				checkPacked(t, p, want)
				for name, w := range map[string]struct {
					shift uint
					miss  bool
				}{
					"a": {0, true}, "b1": {0, false}, "g": {3, true}, "late": {1, true}, "n": {1, true}, "wide": {4, true},
				} {
					if s, m := colShift(t, p, name); s != w.shift || m != w.miss {
						t.Errorf("%q: shift %d, bitmap %v; want %d, %v", name, s, m, w.shift, w.miss)
					}
				}
			})
		}
	}
}

// blockSource gives a dataset in blocks of the given number of rows,
// with the states of each block those seen so far (in order of first
// appearance, as a BlockReader gives them) when grow is set.
type blockSource struct {
	d     *Dataset
	rows  int
	grow  bool
	fail  error // returned after the first block
	empty bool  // give no block at all
}

func (s blockSource) Scan(fn func(*Dataset) error) error {
	if s.empty {
		return nil
	}
	for lo := 0; lo < s.d.NumRows() || lo == 0; lo += s.rows {
		hi := min(lo+s.rows, s.d.NumRows())
		idx := make([]int, hi-lo)
		for k := range idx {
			idx[k] = lo + k
		}
		b, err := s.d.Rows(idx)
		if err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
		if s.fail != nil {
			return s.fail
		}
	}
	return nil
}

// growStates returns d with the states of each discrete variable in the
// order of their first appearance in the rows (unused states last), and
// the codes to match.
func growStates(t *testing.T, d *Dataset) *Dataset {
	t.Helper()
	vars := d.Vars()
	out, err := New(vars, d.NumRows())
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range vars {
		if v.Kind == Continuous {
			copy(out.cont[j], d.cont[j])
			continue
		}
		recode := make([]uint16, len(v.States))
		var states []string
		for k := range recode {
			recode[k] = Missing
		}
		for _, c := range d.disc[j] {
			if c != Missing && recode[c] == Missing {
				recode[c] = uint16(len(states))
				states = append(states, v.States[c])
			}
		}
		for k := range recode {
			if recode[k] == Missing {
				recode[k] = uint16(len(states))
				states = append(states, v.States[k])
			}
		}
		for i, c := range d.disc[j] {
			if c != Missing {
				out.disc[j][i] = recode[c]
			} else {
				out.disc[j][i] = Missing
			}
		}
		out.vars[j].States = states
	}
	return out
}

// TestPackBlocks packs datasets given in blocks whose states grow, and a
// single Dataset whose states are not sorted.
func TestPackBlocks(t *testing.T) {
	want, _, err := ReadCSV(strings.NewReader(packCSV(packRows(700, 2))), packReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	unsorted := growStates(t, want)
	if sameVars(unsorted.Vars(), want.Vars()) == "" {
		t.Fatal("growStates did not change the order of the states")
	}
	for _, rows := range []int{1, 5, 64, 65, 1000} {
		p := mustPack(t, blockSource{d: unsorted, rows: rows})
		checkPacked(t, p, want)
	}
	p := mustPack(t, unsorted) // a Dataset is a Source
	checkPacked(t, p, want)

	// No rows: one empty block.
	empty, err := New([]Variable{{Name: "c", Kind: Discrete, States: []string{"y", "x"}}, {Name: "x", Kind: Continuous}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	p = mustPack(t, empty)
	if p.NumRows() != 0 || p.Bytes() != 0 || !slices.Equal(p.Vars()[0].States, []string{"x", "y"}) {
		t.Fatalf("empty: %d rows %d bytes %+v", p.NumRows(), p.Bytes(), p.Vars())
	}
	if d := scanAll(t, p); d.NumRows() != 0 || d.NumVars() != 2 {
		t.Fatalf("empty scan %dx%d", d.NumRows(), d.NumVars())
	}
}

// TestPackedBinaryMissing checks binary columns whose missing cells fall
// at word edges and block edges, read with unaligned block sizes.
func TestPackedBinaryMissing(t *testing.T) {
	const rows = 1000
	rng := rand.New(rand.NewPCG(5, 6))
	vars := []Variable{
		{Name: "b", Kind: Discrete, States: []string{"0", "1"}},
		{Name: "m", Kind: Discrete, States: []string{"0", "1"}},
		{Name: "one", Kind: Discrete, States: []string{"only"}},
		{Name: "q", Kind: Discrete, States: []string{"0", "1", "2", "3"}},
		{Name: "s", Kind: Discrete, States: []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15"}},
	}
	cols := make([][]uint16, len(vars))
	for j := range cols {
		cols[j] = make([]uint16, rows)
		for i := range cols[j] {
			cols[j][i] = uint16(rng.IntN(vars[j].NumStates()))
			if j > 0 && (i%64 == 0 || i%64 == 63 || i%7 == 3 || rng.IntN(5) == 0) {
				cols[j][i] = Missing
			}
		}
	}
	want := mustDiscrete(t, vars, cols)
	for _, rows := range []int{1, 3, 63, 64, 65, 1000} {
		checkPacked(t, mustPack(t, blockSource{d: want, rows: rows}), want)
	}
}

// TestPackedBytes checks the storage of 100 binary columns × 10,000 rows:
// 1 bit per cell (within 10%), plus 1 bit per cell of the one column with
// missing cells, whether packed from one block or from many.
func TestPackedBytes(t *testing.T) {
	const rows, cols = 10000, 100
	rng := rand.New(rand.NewPCG(7, 8))
	vars := make([]Variable, cols)
	codes := make([][]uint16, cols)
	for j := range vars {
		vars[j] = Variable{Name: fmt.Sprintf("v%d", j), Kind: Discrete, States: []string{"0", "1"}}
		codes[j] = make([]uint16, rows)
		for i := range codes[j] {
			codes[j][i] = uint16(rng.IntN(2))
		}
	}
	d := mustDiscrete(t, vars, codes)
	ideal := float64(rows * cols / 8)
	for _, src := range []Source{d, blockSource{d: d, rows: 333}} {
		p := mustPack(t, src)
		if r := float64(p.Bytes()) / ideal; r < 1 || r > 1.1 {
			t.Errorf("%d bytes, %.3f times rows*cols/8", p.Bytes(), r)
		}
	}
	codes[3][rows/2] = Missing
	p := mustPack(t, blockSource{d: d, rows: 333})
	ideal += rows / 8
	if r := float64(p.Bytes()) / ideal; r < 1 || r > 1.1 {
		t.Errorf("with a missing cell: %d bytes, %.3f times the ideal", p.Bytes(), r)
	}
	checkPacked(t, p, d)
}

// TestPackedSample checks Sample: reproducible, rows distinct and in
// order, all rows for n ≥ NumRows, errors for n ≤ 0, and each row drawn
// with frequency n/rows.
func TestPackedSample(t *testing.T) {
	const rows = 50
	ids := make([]float64, rows)
	bin := make([]uint16, rows)
	for i := range ids {
		ids[i] = float64(i)
		bin[i] = uint16(i % 2)
		if i%5 == 4 {
			bin[i] = Missing
		}
	}
	idCol, err := FromContinuous([]string{"id"}, [][]float64{ids})
	if err != nil {
		t.Fatal(err)
	}
	d, err := New([]Variable{{Name: "id", Kind: Continuous}, {Name: "b", Kind: Discrete, States: []string{"0", "1"}}}, rows)
	if err != nil {
		t.Fatal(err)
	}
	copy(d.cont[0], idCol.cont[0])
	copy(d.disc[1], bin)
	p := mustPack(t, d)

	// draw returns the ids of a sample, checking its cells.
	draw := func(n int, r *rand.Rand) []int {
		t.Helper()
		s, err := p.Sample(n, r)
		if err != nil {
			t.Fatal(err)
		}
		if s.NumRows() != min(n, rows) || sameVars(s.Vars(), p.Vars()) != "" {
			t.Fatalf("sample of %d: %d rows, vars %+v", n, s.NumRows(), s.Vars())
		}
		out := make([]int, s.NumRows())
		for k := range out {
			i := int(s.Continuous(0)[k])
			out[k] = i
			if k > 0 && i <= out[k-1] {
				t.Fatalf("sample of %d: rows %v not distinct and increasing", n, s.Continuous(0))
			}
			if s.Discrete(1)[k] != bin[i] {
				t.Fatalf("sample row %d: b %d, want %d", i, s.Discrete(1)[k], bin[i])
			}
		}
		return out
	}
	seeded := func(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 99)) }
	if a, b := draw(10, seeded(1)), draw(10, seeded(1)); !slices.Equal(a, b) {
		t.Errorf("same seed, samples %v and %v", a, b)
	}
	if a, b := draw(10, seeded(1)), draw(10, seeded(2)); slices.Equal(a, b) {
		t.Errorf("seeds 1 and 2 gave the same sample %v", a)
	}
	for _, n := range []int{rows, rows + 1, 1 << 40} {
		if got := draw(n, seeded(3)); len(got) != rows {
			t.Errorf("n = %d: %d rows", n, len(got))
		}
	}
	for _, n := range []int{0, -1} {
		if _, err := p.Sample(n, seeded(1)); err == nil {
			t.Errorf("n = %d: no error", n)
		}
	}
	if _, err := p.Sample(3, nil); err == nil {
		t.Error("nil rng: no error")
	}

	// Each row is in a sample of n with probability n/rows: over draws
	// samples its count is Binomial(draws, n/rows), standard deviation
	// about 61 here; allow 5 standard deviations. The first and last
	// rows are compared too (sequential methods can favour either end).
	const n, draws = 12, 20000
	count := make([]int, rows)
	r := seeded(4)
	for range draws {
		for _, i := range draw(n, r) {
			count[i]++
		}
	}
	mean := float64(draws) * n / rows
	sd := math.Sqrt(mean * (1 - float64(n)/rows))
	for i, c := range count {
		if math.Abs(float64(c)-mean) > 5*sd {
			t.Errorf("row %d drawn %d times in %d samples of %d, want %.0f ± %.0f", i, c, draws, n, mean, 5*sd)
		}
	}
}

// TestPackedConcurrent runs Scan, Dataset and Sample on one Packed from
// several goroutines (run with -race): each Scan has its own buffers.
func TestPackedConcurrent(t *testing.T) {
	want, _, err := ReadCSV(strings.NewReader(packCSV(packRows(500, 3))), packReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	p := mustPack(t, blockSource{d: growStates(t, want), rows: 50})
	if err := p.SetBlockRows(33); err != nil {
		t.Fatal(err)
	}
	errs := make(chan string, 8)
	for g := range 4 {
		go func() {
			got, err := New(p.Vars(), 0)
			if err != nil {
				errs <- err.Error()
				return
			}
			err = p.Scan(func(b *Dataset) error {
				for j := range got.vars {
					got.disc[j] = append(got.disc[j], b.Discrete(j)...)
					got.cont[j] = append(got.cont[j], b.Continuous(j)...)
				}
				got.rows += b.NumRows()
				return nil
			})
			if err != nil {
				errs <- err.Error()
				return
			}
			if _, err := p.Sample(10+g, rand.New(rand.NewPCG(uint64(g), 1))); err != nil {
				errs <- err.Error()
				return
			}
			errs <- sameDataset(got, want)
		}()
	}
	for range 4 {
		if s := <-errs; s != "" {
			t.Error(s)
		}
	}
}

// TestPackErrors checks Pack's and Packed's errors.
func TestPackErrors(t *testing.T) {
	good, err := New([]Variable{{Name: "c", Kind: Discrete, States: []string{"a", "b"}}, {Name: "x", Kind: Continuous}}, 4)
	if err != nil {
		t.Fatal(err)
	}
	badCode, _ := New(good.Vars(), 3)
	badCode.disc[0][2] = 2
	inf, _ := New(good.Vars(), 3)
	inf.cont[1][1] = math.Inf(-1)
	short, _ := New(good.Vars(), 3)
	short.disc[0] = short.disc[0][:2]
	renamed, _ := New([]Variable{{Name: "d", Kind: Discrete, States: []string{"a", "b"}}, {Name: "x", Kind: Continuous}}, 2)
	rekind, _ := New([]Variable{{Name: "c", Kind: Continuous}, {Name: "x", Kind: Continuous}}, 2)
	fewer, _ := New([]Variable{{Name: "c", Kind: Discrete, States: []string{"a", "b"}}}, 2)
	reorder, _ := New([]Variable{{Name: "c", Kind: Discrete, States: []string{"b", "a"}}, {Name: "x", Kind: Continuous}}, 2)
	boom := errors.New("boom")
	twice := func(second *Dataset) Source {
		return sourceFunc(func(fn func(*Dataset) error) error {
			if err := fn(good); err != nil {
				return err
			}
			return fn(second)
		})
	}
	var nilData *Dataset
	for _, tc := range []struct {
		name string
		src  Source
		want string
	}{
		{"nil", nil, "nil source"},
		{"nil dataset", nilData, "nil dataset"},
		{"no blocks", blockSource{empty: true}, "no blocks"},
		{"source error", blockSource{d: good, rows: 1, fail: boom}, "boom"},
		{"nil block", sourceFunc(func(fn func(*Dataset) error) error { return fn(nil) }), "nil block"},
		{"bad code", badCode, "row 3"},
		{"bad code later", twice(badCode), "row 7"},
		{"infinite", twice(inf), "row 6"},
		{"short column", twice(short), "2 cells"},
		{"renamed", twice(renamed), `"d"`},
		{"kind", twice(rekind), "continuous"},
		{"fewer vars", twice(fewer), "1 variables"},
		{"states reordered", twice(reorder), "extend"},
		{"files", &Files{}, "no input files"},
	} {
		p, err := Pack(tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Packed %v, error %v; want an error with %q", tc.name, p != nil, err, tc.want)
		}
	}
	p := mustPack(t, good)
	for _, n := range []int{0, -3} {
		if err := p.SetBlockRows(n); err == nil {
			t.Errorf("SetBlockRows(%d): no error", n)
		}
	}
	if p.BlockRows() != DefaultBlockRows {
		t.Errorf("BlockRows %d after bad SetBlockRows", p.BlockRows())
	}
	if err := p.Scan(nil); err == nil {
		t.Error("Scan(nil): no error")
	}
	p.SetBlockRows(1)
	calls := 0
	if err := p.Scan(func(*Dataset) error { calls++; return boom }); err != boom || calls != 1 {
		t.Errorf("Scan: error %v after %d calls, want boom after 1", err, calls)
	}
}

type sourceFunc func(fn func(*Dataset) error) error

func (f sourceFunc) Scan(fn func(*Dataset) error) error { return f(fn) }

// benchSource gives cols binary columns × rows rows in blocks, without
// holding them all.
type benchSource struct{ rows, cols int }

func (s benchSource) Scan(fn func(*Dataset) error) error {
	vars := make([]Variable, s.cols)
	for j := range vars {
		vars[j] = Variable{Name: fmt.Sprintf("v%03d", j), Kind: Discrete, States: []string{"0", "1"}}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for lo := 0; lo < s.rows; lo += DefaultBlockRows {
		b, err := New(vars, min(DefaultBlockRows, s.rows-lo))
		if err != nil {
			return err
		}
		for j := range vars {
			col := b.disc[j]
			for i := 0; i < len(col); i += 64 {
				x := rng.Uint64()
				for t := i; t < min(i+64, len(col)); t++ {
					col[t] = uint16(x & 1)
					x >>= 1
				}
			}
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkPackedScan unpacks 100 binary columns × 1,000,000 rows (10^8
// cells) in one Scan; MB/s counts cells (a cell a byte).
func BenchmarkPackedScan(b *testing.B) {
	const rows, cols = 1_000_000, 100
	p := mustPack(b, benchSource{rows: rows, cols: cols})
	b.SetBytes(rows * cols)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		err := p.Scan(func(d *Dataset) error {
			n += d.NumRows()
			return nil
		})
		if err != nil || n != rows {
			b.Fatalf("%d rows, %v", n, err)
		}
	}
	b.ReportMetric(float64(p.Bytes())/(1<<20), "packed-MB")
}

// BenchmarkPack packs a Parquet file of 100 boolean columns × 1,000,000
// rows; MB/s counts cells.
func BenchmarkPack(b *testing.B) {
	const rows, cols = 1_000_000, 100
	path := filepath.Join(b.TempDir(), "bench.parquet")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	g := parquet.Group{}
	for j := range cols {
		g[fmt.Sprintf("v%03d", j)] = parquet.Leaf(parquet.BooleanType)
	}
	w := parquet.NewWriter(f, parquet.NewSchema("bench", g))
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]parquet.Row, 4096)
	for lo := 0; lo < rows; lo += len(buf) {
		n := min(len(buf), rows-lo)
		for i := range n {
			r := buf[i][:0]
			x := rng.Uint64()
			for j := range cols {
				if j%64 == 0 && j > 0 {
					x = rng.Uint64()
				}
				r = append(r, parquet.BooleanValue(x>>(j%64)&1 == 1).Level(0, 0, j))
			}
			buf[i] = r
		}
		if _, err := w.WriteRows(buf[:n]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.SetBytes(rows * cols)
	for b.Loop() {
		p := mustPack(b, &Files{Paths: []string{path}})
		if p.NumRows() != rows {
			b.Fatalf("%d rows", p.NumRows())
		}
	}
}

func ExamplePack() {
	vars := []Variable{
		{Name: "smoker", Kind: Discrete, States: []string{"yes", "no"}},
		{Name: "cough", Kind: Discrete, States: []string{"no", "yes"}},
	}
	smoker := []uint16{0, 1, 1, 0, 1, 1, 1, 0, 1, 1}
	cough := []uint16{1, 0, 0, 1, Missing, 0, 1, 1, 0, 0}
	d, err := FromDiscrete(vars, [][]uint16{smoker, cough})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := Pack(d) // a Dataset is a Source
	if err != nil {
		fmt.Println(err)
		return
	}
	// One 64-bit word per column, plus a missing-cell bitmap for cough.
	fmt.Println(p.NumRows(), "rows,", p.Bytes(), "bytes")
	fmt.Println(p.Vars()[0].States) // sorted as ReadCSV sorts them
	s, err := p.Sample(4, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range s.NumRows() {
		var row []string
		for j, v := range s.Vars() {
			label := "?" // missing
			if c := s.Discrete(j)[i]; c != Missing {
				label = v.States[c]
			}
			row = append(row, v.Name+"="+label)
		}
		fmt.Println(strings.Join(row, " "))
	}
	// Output:
	// 10 rows, 24 bytes
	// [no yes]
	// smoker=yes cough=yes
	// smoker=no cough=?
	// smoker=no cough=yes
	// smoker=no cough=no
}
