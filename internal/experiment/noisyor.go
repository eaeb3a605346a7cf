package experiment

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/latentree/latentree/noisyor"
	"github.com/latentree/latentree/noisyor/quartetlearn"
	"github.com/latentree/latentree/noisyor/vem"
)

// NoisyorImageSetting is one row of Figure 3 of Jernite et al. (2013): a
// training size and the rank-test threshold used on it.
type NoisyorImageSetting struct {
	Rows    int
	RankTol float64
	// Label is the row's name ("10000*" for the paper's τq = 0.003 row).
	Label string
}

// DefaultNoisyorImageSettings are the paper's rows: N = 100, 500, 1,000,
// 2,000 and 10,000 with τq = 0.01, and 10,000 with τq = 0.003.
var DefaultNoisyorImageSettings = []NoisyorImageSetting{
	{100, 0.01, "100"}, {500, 0.01, "500"}, {1000, 0.01, "1000"}, {2000, 0.01, "2000"},
	{10000, 0.01, "10000"}, {10000, 0.003, "10000*"},
}

// NoisyorImageConfig configures NoisyorImage. Zero values take defaults.
type NoisyorImageConfig struct {
	// Settings are the rows (default DefaultNoisyorImageSettings).
	Settings []NoisyorImageSetting
	// TestRows is the size of the held-out sample (default 10,000).
	TestRows int
	// Restarts are variational EM's random starts (default 16, the
	// paper's protocol); VEMMaxIter bounds each start's E-steps (0: the
	// library default).
	Restarts   int
	VEMMaxIter int
	// SkipVEM leaves variational EM out.
	SkipVEM bool
	Seed    uint64
	// Progress, if set, is called after each method run.
	Progress func(done, total int)
}

// NoisyorImageRow is one method on one setting.
type NoisyorImageRow struct {
	Setting string  `json:"setting"`
	Rows    int     `json:"rows"`
	RankTol float64 `json:"rank_tol,omitempty"`
	Method  string  `json:"method"`
	// Sources found, and how many of them have exactly the children of a
	// true source; Depth0 and Depth1 split the quartet method's sources.
	Sources       int `json:"sources"`
	ExactChildren int `json:"exact_children"`
	Depth0        int `json:"depth0"`
	Depth1        int `json:"depth1"`
	DeeperDepth   int `json:"deeper"`
	// MaxFailureErr is the largest |f̂ − f| over the edges of the sources
	// with exact children (NaN when none), MaxPriorErr likewise.
	MaxFailureErr float64 `json:"max_failure_err"`
	MaxPriorErr   float64 `json:"max_prior_err"`
	// HeldOut is the held-out log-likelihood per row (exact).
	HeldOut float64 `json:"heldout_loglik_per_row"`
	Seconds float64 `json:"seconds"`
	// Bound is variational EM's best lower bound per training row.
	Bound float64 `json:"vem_bound_per_row,omitempty"`
	Err   string  `json:"error,omitempty"`
}

// NoisyorImageResult holds the table and the figure.
type NoisyorImageResult struct {
	Rows []NoisyorImageRow
	Grid *SourceGrid
}

// NoisyorImage reproduces Figure 3 of Jernite et al. (2013) on
// noisyor.ImageNetwork: for each setting it samples N training rows (the
// smaller sizes are prefixes of the largest sample) and a held-out sample,
// learns with variational EM (the true number of sources, Restarts random
// starts, the best bound kept) and with the quartet method alone (Options.Paper), and reports
// sources found, exact children, parameter errors, held-out log-likelihood
// and time, with a grid of the sources' images (rows: settings; columns:
// variational EM, quartet depth 0, quartet depth 1, truth).
func NoisyorImage(cfg NoisyorImageConfig) (*NoisyorImageResult, error) {
	settings := cfg.Settings
	if len(settings) == 0 {
		settings = DefaultNoisyorImageSettings
	}
	testRows := cfg.TestRows
	if testRows == 0 {
		testRows = 10000
	}
	if testRows < 1 {
		return nil, fmt.Errorf("experiment: %d test rows", testRows)
	}
	restarts := cfg.Restarts
	if restarts == 0 {
		restarts = 16
	}
	truth := noisyor.ImageNetwork()
	maxRows := 0
	for _, s := range settings {
		if s.Rows < 1 {
			return nil, fmt.Errorf("experiment: setting %q has %d rows", s.Label, s.Rows)
		}
		maxRows = max(maxRows, s.Rows)
	}
	train, err := truth.Sample(rand.NewPCG(cfg.Seed, 1), maxRows)
	if err != nil {
		return nil, err
	}
	test, err := truth.Sample(rand.NewPCG(cfg.Seed, 2), testRows)
	if err != nil {
		return nil, err
	}
	testBin, err := noisyor.NewBinary(test)
	if err != nil {
		return nil, err
	}
	heldOut := func(n *noisyor.Network) (float64, error) {
		lik, err := n.LogLikelihood(testBin, noisyor.LikOptions{})
		if err != nil {
			return math.NaN(), err
		}
		return lik.LogLik / float64(testRows), nil
	}
	res := &NoisyorImageResult{}
	side := 8
	grid := &SourceGrid{W: side, H: side, ColLabels: []string{"variational EM", "quartet, depth 0", "quartet, depth 1", "truth"}}
	truthImgs := make([][]float64, len(truth.Sources))
	for s := range truth.Sources {
		truthImgs[s] = sourceImage(truth, s)
	}
	trueLL, err := heldOut(truth)
	if err != nil {
		return nil, err
	}
	total := len(settings) * 2
	if cfg.SkipVEM {
		total = len(settings)
	}
	done := 0
	for _, set := range settings {
		idx := make([]int, set.Rows)
		for i := range idx {
			idx[i] = i
		}
		sub, err := train.Rows(idx)
		if err != nil {
			return nil, err
		}
		b, err := noisyor.NewBinary(sub)
		if err != nil {
			return nil, err
		}
		cells := make([][][]float64, 4)
		cells[3] = truthImgs
		// Variational EM.
		if !cfg.SkipVEM {
			row := NoisyorImageRow{Setting: set.Label, Rows: set.Rows, Method: "variational EM"}
			t0 := time.Now()
			vr, err := vem.Fit(b, vem.Options{Sources: len(truth.Sources), Restarts: restarts, MaxIter: cfg.VEMMaxIter, Src: rand.NewPCG(cfg.Seed, uint64(set.Rows))})
			row.Seconds = time.Since(t0).Seconds()
			if err != nil {
				row.Err = err.Error()
			} else {
				row.Bound = vr.Bound / float64(set.Rows)
				fillImageRow(&row, truth, vr.Network, nil)
				if row.HeldOut, err = heldOut(vr.Network); err != nil {
					row.Err = err.Error()
				}
				cells[0] = alignedImages(truth, vr.Network, nil)
			}
			res.Rows = append(res.Rows, row)
			done++
			if cfg.Progress != nil {
				cfg.Progress(done, total)
			}
		}
		// Quartet method.
		row := NoisyorImageRow{Setting: set.Label, Rows: set.Rows, RankTol: set.RankTol, Method: "quartet"}
		t0 := time.Now()
		lr, err := quartetlearn.Learn(b, quartetlearn.Options{RankTol: set.RankTol, Paper: true})
		row.Seconds = time.Since(t0).Seconds()
		if err != nil {
			row.Err = err.Error()
		} else {
			fillImageRow(&row, truth, lr.Network, nil)
			if row.HeldOut, err = heldOut(lr.Network); err != nil {
				row.Err = err.Error()
			}
			for d := range 2 {
				keep := func(s *noisyor.Source) bool { return s.Learned != nil && s.Learned.Depth == d }
				cells[1+d] = alignedImages(truth, lr.Network, keep)
			}
		}
		res.Rows = append(res.Rows, row)
		done++
		if cfg.Progress != nil {
			cfg.Progress(done, total)
		}
		grid.RowLabels = append(grid.RowLabels, "N = "+set.Label)
		grid.Cells = append(grid.Cells, cells)
	}
	res.Rows = append(res.Rows, NoisyorImageRow{Setting: "truth", Method: "true network", Sources: len(truth.Sources),
		ExactChildren: len(truth.Sources), HeldOut: trueLL, MaxFailureErr: 0, MaxPriorErr: 0})
	res.Grid = grid
	return res, nil
}

// sourceImage is the 8×8 image of source s: 1 − failure per pixel effect
// "p<row>_<col>", 0 where there is no edge.
func sourceImage(n *noisyor.Network, s int) []float64 {
	img := make([]float64, 64)
	for _, c := range n.Sources[s].Children {
		var r, col int
		if _, err := fmt.Sscanf(n.Effects[c.Effect], "p%d_%d", &r, &col); err != nil || r < 0 || r >= 8 || col < 0 || col >= 8 {
			continue
		}
		img[r*8+col] = 1 - c.Failure
	}
	return img
}

// matchSources pairs each learned source (those keep accepts, all when
// nil) with the true source sharing most children (Jaccard), greedily by
// overlap; unmatched learned sources get −1.
func matchSources(truth, got *noisyor.Network, keep func(*noisyor.Source) bool) []int {
	type pair struct {
		g, t int
		j    float64
	}
	var pairs []pair
	for g := range got.Sources {
		if keep != nil && !keep(&got.Sources[g]) {
			continue
		}
		gs := childSet(got, g)
		for t := range truth.Sources {
			ts := childSet(truth, t)
			inter := 0
			for a := range gs {
				if ts[a] {
					inter++
				}
			}
			if inter == 0 {
				continue
			}
			pairs = append(pairs, pair{g, t, float64(inter) / float64(len(gs)+len(ts)-inter)})
		}
	}
	slices.SortStableFunc(pairs, func(x, y pair) int {
		switch {
		case x.j > y.j:
			return -1
		case x.j < y.j:
			return 1
		}
		return 0
	})
	match := make([]int, len(got.Sources))
	for i := range match {
		match[i] = -1
	}
	usedT := make([]bool, len(truth.Sources))
	for _, p := range pairs {
		if match[p.g] < 0 && !usedT[p.t] {
			match[p.g], usedT[p.t] = p.t, true
		}
	}
	return match
}

// childSet maps a source's children's names to true (networks may order
// their effects differently).
func childSet(n *noisyor.Network, s int) map[string]bool {
	m := make(map[string]bool, len(n.Sources[s].Children))
	for _, c := range n.Sources[s].Children {
		m[n.Effects[c.Effect]] = true
	}
	return m
}

// alignedImages returns the images of the kept learned sources placed in
// the slot of the true source each matches (nil slots for true sources
// not matched), unmatched ones appended.
func alignedImages(truth, got *noisyor.Network, keep func(*noisyor.Source) bool) [][]float64 {
	match := matchSources(truth, got, keep)
	out := make([][]float64, len(truth.Sources))
	for g, t := range match {
		if keep != nil && !keep(&got.Sources[g]) {
			continue
		}
		if t >= 0 {
			out[t] = sourceImage(got, g)
		} else {
			out = append(out, sourceImage(got, g))
		}
	}
	return out
}

// fillImageRow counts a learned network's sources, exact ones and errors.
func fillImageRow(row *NoisyorImageRow, truth, got *noisyor.Network, keep func(*noisyor.Source) bool) {
	row.Sources = got.NumSources()
	row.MaxFailureErr, row.MaxPriorErr = math.NaN(), math.NaN()
	match := matchSources(truth, got, keep)
	for g, t := range match {
		s := &got.Sources[g]
		if s.Learned != nil {
			switch s.Learned.Depth {
			case 0:
				row.Depth0++
			case 1:
				row.Depth1++
			default:
				row.DeeperDepth++
			}
		}
		if t < 0 {
			continue
		}
		gs, ts := childSet(got, g), childSet(truth, t)
		if len(gs) != len(ts) {
			continue
		}
		same := true
		for a := range gs {
			same = same && ts[a]
		}
		if !same {
			continue
		}
		row.ExactChildren++
		row.MaxPriorErr = nanMax(row.MaxPriorErr, math.Abs(s.Prior-truth.Sources[t].Prior))
		for _, c := range s.Children {
			a, _ := truth.Index(got.Effects[c.Effect])
			row.MaxFailureErr = nanMax(row.MaxFailureErr, math.Abs(c.Failure-truth.Failure(t, a)))
		}
	}
}

func nanMax(x, y float64) float64 {
	if math.IsNaN(x) {
		return y
	}
	return math.Max(x, y)
}

// WriteNoisyorImageCSV writes the table as CSV.
func WriteNoisyorImageCSV(w io.Writer, rows []NoisyorImageRow) error {
	fmt.Fprintln(w, "setting,rows,rank_tol,method,sources,exact_children,depth0,depth1,deeper,max_failure_err,max_prior_err,heldout_loglik_per_row,vem_bound_per_row,seconds,error")
	for _, r := range rows {
		_, err := fmt.Fprintf(w, "%s,%d,%g,%s,%d,%d,%d,%d,%d,%s,%s,%.6f,%s,%.3f,%q\n", r.Setting, r.Rows, r.RankTol, r.Method,
			r.Sources, r.ExactChildren, r.Depth0, r.Depth1, r.DeeperDepth, fmtNaN(r.MaxFailureErr), fmtNaN(r.MaxPriorErr),
			r.HeldOut, fmtZero(r.Bound), r.Seconds, r.Err)
		if err != nil {
			return err
		}
	}
	return nil
}

func fmtNaN(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return fmt.Sprintf("%.4f", x)
}

func fmtZero(x float64) string {
	if x == 0 {
		return ""
	}
	return fmt.Sprintf("%.6f", x)
}

// WriteNoisyorImageMarkdown writes the table as Markdown.
func WriteNoisyorImageMarkdown(w io.Writer, rows []NoisyorImageRow) error {
	var b strings.Builder
	b.WriteString("| N | method | sources | exact children | depth 0 / 1 | max \\|Δf\\| | max \\|Δp\\| | held-out LL / row | time |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		depth := ""
		if r.Method == "quartet" {
			depth = fmt.Sprintf("%d / %d", r.Depth0, r.Depth1)
			if r.DeeperDepth > 0 {
				depth += fmt.Sprintf(" (+%d deeper)", r.DeeperDepth)
			}
		}
		tm := fmt.Sprintf("%.2f s", r.Seconds)
		if r.Method == "true network" {
			tm = ""
		}
		if r.Err != "" {
			fmt.Fprintf(&b, "| %s | %s | error: %s |||||||\n", r.Setting, r.Method, r.Err)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %s | %.4f | %s |\n", r.Setting, r.Method, r.Sources, r.ExactChildren,
			depth, fmtNaN(r.MaxFailureErr), fmtNaN(r.MaxPriorErr), r.HeldOut, tm)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// NoisyorDepthConfig configures NoisyorDepth.
type NoisyorDepthConfig struct {
	// QMR are the options of the synthetic QMR-like network (defaults of
	// noisyor.QMROptions: 570 sources, 4,000 effects).
	QMR noisyor.QMROptions
	// Learn are the learner's options (exact-moment defaults).
	Learn quartetlearn.Options
	Seed  uint64
}

// NoisyorDepthRow is one depth of the table.
type NoisyorDepthRow struct {
	// Depth, −1 for "never".
	Depth int `json:"depth"`
	// Structure: sources and edges with a singly-coupled triplet (known
	// structure) and quartet at this depth, by the structural analysis.
	TripletSources int `json:"triplet_sources"`
	TripletEdges   int `json:"triplet_edges"`
	QuartetSources int `json:"quartet_sources"`
	QuartetEdges   int `json:"quartet_edges"`
	// Learned: sources and edges the quartet learner found at this depth
	// from exact moments.
	LearnedSources int `json:"learned_sources"`
	LearnedEdges   int `json:"learned_edges"`
}

// NoisyorDepthResult is the depth table with the network's size and the
// learner's run.
type NoisyorDepthResult struct {
	Sources, Effects, Edges int
	Rows                    []NoisyorDepthRow
	// Correct counts learned sources equal to a true source (children
	// exactly, parameters within 1e-9); Wrong the others.
	Correct, Wrong int
	// MaxParamErr is the largest parameter error of the correct sources.
	MaxParamErr float64
	Rounds      []quartetlearn.Round
	LearnTime   time.Duration
	// AnalysisTime is the time of the structural analysis.
	AnalysisTime time.Duration
}

// NoisyorDepth reproduces the aQMR-DT depth table of Jernite et al.
// (2013) on a synthetic QMR-like network: which sources (and edges) the
// quartet method finds at each depth from exact moments, against the
// structural analysis with known structure (triplets) and quartets.
func NoisyorDepth(cfg NoisyorDepthConfig) (*NoisyorDepthResult, error) {
	net, err := noisyor.QMRLike(rand.NewPCG(cfg.Seed, 3), cfg.QMR)
	if err != nil {
		return nil, err
	}
	res := &NoisyorDepthResult{Sources: net.NumSources(), Effects: net.NumEffects(), Edges: net.NumEdges()}
	t0 := time.Now()
	trip := noisyor.TripletDepths(net)
	quart := noisyor.QuartetDepths(net)
	res.AnalysisTime = time.Since(t0)
	opt := cfg.Learn
	if opt.Src == nil {
		opt.Src = rand.NewPCG(cfg.Seed, 4)
	}
	lr, err := quartetlearn.LearnExact(net, opt)
	if err != nil {
		return nil, err
	}
	res.LearnTime, res.Rounds = lr.Time, lr.Rounds
	learnedDepth := make([]int, net.NumSources())
	for i := range learnedDepth {
		learnedDepth[i] = -1
	}
	match := matchSources(net, lr.Network, nil)
	for g, t := range match {
		gs := &lr.Network.Sources[g]
		ok := t >= 0 && len(gs.Children) == len(net.Sources[t].Children)
		errMax := 0.0
		if ok {
			errMax = math.Abs(gs.Prior - net.Sources[t].Prior)
			for k, c := range gs.Children {
				tc := net.Sources[t].Children[k]
				if c.Effect != tc.Effect {
					ok = false
					break
				}
				errMax = math.Max(errMax, math.Abs(c.Failure-tc.Failure))
			}
		}
		if ok && errMax <= 1e-9 {
			res.Correct++
			res.MaxParamErr = math.Max(res.MaxParamErr, errMax)
			learnedDepth[t] = gs.Learned.Depth
		} else {
			res.Wrong++
		}
	}
	maxd := 0
	for _, ds := range [][]int{trip, quart, learnedDepth} {
		for _, d := range ds {
			maxd = max(maxd, d)
		}
	}
	rows := make([]NoisyorDepthRow, maxd+2)
	for i := range rows {
		rows[i].Depth = i
	}
	rows[maxd+1].Depth = -1
	at := func(d int) *NoisyorDepthRow {
		if d < 0 {
			return &rows[maxd+1]
		}
		return &rows[d]
	}
	for s := range net.Sources {
		e := len(net.Sources[s].Children)
		r := at(trip[s])
		r.TripletSources++
		r.TripletEdges += e
		r = at(quart[s])
		r.QuartetSources++
		r.QuartetEdges += e
		r = at(learnedDepth[s])
		r.LearnedSources++
		r.LearnedEdges += e
	}
	res.Rows = rows
	return res, nil
}

// WriteNoisyorDepthMarkdown writes the depth table as Markdown.
func WriteNoisyorDepthMarkdown(w io.Writer, r *NoisyorDepthResult) error {
	if r == nil {
		return errors.New("experiment: no result")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Network: %d sources, %d effects, %d edges. Learned from exact moments in %s (structural analysis %s); %d learned sources correct (max parameter error %.1e), %d wrong.\n\n",
		r.Sources, r.Effects, r.Edges, r.LearnTime.Round(time.Millisecond), r.AnalysisTime.Round(time.Millisecond), r.Correct, r.MaxParamErr, r.Wrong)
	b.WriteString("| depth | known structure, triplets: sources / edges | quartets (structural): sources / edges | quartet learner, exact moments: sources / edges |\n")
	b.WriteString("|---|---|---|---|\n")
	for _, row := range r.Rows {
		d := fmt.Sprint(row.Depth)
		if row.Depth < 0 {
			d = "never"
		}
		fmt.Fprintf(&b, "| %s | %d / %d | %d / %d | %d / %d |\n", d, row.TripletSources, row.TripletEdges,
			row.QuartetSources, row.QuartetEdges, row.LearnedSources, row.LearnedEdges)
	}
	b.WriteString("\n| round | candidate quartets | passed PRETEST | passed rank test | sources | edges | time |\n|---|---|---|---|---|---|---|\n")
	for _, rd := range r.Rounds {
		c := fmt.Sprint(rd.Candidates)
		if rd.Sampled {
			c += " (sampled)"
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %d | %d | %d | %s |\n", rd.Depth, c, rd.Pretest, rd.Passed, rd.Sources, rd.Edges, rd.Time.Round(time.Millisecond))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteNoisyorDepthCSV writes the depth table as CSV.
func WriteNoisyorDepthCSV(w io.Writer, r *NoisyorDepthResult) error {
	fmt.Fprintln(w, "depth,triplet_sources,triplet_edges,quartet_sources,quartet_edges,learned_sources,learned_edges")
	for _, row := range r.Rows {
		if _, err := fmt.Fprintf(w, "%d,%d,%d,%d,%d,%d,%d\n", row.Depth, row.TripletSources, row.TripletEdges,
			row.QuartetSources, row.QuartetEdges, row.LearnedSources, row.LearnedEdges); err != nil {
			return err
		}
	}
	return nil
}
