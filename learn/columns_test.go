package learn_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
)

// columnsCSV writes 120 rows of the column "id" (id(i) for row i), four
// binary columns and, with cont, a continuous column "x".
func columnsCSV(id func(i int) string, cont bool) string {
	var b strings.Builder
	b.WriteString("id,a,b,c,d")
	if cont {
		b.WriteString(",x")
	}
	b.WriteString("\n")
	for i := range 120 {
		fmt.Fprintf(&b, "%s,%d,%d,%d,%d", id(i), i%2, i/2%2, i/3%2, i/5%2)
		if cont {
			fmt.Fprintf(&b, ",%g", float64(i%13)/7)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// writeBoth writes text as name and as name.gz in dir and returns both
// paths.
func writeBoth(t *testing.T, dir, name, text string) []string {
	t.Helper()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(text))
	zw.Close()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p+".gz", z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{p, p + ".gz"}
}

// A column that identifies the rows is an error naming it, with the
// option that skips it, whatever the method, the kinds of the other
// columns, and the way the data are read; skipped, it is no error.
func TestLearnIdentifierColumn(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		id   func(i int) string
		want string
	}{
		{"names.csv", func(i int) string { return fmt.Sprintf("r%03d", i) }, `column "id" looks like an identifier (120 distinct values in 120 rows)`},
		{"numbers.csv", func(i int) string { return fmt.Sprint(i + 1) }, `column "id" looks like an identifier (120 integers from 1 to 120 in row order, none repeated)`},
	} {
		for _, cont := range []bool{false, true} {
			text := columnsCSV(c.id, cont)
			check := func(how string, err error) {
				t.Helper()
				var ie *data.IdentifierError
				if !errors.As(err, &ie) || ie.Column != "id" || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--ignore id (ReadOptions.Ignore)") {
					t.Errorf("%s (continuous x: %v), %s: %v, want %q", c.name, cont, how, err, c.want)
				}
			}
			d, _, err := data.ReadCSV(strings.NewReader(text), data.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []learn.Method{learn.CLNJ, learn.ChowLiu, learn.RegCLNJ} {
				for _, so := range []bool{false, true} {
					if m == learn.RegCLNJ && so {
						continue // no structure-only mode
					}
					_, err := learn.Learn(d, learn.Options{Method: m, StructureOnly: so})
					check(fmt.Sprintf("Learn %s, structure only %v", m, so), err)
				}
			}
			paths := writeBoth(t, dir, c.name, text)
			for _, p := range paths {
				for _, stream := range []bool{false, true} {
					f, err := learn.OpenFiles([]string{p}, learn.FilesOptions{Stream: stream})
					if err != nil {
						t.Fatal(err)
					}
					for _, so := range []bool{false, true} {
						_, err := f.Learn(learn.Options{StructureOnly: so})
						check(fmt.Sprintf("%s, stream %v, structure only %v", filepath.Base(p), stream, so), err)
					}
				}
				_, err := learn.LearnSource(&data.Files{Paths: []string{p}, Options: data.BlockOptions{BlockRows: 50}}, learn.Options{StructureOnly: true})
				check("LearnSource "+filepath.Base(p), err)
			}
		}
		// Skipped, the column is no error.
		text := columnsCSV(c.id, false)
		d, _, err := data.ReadCSV(strings.NewReader(text), data.ReadOptions{Ignore: []string{"id"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := learn.Learn(d, learn.Options{}); err != nil {
			t.Errorf("%s without id: %v", c.name, err)
		}
	}
}

// The error of a method that cannot fit mixed data names the method, the
// columns of each kind, and the continuous columns of distinct integers as
// possible identifiers; learning with the default method fits a mixed
// model and names them too.
func TestMixedKindsErrorNamesColumns(t *testing.T) {
	perm := rand.New(rand.NewPCG(1, 2)).Perm(120)
	text := columnsCSV(func(i int) string { return fmt.Sprint(perm[i]) }, true)
	want := `regclnj fits parameters to all-discrete or all-continuous data only, but 2 columns are continuous ("id" (distinct integers: an identifier?), "x") and 4 columns are discrete ("a", "b", "c", "d"); ` +
		`use another method (clnj, the default, fits a conditional-Gaussian model to mixed data), ` +
		`skip the columns of one kind (--ignore, data.ReadOptions.Ignore), force their kind (--discrete or --continuous, data.ReadOptions.Discrete or Continuous), or learn the structure alone (--structure-only, Options.StructureOnly)`
	d, _, err := data.ReadCSV(strings.NewReader(text), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check := func(how string, err error, want string) {
		t.Helper()
		var me *learn.MixedKindsError
		if !errors.As(err, &me) || !errors.Is(err, learn.ErrMixedKinds) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v\nwant %s", how, err, want)
		}
	}
	reg := learn.Options{Method: learn.RegCLNJ}
	_, err = learn.Learn(d, reg)
	check("Learn", err, "learn: "+want)
	for _, p := range writeBoth(t, t.TempDir(), "mixed.csv", text) {
		f, err := learn.OpenFiles([]string{p}, learn.FilesOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Learn(reg)
		check(p, err, p+": learn: "+want)
	}
	res, err := learn.Learn(d, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mixed == nil || len(res.Mixed.Integers) != 1 || res.Mixed.Integers[0] != "id" {
		t.Errorf("default learn: mixed report %+v, want id among the distinct integers", res.Mixed)
	}
	// At most six columns of a kind are named.
	e := &learn.MixedKindsError{Continuous: []string{"x"}, Discrete: strings.Fields("a b c d e f g h")}
	if got := e.Error(); !strings.Contains(got, `but 1 column is continuous ("x") and 8 columns are discrete ("a", "b", "c", "d", "e", "f" and 2 more)`) {
		t.Errorf("MixedKindsError.Error() = %s", got)
	}
}
