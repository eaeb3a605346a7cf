package experiment

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parquet-go/parquet-go"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/stats"
)

// The steps Scale measures at every point, in the order they run.
const (
	// ScaleStatsCSV is stats.ComputeBlocks over data.OpenBlocks of the
	// point's CSV file.
	ScaleStatsCSV = "stats-csv"
	// ScaleStatsParquet is the same from a Parquet file of int32 columns.
	ScaleStatsParquet = "stats-parquet"
	// ScaleStructure is learn.FromStats with CLNJ on those statistics.
	ScaleStructure = "structure"
	// ScaleLearnEM is the whole learn job from the Parquet file: reading
	// it into a data.Packed, then learn.LearnSource with default options
	// (statistics, CLNJ, the default contraction, EM with its warm-up on
	// samples), as latentree learn FILE.parquet does.
	ScaleLearnEM = "learn-em"
)

// ScaleSteps are the steps of Scale in order.
var ScaleSteps = []string{ScaleStatsCSV, ScaleStatsParquet, ScaleStructure, ScaleLearnEM}

// Default grids of Scale.
var (
	// DefaultScaleRows are the numbers of rows of the rows grid.
	DefaultScaleRows = []int{10_000, 100_000, 1_000_000, 10_000_000}
	// DefaultScaleVars are the numbers of variables of the variables grid.
	DefaultScaleVars = []int{10, 100, 1000}
)

const (
	// DefaultScaleRowVars is the number of variables of the rows grid.
	DefaultScaleRowVars = 100
	// DefaultScaleVarRows is the number of rows of the variables grid.
	DefaultScaleVarRows = 100_000
	// DefaultScaleMaxEMCells bounds rows × variables for the learn-em step.
	DefaultScaleMaxEMCells = 1e9
)

// ScaleConfig configures Scale. The zero value measures rows 10⁴, 10⁵, 10⁶
// and 10⁷ at 100 variables and variables 10, 100 and 1,000 at 10⁵ rows,
// with the learn-em step up to 10⁹ cells.
type ScaleConfig struct {
	// Rows are the numbers of rows of the rows grid (default
	// DefaultScaleRows), at RowVars variables (default 100).
	Rows    []int
	RowVars int
	// Vars are the numbers of variables of the variables grid (default
	// DefaultScaleVars), at VarRows rows (default 100,000). A point in
	// both grids is measured once.
	Vars    []int
	VarRows int
	// MaxEMCells bounds rows × variables for the learn-em step; larger
	// points get a row saying it was
	// skipped. Zero means DefaultScaleMaxEMCells, negative no bound.
	MaxEMCells float64
	// Seed makes the data reproducible: the tree, model and rows of a
	// point depend only on Seed and the point's size.
	Seed uint64
	// TempDir is where the data files are written, one point at a time,
	// and removed (default os.TempDir()).
	TempDir string
	// Progress, if not nil, is called after every step.
	Progress func(done, total int)
	// Targets configures the measurements of issue 25's targets, made
	// after the grid (ScaleTargets).
	Targets ScaleTargets
}

// ScaleRow is one step at one point.
type ScaleRow struct {
	Variables int    `json:"variables"`
	Rows      int    `json:"rows"`
	Step      string `json:"step"`
	// Seconds is the wall-clock time of the step; zero when skipped.
	Seconds float64 `json:"seconds"`
	// CPUSeconds is the CPU time (user and system, every thread) the
	// process used during the step, or the command's for a whole
	// command; zero when skipped or not measured (systems other than
	// Unix).
	CPUSeconds float64 `json:"cpu_seconds"`
	// PeakMB is the largest heap in use (runtime.MemStats.HeapInuse,
	// sampled every 10 ms after a garbage collection) during the step, in
	// MiB; it includes the process's baseline.
	PeakMB float64 `json:"peak_mb"`
	// FileMB is the size of the data file read (stats steps), in MiB.
	FileMB float64 `json:"file_mb,omitempty"`
	// StatRows is the number of rows the statistics counted (stats
	// steps).
	StatRows int64 `json:"stat_rows,omitempty"`
	// Skipped is set when the step was not run (Note says why).
	Skipped bool   `json:"skipped,omitempty"`
	Note    string `json:"note,omitempty"`
}

type scalePoint struct{ m, n int }

func (cfg *ScaleConfig) defaults() error {
	if len(cfg.Rows) == 0 {
		cfg.Rows = DefaultScaleRows
	}
	if len(cfg.Vars) == 0 {
		cfg.Vars = DefaultScaleVars
	}
	if cfg.RowVars == 0 {
		cfg.RowVars = DefaultScaleRowVars
	}
	if cfg.VarRows == 0 {
		cfg.VarRows = DefaultScaleVarRows
	}
	if cfg.MaxEMCells == 0 {
		cfg.MaxEMCells = DefaultScaleMaxEMCells
	}
	if cfg.TempDir == "" {
		cfg.TempDir = os.TempDir()
	}
	cfg.Targets.defaults()
	for _, n := range append([]int{cfg.VarRows}, cfg.Rows...) {
		if n < 10 {
			return fmt.Errorf("experiment: %d rows: want at least 10", n)
		}
	}
	for _, m := range append([]int{cfg.RowVars}, cfg.Vars...) {
		if m < 3 {
			return fmt.Errorf("experiment: %d variables: want at least 3", m)
		}
	}
	return nil
}

func (cfg *ScaleConfig) points() []scalePoint {
	var pts []scalePoint
	add := func(p scalePoint) {
		if !slices.Contains(pts, p) {
			pts = append(pts, p)
		}
	}
	for _, n := range cfg.Rows {
		add(scalePoint{cfg.RowVars, n})
	}
	for _, m := range cfg.Vars {
		add(scalePoint{m, cfg.VarRows})
	}
	return pts
}

// Scale measures the time and peak heap of latentree's steps against the
// numbers of rows and variables, on binary data sampled from a random
// binary latent tree (simulate.RandomBinary with β = ½) with a symmetric
// model (simulate.Symmetric, θ ~ U[0.05, 0.2]). At every point it writes
// the rows to a CSV file and to a Parquet file of Snappy-compressed int32
// columns in TempDir, sampling and writing in chunks so that generating
// 10⁷ rows takes bounded memory, and then measures, one after the other after a
// garbage collection each: the statistics of each file in blocks (they
// must agree: an error otherwise), the CLNJ structure from the statistics,
// and learn.Learn with default options on the rows sampled again in
// memory (the same rows; skipped above MaxEMCells). Steps run one at a
// time with every core, so times are those of a whole machine.
func Scale(ctx context.Context, cfg ScaleConfig) ([]ScaleRow, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	pts := cfg.points()
	total, done := len(pts)*len(ScaleSteps)+cfg.Targets.steps(), 0
	step := func() {
		done++
		if cfg.Progress != nil {
			cfg.Progress(done, total)
		}
	}
	var rows []ScaleRow
	for _, p := range pts {
		r, err := scalePointRun(ctx, &cfg, p, step)
		if err != nil {
			return nil, fmt.Errorf("experiment: %d variables × %d rows: %w", p.m, p.n, err)
		}
		rows = append(rows, r...)
	}
	if !cfg.Targets.Skip {
		r, err := scaleTargets(ctx, &cfg, step)
		if err != nil {
			return nil, fmt.Errorf("experiment: %w", err)
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// scaleChunk is the number of rows sampled and written at a time: about
// 2²² cells.
func scaleChunk(m int) int { return max(1024, (1<<22)/m) }

// scaleModel is the point's model and the seed of its rows.
func scaleModel(seed uint64, p scalePoint) (*discrete.Model, uint64, error) {
	rng := rand.New(rand.NewPCG(seed, uint64(p.m)<<40^uint64(p.n)))
	t, err := simulate.RandomBinary(rng, p.m, 0.5)
	if err != nil {
		return nil, 0, err
	}
	md, err := simulate.Symmetric(rng, t, simulate.SymmetricOptions{})
	if err != nil {
		return nil, 0, err
	}
	return md, rng.Uint64(), nil
}

// sampleChunks samples n rows of md in chunks of scaleChunk rows, chunk i
// from a generator seeded by rowSeed and i, and calls fn with each.
func sampleChunks(ctx context.Context, md *discrete.Model, rowSeed uint64, n, m int, fn func(d *data.Dataset, lo int) error) error {
	c := scaleChunk(m)
	for i, lo := 0, 0; lo < n; i, lo = i+1, lo+c {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, err := md.Sample(rand.NewPCG(rowSeed, uint64(i)), min(c, n-lo))
		if err != nil {
			return err
		}
		if err := fn(d, lo); err != nil {
			return err
		}
	}
	return nil
}

func scalePointRun(ctx context.Context, cfg *ScaleConfig, p scalePoint, step func()) ([]ScaleRow, error) {
	md, rowSeed, err := scaleModel(cfg.Seed, p)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(cfg.TempDir, "latentree-scale-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	csvPath, pqPath := filepath.Join(dir, "data.csv"), filepath.Join(dir, "data.parquet")
	if err := writeScaleFiles(ctx, md, rowSeed, p, csvPath, pqPath); err != nil {
		return nil, err
	}
	row := func(s string) ScaleRow { return ScaleRow{Variables: p.m, Rows: p.n, Step: s} }
	var out []ScaleRow
	var st [2]*stats.Stats
	for i, path := range []string{csvPath, pqPath} {
		r := row(ScaleSteps[i])
		if fi, err := os.Stat(path); err == nil {
			r.FileMB = float64(fi.Size()) / (1 << 20)
		}
		var s *stats.Stats
		r.Seconds, r.CPUSeconds, r.PeakMB, err = measure(func() error {
			br, err := data.OpenBlocks([]string{path}, data.BlockOptions{})
			if err != nil {
				return err
			}
			defer br.Close()
			s, err = stats.ComputeBlocks(br, stats.Options{})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Step, err)
		}
		r.StatRows = s.Rows()
		r.Note = fmt.Sprintf("file %.1f MB", r.FileMB)
		st[i] = s
		out = append(out, r)
		step()
	}
	if err := sameStats(st[0], st[1]); err != nil {
		return nil, fmt.Errorf("statistics of the CSV and Parquet files differ: %w", err)
	}
	st[1] = nil

	r := row(ScaleStructure)
	var res *learn.Result
	r.Seconds, r.CPUSeconds, r.PeakMB, err = measure(func() error {
		var err error
		res, err = learn.FromStats(st[0], learn.Options{Method: learn.CLNJ})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Step, err)
	}
	r.Note = fmt.Sprintf("%d hidden", res.Tree.NumNodes()-p.m)
	out = append(out, r)
	st[0], res = nil, nil
	step()

	r = row(ScaleLearnEM)
	if cells := float64(p.m) * float64(p.n); cfg.MaxEMCells > 0 && cells > cfg.MaxEMCells {
		r.Skipped = true
		r.Note = fmt.Sprintf("skipped: %.3g cells > --max-em-cells %.3g", cells, cfg.MaxEMCells)
	} else {
		var lr *learn.Result
		var readSec float64
		var em string
		r.Seconds, r.CPUSeconds, r.PeakMB, err = measure(func() error {
			t0 := time.Now()
			pk, err := data.Pack(&data.Files{Paths: []string{pqPath}})
			if err != nil {
				return err
			}
			readSec = time.Since(t0).Seconds()
			lr, err = learn.LearnSource(pk, learn.Options{})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Step, err)
		}
		if lr.EM != nil {
			for _, s := range lr.EM.Stages {
				em += fmt.Sprintf("%d on %d rows, ", s.Iterations, s.Rows)
			}
			em += fmt.Sprintf("%d on all rows", lr.EM.Iterations)
		}
		tm := lr.Timings
		r.Note = fmt.Sprintf("read %.2f s, stats %.2f s, structure %.2f s, fit %.2f s (E-steps: %s; %s contraction)",
			readSec, tm.Stats.Seconds(), tm.Structure.Seconds(), tm.Fit.Seconds(), em, lr.ContractRule)
	}
	out = append(out, r)
	step()
	return out, nil
}

// sampleAll samples the point's rows in memory, the same as the files
// hold.
func sampleAll(ctx context.Context, md *discrete.Model, rowSeed uint64, p scalePoint) (*data.Dataset, error) {
	var all *data.Dataset
	err := sampleChunks(ctx, md, rowSeed, p.n, p.m, func(d *data.Dataset, lo int) error {
		if all == nil {
			var err error
			if all, err = data.New(d.Vars(), p.n); err != nil {
				return err
			}
		}
		for j := range d.NumVars() {
			copy(all.Discrete(j)[lo:], d.Discrete(j))
		}
		return nil
	})
	return all, err
}

// writeScaleFiles writes the point's rows as CSV and as Parquet
// Snappy-compressed int32 columns (numeric state labels as their values,
// others as their codes), chunk by chunk, with a Parquet row group per about 2²⁴ cells.
func writeScaleFiles(ctx context.Context, md *discrete.Model, rowSeed uint64, p scalePoint, csvPath, pqPath string) (err error) {
	cf, err := os.Create(csvPath)
	if err != nil {
		return err
	}
	defer func() {
		if e := cf.Close(); err == nil {
			err = e
		}
	}()
	pf, err := os.Create(pqPath)
	if err != nil {
		return err
	}
	defer func() {
		if e := pf.Close(); err == nil {
			err = e
		}
	}()
	cw := bufio.NewWriterSize(cf, 1<<20)
	var (
		pw       *parquet.Writer
		order    []int     // dataset column of each Parquet column
		vals     [][]int32 // Parquet value of each state code, by dataset column
		labels   [][]string
		buf      []parquet.Row
		inGroup  int
		groupMax = max(scaleChunk(p.m), (1<<24)/p.m)
	)
	err = sampleChunks(ctx, md, rowSeed, p.n, p.m, func(d *data.Dataset, _ int) error {
		m := d.NumVars()
		if pw == nil {
			g := parquet.Group{}
			for j := range m {
				v := d.Var(j)
				g[v.Name] = parquet.Leaf(parquet.Int32Type)
				labels = append(labels, v.States)
				vs := make([]int32, len(v.States))
				for k, s := range v.States {
					x, err := strconv.ParseInt(s, 10, 32)
					if err != nil {
						x = int64(k)
					}
					vs[k] = int32(x)
				}
				vals = append(vals, vs)
			}
			schema := parquet.NewSchema("scale", g)
			for _, f := range schema.Fields() {
				j, _ := d.Index(f.Name())
				order = append(order, j)
			}
			pw = parquet.NewWriter(pf, schema, parquet.Compression(&parquet.Snappy))
			if _, err := cw.WriteString(strings.Join(d.Names(), ",") + "\n"); err != nil {
				return err
			}
		}
		n := d.NumRows()
		cols := make([][]uint16, m)
		for j := range m {
			cols[j] = d.Discrete(j)
		}
		var line []byte
		for i := range n {
			line = line[:0]
			for j := range m {
				if j > 0 {
					line = append(line, ',')
				}
				line = append(line, labels[j][cols[j][i]]...)
			}
			line = append(line, '\n')
			if _, err := cw.Write(line); err != nil {
				return err
			}
		}
		buf = slices.Grow(buf[:0], n)[:n]
		for i := range n {
			r := buf[i][:0]
			for k, j := range order {
				r = append(r, parquet.Int32Value(vals[j][cols[j][i]]).Level(0, 0, k))
			}
			buf[i] = r
		}
		if _, err := pw.WriteRows(buf); err != nil {
			return err
		}
		if inGroup += n; inGroup >= groupMax {
			inGroup = 0
			return pw.Flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if pw == nil {
		return errors.New("no rows")
	}
	if err := pw.Close(); err != nil {
		return err
	}
	return cw.Flush()
}

// sameStats checks that two statistics count the same rows and, by
// variable name and state label, the same pairwise tables.
func sameStats(a, b *stats.Stats) error {
	if a.Rows() != b.Rows() {
		return fmt.Errorf("%d rows against %d", a.Rows(), b.Rows())
	}
	if a.NumVars() != b.NumVars() {
		return fmt.Errorf("%d variables against %d", a.NumVars(), b.NumVars())
	}
	an, bn := a.Names(), b.Names()
	bi := make(map[string]int, len(bn))
	for j, s := range bn {
		bi[s] = j
	}
	idx := make([]int, len(an))
	for j, s := range an {
		k, ok := bi[s]
		if !ok {
			return fmt.Errorf("variable %s missing", s)
		}
		idx[j] = k
	}
	for j := range an {
		if !slices.Equal(a.Var(j).States, b.Var(idx[j]).States) {
			return fmt.Errorf("variable %s: states %v against %v", an[j], a.Var(j).States, b.Var(idx[j]).States)
		}
		if !slices.Equal(a.Marginal(j), b.Marginal(idx[j])) {
			return fmt.Errorf("variable %s: marginal counts differ", an[j])
		}
	}
	var pa, pb []int64
	for i := range an {
		for j := i + 1; j < len(an); j++ {
			pa, pb = a.Pair(i, j, pa), b.Pair(idx[i], idx[j], pb)
			if !slices.Equal(pa, pb) {
				return fmt.Errorf("variables %s and %s: pairwise counts differ", an[i], an[j])
			}
		}
	}
	return nil
}

// measure runs fn after a garbage collection and returns its wall-clock
// and CPU seconds and the largest heap in use (MiB), sampled every 10 ms.
func measure(fn func() error) (seconds, cpu, peakMB float64, err error) {
	runtime.GC()
	var peak atomic.Uint64
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		for {
			old := peak.Load()
			if ms.HeapInuse <= old || peak.CompareAndSwap(old, ms.HeapInuse) {
				return
			}
		}
	}
	sample()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				sample()
			}
		}
	})
	start, cpu0 := time.Now(), cpuSeconds()
	err = fn()
	seconds, cpu = time.Since(start).Seconds(), cpuSeconds()-cpu0
	close(stop)
	wg.Wait()
	sample()
	return seconds, cpu, float64(peak.Load()) / (1 << 20), err
}

// WriteScaleCSV writes the rows as CSV: variables, rows, step, seconds,
// cpu_seconds, peak_mb, note.
func WriteScaleCSV(w io.Writer, rows []ScaleRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"variables", "rows", "step", "seconds", "cpu_seconds", "peak_mb", "note"}); err != nil {
		return err
	}
	for _, r := range rows {
		sec, cpu, mb := strconv.FormatFloat(r.Seconds, 'f', 4, 64), strconv.FormatFloat(r.CPUSeconds, 'f', 4, 64), strconv.FormatFloat(r.PeakMB, 'f', 1, 64)
		if r.Skipped {
			sec, cpu, mb = "", "", ""
		}
		if err := cw.Write([]string{strconv.Itoa(r.Variables), strconv.Itoa(r.Rows), r.Step, sec, cpu, mb, r.Note}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteScaleTable writes the rows as a Markdown table.
func WriteScaleTable(w io.Writer, rows []ScaleRow) error {
	var b strings.Builder
	b.WriteString("| variables | rows | step | seconds | CPU seconds | peak heap MB | note |\n|---:|---:|---|---:|---:|---:|---|\n")
	for _, r := range rows {
		sec, cpu, mb := fmt.Sprintf("%.3f", r.Seconds), fmt.Sprintf("%.3f", r.CPUSeconds), fmt.Sprintf("%.1f", r.PeakMB)
		if r.Skipped {
			sec, cpu, mb = "–", "–", "–"
		}
		fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %s |\n", r.Variables, r.Rows, r.Step, sec, cpu, mb, r.Note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// PlotScale draws a 2 × 2 grid: seconds (top) and peak heap (bottom)
// against rows at the rows grid's number of variables (left) and against
// variables at the variables grid's number of rows (right), one line per
// step, both axes logarithmic. rowVars and varRows name the grids (zero:
// the defaults). format is "svg" or "png".
func PlotScale(w io.Writer, rows []ScaleRow, rowVars, varRows int, format string) error {
	if len(rows) == 0 {
		return errors.New("experiment: nothing to plot")
	}
	if rowVars == 0 {
		rowVars = DefaultScaleRowVars
	}
	if varRows == 0 {
		varRows = DefaultScaleVarRows
	}
	metrics := []struct {
		label string
		f     func(ScaleRow) float64
	}{
		{"seconds", func(r ScaleRow) float64 { return r.Seconds }},
		{"peak heap in use (MB)", func(r ScaleRow) float64 { return r.PeakMB }},
	}
	axes := []struct {
		title, xlabel string
		in            func(ScaleRow) bool
		x             func(ScaleRow) float64
	}{
		{fmt.Sprintf("%d variables", rowVars), "rows", func(r ScaleRow) bool { return r.Variables == rowVars }, func(r ScaleRow) float64 { return float64(r.Rows) }},
		{fmt.Sprintf("%d rows", varRows), "variables", func(r ScaleRow) bool { return r.Rows == varRows }, func(r ScaleRow) float64 { return float64(r.Variables) }},
	}
	plots := make([][]*plot.Plot, len(metrics))
	for i, m := range metrics {
		for j, a := range axes {
			p := plot.New()
			p.Title.Text = a.title
			p.X.Label.Text = a.xlabel
			p.Y.Label.Text = m.label
			p.Legend.Top, p.Legend.Left = true, true
			p.Legend.TextStyle.Font.Size = vg.Points(8)
			any := false
			for k, s := range ScaleSteps {
				var pts plotter.XYs
				for _, r := range rows {
					if r.Step == s && !r.Skipped && a.in(r) {
						if y := m.f(r); y > 0 && !math.IsInf(y, 0) {
							pts = append(pts, plotter.XY{X: a.x(r), Y: y})
						}
					}
				}
				slices.SortFunc(pts, func(a, b plotter.XY) int { return int(math.Copysign(1, a.X-b.X)) })
				if len(pts) == 0 {
					continue
				}
				if err := addSeries(p, s, pts, k); err != nil {
					return err
				}
				any = true
			}
			if any {
				p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
				p.X.Tick.Marker, p.Y.Tick.Marker = powerTicks{}, logTicks125{}
			}
			if i > 0 || j > 0 {
				p.Legend = plot.NewLegend()
			} else if any {
				// Room above the lines for the legend.
				p.Y.Max *= 40
			}
			plots[i] = append(plots[i], p)
		}
	}
	return writeGrid(w, plots, format, 4*vg.Inch, 3.2*vg.Inch)
}

// powerTicks labels a logarithmic axis at the powers of ten as 10ⁿ, with
// unlabelled minor ticks.
type powerTicks struct{}

// Ticks returns the ticks between min and max.
func (powerTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(min, max)
	for i, t := range ticks {
		if t.Label == "" {
			continue
		}
		e := int(math.Round(math.Log10(t.Value)))
		if math.Abs(math.Pow(10, float64(e))-t.Value) > 1e-9*t.Value {
			continue
		}
		sup := strings.NewReplacer("-", "⁻", "0", "⁰", "1", "¹", "2", "²", "3", "³", "4", "⁴", "5", "⁵", "6", "⁶", "7", "⁷", "8", "⁸", "9", "⁹")
		ticks[i].Label = "10" + sup.Replace(strconv.Itoa(e))
	}
	return ticks
}
