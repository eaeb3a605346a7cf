package experiment

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/noisyor"
	"github.com/latentree/latentree/noisyor/quartetlearn"
	"github.com/latentree/latentree/noisyor/vem"
)

// NoisyorRealConfig configures NoisyorReal.
type NoisyorRealConfig struct {
	// KMin and KMax bound the numbers of sources VEM is run with
	// (defaults 2 and 16).
	KMin, KMax int
	// Restarts of each VEM fit (default vem.DefaultRestarts, the paper's
	// protocol).
	Restarts int
	// SkipVEM and SkipTree leave those methods out.
	SkipVEM, SkipTree bool
	// Seed drives VEM's starts and the latent tree's EM.
	Seed uint64
	// Progress, if set, is told what runs.
	Progress func(what string)
}

// NoisyorRealSet is a binary dataset split into training and test rows.
type NoisyorRealSet struct {
	Name        string
	Train, Test *data.Dataset
	// Truth, when known (simulated), is scored too, as method "truth".
	Truth *noisyor.Network
}

// NoisyorRealRow is one method's outcome on one dataset.
type NoisyorRealRow struct {
	Data, Method string
	// K is the number of sources (hidden variables for the latent tree);
	// for "vem-best" the K chosen on the test rows.
	K, Edges int
	// TestLL is the test log-likelihood; PerRow its mean per row. Both
	// are −Inf when a test row has probability 0 under the model.
	TestLL, PerRow float64
	// ZeroRows counts the test rows with probability 0 (log-likelihood
	// −Inf), and FinitePerRow is the mean log-likelihood over the other
	// rows (equal to PerRow when ZeroRows is 0).
	ZeroRows     int
	FinitePerRow float64
	// Seconds is the wall time: for vem-best the whole search over K.
	Seconds float64
	// Tested and Accepted count the learner's residual candidates.
	Tested, Accepted int
}

// NoisyorRealResult holds the rows and VEM's test log-likelihood for
// every K (for the plot).
type NoisyorRealResult struct {
	Rows []NoisyorRealRow
	// VEM[data] lists (K, test LL) pairs in increasing K.
	VEM map[string][][2]float64
}

// NoisyorRealSimulated returns n simulated datasets from random noisy-or
// networks with overlapping sources and multi-parent effects: 12 sources
// on 60 effects with 8 to 20 children each (so most effects have two or
// more parents, and no structural assumption of the quartet method is
// enforced), priors 0.05–0.3, failures 0.05–0.6, leaks 0.01, trainRows
// and testRows rows.
func NoisyorRealSimulated(n, trainRows, testRows int, seed uint64) ([]NoisyorRealSet, []*noisyor.Network, error) {
	var sets []NoisyorRealSet
	var nets []*noisyor.Network
	for i := range n {
		net, err := noisyor.RandomNetwork(rand.NewPCG(seed, uint64(100+i)), noisyor.RandomOptions{Sources: 12, Effects: 60,
			MinChildren: 8, MaxChildren: 20, PriorMin: 0.05, PriorMax: 0.3, FailureMin: 0.05, FailureMax: 0.6, Leak: 0.01})
		if err != nil {
			return nil, nil, err
		}
		train, err := net.Sample(rand.NewPCG(seed, uint64(200+i)), trainRows)
		if err != nil {
			return nil, nil, err
		}
		test, err := net.Sample(rand.NewPCG(seed, uint64(300+i)), testRows)
		if err != nil {
			return nil, nil, err
		}
		sets = append(sets, NoisyorRealSet{Name: fmt.Sprintf("overlap-%d", i+1), Train: train, Test: test, Truth: net})
		nets = append(nets, net)
	}
	return sets, nets, nil
}

// NoisyorReal compares, on each dataset's test rows, the noisy-or learner
// (its default, and the paper's algorithm alone), variational EM with
// K = KMin…KMax sources (the best K on the test rows, timed as the whole
// search) and the latent tree learn.Learn learns by default.
func NoisyorReal(sets []NoisyorRealSet, cfg NoisyorRealConfig) (*NoisyorRealResult, error) {
	if cfg.KMin == 0 {
		cfg.KMin = 2
	}
	if cfg.KMax == 0 {
		cfg.KMax = 16
	}
	if cfg.Restarts == 0 {
		cfg.Restarts = vem.DefaultRestarts
	}
	if cfg.KMin < 1 || cfg.KMax < cfg.KMin {
		return nil, fmt.Errorf("experiment: K from %d to %d", cfg.KMin, cfg.KMax)
	}
	say := func(s string) {
		if cfg.Progress != nil {
			cfg.Progress(s)
		}
	}
	res := &NoisyorRealResult{VEM: map[string][][2]float64{}}
	for _, set := range sets {
		train, err := noisyor.NewBinary(set.Train)
		if err != nil {
			return nil, err
		}
		test, err := noisyor.NewBinary(set.Test)
		if err != nil {
			return nil, err
		}
		score := func(n *noisyor.Network) (*noisyor.Likelihood, error) {
			return n.LogLikelihood(test, noisyor.LikOptions{})
		}
		add := func(method string, n *noisyor.Network, secs float64, st []quartetlearn.Stage) error {
			l, err := score(n)
			if err != nil {
				return err
			}
			row := NoisyorRealRow{Data: set.Name, Method: method, K: n.NumSources(), Edges: n.NumEdges(),
				TestLL: l.LogLik, PerRow: l.LogLik / float64(test.Rows), Seconds: secs,
				ZeroRows: l.Zero, FinitePerRow: finiteMean(l.FiniteLogLik, test.Rows-l.Zero)}
			if len(st) > 1 {
				row.Tested, row.Accepted = st[1].Tested, st[1].Accepted
			}
			res.Rows = append(res.Rows, row)
			return nil
		}
		if set.Truth != nil {
			if err := add("truth", set.Truth, 0, nil); err != nil {
				return nil, err
			}
		}
		for _, paper := range []bool{false, true} {
			name := "learner"
			if paper {
				name = "paper"
			}
			say(set.Name + " " + name)
			t0 := time.Now()
			r, err := quartetlearn.Learn(train, quartetlearn.Options{Paper: paper})
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", set.Name, name, err)
			}
			if err := add(name, r.Network, time.Since(t0).Seconds(), r.Stages); err != nil {
				return nil, err
			}
		}
		if !cfg.SkipVEM {
			var best *noisyor.Network
			bestLL, total := math.Inf(-1), 0.0
			for k := cfg.KMin; k <= cfg.KMax; k++ {
				say(fmt.Sprintf("%s vem K=%d", set.Name, k))
				t0 := time.Now()
				vr, err := vem.Fit(train, vem.Options{Sources: k, Restarts: cfg.Restarts, Src: rand.NewPCG(cfg.Seed, uint64(k))})
				if err != nil {
					return nil, fmt.Errorf("%s vem K=%d: %w", set.Name, k, err)
				}
				total += time.Since(t0).Seconds()
				l, err := score(vr.Network)
				if err != nil {
					return nil, err
				}
				ll := l.LogLik
				res.VEM[set.Name] = append(res.VEM[set.Name], [2]float64{float64(k), ll})
				if ll > bestLL {
					best, bestLL = vr.Network, ll
				}
			}
			if err := add("vem-best", best, total, nil); err != nil {
				return nil, err
			}
		}
		if !cfg.SkipTree {
			say(set.Name + " latent tree")
			t0 := time.Now()
			lr, err := learn.Learn(set.Train, learn.Options{Src: rand.NewPCG(cfg.Seed, 11)})
			if err != nil {
				return nil, fmt.Errorf("%s latent tree: %w", set.Name, err)
			}
			secs := time.Since(t0).Seconds()
			rows, ll, err := lr.Model.LogLikelihood(set.Test, model.InferOptions{})
			if err != nil {
				return nil, err
			}
			zero, finite := 0, 0.0
			for _, x := range rows {
				if math.IsInf(x, -1) {
					zero++
				} else {
					finite += x
				}
			}
			res.Rows = append(res.Rows, NoisyorRealRow{Data: set.Name, Method: "latent-tree", K: lr.Tree.NumHidden(),
				TestLL: ll, PerRow: ll / float64(len(rows)), Seconds: secs,
				ZeroRows: zero, FinitePerRow: finiteMean(finite, len(rows)-zero)})
		}
	}
	return res, nil
}

// finiteMean is sum/n, or NaN when no row is finite.
func finiteMean(sum float64, n int) float64 {
	if n <= 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// WriteNoisyorRealMarkdown writes the rows as a Markdown table. A method
// that gives some test rows probability 0 has test LL and per row −Inf;
// the table then says how many rows and gives the mean over the others.
func WriteNoisyorRealMarkdown(w io.Writer, res *NoisyorRealResult) error {
	fmt.Fprintln(w, "| data | method | sources (K) | edges | test LL | per row | rows with P = 0 | per row over the others | seconds | residual tested / accepted |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range res.Rows {
		stage := "–"
		if r.Method == "learner" {
			stage = fmt.Sprintf("%d / %d", r.Tested, r.Accepted)
		}
		edges := "–"
		if r.Method != "latent-tree" {
			edges = fmt.Sprint(r.Edges)
		}
		finite := "–"
		if r.ZeroRows > 0 {
			finite = fmt.Sprintf("%.4f", r.FinitePerRow)
		}
		if _, err := fmt.Fprintf(w, "| %s | %s | %d | %s | %.0f | %.4f | %d | %s | %.1f | %s |\n", r.Data, r.Method, r.K, edges, r.TestLL, r.PerRow, r.ZeroRows, finite, r.Seconds, stage); err != nil {
			return err
		}
	}
	return nil
}

// WriteNoisyorRealCSV writes the rows, then VEM's curve as rows of
// method vem-K.
func WriteNoisyorRealCSV(w io.Writer, res *NoisyorRealResult) error {
	fmt.Fprintln(w, "data,method,k,edges,test_ll,per_row,zero_rows,finite_per_row,seconds,residual_tested,residual_accepted")
	for _, r := range res.Rows {
		if _, err := fmt.Fprintf(w, "%s,%s,%d,%d,%.2f,%.6f,%d,%.6f,%.3f,%d,%d\n", r.Data, r.Method, r.K, r.Edges, r.TestLL, r.PerRow, r.ZeroRows, r.FinitePerRow, r.Seconds, r.Tested, r.Accepted); err != nil {
			return err
		}
	}
	for _, set := range orderedKeys(res) {
		for _, p := range res.VEM[set] {
			if _, err := fmt.Fprintf(w, "%s,vem-K,%d,,%.2f,,,,,,\n", set, int(p[0]), p[1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// orderedKeys lists the datasets in the order of the rows.
func orderedKeys(res *NoisyorRealResult) []string {
	var keys []string
	seen := map[string]bool{}
	for _, r := range res.Rows {
		if !seen[r.Data] {
			seen[r.Data] = true
			keys = append(keys, r.Data)
		}
	}
	return keys
}

// PlotNoisyorReal draws one panel per dataset: VEM's test log-likelihood
// per row against K, and the learner's, the paper's and the latent
// tree's as horizontal lines (over the rows with probability > 0, said in
// the legend, for a method that gives some rows probability 0).
func PlotNoisyorReal(w io.Writer, res *NoisyorRealResult, format string) error {
	var panels []*plot.Plot
	for _, set := range orderedKeys(res) {
		p := plot.New()
		p.Title.Text = set
		p.X.Label.Text = "VEM sources K"
		p.Y.Label.Text = "test log-likelihood per row"
		p.Legend.Top = false
		p.Legend.Left = false
		var rows int
		for _, r := range res.Rows {
			if r.Data == set && r.PerRow != 0 {
				rows = int(math.Round(r.TestLL / r.PerRow))
				break
			}
		}
		lo, hi := 2.0, 16.0
		if pts := res.VEM[set]; len(pts) > 0 {
			lo, hi = pts[0][0], pts[len(pts)-1][0]
			var xy plotter.XYs
			for _, q := range pts {
				// A K whose network gives a test row probability 0
				// (−Inf) is left out.
				if y := q[1] / float64(max(1, rows)); !math.IsInf(y, 0) && !math.IsNaN(y) {
					xy = append(xy, plotter.XY{X: q[0], Y: y})
				}
			}
			if len(xy) > 0 {
				if err := addSeries(p, "VEM", xy, 0); err != nil {
					return err
				}
			}
		}
		k := 1
		for _, r := range res.Rows {
			if r.Data != set || r.Method == "vem-best" {
				continue
			}
			// A method that gives some test rows probability 0 is drawn
			// at its mean over the other rows, and its label says so.
			y, label := r.PerRow, r.Method
			if r.ZeroRows > 0 {
				y, label = r.FinitePerRow, fmt.Sprintf("%s (%d rows P = 0 left out)", r.Method, r.ZeroRows)
			}
			if math.IsInf(y, 0) || math.IsNaN(y) {
				continue
			}
			if err := addSeries(p, label, plotter.XYs{{X: lo, Y: y}, {X: hi, Y: y}}, k); err != nil {
				return err
			}
			k++
		}
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return fmt.Errorf("experiment: nothing to plot")
	}
	return writeGrid(w, [][]*plot.Plot{panels}, format, 4*vg.Inch, 3.2*vg.Inch)
}
