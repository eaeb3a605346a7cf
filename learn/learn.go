package learn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/quartet"
	"github.com/latentree/latentree/regcl"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

// DistanceOptions configures the information distances of the
// distance-based methods (clnj, clrg, nj, rg, clblind, mst). Pseudo also
// applies to chowliu's mutual information.
type DistanceOptions struct {
	// Kind chooses the distance (default distance.Auto: Gaussian for
	// continuous pairs, Lake's determinant distance for discrete ones).
	Kind distance.Kind
	// Rank > 0 uses the rank-k discrete distance.
	Rank int
	// Pseudo is a pseudo-count added to every cell of the pairwise count
	// tables (0: none).
	Pseudo float64
}

// ContractOptions configures the contraction of short edges after the
// clnj, clrg, nj and rg learners.
type ContractOptions struct {
	// Threshold is ε′: edges shorter than it are contracted (0:
	// structure.DefaultContract; negative: never).
	Threshold float64
	// KeepHiddenEdges never contracts an edge between two hidden nodes
	// (the paper contracts only observed–hidden edges).
	KeepHiddenEdges bool
}

// QuartetOptions configures the quartet method.
type QuartetOptions struct {
	// Test is the quartet test (default the nuclear-norm test).
	Test quartet.Test
	// K is k of Spectral@k (TestSpectral only; default 2).
	K int
	// Reps, Order and Candidates are those of quartet.BuildOptions.
	Reps       int
	Order      quartet.Order
	Candidates int
}

// RegOptions configures regularized CLGrouping (regclnj, regclrg).
type RegOptions struct {
	// MaxHidden, when positive, grows the tree up to this many hidden
	// variables (0: until no subtree improves the BIC).
	MaxHidden int
	// SampleHidden completes hidden variables by sampling (see
	// regcl.Options).
	SampleHidden bool
}

// Options configures Learn. The zero value learns a CLNJ tree with
// latentree's defaults and fits its parameters.
type Options struct {
	// Method is the structure learner (default CLNJ).
	Method Method
	// Samples is the number of samples behind the distances given to
	// FromDistances (it sets RG's thresholds); Learn and FromStats take
	// it from the data.
	Samples  int
	Distance DistanceOptions
	Contract ContractOptions
	// RG configures recursive grouping in rg and clrg (its Samples is set
	// from the data).
	RG      structure.RGOptions
	Quartet QuartetOptions
	Reg     RegOptions
	// Fit configures parameter learning (model.Fit). For regclnj and
	// regclrg only HiddenStates and EM's Tol, MaxIter and Pseudo apply.
	Fit model.FitOptions
	// StructureOnly skips parameter learning.
	StructureOnly bool
	// Workers bounds the goroutines of every stage (0: GOMAXPROCS).
	// Results do not depend on it.
	Workers int
	// Rand drives everything random: the quartet method's random order,
	// EM restarts and random starts, regularized CLGrouping's sampling of
	// hidden variables (nil: a fixed seed).
	Rand *rand.Rand
}

// Timings are the wall-clock times of the stages.
type Timings struct {
	Stats     time.Duration `json:"stats_ns"`
	Structure time.Duration `json:"structure_ns"`
	Fit       time.Duration `json:"fit_ns"`
	Total     time.Duration `json:"total_ns"`
}

// QuartetReport says how many quartet tests the quartet method ran.
type QuartetReport struct {
	Tests      int `json:"tests"`
	Unresolved int `json:"unresolved"`
}

// RegReport says what regularized CLGrouping incorporated.
type RegReport struct {
	Steps     []regcl.Step `json:"steps"`
	Evaluated int          `json:"candidates_evaluated"`
}

// Result is a learned latent tree and, when parameters were fitted, its
// model and scores.
type Result struct {
	Method Method
	// Tree has hidden nodes named h1, h2, ...
	Tree *tree.Tree
	// Report says what the structure learner did.
	Report *structure.Report
	// Degenerate lists pairs at infinite distance.
	Degenerate []distance.Degenerate
	Quartet    *QuartetReport
	Reg        *RegReport
	// Model, EM and Score are nil when no parameters were fitted.
	Model model.Model
	EM    *model.EMResult
	// Score is the model's score on the training data.
	Score   *model.Score
	Timings Timings
}

// Validate reports options that are out of range or do not apply to the
// method, naming them.
func (o *Options) Validate() error {
	m := o.Method
	if m == "" {
		m = CLNJ
	}
	if !m.valid() {
		_, err := ParseMethod(string(m))
		return err
	}
	notFor := func(what string) error {
		return fmt.Errorf("learn: %s do not apply to method %s", what, m)
	}
	switch {
	case o.Distance.Kind != distance.Auto || o.Distance.Rank != 0:
		if !m.UsesDistances() {
			return notFor("distance options (Kind, Rank)")
		}
	}
	if o.Distance.Pseudo != 0 && !m.UsesDistances() && m != ChowLiu {
		return notFor("pseudo-counts on the pairwise tables (Distance.Pseudo)")
	}
	if o.Contract != (ContractOptions{}) && !m.Contracts() {
		return notFor("contraction options")
	}
	if o.RG != (structure.RGOptions{}) && !m.UsesRG() {
		return notFor("recursive grouping options")
	}
	if o.Quartet != (QuartetOptions{}) && m != Quartet {
		return notFor("quartet options")
	}
	if o.Reg != (RegOptions{}) && !m.Regularized() {
		return notFor("regularized CLGrouping options")
	}
	if m.Regularized() {
		f := o.Fit
		if f.AutoStates || f.Init != model.InitSurrogate || f.EM.Restarts != 0 || f.EM.RestartIter != 0 || f.EM.KeepInit {
			return notFor("automatic hidden states, random starts and restarts")
		}
		if o.StructureOnly {
			return fmt.Errorf("learn: %s fits parameters while it learns the structure; it has no structure-only mode", m)
		}
	}
	switch {
	case o.Samples < 0:
		return fmt.Errorf("learn: Samples %d is negative", o.Samples)
	case o.Distance.Rank < 0:
		return fmt.Errorf("learn: distance rank %d must be positive (0: full rank)", o.Distance.Rank)
	case o.Distance.Pseudo < 0 || math.IsNaN(o.Distance.Pseudo) || math.IsInf(o.Distance.Pseudo, 0):
		return fmt.Errorf("learn: pseudo-count %g must be finite and non-negative", o.Distance.Pseudo)
	case math.IsNaN(o.Contract.Threshold) || math.IsInf(o.Contract.Threshold, 0):
		return fmt.Errorf("learn: contraction threshold %g must be finite", o.Contract.Threshold)
	case o.RG.Tau < 0 || math.IsNaN(o.RG.Tau):
		return fmt.Errorf("learn: RG τ %g must be positive (0: from the sample size)", o.RG.Tau)
	case o.RG.Eps < 0 || math.IsNaN(o.RG.Eps) || math.IsInf(o.RG.Eps, 0):
		return fmt.Errorf("learn: RG ε %g must be positive (0: from the sample size)", o.RG.Eps)
	case o.Quartet.K < 0:
		return fmt.Errorf("learn: Spectral@k needs k ≥ 1, got %d", o.Quartet.K)
	case o.Quartet.K > 0 && o.Quartet.Test != quartet.TestSpectral:
		return errors.New("learn: Quartet.K applies to the spectral test only")
	case o.Quartet.Reps < 0:
		return fmt.Errorf("learn: %d quartet representatives: want at least 1", o.Quartet.Reps)
	case o.Workers < 0:
		return fmt.Errorf("learn: Workers %d is negative", o.Workers)
	case o.Reg.MaxHidden < 0:
		return fmt.Errorf("learn: MaxHidden %d is negative", o.Reg.MaxHidden)
	}
	return nil
}

func (o *Options) rng() *rand.Rand {
	if o.Rand != nil {
		return o.Rand
	}
	return rand.New(rand.NewPCG(1, 0x1ea7))
}

// Learn learns a latent tree from d with the chosen method and, unless
// StructureOnly, fits its parameters (model.Fit) and scores it on d.
func Learn(d *data.Dataset, opt Options) (*Result, error) {
	start := time.Now()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if d == nil || d.NumRows() == 0 {
		return nil, errors.New("learn: no data rows")
	}
	m := opt.method()
	if !opt.StructureOnly && !m.Regularized() {
		if err := checkFittable(d, opt.Fit); err != nil {
			return nil, err
		}
	}
	if m.Regularized() {
		return learnReg(d, opt, start)
	}
	t0 := time.Now()
	st, err := stats.Compute(d, stats.Options{Workers: opt.Workers})
	if err != nil {
		return nil, err
	}
	statsTime := time.Since(t0)
	res, err := fromStats(st, d, opt)
	if err != nil {
		return nil, err
	}
	res.Timings.Stats = statsTime
	if !opt.StructureOnly {
		t1 := time.Now()
		if res.Model, res.EM, err = model.Fit(res.Tree, d, opt.Fit); err != nil {
			return nil, err
		}
		if res.Score, err = res.Model.Score(d, model.InferOptions{}); err != nil {
			return nil, err
		}
		res.Timings.Fit = time.Since(t1)
	}
	res.Timings.Total = time.Since(start)
	return res, nil
}

func (o *Options) method() Method {
	if o.Method == "" {
		return CLNJ
	}
	return o.Method
}

// checkFittable reports, before any work, data that parameters cannot be
// fitted to and fit options that do not apply to them.
func checkFittable(d *data.Dataset, f model.FitOptions) error {
	gaussian := d.AllContinuous()
	if !gaussian && !d.AllDiscrete() {
		return errors.New("learn: parameters can be fitted to all-discrete or all-continuous data only; learn the structure alone (StructureOnly)")
	}
	return f.Validate(gaussian)
}

// FromStats learns the structure from sufficient statistics. It fits no
// parameters (that needs rows), and methods that need rows (quartet,
// regclnj, regclrg) are an error.
func FromStats(st *stats.Stats, opt Options) (*Result, error) {
	start := time.Now()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if st == nil {
		return nil, errors.New("learn: no statistics")
	}
	res, err := fromStats(st, nil, opt)
	if err != nil {
		return nil, err
	}
	res.Timings.Total = time.Since(start)
	return res, nil
}

func fromStats(st *stats.Stats, d *data.Dataset, opt Options) (*Result, error) {
	m := opt.method()
	if m.NeedsRows() && d == nil {
		return nil, fmt.Errorf("learn: %s needs the data rows, not only their statistics", m)
	}
	rows := int(st.Rows())
	t1 := time.Now()
	var res *Result
	switch {
	case m == ChowLiu:
		mi, err := distance.MutualInformation(st, opt.Distance.Pseudo)
		if err != nil {
			return nil, err
		}
		t, err := structure.ChowLiu(st.Names(), mi)
		if err != nil {
			return nil, err
		}
		res = &Result{Method: m, Tree: t, Report: &structure.Report{Method: structure.Method(m), Observed: t.NumObserved()}}
	case m == Quartet:
		var err error
		if res, err = learnQuartet(d, st, opt); err != nil {
			return nil, err
		}
	default:
		dm, degen, err := distance.Information(st, distance.InfoOptions{Kind: opt.Distance.Kind, Rank: opt.Distance.Rank, Pseudo: opt.Distance.Pseudo, Workers: opt.Workers})
		if err != nil {
			return nil, err
		}
		if res, err = structureFrom(dm, rows, opt); err != nil {
			return nil, err
		}
		res.Degenerate = degen
	}
	res.Timings.Structure = time.Since(t1)
	res.Tree.AutoNameHidden("h")
	return res, nil
}

// FromDistances learns the structure from a distance matrix estimated
// from samples rows (0: exact distances; see Options.Samples, which this
// argument overrides when positive). Only distance-based methods apply.
func FromDistances(dm *distance.Matrix, opt Options) (*Result, error) {
	start := time.Now()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	m := opt.method()
	if !m.UsesDistances() {
		return nil, fmt.Errorf("learn: %s does not learn from distances (distance methods: clnj, clrg, nj, rg, clblind, mst)", m)
	}
	if opt.Distance != (DistanceOptions{}) {
		return nil, errors.New("learn: distance options do not apply to a given distance matrix")
	}
	res, err := structureFrom(dm, opt.Samples, opt)
	if err != nil {
		return nil, err
	}
	res.Timings.Structure = time.Since(start)
	res.Tree.AutoNameHidden("h")
	res.Timings.Total = time.Since(start)
	return res, nil
}

func structureFrom(dm *distance.Matrix, samples int, opt Options) (*Result, error) {
	m := opt.method()
	sopt := structure.Options{Method: structure.Method(m), Samples: samples,
		Contract: opt.Contract.Threshold, KeepHiddenEdges: opt.Contract.KeepHiddenEdges, RG: opt.RG}
	if m.UsesRG() && opt.RG == (structure.RGOptions{}) {
		sopt.RG.Grouping = structure.GroupSilhouette
	}
	t, rep, err := structure.Learn(dm, sopt)
	if err != nil {
		return nil, err
	}
	return &Result{Method: m, Tree: t, Report: rep}, nil
}

func learnQuartet(d *data.Dataset, st *stats.Stats, opt Options) (*Result, error) {
	q := opt.Quartet
	o, err := quartet.NewDataOracle(d, q.Test, q.K, 0)
	if err != nil {
		return nil, err
	}
	o.Stats = st
	br, err := quartet.Build(d.Names(), o, quartet.BuildOptions{Reps: q.Reps, Order: q.Order, Candidates: q.Candidates, Rand: opt.rng()})
	if err != nil {
		return nil, err
	}
	t := br.Tree
	return &Result{Method: Quartet, Tree: t,
		Report:  &structure.Report{Method: structure.Method(Quartet), Observed: t.NumObserved(), Hidden: t.NumHidden(), Added: t.NumHidden()},
		Quartet: &QuartetReport{Tests: br.Tests, Unresolved: br.Unresolved}}, nil
}

func learnReg(d *data.Dataset, opt Options, start time.Time) (*Result, error) {
	m := opt.method()
	inner := structure.MethodNJ
	if m == RegCLRG {
		inner = structure.MethodRG
	}
	k := opt.Fit.HiddenStates
	if k == 0 {
		k = 2
	}
	rr, err := regcl.Learn(d, regcl.Options{Inner: inner, HiddenStates: k, MaxHidden: opt.Reg.MaxHidden, SampleHidden: opt.Reg.SampleHidden,
		EM:   model.EMOptions{Tol: opt.Fit.EM.Tol, MaxIter: opt.Fit.EM.MaxIter, Pseudo: opt.Fit.EM.Pseudo, Progress: opt.Fit.EM.Progress},
		Rand: opt.rng()})
	if err != nil {
		return nil, err
	}
	t := rr.Tree
	t.AutoNameHidden("h")
	res := &Result{Method: m, Tree: t, Model: rr.Model, EM: rr.EM,
		Report: &structure.Report{Method: structure.Method(m), Observed: t.NumObserved(), Hidden: t.NumHidden(), Added: t.NumHidden()},
		Reg:    &RegReport{Steps: rr.Steps, Evaluated: rr.Evaluated}}
	res.Timings.Structure = time.Since(start)
	if res.Score, err = rr.Model.Score(d, model.InferOptions{}); err != nil {
		return nil, err
	}
	res.Timings.Total = time.Since(start)
	return res, nil
}
