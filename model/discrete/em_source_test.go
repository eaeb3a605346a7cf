package discrete_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/testenv"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/stats"
)

// binSetting samples n rows of a random binary latent tree model with the
// given number of leaves, and returns it with a fresh model on its tree
// started at the surrogate start.
func binSetting(t testing.TB, seed uint64, leaves, n int) (truth, fresh *discrete.Model, d *data.Dataset) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 5))
	tr, err := simulate.RandomBinary(rng, leaves, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if truth, err = simulate.General(rng, tr, simulate.GeneralOptions{ObservedStates: 2, HiddenStates: 2}); err != nil {
		t.Fatal(err)
	}
	if d, err = truth.Sample(rng, n); err != nil {
		t.Fatal(err)
	}
	if fresh, err = discrete.ForData(tr, d, 2); err != nil {
		t.Fatal(err)
	}
	if err := fresh.InitSurrogate(d, 0); err != nil {
		t.Fatal(err)
	}
	return truth, fresh, d
}

// blocks is a Source of fixed datasets; fail, when positive, makes the
// fail-th pass fail.
type blocks struct {
	parts  []*data.Dataset
	passes int
	fail   int
}

var errPass = errors.New("disk gone")

func (b *blocks) Scan(fn func(*data.Dataset) error) error {
	b.passes++
	if b.passes == b.fail {
		return errPass
	}
	for _, p := range b.parts {
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}

// punch sets about frac of the cells of d missing.
func punch(d *data.Dataset, frac float64, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 9))
	for j := 0; j < d.NumVars(); j++ {
		col := d.Discrete(j)
		for i := range col {
			if rng.Float64() < frac {
				col[i] = data.Missing
			}
		}
	}
}

// TestFitEMSourceEqualsFitEM: EM over a source read in blocks (in memory,
// and CSV files re-read on every pass) follows FitEM step for step: same
// rows, same start, fixed number of plain EM iterations, parameters equal
// to 1e-9 (only the order of the sums differs). Binary and 4-state
// models, with missing cells.
func TestFitEMSourceEqualsFitEM(t *testing.T) {
	opt := model.EMOptions{Accel: model.AccelNone, MaxIter: 25, Tol: 1e-300, Restarts: -1, Sample: -1}
	check := func(t *testing.T, fresh *discrete.Model, d *data.Dataset) {
		want := fresh.Clone()
		wr, err := want.FitEM(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		mem := fresh.Clone()
		mr, err := mem.FitEMSource(&blocks{parts: shards(t, d, 7)}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if mr.DistinctRows != wr.DistinctRows {
			t.Errorf("blocks in memory: %d distinct rows, FitEM %d", mr.DistinctRows, wr.DistinctRows)
		}
		if diff := relDiff(want, mem); diff > 1e-9 {
			t.Errorf("blocks in memory: parameters differ by %g from FitEM", diff)
		}
		if math.Abs(wr.LogLik-mr.LogLik) > 1e-9*math.Abs(wr.LogLik) || mr.Rows != d.NumRows() {
			t.Errorf("blocks in memory: loglik %v rows %d, FitEM %v rows %d", mr.LogLik, mr.Rows, wr.LogLik, d.NumRows())
		}
		dir := t.TempDir()
		for i, p := range shards(t, d, 3) {
			f, err := os.Create(filepath.Join(dir, "part"+string(rune('0'+i))+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			if err := data.WriteCSV(f, p); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		files := fresh.Clone()
		fr, err := files.FitEMSource(&data.Files{Paths: []string{dir}, Options: data.BlockOptions{BlockRows: 1000, ReadOptions: data.ReadOptions{Missing: data.MissingKeep}}}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if diff := relDiff(want, files); diff > 1e-9 {
			t.Errorf("CSV shards: parameters differ by %g from FitEM", diff)
		}
		if fr.Iterations != wr.Iterations || fr.Rows != d.NumRows() {
			t.Errorf("CSV shards: %d iterations on %d rows, FitEM %d on %d", fr.Iterations, fr.Rows, wr.Iterations, d.NumRows())
		}
	}
	t.Run("binary", func(t *testing.T) {
		_, fresh, d := binSetting(t, 1, 12, 6000)
		punch(d, 0.03, 1)
		check(t, fresh, d)
	})
	t.Run("many-distinct", func(t *testing.T) {
		// Rows nearly all distinct: no compression, EM reads the
		// source on every pass. The short form has 5,000 rows, where
		// compression gives up at the end of its pass (more than half
		// the rows distinct); the long form 70,000, where it gives up
		// after its probe of 65,536 rows.
		_, fresh, d := binSetting(t, 7, 40, testenv.Pick(5000, 70000))
		check(t, fresh, d)
	})
	t.Run("four-states", func(t *testing.T) {
		_, fresh, d := emSetting(t, 2, 0.4, 5000)
		if err := fresh.InitSurrogate(d, 0); err != nil {
			t.Fatal(err)
		}
		punch(d, 0.03, 2)
		check(t, fresh, d)
	})
}

// TestFitEMSourceError: an error of the source on a later pass ends EM
// with that error.
func TestFitEMSourceError(t *testing.T) {
	_, fresh, d := binSetting(t, 3, 8, 500)
	src := &blocks{parts: shards(t, d, 2), fail: 1}
	if _, err := fresh.FitEMSource(src, model.EMOptions{Restarts: -1}); !errors.Is(err, errPass) {
		t.Fatalf("few distinct rows: got %v, want the source's error", err)
	}
	// Many distinct rows: EM reads the source on every pass, and the
	// third pass fails.
	_, fresh, d = binSetting(t, 3, 40, 70000)
	src = &blocks{parts: shards(t, d, 2), fail: 3}
	if _, err := fresh.FitEMSource(src, model.EMOptions{Restarts: -1}); !errors.Is(err, errPass) {
		t.Fatalf("many distinct rows: got %v, want the source's error", err)
	}
	if _, err := fresh.FitEMSource(&blocks{}, model.EMOptions{Restarts: -1}); err == nil {
		t.Fatal("a source without rows was accepted")
	}
}

// TestFitEMWarmUp: warming EM up on samples (EMOptions.Sample) ends at a
// fixed point of EM on all rows (the final run converges) whose
// log-likelihood is within 0.005 nat per row of EM run on all rows from
// the start, on random binary trees with 30 leaves, with the stages
// reported. The long form (LATENTREE_LONG=1) runs 3 trees on 40,000 rows
// with samples of 1,000 and 8,000 rows; the short form the two quicker of
// them on 10,000 rows with samples of 300 and 2,400 (the third needs 700
// E-steps from the surrogate start on 10,000 rows). The tolerance is per
// row and the same for both: the smaller warm-up samples leave EM further
// from the fixed point on all rows (a final run cut to one E-step ends
// 0.004–0.005 nat per row below on the short form, 0.002–0.003 on the
// long; the convergence check catches it on both). (Its speed-up is
// measured by BenchmarkFitEMWarmUp, not here.)
func TestFitEMWarmUp(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	seeds := testenv.Pick([]uint64{2, 3}, []uint64{1, 2, 3})
	rows, sample := testenv.Pick(10000, 40000), testenv.Pick(300, 1000)
	for _, seed := range seeds {
		_, fresh, d := binSetting(t, 10+seed, 30, rows)
		direct := fresh.Clone()
		dr, err := direct.FitEM(d, model.EMOptions{Restarts: -1})
		if err != nil {
			t.Fatal(err)
		}
		warm := fresh.Clone()
		wr, err := warm.FitEM(d, model.EMOptions{Restarts: -1, Sample: sample})
		if err != nil {
			t.Fatal(err)
		}
		if len(wr.Stages) != 2 || wr.Stages[0].Rows != sample || wr.Stages[1].Rows != 8*sample {
			t.Fatalf("seed %d: stages %+v, want samples of %d and %d rows", seed, wr.Stages, sample, 8*sample)
		}
		gap := (dr.LogLik - wr.LogLik) / float64(d.NumRows())
		t.Logf("seed %d: direct %d E-steps loglik %.2f; warm %d E-steps after stages %+v, loglik %.2f (%.2g nat/row below)",
			seed, dr.Iterations, dr.LogLik, wr.Iterations, wr.Stages, wr.LogLik, gap)
		if gap > 0.005 || !wr.Converged {
			t.Errorf("seed %d: warm-up ends %.3g nat per row below direct EM (final run converged: %v)", seed, gap, wr.Converged)
		}
	}
}

// TestFitSourceMatchesFit: FitSource from statistics and a source of
// blocks starts where Fit starts (InitSurrogateStats equals InitSurrogate)
// and ends at the same parameters (1e-9) and score.
func TestFitSourceMatchesFit(t *testing.T) {
	_, fresh, d := binSetting(t, 4, 10, 3000)
	punch(d, 0.02, 4)
	st, err := stats.Compute(d, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := fresh.Clone(), fresh.Clone()
	if err := a.InitSurrogate(d, 0); err != nil {
		t.Fatal(err)
	}
	if err := b.InitSurrogateStats(st, 0); err != nil {
		t.Fatal(err)
	}
	if diff := relDiff(a, b); diff > 1e-12 {
		t.Fatalf("surrogate start from statistics differs by %g", diff)
	}
	fit := model.FitOptions{EM: model.EMOptions{Accel: model.AccelNone, MaxIter: 20, Tol: 1e-300}}
	want, _, err := model.Fit(fresh.Tree, d, fit)
	if err != nil {
		t.Fatal(err)
	}
	got, res, err := discrete.FitSource(fresh.Tree, &blocks{parts: shards(t, d, 3)}, st, fit)
	if err != nil {
		t.Fatal(err)
	}
	if diff := relDiff(want.(*discrete.Model), got); diff > 1e-9 {
		t.Errorf("FitSource differs from Fit by %g", diff)
	}
	ws, err := want.Score(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gs, err := got.ScoreSource(&blocks{parts: shards(t, d, 5)}, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ws.BIC-gs.BIC) > 1e-6 || gs.Rows != ws.Rows || math.Abs(got.ScoreOf(res.LogLik, res.Rows).BIC-gs.BIC) > 1e-6 {
		t.Errorf("scores differ: Score %+v, ScoreSource %+v", ws, gs)
	}
	if _, _, err := discrete.FitSource(fresh.Tree, d, st, model.FitOptions{AutoStates: true}); err == nil {
		t.Error("AutoStates from a source was accepted")
	}
}

// TestFitSourceWarmUpByScan: over a source that cannot sample (files, or
// here blocks in memory), FitSource draws each warm-up sample in one pass,
// the stages are reported, and EM ends within 0.001 nat per row of EM on
// the rows in memory without warm-up. The long form (LATENTREE_LONG=1)
// has 70,000 rows and samples of 2,000 and 16,000; the short form 10,000
// rows and samples of 300 and 2,400.
func TestFitSourceWarmUpByScan(t *testing.T) {
	rows, sample := testenv.Pick(10000, 70000), testenv.Pick(300, 2000)
	_, fresh, d := binSetting(t, 8, 40, rows)
	st, err := stats.Compute(d, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, dr, err := model.Fit(fresh.Tree, d, model.FitOptions{EM: model.EMOptions{Sample: -1}})
	if err != nil {
		t.Fatal(err)
	}
	src := &blocks{parts: shards(t, d, 5)}
	got, gr, err := discrete.FitSource(fresh.Tree, src, st, model.FitOptions{EM: model.EMOptions{Sample: sample}})
	if err != nil {
		t.Fatal(err)
	}
	if len(gr.Stages) != 2 || gr.Stages[0].Rows != sample || gr.Stages[1].Rows != 8*sample {
		t.Fatalf("stages %+v, want samples of %d and %d rows", gr.Stages, sample, 8*sample)
	}
	if gap := (dr.LogLik - gr.LogLik) / float64(rows); gap > 0.001 || gr.Rows != rows {
		t.Errorf("warm-up by scan ends %.3g nat per row below direct EM (%d rows)", gap, gr.Rows)
	}
	if err := got.Validate(); err != nil {
		t.Fatal(err)
	}
	// A source with fewer rows than its statistics say is an error.
	short := &blocks{parts: shards(t, d, 5)[:4]}
	if _, _, err := discrete.FitSource(fresh.Tree, short, st, model.FitOptions{EM: model.EMOptions{Sample: sample}}); err == nil {
		t.Error("a source shorter than its statistics was accepted")
	}
}
