package model

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/names"
	"github.com/latentree/latentree/tree"
)

// DefaultTol is the one EM stopping tolerance of latentree, used by every
// EM (discrete, Gaussian, the local fits of regularized CLGrouping, Fit)
// when its Tol is zero. Discrete EM by default (StopAuto) stops when its
// estimated remaining gain in log-likelihood is at most DefaultTol·|L|,
// Gaussian EM when it is at most DefaultTol·min(|L|, 100) nat (see
// gaussian.Options.Stop); with StopRelative, when the relative change of
// the log-likelihood between two iterations (or cycles) is at most
// DefaultTol.
const DefaultTol = 1e-6

// DefaultMaxIter bounds EM iterations when MaxIter is zero.
const DefaultMaxIter = 1000

// Init names how Fit starts EM on discrete data.
type Init int

const (
	// InitSurrogate (the default) starts every hidden node as a noisy copy
	// of its surrogate, the nearest observed variable (moment-based and
	// deterministic), and runs EM from there alone unless EM.Restarts > 0.
	InitSurrogate Init = iota
	// InitRandom starts from random parameters: EM.Restarts random starts
	// (default 5) run EM.RestartIter iterations each and the best
	// continues.
	InitRandom
	// InitSpectral starts EM from the spectral estimate (spectral.Fit with
	// the same HiddenStates and Linker) projected onto valid conditional
	// probability tables (spectral.Model.Project, over the surrogate start where
	// the estimate does not determine them), and runs EM from there alone
	// unless EM.Restarts > 0. A tree without hidden nodes needs no start.
	InitSpectral
)

// ParseInit returns the start of EM with the given name, in any case:
// surrogate, random or spectral.
func ParseInit(s string) (Init, error) {
	switch strings.ToLower(s) {
	case "surrogate":
		return InitSurrogate, nil
	case "random":
		return InitRandom, nil
	case "spectral":
		return InitSpectral, nil
	}
	return 0, fmt.Errorf("model: unknown start %q (want surrogate, random or spectral)", s)
}

// FitOptions configures Fit. The zero value fits a discrete model with two
// states per hidden variable from the surrogate start, or a Gaussian model
// from the closed-form start, by EM to DefaultTol.
type FitOptions struct {
	// HiddenStates is the number of states of every hidden variable of a
	// discrete model (0: 2). It must be 0 for continuous data: Gaussian
	// hidden variables have no states.
	HiddenStates int
	// AutoStates chooses the number of states of each hidden variable by
	// BIC (discrete and mixed data): the model is fitted with every uniform
	// number of states from 2 to 5 (and HiddenStates, when outside that
	// range), the best by BIC is kept and, for discrete data, refined node
	// by node by merging and splitting states (discrete.ChooseHiddenStates;
	// mixed data keep the best uniform number, mixed.FitBestStates). The
	// result's BIC is never above that of any of those uniform fits; it
	// costs those fits and a few short EM runs per hidden variable.
	AutoStates bool
	// Init is the start of discrete EM.
	Init Init
	// Params is how a discrete model's parameters are estimated: by EM
	// (the default; Fit returns a *discrete.Model) or spectrally (Fit returns a
	// *spectral.Model and no EMResult; Init, AutoStates and EM must be zero).
	Params Params
	// Linker and SpectralTol configure the spectral estimate (Params
	// ParamsSpectral, or Init InitSpectral); see spectral.Options.
	Linker      Linker
	SpectralTol float64
	// EM configures EM. For continuous data only Tol, MaxIter, Accel,
	// Stop and Progress apply (see gaussian.Options; Gaussian EM has no
	// random starts: Src and Workers are unused); Restarts, RestartIter,
	// KeepInit, Pseudo and Sample must be zero.
	EM EMOptions
}

// Validate reports options that are out of range or do not apply to data
// of the given kind (continuous when gaussian is true, else discrete); see
// ValidateFor.
func (o FitOptions) Validate(gaussian bool) error {
	if gaussian {
		return o.ValidateFor(data.Continuous)
	}
	return o.ValidateFor(data.Discrete)
}

// ValidateFor reports options that are out of range or do not apply to
// data of the given kind: data.Discrete (a discrete or spectral model),
// data.Continuous (a Gaussian model) or data.Mixed (columns of both kinds:
// a conditional-Gaussian model, package mixed). For mixed data only
// HiddenStates (of the discrete hidden variables), AutoStates (the best
// uniform number by BIC, mixed.FitBestStates) and EM's Tol, MaxIter,
// Accel, Restarts, RestartIter, Src, Workers and Progress apply: mixed EM
// starts from moments (with Restarts random starts besides), has no
// pseudo-counts or warm-up on samples, and stops when the relative gain in
// log-likelihood is at most Tol (Stop StopRelative; the zero StopAuto is
// taken for it).
func (o FitOptions) ValidateFor(kind data.Kind) error {
	e := o.EM
	if err := e.validateTol(); err != nil {
		return err
	}
	if e.MaxIter < 0 {
		return fmt.Errorf("model: EM MaxIter %d must be positive (0: %d)", e.MaxIter, DefaultMaxIter)
	}
	if err := e.validateSteps(); err != nil {
		return err
	}
	switch {
	case o.HiddenStates < 0 || o.HiddenStates > data.MaxStates:
		return fmt.Errorf("model: %d hidden states: want 1 to %d (data.MaxStates; 0: 2)", o.HiddenStates, data.MaxStates)
	case o.Init != InitSurrogate && o.Init != InitRandom && o.Init != InitSpectral:
		return fmt.Errorf("model: unknown Init %d", o.Init)
	case o.Params != ParamsEM && o.Params != ParamsSpectral:
		return fmt.Errorf("model: unknown Params %d", o.Params)
	}
	switch {
	case o.Linker != LinkerMStar && o.Linker != LinkerParikh && o.Linker != LinkerMStarFull:
		return fmt.Errorf("model: unknown Linker %d", o.Linker)
	case o.SpectralTol < 0 || o.SpectralTol >= 1 || math.IsNaN(o.SpectralTol):
		return fmt.Errorf("model: spectral tolerance %g must be in [0, 1) (0: DefaultSpectralTol %g)", o.SpectralTol, DefaultSpectralTol)
	}
	if o.Params == ParamsSpectral {
		var bad []string
		if o.AutoStates {
			bad = append(bad, "AutoStates")
		}
		if o.Init != InitSurrogate {
			bad = append(bad, "Init")
		}
		if o.EM.MaxIter != 0 || o.EM.Tol != 0 || o.EM.Restarts != 0 || o.EM.RestartIter != 0 || o.EM.KeepInit || o.EM.Pseudo != 0 || o.EM.Accel != 0 || o.EM.Stop != 0 || o.EM.Sample != 0 {
			bad = append(bad, "EM")
		}
		if len(bad) > 0 {
			return fmt.Errorf("model: %v do not apply to spectral parameters (no EM is run)", bad)
		}
	} else if (o.Linker != LinkerMStar || o.SpectralTol != 0) && o.Init != InitSpectral {
		return errors.New("model: Linker and SpectralTol apply only to spectral parameters or the spectral start")
	}
	switch kind {
	case data.Discrete:
		return nil
	case data.Mixed:
		return o.validateMixed()
	case data.Continuous:
	default:
		return fmt.Errorf("model: no model family for data of kind %v", kind)
	}
	var bad []string
	if o.HiddenStates != 0 {
		bad = append(bad, "HiddenStates")
	}
	if o.AutoStates {
		bad = append(bad, "AutoStates")
	}
	if o.Init != InitSurrogate {
		bad = append(bad, "Init")
	}
	if o.Params != ParamsEM {
		bad = append(bad, "Params")
	}
	if e.Restarts != 0 || e.RestartIter != 0 || e.KeepInit {
		bad = append(bad, "EM restarts")
	}
	if e.Pseudo != 0 {
		bad = append(bad, "EM.Pseudo")
	}
	if e.Sample != 0 {
		bad = append(bad, "EM.Sample")
	}
	if len(bad) > 0 {
		return fmt.Errorf("model: %v do not apply to continuous data (a Gaussian latent tree has no hidden states, restarts or pseudo-counts)", bad)
	}
	return nil
}

// validateMixed reports the options that do not apply to mixed data (see
// ValidateFor).
func (o FitOptions) validateMixed() error {
	e := o.EM
	var bad []string
	if o.Init != InitSurrogate {
		bad = append(bad, "Init")
	}
	if o.Params != ParamsEM {
		bad = append(bad, "Params")
	}
	if e.KeepInit {
		bad = append(bad, "EM.KeepInit")
	}
	if e.Pseudo != 0 {
		bad = append(bad, "EM.Pseudo")
	}
	if e.Sample != 0 {
		bad = append(bad, "EM.Sample")
	}
	if len(bad) > 0 {
		return fmt.Errorf("model: %v do not apply to mixed data (a conditional-Gaussian latent tree is fitted by its own EM from a moment-based start, with Restarts random starts besides, no pseudo-counts and no warm-up on samples; it stops when the relative gain in log-likelihood is at most Tol)", bad)
	}
	return nil
}

// Fit fits a latent tree model with structure t to d, choosing the family:
// a Gaussian model (gaussian.Fit) when every column is continuous; a
// discrete model (discrete.ForData, the start of Init,
// discrete.Model.FitEM, and discrete.ChooseHiddenStates when AutoStates)
// when every column is discrete; a spectral model (spectral.Fit) for
// Params ParamsSpectral; a conditional-Gaussian model (mixed.Fit, with the
// options mixed.FitOptionsOf translates) when the data mix continuous and
// discrete columns (see ValidateFor for the options that apply). The chosen family must
// be registered (see Register). The EMResult describes the EM run that
// produced the returned model, and its LogLik is that model's
// log-likelihood of d.
func Fit(t *tree.Tree, d *data.Dataset, opt FitOptions) (Model, *EMResult, error) {
	if t == nil {
		return nil, nil, errors.New("model: no tree")
	}
	if d == nil || d.NumRows() == 0 {
		return nil, nil, errors.New("model: no data rows to fit")
	}
	kind := data.Discrete
	switch {
	case d.AllContinuous():
		kind = data.Continuous
	case !d.AllDiscrete():
		kind = data.Mixed
	}
	if kind == data.Mixed && opt.Params == ParamsSpectral {
		return nil, nil, fmt.Errorf("model: spectral parameters need discrete data; these data mix the kinds (continuous: %s; discrete: %s)", names.Cap(kindNames(d, data.Continuous), 5), names.Cap(kindNames(d, data.Discrete), 5))
	}
	gaussian := kind == data.Continuous
	if err := opt.ValidateFor(kind); err != nil {
		return nil, nil, err
	}
	em := opt.EM
	if em.Tol == 0 {
		em.Tol = DefaultTol
	}
	if em.MaxIter == 0 {
		em.MaxIter = DefaultMaxIter
	}
	// Choose the family: a new family adds its case here.
	name := "discrete"
	switch {
	case gaussian && opt.Params == ParamsSpectral:
		return nil, nil, errors.New("model: spectral parameters need discrete data; these data are continuous")
	case gaussian:
		name = "gaussian"
	case kind == data.Mixed:
		name = "mixed"
	case opt.Params == ParamsSpectral:
		name = "spectral"
		if opt.HiddenStates == 0 {
			opt.HiddenStates = 2
		}
	}
	if name != "gaussian" {
		if err := checkModelSize(t, d, max(opt.HiddenStates, 2)); err != nil {
			return nil, nil, err
		}
	}
	f, err := family(name)
	if err != nil {
		return nil, nil, err
	}
	opt.EM = em
	return f.Fit(t, d, opt)
}

// kindNames lists the names of d's columns of the given kind.
func kindNames(d *data.Dataset, k data.Kind) []string {
	var out []string
	for j := 0; j < d.NumVars(); j++ {
		if v := d.Var(j); v.Kind == k {
			out = append(out, v.Name)
		}
	}
	return out
}

// MaxModelCells is the most parameters (conditional probabilities, one
// per pair of states of each edge's ends) Fit allows a discrete model:
// 2 GiB of float64 at this limit, before the working memory of EM.
const MaxModelCells = 1 << 28

// A ModelSizeError is a discrete model too large to fit: its tables would
// hold Cells parameters, more than MaxModelCells, with HiddenStates
// states per hidden variable. It is found before anything is allocated.
type ModelSizeError struct {
	Cells        float64
	HiddenStates int
}

func (e *ModelSizeError) Error() string {
	return fmt.Sprintf("model: %d hidden states make a model of %.3g parameters, more than the limit of %d (MaxModelCells); give fewer hidden states",
		e.HiddenStates, e.Cells, MaxModelCells)
}

// checkModelSize returns a *ModelSizeError when a discrete model on t with
// k states per hidden variable and d's states for the observed ones would
// have more than MaxModelCells parameters (counted in float64, so that no
// product overflows).
func checkModelSize(t *tree.Tree, d *data.Dataset, k int) error {
	states := func(v int) float64 {
		if t.IsHidden(v) {
			return float64(k)
		}
		if j, ok := d.Index(t.Name(v)); ok {
			return float64(max(len(d.Var(j).States), 1))
		}
		return float64(k)
	}
	cells := 0.0
	for _, e := range t.Edges() {
		cells += states(e.U) * states(e.V)
	}
	if cells > MaxModelCells {
		return &ModelSizeError{Cells: cells, HiddenStates: k}
	}
	return nil
}
