package learn_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/tree"
)

// TestLearnSourcePacked: on a data.Packed (a Materializer) within
// the BIC budget, ContractAuto searches by BIC on the rows, as Learn does;
// above the budget it contracts by threshold and the score from EM's last
// pass equals the score of the model on the rows.
func TestLearnSourcePacked(t *testing.T) {
	_, d := truth()
	p, err := data.Pack(d)
	if err != nil {
		t.Fatal(err)
	}
	want, err := learn.Learn(d, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := learn.LearnSource(p, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ContractRule != want.ContractRule || (got.Contraction == nil) != (want.Contraction == nil) || got.Rows != d.NumRows() {
		t.Errorf("rule %v (contraction %v), Learn %v; rows %d", got.ContractRule, got.Contraction != nil, want.ContractRule, got.Rows)
	}
	if rf, err := tree.RobinsonFoulds(want.Tree, got.Tree); err != nil || rf.RF != 0 {
		t.Errorf("trees differ: %+v %v", rf, err)
	}
	if math.Abs(got.Score.LogLik-want.Score.LogLik) > 1e-9*math.Abs(want.Score.LogLik) {
		t.Errorf("scores %v vs %v", got.Score.LogLik, want.Score.LogLik)
	}
	// Above the budget: threshold, score from EM.
	small := learn.Options{Contract: learn.ContractOptions{AutoBudget: 1}}
	th, err := learn.LearnSource(p, small)
	if err != nil {
		t.Fatal(err)
	}
	if th.ContractRule != learn.ContractThreshold || th.Rows != d.NumRows() {
		t.Errorf("above budget: rule %v rows %d", th.ContractRule, th.Rows)
	}
	sc, err := th.Model.Score(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(sc.LogLik-th.Score.LogLik) > 1e-9*math.Abs(sc.LogLik) || sc.Rows != th.Score.Rows || sc.Params != th.Score.Params || math.Abs(sc.BIC-th.Score.BIC) > 1e-6 {
		t.Errorf("score from EM %+v, on the rows %+v", th.Score, sc)
	}
	// The same with 1 and 3 workers.
	o1, o3 := small, small
	o1.Workers, o1.Fit.EM.Workers = 1, 1
	o3.Workers, o3.Fit.EM.Workers = 3, 3
	a, err := learn.LearnSource(p, o1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := learn.LearnSource(p, o3)
	if err != nil {
		t.Fatal(err)
	}
	if a.Score.LogLik != b.Score.LogLik || !reflect.DeepEqual(a.Model.(*discrete.Model).CPT, b.Model.(*discrete.Model).CPT) {
		t.Errorf("1 worker: %v, 3 workers: %v", a.Score.LogLik, b.Score.LogLik)
	}
}
