package discrete_test

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/testenv"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/stats"
)

// TestFitEMSourceDeterministic: FitEMSource over a Packed with
// restarts and a warm-up on samples gives bit-identical results whatever
// the number of workers, and the same fit as FitEM on the rows in memory
// (same samples, same random starts) up to rounding. The long form
// (LATENTREE_LONG=1) has 70,000 rows and samples of 2,000 and 16,000; the
// short form 5,000 rows and samples of 150 and 1,200 (half of the 10,000
// and 300 before, which cost twice as much; bit-identity across workers
// does not depend on the size).
func TestFitEMSourceDeterministic(t *testing.T) {
	rows, sample := testenv.Pick(5000, 70000), testenv.Pick(150, 2000)
	_, fresh, d := binSetting(t, 21, 40, rows)
	p, err := data.Pack(d)
	if err != nil {
		t.Fatal(err)
	}
	fit := func(workers int, src data.Source) (*discrete.Model, *model.EMResult) {
		m := fresh.Clone()
		opt := model.EMOptions{Restarts: 3, Sample: sample, Workers: workers, Src: rand.NewPCG(5, 6)}
		var r *model.EMResult
		var err error
		if dd, ok := src.(*data.Dataset); ok {
			r, err = m.FitEM(dd, opt)
		} else {
			r, err = m.FitEMSource(src, opt)
		}
		if err != nil {
			t.Fatal(err)
		}
		return m, r
	}
	m1, r1 := fit(1, p)
	m3, r3 := fit(3, p)
	if !reflect.DeepEqual(m1.CPT, m3.CPT) || r1.LogLik != r3.LogLik || !reflect.DeepEqual(r1.Stages, r3.Stages) || !reflect.DeepEqual(r1.Starts, r3.Starts) {
		t.Errorf("1 worker: loglik %v stages %+v starts %v; 3 workers: loglik %v stages %+v starts %v", r1.LogLik, r1.Stages, r1.Starts, r3.LogLik, r3.Stages, r3.Starts)
	}
	if len(r1.Stages) != 2 || r1.Stages[0].Rows != sample || r1.Stages[1].Rows != 8*sample || r1.Rows != rows {
		t.Errorf("stages %+v rows %d", r1.Stages, r1.Rows)
	}
	mm, rm := fit(2, d)
	if len(rm.Starts) != len(r1.Starts) {
		t.Fatalf("FitEM starts %v, FitEMSource %v", rm.Starts, r1.Starts)
	}
	for i := range rm.Starts {
		if math.Abs(rm.Starts[i]-r1.Starts[i]) > 1e-6*math.Abs(rm.Starts[i]) {
			t.Errorf("start %d: FitEM %v, FitEMSource %v", i, rm.Starts[i], r1.Starts[i])
		}
	}
	if diff := relDiff(mm, m1); diff > 1e-6 {
		t.Errorf("FitEM and FitEMSource differ by %g (loglik %v vs %v)", diff, rm.LogLik, r1.LogLik)
	}
}

// writeFirstSeen writes d to dir as CSV after setting the first rows of
// every column to the state labelled "1", so that a BlockReader with
// small blocks lists the states of every column as ["1", "0"] (first
// seen), while ReadCSV and a Packed sort them.
func writeFirstSeen(t *testing.T, d *data.Dataset, dir string) string {
	t.Helper()
	for j := range d.NumVars() {
		one := -1
		for k, l := range d.Var(j).States {
			if l == "1" {
				one = k
			}
		}
		if one < 0 {
			t.Fatalf("column %s has no state 1", d.Var(j).Name)
		}
		col := d.Discrete(j)
		for i := 0; i < 10; i++ {
			col[i] = uint16(one)
		}
	}
	path := filepath.Join(dir, "d.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := data.WriteCSV(f, d); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFitEMSourceFirstSeenStates: blocks whose states are listed in
// first-seen order (["1", "0"]) give the fit of the rows in memory, both
// when the rows are compressed (few variables; files read with
// FirstBlockTyping, so that states grow from block to block) and when they
// are read on every pass (many variables), and FitSource's warm-up by scan
// works on them. Many variables: 70,000 rows in the long form (LATENTREE_LONG=1),
// 8,000 in the short.
func TestFitEMSourceFirstSeenStates(t *testing.T) {
	for _, c := range []struct {
		leaves, rows int
	}{{6, 3000}, {40, testenv.Pick(8000, 70000)}} {
		_, fresh, d := binSetting(t, 31, c.leaves, c.rows)
		path := writeFirstSeen(t, d, t.TempDir())
		var files data.Source = &data.Files{Paths: []string{path}, Options: data.BlockOptions{BlockRows: 10, FirstBlockTyping: true}}
		if c.leaves > 10 {
			// Many variables: blocks in memory whose states are listed as
			// ["1", "0"] (reading 10-row blocks from CSV is slow).
			var parts []*data.Dataset
			for _, sh := range shards(t, d, 7) {
				parts = append(parts, swapStates(t, sh))
			}
			files = &blocks{parts: parts}
		} else {
			// The first block has state "1" only.
			r, err := data.OpenBlocks([]string{path}, data.BlockOptions{BlockRows: 10, FirstBlockTyping: true})
			if err != nil {
				t.Fatal(err)
			}
			b1, _ := r.Next()
			b2, _ := r.Next()
			r.Close()
			if len(b1.Var(0).States) != 1 || b2.Var(0).States[0] != "1" {
				t.Fatalf("first blocks' states %v, %v", b1.Var(0).States, b2.Var(0).States)
			}
		}
		if err := fresh.InitSurrogate(d, 0); err != nil {
			t.Fatal(err)
		}
		opt := model.EMOptions{Accel: model.AccelNone, MaxIter: 8, Tol: 1e-300, Restarts: -1, Sample: -1}
		want := fresh.Clone()
		wr, err := want.FitEM(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		got := fresh.Clone()
		gr, err := got.FitEMSource(files, opt)
		if err != nil {
			t.Fatal(err)
		}
		if diff := relDiff(want, got); diff > 1e-9 || math.Abs(wr.LogLik-gr.LogLik) > 1e-9*math.Abs(wr.LogLik) || gr.Rows != c.rows {
			t.Errorf("%d leaves: differ by %g; loglik %v vs %v; rows %d", c.leaves, diff, wr.LogLik, gr.LogLik, gr.Rows)
		}
		st, err := stats.ComputeSource(files, stats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, fr, err := discrete.FitSource(fresh.Tree, files, st, model.FitOptions{EM: model.EMOptions{Sample: c.rows / 20}})
		if err != nil {
			t.Fatalf("%d leaves: FitSource with warm-up by scan: %v", c.leaves, err)
		}
		if fr.Rows != c.rows {
			t.Errorf("FitSource rows %d", fr.Rows)
		}
	}
}

// TestScanSamplerRowCount: FitSource with a warm-up by scan refuses a
// source with more rows than its statistics.
func TestScanSamplerRowCount(t *testing.T) {
	_, fresh, d := binSetting(t, 8, 40, 70000)
	parts := shards(t, d, 5)
	st, err := stats.Compute(parts[0], stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Statistics of the first 14,000 rows, source of all 70,000.
	_, _, err = discrete.FitSource(fresh.Tree, &blocks{parts: parts}, st, model.FitOptions{EM: model.EMOptions{Sample: 2000}})
	if err == nil {
		t.Error("a source longer than its statistics was accepted")
	}
}

// swapStates returns d with the states of every binary column listed in
// reverse order (codes flipped to match).
func swapStates(t *testing.T, d *data.Dataset) *data.Dataset {
	t.Helper()
	vars := d.Vars()
	cols := make([][]uint16, len(vars))
	for j := range vars {
		if len(vars[j].States) != 2 {
			t.Fatalf("column %s is not binary", vars[j].Name)
		}
		vars[j].States = []string{vars[j].States[1], vars[j].States[0]}
		col := make([]uint16, d.NumRows())
		for i, c := range d.Discrete(j) {
			if c == data.Missing {
				col[i] = c
			} else {
				col[i] = 1 - c
			}
		}
		cols[j] = col
	}
	out, err := data.FromDiscrete(vars, cols)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestScanSamplerStateOrder: two sources holding the same rows (by
// label), one of whose blocks lists its states in another order. EM over
// the blocks, the compression and the statistics read every block by
// label, and so must the warm-up samples drawn by scan (FitSource over a
// source that cannot sample): they once copied raw codes, read with the
// last block's labels, and the samples and the first warm-up stage then
// differed between the two sources. The long form (LATENTREE_LONG=1) has
// 70,000 rows and samples of 2,000; the short form 10,000 rows and
// samples of 300.
func TestScanSamplerStateOrder(t *testing.T) {
	rows, sample := testenv.Pick(10000, 70000), testenv.Pick(300, 2000)
	_, fresh, d := binSetting(t, 8, 40, rows)
	parts := shards(t, d, 2)
	same := &blocks{parts: parts}
	mixed := &blocks{parts: []*data.Dataset{parts[0], swapStates(t, parts[1])}}
	st1, err := stats.ComputeSource(same, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st2, err := stats.ComputeSource(mixed, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st1.Pair(0, 1, nil)[1] != st2.Pair(0, 1, nil)[1] {
		t.Fatal("statistics differ")
	}
	opt := model.FitOptions{EM: model.EMOptions{Sample: sample}}
	_, r1, err := discrete.FitSource(fresh.Tree, same, st1, opt)
	if err != nil {
		t.Fatal(err)
	}
	_, r2, err := discrete.FitSource(fresh.Tree, mixed, st2, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.Stages) == 0 || len(r2.Stages) == 0 {
		t.Fatalf("no warm-up stages: %+v, %+v", r1.Stages, r2.Stages)
	}
	if r1.Stages[0].LogLik != r2.Stages[0].LogLik {
		t.Errorf("first warm-up stage: loglik %v on consistent blocks, %v on blocks with another state order", r1.Stages[0].LogLik, r2.Stages[0].LogLik)
	}
}
