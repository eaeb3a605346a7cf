package discrete

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/model"
)

// blockRows is the number of rows processed together: messages are stored
// state-major with one lane per row so that the inner loops run over rows.
const blockRows = 256

// binding maps a dataset onto a discrete model: for every node, the data
// column holding it (−1 for hidden nodes) and the map from the column's
// state codes to the node's states.
type binding struct {
	col    []int      // node → column or −1
	remap  [][]uint16 // node → column code → model state
	rows   int
	weight []float64 // per row (nil: all 1)
	codes  [][]uint16
	bin    *binPrep // the binary E-step's codes (binPrepare; nil until asked)
	// rootPrior, when not nil, is each row's prior of the root (row r's
	// at [r*k, (r+1)*k), k the root's states) in place of the model's
	// Prior: the root regression's (Model.Regression). rootPost, when not
	// nil, receives each row's posterior of the root in the E-step, laid
	// out alike. design is the regression's design (rows × 1+terms).
	rootPrior, rootPost, design []float64
}

// bind matches the model's observed variables with the dataset's columns
// by name, and state labels by label. Every observed variable of the model
// must be a discrete column of d, every column must be a variable of the
// model (a *MismatchError names those that are not), and every state label
// in the data must be a state of the model. With a root regression, d
// must also have the covariates' columns (Design), which give each row its
// prior of the root.
func (m *Model) bind(d *data.Dataset) (*binding, error) {
	if d == nil {
		return nil, errors.New("model: no data")
	}
	t := m.Tree
	b := &binding{col: make([]int, t.MaxID()), remap: make([][]uint16, t.MaxID()), rows: d.NumRows(), codes: make([][]uint16, t.MaxID())}
	for i := range b.col {
		b.col[i] = -1
	}
	names := d.Names()
	if m.Regression != nil {
		cov := m.Regression.Names()
		names = slices.DeleteFunc(names, func(n string) bool { return slices.Contains(cov, n) })
	}
	if err := model.CheckColumns(t, names); err != nil {
		return nil, err
	}
	if m.Regression != nil {
		x, err := m.Regression.Design(d)
		if err != nil {
			return nil, err
		}
		b.design, b.rootPrior = x, m.Regression.priors(x, m.States[m.Root])
	}
	for _, v := range t.Observed() {
		name := t.Name(v)
		j, _ := d.Index(name)
		dv := d.Var(j)
		if dv.Kind != data.Discrete {
			return nil, fmt.Errorf("model: column %q is continuous but the model's variable is discrete", name)
		}
		remap, err := model.StateRemap(dv, m.StateLabels(v))
		if err != nil {
			return nil, err
		}
		b.col[v] = j
		b.remap[v] = remap
		b.codes[v] = d.Discrete(j)
	}
	b.weight = d.RowWeights()
	return b, nil
}

// engine runs sum-product on blocks of rows for one model.
type engine struct {
	m        *Model
	order    []int // parents before children
	parent   []int
	children [][]int
	k        []int
	// binFree holds the binary E-step's work buffers between E-steps
	// (expectedBinary), for the observed leaves binLeaf.
	binMu   sync.Mutex
	binFree []*binWork
	binLeaf []bool
}

func newEngine(m *Model) *engine {
	r := m.Rooted()
	return &engine{m: m, order: r.Order, parent: r.Parent, children: r.Children, k: m.States}
}

// work holds one worker's buffers for a block.
type work struct {
	lam   [][]float64 // node → k×B: evidence × messages from children (scaled)
	up    [][]float64 // node → kparent×B: message to the parent
	down  [][]float64 // node → kparent×B: message from the parent side (μ_{p→v})
	pi    [][]float64 // node → k×B: Σ_xp μ_{p→v}(xp) P(v|xp)
	ev    [][]float64 // node → k×B: 0/1 evidence of observed nodes (nil: all 1)
	logZ  []float64   // B: log-likelihood of each row
	scale []float64   // B: product of message scales not yet in logZ
	tmp   []float64
	// leafAcc holds an observed leaf's counts for one block (leafCounts).
	leafAcc []float64
}

func (e *engine) newWork() *work {
	n := len(e.k)
	w := &work{ev: make([][]float64, n), lam: make([][]float64, n), up: make([][]float64, n), down: make([][]float64, n), pi: make([][]float64, n), logZ: make([]float64, blockRows), scale: make([]float64, blockRows), tmp: make([]float64, blockRows)}
	for _, v := range e.order {
		w.lam[v] = make([]float64, e.k[v]*blockRows)
		w.pi[v] = make([]float64, e.k[v]*blockRows)
		if p := e.parent[v]; p >= 0 {
			w.up[v] = make([]float64, e.k[p]*blockRows)
			w.down[v] = make([]float64, e.k[p]*blockRows)
		}
	}
	return w
}

// upward computes λ and the upward messages for rows [r0, r0+nb) and the
// log-likelihood of each row in w.logZ. Without leafLam, λ is not set
// for observed leaves with a parent (only their message is needed, and
// their λ is states × rows).
func (e *engine) upward(b *binding, w *work, r0, nb int, leafLam bool) {
	for i := 0; i < nb; i++ {
		w.logZ[i] = 0
		w.scale[i] = 1
	}
	for x := len(e.order) - 1; x >= 0; x-- {
		v := e.order[x]
		k := e.k[v]
		lam := w.lam[v]
		p := e.parent[v]
		if codes := b.codes[v]; !leafLam && p >= 0 && codes != nil && len(e.children[v]) == 0 {
			leafMessage(w.up[v], e.m.CPT[v], codes[r0:r0+nb], b.remap[v], e.k[p], k)
			continue
		}
		e.lambda(b, w, v, r0, nb)
		if p < 0 {
			e.addRootLogZ(b, w, lam, k, r0, nb)
			continue
		}
		// Message to the parent: up(xp) = Σ_xv P(xv|xp) λ(xv).
		kp := e.k[p]
		up := w.up[v]
		cpt := e.m.CPT[v]
		if codes := b.codes[v]; codes != nil && len(e.children[v]) == 0 {
			leafMessage(up, cpt, codes[r0:r0+nb], b.remap[v], kp, k)
			continue
		}
		blockMatVec(up, lam, cpt, kp, k, k, 1, nb)
		w.scaleMessage(up, kp, nb)
	}
	for i := 0; i < nb; i++ {
		w.logZ[i] += safeLog(w.scale[i])
	}
}

// lambda sets w.lam[v] for rows [r0, r0+nb) to v's evidence (kept in
// w.ev[v]; all ones when v is hidden) times its children's upward
// messages.
func (e *engine) lambda(b *binding, w *work, v, r0, nb int) {
	k := e.k[v]
	lam := w.lam[v]
	if codes := b.codes[v]; codes != nil {
		if w.ev[v] == nil {
			w.ev[v] = make([]float64, k*blockRows)
		}
		ev := w.ev[v]
		clear(ev)
		remap := b.remap[v]
		for i := 0; i < nb; i++ {
			c := codes[r0+i]
			if c == data.Missing {
				for s := 0; s < k; s++ {
					ev[s*blockRows+i] = 1
				}
			} else {
				ev[int(remap[c])*blockRows+i] = 1
			}
		}
		copy(lam, ev)
	} else {
		w.ev[v] = nil
		for s := 0; s < k; s++ {
			row := lam[s*blockRows : s*blockRows+nb]
			for i := range row {
				row[i] = 1
			}
		}
	}
	for _, c := range e.children[v] {
		up := w.up[c]
		for s := 0; s < k; s++ {
			a := lam[s*blockRows : s*blockRows+nb]
			u := up[s*blockRows : s*blockRows+nb]
			for i := range a {
				a[i] *= u[i]
			}
		}
	}
}

// addRootLogZ multiplies the root's λ by the prior (b's per-row prior,
// if any), sums over its k states and adds the log of the sum to each
// row's w.logZ.
func (e *engine) addRootLogZ(b *binding, w *work, lam []float64, k, r0, nb int) {
	z := w.tmp[:nb]
	clear(z)
	for s := 0; s < k; s++ {
		ps := e.m.Prior[s]
		a := lam[s*blockRows : s*blockRows+nb]
		if rp := b.rootPrior; rp != nil {
			for i := range z {
				z[i] += rp[(r0+i)*k+s] * a[i]
			}
			continue
		}
		for i := range z {
			z[i] += ps * a[i]
		}
	}
	for i := range z {
		w.logZ[i] += safeLog(z[i])
	}
}

// leafMessage writes the upward message of an observed leaf with k states
// to its parent with kp states, for the block's codes: a column of the
// CPT (all ones when the cell is missing). Its entries are at most 1 and
// need no scaling.
func leafMessage(up, cpt []float64, codes []uint16, remap []uint16, kp, k int) {
	for i, c := range codes {
		if c == data.Missing {
			for a := 0; a < kp; a++ {
				up[a*blockRows+i] = 1
			}
			continue
		}
		x := int(remap[c])
		for a := 0; a < kp; a++ {
			up[a*blockRows+i] = cpt[a*k+x]
		}
	}
}

// scaleMessage scales each row's message (kp states) to sum 1; the scale
// is kept in w.scale and folded into w.logZ only when it gets small.
func (w *work) scaleMessage(up []float64, kp, nb int) {
	sc := w.tmp[:nb]
	copy(sc, up[:nb])
	for a := 1; a < kp; a++ {
		u := up[a*blockRows : a*blockRows+nb]
		for i := range sc {
			sc[i] += u[i]
		}
	}
	scale := w.scale[:nb]
	for i := range sc {
		s := sc[i]
		if s > 0 {
			inv := 1 / s
			for a := 0; a < kp; a++ {
				up[a*blockRows+i] *= inv
			}
			scale[i] *= s
			if scale[i] < 1e-200 {
				w.logZ[i] += math.Log(scale[i])
				scale[i] = 1
			}
		} else {
			scale[i] = 0
		}
	}
}

// blockMatVec sets, for rows [0, nb) of blocked vectors (state s of row i
// at s*blockRows+i), dst(o) = Σ_j mat[o*outStride+j*inStride] src(j) for
// o < nOut, j < nIn: the CPT times λ (outStride k, inStride 1) in upward,
// its transpose times the parent's message (1, k) in downward. Zero
// entries are skipped.
func blockMatVec(dst, src, mat []float64, nOut, nIn, outStride, inStride, nb int) {
	for o := 0; o < nOut; o++ {
		d := dst[o*blockRows : o*blockRows+nb]
		clear(d)
		for j := 0; j < nIn; j++ {
			q := mat[o*outStride+j*inStride]
			if q == 0 {
				continue
			}
			x := src[j*blockRows : j*blockRows+nb]
			for i := range d {
				d[i] += q * x[i]
			}
		}
	}
}

// downward computes, after upward on rows [r0, r0+nb), the messages from the parent side μ_{p→v}
// and π_v for every node (scaled per row; only ratios matter). Without
// leafPi, π is not computed for observed leaves (b's columns): the E-step
// counts them from their parents' messages directly, and their π costs
// O(states × parent states) per row, most of an E-step on many-state data.
func (e *engine) downward(b *binding, w *work, r0, nb int, leafPi bool) {
	m := e.m
	for _, v := range e.order {
		k := e.k[v]
		pi := w.pi[v]
		p := e.parent[v]
		if p < 0 {
			for s := 0; s < k; s++ {
				row := pi[s*blockRows : s*blockRows+nb]
				for i := range row {
					row[i] = m.Prior[s]
					if b.rootPrior != nil {
						row[i] = b.rootPrior[(r0+i)*k+s]
					}
				}
			}
		} else if leafPi || b.codes[v] == nil || len(e.children[v]) > 0 {
			// π(s) = Σ_a P(s|a) down(a): the CPT read by columns.
			blockMatVec(pi, w.down[v], m.CPT[v], k, e.k[p], 1, k, nb)
		}
		// Messages to children: μ_{v→c}(x) = π(x) e(x) Π_{c'≠c} up_{c'}(x).
		// λ already holds e × Π up; dividing by up_c is avoided with
		// prefix and suffix products over the children.
		ch := e.children[v]
		if len(ch) == 0 {
			continue
		}
		// Forward pass: down_c = π e Π_{c'<c} up_c'; backward pass
		// multiplies in Π_{c'>c} up_c'.
		run := w.tmp[:nb]
		for s := 0; s < k; s++ {
			copy(run, pi[s*blockRows:s*blockRows+nb])
			if ev := w.ev[v]; ev != nil {
				e := ev[s*blockRows : s*blockRows+nb]
				for i := range run {
					run[i] *= e[i]
				}
			}
			for _, c := range ch {
				copy(w.down[c][s*blockRows:s*blockRows+nb], run)
				u := w.up[c][s*blockRows : s*blockRows+nb]
				for i := range run {
					run[i] *= u[i]
				}
			}
			for i := range run {
				run[i] = 1
			}
			for x := len(ch) - 1; x >= 0; x-- {
				c := ch[x]
				d := w.down[c][s*blockRows : s*blockRows+nb]
				for i := range d {
					d[i] *= run[i]
				}
				u := w.up[c][s*blockRows : s*blockRows+nb]
				for i := range run {
					run[i] *= u[i]
				}
			}
		}
		// Rescale each child's message per row to avoid underflow.
		for _, c := range ch {
			d := w.down[c]
			for i := 0; i < nb; i++ {
				mx := 0.0
				for s := 0; s < k; s++ {
					mx = math.Max(mx, d[s*blockRows+i])
				}
				if mx > 0 {
					inv := 1 / mx
					for s := 0; s < k; s++ {
						d[s*blockRows+i] *= inv
					}
				}
			}
		}
	}
}

func safeLog(x float64) float64 {
	if x <= 0 {
		return math.Inf(-1)
	}
	return math.Log(x)
}

// forBlocks runs fn on every block of rows, in parallel, giving each
// worker its own work buffers; fn receives the worker index.
func (e *engine) forBlocks(rows, nw int, fn func(worker int, w *work, r0, nb int)) {
	ws := make([]*work, max(1, nw))
	e.forBlockRange(rows, blockRows, nw, func(wk, r0, nb int) {
		if ws[wk] == nil {
			ws[wk] = e.newWork()
		}
		fn(wk, ws[wk], r0, nb)
	})
}

// forBlockRange runs fn on every block of size rows (the last may be
// shorter), in parallel; fn receives the worker index (below nw).
func (e *engine) forBlockRange(rows, size, nw int, fn func(worker int, r0, nb int)) {
	nblocks := (rows + size - 1) / size
	parallel.For(nw, nblocks, func(wk, bl int) {
		r0 := bl * size
		fn(wk, r0, min(size, rows-r0))
	})
}

// LogLikelihood returns the log-likelihood (natural log) of every row of d
// under the model, and their sum. Missing cells are marginalised. The
// dataset's columns must be exactly the model's observed variables (in any
// order), with state labels among the model's.
func (m *Model) LogLikelihood(d *data.Dataset, opt model.InferOptions) ([]float64, float64, error) {
	if err := m.Validate(); err != nil {
		return nil, 0, err
	}
	b, err := m.bind(d)
	if err != nil {
		return nil, 0, err
	}
	e := newEngine(m)
	out := make([]float64, b.rows)
	e.forBlocks(b.rows, model.Workers(opt.Workers), func(_ int, w *work, r0, nb int) {
		e.upward(b, w, r0, nb, false)
		copy(out[r0:r0+nb], w.logZ[:nb])
	})
	return out, d.WeightedSum(out), nil
}

// Posterior returns, for each of the given nodes, the posterior
// distribution of the node in every row of d given the row's observed
// cells: out[x][r*k+s] = P(node x in state s | row r), k its number of
// states. For an observed node whose cell is missing this is the
// conditional distribution used for imputation; for an observed cell it
// is the point mass on the observed state.
func (m *Model) Posterior(d *data.Dataset, nodes []int, opt model.InferOptions) ([][]float64, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	b, err := m.bind(d)
	if err != nil {
		return nil, err
	}
	for _, v := range nodes {
		if !m.Tree.Has(v) {
			return nil, fmt.Errorf("model: node %d is not in the tree", v)
		}
	}
	e := newEngine(m)
	out := make([][]float64, len(nodes))
	for x, v := range nodes {
		out[x] = make([]float64, b.rows*e.k[v])
	}
	e.forBlocks(b.rows, model.Workers(opt.Workers), func(_ int, w *work, r0, nb int) {
		e.upward(b, w, r0, nb, true)
		e.downward(b, w, r0, nb, true)
		for x, v := range nodes {
			k := e.k[v]
			pi, lam := w.pi[v], w.lam[v]
			dst := out[x]
			for i := 0; i < nb; i++ {
				s := 0.0
				for a := 0; a < k; a++ {
					s += pi[a*blockRows+i] * lam[a*blockRows+i]
				}
				for a := 0; a < k; a++ {
					p := math.NaN()
					if s > 0 {
						p = pi[a*blockRows+i] * lam[a*blockRows+i] / s
					}
					dst[(r0+i)*k+a] = p
				}
			}
		}
	})
	return out, nil
}
