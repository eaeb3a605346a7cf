package learn_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/spectral"
	"github.com/latentree/latentree/quartet"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

func TestValidateRejects(t *testing.T) {
	cases := []struct {
		opt  learn.Options
		want string
	}{
		{learn.Options{Method: "magic"}, "clnj, clrg, nj, rg, clblind, chowliu, mst, quartet, regclnj, regclrg"},
		{learn.Options{Method: learn.RegCLNJ, RG: structure.RGOptions{Tau: 2}}, "recursive grouping"},
		{learn.Options{Method: learn.RegCLRG, Contract: learn.ContractOptions{Threshold: 0.1}}, "contraction"},
		{learn.Options{Method: learn.RegCLNJ, Fit: model.FitOptions{EM: model.EMOptions{Restarts: 2}}}, "restarts"},
		{learn.Options{Method: learn.RegCLNJ, Fit: model.FitOptions{Init: model.InitRandom}}, "random starts"},
		{learn.Options{Method: learn.RegCLNJ, StructureOnly: true}, "structure-only"},
		{learn.Options{Method: learn.CLNJ, Quartet: learn.QuartetOptions{Reps: 2}}, "quartet"},
		{learn.Options{Method: learn.Quartet, Distance: learn.DistanceOptions{Rank: 2}}, "distance"},
		{learn.Options{Method: learn.NJ, Reg: learn.RegOptions{MaxHidden: 3}}, "regularized"},
		{learn.Options{Method: learn.ChowLiu, Contract: learn.ContractOptions{KeepHiddenEdges: true}}, "contraction"},
		{learn.Options{Method: learn.Quartet, Quartet: learn.QuartetOptions{K: 2}}, "spectral"},
		{learn.Options{Distance: learn.DistanceOptions{Pseudo: -5}}, "pseudo-count"},
		{learn.Options{Distance: learn.DistanceOptions{Rank: -1}}, "rank"},
		{learn.Options{Method: learn.RG, RG: structure.RGOptions{Tau: -1}}, "τ"},
		{learn.Options{Workers: -1}, "Workers"},
		{learn.Options{MaxPairBytes: -1}, "MaxPairBytes"},
	}
	for _, c := range cases {
		err := c.opt.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error about %q", c.opt, err, c.want)
		}
	}
	for _, opt := range []learn.Options{
		{},
		{Method: learn.CLRG, RG: structure.RGOptions{Tau: 3}, Contract: learn.ContractOptions{Threshold: -1}},
		{Method: learn.Quartet, Quartet: learn.QuartetOptions{Test: quartet.TestSpectral, K: 2}},
		{Method: learn.ChowLiu, Distance: learn.DistanceOptions{Pseudo: 1}},
		{Method: learn.RegCLRG, Reg: learn.RegOptions{MaxHidden: 3}, Fit: model.FitOptions{HiddenStates: 3}},
	} {
		if err := opt.Validate(); err != nil {
			t.Errorf("%+v: %v", opt, err)
		}
	}
}

func TestValidateOptionError(t *testing.T) {
	opt := learn.Options{Method: learn.RG, RG: structure.RGOptions{Eps: math.Inf(1)}}
	var oe *learn.OptionError
	if err := opt.Validate(); !errors.As(err, &oe) || oe.Option != "RG.Eps" || oe.Value != math.Inf(1) {
		t.Errorf("ε = +Inf: %v (%+v), want an OptionError about RG.Eps", err, oe)
	}
}

// TestValidateOptionGroups checks that every group of method-specific
// options is refused, naming the group, for a method it does not apply to
// and accepted for one it applies to, and that regularized methods refuse
// automatic hidden states with an *AutoStatesError.
func TestValidateOptionGroups(t *testing.T) {
	set := map[string]learn.Options{
		"distance options (Kind, Rank)":                          {Distance: learn.DistanceOptions{Rank: 2}},
		"pseudo-counts on the pairwise tables (Distance.Pseudo)": {Distance: learn.DistanceOptions{Pseudo: 1}},
		"contraction options":                                    {Contract: learn.ContractOptions{Threshold: 0.1}},
		"recursive grouping options":                             {RG: structure.RGOptions{Tau: 3}},
		"quartet options":                                        {Quartet: learn.QuartetOptions{Reps: 2}},
		"regularized CLGrouping options":                         {Reg: learn.RegOptions{MaxHidden: 3}},
		"latent class options (LCM.MaxClasses, LCM.Restarts, LCM.BLRT, LCM.BLRTStarts, LCM.BLRTFirst, LCM.Covariates)": {LCM: learn.LCMOptions{Covariates: []string{"z"}}},
		"random starts, restarts, spectral parameters and starts, and EM's warm-up samples":                            {Fit: model.FitOptions{EM: model.EMOptions{Sample: 100}}},
	}
	groups := learn.OptionGroups()
	if len(groups) != len(set) {
		t.Fatalf("%d groups, the test knows %d", len(groups), len(set))
	}
	for _, g := range groups {
		opt, ok := set[g.What]
		if !ok {
			t.Fatalf("no options set for group %q", g.What)
		}
		for _, m := range learn.Methods {
			opt.Method = m
			err := opt.Validate()
			if g.Applies(m) {
				if err != nil && strings.Contains(err.Error(), g.What) {
					t.Errorf("%s: %v, want %s accepted", m, err, g.What)
				}
			} else if err == nil || err.Error() != "learn: "+g.What+" do not apply to method "+string(m) {
				t.Errorf("%s with %s: %v", m, g.What, err)
			}
		}
	}
	opt := learn.Options{Method: learn.RegCLNJ, Fit: model.FitOptions{AutoStates: true}}
	var ae *learn.AutoStatesError
	if err := opt.Validate(); !errors.As(err, &ae) || ae.Method != learn.RegCLNJ {
		t.Errorf("regclnj with AutoStates: %v, want an AutoStatesError", err)
	}
}

func TestEntryPointsRefuseWhatTheyCannotDo(t *testing.T) {
	_, d := truth()
	st, err := stats.Compute(d, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []learn.Method{learn.Quartet, learn.RegCLNJ} {
		if _, err := learn.FromStats(st, learn.Options{Method: m}); err == nil || !strings.Contains(err.Error(), "rows") {
			t.Errorf("FromStats %s: %v", m, err)
		}
	}
	dm, _, err := distance.Information(st, distance.InfoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []learn.Method{learn.ChowLiu, learn.Quartet, learn.RegCLRG} {
		if _, err := learn.FromDistances(dm, learn.Options{Method: m}); err == nil {
			t.Errorf("FromDistances %s: no error", m)
		}
	}
	// Statistics and data give the same structure.
	a, err := learn.FromStats(st, learn.Options{Method: learn.CLRG})
	if err != nil {
		t.Fatal(err)
	}
	b, err := learn.Learn(d, learn.Options{Method: learn.CLRG, StructureOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if rf, err := tree.RobinsonFoulds(a.Tree, b.Tree); err != nil || rf.RF != 0 {
		t.Errorf("FromStats and Learn differ: %+v %v", rf, err)
	}
}

// Same data and options, same bytes (tree and model file), whatever the
// number of workers or of cores: the contraction search, EM and the
// quartet builder on a discrete double star, and the contraction search on
// a Gaussian chain like the one of issue 23 (which scored 115, 123 and 235
// candidates on 1, 2 and 16 cores).
func TestLearnDeterministicAcrossWorkers(t *testing.T) {
	_, d := truth()
	chain, err := simulate.HMM(30)
	if err != nil {
		t.Fatal(err)
	}
	g, err := simulate.Gaussian(rand.NewPCG(5, 5), chain, simulate.GaussianOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gd, err := g.Sample(rand.NewPCG(5, 6), 3000)
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		name string
		d    *data.Dataset
		m    learn.Method
	}
	runs := []run{{"clnj", d, learn.CLNJ}, {"quartet", d, learn.Quartet}, {"regclnj", d, learn.RegCLNJ}, {"gaussian chain", gd, learn.CLNJ}}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, r := range runs {
		var outs []string
		var evals []int
		for _, w := range []int{1, 2, 8} {
			for _, procs := range []bool{false, true} {
				opt := learn.Options{Method: r.m}
				if procs {
					runtime.GOMAXPROCS(w)
				} else {
					runtime.GOMAXPROCS(1)
					opt.Workers = w
					opt.Fit.EM.Workers = w
				}
				res, err := learn.Learn(r.d, opt)
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				b.WriteString(res.Tree.Newick())
				if err := res.Model.WriteJSON(&b, nil); err != nil {
					t.Fatal(err)
				}
				outs = append(outs, b.String())
				if res.Contraction != nil {
					evals = append(evals, res.Contraction.Evaluated)
				}
			}
		}
		for i := 1; i < len(outs); i++ {
			if outs[i] != outs[0] {
				t.Errorf("%s: run %d (workers or GOMAXPROCS %d) differs from the first (1 worker)", r.name, i, []int{1, 2, 8}[i/2])
			}
		}
		if len(evals) > 0 && slices.Min(evals) != slices.Max(evals) {
			t.Errorf("%s: candidates scored %v", r.name, evals)
		}
	}
}

// ContractAuto searches by BIC within its budget and uses the threshold rule
// beyond it; an explicit ContractBIC ignores the budget.
func TestContractAutoBudget(t *testing.T) {
	_, d := truth()
	small := learn.Options{Contract: learn.ContractOptions{AutoBudget: 10}}
	res, err := learn.Learn(d, small)
	if err != nil {
		t.Fatal(err)
	}
	if res.ContractRule != learn.ContractThreshold || res.Contraction != nil {
		t.Errorf("over budget: rule %v, report %+v", res.ContractRule, res.Contraction)
	}
	res, err = learn.Learn(d, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.ContractRule != learn.ContractBIC || res.Contraction == nil {
		t.Errorf("default: rule %v", res.ContractRule)
	}
	small.Contract.Rule = learn.ContractBIC
	if res, err = learn.Learn(d, small); err != nil || res.ContractRule != learn.ContractBIC {
		t.Errorf("explicit BIC: %v %v", res.ContractRule, err)
	}
}

// The contraction search reports its progress, ending at the number of
// candidates it scored.
func TestContractProgress(t *testing.T) {
	_, d := truth()
	last, calls := 0, 0
	opt := learn.Options{ContractProgress: func(evaluated, _ int) {
		if evaluated < last {
			t.Errorf("progress went back from %d to %d", last, evaluated)
		}
		last = evaluated
		calls++
	}}
	res, err := learn.Learn(d, opt)
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || res.Contraction == nil || last != res.Contraction.Evaluated {
		t.Fatalf("%d calls, last %d, report %+v", calls, last, res.Contraction)
	}
	// It reports the uncontracted tree's fit by phase and its own time.
	c := res.Contraction
	if c.InitialEM == nil || c.InitialEM.Full.ESteps < 1 || !(c.SearchSeconds > 0) || c.SearchSeconds < c.InitialEM.Full.Seconds {
		t.Errorf("search report: initial EM %+v, %g s in all", c.InitialEM, c.SearchSeconds)
	}
}

// TestLearnSpectral: spectral parameters after a structure search by BIC;
// regularized methods, which fit by EM while they search, refuse them.
// 600 rows (1,500 before, 2.5 times the CPU: EM in the search): what is
// checked is which model comes out and that it is scored, not its fit.
func TestLearnSpectral(t *testing.T) {
	tr, err := simulate.RandomBinary(rand.NewPCG(1, 1), 10, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	truth, err := simulate.General(rand.NewPCG(1, 2), tr, simulate.GeneralOptions{ObservedStates: 3, HiddenStates: 2, Scheme: simulate.Perturbed, Mu: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	d, err := truth.Sample(rand.NewPCG(1, 3), 600)
	if err != nil {
		t.Fatal(err)
	}
	res, err := learn.Learn(d, learn.Options{Fit: model.FitOptions{Params: model.ParamsSpectral}})
	if err != nil {
		t.Fatal(err)
	}
	s, ok := res.Model.(*spectral.Model)
	if !ok || res.EM != nil || res.ContractRule != learn.ContractBIC {
		t.Fatalf("model %T, EM %v, rule %v: want a spectral model after a BIC search", res.Model, res.EM, res.ContractRule)
	}
	if s.Tree != res.Tree || res.Score == nil || res.Score.Rows != 600 {
		t.Errorf("spectral model on another tree, or no score: %+v", res.Score)
	}
	res2, err := learn.Learn(d, learn.Options{Fit: model.FitOptions{Init: model.InitSpectral}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res2.Model.(*discrete.Model); !ok || res2.EM == nil {
		t.Errorf("spectral start: model %T, EM %v", res2.Model, res2.EM)
	}
	if _, err := learn.Learn(d, learn.Options{Method: learn.RegCLNJ, Fit: model.FitOptions{Params: model.ParamsSpectral}}); err == nil {
		t.Error("regclnj with spectral parameters: no error")
	}
}

// Setting τ alone keeps the default (silhouette) grouping of RG: the zero
// Grouping is structure.GroupDefault, not the threshold test (which τ
// alone used to select, silently). On this sample the two groupings give
// different trees.
func TestRGTauKeepsDefaultGrouping(t *testing.T) {
	tr, err := simulate.RandomBinary(rand.NewPCG(1, 1), 24, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	m, err := simulate.Symmetric(rng, tr, simulate.SymmetricOptions{ThetaMin: 0.05, ThetaMax: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Sample(rng, 300)
	if err != nil {
		t.Fatal(err)
	}
	run := func(rg structure.RGOptions) string {
		res, err := learn.Learn(d, learn.Options{Method: learn.RG, RG: rg, StructureOnly: true,
			Contract: learn.ContractOptions{Rule: learn.ContractThreshold}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Tree.Newick()
	}
	tau := structure.DefaultTau(d.NumRows(), false)
	sil := run(structure.RGOptions{Tau: tau, Grouping: structure.GroupSilhouette})
	thr := run(structure.RGOptions{Tau: tau, Grouping: structure.GroupThreshold})
	if sil == thr {
		t.Fatalf("the two groupings agree on this sample; the test needs one where they differ")
	}
	if got := run(structure.RGOptions{Tau: tau}); got != sil {
		t.Errorf("τ alone: %s\nwant the silhouette grouping's %s", got, sil)
	}
}
