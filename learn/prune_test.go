package learn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

// starData samples n rows of a model on a star of 8 observed variables
// around one hidden variable: Gaussian, or binary symmetric.
func starData(t *testing.T, gaussian bool, n int, seed uint64) *data.Dataset {
	t.Helper()
	tr, err := simulate.Star(8)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	var d *data.Dataset
	if gaussian {
		g, err := simulate.Gaussian(rng, tr, simulate.GaussianOptions{RhoMin: 0.5, RhoMax: 0.8})
		if err != nil {
			t.Fatal(err)
		}
		d, err = g.Sample(rng, n)
		if err != nil {
			t.Fatal(err)
		}
	} else {
		m, err := simulate.Symmetric(rng, tr, simulate.SymmetricOptions{ThetaMin: 0.05, ThetaMax: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		d, err = m.Sample(rng, n)
		if err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// njUncontracted learns an NJ tree without any contraction, and the
// Chow–Liu tree.
func njUncontracted(t *testing.T, d *data.Dataset) (nj, cl *tree.Tree) {
	t.Helper()
	st, err := stats.Compute(d, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dm, _, err := distance.Information(st, distance.InfoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nj, _, err = structure.Learn(dm, structure.Options{Method: structure.MethodNJ, Contract: -1, KeepHiddenEdges: true})
	if err != nil {
		t.Fatal(err)
	}
	mi, err := distance.MutualInformation(st, 0)
	if err != nil {
		t.Fatal(err)
	}
	cl, err = structure.ChowLiu(st.Names(), mi)
	if err != nil {
		t.Fatal(err)
	}
	return nj, cl
}

// TestContractByBICStar: neighbor joining resolves the star into a binary
// tree of 6 hidden nodes joined by edges of true length 0. ContractByBIC
// must lower the BIC, end at or below the BIC of both the uncontracted
// tree and the Chow–Liu tree (each fitted by model.Fit), report the BIC of
// the model it returns, and recover the single hidden variable (fixed
// seeds; 2,000 rows). On the Gaussian sample the single hidden variable
// scores 4.04 nat lower in log-likelihood than two (fitted to
// convergence), which BIC at 2,000 rows (a penalty of log 2000 / 2 = 3.8
// per edge) prefers: the local search, whose candidate scores are exact
// there, keeps two, with a BIC at most that of the star (the refitting
// search, scoring candidates by 5 iterations of EM, kept one).
func TestContractByBICStar(t *testing.T) {
	for _, gaussian := range []bool{true, false} {
		d := starData(t, gaussian, 2000, 7)
		nj, cl := njUncontracted(t, d)
		if nj.NumHidden() != 6 {
			t.Fatalf("NJ tree has %d hidden nodes, want 6", nj.NumHidden())
		}
		res, err := ContractByBIC(nj, d, model.FitOptions{}, PruneOptions{Workers: 2}, cl)
		if err != nil {
			t.Fatal(err)
		}
		bic := func(tr *tree.Tree, opt model.FitOptions) float64 {
			m, _, err := model.Fit(tr.Clone(), d, opt)
			if err != nil {
				t.Fatal(err)
			}
			s, err := m.Score(d, model.InferOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return s.BIC
		}
		sc, err := res.Model.Score(d, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(sc.BIC-res.BIC) > 1e-6*math.Abs(sc.BIC) {
			t.Errorf("gaussian %v: reported BIC %g, model's %g", gaussian, res.BIC, sc.BIC)
		}
		// The search fits the Gaussian input tree by SQUAREM with the
		// relative-change rule.
		search := model.FitOptions{}
		if gaussian {
			search.EM.Stop = model.StopRelative
		}
		b0, bcl := bic(nj, search), bic(cl, model.FitOptions{})
		if math.Abs(b0-res.InitialBIC) > 1e-6*math.Abs(b0) {
			t.Errorf("gaussian %v: initial BIC %g, model.Fit's %g", gaussian, res.InitialBIC, b0)
		}
		if !(res.BIC < b0) || res.BIC > bcl {
			t.Errorf("gaussian %v: BIC %g, uncontracted %g, Chow–Liu %g", gaussian, res.BIC, b0, bcl)
		}
		if gaussian {
			star := nj.Clone()
			for len(star.Hidden()) > 1 {
				h := star.Hidden()[0]
				for _, w := range star.Neighbors(h) {
					if star.IsHidden(w) {
						if err := star.Contract(w, h); err != nil {
							t.Fatal(err)
						}
						break
					}
				}
			}
			if bs := bic(star, model.FitOptions{}); res.BIC > bs+1e-9*bs || res.Tree.NumHidden() > 2 || res.Baseline != -1 {
				t.Errorf("gaussian: %d hidden nodes after %d contractions (baseline %d), BIC %.3f; the star's %.3f", res.Tree.NumHidden(), res.Contracted, res.Baseline, res.BIC, bs)
			}
		} else if res.Tree.NumHidden() != 1 || res.Contracted != 5 || res.Baseline != -1 {
			t.Errorf("gaussian %v: %d hidden nodes after %d contractions (baseline %d); want 1 after 5, none", gaussian, res.Tree.NumHidden(), res.Contracted, res.Baseline)
		}
		t.Logf("gaussian %v: BIC %.1f → %.1f (CL %.1f), %d evaluations", gaussian, b0, res.BIC, bcl, res.Evaluated)
	}
}

// TestContractByBICBaseline: a tree without hidden nodes (nothing to
// contract) that chains the observed variables in column order fits worse
// than the Chow–Liu tree, which is then returned; nil baselines are
// skipped.
func TestContractByBICBaseline(t *testing.T) {
	d := starData(t, true, 200, 8)
	nj, cl := njUncontracted(t, d)
	// A tree that joins the observed variables in a bad order fits worse
	// than the Chow–Liu tree.
	bad := tree.New()
	for _, n := range d.Names() {
		if _, err := bad.AddObserved(n); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < bad.NumNodes(); i++ {
		if err := bad.AddEdge(i-1, i, math.NaN()); err != nil {
			t.Fatal(err)
		}
	}
	res, err := ContractByBIC(bad, d, model.FitOptions{}, PruneOptions{}, nil, cl)
	if err != nil {
		t.Fatal(err)
	}
	if res.Baseline != 1 || res.Tree.NumEdges() != cl.NumEdges() || res.Contracted != 0 {
		t.Errorf("baseline %d, %d contractions; want the Chow–Liu tree (1), 0", res.Baseline, res.Contracted)
	}
	if _, err := ContractByBIC(nj, d, model.FitOptions{}, PruneOptions{QuickIter: -1}); err == nil {
		t.Error("negative QuickIter accepted")
	}
	if _, err := ContractByBIC(nil, d, model.FitOptions{}, PruneOptions{}); err == nil {
		t.Error("nil tree accepted")
	}
}

// TestWarmDiscreteExact: contracting a hidden node whose CPT is the
// identity loses nothing, so the warm-started model of the contracted tree
// gives the observed variables exactly the old joint distribution.
func TestWarmDiscreteExact(t *testing.T) {
	tr, err := simulate.DoubleStar(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 5))
	old, err := simulate.General(rng, tr, simulate.GeneralOptions{ObservedStates: 3, HiddenStates: 2})
	if err != nil {
		t.Fatal(err)
	}
	h1, h2 := tr.Hidden()[0], tr.Hidden()[1]
	r := old.Rooted()
	child := h2
	if r.Parent[h1] == h2 {
		child = h1
	}
	old.CPT[child] = []float64{1, 0, 0, 1}
	obs := tr.Observed()
	want, err := old.JointMarginal(obs)
	if err != nil {
		t.Fatal(err)
	}
	ct := tr.Clone()
	if err := ct.Contract(r.Parent[child], child); err != nil {
		t.Fatal(err)
	}
	m, err := warmDiscrete(old, ct)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.JointMarginal(obs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("P(x) entry %d: %g after contraction, %g before", i, got[i], want[i])
		}
	}
}
