package mixed

import (
	"errors"
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/model"
)

// Exact inference, one row at a time.
//
// The discrete nodes form a subtree that holds the root; every continuous
// node belongs to one block: a maximal continuous subtree, whose top has a
// discrete parent (or is the root of an all-continuous tree). Given the
// state a of the top's parent a block is a linear-Gaussian tree, so its
// message to the parent, the density of the block's observed cells given
// a, is computed by Gaussian belief propagation inside the block: one
// upward pass (information-form messages exp(c − ½Jx² + hx), independent
// of a) and, per state a, a closed-form integral over the top's prior
// N(Mean[top][a], Var[top][a]). This costs O(block size + states) per
// row whatever cells are missing, so no per-pattern Cholesky factors are
// needed (rows with their own missingness patterns cost no more). The
// discrete nodes then run sum-product with per-node scaling of the
// messages; the scales are kept in log space.

// blockRows is the number of rows handed to one parallel task: the chunks
// are fixed, so results do not depend on the number of workers.
const blockRows = 256

const halfLog2Pi = 0.9189385332046728 // ½ log 2π

// binding maps a dataset onto the model's observed nodes.
type binding struct {
	rows  int
	codes [][]uint16  // discrete observed node → column codes
	remap [][]uint16  // discrete observed node → code → model state
	vals  [][]float64 // continuous observed node → column values (NaN: missing)
	col   []int       // node → column or −1
	w     []float64   // row weights (data.Dataset.RowWeights; nil: 1 each)
}

// wt returns the weight of row r.
func (b *binding) wt(r int) float64 {
	if b.w == nil {
		return 1
	}
	return b.w[r]
}

// bind matches the model's observed variables with the columns of d by
// name (a *model.MismatchError names those that do not match), checks
// their kinds, and matches state labels.
func (m *Model) bind(d *data.Dataset) (*binding, error) {
	if d == nil {
		return nil, errors.New("model: no data")
	}
	t := m.Tree
	if err := model.CheckColumns(t, d.Names()); err != nil {
		return nil, err
	}
	n := t.MaxID()
	b := &binding{rows: d.NumRows(), codes: make([][]uint16, n), remap: make([][]uint16, n), vals: make([][]float64, n), col: make([]int, n)}
	for i := range b.col {
		b.col[i] = -1
	}
	for _, v := range t.Observed() {
		name := t.Name(v)
		j, _ := d.Index(name)
		dv := d.Var(j)
		b.col[v] = j
		if dv.Kind != m.Kinds[v] {
			return nil, fmt.Errorf("model: column %q is %v but the model's variable is %v", name, dv.Kind, m.Kinds[v])
		}
		if dv.Kind == data.Continuous {
			col := d.Continuous(j)
			for r, x := range col {
				if math.IsInf(x, 0) {
					return nil, fmt.Errorf("model: column %q row %d has infinite value %g", name, r+1, x)
				}
			}
			b.vals[v] = col
			continue
		}
		remap, err := model.StateRemap(dv, m.StateLabels(v))
		if err != nil {
			return nil, err
		}
		b.codes[v], b.remap[v] = d.Discrete(j), remap
	}
	b.w = d.RowWeights()
	return b, nil
}

// block is a maximal continuous subtree.
type block struct {
	top    int   // highest node
	parent int   // the top's (discrete) parent, −1 for none
	k      int   // states of parent (1 without one)
	nodes  []int // parents before children; nodes[0] == top
}

// engine holds a model's structure for inference, and constants of its
// parameters computed once per engine (once per E-step in EM).
type engine struct {
	m        *Model
	parent   []int
	children [][]int
	disc     []int // discrete nodes, parents before children
	blocks   []block
	blockOf  []int     // continuous node → index of its block
	obsConst []float64 // −½ log 2π − ½ log Var[v][0] of a node inside a block
	// Of a block's top v, per parent state a: topConst[v][a] = −½ log 2π
	// − ½ log Var[v][a], topInv[v][a] = 1/Var[v][a].
	topConst, topInv [][]float64
	// A discrete observed leaf v (not the root) sends its parent the
	// column of its table at its state s, scaled to maximum 1: leafUp[v][s]
	// (read only), with the scale leafMax[v][s]; leafUp[v][k] is the
	// message of a missing cell (all 1).
	leaf    []bool
	leafUp  [][][]float64
	leafMax [][]float64
	// needBel marks the discrete nodes whose posterior the E-step
	// reads: the root and the parents of blocks.
	needBel []bool
}

func newEngine(m *Model) *engine {
	r := m.Rooted()
	n := m.Tree.MaxID()
	e := &engine{m: m, parent: r.Parent, children: r.Children, blockOf: make([]int, n), obsConst: make([]float64, n),
		topConst: make([][]float64, n), topInv: make([][]float64, n), leaf: make([]bool, n), leafUp: make([][][]float64, n), leafMax: make([][]float64, n),
		needBel: make([]bool, n)}
	for i := range e.blockOf {
		e.blockOf[i] = -1
	}
	for _, v := range r.Order {
		p := r.Parent[v]
		switch {
		case m.Kinds[v] == data.Discrete:
			e.disc = append(e.disc, v)
			e.needBel[v] = p < 0
			if p >= 0 && len(r.Children[v]) == 0 && !m.Tree.IsHidden(v) {
				e.leafMessages(v, p)
			}
		case p < 0 || m.Kinds[p] == data.Discrete:
			k := 1
			if p >= 0 {
				k = m.States[p]
			}
			e.blockOf[v] = len(e.blocks)
			e.blocks = append(e.blocks, block{top: v, parent: p, k: k, nodes: []int{v}})
			if p >= 0 {
				e.needBel[p] = true
			}
			cst, inv := make([]float64, len(m.Var[v])), make([]float64, len(m.Var[v]))
			for a, x := range m.Var[v] {
				cst[a], inv[a] = -halfLog2Pi-0.5*math.Log(x), 1/x
			}
			e.topConst[v], e.topInv[v] = cst, inv
		default:
			bi := e.blockOf[p]
			e.blockOf[v] = bi
			e.blocks[bi].nodes = append(e.blocks[bi].nodes, v)
			e.obsConst[v] = -halfLog2Pi - 0.5*math.Log(m.Var[v][0])
		}
	}
	return e
}

// leafMessages sets the messages of discrete observed leaf v with parent
// p (see engine).
func (e *engine) leafMessages(v, p int) {
	m := e.m
	k, kp := m.States[v], m.States[p]
	cpt := m.CPT[v]
	e.leaf[v] = true
	e.leafUp[v], e.leafMax[v] = make([][]float64, k+1), make([]float64, k+1)
	for s := range k {
		up := make([]float64, kp)
		mx := 0.0
		for a := range up {
			up[a] = cpt[a*k+s]
			mx = max(mx, up[a])
		}
		if mx > 0 {
			for a := range up {
				up[a] /= mx
			}
		}
		e.leafUp[v][s], e.leafMax[v][s] = up, mx
	}
	ones := make([]float64, kp)
	for a := range ones {
		ones[a] = 1
	}
	e.leafUp[v][k], e.leafMax[v][k] = ones, 1
}

// work is one goroutine's buffers for one row, indexed by node.
type work struct {
	lam, up, down, pi, bel [][]float64 // discrete messages (see upward, downward)
	ev                     []int       // observed state of a discrete node, −1
	y                      []float64   // observed value of a continuous node, NaN
	j, h, c, den           []float64   // block messages (upward)
	mean, vr, cp           []float64   // block posteriors given one parent state
	pre                    [][]float64 // prefix products (downward)
	run                    []float64
}

func (e *engine) newWork() *work {
	m := e.m
	n := m.Tree.MaxID()
	w := &work{lam: make([][]float64, n), up: make([][]float64, n), down: make([][]float64, n), pi: make([][]float64, n), bel: make([][]float64, n),
		ev: make([]int, n), y: make([]float64, n), j: make([]float64, n), h: make([]float64, n), c: make([]float64, n), den: make([]float64, n),
		mean: make([]float64, n), vr: make([]float64, n), cp: make([]float64, n)}
	maxCh, maxK := 0, 0
	for _, v := range e.disc {
		maxK = max(maxK, m.States[v])
		k := m.States[v]
		w.lam[v], w.pi[v], w.bel[v] = make([]float64, k), make([]float64, k), make([]float64, k)
		if e.leaf[v] {
			// upward leaves a leaf's λ at 1: downward and accumulate
			// use its state instead.
			for s := range k {
				w.lam[v][s] = 1
			}
		}
		if p := e.parent[v]; p >= 0 {
			w.up[v], w.down[v] = make([]float64, m.States[p]), make([]float64, m.States[p])
		}
		maxCh = max(maxCh, len(e.children[v]))
	}
	for _, bl := range e.blocks {
		w.up[bl.top] = make([]float64, bl.k)
	}
	w.pre = make([][]float64, maxCh)
	for x := range w.pre {
		w.pre[x] = make([]float64, maxK)
	}
	w.run = make([]float64, maxK)
	return w
}

// load reads row r's cells into w.ev and w.y.
func (e *engine) load(b *binding, w *work, r int) {
	for _, v := range e.disc {
		w.ev[v] = -1
		if codes := b.codes[v]; codes != nil {
			if c := codes[r]; c != data.Missing {
				w.ev[v] = int(b.remap[v][c])
			}
		}
	}
	for _, bl := range e.blocks {
		for _, v := range bl.nodes {
			w.y[v] = math.NaN()
			if vals := b.vals[v]; vals != nil {
				w.y[v] = vals[r]
			}
		}
	}
}

// blockUp runs the upward pass inside block bl: afterwards w.j, w.h, w.c
// of every node of bl hold the message from its children, as a function
// of its value x, exp(c − ½jx² + hx) (the density of the observed cells
// below it given x).
func (e *engine) blockUp(bl *block, w *work) {
	m := e.m
	for _, v := range bl.nodes {
		w.j[v], w.h[v], w.c[v] = 0, 0, 0
	}
	for i := len(bl.nodes) - 1; i >= 1; i-- {
		v := bl.nodes[i]
		p := e.parent[v]
		mu, cf, vv := m.Mean[v][0], m.Coef[v], m.Var[v][0]
		j, h, c := w.j[v], w.h[v], w.c[v]
		if y := w.y[v]; !math.IsNaN(y) {
			d := y - mu
			w.j[p] += cf * cf / vv
			w.h[p] += cf * d / vv
			w.c[p] += c - 0.5*j*y*y + h*y + e.obsConst[v] - 0.5*d*d/vv
			continue
		}
		den := 1 + vv*j
		w.den[v] = den
		w.j[p] += cf * cf * j / den
		w.h[p] += cf * (h - j*mu) / den
		w.c[p] += c + (h*mu-0.5*j*mu*mu+0.5*vv*h*h)/den - 0.5*math.Log(den)
	}
}

// topLog returns the log-density of block bl's observed cells given its
// parent's state a (after blockUp).
func (e *engine) topLog(bl *block, w *work, a int) float64 {
	v := bl.top
	mu, s2 := e.m.Mean[v][a], e.m.Var[v][a]
	j, h, c := w.j[v], w.h[v], w.c[v]
	if y := w.y[v]; !math.IsNaN(y) {
		d := y - mu
		return c - 0.5*j*y*y + h*y + e.topConst[v][a] - 0.5*d*d*e.topInv[v][a]
	}
	den := 1 + s2*j
	return c + (h*mu-0.5*j*mu*mu+0.5*s2*h*h)/den - 0.5*math.Log(den)
}

// blockPost sets w.mean, w.vr and w.cp of block bl's nodes to their
// posterior means, variances and covariances with their parents (0 for
// the top) given the row's cells below the top and the parent's state a
// (after blockUp).
func (e *engine) blockPost(bl *block, w *work, a int) {
	m := e.m
	v := bl.top
	if y := w.y[v]; !math.IsNaN(y) {
		w.mean[v], w.vr[v] = y, 0
	} else {
		mu, s2 := m.Mean[v][a], m.Var[v][a]
		den := 1 + s2*w.j[v]
		w.mean[v], w.vr[v] = (mu+s2*w.h[v])/den, s2/den
	}
	w.cp[v] = 0
	for _, v := range bl.nodes[1:] {
		if y := w.y[v]; !math.IsNaN(y) {
			w.mean[v], w.vr[v], w.cp[v] = y, 0, 0
			continue
		}
		p := e.parent[v]
		vv, den := m.Var[v][0], w.den[v]
		beta := m.Coef[v] / den
		w.mean[v] = (m.Mean[v][0]+vv*w.h[v])/den + beta*w.mean[p]
		w.vr[v] = beta*beta*w.vr[p] + vv/den
		w.cp[v] = beta * w.vr[p]
	}
}

// upward computes the messages of row r (after load) and returns its
// log-likelihood, −Inf for a row of probability 0.
func (e *engine) upward(w *work) float64 {
	m := e.m
	// The row's scale factors: logScale in log space, scale a product
	// folded into it only when it gets small (fewer logs).
	logScale, scale := 0.0, 1.0
	for bi := range e.blocks {
		bl := &e.blocks[bi]
		up := w.up[bl.top]
		mx := math.Inf(-1)
		if y := w.y[bl.top]; len(bl.nodes) == 1 && bl.parent >= 0 {
			// A lone continuous node under a discrete parent (the
			// common case): its density per parent state, or 1 when
			// its cell is missing. blockUp would leave its j, h, c 0.
			if math.IsNaN(y) {
				for a := range up {
					up[a] = 1
				}
				continue
			}
			mean, cst, inv := e.m.Mean[bl.top], e.topConst[bl.top], e.topInv[bl.top]
			for a := range up {
				d := y - mean[a]
				up[a] = cst[a] - 0.5*d*d*inv[a]
				mx = max(mx, up[a])
			}
		} else {
			e.blockUp(bl, w)
			if bl.parent < 0 {
				return e.topLog(bl, w, 0)
			}
			for a := range up {
				up[a] = e.topLog(bl, w, a)
				mx = max(mx, up[a])
			}
		}
		for a, x := range up {
			if x == mx {
				up[a] = 1 // exp(0)
			} else {
				up[a] = math.Exp(x - mx)
			}
		}
		logScale += mx
	}
	for i := len(e.disc) - 1; i >= 0; i-- {
		v := e.disc[i]
		if e.leaf[v] {
			s := w.ev[v]
			if s < 0 {
				s = len(e.leafMax[v]) - 1
			}
			mx := e.leafMax[v][s]
			if !(mx > 0) {
				return math.Inf(-1)
			}
			w.up[v] = e.leafUp[v][s]
			logScale = foldScale(logScale, &scale, mx)
			continue
		}
		lam := w.lam[v]
		k := len(lam)
		for s := range lam {
			lam[s] = 1
		}
		if s := w.ev[v]; s >= 0 {
			clear(lam)
			lam[s] = 1
		}
		for _, c := range e.children[v] {
			mx := 0.0
			for s, u := range w.up[c] {
				lam[s] *= u
				mx = max(mx, lam[s])
			}
			if mx < tiny && mx > 0 {
				// Many sharp messages: rescale before the product
				// underflows.
				for s := range lam {
					lam[s] /= mx
				}
				logScale = foldScale(logScale, &scale, mx)
			}
		}
		p := e.parent[v]
		if p < 0 {
			z := 0.0
			for s, x := range lam {
				z += m.Prior[s] * x
			}
			if !(z > 0) {
				return math.Inf(-1)
			}
			return math.Log(z*scale) + logScale
		}
		up := w.up[v]
		cpt := m.CPT[v]
		mx := 0.0
		for a := range up {
			s := 0.0
			row := cpt[a*k : (a+1)*k]
			for x, q := range row {
				s += q * lam[x]
			}
			up[a] = s
			mx = max(mx, s)
		}
		if !(mx > 0) {
			return math.Inf(-1)
		}
		imx := 1 / mx
		for a := range up {
			up[a] *= imx
		}
		logScale = foldScale(logScale, &scale, mx)
	}
	return math.Inf(-1) // not reached: the root is discrete or a block top
}

// downward computes, after upward of a row of positive probability, the
// posterior w.bel of every discrete node (with all; else only of those
// the E-step reads: the root and the parents of blocks), and w.down (the
// message from the parent side, normalised) of every discrete node but
// the root.
func (e *engine) downward(w *work, all bool) {
	m := e.m
	for _, v := range e.disc {
		pi := w.pi[v]
		k := len(pi)
		p := e.parent[v]
		if o := w.ev[v]; o >= 0 && e.leaf[v] {
			// An observed leaf: its posterior is its state; pi[o] (the
			// row's probability given the rest, up to scale) is all
			// accumulate needs.
			z := 0.0
			cpt := m.CPT[v]
			for a, d := range w.down[v] {
				if d != 0 {
					z += d * cpt[a*k+o]
				}
			}
			pi[o] = z
			if all || e.needBel[v] {
				clear(w.bel[v])
				w.bel[v][o] = 1
			}
			continue
		}
		if p < 0 {
			copy(pi, m.Prior)
		} else {
			clear(pi)
			cpt := m.CPT[v]
			for a, d := range w.down[v] {
				if d == 0 {
					continue
				}
				for x, q := range cpt[a*k : (a+1)*k] {
					pi[x] += d * q
				}
			}
		}
		if all || e.needBel[v] {
			bel := w.bel[v]
			z := 0.0
			for s := range bel {
				bel[s] = pi[s] * w.lam[v][s]
				z += bel[s]
			}
			iz := 1 / z
			for s := range bel {
				bel[s] *= iz
			}
		}
		ch := e.children[v]
		if len(ch) == 0 {
			continue
		}
		// down_c = π ⊙ ev ⊙ Π_{c'≠c} up_c', by prefix and suffix
		// products over the children (vectors over the states, rescaled
		// as they go so that they cannot underflow).
		run := w.run[:k]
		copy(run, pi)
		if o := w.ev[v]; o >= 0 {
			clear(run)
			run[o] = pi[o]
		}
		for x, c := range ch {
			copy(w.pre[x][:k], run)
			mulScaled(run, w.up[c])
		}
		for s := range run {
			run[s] = 1
		}
		for x := len(ch) - 1; x >= 0; x-- {
			c := ch[x]
			if m.Kinds[c] == data.Discrete {
				d := w.down[c]
				z := 0.0
				for s := range d {
					d[s] = w.pre[x][s] * run[s]
					z += d[s]
				}
				if z > 0 {
					iz := 1 / z
					for s := range d {
						d[s] *= iz
					}
				}
			}
			if x > 0 {
				mulScaled(run, w.up[c])
			}
		}
	}
}

// foldScale multiplies the scale *scale by x > 0, moving it into the
// returned logScale when it gets small: both factors are at least tiny
// before the product, so it cannot underflow.
func foldScale(logScale float64, scale *float64, x float64) float64 {
	if x < tiny {
		return logScale + math.Log(x)
	}
	if *scale *= x; *scale < tiny {
		logScale += math.Log(*scale)
		*scale = 1
	}
	return logScale
}

// tiny is the size below which products of messages are rescaled.
const tiny = 1e-100

// mulScaled multiplies a by u elementwise and rescales it to maximum 1
// when its maximum falls below tiny (only ratios matter).
func mulScaled(a, u []float64) {
	mx := 0.0
	for s := range a {
		a[s] *= u[s]
		mx = max(mx, a[s])
	}
	if mx < tiny && mx > 0 {
		for s := range a {
			a[s] /= mx
		}
	}
}

// parentWeights returns the posterior of block bl's parent (w.bel), or
// {1} for a block without a parent.
func parentWeights(bl *block, w *work) []float64 {
	if bl.parent < 0 {
		return one
	}
	return w.bel[bl.parent]
}

var one = []float64{1}

// forRows runs fn on every row of b in fixed chunks of blockRows, in
// parallel; fn gets its goroutine's work buffers and the chunk index.
func (e *engine) forRows(rows, workers int, fn func(w *work, chunk, r0, r1 int)) {
	n := (rows + blockRows - 1) / blockRows
	parallel.ForState(model.Workers(workers), n, e.newWork, func(w *work, ch int) {
		r0 := ch * blockRows
		fn(w, ch, r0, min(rows, r0+blockRows))
	})
}

// prepare validates the model and binds d.
func (m *Model) prepare(d *data.Dataset) (*engine, *binding, error) {
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	b, err := m.bind(d)
	if err != nil {
		return nil, nil, err
	}
	return newEngine(m), b, nil
}

// LogLikelihood returns the log-likelihood (natural log; densities for
// continuous cells) of every row of d and their sum. Missing cells of
// either kind are marginalised; a row of probability 0 has −Inf. The
// columns of d must be exactly the model's observed variables, of their
// kinds, with state labels among the model's.
func (m *Model) LogLikelihood(d *data.Dataset, opt model.InferOptions) ([]float64, float64, error) {
	e, b, err := m.prepare(d)
	if err != nil {
		return nil, 0, err
	}
	out := make([]float64, b.rows)
	e.forRows(b.rows, opt.Workers, func(w *work, _, r0, r1 int) {
		for r := r0; r < r1; r++ {
			e.load(b, w, r)
			out[r] = e.upward(w)
		}
	})
	return out, d.WeightedSum(out), nil
}

// Score returns the log-likelihood of d and the scores derived from it.
func (m *Model) Score(d *data.Dataset, opt model.InferOptions) (*model.Score, error) {
	_, ll, err := m.LogLikelihood(d, opt)
	if err != nil {
		return nil, err
	}
	return model.ScoreOf(ll, d, m.NumParams(), m.Tree.NumHidden()), nil
}

// Conditionals returns the distribution of each of the given nodes in
// every row of d given the row's observed cells: state probabilities
// (Labels, Prob) for discrete nodes, the mean and standard deviation
// (Mean, SD) for continuous ones, whose distribution is a mixture of
// Gaussians over the states of their block's discrete parent. An
// observed cell gets the point mass on its state, or its value with SD 0.
// A row of probability 0 gets NaN.
func (m *Model) Conditionals(d *data.Dataset, nodes []int, opt model.InferOptions) ([]model.Conditional, error) {
	e, b, err := m.prepare(d)
	if err != nil {
		return nil, err
	}
	if err := model.CheckNodes(m.Tree, nodes); err != nil {
		return nil, err
	}
	out := make([]model.Conditional, len(nodes))
	need := make([]bool, len(e.blocks))
	for x, v := range nodes {
		out[x] = model.Conditional{Node: v, Name: m.Tree.Name(v)}
		if m.Kinds[v] == data.Discrete {
			out[x].Labels = m.StateLabels(v)
			out[x].Prob = make([]float64, b.rows*m.States[v])
		} else {
			out[x].Mean, out[x].SD = make([]float64, b.rows), make([]float64, b.rows)
			need[e.blockOf[v]] = true
		}
	}
	e.forRows(b.rows, opt.Workers, func(w *work, _, r0, r1 int) {
		// s1, s2 accumulate the mixture's moments of continuous nodes.
		s1, s2 := make([]float64, len(nodes)), make([]float64, len(nodes))
		for r := r0; r < r1; r++ {
			e.load(b, w, r)
			if math.IsInf(e.upward(w), -1) {
				for x := range nodes {
					c := &out[x]
					if c.Prob != nil {
						k := len(c.Labels)
						for s := range k {
							c.Prob[r*k+s] = math.NaN()
						}
					} else {
						c.Mean[r], c.SD[r] = math.NaN(), math.NaN()
					}
				}
				continue
			}
			e.downward(w, true)
			clear(s1)
			clear(s2)
			for bi := range e.blocks {
				if !need[bi] {
					continue
				}
				bl := &e.blocks[bi]
				for a, wa := range parentWeights(bl, w) {
					if wa == 0 {
						continue
					}
					e.blockPost(bl, w, a)
					for x, v := range nodes {
						if e.blockOf[v] == bi {
							s1[x] += wa * w.mean[v]
							s2[x] += wa * (w.vr[v] + w.mean[v]*w.mean[v])
						}
					}
				}
			}
			for x, v := range nodes {
				c := &out[x]
				if c.Prob != nil {
					copy(c.Prob[r*len(c.Labels):], w.bel[v])
					continue
				}
				if y := w.y[v]; !math.IsNaN(y) {
					c.Mean[r], c.SD[r] = y, 0
					continue
				}
				c.Mean[r] = s1[x]
				c.SD[r] = math.Sqrt(max(0, s2[x]-s1[x]*s1[x]))
			}
		}
	})
	return out, nil
}

// Impute completes d: a missing discrete cell gets its most likely state
// given the row's observed cells (the first of ties), a missing continuous
// cell its conditional mean; the Imputation keeps each filled cell's
// distribution (state probabilities, or mean and standard deviation).
// Discrete columns of the result use the model's state labels.
func (m *Model) Impute(d *data.Dataset, opt model.ImputeOptions) (*model.Imputation, error) {
	if _, _, err := m.prepare(d); err != nil {
		return nil, err
	}
	t := m.Tree
	cols, nodes, err := model.MissingColumns(t.Lookup, d)
	if err != nil {
		return nil, err
	}
	post, err := m.Conditionals(d, nodes, opt.InferOptions)
	if err != nil {
		return nil, err
	}
	vars := d.Vars()
	for j := range vars {
		if v, _ := t.Lookup(vars[j].Name); m.Kinds[v] == data.Discrete {
			vars[j].States = m.StateLabels(v)
		}
	}
	out, err := data.New(vars, d.NumRows())
	if err != nil {
		return nil, err
	}
	for j, dv := range d.Vars() {
		if dv.Kind == data.Continuous {
			copy(out.Continuous(j), d.Continuous(j))
			continue
		}
		v, _ := t.Lookup(dv.Name)
		remap, err := model.StateRemap(dv, m.StateLabels(v))
		if err != nil {
			return nil, err
		}
		dst := out.Discrete(j)
		for r, c := range d.Discrete(j) {
			dst[r] = data.Missing
			if c != data.Missing {
				dst[r] = remap[c]
			}
		}
	}
	imp := &model.Imputation{Data: out}
	for x, j := range cols {
		c := &post[x]
		if c.Prob != nil {
			if err := imp.FillDiscrete(out.Discrete(j), d.Discrete(j), j, c); err != nil {
				return nil, err
			}
			continue
		}
		dst := out.Continuous(j)
		for r, y := range d.Continuous(j) {
			if !math.IsNaN(y) {
				continue
			}
			if math.IsNaN(c.Mean[r]) {
				return nil, fmt.Errorf("model: row %d has probability 0 under the model; its cell %q cannot be imputed", r+1, c.Name)
			}
			dst[r] = c.Mean[r]
			imp.Cells = append(imp.Cells, model.ImputedCell{Row: r, Column: j, Name: c.Name, Mean: c.Mean[r], SD: c.SD[r]})
		}
	}
	return imp, nil
}
