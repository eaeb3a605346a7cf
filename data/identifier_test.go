package data

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// idCSV writes n rows of a column "key" (key(i) for row i) and two
// binary columns.
func idCSV(n int, key func(i int) string) string {
	var b strings.Builder
	b.WriteString("key,a,b\n")
	for i := range n {
		fmt.Fprintf(&b, "%s,%d,%s\n", key(i), i%2, []string{"x", "y", "y"}[i%3])
	}
	return b.String()
}

func TestCheckIdentifiers(t *testing.T) {
	perm := rand.New(rand.NewPCG(3, 4)).Perm(60)
	keep := ReadOptions{Missing: MissingKeep}
	cases := []struct {
		name string
		in   string
		opt  ReadOptions
		want string // "" for no identifier
	}{
		{"names", idCSV(60, func(i int) string { return fmt.Sprintf("p%03d", i) }), ReadOptions{},
			`data: column "key" looks like an identifier (60 distinct values in 60 rows), not a variable to learn from; skip it with --ignore key (ReadOptions.Ignore)`},
		{"row-numbers", idCSV(60, func(i int) string { return fmt.Sprint(i + 1) }), ReadOptions{},
			`column "key" looks like an identifier (60 integers from 1 to 60 in row order, none repeated)`},
		{"decreasing", idCSV(60, func(i int) string { return fmt.Sprint(1000 - i) }), ReadOptions{}, `(60 integers from 1000 to 941 in row order`},
		// Rows deleted: gaps, but at most twice as many integers as rows.
		{"gaps", idCSV(60, func(i int) string { return fmt.Sprint(10 + i + i/2) }), ReadOptions{}, `(60 integers from 10 to 98 in row order`},
		// Integer IDs forced discrete are distinct states.
		{"numbers-discrete", idCSV(60, func(i int) string { return fmt.Sprint(perm[i]) }), ReadOptions{Discrete: []string{"key"}}, `(60 distinct values in 60 rows)`},
		{"missing", idCSV(60, func(i int) string {
			if i%10 == 3 {
				return "NA"
			}
			return fmt.Sprintf("p%03d", i)
		}), keep, `(54 distinct values in the 54 rows where it has one)`},
		{"odd-name", strings.Replace(idCSV(30, func(i int) string { return fmt.Sprintf("p%03d", i) }), "key", `"my, id"`, 1), ReadOptions{},
			`column "my, id" looks like an identifier (30 distinct values in 30 rows), not a variable to learn from; skip it with --ignore '"my, id"'`},
		// Not identifiers.
		{"repeat", idCSV(60, func(i int) string { return fmt.Sprintf("p%03d", min(i, 58)) }), ReadOptions{}, ""},
		{"few-rows", idCSV(MinIdentifierRows-1, func(i int) string { return fmt.Sprintf("p%03d", i) }), ReadOptions{}, ""},
		{"shuffled", idCSV(60, func(i int) string { return fmt.Sprint(perm[i] + 1) }), ReadOptions{}, ""},
		{"sparse", idCSV(60, func(i int) string { return fmt.Sprint(3 * i) }), ReadOptions{}, ""},
		{"real", idCSV(60, func(i int) string { return fmt.Sprintf("%d.5", i) }), ReadOptions{}, ""},
		{"back-and-forth", idCSV(60, func(i int) string { return fmt.Sprint(i + 2*(i%2)) }), ReadOptions{}, ""},
	}
	dir := t.TempDir()
	for _, c := range cases {
		labels, ds, errs := readAllWays(t, dir, c.name+".csv", c.in, c.opt)
		check := func(label string, src Source) {
			t.Helper()
			err := CheckIdentifiers(src)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s, %s: %v", c.name, label, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%s, %s: %v, want %q", c.name, label, err, c.want)
			case c.want != "":
				var ie *IdentifierError
				if !errors.As(err, &ie) || ie.Column != ds[0].Var(0).Name {
					t.Errorf("%s, %s: %#v", c.name, label, err)
				}
			}
		}
		for i, label := range labels {
			if errs[i] != nil {
				t.Fatalf("%s, %s: %v", c.name, label, errs[i])
			}
			check(label, ds[i])
		}
		// In blocks smaller than the column (but large enough to type it as
		// the whole file types it), from the file and its gzip,
		// and packed.
		for _, p := range []string{c.name + ".csv", c.name + ".csv.gz"} {
			f := &Files{Paths: []string{filepath.Join(dir, p)}, Options: BlockOptions{ReadOptions: c.opt, BlockRows: 25}}
			check("Files "+p, f)
			pk, err := Pack(f)
			if err != nil {
				t.Fatal(err)
			}
			check("Packed "+p, pk)
		}
	}
}

// The scan stops once no column can be an identifier.
func TestCheckIdentifiersStopsEarly(t *testing.T) {
	in := idCSV(100, func(i int) string { return fmt.Sprint(i % 5) })
	d, _ := read(t, in, ReadOptions{})
	blocks := 0
	src := blockSource{d: d, rows: 10}
	counted := sourceFunc(func(fn func(*Dataset) error) error {
		return src.Scan(func(b *Dataset) error { blocks++; return fn(b) })
	})
	if err := CheckIdentifiers(counted); err != nil || blocks != 1 {
		t.Errorf("error %v after %d blocks, want nil after 1", err, blocks)
	}
	boom := errors.New("boom")
	if err := CheckIdentifiers(sourceFunc(func(func(*Dataset) error) error { return boom })); err != boom {
		t.Errorf("source error: %v", err)
	}
}

func TestDistinctIntegers(t *testing.T) {
	perm := rand.New(rand.NewPCG(5, 6)).Perm(40)
	var b strings.Builder
	b.WriteString("shuffled,real,repeat,disc,missing\n")
	for i := range 40 {
		miss := fmt.Sprint(100 + 3*i)
		if i%4 == 1 {
			miss = "NA"
		}
		fmt.Fprintf(&b, "%d,%d.5,%d,%d,%s\n", perm[i], i, i%20, i%2, miss)
	}
	d, _ := read(t, b.String(), ReadOptions{Missing: MissingKeep})
	got, err := DistinctIntegers(d)
	if err != nil || strings.Join(got, ",") != "shuffled,missing" {
		t.Errorf("DistinctIntegers = %q, %v; want shuffled, missing", got, err)
	}
	// Nothing to find: the scan stops at the first block.
	d, _ = read(t, "a,b\n1,x\n2,y\n1,x\n", ReadOptions{})
	blocks := 0
	counted := sourceFunc(func(fn func(*Dataset) error) error {
		for range 3 {
			blocks++
			if err := fn(d); err != nil {
				return err
			}
		}
		return nil
	})
	if got, err := DistinctIntegers(counted); len(got) != 0 || err != nil || blocks != 1 {
		t.Errorf("%q, %v after %d blocks", got, err, blocks)
	}
}

// A column with more distinct values than a discrete column can hold is
// an error that suggests skipping it, in every reader.
func TestTooManyStatesSuggestsIgnore(t *testing.T) {
	in := idCSV(MaxStates+1, func(i int) string { return fmt.Sprintf("k%d", i) })
	labels, _, errs := readAllWays(t, t.TempDir(), "many.csv", in, ReadOptions{})
	want := fmt.Sprintf(`:%d: column "key": more than %d distinct values, the most a discrete column can have; if it identifies the rows, skip it with --ignore key (ReadOptions.Ignore)`, MaxStates+2, MaxStates)
	for i, label := range labels {
		if errs[i] == nil || !strings.Contains(errs[i].Error(), want) {
			t.Errorf("%s: %v, want %q", label, errs[i], want)
		}
	}
}
