package model_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

func doubleStar(t *testing.T) *tree.Tree {
	t.Helper()
	tr, err := simulate.DoubleStar(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestFitChoosesModelType(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	tr := doubleStar(t)
	g, err := simulate.Gaussian(rng, tr.Clone(), simulate.GaussianOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gd, err := g.Sample(rng, 500)
	if err != nil {
		t.Fatal(err)
	}
	m, em, err := model.Fit(tr, gd, model.FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.(*gaussian.Model); !ok || em.Rows != 500 {
		t.Errorf("continuous data gave %T on %d rows", m, em.Rows)
	}
	s, err := simulate.Symmetric(rng, tr.Clone(), simulate.SymmetricOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dd, err := s.Sample(rng, 500)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err = model.Fit(tr, dd, model.FitOptions{HiddenStates: 3})
	if err != nil {
		t.Fatal(err)
	}
	dm, ok := m.(*discrete.Model)
	if !ok {
		t.Fatalf("discrete data gave %T", m)
	}
	for _, h := range tr.Hidden() {
		if dm.States[h] != 3 {
			t.Errorf("hidden node %d has %d states, want 3", h, dm.States[h])
		}
	}
	vars := append(gd.Vars()[:4:4], dd.Vars()[4:]...)
	md, err := data.New(vars, 500)
	if err != nil {
		t.Fatal(err)
	}
	for j := range vars {
		if j < 4 {
			copy(md.Continuous(j), gd.Continuous(j))
		} else {
			copy(md.Discrete(j), dd.Discrete(j))
		}
	}
	// Mixed data: a conditional-Gaussian model, whose hidden node over the
	// continuous leaves is continuous and the other discrete with the
	// states asked for.
	m, em, err = model.Fit(tr, md, model.FitOptions{HiddenStates: 3})
	if err != nil {
		t.Fatal(err)
	}
	mm, ok := m.(*mixed.Model)
	if !ok || em.Rows != 500 {
		t.Fatalf("mixed data gave %T", m)
	}
	for _, h := range tr.Hidden() {
		k, states := data.Discrete, 3
		for _, nb := range tr.Neighbors(h) {
			if tr.Name(nb) == "x1" {
				k, states = data.Continuous, 0
			}
		}
		if mm.Kinds[h] != k || mm.States[h] != states {
			t.Errorf("hidden node %s: kind %v with %d states, want %v with %d", tr.Name(h), mm.Kinds[h], mm.States[h], k, states)
		}
	}
	// Spectral parameters need discrete data.
	if _, _, err := model.Fit(tr, md, model.FitOptions{Params: model.ParamsSpectral}); err == nil || !strings.Contains(err.Error(), "continuous: [x1") || !strings.Contains(err.Error(), "discrete: [x5") {
		t.Errorf("spectral on mixed data: %v", err)
	}
}

func TestFitRejectsOptions(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	tr := doubleStar(t)
	g, err := simulate.Gaussian(rng, tr.Clone(), simulate.GaussianOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gd, err := g.Sample(rng, 200)
	if err != nil {
		t.Fatal(err)
	}
	for name, opt := range map[string]model.FitOptions{
		"HiddenStates": {HiddenStates: 3},
		"AutoStates":   {AutoStates: true},
		"Init":         {Init: model.InitRandom},
		"restarts":     {EM: model.EMOptions{Restarts: 3}},
		"Pseudo":       {EM: model.EMOptions{Pseudo: 1}},
		"tolerance":    {EM: model.EMOptions{Tol: -1}},
		"MaxIter":      {EM: model.EMOptions{MaxIter: -1}},
	} {
		if _, _, err := model.Fit(tr, gd, opt); err == nil || !strings.Contains(err.Error(), strings.Split(name, " ")[0]) {
			t.Errorf("Gaussian fit with %s: %v", name, err)
		}
	}
}

// With AutoStates the EM result is the chosen model's own run: its trace
// ends at its log-likelihood (the CLI used to print the first run's trace
// next to the chosen model's log-likelihood).
func TestFitAutoStatesReportsChosenRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	tr := doubleStar(t)
	s, err := simulate.Symmetric(rng, tr.Clone(), simulate.SymmetricOptions{States: 3, ThetaMin: 0.03, ThetaMax: 0.06})
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Sample(rng, 3000)
	if err != nil {
		t.Fatal(err)
	}
	m, em, err := model.Fit(tr, d, model.FitOptions{AutoStates: true})
	if err != nil {
		t.Fatal(err)
	}
	dm := m.(*discrete.Model)
	grew := false
	for _, h := range tr.Hidden() {
		grew = grew || dm.States[h] > 2
	}
	if !grew {
		t.Fatalf("no hidden variable gained a state: %v", dm.States)
	}
	_, ll, err := dm.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ll-em.LogLik) > 1e-6*math.Abs(ll) {
		t.Errorf("EMResult.LogLik %g, model's log-likelihood %g", em.LogLik, ll)
	}
	last := em.Trace[len(em.Trace)-1]
	if len(em.Trace) != em.Iterations || math.Abs(last-ll) > 1e-3*math.Abs(ll) {
		t.Errorf("trace of %d entries for %d iterations ends at %g, log-likelihood %g", len(em.Trace), em.Iterations, last, ll)
	}
}

// Hidden states above data.MaxStates are refused by Validate, and a
// number whose tables would exceed MaxModelCells by Fit, before anything
// is allocated (learn --hidden-states 65535 died out of memory); the
// largest number within the limit is accepted by the check.
func TestFitModelSizeLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	tr := doubleStar(t) // two hidden nodes joined, four binary leaves each
	s, err := simulate.Symmetric(rng, tr.Clone(), simulate.SymmetricOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Sample(rng, 50)
	if err != nil {
		t.Fatal(err)
	}
	if err := (model.FitOptions{HiddenStates: data.MaxStates + 1}).Validate(false); err == nil {
		t.Errorf("HiddenStates %d: no error from Validate", data.MaxStates+1)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err = model.Fit(tr, d, model.FitOptions{HiddenStates: data.MaxStates})
	runtime.ReadMemStats(&after)
	var se *model.ModelSizeError
	if !errors.As(err, &se) || se.HiddenStates != data.MaxStates {
		t.Fatalf("HiddenStates %d: error %v, want a ModelSizeError", data.MaxStates, err)
	}
	// Cells: k² for the hidden edge and 2k for each of the 8 leaves.
	k := float64(data.MaxStates)
	if want := k*k + 8*2*k; se.Cells != want {
		t.Errorf("cells %g, want %g", se.Cells, want)
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > 1<<20 {
		t.Errorf("refusing allocated %d bytes", a)
	}
}

// For mixed data the options of discrete EM that mixed EM has no
// counterpart of are refused, naming them; those it has are accepted.
func TestValidateForMixed(t *testing.T) {
	for name, opt := range map[string]model.FitOptions{
		"Init":        {Init: model.InitRandom},
		"Params":      {Params: model.ParamsSpectral},
		"EM.Pseudo":   {EM: model.EMOptions{Pseudo: 1}},
		"EM.Sample":   {EM: model.EMOptions{Sample: 100}},
		"EM.KeepInit": {EM: model.EMOptions{KeepInit: true}},
		"tolerance":   {EM: model.EMOptions{Tol: -1}},
	} {
		if err := opt.ValidateFor(data.Mixed); err == nil || !strings.Contains(err.Error(), strings.Split(name, " ")[0]) {
			t.Errorf("mixed data with %s: %v", name, err)
		}
	}
	ok := model.FitOptions{HiddenStates: 4, EM: model.EMOptions{Tol: 1e-8, MaxIter: 50, Restarts: 3, RestartIter: 5, Workers: 2, Src: rand.NewPCG(1, 2), Accel: model.AccelNone, Stop: model.StopRelative}}
	if err := ok.ValidateFor(data.Mixed); err != nil {
		t.Errorf("mixed data with options that apply: %v", err)
	}
	if got := mixed.FitOptionsOf(ok); got.HiddenStates != 4 || got.Tol != 1e-8 || got.MaxIter != 50 || got.Restarts != 3 || got.RestartIter != 5 || got.Workers != 2 || got.Src == nil {
		t.Errorf("FitOptionsOf(%+v) = %+v", ok, got)
	}
	if got := mixed.FitOptionsOf(model.FitOptions{EM: model.EMOptions{Restarts: -1}}); got.Restarts != 0 {
		t.Errorf("Restarts -1 (none) gave %d restarts", got.Restarts)
	}
}
