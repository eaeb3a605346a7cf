package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/simulate"
)

// The steps of Scale's targets (issue 25), after the grid.
const (
	// ScaleNewsgroupsLearn is learn.Learn with default options (CLNJ,
	// the contraction by BIC, EM) on the 20 Newsgroups training split:
	// the median of ScaleTargets.Runs runs.
	ScaleNewsgroupsLearn = "newsgroups-learn"
	// ScaleEMTree is learn.Learn with default options on one random
	// binary latent tree's rows (ScaleTargets.Trees of them), and
	// ScaleEMTrees the medians over the trees.
	ScaleEMTree  = "learn-em-tree"
	ScaleEMTrees = "learn-em-trees"
	// ScaleStructureCmd is the whole command latentree learn
	// --structure-only on a CSV file of Gaussian variables, process
	// start included: the median of ScaleTargets.CmdRuns runs.
	ScaleStructureCmd = "structure-only-cmd"
)

// Defaults of ScaleTargets.
const (
	DefaultScaleTargetRuns = 3
	DefaultScaleCmdRuns    = 21
	DefaultScaleTrees      = 5
	DefaultScaleTreeLeaves = 200
	DefaultScaleTreeRows   = 200_000
	DefaultScaleSmallVars  = 80
	DefaultScaleSmallRows  = 1000
)

// ScaleTargets configures the measurements of issue 25's targets that
// Scale makes after its grid. The zero value measures all of them with
// the defaults above, each skipped (a row says why) when what it needs
// is not given.
type ScaleTargets struct {
	// Skip leaves the targets out.
	Skip bool
	// Runs is the number of timed runs of the newsgroups target; their
	// median is reported (default 3).
	Runs int
	// CmdRuns is the number of timed runs of the whole-command target,
	// after one untimed run; their median is reported (default 21: a
	// run of 20 ms varies by a few ms with what else the machine does).
	CmdRuns int
	// NewsgroupsTrain and NewsgroupsTest are the 20 Newsgroups splits
	// (FindDataFile finds them in a clone); empty: that target is
	// skipped.
	NewsgroupsTrain, NewsgroupsTest string
	// Trees random binary latent trees (default 5; tree i from seed i)
	// of TreeLeaves observed variables (default 200), TreeRows rows each
	// (default 200,000), symmetric models with θ ~ U[0.05, 0.2]: the EM
	// target, as learn's BenchmarkLearnEMTrees. Negative Trees: skipped.
	Trees, TreeLeaves, TreeRows int
	// Command is the latentree executable whose learn --structure-only
	// is timed as a whole command, on the CSV file that its simulate
	// --topology hmm writes for SmallVars Gaussian variables (default 80)
	// and SmallRows rows (default 1,000); empty: skipped.
	Command              string
	SmallVars, SmallRows int
}

func (t *ScaleTargets) defaults() {
	if t.Runs <= 0 {
		t.Runs = DefaultScaleTargetRuns
	}
	if t.CmdRuns <= 0 {
		t.CmdRuns = DefaultScaleCmdRuns
	}
	if t.Trees == 0 {
		t.Trees = DefaultScaleTrees
	}
	if t.TreeLeaves <= 0 {
		t.TreeLeaves = DefaultScaleTreeLeaves
	}
	if t.TreeRows <= 0 {
		t.TreeRows = DefaultScaleTreeRows
	}
	if t.SmallVars <= 0 {
		t.SmallVars = DefaultScaleSmallVars
	}
	if t.SmallRows <= 0 {
		t.SmallRows = DefaultScaleSmallRows
	}
}

// scaleTargets measures the targets, calling step after each row.
func scaleTargets(ctx context.Context, cfg *ScaleConfig, step func()) ([]ScaleRow, error) {
	tg := cfg.Targets
	var out []ScaleRow
	r, err := newsgroupsTarget(ctx, &tg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ScaleNewsgroupsLearn, err)
	}
	out = append(out, r)
	step()
	rs, err := emTreesTarget(ctx, &tg, step)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ScaleEMTree, err)
	}
	out = append(out, rs...)
	step()
	r, err = structureCmdTarget(ctx, &tg, cfg.TempDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ScaleStructureCmd, err)
	}
	out = append(out, r)
	step()
	return out, nil
}

// scaleTargetSteps is the number of steps scaleTargets reports.
func (t *ScaleTargets) steps() int {
	if t.Skip {
		return 0
	}
	return 3 + max(t.Trees, 0)
}

// medianRun runs fn runs times, each measured, and returns the median
// wall-clock and CPU seconds and the largest peak heap.
func medianRun(runs int, fn func() error) (sec, cpu, peak float64, err error) {
	var secs, cpus []float64
	for range runs {
		s, c, p, err := measure(fn)
		if err != nil {
			return 0, 0, 0, err
		}
		secs, cpus, peak = append(secs, s), append(cpus, c), max(peak, p)
	}
	return median(secs), median(cpus), peak, nil
}

func newsgroupsTarget(ctx context.Context, tg *ScaleTargets) (ScaleRow, error) {
	if err := ctx.Err(); err != nil {
		return ScaleRow{}, err
	}
	r := ScaleRow{Variables: 100, Step: ScaleNewsgroupsLearn}
	if tg.Skip || tg.NewsgroupsTrain == "" || tg.NewsgroupsTest == "" {
		r.Skipped, r.Note = true, "skipped: the 20 Newsgroups splits were not found"
		return r, nil
	}
	train, _, err := data.ReadCSVFile(tg.NewsgroupsTrain, data.ReadOptions{})
	if err != nil {
		return r, err
	}
	test, _, err := data.ReadCSVFile(tg.NewsgroupsTest, data.ReadOptions{Discrete: train.Names(), KeepConstant: true})
	if err != nil {
		return r, err
	}
	r.Variables, r.Rows = train.NumVars(), train.NumRows()
	var res *learn.Result
	r.Seconds, r.CPUSeconds, r.PeakMB, err = medianRun(tg.Runs, func() error {
		var err error
		res, err = learn.Learn(train, learn.Options{})
		return err
	})
	if err != nil {
		return r, err
	}
	sc, err := res.Model.Score(test, model.InferOptions{})
	if err != nil {
		return r, err
	}
	esteps, cands := 0, 0
	if res.EM != nil {
		esteps = res.EM.Phases.ESteps()
	}
	if res.Contraction != nil {
		cands = res.Contraction.Evaluated
	}
	r.Note = fmt.Sprintf("median of %d; test BIC (paper) %.1f (target ≥ −117,269), %d hidden, %d candidates scored, %d final E-steps; target ≤ 1.5 s",
		tg.Runs, sc.BICPaper, res.Tree.NumHidden(), cands, esteps)
	return r, nil
}

func emTreesTarget(ctx context.Context, tg *ScaleTargets, step func()) ([]ScaleRow, error) {
	if tg.Skip || tg.Trees < 0 {
		return []ScaleRow{{Step: ScaleEMTrees, Skipped: true, Note: "skipped"}}, nil
	}
	var out []ScaleRow
	var steps, secs, cpus, gaps []float64
	for i := range tg.Trees {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		seed := uint64(i + 1)
		tr, err := simulate.RandomBinary(rand.NewPCG(seed, 1), tg.TreeLeaves, 0.5)
		if err != nil {
			return nil, err
		}
		rng := rand.New(rand.NewPCG(seed, 2))
		m, err := simulate.Symmetric(rng, tr, simulate.SymmetricOptions{ThetaMin: 0.05, ThetaMax: 0.2})
		if err != nil {
			return nil, err
		}
		d, err := m.Sample(rng, tg.TreeRows)
		if err != nil {
			return nil, err
		}
		r := ScaleRow{Variables: tg.TreeLeaves, Rows: tg.TreeRows, Step: ScaleEMTree}
		var res *learn.Result
		r.Seconds, r.CPUSeconds, r.PeakMB, err = measure(func() error {
			var err error
			res, err = learn.Learn(d, learn.Options{})
			return err
		})
		if err != nil {
			return nil, err
		}
		dm, ok := res.Model.(*discrete.Model)
		if !ok || res.EM == nil {
			return nil, errors.New("learn fitted no discrete model")
		}
		// EM from the result to tolerance 1e-9: what the default
		// stopping rule left.
		tight := dm.Clone()
		tr9, err := tight.FitEM(d, model.EMOptions{Tol: 1e-9, MaxIter: 20_000, Restarts: -1, KeepInit: true, Sample: -1})
		if err != nil {
			return nil, err
		}
		gap := (tr9.LogLik - res.EM.LogLik) / math.Abs(tr9.LogLik)
		ph := res.EM.Phases
		r.Note = fmt.Sprintf("tree %d: %d hidden, %s contraction, E-steps %d (restarts %d, samples %d, all rows %d), log-likelihood %.2f; EM on to tolerance 1e-9: %d more E-steps, %+.3f, relative %.2g (target ≤ 1e-6)",
			i+1, res.Tree.NumHidden(), res.ContractRule, ph.ESteps(), ph.Restarts.ESteps, ph.Sample.ESteps, ph.Full.ESteps, res.EM.LogLik, tr9.Iterations, tr9.LogLik-res.EM.LogLik, gap)
		out = append(out, r)
		steps, secs, cpus, gaps = append(steps, float64(ph.ESteps())), append(secs, r.Seconds), append(cpus, r.CPUSeconds), append(gaps, gap)
		step()
	}
	sum := ScaleRow{Variables: tg.TreeLeaves, Rows: tg.TreeRows, Step: ScaleEMTrees, Seconds: median(secs), CPUSeconds: median(cpus)}
	for _, r := range out {
		sum.PeakMB = max(sum.PeakMB, r.PeakMB)
	}
	sum.Note = fmt.Sprintf("medians over %d trees; E-steps median %g, largest %g (target median ≤ 120); seconds largest %.2f (target ≤ 20 each); largest relative shortfall %.2g (target ≤ 1e-6)",
		tg.Trees, median(steps), slices.Max(steps), slices.Max(secs), slices.Max(gaps))
	return append(out, sum), nil
}

func structureCmdTarget(ctx context.Context, tg *ScaleTargets, tmp string) (ScaleRow, error) {
	r := ScaleRow{Variables: tg.SmallVars, Rows: tg.SmallRows, Step: ScaleStructureCmd}
	if tg.Skip || tg.Command == "" {
		r.Skipped, r.Note = true, "skipped: no latentree executable to run"
		return r, nil
	}
	dir, err := os.MkdirTemp(tmp, "latentree-scale-*")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "hmm.csv")
	sim := exec.CommandContext(ctx, tg.Command, "simulate", "--topology", "hmm", "--hidden", strconv.Itoa(tg.SmallVars-2),
		"-n", strconv.Itoa(tg.SmallRows), "--seed", "1", "--out", path)
	if msg, err := sim.CombinedOutput(); err != nil {
		return r, fmt.Errorf("%s simulate: %v: %s", tg.Command, err, msg)
	}
	// This process's memory from the grid's large steps is returned to
	// the system first, so that doing so does not compete with the
	// timed runs; and one run is made untimed (the file and the
	// executable then in the page cache).
	debug.FreeOSMemory()
	var secs, cpus []float64
	for i := range tg.CmdRuns + 1 {
		cmd := exec.CommandContext(ctx, tg.Command, "learn", "--structure-only", path)
		t0 := time.Now()
		if msg, err := cmd.CombinedOutput(); err != nil {
			return r, fmt.Errorf("%s learn: %v: %s", tg.Command, err, msg)
		}
		if i == 0 {
			continue
		}
		secs = append(secs, time.Since(t0).Seconds())
		ps := cmd.ProcessState
		cpus = append(cpus, (ps.UserTime() + ps.SystemTime()).Seconds())
	}
	r.Seconds, r.CPUSeconds = median(secs), median(cpus)
	r.Note = fmt.Sprintf("whole command (process start included), median of %d runs after one untimed, fastest %.1f ms, slowest %.1f ms; CLNJ on the CSV file of simulate --topology hmm (Gaussian); target ≤ 20 ms",
		tg.CmdRuns, slices.Min(secs)*1e3, slices.Max(secs)*1e3)
	return r, nil
}
