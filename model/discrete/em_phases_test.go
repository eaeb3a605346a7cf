package discrete_test

import (
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/simulate"
)

// TestEMPhases checks EMResult.Phases against the rest of the result: the
// final run's E-steps are Iterations, the warm-up's the sum of the
// stages', and the restart phase's at most Restarts × RestartIter (zero
// with one start), in memory and from a packed source (40 variables: too many distinct
// rows for FitEMSource to merge them, so that it warms up).
func TestEMPhases(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tr, err := simulate.RandomBinary(rng, 40, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	md, err := simulate.Symmetric(rng, tr, simulate.SymmetricOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := md.Sample(rand.NewPCG(5, 6), 2000)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := data.Pack(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ restarts, iter, sample int }{{-1, 0, -1}, {3, 4, -1}, {3, 4, 250}, {-1, 0, 125}} {
		for _, packed := range []bool{false, true} {
			m := md.Clone()
			m.Randomize(rand.NewPCG(7, 8))
			opt := model.EMOptions{Restarts: c.restarts, RestartIter: c.iter, Sample: c.sample, MaxIter: 40}
			var res *model.EMResult
			if packed {
				res, err = m.FitEMSource(pk, opt)
			} else {
				res, err = m.FitEM(d, opt)
			}
			if err != nil {
				t.Fatal(err)
			}
			ph := res.Phases
			if ph.Full.ESteps != res.Iterations || ph.Full.ESteps == 0 {
				t.Errorf("%+v packed %v: full phase %d E-steps, Iterations %d", c, packed, ph.Full.ESteps, res.Iterations)
			}
			st := 0
			for _, s := range res.Stages {
				st += s.Iterations
			}
			if ph.Sample.ESteps != st || (c.sample > 0) != (st > 0) {
				t.Errorf("%+v packed %v: sample phase %d E-steps, stages %d", c, packed, ph.Sample.ESteps, st)
			}
			if r := ph.Restarts.ESteps; c.restarts > 0 && (r < 1 || r > c.restarts*c.iter) || c.restarts < 0 && r != 0 {
				t.Errorf("%+v packed %v: restart phase %d E-steps", c, packed, r)
			}
			if ph.ESteps() != ph.Restarts.ESteps+st+res.Iterations {
				t.Errorf("%+v packed %v: ESteps %d", c, packed, ph.ESteps())
			}
			if !(ph.Full.Seconds > 0) || ph.Sample.Seconds < 0 || ph.Restarts.Seconds < 0 || (st > 0) != (ph.Sample.Seconds > 0) {
				t.Errorf("%+v packed %v: times %+v", c, packed, ph)
			}
		}
	}
}
