package learn_test

import (
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/tree"
)

// writeShards writes d as two gzip-compressed CSV shards in dir, the first
// n rows in one and the rest in the other, and returns dir.
func writeShards(dir string, d *data.Dataset, n int) (string, error) {
	for k, rows := range [][2]int{{0, n}, {n, d.NumRows()}} {
		part, err := d.Rows(seq(rows[0], rows[1]))
		if err != nil {
			return "", err
		}
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("part%d.csv.gz", k)))
		if err != nil {
			return "", err
		}
		zw := gzip.NewWriter(f)
		err = errors.Join(data.WriteCSV(zw, part), zw.Close(), f.Close())
		if err != nil {
			return "", err
		}
	}
	return dir, nil
}

func seq(lo, hi int) []int {
	s := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

// FromFiles learns from data files, here a directory of two gzip CSV
// shards, read in blocks and held at one bit per binary cell.
func ExampleFromFiles() {
	t, d := truth()
	dir, err := os.MkdirTemp("", "latentree-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if _, err := writeShards(dir, d, 2000); err != nil {
		fmt.Println(err)
		return
	}
	res, err := learn.FromFiles([]string{dir}, learn.FilesOptions{}, learn.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rf, err := tree.RobinsonFoulds(t, res.Tree)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d rows: %s, %d hidden variables, Robinson–Foulds %d\n", res.Rows, res.Method, res.Tree.NumHidden(), rf.RF)
	// Output:
	// 5000 rows: clnj, 2 hidden variables, Robinson–Foulds 0
}

func TestFiles(t *testing.T) {
	truthTree, d := truth()
	dir, err := writeShards(t.TempDir(), d, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, stream := range []bool{false, true} {
		f, err := learn.OpenFiles([]string{dir}, learn.FilesOptions{Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Vars()) != d.NumVars() || !f.AllDiscrete() || f.AllContinuous() {
			t.Errorf("stream %v: %d variables, all discrete %v, all continuous %v", stream, len(f.Vars()), f.AllDiscrete(), f.AllContinuous())
		}
		res, err := f.Learn(learn.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rf, err := tree.RobinsonFoulds(truthTree, res.Tree)
		if err != nil {
			t.Fatal(err)
		}
		if res.Rows != d.NumRows() || rf.RF != 0 {
			t.Errorf("stream %v: %d rows, Robinson–Foulds %d; want %d rows, 0", stream, res.Rows, rf.RF, d.NumRows())
		}
		s, err := f.Sample(100, rand.NewPCG(1, 2))
		switch {
		case err != nil:
			t.Error(err)
		case stream && s != nil:
			t.Error("streamed files gave a sample")
		case !stream && (s == nil || s.NumRows() != 100):
			t.Errorf("sample of 100 rows: %v", s)
		}
		if !stream {
			if s, err := f.Sample(d.NumRows(), nil); err != nil || s.NumRows() != d.NumRows() {
				t.Errorf("sample of every row: %v, %v", s, err)
			}
		}
	}
}

func TestFilesKinds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var mixed, cont string
	for i := range 200 {
		x := float64(i%17) / 3.1
		mixed += fmt.Sprintf("%d,%d,%g\n", i%2, (i/2)%2, x+0.01*float64(i))
		cont += fmt.Sprintf("%g,%g,%g\n", x, x*x+0.5*float64(i%5), float64(i%7)+0.03*float64(i))
	}
	mp := write("mixed.csv", "a,b,c\n"+mixed)
	cp := write("cont.csv", "a,b,c\n"+cont)
	f, err := learn.OpenFiles([]string{mp}, learn.FilesOptions{Stream: true, Read: data.BlockOptions{BlockRows: 64}})
	if err != nil {
		t.Fatal(err)
	}
	// Streamed, mixed data get the mixed model Learn fits in memory with
	// the threshold rule (the contraction of a stream): the same tree,
	// start and EM, up to rounding.
	res, err := f.Learn(learn.Options{})
	if err != nil || res.Mixed == nil || res.Model.Kind() != data.Mixed {
		t.Fatalf("streamed mixed kinds: %v", err)
	}
	dm, _, err := data.ReadCSVFile(mp, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := learn.Learn(dm, learn.Options{Contract: learn.ContractOptions{Rule: learn.ContractThreshold}})
	if err != nil {
		t.Fatal(err)
	}
	if rf, err := tree.RobinsonFoulds(res.Tree, want.Tree); err != nil || rf.RF != 0 || res.Tree.NumHidden() != want.Tree.NumHidden() {
		t.Errorf("streamed tree %s, in memory %s (%+v, %v)", res.Tree.Newick(), want.Tree.Newick(), rf, err)
	}
	if d := math.Abs(res.Score.LogLik - want.Score.LogLik); d > 1e-9*math.Abs(want.Score.LogLik) || res.EM.Iterations != want.EM.Iterations || res.Score.Params != want.Score.Params {
		t.Errorf("streamed: log-likelihood %.12g after %d E-steps (%d parameters), in memory %.12g after %d (%d)",
			res.Score.LogLik, res.EM.Iterations, res.Score.Params, want.Score.LogLik, want.EM.Iterations, want.Score.Params)
	}
	if _, err := f.Learn(learn.Options{StructureOnly: true}); err != nil {
		t.Errorf("streamed mixed kinds, structure only: %v", err)
	}
	// In memory, mixed data get a mixed model.
	f, err = learn.OpenFiles([]string{mp}, learn.FilesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := f.Learn(learn.Options{}); err != nil || res.Mixed == nil {
		t.Errorf("mixed kinds in memory: %v", err)
	}
	f, err = learn.OpenFiles([]string{cp}, learn.FilesOptions{Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	if !f.AllContinuous() {
		t.Fatalf("%s: not all continuous", cp)
	}
	if _, err := f.Learn(learn.Options{}); !errors.Is(err, learn.ErrStreamContinuous) {
		t.Errorf("streamed continuous data: %v, want ErrStreamContinuous", err)
	}
	f, err = learn.OpenFiles([]string{cp}, learn.FilesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err = f.Learn(learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model == nil || res.Rows != 200 {
		t.Errorf("continuous data: model %v, %d rows", res.Model, res.Rows)
	}
	if s, err := f.Sample(10, nil); err != nil || s.NumRows() != 200 {
		t.Errorf("sample after a Gaussian fit: %v, %v; want the 200 rows it unpacked", s, err)
	}
}
