package quartetlearn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/latentree/latentree/noisyor"
)

// sampleBinary draws rows from n and blanks each cell with probability
// miss.
func sampleBinary(t testing.TB, n *noisyor.Network, seed uint64, rows int, miss float64) *noisyor.Binary {
	t.Helper()
	d, err := n.Sample(rand.NewPCG(seed, 99), rows)
	if err != nil {
		t.Fatal(err)
	}
	b, err := noisyor.NewBinary(d)
	if err != nil {
		t.Fatal(err)
	}
	if miss > 0 {
		rng := rand.New(rand.NewPCG(seed, 7))
		for a := range b.Names {
			for r := range b.Rows {
				if rng.Float64() < miss {
					w, bit := r>>6, uint64(1)<<(r&63)
					b.Ones[a][w] &^= bit
					b.Zeros[a][w] &^= bit
					b.Missing[a]++
				}
			}
		}
	}
	return b
}

// maxErr returns the largest errors of the priors, failures and leaks of
// got against want (sources and edges in the same order).
func maxErr(want, got *noisyor.Network) (prior, fail, leak float64) {
	for s, src := range want.Sources {
		prior = math.Max(prior, math.Abs(got.Sources[s].Prior-src.Prior))
		for i, c := range src.Children {
			fail = math.Max(fail, math.Abs(got.Sources[s].Children[i].Failure-c.Failure))
		}
	}
	for a := range want.Effects {
		leak = math.Max(leak, math.Abs(got.LeakOf(a)-want.LeakOf(a)))
	}
	return
}

// TestFitEMAfterLearn polishes what Learn finds on the image network at
// 10,000 rows: the same edges, and failures closer to the truth than the
// moments estimates.
func TestFitEMAfterLearn(t *testing.T) {
	if testing.Short() {
		t.Skip("learns a network")
	}
	truth := noisyor.ImageNetwork()
	b := sampleBinary(t, truth, 2, 10_000, 0)
	lr, err := Learn(b, Options{Polish: PolishNone})
	if err != nil {
		t.Fatal(err)
	}
	fit, res, err := lr.Network.FitEM(b, noisyor.EMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mom, em float64
	matched := 0
	for _, ws := range truth.Sources {
		for j, ls := range lr.Network.Sources {
			if !slices.EqualFunc(ws.Children, ls.Children, func(x, y noisyor.Child) bool { return x.Effect == y.Effect }) {
				continue
			}
			matched++
			for k, c := range ws.Children {
				mom = math.Max(mom, math.Abs(ls.Children[k].Failure-c.Failure))
				em = math.Max(em, math.Abs(fit.Sources[j].Children[k].Failure-c.Failure))
			}
			if fit.Sources[j].Learned == nil || *fit.Sources[j].Learned != *ls.Learned {
				t.Errorf("source %s: provenance not kept", ls.Name)
			}
		}
	}
	t.Logf("learned %d sources (%d matched); max failure error: moments %.4f, after %d EM updates %.4f (%v)", len(lr.Network.Sources), matched, mom, res.Iterations, em, res.Duration.Round(time.Millisecond))
	if matched != len(truth.Sources) || len(lr.Network.Sources) != len(truth.Sources) {
		t.Fatalf("learned %d sources, %d of them true; the test needs the true structure", len(lr.Network.Sources), matched)
	}
	if em > 0.025 || em >= mom {
		t.Errorf("max failure error %v after EM, %v before", em, mom)
	}
	// Learn's default polish is this fit.
	def, err := Learn(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if def.Polish == nil || def.Moments == nil {
		t.Fatalf("default Learn did not polish: %q", def.PolishSkipped)
	}
	if p, f, l := maxErr(fit, def.Network); p > 1e-12 || f > 1e-12 || l > 1e-12 {
		t.Errorf("default polish differs from FitEM by prior %v, failure %v, leak %v", p, f, l)
	}
}
