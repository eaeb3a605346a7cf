package experiment

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"time"

	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

// HiddenStatesConfig configures HiddenStates. The zero value runs 20 data
// sets.
type HiddenStatesConfig struct {
	// DataSets is the number of simulated data sets (default 20).
	DataSets int
	// MinObserved and MaxObserved bound the number of observed variables,
	// drawn uniformly per data set (default 10 and 20).
	MinObserved, MaxObserved int
	// Sizes are the numbers of rows, used in turn (default 500, 1,000,
	// 2,000, 5,000).
	Sizes []int
	// Seed makes the experiment reproducible: data set i draws from a
	// generator seeded by Seed and i alone.
	Seed uint64
	// Workers is the number of data sets processed at once (default
	// GOMAXPROCS).
	Workers int
	// Learn also runs learn.Learn end to end (structure, contraction by
	// BIC, fit) with every uniform count and with its default (auto on
	// these data), filling the Learn columns.
	Learn bool
	// Progress, if not nil, is called after every data set.
	Progress func(done, total int)
}

// HiddenStatesUniform are the uniform numbers of hidden states compared
// with AutoStates.
var HiddenStatesUniform = []int{2, 3, 4, 5}

// HiddenStatesRow is one data set: its description, the BIC of the model
// fitted with every uniform number of hidden states and with AutoStates
// on the same learned tree.
type HiddenStatesRow struct {
	Index int
	// Observed and Hidden count the variables of the true tree;
	// ObservedStates and TrueHidden describe their numbers of states
	// ("3", "3–6", "2–5").
	Observed, Hidden           int
	ObservedStates, TrueHidden string
	Rows                       int
	// LearnedHidden counts the hidden nodes of the learned tree.
	LearnedHidden int
	// UniformBIC[i] is the BIC (−2 log L + κ log n, smaller is better) of
	// HiddenStatesUniform[i] states per hidden variable, AutoBIC that of
	// AutoStates; AutoMin and AutoMax the smallest and largest numbers of
	// states AutoStates chose.
	UniformBIC       []float64
	AutoBIC          float64
	AutoMin, AutoMax int
	// UniformSeconds sums the fits of every uniform count; AutoSeconds is
	// the AutoStates fit (which also fits them).
	UniformSeconds, AutoSeconds float64
	// LearnUniformBIC and LearnAutoBIC are the BICs of learn.Learn with
	// every uniform count and with its default (HiddenStatesConfig.Learn;
	// nil and 0 otherwise), LearnUniformSeconds and LearnAutoSeconds their
	// times (the uniform ones summed).
	LearnUniformBIC                       []float64
	LearnAutoBIC                          float64
	LearnUniformSeconds, LearnAutoSeconds float64
}

// BestUniform returns the index in HiddenStatesUniform of the uniform
// count with the lowest BIC.
func (r HiddenStatesRow) BestUniform() int {
	best := 0
	for i, b := range r.UniformBIC {
		if b < r.UniformBIC[best] {
			best = i
		}
	}
	return best
}

// AutoAtLeast reports whether AutoStates is at least as good in BIC as
// every uniform count (to 1e-9 relative, for round-off).
func (r HiddenStatesRow) AutoAtLeast() bool {
	b := r.UniformBIC[r.BestUniform()]
	return r.AutoBIC <= b+1e-9*math.Abs(b)
}

// HiddenStates compares, on simulated discrete latent trees whose observed
// variables have 3 to 6 states, model.Fit with AutoStates against every
// uniform number of hidden states from 2 to 5, by BIC on the same tree
// (learned from the data by learn.Learn with its defaults, structure
// only). Data sets alternate between simulate.RandomMinimal and
// simulate.RandomBinary trees; in turn their observed variables share
// one number of states (3 to 6) or draw theirs from 3–6, and their hidden
// variables share one number of states (2 to 5) or draw theirs from 2–5.
// CPTs are simulate.General's Dirichlet rows.
func HiddenStates(ctx context.Context, cfg HiddenStatesConfig) ([]HiddenStatesRow, error) {
	if cfg.DataSets <= 0 {
		cfg.DataSets = 20
	}
	if cfg.MinObserved == 0 && cfg.MaxObserved == 0 {
		cfg.MinObserved, cfg.MaxObserved = 10, 20
	}
	if cfg.MinObserved < 4 || cfg.MaxObserved < cfg.MinObserved {
		return nil, fmt.Errorf("experiment: observed variables %d–%d: want 4 ≤ min ≤ max", cfg.MinObserved, cfg.MaxObserved)
	}
	if len(cfg.Sizes) == 0 {
		cfg.Sizes = []int{500, 1000, 2000, 5000}
	}
	for _, n := range cfg.Sizes {
		if n < 10 {
			return nil, fmt.Errorf("experiment: %d rows: want at least 10", n)
		}
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rows := make([]HiddenStatesRow, cfg.DataSets)
	err := runParallel(ctx, cfg.DataSets, workers, cfg.Progress, func(i int) (func(), error) {
		r, err := hiddenStatesSet(cfg, i)
		if err != nil {
			return nil, fmt.Errorf("experiment: data set %d: %w", i+1, err)
		}
		return func() { rows[i] = r }, nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// span writes lo–hi, or lo when they are equal.
func span(lo, hi int) string {
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

func hiddenStatesSet(cfg HiddenStatesConfig, i int) (HiddenStatesRow, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5747e5<<24|uint64(i)))
	m := cfg.MinObserved + rng.IntN(cfg.MaxObserved-cfg.MinObserved+1)
	var (
		truth *tree.Tree
		err   error
	)
	if i%2 == 0 {
		truth, err = simulate.RandomMinimal(rng, m, simulate.MinimalOptions{})
	} else {
		truth, err = simulate.RandomBinary(rng, m, 0.2+0.6*rng.Float64())
	}
	if err != nil {
		return HiddenStatesRow{}, err
	}
	gopt := simulate.GeneralOptions{ObservedStates: 3 + rng.IntN(4), HiddenStates: 2 + rng.IntN(4)}
	obsLo, obsHi := gopt.ObservedStates, gopt.ObservedStates
	if i%4 >= 2 {
		obsLo, obsHi = 3, 6
		gopt.ObservedStatesOf = func(int) int { return 3 + rng.IntN(4) }
	}
	if i%8 >= 4 {
		gopt.HiddenStates, gopt.HiddenMin, gopt.HiddenMax = 0, 2, 5
	}
	sampler, err := simulate.General(rng, truth, gopt)
	if err != nil {
		return HiddenStatesRow{}, err
	}
	n := cfg.Sizes[i%len(cfg.Sizes)]
	d, err := sampler.Sample(rng, n)
	if err != nil {
		return HiddenStatesRow{}, err
	}
	row := HiddenStatesRow{Index: i + 1, Observed: truth.NumObserved(), Hidden: truth.NumHidden(), Rows: n,
		ObservedStates: span(obsLo, obsHi)}
	hLo, hHi := math.MaxInt, 0
	for _, h := range truth.Hidden() {
		hLo, hHi = min(hLo, sampler.States[h]), max(hHi, sampler.States[h])
	}
	row.TrueHidden = span(hLo, hHi)
	res, err := learn.Learn(d, learn.Options{StructureOnly: true, Workers: 1})
	if err != nil {
		return HiddenStatesRow{}, err
	}
	t := res.Tree
	row.LearnedHidden = t.NumHidden()
	em := model.EMOptions{Workers: 1}
	for _, k := range HiddenStatesUniform {
		t0 := time.Now()
		fm, _, err := model.Fit(t, d, model.FitOptions{HiddenStates: k, EM: em})
		if err != nil {
			return HiddenStatesRow{}, err
		}
		row.UniformSeconds += time.Since(t0).Seconds()
		s, err := fm.Score(d, model.InferOptions{Workers: 1})
		if err != nil {
			return HiddenStatesRow{}, err
		}
		row.UniformBIC = append(row.UniformBIC, s.BIC)
	}
	t0 := time.Now()
	fm, _, err := model.Fit(t, d, model.FitOptions{AutoStates: true, EM: em})
	if err != nil {
		return HiddenStatesRow{}, err
	}
	row.AutoSeconds = time.Since(t0).Seconds()
	s, err := fm.Score(d, model.InferOptions{Workers: 1})
	if err != nil {
		return HiddenStatesRow{}, err
	}
	row.AutoBIC = s.BIC
	row.AutoMin, row.AutoMax = 0, 0
	if dm, ok := fm.(*discrete.Model); ok {
		row.AutoMin, row.AutoMax = math.MaxInt, 0
		for _, h := range t.Hidden() {
			row.AutoMin, row.AutoMax = min(row.AutoMin, dm.States[h]), max(row.AutoMax, dm.States[h])
		}
		if row.AutoMax == 0 {
			row.AutoMin = 0
		}
	}
	if cfg.Learn {
		for _, k := range HiddenStatesUniform {
			t0 := time.Now()
			lr, err := learn.Learn(d, learn.Options{Workers: 1, Fit: model.FitOptions{HiddenStates: k, EM: em}})
			if err != nil {
				return HiddenStatesRow{}, err
			}
			row.LearnUniformSeconds += time.Since(t0).Seconds()
			row.LearnUniformBIC = append(row.LearnUniformBIC, lr.Score.BIC)
		}
		t0 := time.Now()
		lr, err := learn.Learn(d, learn.Options{Workers: 1, Fit: model.FitOptions{EM: em}})
		if err != nil {
			return HiddenStatesRow{}, err
		}
		row.LearnAutoSeconds, row.LearnAutoBIC = time.Since(t0).Seconds(), lr.Score.BIC
	}
	return row, nil
}

// LearnAtLeast reports whether learn's default is at least as good in BIC
// as learn with every uniform count (HiddenStatesConfig.Learn).
func (r HiddenStatesRow) LearnAtLeast() bool {
	for _, b := range r.LearnUniformBIC {
		if r.LearnAutoBIC > b+1e-9*math.Abs(b) {
			return false
		}
	}
	return true
}

// WriteHiddenStatesCSV writes the rows as CSV.
func WriteHiddenStatesCSV(w io.Writer, rows []HiddenStatesRow) error {
	cw := csv.NewWriter(w)
	head := []string{"data_set", "observed", "observed_states", "hidden", "true_hidden_states", "rows", "learned_hidden"}
	for _, k := range HiddenStatesUniform {
		head = append(head, "bic_uniform_"+strconv.Itoa(k))
	}
	head = append(head, "bic_auto", "auto_min_states", "auto_max_states", "auto_at_least_best_uniform", "uniform_seconds", "auto_seconds")
	withLearn := len(rows) > 0 && rows[0].LearnUniformBIC != nil
	if withLearn {
		for _, k := range HiddenStatesUniform {
			head = append(head, "learn_bic_uniform_"+strconv.Itoa(k))
		}
		head = append(head, "learn_bic_default", "learn_default_at_least_uniform", "learn_uniform_seconds", "learn_default_seconds")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	for _, r := range rows {
		rec := []string{strconv.Itoa(r.Index), strconv.Itoa(r.Observed), r.ObservedStates, strconv.Itoa(r.Hidden), r.TrueHidden,
			strconv.Itoa(r.Rows), strconv.Itoa(r.LearnedHidden)}
		for _, b := range r.UniformBIC {
			rec = append(rec, f(b))
		}
		rec = append(rec, f(r.AutoBIC), strconv.Itoa(r.AutoMin), strconv.Itoa(r.AutoMax), strconv.FormatBool(r.AutoAtLeast()),
			strconv.FormatFloat(r.UniformSeconds, 'f', 3, 64), strconv.FormatFloat(r.AutoSeconds, 'f', 3, 64))
		if withLearn {
			for _, b := range r.LearnUniformBIC {
				rec = append(rec, f(b))
			}
			rec = append(rec, f(r.LearnAutoBIC), strconv.FormatBool(r.LearnAtLeast()),
				strconv.FormatFloat(r.LearnUniformSeconds, 'f', 3, 64), strconv.FormatFloat(r.LearnAutoSeconds, 'f', 3, 64))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteHiddenStatesTable writes the rows as a Markdown table: per data set
// the observed variables and their states, the true hidden counts, the
// rows, the BIC of every uniform count (the best in bold) and of
// AutoStates, the counts it chose, whether it is at least as good as the
// best uniform count, and the times.
func WriteHiddenStatesTable(w io.Writer, rows []HiddenStatesRow) error {
	if len(rows) == 0 {
		return errors.New("experiment: no rows")
	}
	head, rule := uniformHead("| data set | observed (states) | true hidden (states) | rows | learned hidden |", "|---|---|---|---:|---:|", "BIC uniform")
	head += " BIC auto | auto states | auto ≥ best uniform | s uniform 2–5 | s auto |"
	rule += "---:|---|---|---:|---:|"
	if _, err := fmt.Fprintln(w, head+"\n"+rule); err != nil {
		return err
	}
	wins := 0
	for _, r := range rows {
		line := fmt.Sprintf("| %d | %d (%s) | %d (%s) | %d | %d |", r.Index, r.Observed, r.ObservedStates, r.Hidden, r.TrueHidden, r.Rows, r.LearnedHidden)
		line += bicCells(r.UniformBIC)
		ok := "no"
		if r.AutoAtLeast() {
			ok = "yes"
			wins++
		}
		line += fmt.Sprintf(" %.1f | %s | %s | %.2f | %.2f |", r.AutoBIC, span(r.AutoMin, r.AutoMax), ok, r.UniformSeconds, r.AutoSeconds)
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(w, "\nauto ≥ best uniform count in %d of %d data sets (BIC = −2 log L + κ log n, smaller is better)\n", wins, len(rows)); err != nil {
		return err
	}
	if rows[0].LearnUniformBIC == nil {
		return nil
	}
	return writeLearnTable(w, rows)
}

// writeLearnTable writes the end-to-end columns (HiddenStatesConfig.Learn).
func writeLearnTable(w io.Writer, rows []HiddenStatesRow) error {
	head, rule := uniformHead("\nlearn end to end (structure, contraction by BIC, fit):\n\n| data set |", "|---:|", "learn uniform")
	head += " learn default | default ≥ every uniform | s uniform 2–5 | s default |"
	rule += "---:|---|---:|---:|"
	if _, err := fmt.Fprintln(w, head+"\n"+rule); err != nil {
		return err
	}
	wins := 0
	for _, r := range rows {
		line := fmt.Sprintf("| %d |", r.Index) + bicCells(r.LearnUniformBIC)
		ok := "no"
		if r.LearnAtLeast() {
			ok = "yes"
			wins++
		}
		line += fmt.Sprintf(" %.1f | %s | %.2f | %.2f |", r.LearnAutoBIC, ok, r.LearnUniformSeconds, r.LearnAutoSeconds)
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "\nlearn's default ≥ every uniform count in %d of %d data sets\n", wins, len(rows))
	return err
}

// uniformHead appends a column per uniform count to a Markdown table's
// head and rule.
func uniformHead(head, rule, what string) (string, string) {
	for _, k := range HiddenStatesUniform {
		head += fmt.Sprintf(" %s %d |", what, k)
		rule += "---:|"
	}
	return head, rule
}

// bicCells writes BICs as Markdown cells, the lowest in bold.
func bicCells(bics []float64) string {
	best := 0
	for i, b := range bics {
		if b < bics[best] {
			best = i
		}
	}
	var cells string
	for i, b := range bics {
		if i == best {
			cells += fmt.Sprintf(" **%.1f** |", b)
		} else {
			cells += fmt.Sprintf(" %.1f |", b)
		}
	}
	return cells
}
