package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// EMOptions configures the EM of a discrete model (discrete.Model.FitEM,
// discrete.FitSource, and Fit, which gives Gaussian EM only MaxIter, Tol,
// Accel, Stop and Progress). The zero value runs 5 random restarts of 10
// plain EM iterations, then SQUAREM-accelerated EM (AccelSQUAREM) from the
// best start until StopAuto's bound on the remaining gain in
// log-likelihood is at most DefaultTol·|L|. The protocol of Song et al.
// (2013), plain EM from 5 random starts stopped at relative change 1e-4,
// is EMOptions{Accel: AccelNone, Stop: StopRelative, Tol: 1e-4} (here the
// restarts are 10-iteration screens and only the best runs to the end).
type EMOptions struct {
	// MaxIter bounds the E-steps of the final run (default
	// DefaultMaxIter). A plain EM iteration is one E-step; a SQUAREM cycle
	// takes three.
	MaxIter int
	// Tol is the tolerance of the stopping rule (default DefaultTol); see
	// Stop.
	Tol float64
	// Accel selects the acceleration of the final run (zero: SQUAREM).
	Accel Accel
	// Stop selects the stopping rule (zero: StopAuto).
	Stop Stop
	// Restarts is the number of random initialisations tried (default
	// 5); each runs RestartIter plain EM iterations (default 10) and the
	// best continues. Negative: no restarts (the model's current
	// parameters are the only start). RestartIter negative (FullRestarts)
	// runs every start to convergence, as the final run would (Accel,
	// Stop, Tol, MaxIter), and keeps the best: the best of Restarts full
	// runs, poLCA's nrep. EMResult.Replicated then counts the starts that
	// reached the best log-likelihood; the warm-up on samples is skipped.
	Restarts, RestartIter int
	// KeepInit includes the model's current parameters among the starts.
	KeepInit bool
	// Pseudo is a pseudo-count added to every expected count in the
	// M-step (0: maximum likelihood). EM then maximises the penalised
	// log-likelihood L(θ) + Pseudo·Σ log θ over all prior and CPT entries
	// (the log-posterior under Dirichlet(1+Pseudo) priors, up to a
	// constant), and that is what the trace, the safeguard of SQUAREM and
	// the stopping rule use; zero probabilities of the start are first
	// raised to 1e-10 so that it is finite.
	Pseudo float64
	// Gain is a floor on StopAuto's tolerance in discrete EM, in nats:
	// the final run stops once its bound on the remaining gain in
	// log-likelihood (see StopAuto) is at most the larger of Gain and
	// Tol·|L|. A fit that only ranks changes to a model can stop at a
	// fraction of a parameter's BIC penalty, log(n)/2
	// (learn.ContractByBIC's first fit).
	Gain float64
	// Workers is the number of goroutines (0: GOMAXPROCS). Results do not
	// depend on it.
	Workers int
	// Src draws the random initialisations (nil: the fixed seed
	// rand.NewPCG(1, 2)).
	Src rand.Source
	// Progress, if set, is called after every E-step of the final run with
	// the number of E-steps so far and the objective of the current
	// parameters (the entry just added to EMResult.Trace).
	Progress func(iter int, ll float64)
	// Sample warms EM up on random samples of the rows before it runs on
	// all of them: EM runs to convergence on Sample rows drawn without
	// replacement, then on samples discrete.SampleGrowth times larger while they
	// hold at most a quarter of the rows, each stage starting where the
	// last one ended, and the restarts run on the first sample only. The
	// final run is EM on every row, so the result is a fixed point of EM
	// on the full data, reached in fewer passes over them (on 10⁶ rows of
	// 100 binary variables, 25–46 E-steps instead of 58, about 25% less
	// time in all). Zero: discrete.AutoSample(rows); negative: no warm-up. Data
	// with fewer than 4·Sample rows skip it.
	Sample int
}

// EMResult reports an EM run.
type EMResult struct {
	// LogLik is the log-likelihood of the final parameters.
	LogLik float64 `json:"loglik"`
	// Iterations counts the E-steps of the final run (each costs one pass
	// over the distinct rows): plain EM does one per iteration, a SQUAREM
	// cycle three. The restart phase is not included.
	Iterations int `json:"iterations"`
	// Converged reports that the stopping rule, not MaxIter, ended the
	// final run.
	Converged bool `json:"converged"`
	// Trace has one entry per E-step of the final run: the objective (the
	// log-likelihood, penalised when Pseudo > 0) at the parameters the run
	// has reached: the start, each plain EM step, each accepted SQUAREM
	// extrapolation; the E-step of a rejected extrapolation repeats the
	// previous entry. It never decreases, up to rounding.
	Trace []float64 `json:"trace"`
	// Starts are the objectives (log-likelihoods, penalised when
	// Pseudo > 0) each start reached after the restart phase.
	Starts []float64 `json:"starts,omitempty"`
	// Replicated counts, after full restarts (EMOptions.RestartIter
	// negative), the starts whose objective is within 1e-3 of the best
	// (Mplus's "best log-likelihood replicated" check: 1 means that only
	// one start found it, and more starts may find a better one); 0
	// otherwise.
	Replicated int `json:"replicated,omitempty"`
	// Rows and DistinctRows count the data rows and the rows EM worked on:
	// the distinct rows when identical rows were merged (weighted, not
	// repeated), all rows when merging did not pay.
	Rows         int `json:"rows"`
	DistinctRows int `json:"distinct_rows"`
	// Patterns counts the missingness patterns of a Gaussian fit (rows
	// with the same cells observed share one); 0 for discrete EM.
	Patterns int `json:"patterns,omitempty"`
	// Floored names the nodes whose variance the last M-step of a mixed
	// model's EM raised to its floor (mixed.VarFloor): a continuous
	// variable the model explains (almost) exactly.
	Floored []string `json:"floored,omitempty"`
	// Stages are the warm-up runs on samples (EMOptions.Sample), in
	// order; Trace, Iterations and Converged describe the final run on
	// every row.
	Stages []EMStage `json:"stages,omitempty"`
	// Phases counts the E-steps of each phase of the run and times it
	// (discrete and Gaussian EM; zero for the other fits).
	Phases EMPhases `json:"phases"`
}

// EMPhases reports the E-steps and the wall-clock time of the phases of
// an EM run, in the order they run. The E-step counts are deterministic;
// the times vary from run to run.
type EMPhases struct {
	// Restarts is the restart phase (EMOptions.Restarts and
	// RestartIter): every start's E-steps, on the first warm-up sample
	// when there is one; zero when the run has a single start.
	Restarts EMPhase `json:"restarts"`
	// Sample is the warm-up on samples after the restarts: the E-steps
	// of every EMResult.Stages run (passes over a sample, cheaper than
	// a pass over every row), with the time to draw the samples.
	Sample EMPhase `json:"sample"`
	// Full is the final run on every row: ESteps equals
	// EMResult.Iterations; the time includes the pass that computes the
	// final LogLik.
	Full EMPhase `json:"full"`
}

// EMPhase is one phase of an EM run: its E-steps (passes over the rows
// the phase works on) and its wall-clock time in seconds.
type EMPhase struct {
	ESteps  int     `json:"esteps"`
	Seconds float64 `json:"seconds"`
}

// ESteps returns the E-steps of all phases.
func (p EMPhases) ESteps() int {
	return p.Restarts.ESteps + p.Sample.ESteps + p.Full.ESteps
}

// EMStage reports one warm-up run of EM on a sample of the rows.
type EMStage struct {
	// Rows is the sample size, Iterations the E-steps of its run after
	// the restarts, LogLik the sample's log-likelihood at the end.
	Rows       int     `json:"rows"`
	Iterations int     `json:"iterations"`
	LogLik     float64 `json:"loglik"`
	Converged  bool    `json:"converged"`
}

// Accel selects how EM's steps are accelerated (discrete and Gaussian EM).
type Accel int

const (
	// AccelSQUAREM (the default) is SQUAREM (Varadhan & Roland 2008,
	// scheme SqS3). From θ0 a cycle takes two EM steps, θ1 = M(θ0) and
	// θ2 = M(θ1), and jumps to θ′ = θ0 − 2αr + α²v with r = θ1 − θ0,
	// v = θ2 − 2θ1 + θ0 and α = −‖r‖/‖v‖, clamped to [−s, −1] (α = −1
	// gives θ′ = θ2). The cap s starts at 1 and is multiplied by 4 after
	// an accepted jump that used it and divided by 4 after a rejected one
	// (the step-length control of Varadhan's SQUAREM package): SqS3's
	// α alone reaches −1000 on slow fits and overshoots. θ′ is projected
	// back onto valid distributions: every entry is raised to at least
	// 0.3 times its value at θ2 (and 1e-10), and rows are renormalised. (A
	// fixed small floor instead left entries that overshot below zero
	// near 1e-10, from which EM recovers only slowly, multiplying the
	// E-steps to convergence by up to four on test fits.) θ′ is accepted
	// if its objective is at least that of θ1, the last plain EM point
	// evaluated, and then followed by one stabilising EM step M(θ′);
	// otherwise the cycle falls back to θ2, the plain EM point. Either way
	// the objective never decreases, since an EM step does not decrease
	// it from any valid point. A cycle costs three E-steps (θ1, θ′, and
	// the point the next cycle starts from).
	AccelSQUAREM Accel = iota
	// AccelNone is plain EM: one E-step and one M-step per iteration.
	AccelNone
)

// String returns the name of the acceleration ("squarem" or "none").
func (a Accel) String() string {
	switch a {
	case AccelSQUAREM:
		return "squarem"
	case AccelNone:
		return "none"
	}
	return fmt.Sprintf("Accel(%d)", int(a))
}

// ParseAccel parses "squarem" or "none".
func ParseAccel(s string) (Accel, error) {
	for _, a := range []Accel{AccelSQUAREM, AccelNone} {
		if strings.EqualFold(s, a.String()) {
			return a, nil
		}
	}
	return 0, fmt.Errorf("model: unknown EM acceleration %q (want squarem or none)", s)
}

// Stop selects EM's stopping rule (discrete and Gaussian EM; Gaussian
// EM's StopAuto bounds the remaining gain by Tol·min(|L|, 100) nat instead
// of Tol·|L|, see gaussian.Options.Stop).
type Stop int

const (
	// StopAuto (the default) stops when the objective gained at most
	// Tol·|L| over the last cycle (iteration, for plain EM) and a plain EM
	// step from the start of that cycle gained at most Tol·|L|/1000.
	//
	// Why: after a plain EM step that gains g, EM's remaining gain is
	// about g/(1−ρ), where ρ is the rate at which its gains shrink. On
	// latent tree fits ρ is often 0.999 or closer (weakly separated hidden
	// states, plateaus near saddle points), so the relative-change rule
	// mistakes slow progress for convergence: at 1e-4 it stops hundreds
	// of nats short on 50,000 rows. Local estimates of ρ are unreliable
	// here: Aitken's Δ² on SQUAREM's cycle gains (which jump tenfold
	// between accepted and rejected extrapolations), a log-linear fit of
	// the gains over the last 4 to 16 cycles, or the rate SQUAREM's
	// ‖r‖/‖v‖ implies, each stopped more than 1 nat short (up to 180) on
	// at least six of seven test fits. StopAuto therefore bounds the remaining gain
	// by 1000·g, treating any rate up to 1 − 1/1000 as possible, and so
	// stops when that bound is at most Tol·|L|: about 0.7 nats at
	// DefaultTol on those fits. Plain EM pays for such a strict rule with
	// thousands of iterations; SQUAREM, whose last phase converges fast,
	// with few (see AccelSQUAREM). A cycle that gains nothing at all (a
	// fixed point up to rounding) also stops EM. For plain EM, StopAuto is
	// in effect the relative-change rule with tolerance Tol/1000.
	StopAuto Stop = iota
	// StopRelative is the classic rule (the protocol of Song et al. 2013
	// with Tol 1e-4): stop when |L_j − L_{j−1}| / ((|L_j| + |L_{j−1}|)/2)
	// is at most Tol, comparing successive iterations (plain EM) or cycles
	// (SQUAREM).
	StopRelative
)

// FullRestarts is the EMOptions.RestartIter that runs every random start
// to convergence (the best of Restarts full runs).
const FullRestarts = -1

// String returns the name of the stopping rule ("auto" or "relative").
func (s Stop) String() string {
	switch s {
	case StopAuto:
		return "auto"
	case StopRelative:
		return "relative"
	}
	return fmt.Sprintf("Stop(%d)", int(s))
}

// ParseStop parses "auto" or "relative".
func ParseStop(s string) (Stop, error) {
	for _, r := range []Stop{StopAuto, StopRelative} {
		if strings.EqualFold(s, r.String()) {
			return r, nil
		}
	}
	return 0, fmt.Errorf("model: unknown EM stopping rule %q (want auto or relative)", s)
}

// Validate reports options out of range (the checks of discrete.Model.FitEM).
func (o EMOptions) Validate() error {
	if err := o.validateTol(); err != nil {
		return err
	}
	return o.validateSteps()
}

// validateTol checks the tolerance, the first of Validate's checks
// (FitOptions.Validate checks MaxIter between the two parts).
func (o EMOptions) validateTol() error {
	if o.Tol < 0 || math.IsNaN(o.Tol) || math.IsInf(o.Tol, 0) {
		return fmt.Errorf("model: EM tolerance %g must be positive (0: DefaultTol %g)", o.Tol, DefaultTol)
	}
	return nil
}

// validateSteps checks the pseudo-count, the acceleration and the
// stopping rule.
func (o EMOptions) validateSteps() error {
	switch {
	case o.Pseudo < 0 || math.IsNaN(o.Pseudo) || math.IsInf(o.Pseudo, 0):
		return fmt.Errorf("model: EM pseudo-count %g must be finite and non-negative", o.Pseudo)
	case o.Gain < 0 || math.IsNaN(o.Gain) || math.IsInf(o.Gain, 0):
		return fmt.Errorf("model: EM gain tolerance %g must be finite and non-negative", o.Gain)
	case o.Accel != AccelSQUAREM && o.Accel != AccelNone:
		return fmt.Errorf("model: unknown EM acceleration %d", int(o.Accel))
	case o.Stop != StopAuto && o.Stop != StopRelative:
		return fmt.Errorf("model: unknown EM stopping rule %d", int(o.Stop))
	}
	return nil
}
