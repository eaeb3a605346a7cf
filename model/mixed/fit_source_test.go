package mixed

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
)

// blockSource is a data.Source giving the rows of d in blocks of n rows.
type blockSource struct {
	d *data.Dataset
	n int
}

func (s blockSource) Scan(fn func(*data.Dataset) error) error {
	rows := s.d.NumRows()
	for r0 := 0; r0 < rows; r0 += s.n {
		idx := make([]int, 0, s.n)
		for r := r0; r < min(rows, r0+s.n); r++ {
			idx = append(idx, r)
		}
		b, err := s.d.Rows(idx)
		if err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// sameFit reports the largest differences between two fits: of the
// log-likelihood (relative), of probabilities, means and coefficients
// (absolute) and of variances (relative).
func sameFit(t *testing.T, what string, a, b *Model, ra, rb *model.EMResult, tol float64) {
	t.Helper()
	if len(ra.Trace) != len(rb.Trace) || ra.Converged != rb.Converged || ra.Rows != rb.Rows || len(ra.Starts) != len(rb.Starts) {
		t.Fatalf("%s: %d E-steps (converged %v, %d rows, starts %v), in memory %d (%v, %d, %v)", what,
			len(rb.Trace), rb.Converged, rb.Rows, rb.Starts, len(ra.Trace), ra.Converged, ra.Rows, ra.Starts)
	}
	for i := range ra.Trace {
		if !near(ra.Trace[i], rb.Trace[i], tol) {
			t.Errorf("%s: E-step %d log-likelihood %.15g, in memory %.15g", what, i+1, rb.Trace[i], ra.Trace[i])
		}
	}
	p, mu, v := paramDiff(a, b)
	t.Logf("%s: %d E-steps, log-likelihood %.10f against %.10f; parameters differ by %.2g, %.2g, %.2g", what, len(ra.Trace), rb.LogLik, ra.LogLik, p, mu, v)
	if p > tol || mu > tol || v > tol {
		t.Errorf("%s: parameters differ by %g (probabilities), %g (means), %g (variances, relative)", what, p, mu, v)
	}
}

// TestFitSourceMatchesFit streams a sample with missing cells of both
// kinds, in blocks that are not multiples of the E-step's chunks, and
// from a CSV file re-read in blocks, and compares with the in-memory fit:
// the same start, the same number of E-steps, the same log-likelihood at
// every E-step and the same parameters, to 1e-9 (sums are added in
// another order, nothing else differs). Plain EM, SQUAREM and restarts.
func TestFitSourceMatchesFit(t *testing.T) {
	truth := recoveryTruth(t)
	d := sample(t, truth, rand.New(rand.NewPCG(40, 1)), 2000, 0.1)
	path := filepath.Join(t.TempDir(), "m.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := data.WriteCSV(f, d); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ropt := data.ReadOptions{Missing: data.MissingKeep}
	dm, _, err := data.ReadCSVFile(path, ropt)
	if err != nil {
		t.Fatal(err)
	}
	files := &data.Files{Paths: []string{path}, Options: data.BlockOptions{ReadOptions: ropt, BlockRows: 300}}
	for _, c := range []struct {
		name string
		opt  Options
	}{
		{"plain", Options{Accel: model.AccelNone, MaxIter: 15}},
		{"squarem", Options{MaxIter: 25}},
		{"restarts", Options{MaxIter: 20, Restarts: 1, RestartIter: 3, Src: rand.NewPCG(2, 2)}},
	} {
		want, wres, err := Fit(truth.Tree, d, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		got, res, err := FitSource(truth.Tree, blockSource{d, 700}, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		sameFit(t, c.name+", blocks of 700 rows", want, got, wres, res, 1e-9)
		wantF, wresF, err := Fit(truth.Tree, dm, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		gotF, resF, err := FitSource(truth.Tree, files, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		sameFit(t, c.name+", CSV file in blocks of 300 rows", wantF, gotF, wresF, resF, 1e-9)
		if c.name == "plain" {
			// Workers change nothing, bit for bit.
			o := c.opt
			o.Workers = 3
			_, res3, err := FitSource(truth.Tree, blockSource{d, 700}, o)
			if err != nil {
				t.Fatal(err)
			}
			if res3.LogLik != res.LogLik {
				t.Errorf("3 workers: log-likelihood %.17g, default %.17g", res3.LogLik, res.LogLik)
			}
			// The score of the source is that of the rows.
			ws, err := got.Score(d, model.InferOptions{})
			if err != nil {
				t.Fatal(err)
			}
			gs, err := got.ScoreSource(files, model.InferOptions{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if !near(gs.LogLik, ws.LogLik, 1e-12) || !near(gs.BIC, ws.BIC, 1e-12) || gs.Rows != ws.Rows || gs.Params != ws.Params {
				t.Errorf("ScoreSource %+v, Score %+v", gs, ws)
			}
			if !near(ws.LogLik, res.LogLik, 1e-9) {
				// (The fit's last E-step is at its final parameters.)
				t.Errorf("score %.15g, fit's log-likelihood %.15g", ws.LogLik, res.LogLik)
			}
		}
	}
}

// kindSource gives two blocks in which column c changes kind.
type kindSource struct{ a, b *data.Dataset }

func (s kindSource) Scan(fn func(*data.Dataset) error) error {
	if err := fn(s.a); err != nil {
		return err
	}
	return fn(s.b)
}

// TestFitSourceErrors checks the errors of sources FitSource cannot fit:
// a column that changes kind between blocks, a source of no rows, one that
// gives other rows on another pass, and sampling weights.
func TestFitSourceErrors(t *testing.T) {
	truth := recoveryTruth(t)
	d := sample(t, truth, rand.New(rand.NewPCG(41, 1)), 300, 0)
	vars := d.Vars()
	for j := range vars {
		if vars[j].Name == "c" {
			vars[j].Kind, vars[j].States = data.Discrete, []string{"0", "1"}
		}
	}
	other, err := data.New(vars, 200)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = FitSource(truth.Tree, kindSource{d, other}, Options{MaxIter: 3})
	if err == nil || !strings.Contains(err.Error(), `"c"`) || !strings.Contains(err.Error(), "rows 301–500") || !strings.Contains(err.Error(), "discrete") {
		t.Errorf("column changing kind: %v", err)
	}
	empty, err := data.New(d.Vars(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := FitSource(truth.Tree, empty, Options{}); err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("no rows: %v", err)
	}
	grow := &growing{d: d}
	if _, _, err := FitSource(truth.Tree, grow, Options{MaxIter: 3}); err == nil || !strings.Contains(err.Error(), "on one pass") {
		t.Errorf("rows changing between passes: %v", err)
	}
	w := make([]float64, d.NumRows())
	for i := range w {
		w[i] = 2
	}
	sw, err := d.Rows(allRows(d))
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.SetWeights(w, data.Sampling); err != nil {
		t.Fatal(err)
	}
	if _, _, err := FitSource(truth.Tree, sw, Options{}); err == nil || !strings.Contains(err.Error(), "sampling weights") {
		t.Errorf("sampling weights: %v", err)
	}
	if _, _, err := FitSource(truth.Tree, nil, Options{}); err == nil {
		t.Error("nil source accepted")
	}
	if _, err := truth.ScoreSource(kindSource{d, other}, model.InferOptions{}); err == nil || !strings.Contains(err.Error(), `"c"`) {
		t.Errorf("ScoreSource, column changing kind: %v", err)
	}
}

// growing gives one more row on every pass.
type growing struct {
	d      *data.Dataset
	passes int
}

func (g *growing) Scan(fn func(*data.Dataset) error) error {
	g.passes++
	idx := make([]int, min(g.d.NumRows(), 100+g.passes))
	for i := range idx {
		idx[i] = i
	}
	b, err := g.d.Rows(idx)
	if err != nil {
		return err
	}
	return fn(b)
}

// TestFitSourceFrequencyWeights checks that frequency weights count as in
// Fit.
func TestFitSourceFrequencyWeights(t *testing.T) {
	truth := recoveryTruth(t)
	d := sample(t, truth, rand.New(rand.NewPCG(42, 1)), 600, 0.1)
	rng := rand.New(rand.NewPCG(43, 1))
	w := make([]float64, d.NumRows())
	for i := range w {
		w[i] = float64(rng.IntN(4))
	}
	dw := d
	if err := dw.SetWeights(w, data.Frequency); err != nil {
		t.Fatal(err)
	}
	opt := Options{MaxIter: 10}
	want, wres, err := Fit(truth.Tree, dw, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, res, err := FitSource(truth.Tree, blockSource{dw, 250}, opt)
	if err != nil {
		t.Fatal(err)
	}
	sameFit(t, "frequency weights", want, got, wres, res, 1e-9)
	ws, _ := want.Score(dw, model.InferOptions{})
	gs, err := want.ScoreSource(blockSource{dw, 250}, model.InferOptions{})
	if err != nil || !near(gs.LogLik, ws.LogLik, 1e-12) || !near(gs.BIC, ws.BIC, 1e-12) || gs.N != ws.N {
		t.Errorf("weighted ScoreSource %+v, Score %+v (%v)", gs, ws, err)
	}
}

func allRows(d *data.Dataset) []int {
	idx := make([]int, d.NumRows())
	for i := range idx {
		idx[i] = i
	}
	return idx
}
