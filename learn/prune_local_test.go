package learn

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/testenv"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/simulate"
)

// TestContractLocalVsRefit: on binary symmetric models on random trees
// (12–24 observed variables, 200–10,000 rows, fixed seeds), the BIC of
// the local search's result (the default) is at most that of the search
// that refits every candidate (PruneOptions.Refit) plus 1 from 1,000 rows
// on, that is at least the refitting search's minus 0.5 in the paper's
// convention (log L − κ log n / 2), plus 4 at 200 rows, no higher on
// average over the trees, and at most the BIC of the input tree and of the
// Chow–Liu tree, each fitted by model.Fit (both searches get the Chow–Liu
// tree as baseline). 10 trees by default but tree 3, 50 with
// LATENTREE_LONG=1. Tree 3 (24 observed, 10,000 rows) took 40% of the
// short form's time and neither search contracts a hidden node on it;
// tree 7 stays for 10,000 rows.
func TestContractLocalVsRefit(t *testing.T) {
	trees := testenv.Pick(10, 50)
	rowsOf := []int{200, 1000, 3000, 10000}
	var local, refit time.Duration
	worse, diff, ran := 0, 0.0, 0
	for i := range trees {
		if i == 3 && !testenv.Long() {
			continue
		}
		ran++
		rng := rand.New(rand.NewPCG(uint64(i), 25))
		n := 12 + rng.IntN(13)
		rows := rowsOf[i%len(rowsOf)]
		tr, err := simulate.RandomBinary(rng, n, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		m, err := simulate.Symmetric(rng, tr, simulate.SymmetricOptions{ThetaMin: 0.05, ThetaMax: 0.25})
		if err != nil {
			t.Fatal(err)
		}
		d, err := m.Sample(rng, rows)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("tree %d (%d observed, %d rows)", i, n, rows)
		lr, rr := searchBoth(t, name, d, 1e-6, &local, &refit)
		// At 200 rows the local scores (a lower bound with the rest held)
		// keep a hidden node or two more on a few trees, and the Chow–Liu
		// tree wins instead: 3 of the 50 long-run trees, by up to 3.3.
		tol := 1.0
		if rows < 1000 {
			tol = 4
		}
		if lr.BIC > rr.BIC+tol {
			t.Errorf("%s: local search BIC %.2f, refitting search %.2f", name, lr.BIC, rr.BIC)
		}
		if lr.BIC > rr.BIC+1 {
			worse++
		}
		diff += lr.BIC - rr.BIC
	}
	t.Logf("local search's BIC above the refitting one's + 1 on %d of %d trees, %+.2f per tree on average; time local %v, refit %v", worse, ran, diff/float64(ran), local, refit)
	if diff > 0 {
		t.Errorf("local search's BIC above the refitting one's by %.2f per tree on average", diff/float64(ran))
	}
}

// searchBoth runs the local search (the default) and the refitting one
// (PruneOptions.Refit) from the uncontracted NJ tree of d, both with the
// Chow–Liu tree as baseline, adds their times to local and refit, and
// checks what TestContractLocalVsRefit and TestContractGaussianVsRefit
// both want: the local result's BIC is at most the input tree's and at
// most the Chow–Liu tree's fitted by model.Fit (relative tolerance clTol).
func searchBoth(t *testing.T, name string, d *data.Dataset, clTol float64, local, refit *time.Duration) (lr, rr *PruneResult) {
	t.Helper()
	nj, cl := njUncontracted(t, d)
	t0 := time.Now()
	lr, err := ContractByBIC(nj, d, model.FitOptions{}, PruneOptions{}, cl)
	if err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	rr, err = ContractByBIC(nj, d, model.FitOptions{}, PruneOptions{Refit: true}, cl)
	if err != nil {
		t.Fatal(err)
	}
	*local, *refit = *local+t1.Sub(t0), *refit+time.Since(t1)
	if lr.BIC > lr.InitialBIC+1e-6 {
		t.Errorf("%s: local search BIC %.2f above the input tree's %.2f", name, lr.BIC, lr.InitialBIC)
	}
	fc, _, err := model.Fit(cl.Clone(), d, model.FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := fc.Score(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lr.BIC > sc.BIC+clTol*sc.BIC {
		t.Errorf("%s: local search BIC %.2f above the Chow–Liu tree's %.2f", name, lr.BIC, sc.BIC)
	}
	t.Logf("%s: BIC local %.2f (%d kept of %d scored), refit %.2f (%d of %d)", name, lr.BIC, lr.Contracted, lr.Evaluated, rr.BIC, rr.Contracted, rr.Evaluated)
	return lr, rr
}
