package learn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/mixed"
	_ "github.com/latentree/latentree/model/spectral" // registers the spectral family (Options.Fit may ask for it)
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
	// continuous pairs, Lake's determinant distance for discrete ones with
	// equal numbers of states, the rank-k distance for discrete ones with
	// different numbers, and distance.Mixed for data that mix the two
	// kinds; a Mixed distance of rank k > 2 is computed on the data with
	// the continuous columns cut into quantile bins, which needs rows).
	Kind distance.Kind
	// Rank > 0 uses the rank-k discrete distance. Rank 0 uses Lake's
	// determinant distance when every observed variable has the same
	// number of states, and otherwise the rank-k distance with k the
	// number of hidden states (Fit.HiddenStates, default 2) capped by the
	// smallest number of states of an observed variable
	// (distance.DefaultRank, which says why; on mixed data the Mixed
	// distance always has a rank, 2 by default). Result.DistanceRank
	// reports the rank used.
	Rank int
	// Pseudo is a pseudo-count added to every cell of the pairwise count
	// tables (0: none).
	Pseudo float64
}

// ContractRule decides which edges at hidden nodes the clnj, clrg, nj and
// rg learners contract after learning.
type ContractRule int

const (
	// ContractAuto is ContractBIC when parameters are fitted (Learn
	// without StructureOnly) and the search is affordable (variables² ×
	// rows at most AutoBICBudget, MixedBICBudget on data that mix the
	// kinds), or when the structure alone is learned from all-continuous
	// data without missing cells or their statistics (the BIC from the
	// covariance, see Options.StructureOnly; variables³ at most
	// AutoBICBudget), and ContractThreshold otherwise, or when Threshold
	// or KeepHiddenEdges is set.
	ContractAuto ContractRule = iota
	// ContractBIC contracts an edge only when the BIC of the fitted model
	// improves (ContractByBIC), and falls back to the Chow–Liu tree when
	// that has the better BIC: the result's BIC is never worse than that
	// of the uncontracted tree or of the Chow–Liu tree. It needs rows, or
	// the covariance of all-continuous data without missing cells.
	ContractBIC
	// ContractAIC is ContractBIC with AIC: it keeps more hidden variables
	// at small sample sizes.
	ContractAIC
	// ContractThreshold contracts every edge shorter than Threshold (the
	// paper's ε′ rule).
	ContractThreshold
)

// AutoBICBudget bounds variables² × rows for which ContractAuto searches
// contractions by BIC: the search fits a model per candidate edge (about 3
// per variable), so its cost grows like variables² × rows; at the bound it
// takes a few minutes on 2 cores for binary data. Larger data get the
// threshold rule unless ContractBIC is asked for.
const AutoBICBudget = 5e8

// MixedBICBudget is AutoBICBudget for data that mix continuous and
// discrete columns: a mixed E-step costs more per cell (Gaussian messages
// below the discrete states), and the search by BIC on 31 columns ×
// 10,000 rows (about 10⁷) took some 25 s of CPU, so that the bound again
// means a few minutes on 2 cores.
const MixedBICBudget = 1e8

var ruleNames = map[ContractRule]string{ContractAuto: "auto", ContractBIC: "bic", ContractAIC: "aic", ContractThreshold: "threshold"}

func (r ContractRule) String() string {
	if s, ok := ruleNames[r]; ok {
		return s
	}
	return fmt.Sprintf("ContractRule(%d)", int(r))
}

// MarshalText writes the rule's name.
func (r ContractRule) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// ParseContractRule returns the rule with the given name: auto, bic, aic
// or threshold.
func ParseContractRule(s string) (ContractRule, error) {
	for r, n := range ruleNames {
		if n == s {
			return r, nil
		}
	}
	return 0, fmt.Errorf("learn: unknown contraction rule %q (want auto, bic, aic or threshold)", s)
}

// ContractOptions configures the contraction of edges at hidden nodes
// after the clnj, clrg, nj and rg learners.
type ContractOptions struct {
	// Rule chooses how (default ContractAuto).
	Rule ContractRule
	// Threshold is ε′ of ContractThreshold: edges shorter than it are
	// contracted (0: structure.DefaultContract; negative: never).
	Threshold float64
	// KeepHiddenEdges never contracts an edge between two hidden nodes
	// under ContractThreshold (the paper contracts only observed–hidden
	// edges).
	KeepHiddenEdges bool
	// Prune configures ContractBIC and ContractAIC (its AIC field is set
	// by the rule).
	Prune PruneOptions
	// AutoBudget replaces AutoBICBudget (and MixedBICBudget) for
	// ContractAuto (0: AutoBICBudget, or MixedBICBudget on mixed data).
	AutoBudget float64
}

// ContractReport says what the score-guided contraction did.
type ContractReport struct {
	Rule ContractRule `json:"rule"`
	// Contracted counts the contractions kept, Evaluated the candidate
	// trees scored.
	Contracted int `json:"contracted"`
	Evaluated  int `json:"evaluated"`
	// InitialBIC is the BIC of the uncontracted tree's model, BIC that of
	// the result (−2 log L + κ log n on the training data).
	InitialBIC float64 `json:"initial_bic"`
	BIC        float64 `json:"bic"`
	// ChowLiu is true when the Chow–Liu tree scored better than every
	// contraction and was returned instead.
	ChowLiu bool `json:"chow_liu"`
	// Kept says which model was returned: "contracted" (the contracted
	// tree), "chowliu" (the Chow–Liu tree), "kinds" (on mixed data, the
	// trees of each kind learned alone and joined by one edge) or "lcm"
	// (the best latent
	// class model, which discrete data are also compared with).
	Kept string `json:"kept"`
	// LCM is the comparison's latent class fits (discrete data of at
	// most CompareLCMBudget variables × rows; nil otherwise).
	LCM *LCMReport `json:"lcm,omitempty"`
	// Covariance is true when the BIC came from the Gaussian moments of
	// the data (their covariance and row count) without fitting a model to
	// return: structure only, or from statistics.
	Covariance bool `json:"covariance,omitempty"`
	// InitialEM is the E-steps and time by phase of the uncontracted
	// tree's fit, which the search starts from (the final EM is
	// Result.EM); SearchSeconds the wall-clock time of the whole search,
	// that fit included.
	InitialEM     *model.EMPhases `json:"initial_em,omitempty"`
	SearchSeconds float64         `json:"search_seconds,omitempty"`
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
	// from the data). Its zero Grouping (structure.GroupDefault) means
	// silhouette grouping here, also when τ or ε are set.
	RG      structure.RGOptions
	Quartet QuartetOptions
	Reg     RegOptions
	// LCM configures the latent class method.
	LCM LCMOptions
	// Fit configures parameter learning (model.Fit). For regclnj and
	// regclrg only HiddenStates and EM's Tol, MaxIter and Pseudo apply.
	// With spectral parameters (Fit.Params) or the spectral start, a
	// contraction by BIC scores EM fits from the default start and the
	// chosen tree is then fitted as Fit says. Learn chooses the numbers of
	// hidden states by BIC (as Fit.AutoStates) when Fit.HiddenStates is 0
	// and Fit asks for EM from the default start, every column is discrete
	// and some has more than 2 states, and
	// variables² × rows is at most AutoStatesBudget; otherwise 0 means 2
	// states (Result.HiddenStates says which was used).
	Fit model.FitOptions
	// StructureOnly skips parameter learning: the result has a tree and
	// no model. The contraction of the clnj, clrg, nj and rg learners is
	// then by threshold, except on all-continuous data without missing
	// cells (and statistics of such data, FromStats and LearnSource),
	// where ContractAuto, ContractBIC and ContractAIC search contractions
	// by the Gaussian BIC (or AIC) from the data's covariance as Learn
	// does (gaussian.Contractor; the models of the search are not
	// returned), with the Chow–Liu tree as baseline, so that the tree
	// never has a lower Gaussian log-likelihood than the Chow–Liu tree;
	// Result.Contraction reports the search (Covariance true). BIC or AIC
	// on other data is an error. (A discrete latent tree's likelihood
	// needs the rows, not only the pair counts: discrete structure-only
	// contraction stays by threshold.)
	StructureOnly bool
	// ContractProgress, if not nil, is called during the search for
	// contractions by BIC or AIC with the numbers of candidate trees
	// scored and contractions kept so far.
	ContractProgress func(evaluated, contracted int)
	// Workers bounds the goroutines of every stage (0: GOMAXPROCS).
	// Results do not depend on it.
	Workers int
	// MaxPairBytes bounds the memory of the pair statistics computed from
	// data (stats.Options.MaxPairBytes; 0: stats.DefaultMaxPairBytes):
	// wider data are refused before the statistics are computed.
	MaxPairBytes int64
	// Src drives everything random: the quartet method's random order,
	// EM restarts and random starts, regularized CLGrouping's sampling of
	// hidden variables (nil: the fixed seed rand.NewPCG(1, 0x1ea7), the
	// CLI's default --seed).
	Src rand.Source
}

// Timings are the wall-clock times of the stages.
type Timings struct {
	Stats     time.Duration `json:"stats_ns"`
	Structure time.Duration `json:"structure_ns"`
	// Fit includes the score-guided contraction, which fits a model per
	// candidate.
	Fit   time.Duration `json:"fit_ns"`
	Total time.Duration `json:"total_ns"`
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
	// DistanceRank is the rank k of the discrete information distance the
	// structure was learned from: DistanceOptions.Rank when set, else
	// distance.DefaultRank (k > 0 when the observed variables have
	// different numbers of states). 0 means Lake's determinant distance, a
	// Gaussian or symmetric distance, or a method without distances.
	DistanceRank int `json:"distance_rank"`
	Quartet      *QuartetReport
	Reg          *RegReport
	// LCM is the latent class method's table of fits.
	LCM *LCMReport
	// Contraction is set when the contraction was chosen by a score.
	Contraction *ContractReport
	// ContractRule is the rule in effect (for the methods that contract).
	ContractRule ContractRule
	// HiddenStates says how the numbers of hidden states of a discrete
	// Model were chosen (nil without one, or without hidden variables).
	HiddenStates *StatesReport
	// Mixed describes the conditional-Gaussian model fitted to data that
	// mix continuous and discrete columns (nil for other models).
	Mixed *MixedReport
	// Model, EM and Score are nil when no parameters were fitted.
	Model model.Model
	EM    *model.EMResult
	// Score is the model's score on the training data.
	Score *model.Score
	// Rows is the number of data rows learned from (0 for FromDistances).
	Rows    int `json:"rows"`
	Timings Timings
}

// Validate reports options that are out of range or do not apply to the
// method, naming them. A value out of range is an *OptionError, which
// names the field (a command-line tool can name its flag).
func (o *Options) Validate() error {
	m := o.Method
	if m == "" {
		m = CLNJ
	}
	if !m.valid() {
		_, err := ParseMethod(string(m))
		return err
	}
	for _, g := range optionGroups {
		if g.set(o) && !g.Applies(m) {
			return fmt.Errorf("learn: %s do not apply to method %s", g.What, m)
		}
	}
	switch r := o.Contract.Rule; {
	case r < ContractAuto || r > ContractThreshold:
		return fmt.Errorf("learn: unknown contraction rule %d", r)
	case (r == ContractBIC || r == ContractAIC) && (o.Contract.Threshold != 0 || o.Contract.KeepHiddenEdges):
		return fmt.Errorf("learn: Threshold and KeepHiddenEdges apply to ContractThreshold, not %s", r)
	case o.Contract.AutoBudget < 0 || math.IsNaN(o.Contract.AutoBudget):
		return fmt.Errorf("learn: AutoBudget %g is negative", o.Contract.AutoBudget)
	case (r == ContractThreshold) && o.Contract.Prune != (PruneOptions{}):
		return errors.New("learn: Prune options apply to ContractBIC and ContractAIC, not threshold")
	}
	if m == LCM {
		switch {
		case o.Fit.AutoStates:
			return errors.New("learn: lcm chooses the number of classes by BIC; give Fit.HiddenStates a number (or 0), not Fit.AutoStates")
		case o.Fit.Params != model.ParamsEM || o.Fit.Init == model.InitSpectral:
			return errors.New("learn: lcm fits by EM from random starts; spectral parameters and starts do not apply")
		case o.LCM.MaxClasses < 0:
			return &OptionError{Option: "LCM.MaxClasses", Value: o.LCM.MaxClasses, Want: "0 (DefaultMaxClasses) or more"}
		case o.LCM.Restarts < 0:
			return &OptionError{Option: "LCM.Restarts", Value: o.LCM.Restarts, Want: "0 (DefaultLCMRestarts) or more"}
		case o.LCM.BLRT < 0:
			return &OptionError{Option: "LCM.BLRT", Value: o.LCM.BLRT, Want: "0 (no test) or more replicates"}
		case o.LCM.BLRTStarts < 0:
			return &OptionError{Option: "LCM.BLRTStarts", Value: o.LCM.BLRTStarts, Want: "0 (DefaultBLRTStarts) or more"}
		case o.LCM.BLRTFirst < 0:
			return &OptionError{Option: "LCM.BLRTFirst", Value: o.LCM.BLRTFirst, Want: "0 or more"}
		case o.LCM.BLRT > 0 && o.Fit.HiddenStates == 1:
			return &OptionError{Option: "LCM.BLRT", Value: o.LCM.BLRT, Want: "0 with 1 class (the test compares k−1 with k ≥ 2 classes)"}
		}
	}
	if m.Regularized() {
		if o.Fit.AutoStates {
			return &AutoStatesError{Method: m}
		}
		if o.StructureOnly {
			return fmt.Errorf("learn: %s fits parameters while it learns the structure; it has no structure-only mode", m)
		}
	}
	bad := func(what, option string, value any, want string) error {
		return &OptionError{What: what, Option: option, Value: value, Want: want}
	}
	switch {
	case o.Samples < 0:
		return bad("", "Samples", o.Samples, "0 (exact distances) or more")
	case o.Fit.HiddenStates < 0 || o.Fit.HiddenStates > data.MaxStates:
		return bad("hidden states", "Fit.HiddenStates", o.Fit.HiddenStates, fmt.Sprintf("1 to %d (data.MaxStates; 0: the default)", data.MaxStates))
	case o.Distance.Rank < 0:
		return bad("distance rank", "Distance.Rank", o.Distance.Rank, "0 (full rank) or more")
	case o.Distance.Pseudo < 0 || math.IsNaN(o.Distance.Pseudo) || math.IsInf(o.Distance.Pseudo, 0):
		return bad("pseudo-count", "Distance.Pseudo", o.Distance.Pseudo, "a finite value ≥ 0")
	case math.IsNaN(o.Contract.Threshold) || math.IsInf(o.Contract.Threshold, 0):
		return bad("contraction threshold", "Contract.Threshold", o.Contract.Threshold, "a finite number")
	case o.RG.Tau < 0 || math.IsNaN(o.RG.Tau):
		return bad("RG τ", "RG.Tau", o.RG.Tau, "a positive distance")
	case o.RG.Eps < 0 || math.IsNaN(o.RG.Eps) || math.IsInf(o.RG.Eps, 0):
		return bad("RG ε", "RG.Eps", o.RG.Eps, "a positive finite value")
	case o.Quartet.K < 0:
		return bad("Spectral@k", "Quartet.K", o.Quartet.K, "at least 1 (0: 2)")
	case o.Quartet.K > 0 && o.Quartet.Test != quartet.TestSpectral:
		return errors.New("learn: Quartet.K applies to the spectral test only")
	case o.Quartet.Reps < 0:
		return bad("quartet representatives", "Quartet.Reps", o.Quartet.Reps, "at least 1 (0: 1)")
	case o.Workers < 0:
		return bad("", "Workers", o.Workers, "0 (GOMAXPROCS) or more")
	case o.MaxPairBytes < 0:
		return bad("pair statistics memory", "MaxPairBytes", o.MaxPairBytes, "0 (the default of stats) or more bytes")
	case o.Reg.MaxHidden < 0:
		return bad("", "Reg.MaxHidden", o.Reg.MaxHidden, "0 (until the BIC stops improving) or more")
	}
	return nil
}

// An AutoStatesError is Fit.AutoStates given to a regularized method,
// which chooses its hidden variables by BIC with a fixed number of states.
type AutoStatesError struct{ Method Method }

func (e *AutoStatesError) Error() string {
	return fmt.Sprintf("learn: %s chooses hidden variables by BIC with a fixed number of states; give Fit.HiddenStates a number, not Fit.AutoStates", e.Method)
}

// An OptionError is an option whose value is out of range, as Validate
// reports it.
type OptionError struct {
	// What describes the option ("" when Option says it).
	What string
	// Option is the field, as a Go program names it from Options:
	// "Distance.Rank", "RG.Tau", ...
	Option string
	// Value is the value given, Want what it must be.
	Value any
	Want  string
}

func (e *OptionError) Error() string {
	if e.What == "" {
		return fmt.Sprintf("learn: %s %v: want %s", e.Option, e.Value, e.Want)
	}
	return fmt.Sprintf("learn: %s (%s) %v: want %s", e.What, e.Option, e.Value, e.Want)
}

// statsOptions are the options of the statistics computed from data.
func (o *Options) statsOptions() stats.Options {
	return stats.Options{Workers: o.Workers, MaxPairBytes: o.MaxPairBytes}
}

func (o *Options) rng() rand.Source {
	return seed.Or(o.Src, seed.Learn)
}

// Learn learns a latent tree from d with the chosen method and, unless
// StructureOnly, fits its parameters (model.Fit) and scores it on d. A
// column that looks like a row identifier is a *data.IdentifierError
// (data.CheckIdentifiers).
//
// On data that mix continuous and discrete columns the model is
// conditional-Gaussian (package mixed), learned from the mixed information
// distances and fitted by mixed EM; Result.Mixed says so. A continuous
// variable the learner put between discrete ones is first hung under a
// new discrete hidden node (MixedReport.Repaired), since no discrete node
// of such a model has a continuous parent. The regularized methods and lcm
// fit discrete or Gaussian models only: on mixed data they are a
// *MixedKindsError unless StructureOnly.
func Learn(d *data.Dataset, opt Options) (*Result, error) {
	start := time.Now()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if d == nil || d.NumRows() == 0 {
		return nil, errors.New("learn: no data rows")
	}
	if err := data.CheckIdentifiers(d); err != nil {
		return nil, err
	}
	m := opt.method()
	kind := dataKind(d)
	if cov := opt.LCM.Covariates; len(cov) > 0 {
		// The kinds of the model's variables: covariates may be continuous.
		items, err := d.SelectNames(withoutCovariates(d.Names(), cov))
		if err != nil {
			return nil, err
		}
		kind = dataKind(items)
	}
	if !opt.StructureOnly {
		// Report, before any work, data that parameters cannot be fitted
		// to and fit options that do not apply to them.
		if kind == data.Mixed && (m.Regularized() || m == LCM) {
			return nil, mixedKinds(m, d.Vars(), d)
		}
		if !m.Regularized() {
			if err := opt.Fit.ValidateFor(kind); err != nil {
				return nil, err
			}
		}
	}
	if m == LCM {
		return learnLCM(d, opt, start)
	}
	byDefault := opt.defaultAutoStates(d)
	if byDefault {
		opt.Fit.AutoStates = true
	}
	if m.Regularized() {
		return learnReg(d, opt, start)
	}
	t0 := time.Now()
	st, err := stats.Compute(d, opt.statsOptions())
	if err != nil {
		return nil, err
	}
	statsTime := time.Since(t0)
	if opt.StructureOnly {
		mom, rule, err := structureMoments(st, opt)
		if err != nil {
			return nil, err
		}
		if mom != nil {
			res, err := structureByBIC(st, d, mom, rule, opt)
			if err != nil {
				return nil, err
			}
			res.Timings.Stats, res.Rows, res.Timings.Total = statsTime, d.NumRows(), time.Since(start)
			return res, nil
		}
	}
	rule := opt.rule(!opt.StructureOnly)
	if opt.Contract.Rule == ContractAuto && rule == ContractBIC && !opt.autoAffordable(d) {
		rule = ContractThreshold
	}
	scored := m.Contracts() && (rule == ContractBIC || rule == ContractAIC)
	sopt := opt
	if scored {
		// Learn without contraction; the score decides below.
		sopt.Contract = ContractOptions{Rule: ContractThreshold, Threshold: -1, KeepHiddenEdges: true}
	}
	res, err := fromStats(st, d, sopt)
	if err != nil {
		return nil, err
	}
	res.Timings.Stats = statsTime
	res.Rows = d.NumRows()
	if m.Contracts() {
		res.ContractRule = rule
	}
	var repaired []string
	var table *uniformTable // the fit table of --hidden-states auto
	if kind == data.Mixed && !opt.StructureOnly {
		if repaired, err = mixed.Repair(res.Tree, kindOf(d)); err != nil {
			return nil, err
		}
		res.Tree.AutoNameHidden("h")
		res.Report.Hidden = res.Tree.NumHidden()
	}
	if scored {
		t1 := time.Now()
		cl, err := baselineTree(st, d, kind, opt)
		if err != nil {
			return nil, err
		}
		popt := opt.pruneOptions(rule)
		fit := opt.Fit
		fit.EM.Progress = nil // the search reports through ContractProgress
		refit := fit.Params == model.ParamsSpectral || fit.Init == model.InitSpectral
		if refit {
			// The search scores EM fits; the chosen tree is fitted as asked.
			fit.Params, fit.Init, fit.Linker, fit.SpectralTol = model.ParamsEM, model.InitSurrogate, model.LinkerMStar, 0
			if opt.Fit.Params == model.ParamsSpectral {
				fit.EM = model.EMOptions{Workers: opt.Fit.EM.Workers}
			}
		}
		pr, ut, err := contractStates(res.Tree, d, fit, popt, opt.ContractProgress, cl)
		table = ut
		if err != nil {
			return nil, err
		}
		if kind == data.Mixed {
			if err := keepKinds(pr, st, d, opt, fit); err != nil {
				return nil, err
			}
		}
		res.Tree, res.Model, res.EM = pr.Tree, pr.Model, pr.EM
		if refit {
			if opt.Fit.Params == model.ParamsSpectral && res.Tree.NumHidden() == 0 {
				return nil, errors.New("learn: the search by BIC chose a tree without hidden variables, and spectral parameters need hidden nodes (fit by EM, or contract by threshold)")
			}
			if res.Model, res.EM, err = model.Fit(res.Tree, d, opt.Fit); err != nil {
				return nil, err
			}
		}
		res.Contraction = &ContractReport{Rule: rule, Contracted: pr.Contracted, Evaluated: pr.Evaluated,
			InitialBIC: pr.InitialBIC, BIC: pr.BIC, ChowLiu: pr.Baseline == 0, Kept: "contracted", SearchSeconds: pr.SearchTime.Seconds()}
		if pr.InitialEM != nil {
			ph := pr.InitialEM.Phases
			res.Contraction.InitialEM = &ph
		}
		switch pr.Baseline {
		case 0:
			res.Contraction.Kept = "chowliu"
		case 1:
			res.Contraction.Kept = "kinds"
		}
		if !refit && d.AllDiscrete() && float64(d.NumVars())*float64(d.NumRows()) <= CompareLCMBudget {
			if err := keepLCM(res, d, fit, popt.AIC); err != nil {
				return nil, err
			}
		}
		if err := renameHidden(res.Tree); err != nil {
			return nil, err
		}
		res.Report.Contracted = pr.Contracted
		res.Report.Hidden = res.Tree.NumHidden()
		if res.Score, err = res.Model.Score(d, model.InferOptions{}); err != nil {
			return nil, err
		}
		res.Timings.Fit = time.Since(t1)
	} else if !opt.StructureOnly {
		t1 := time.Now()
		if opt.Fit.AutoStates && kind == data.Discrete && opt.Fit.Params == model.ParamsEM && res.Tree.NumHidden() > 0 {
			if table, err = fitAutoTable(res, d, opt.Fit); err != nil {
				return nil, err
			}
		} else if res.Model, res.EM, err = model.Fit(res.Tree, d, opt.Fit); err != nil {
			return nil, err
		}
		if res.Score, err = res.Model.Score(d, model.InferOptions{}); err != nil {
			return nil, err
		}
		res.Timings.Fit = time.Since(t1)
	}
	if dm, ok := res.Model.(*discrete.Model); ok {
		dm.Canonicalize() // (the search by BIC ends in EM runs of its own)
	}
	res.HiddenStates = statesReport(res.Model, opt.Fit.AutoStates, byDefault)
	table.set(res.HiddenStates)
	if mm, ok := res.Model.(*mixed.Model); ok {
		if res.Mixed, err = mixedReport(mm, d.Vars(), d, repaired, opt.Fit.AutoStates); err != nil {
			return nil, err
		}
	}
	res.Timings.Total = time.Since(start)
	return res, nil
}

// rule is the contraction rule in effect; fitting says whether parameters
// are fitted to rows.
func (o *Options) rule(fitting bool) ContractRule {
	c := o.Contract
	if c.Rule != ContractAuto {
		return c.Rule
	}
	if !fitting || c.Threshold != 0 || c.KeepHiddenEdges {
		return ContractThreshold
	}
	return ContractBIC
}

// autoAffordable reports whether ContractAuto may search by BIC on d:
// within AutoBudget, or by default AutoBICBudget, or MixedBICBudget for
// data that mix the kinds.
func (o *Options) autoAffordable(d *data.Dataset) bool {
	return o.affordableKind(d.NumVars(), d.NumRows(), dataKind(d) == data.Mixed)
}

// affordableKind is affordable, with MixedBICBudget for data that mix
// the kinds (mixed) unless AutoBudget is set.
func (o *Options) affordableKind(vars, rows int, mixed bool) bool {
	if o.Contract.AutoBudget == 0 && mixed {
		v := float64(vars)
		return v*v*float64(rows) <= MixedBICBudget
	}
	return o.affordable(vars, rows)
}

// affordable reports whether ContractAuto may search by BIC on data of
// the given size.
func (o *Options) affordable(vars, rows int) bool {
	budget := o.Contract.AutoBudget
	if budget == 0 {
		budget = AutoBICBudget
	}
	v := float64(vars)
	return v*v*float64(rows) <= budget
}

func (o *Options) method() Method {
	if o.Method == "" {
		return CLNJ
	}
	return o.Method
}

// renameHidden names the hidden nodes h1, h2, ... afresh (contraction
// leaves gaps).
func renameHidden(t *tree.Tree) error {
	for _, h := range t.Hidden() {
		if err := t.SetName(h, ""); err != nil {
			return err
		}
	}
	t.AutoNameHidden("h")
	return nil
}

// FromStats learns the structure from sufficient statistics. It returns
// no parameters, and methods that need rows (quartet, regclnj, regclrg)
// are an error. When every variable is continuous and observed in every
// row, the contraction is chosen by BIC (ContractAuto, ContractBIC) or AIC
// from the covariance, which is all a Gaussian latent tree's likelihood
// needs, with the Chow–Liu tree as floor (see Options.StructureOnly);
// otherwise by threshold, and BIC or AIC are an error.
func FromStats(st *stats.Stats, opt Options) (*Result, error) {
	start := time.Now()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if st == nil {
		return nil, errors.New("learn: no statistics")
	}
	mom, rule, err := structureMoments(st, opt)
	if err != nil {
		return nil, err
	}
	var res *Result
	if mom != nil {
		res, err = structureByBIC(st, nil, mom, rule, opt)
	} else {
		res, err = fromStats(st, nil, opt)
	}
	if err != nil {
		return nil, err
	}
	res.Rows = int(st.Rows())
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
		t, err := chowLiu(st, opt.Distance.Pseudo)
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
		dm, degen, rank, err := opt.informationDistances(st, d)
		if err != nil {
			return nil, err
		}
		if res, err = structureFrom(dm, rows, opt); err != nil {
			return nil, err
		}
		res.Degenerate, res.DistanceRank = degen, rank
	}
	res.Timings.Structure = time.Since(t1)
	res.Tree.AutoNameHidden("h")
	return res, nil
}

// distanceRank is the rank of the discrete distance for st: the one asked
// for, else distance.DefaultRank with the hidden-state count of the fit (0
// for the determinant distance and for kinds that have no rank).
func (o *Options) distanceRank(st *stats.Stats) int {
	disc, _ := hasKinds(st)
	switch {
	case o.Distance.Kind != distance.Auto && o.Distance.Kind != distance.Discrete && o.Distance.Kind != distance.Mixed, !disc:
		return 0
	case o.Distance.Rank > 0:
		return o.Distance.Rank
	}
	return distance.DefaultRank(st, o.Fit.HiddenStates)
}

// chowLiu returns the Chow–Liu tree of the statistics' variables.
func chowLiu(st *stats.Stats, pseudo float64) (*tree.Tree, error) {
	mi, err := distance.MutualInformation(st, pseudo)
	if err != nil {
		return nil, err
	}
	return structure.ChowLiu(st.Names(), mi)
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
	if r := opt.rule(false); r != ContractThreshold {
		return nil, fmt.Errorf("learn: contraction by %s fits parameters to rows; FromDistances has none", r)
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
	if m.UsesRG() && opt.RG.Grouping == structure.GroupDefault {
		// Setting τ or ε alone keeps the default grouping.
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
	names := d.Names()
	d, st, err := opt.quartetData(d, st)
	if err != nil {
		return nil, err
	}
	o, err := quartet.NewDataOracle(d, q.Test, q.K, 0)
	if err != nil {
		return nil, err
	}
	o.Stats = st
	br, err := quartet.Build(names, o, quartet.BuildOptions{Reps: q.Reps, Order: q.Order, Candidates: q.Candidates, Src: opt.rng()})
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
	rr, err := regcl.Learn(d, regcl.Options{Inner: inner, HiddenStates: opt.Fit.HiddenStates, MaxHidden: opt.Reg.MaxHidden, SampleHidden: opt.Reg.SampleHidden,
		EM: model.EMOptions{Tol: opt.Fit.EM.Tol, MaxIter: opt.Fit.EM.MaxIter, Pseudo: opt.Fit.EM.Pseudo, Progress: opt.Fit.EM.Progress,
			Accel: opt.Fit.EM.Accel, Stop: opt.Fit.EM.Stop},
		Src: opt.rng()})
	if err != nil {
		return nil, err
	}
	t := rr.Tree
	t.AutoNameHidden("h")
	res := &Result{Method: m, Tree: t, Model: rr.Model, EM: rr.EM, Rows: d.NumRows(),
		Report: &structure.Report{Method: structure.Method(m), Observed: t.NumObserved(), Hidden: t.NumHidden(), Added: t.NumHidden()},
		Reg:    &RegReport{Steps: rr.Steps, Evaluated: rr.Evaluated}, HiddenStates: statesReport(rr.Model, false, false)}
	res.Timings.Structure = time.Since(start)
	if res.Score, err = rr.Model.Score(d, model.InferOptions{}); err != nil {
		return nil, err
	}
	res.Timings.Total = time.Since(start)
	return res, nil
}
