package learn_test

import (
	"math"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// parts is a Source of consecutive row blocks of a dataset that cannot
// give them back as one Dataset (not a learn.Materializer).
type parts []*data.Dataset

func (p parts) Scan(fn func(*data.Dataset) error) error {
	for _, d := range p {
		if err := fn(d); err != nil {
			return err
		}
	}
	return nil
}

func split(t *testing.T, d *data.Dataset, n int) parts {
	t.Helper()
	var out parts
	rows := d.NumRows()
	for i := 0; i < n; i++ {
		var idx []int
		for r := i * rows / n; r < (i+1)*rows/n; r++ {
			idx = append(idx, r)
		}
		s, err := d.Rows(idx)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestLearnSourceMatchesLearn: on a source of row blocks, LearnSource
// learns the tree Learn learns with the threshold rule and fits the same
// parameters (fixed plain EM iterations: 1e-9) and score.
func TestLearnSourceMatchesLearn(t *testing.T) {
	_, d := truth()
	opt := learn.Options{Contract: learn.ContractOptions{Rule: learn.ContractThreshold},
		Fit: model.FitOptions{EM: model.EMOptions{Accel: model.AccelNone, MaxIter: 30, Tol: 1e-300}}}
	want, err := learn.Learn(d, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := learn.LearnSource(split(t, d, 4), opt)
	if err != nil {
		t.Fatal(err)
	}
	rf, err := tree.RobinsonFoulds(want.Tree, got.Tree)
	if err != nil || rf.RF != 0 || got.Tree.NumHidden() != want.Tree.NumHidden() {
		t.Fatalf("trees differ: RF %+v (%v), hidden %d vs %d", rf, err, got.Tree.NumHidden(), want.Tree.NumHidden())
	}
	if got.Rows != d.NumRows() || want.Rows != d.NumRows() {
		t.Errorf("rows %d and %d, want %d", got.Rows, want.Rows, d.NumRows())
	}
	if math.Abs(got.Score.LogLik-want.Score.LogLik) > 1e-9*math.Abs(want.Score.LogLik) || math.Abs(got.Score.BIC-want.Score.BIC) > 1e-6 {
		t.Errorf("scores differ: %+v vs %+v", got.Score, want.Score)
	}
	// The default rule on a source that cannot give its rows: threshold.
	def, err := learn.LearnSource(split(t, d, 3), learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if def.ContractRule != learn.ContractThreshold || def.Contraction != nil {
		t.Errorf("default rule on a source: %v", def.ContractRule)
	}
}

// TestLearnSourceRefuses: what needs the rows in memory is an error
// naming it when the source cannot give them, and continuous data
// cannot be fitted from a source.
func TestLearnSourceRefuses(t *testing.T) {
	_, d := truth()
	src := split(t, d, 2)
	for _, c := range []struct {
		opt  learn.Options
		want string
	}{
		{learn.Options{Contract: learn.ContractOptions{Rule: learn.ContractBIC}}, "contraction by bic"},
		{learn.Options{Method: learn.Quartet}, "method quartet"},
		{learn.Options{Fit: model.FitOptions{AutoStates: true}}, "hidden states"},
	} {
		if _, err := learn.LearnSource(src, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error about %q", c.opt, err, c.want)
		}
	}
	if _, err := learn.LearnSource(nil, learn.Options{}); err == nil {
		t.Error("nil source accepted")
	}
}
