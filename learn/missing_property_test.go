package learn_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/testenv"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/noisyor"
	"github.com/latentree/latentree/noisyor/quartetlearn"
	"github.com/latentree/latentree/simulate"
)

// missingCase is one simulated data set with missing cells.
type missingCase struct {
	name string
	d    *data.Dataset
}

// simulateMissing draws a random binary tree over 6–9 observed variables,
// a model on it (Gaussian, or discrete whose observed variables have 2–4
// states, equal or not, and whose CPTs are sometimes close to
// deterministic), 150–500 rows, and blanks 1–30% of the cells.
func simulateMissing(rng *rand.Rand, i int) (missingCase, error) {
	m := 6 + rng.IntN(4)
	t, err := simulate.RandomBinary(rng, m, 0.3+0.4*rng.Float64())
	if err != nil {
		return missingCase{}, err
	}
	n := 150 + rng.IntN(351)
	frac := 0.01 + 0.29*rng.Float64()
	var d *data.Dataset
	var what string
	switch kind := i % 4; kind {
	case 0:
		g, err := simulate.Gaussian(rng, t, simulate.GaussianOptions{RandomSign: true})
		if err != nil {
			return missingCase{}, err
		}
		if d, err = g.Sample(rng, n); err != nil {
			return missingCase{}, err
		}
		what = "continuous"
	default:
		// kind 1: binary; 2: equal 2–4 states; 3: unequal 2–4 states.
		k := 2
		if kind == 2 {
			k = 2 + rng.IntN(3)
		}
		opt := simulate.GeneralOptions{ObservedStates: k, HiddenStates: 2}
		if kind == 3 {
			states := map[int]int{}
			opt.ObservedStatesOf = func(v int) int {
				if _, ok := states[v]; !ok {
					states[v] = 2 + rng.IntN(3)
				}
				return states[v]
			}
		}
		// A large diagonal makes children near copies of their parents:
		// expected counts of 0 that round-off can push below 0.
		if rng.IntN(2) == 0 {
			opt.Diagonal = 200
		}
		dm, err := simulate.General(rng, t, opt)
		if err != nil {
			return missingCase{}, err
		}
		if d, err = dm.Sample(rng, n); err != nil {
			return missingCase{}, err
		}
		what = fmt.Sprintf("discrete (kind %d, diagonal %g)", kind, opt.Diagonal)
	}
	b, err := simulate.Blank(rng, d, frac)
	if err != nil {
		return missingCase{}, err
	}
	return missingCase{fmt.Sprintf("case %d: %s, %d variables, %d rows, %.0f%% missing", i, what, m, n, 100*frac), b}, nil
}

// checkResult fails unless res has a valid model with a finite score.
func checkResult(t *testing.T, what string, res *learn.Result) {
	t.Helper()
	if res.Model == nil || res.Score == nil {
		t.Errorf("%s: no model or score", what)
		return
	}
	if err := res.Model.Validate(); err != nil {
		t.Errorf("%s: %v", what, err)
	}
	if s := res.Score; math.IsNaN(s.LogLik) || math.IsInf(s.LogLik, 0) || math.IsNaN(s.BIC) || math.IsInf(s.BIC, 0) {
		t.Errorf("%s: score log-likelihood %g, BIC %g", what, s.LogLik, s.BIC)
	}
}

// TestMissingCellsEveryMethod is the property test of issue 22: on many
// small simulated data sets (continuous, and discrete with 2–4 states,
// equal or not) with 1–30% of cells missing at random, every structure
// method, spectral parameters and the spectral start of EM run without an
// error or a panic and give a valid model with a finite log-likelihood
// and BIC (missing cells marginalised). LATENTREE_LONG=1 runs 80 data
// sets instead of 12 (in cases 5 and 9 round-off used to write a
// probability of −1e-16). In the short form CLRG, NJ, RG and CLBlind,
// which share the default CLNJ's contraction by BIC and EM on missing
// cells and took two thirds of the time, take turns: each runs on 3 of
// the 12 data sets, of 3 different kinds; every other method runs on all.
func TestMissingCellsEveryMethod(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 2))
	turns := []learn.Method{learn.CLRG, learn.NJ, learn.RG, learn.CLBlind}
	for i := range testenv.Pick(12, 80) {
		c, err := simulateMissing(rng, i)
		if err != nil {
			t.Fatal(err)
		}
		cont := c.d.AllContinuous()
		for _, m := range learn.Methods {
			if (m == learn.Quartet || m == learn.LCM) && cont {
				continue // quartet tests and latent class models are on discrete tables
			}
			if k := slices.Index(turns, m); k >= 0 && !testenv.Long() && k != (i+i/4)%len(turns) {
				continue
			}
			what := fmt.Sprintf("%s, %s", c.name, m)
			opt := learn.Options{Method: m, Src: rand.NewPCG(uint64(i), 1)}
			if !cont && i%4 != 0 {
				// Missing cells are the point here: most data sets skip
				// the default search for hidden-state counts on
				// variables with more than 2 states, which costs several
				// fits (its own tests cover it).
				opt.Fit.HiddenStates = 2
			}
			res, err := learnNoPanic(c.d, opt)
			if err != nil {
				t.Errorf("%s: %v", what, err)
				continue
			}
			checkResult(t, what, res)
		}
		if cont {
			continue
		}
		for _, fo := range []model.FitOptions{{Params: model.ParamsSpectral}, {Init: model.InitSpectral}} {
			what := fmt.Sprintf("%s, clnj, params %v init %v", c.name, fo.Params, fo.Init)
			// Spectral parameters need hidden nodes: no contraction.
			res, err := learnNoPanic(c.d, learn.Options{Fit: fo, Contract: learn.ContractOptions{Rule: learn.ContractThreshold, Threshold: -1}})
			if err != nil {
				t.Errorf("%s: %v", what, err)
				continue
			}
			if res.Model == nil || res.Score == nil {
				t.Errorf("%s: no model or score", what)
				continue
			}
			// A spectral model scores only the rows with a positive
			// estimated probability; those must be finite.
			if s := res.Score; math.IsNaN(s.LogLik) || math.IsInf(s.LogLik, 0) {
				t.Errorf("%s: log-likelihood %g", what, s.LogLik)
			}
		}
	}
}

// learnNoPanic runs learn.Learn and turns a panic into an error.
func learnNoPanic(d *data.Dataset, opt learn.Options) (res *learn.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return learn.Learn(d, opt)
}

// TestMissingCellsNoisyOr: noisy-or structure learning (quartet tests and
// the EM polish) on binary data from random noisy-or networks with 1–30%
// of cells missing runs without an error and gives a valid network with a
// finite log-likelihood. LATENTREE_LONG=1 runs 40 data sets instead of 4.
func TestMissingCellsNoisyOr(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 3))
	for i := range testenv.Pick(4, 40) {
		net, err := noisyor.RandomNetwork(rng, noisyor.RandomOptions{Sources: 2 + rng.IntN(2), Effects: 10 + rng.IntN(5), MinChildren: 4, MaxChildren: 6})
		if err != nil {
			t.Fatal(err)
		}
		n := 300 + rng.IntN(700)
		d, err := net.Sample(rng, n)
		if err != nil {
			t.Fatal(err)
		}
		frac := 0.01 + 0.29*rng.Float64()
		if d, err = simulate.Blank(rng, d, frac); err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("case %d: %d effects, %d rows, %.0f%% missing", i, len(net.Effects), n, 100*frac)
		b, err := noisyor.NewBinary(d)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		res, err := quartetlearn.Learn(b, quartetlearn.Options{Src: rand.NewPCG(uint64(i), 1)})
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		if err := res.Network.Validate(); err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		l, err := res.Network.LogLikelihood(b, noisyor.LikOptions{})
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		if s := res.Network.Score(l, n); math.IsNaN(s.LogLik) || math.IsInf(s.LogLik, 0) || s.NonPositive > 0 {
			t.Errorf("%s: log-likelihood %g, %d rows of probability 0", what, s.LogLik, s.NonPositive)
		}
	}
}
