package noisyor

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/internal/unionfind"
)

// Defaults and limits of EMOptions.
const (
	// DefaultEMMaxIter is the default EMOptions.MaxIter.
	DefaultEMMaxIter = 200
	// DefaultEMTol is the default EMOptions.Tol.
	DefaultEMTol = 1e-7
	// DefaultEMMaxSources is the default EMOptions.MaxSources.
	DefaultEMMaxSources = 20
	// MaxEMMaxSources is the largest EMOptions.MaxSources accepted.
	MaxEMMaxSources = 30
	// EMMinProb is the floor of FitEM's priors, failures and (unless
	// fixed) leaks; 1 − EMMinProb is their ceiling.
	EMMinProb = 1e-9
)

// EMOptions configure FitEM. The zero value is usable: every zero field
// takes the default given with it.
type EMOptions struct {
	// MaxIter bounds the number of EM updates (M-steps); zero means
	// DefaultEMMaxIter (200).
	MaxIter int
	// Tol stops EM once an update changes the log-likelihood by at most
	// Tol·|log-likelihood|; zero means DefaultEMTol (1e-7).
	Tol float64
	// Workers is the number of goroutines working on rows; zero means
	// runtime.GOMAXPROCS(0). The result does not depend on it.
	Workers int
	// FixLeak keeps the leaks as given (no leaks when Network.Leak is
	// nil) instead of re-estimating them.
	FixLeak bool
	// FixSources, when not nil, has one entry per source of the network:
	// a source whose entry is true keeps its prior and failures as given
	// (its edges still take part in the E-step). A local refit frees only
	// the sources it changes.
	FixSources []bool
	// MaxSources bounds the exact sums of the E-step. The sources that
	// are parents of a row's positive effects split into components (two
	// sources are connected when they share a positive child); a
	// component is summed by variable elimination over its sources, whose
	// largest table covers w of them (w ≤ k, the component's size; w = k
	// is plain enumeration of its 2^k states). A row that needs w >
	// MaxSources is an error naming the row, and so is a component of
	// more than 64 sources. A worker's memory grows as 2^w (as 2^k in the
	// rare fallback described with FitEM). Zero means
	// DefaultEMMaxSources (20); at most MaxEMMaxSources (30).
	MaxSources int
}

// EMResult reports a FitEM run.
type EMResult struct {
	// Iterations is the number of EM updates made.
	Iterations int
	// Converged says the run stopped on Tol rather than on MaxIter.
	Converged bool
	// LogLik is the exact log-likelihood (natural log) of the data under
	// the returned network.
	LogLik float64
	// Trace holds the log-likelihood of the starting parameters (after
	// clamping) and after each update: Iterations+1 values, never
	// decreasing beyond rounding.
	Trace []float64
	// Duration is the wall time of the run.
	Duration time.Duration
}

// FitEM re-estimates the parameters of the network by maximum likelihood
// with the expectation–maximisation algorithm, keeping its structure: the
// edges stay the edges (no failure reaches 0 or 1), and the priors, the
// failures and, unless opt.FixLeak, the leaks are re-estimated. It returns
// a new network (names, edges and Learned provenance as in n) and a report;
// n is not changed. It is meant to polish the estimates of the quartet
// learner (noisyor/quartetlearn), which are moments estimates.
//
// Effects are matched to the columns of b by name, so the columns may be
// in any order; an effect that is not a column of b, or a column of b that
// is not an effect, is an error naming it. Missing cells are marginalised:
// a row's missing effects play no part in it.
//
// The complete data are the sources' states and, for every edge X→a and
// every effect a that the row observes, whether X activated a (an active
// X does with probability 1 − f_{X,a}) and whether the leak did (with
// probability ν_a); a is 1 when anything activated it. The E-step is
// exact: given a row, a source that is a parent of no positive effect has
// the closed-form posterior p∏f/(1 − p + p∏f) over its negative
// children, and the sources that are parents of positive effects split
// into components (two sources are connected when they share a positive
// child), independent given the row. Each component is summed exactly by
// passing messages in an elimination tree of its sources (chosen greedily
// by min-fill; see EMOptions.MaxSources), in scaled arithmetic; in the
// pathological case of a component whose probability falls below 1e-250
// it is summed again in logs by enumerating its 2^k states, which needs
// k ≤ MaxSources (else the row is an error). An activation of a positive
// effect a by an active X has posterior probability
// (1 − f_{X,a})/P(a = 1 | sources), and so on for the leak; a negative
// effect was activated by nothing. The
// M-step sets p_X to the mean posterior of X, 1 − f_{X,a} to the expected
// activations of a by X over the expected number of rows where X is on
// and a is observed, and ν_a to the expected leak activations over the
// rows observing a. Priors, failures and re-estimated leaks are kept in
// [EMMinProb, 1 − EMMinProb], also at the start (a learned failure of 0
// starts at EMMinProb). Each update cannot lower the likelihood.
//
// EM stops when an update changes the log-likelihood by at most
// opt.Tol·|log-likelihood| or after opt.MaxIter updates. Identical rows
// are summed once, with their count. Rows are split into blocks that do
// not depend on opt.Workers, and sums are combined in block order, so the
// result is the same for any number of workers.
func (n *Network) FitEM(b *Binary, opt EMOptions) (*Network, *EMResult, error) {
	start := time.Now()
	if err := n.Validate(); err != nil {
		return nil, nil, err
	}
	if b == nil {
		return nil, nil, errors.New("noisyor: nil data")
	}
	if err := opt.resolve(); err != nil {
		return nil, nil, err
	}
	if b.Rows == 0 {
		return nil, nil, errors.New("noisyor: no rows to fit")
	}
	if opt.FixSources != nil && len(opt.FixSources) != len(n.Sources) {
		return nil, nil, fmt.Errorf("noisyor: EMOptions.FixSources has %d entries for %d sources", len(opt.FixSources), len(n.Sources))
	}
	col, err := columnsOf(n, b)
	if err != nil {
		return nil, nil, err
	}
	f := newEMFit(n, opt)
	if err := f.prepare(b, col); err != nil {
		return nil, nil, err
	}
	res := &EMResult{}
	for {
		ll, err := f.eStep()
		if err != nil {
			return nil, nil, err
		}
		res.Trace = append(res.Trace, ll)
		res.LogLik = ll
		if k := len(res.Trace); k > 1 && ll-res.Trace[k-2] <= opt.Tol*math.Abs(ll) {
			res.Converged = true
			break
		}
		if res.Iterations == opt.MaxIter {
			break
		}
		f.mStep()
		res.Iterations++
	}
	out := n.Clone()
	f.store(out)
	res.Duration = time.Since(start)
	return out, res, nil
}

// resolve fills in the defaults and checks the options.
func (o *EMOptions) resolve() error {
	switch {
	case o.MaxIter < 0:
		return fmt.Errorf("noisyor: EMOptions.MaxIter %d is negative", o.MaxIter)
	case o.Tol < 0 || math.IsNaN(o.Tol):
		return fmt.Errorf("noisyor: EMOptions.Tol %v, want ≥ 0", o.Tol)
	case o.MaxSources < 0 || o.MaxSources > MaxEMMaxSources:
		return fmt.Errorf("noisyor: EMOptions.MaxSources %d, want 0 (default) to %d", o.MaxSources, MaxEMMaxSources)
	}
	o.MaxIter = cmp.Or(o.MaxIter, DefaultEMMaxIter)
	o.Tol = cmp.Or(o.Tol, DefaultEMTol)
	o.MaxSources = cmp.Or(o.MaxSources, DefaultEMMaxSources)
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return nil
}

// emPar is a parent of a positive effect within a component: its compact
// bit in the effect's group and the edge.
type emPar struct {
	bit uint8
	e   int32
}

// emEff is a positive effect of a component.
type emEff struct {
	a   int32
	par []emPar
}

// emGroup is a set of positive effects whose parents all lie in mask (bits
// of the component's local source indices); its factor is a table over the
// 2^len(bits) subsets of mask, compact bit i standing for local bit
// bits[i].
type emGroup struct {
	mask   uint64
	bits   []uint8
	effs   []emEff
	clique int32 // the clique holding the group's factor
}

// emClique is a clique of a component's elimination tree.
type emClique struct {
	mask   uint64  // local sources of the clique
	sep    uint64  // the sources it shares with its parent; 0 for a root
	parent int32   // −1 for a root
	srcs   []uint8 // local sources whose prior factor the clique holds
	groups []int32 // groups whose factor the clique holds
}

// emComp is a connected component of the sources that are parents of a
// row's positive effects.
type emComp struct {
	srcs    []int32 // global source indices; local index j is bit j
	groups  []emGroup
	cliques []emClique // every clique after its children
	// srcClique[j] is the clique holding local source j's prior factor.
	srcClique []int32
}

// emPattern is a distinct row of the data and how many rows have it.
type emPattern struct {
	weight float64
	row    int // first row with the pattern, from 0
	pos    []int32
	miss   []int32
	comps  []emComp
}

// emParent is a parent of an effect with the edge's index.
type emParent struct {
	s, e int32
}

// emBlock holds the sums of one block of patterns.
type emBlock struct {
	ll      float64
	dE      []float64 // Σ w·(P(X on | row) − q0[X]) over the rows touching X
	act     []float64 // expected activations by edge
	missE   []float64 // Σ w·P(X on | row) over the rows where the edge's effect is missing
	leakAct []float64 // expected leak activations by effect
	err     error
}

// emFit is the state of a FitEM run.
type emFit struct {
	n        *Network
	opt      EMOptions
	m, ns    int
	edgeSrc  []int32 // source of each edge (edges source-major, children order)
	edgeEff  []int32
	parents  [][]emParent
	rows     int
	obs      []float64 // rows observing each effect
	pats     []emPattern
	maxWidth int // the largest clique of any component
	blocks   []emBlock
	bsize    int

	// Parameters.
	prior, fail, leak []float64

	// Derived per iteration.
	logF, u        []float64
	log1mP, base   []float64
	q0, l0         []float64
	l0Sum          float64
	logNu, log1mNu []float64
	log1mNuSum     float64
	sumE, act      []float64
	missE, leakAct []float64
}

func newEMFit(n *Network, opt EMOptions) *emFit {
	m, ns := len(n.Effects), len(n.Sources)
	f := &emFit{n: n, opt: opt, m: m, ns: ns, parents: make([][]emParent, m),
		prior: make([]float64, ns), leak: make([]float64, m)}
	for s, src := range n.Sources {
		f.prior[s] = emClamp(src.Prior)
		for _, c := range src.Children {
			e := int32(len(f.fail))
			f.parents[c.Effect] = append(f.parents[c.Effect], emParent{s: int32(s), e: e})
			f.edgeSrc = append(f.edgeSrc, int32(s))
			f.edgeEff = append(f.edgeEff, int32(c.Effect))
			f.fail = append(f.fail, emClamp(c.Failure))
		}
	}
	for a := range m {
		f.leak[a] = n.LeakOf(a)
		if !opt.FixLeak {
			f.leak[a] = emClamp(f.leak[a])
		}
	}
	ne := len(f.fail)
	f.logF, f.u = make([]float64, ne), make([]float64, ne)
	f.log1mP, f.base = make([]float64, ns), make([]float64, ns)
	f.q0, f.l0 = make([]float64, ns), make([]float64, ns)
	f.logNu, f.log1mNu = make([]float64, m), make([]float64, m)
	f.sumE, f.act, f.missE = make([]float64, ns), make([]float64, ne), make([]float64, ne)
	f.leakAct = make([]float64, m)
	return f
}

// emClamp keeps a probability in [EMMinProb, 1 − EMMinProb].
func emClamp(x float64) float64 {
	return math.Min(math.Max(x, EMMinProb), 1-EMMinProb)
}

// prepare reads the rows of b into distinct patterns with their components.
func (f *emFit) prepare(b *Binary, col []int) error {
	rows := b.Rows
	f.rows = rows
	f.obs = make([]float64, f.m)
	// Per-row lists of positive and missing effects, in CSR form.
	posCnt, missCnt := make([]int32, rows+1), make([]int32, rows+1)
	words := (rows + 63) / 64
	last := ^uint64(0)
	if rows%64 != 0 {
		last = 1<<(rows%64) - 1
	}
	forBits := func(a int, missing bool, fn func(r int)) {
		c := col[a]
		for w := range words {
			x := b.Ones[c][w]
			if missing {
				x = ^(x | b.Zeros[c][w])
				if w == words-1 {
					x &= last
				}
			}
			for x != 0 {
				t := bits.TrailingZeros64(x)
				fn(w<<6 | t)
				x &= x - 1
			}
		}
	}
	for a := range f.m {
		forBits(a, false, func(r int) { posCnt[r+1]++ })
		nm := 0
		if b.Missing[col[a]] > 0 {
			forBits(a, true, func(r int) { missCnt[r+1]++; nm++ })
		}
		f.obs[a] = float64(rows - nm)
	}
	for r := range rows {
		posCnt[r+1] += posCnt[r]
		missCnt[r+1] += missCnt[r]
	}
	pos, miss := make([]int32, posCnt[rows]), make([]int32, missCnt[rows])
	pf, mf := slices.Clone(posCnt[:rows]), slices.Clone(missCnt[:rows])
	for a := range f.m {
		forBits(a, false, func(r int) { pos[pf[r]] = int32(a); pf[r]++ })
		if b.Missing[col[a]] > 0 {
			forBits(a, true, func(r int) { miss[mf[r]] = int32(a); mf[r]++ })
		}
	}
	// Distinct patterns, in order of first row.
	seen := make(map[string]int32)
	var key []byte
	cb := newCompBuilder(f)
	for r := range rows {
		p, q := pos[posCnt[r]:posCnt[r+1]], miss[missCnt[r]:missCnt[r+1]]
		key = key[:0]
		key = append(key, int32Bytes(p)...)
		key = append(key, 0xff, 0xff, 0xff, 0xff)
		key = append(key, int32Bytes(q)...)
		if i, ok := seen[string(key)]; ok {
			f.pats[i].weight++
			continue
		}
		seen[string(key)] = int32(len(f.pats))
		pat := emPattern{weight: 1, row: r, pos: p, miss: q}
		comps, err := cb.build(p, r)
		if err != nil {
			return err
		}
		pat.comps = comps
		f.pats = append(f.pats, pat)
	}
	f.maxWidth = cb.maxWidth
	// Blocks of patterns: their size depends on the data only, never on
	// the number of workers.
	f.bsize = max(128, (len(f.pats)+63)/64)
	nb := (len(f.pats) + f.bsize - 1) / f.bsize
	f.blocks = make([]emBlock, nb)
	ne := len(f.fail)
	for i := range f.blocks {
		f.blocks[i] = emBlock{dE: make([]float64, f.ns), act: make([]float64, ne), missE: make([]float64, ne), leakAct: make([]float64, f.m)}
	}
	return nil
}

func int32Bytes(p []int32) []byte {
	if len(p) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&p[0])), 4*len(p))
}

// compBuilder splits the parents of a row's positive effects into
// components.
type compBuilder struct {
	f        *emFit
	uf       unionfind.Forest[int32] // −1 when the source is untouched
	local    []int32
	comp     []int32
	touch    []int32
	maxWidth int
	em       []emEffMask
	gidx     []int32
	parPool  []emPar
	bitPool  []uint8
}

// emEffMask is a positive effect, its component and its parents' local
// mask.
type emEffMask struct {
	comp int32
	a    int32
	mask uint64
}

func newCompBuilder(f *emFit) *compBuilder {
	c := &compBuilder{f: f, uf: make(unionfind.Forest[int32], f.ns), local: make([]int32, f.ns), comp: make([]int32, f.ns)}
	for s := range c.uf {
		c.uf[s] = -1
	}
	return c
}

// build splits the parents of row's positive effects pos into
// components, in order of their smallest source, each with its groups
// and elimination tree. It fails when a component has more than 64
// sources or a clique wider than EMOptions.MaxSources.
func (c *compBuilder) build(pos []int32, row int) ([]emComp, error) {
	f := c.f
	c.join(pos)
	if len(c.touch) == 0 {
		return nil, nil
	}
	comps, err := c.components(row)
	if err != nil {
		c.reset()
		return nil, err
	}
	c.effectMasks(pos)
	lo := 0
	for i := range comps {
		cp := &comps[i]
		hi := lo
		for hi < len(c.em) && int(c.em[hi].comp) == i {
			hi++
		}
		c.groups(cp, c.em[lo:hi])
		lo = hi
		width := cp.eliminate()
		if width > f.opt.MaxSources {
			c.reset()
			return nil, fmt.Errorf("noisyor: row %d (counting from 1): summing out the %d sources that its positive effects connect (%s) needs a table over %d of them, more than EMOptions.MaxSources = %d",
				row+1, len(cp.srcs), c.sourceNames(cp.srcs), width, f.opt.MaxSources)
		}
		c.maxWidth = max(c.maxWidth, width)
	}
	c.reset()
	return comps, nil
}

// join unites the parents of each positive effect of pos, listing the
// sources it touches in c.touch.
func (c *compBuilder) join(pos []int32) {
	c.touch = c.touch[:0]
	for _, a := range pos {
		ps := c.f.parents[a]
		if len(ps) < 1 {
			continue // a leak-only positive touches no source
		}
		for _, p := range ps {
			if c.uf[p.s] < 0 {
				c.uf[p.s] = p.s
				c.touch = append(c.touch, p.s)
			}
		}
		for _, p := range ps[1:] {
			c.uf.Union(ps[0].s, p.s)
		}
	}
}

// components returns the components of the touched sources in order of
// their smallest source, local indices in increasing source order
// (c.local), and numbers them (c.comp of each root, from 1).
func (c *compBuilder) components(row int) ([]emComp, error) {
	slices.Sort(c.touch)
	var comps []emComp
	// c.comp[r] is the component of root r, from 1 (0: not seen yet).
	for _, s := range c.touch {
		r := c.uf.Find(s)
		i := int(c.comp[r]) - 1
		if i < 0 {
			i = len(comps)
			c.comp[r] = int32(i + 1)
			comps = append(comps, emComp{})
		}
		c.local[s] = int32(len(comps[i].srcs))
		comps[i].srcs = append(comps[i].srcs, s)
	}
	for i := range comps {
		if k := len(comps[i].srcs); k > 64 {
			return nil, fmt.Errorf("noisyor: row %d (counting from 1): its positive effects connect %d sources (%s), more than the 64 that FitEM can sum exactly",
				row+1, k, c.sourceNames(comps[i].srcs))
		}
	}
	return comps, nil
}

// effectMasks lists in c.em the positive effects of pos with parents, by
// component, with their parents' local masks; in each component the
// largest masks first, so that each effect can join the first group whose
// mask holds its parents.
func (c *compBuilder) effectMasks(pos []int32) {
	f := c.f
	c.em = c.em[:0]
	for _, a := range pos {
		ps := f.parents[a]
		if len(ps) == 0 {
			continue
		}
		var mk uint64
		for _, p := range ps {
			mk |= 1 << c.local[p.s]
		}
		c.em = append(c.em, emEffMask{comp: c.comp[c.uf.Find(ps[0].s)] - 1, a: a, mask: mk})
	}
	slices.SortFunc(c.em, func(x, y emEffMask) int {
		if x.comp != y.comp {
			return cmp.Compare(x.comp, y.comp)
		}
		if d := bits.OnesCount64(y.mask) - bits.OnesCount64(x.mask); d != 0 {
			return d
		}
		if x.mask != y.mask {
			return cmp.Compare(x.mask, y.mask)
		}
		return cmp.Compare(x.a, y.a)
	})
}

// groups sorts the positive effects em of component cp into groups: each
// effect joins the first group whose mask holds its parents, or starts
// one.
func (c *compBuilder) groups(cp *emComp, em []emEffMask) {
	c.gidx = c.gidx[:0]
	for _, e := range em {
		g := slices.IndexFunc(cp.groups, func(g emGroup) bool { return g.mask&e.mask == e.mask })
		if g < 0 {
			g = len(cp.groups)
			n0 := len(c.bitPool)
			for x := e.mask; x != 0; x &= x - 1 {
				c.bitPool = append(c.bitPool, uint8(bits.TrailingZeros64(x)))
			}
			// Sub-slices of pools (with their capacity cut) save
			// allocations; a pool that grows leaves them valid.
			cp.groups = append(cp.groups, emGroup{mask: e.mask, bits: c.bitPool[n0:len(c.bitPool):len(c.bitPool)]})
		}
		c.gidx = append(c.gidx, int32(g))
	}
	effs := make([]emEff, len(em))
	n := 0
	for g := range cp.groups {
		grp := &cp.groups[g]
		n0 := n
		for x, e := range em {
			if int(c.gidx[x]) != g {
				continue
			}
			p0 := len(c.parPool)
			for _, p := range c.f.parents[e.a] {
				l := uint64(c.local[p.s])
				bit := bits.OnesCount64(grp.mask & (1<<l - 1))
				c.parPool = append(c.parPool, emPar{bit: uint8(bit), e: p.e})
			}
			effs[n] = emEff{a: e.a, par: c.parPool[p0:len(c.parPool):len(c.parPool)]}
			n++
		}
		grp.effs = effs[n0:n:n]
	}
}

// sourceNames quotes the names of up to five sources and says how many
// more there are.
func (c *compBuilder) sourceNames(srcs []int32) string {
	names := make([]string, 0, 5)
	for _, s := range srcs[:min(len(srcs), 5)] {
		names = append(names, strconv.Quote(c.f.n.Sources[s].Name))
	}
	return strings.Join(names, ", ") + moreSources(len(srcs))
}

// eliminate builds the component's elimination tree and returns its width,
// the largest number of sources in a clique. The sources interact through
// the groups' factors; they are eliminated greedily, each time the one
// whose elimination adds the fewest new interactions (min-fill; then the
// fewest neighbours; then the lowest index). Eliminating v makes the
// clique {v} ∪ N(v), whose parent is the clique of the first of N(v) to
// be eliminated; a clique that equals the separator of one of its
// children is merged with that child. Each source's prior factor goes to
// the clique that eliminates it, each group's factor to the clique that
// eliminates the first of its sources.
func (cp *emComp) eliminate() int {
	raw, step := cp.minFill()
	k := len(cp.srcs)
	first := func(mask uint64) int {
		f := k
		for x := mask; x != 0; x &= x - 1 {
			f = min(f, step[bits.TrailingZeros64(x)])
		}
		return f
	}
	for i := range raw {
		raw[i].parent = -1
		if raw[i].sep != 0 {
			raw[i].parent = int32(first(raw[i].sep))
		}
	}
	for g := range cp.groups {
		i := first(cp.groups[g].mask)
		raw[i].groups = append(raw[i].groups, int32(g))
	}
	return cp.setCliques(raw, mergeSeparators(raw))
}

// minFill eliminates the component's sources greedily (min-fill, then
// fewest neighbours, then lowest index) and returns the clique each
// elimination makes, in order, and the step at which each source goes.
func (cp *emComp) minFill() ([]emClique, []int) {
	k := len(cp.srcs)
	adj := make([]uint64, k)
	for _, g := range cp.groups {
		for x := g.mask; x != 0; x &= x - 1 {
			j := bits.TrailingZeros64(x)
			adj[j] |= g.mask &^ (1 << j)
		}
	}
	alive := uint64(1)<<k - 1
	if k == 64 {
		alive = ^uint64(0)
	}
	step := make([]int, k) // when each source is eliminated
	raw := make([]emClique, 0, k)
	for st := 0; alive != 0; st++ {
		best, bestFill, bestDeg := -1, 0, 0
		for x := alive; x != 0; x &= x - 1 {
			v := bits.TrailingZeros64(x)
			nb := adj[v] & alive
			fill := 0
			for y := nb; y != 0; y &= y - 1 {
				u := bits.TrailingZeros64(y)
				fill += bits.OnesCount64(nb &^ adj[u] &^ (1 << u))
			}
			deg := bits.OnesCount64(nb)
			if best < 0 || fill < bestFill || fill == bestFill && deg < bestDeg {
				best, bestFill, bestDeg = v, fill, deg
			}
		}
		nb := adj[best] & alive
		raw = append(raw, emClique{mask: nb | 1<<best, sep: nb, srcs: []uint8{uint8(best)}})
		step[best] = st
		for y := nb; y != 0; y &= y - 1 {
			u := bits.TrailingZeros64(y)
			adj[u] |= nb &^ (1 << u)
		}
		alive &^= 1 << best
	}
	return raw, step
}

// mergeSeparators has a clique that equals the separator of one of its
// children take over that child (its sources, factors and children),
// keeping its place after all of them; it returns which cliques are gone.
func mergeSeparators(raw []emClique) []bool {
	gone := make([]bool, len(raw))
	for i := range raw {
		for c := range i {
			if gone[c] || int(raw[c].parent) != i || raw[c].sep != raw[i].mask {
				continue
			}
			raw[i].mask = raw[c].mask
			raw[i].srcs = append(raw[c].srcs, raw[i].srcs...)
			raw[i].groups = append(raw[c].groups, raw[i].groups...)
			for d := range i {
				if !gone[d] && int(raw[d].parent) == c {
					raw[d].parent = int32(i)
				}
			}
			gone[c] = true
			break
		}
	}
	return gone
}

// setCliques keeps the cliques of raw that are not gone as cp.cliques,
// renumbered, records where each source and group went, and returns the
// width.
func (cp *emComp) setCliques(raw []emClique, gone []bool) int {
	renum := make([]int32, len(raw))
	cp.cliques = cp.cliques[:0]
	for i := range raw {
		if !gone[i] {
			renum[i] = int32(len(cp.cliques))
			cp.cliques = append(cp.cliques, raw[i])
		}
	}
	cp.srcClique = make([]int32, len(cp.srcs))
	width := 0
	for i := range cp.cliques {
		cl := &cp.cliques[i]
		if cl.parent >= 0 {
			cl.parent = renum[cl.parent]
		}
		for _, j := range cl.srcs {
			cp.srcClique[j] = int32(i)
		}
		for _, g := range cl.groups {
			cp.groups[g].clique = int32(i)
		}
		width = max(width, bits.OnesCount64(cl.mask))
	}
	return width
}

func moreSources(k int) string {
	if k <= 5 {
		return ""
	}
	return fmt.Sprintf(" and %d more", k-5)
}

func (c *compBuilder) reset() {
	for _, s := range c.touch {
		c.uf[s] = -1
		c.comp[s] = 0
	}
}

// derive computes the per-iteration quantities of the parameters.
func (f *emFit) derive() {
	for e, x := range f.fail {
		f.logF[e] = math.Log(x)
		f.u[e] = 1 - x
	}
	f.l0Sum = 0
	for s := range f.ns {
		p := f.prior[s]
		f.log1mP[s] = math.Log1p(-p)
		f.base[s] = math.Log(p)
	}
	for e, s := range f.edgeSrc {
		f.base[s] += f.logF[e]
	}
	for s := range f.ns {
		lz := logAddExp(f.log1mP[s], f.base[s])
		f.l0[s] = lz
		f.q0[s] = math.Exp(f.base[s] - lz)
		f.l0Sum += lz
	}
	f.log1mNuSum = 0
	for a, v := range f.leak {
		f.logNu[a] = math.Log(v)
		f.log1mNu[a] = math.Log1p(-v)
		f.log1mNuSum += f.log1mNu[a]
	}
}

// eStep computes the log-likelihood of the current parameters and the
// expected sufficient statistics.
func (f *emFit) eStep() (float64, error) {
	f.derive()
	parallel.ForState(f.opt.Workers, len(f.blocks), func() *emWorker { return newEMWorker(f) }, func(w *emWorker, i int) {
		lo, hi := i*f.bsize, min((i+1)*f.bsize, len(f.pats))
		w.block(&f.blocks[i], f.pats[lo:hi])
	})
	ll := 0.0
	clear(f.act)
	clear(f.missE)
	clear(f.leakAct)
	for s := range f.ns {
		f.sumE[s] = float64(f.rows) * f.q0[s]
	}
	for i := range f.blocks {
		bl := &f.blocks[i]
		if bl.err != nil {
			return 0, bl.err
		}
		ll += bl.ll
		emAdd(f.sumE, bl.dE)
		emAdd(f.act, bl.act)
		emAdd(f.missE, bl.missE)
		emAdd(f.leakAct, bl.leakAct)
	}
	return ll, nil
}

func emAdd(dst, src []float64) {
	for i, x := range src {
		dst[i] += x
	}
}

// mStep sets the parameters from the expected statistics of the last
// E-step.
func (f *emFit) mStep() {
	fixed := func(s int32) bool { return f.opt.FixSources != nil && f.opt.FixSources[s] }
	for s := range f.ns {
		if !fixed(int32(s)) {
			f.prior[s] = emClamp(f.sumE[s] / float64(f.rows))
		}
	}
	for e, s := range f.edgeSrc {
		if fixed(s) {
			continue
		}
		den := f.sumE[s] - f.missE[e]
		if !(den > 0) {
			continue
		}
		f.fail[e] = emClamp(1 - f.act[e]/den)
	}
	if f.opt.FixLeak {
		return
	}
	for a := range f.m {
		if f.obs[a] > 0 {
			f.leak[a] = emClamp(f.leakAct[a] / f.obs[a])
		}
	}
}

// store writes the parameters into out, a clone of the network.
func (f *emFit) store(out *Network) {
	e := 0
	for s := range out.Sources {
		src := &out.Sources[s]
		src.Prior = f.prior[s]
		for i := range src.Children {
			src.Children[i].Failure = f.fail[e]
			e++
		}
	}
	if !f.opt.FixLeak {
		out.Leak = slices.Clone(f.leak)
	}
}

// emWorker holds one goroutine's scratch space.
type emWorker struct {
	f       *emFit
	stamp   []uint32
	epoch   uint32
	touched []int32
	logOn   []float64 // log p + Σ log f over the negative children
	logZ    []float64 // log(1 − p + e^logOn)
	post    []float64 // posterior of a touched source
	// Scratch of a component.
	on, off        []float64 // P(X on), P(X off) given the negative effects
	tv             []float64 // t_a(c) of every effect of every group
	tvOff          []int
	tabs, msgs     []float64 // clique tables and messages
	tabOff, msgOff []int
	scale          []float64 // the scale each clique's message was divided by
	gt, q, marg    []float64
	qOff           []int
	proj           []int32
	projBit        [64]int32
	ub             [64]float64
	parSum         []float64
	enum           []float64 // 2^k states of the log-domain fallback
	expand         []int
}

func newEMWorker(f *emFit) *emWorker {
	return &emWorker{f: f, stamp: make([]uint32, f.ns), logOn: make([]float64, f.ns), logZ: make([]float64, f.ns),
		post: make([]float64, f.ns)}
}

func (w *emWorker) block(bl *emBlock, pats []emPattern) {
	bl.ll, bl.err = 0, nil
	clear(bl.dE)
	clear(bl.act)
	clear(bl.missE)
	clear(bl.leakAct)
	for i := range pats {
		if err := w.pattern(bl, &pats[i]); err != nil {
			bl.err = err
			return
		}
	}
}

func (w *emWorker) touch(s int32) {
	if w.stamp[s] != w.epoch {
		w.stamp[s] = w.epoch
		w.logOn[s] = w.f.base[s]
		w.touched = append(w.touched, s)
	}
}

// Outcomes of summing a component.
const (
	emOK = iota
	emZero
	emUnderflow
)

// emTiny is the smallest normaliser the linear-domain sums accept; below
// it a component is summed again in logs.
const emTiny = 1e-250

// pattern adds one distinct row's contributions to bl.
func (w *emWorker) pattern(bl *emBlock, pat *emPattern) error {
	f := w.f
	wt := pat.weight
	w.epoch++
	if w.epoch == 0 {
		clear(w.stamp)
		w.epoch = 1
	}
	w.touched = w.touched[:0]
	ll := f.l0Sum + f.log1mNuSum
	for _, a := range pat.pos {
		ll -= f.log1mNu[a]
		ps := f.parents[a]
		if len(ps) == 0 {
			ll += f.logNu[a]
			bl.leakAct[a] += wt
			continue
		}
		for _, p := range ps {
			w.touch(p.s)
			w.logOn[p.s] -= f.logF[p.e]
		}
	}
	for _, a := range pat.miss {
		ll -= f.log1mNu[a]
		for _, p := range f.parents[a] {
			w.touch(p.s)
			w.logOn[p.s] -= f.logF[p.e]
		}
	}
	for _, s := range w.touched {
		lz := logAddExp(f.log1mP[s], w.logOn[s])
		w.logZ[s] = lz
		w.post[s] = math.Exp(w.logOn[s] - lz)
		ll += lz - f.l0[s]
	}
	for i := range pat.comps {
		cp := &pat.comps[i]
		w.factors(cp)
		lc, st := w.tree(cp)
		if st == emUnderflow {
			if len(cp.srcs) > f.opt.MaxSources {
				return fmt.Errorf("noisyor: row %d (counting from 1): its probability underflows, and enumerating the %d sources its positive effects connect is more than EMOptions.MaxSources = %d allows",
					pat.row+1, len(cp.srcs), f.opt.MaxSources)
			}
			lc, st = w.enumerate(cp)
		}
		if st == emZero {
			return fmt.Errorf("noisyor: row %d (counting from 1) has probability 0 under the network (a positive effect that only a zero leak could explain)", pat.row+1)
		}
		for g := range cp.groups {
			w.groupStats(bl, cp, g, wt)
		}
		ll += lc
	}
	if math.IsInf(ll, -1) {
		return fmt.Errorf("noisyor: row %d (counting from 1) has probability 0 under the network (a positive effect with no parent and no leak)", pat.row+1)
	}
	for _, s := range w.touched {
		bl.dE[s] += wt * (w.post[s] - f.q0[s])
	}
	for _, a := range pat.miss {
		for _, p := range f.parents[a] {
			bl.missE[p.e] += wt * w.post[p.s]
		}
	}
	bl.ll += wt * ll
	return nil
}

// factors sets the sources' probabilities given the negative effects and
// the factor t_a(c) = ν + (1 − ν)(1 − ∏_{X∈c} f_{X,a}) of every positive
// effect for every subset c of its group's mask, formed without
// cancellation.
func (w *emWorker) factors(cp *emComp) {
	f := w.f
	k := len(cp.srcs)
	w.on, w.off = emGrow(w.on, k), emGrow(w.off, k)
	for j, s := range cp.srcs {
		w.on[j] = math.Exp(w.logOn[s] - w.logZ[s])
		w.off[j] = math.Exp(f.log1mP[s] - w.logZ[s])
	}
	w.tvOff = w.tvOff[:0]
	need := 0
	for g := range cp.groups {
		w.tvOff = append(w.tvOff, need)
		need += len(cp.groups[g].effs) << len(cp.groups[g].bits)
	}
	w.tv = emGrow(w.tv, need)
	for g := range cp.groups {
		grp := &cp.groups[g]
		nc := 1 << len(grp.bits)
		off := w.tvOff[g]
		ub := w.ub[:len(grp.bits)]
		for _, ef := range grp.effs {
			nu := f.leak[ef.a]
			clear(ub)
			for _, p := range ef.par {
				ub[p.bit] = f.u[p.e]
			}
			// t[c] first holds r(c) = 1 − ∏_{X∈c} f_{X,a}, built from
			// r(c without its lowest source): r + u(1 − r).
			t := w.tv[off : off+nc]
			t[0] = 0
			for c := 1; c < nc; c++ {
				r := t[c&(c-1)]
				t[c] = r + ub[bits.TrailingZeros(uint(c))]*(1-r)
			}
			for c, r := range t {
				t[c] = nu + (1-nu)*r
			}
			off += nc
		}
	}
}

// emGrow returns x resized to n, reallocated when too small.
func emGrow[T any](x []T, n int) []T {
	if cap(x) < n {
		return make([]T, n)
	}
	return x[:n]
}

// project returns, for each compact index c of the subsets of mask (bit i
// of c standing for the i-th source of mask), the compact index of its
// intersection with sub ⊆ mask.
func (w *emWorker) project(mask, sub uint64) []int32 {
	d := bits.OnesCount64(mask)
	i := 0
	for x := mask; x != 0; x &= x - 1 {
		l := bits.TrailingZeros64(x)
		w.projBit[i] = 0
		if sub>>l&1 != 0 {
			w.projBit[i] = 1 << bits.OnesCount64(sub&(1<<l-1))
		}
		i++
	}
	w.proj = emGrow(w.proj, 1<<d)
	p := w.proj
	p[0] = 0
	for c := 1; c < len(p); c++ {
		p[c] = p[c&(c-1)] | w.projBit[bits.TrailingZeros(uint(c))]
	}
	return p
}

// tree sums a component by passing messages in its elimination tree,
// scaled so that nothing underflows short of pathological parameters, and
// leaves in each clique's table the posterior of its sources. It returns
// the log of the component's factor beyond the sources' normalisers logZ.
// The phases: each clique's factors (treeFactors), the sums over the
// sources sent up to the root (treeUp), the posteriors sent back down
// (treeDown), and the sources' and groups' marginals read off the tables
// (treeMarginals).
func (w *emWorker) tree(cp *emComp) (float64, int) {
	w.treeLayout(cp)
	logScale, st := w.treeFactors(cp)
	if st != emOK {
		return 0, st
	}
	if logScale, st = w.treeUp(cp, logScale); st != emOK {
		return 0, st
	}
	w.treeDown(cp)
	w.treeMarginals(cp)
	return logScale, emOK
}

// treeLayout makes room in w.tabs for every clique's table and in w.msgs
// for every separator's message.
func (w *emWorker) treeLayout(cp *emComp) {
	nt, nm := 0, 0
	w.tabOff, w.msgOff = w.tabOff[:0], w.msgOff[:0]
	for i := range cp.cliques {
		w.tabOff = append(w.tabOff, nt)
		w.msgOff = append(w.msgOff, nm)
		nt += 1 << bits.OnesCount64(cp.cliques[i].mask)
		nm += 1 << bits.OnesCount64(cp.cliques[i].sep)
	}
	w.tabs, w.msgs = emGrow(w.tabs, nt), emGrow(w.msgs, nm)
	w.scale = emGrow(w.scale, len(cp.cliques))
}

// table returns clique i's table, laid out by treeLayout.
func (w *emWorker) table(cp *emComp, i int) []float64 {
	return w.tabs[w.tabOff[i] : w.tabOff[i]+1<<bits.OnesCount64(cp.cliques[i].mask)]
}

// treeFactors sets each clique's table to the product of its sources'
// priors and its groups' effect factors, each group's product scaled to
// a maximum of 1; it returns the log of the scales.
func (w *emWorker) treeFactors(cp *emComp) (float64, int) {
	logScale := 0.0
	for i := range cp.cliques {
		cl := &cp.cliques[i]
		T := w.table(cp, i)
		for c := range T {
			T[c] = 1
		}
		for _, j := range cl.srcs {
			b := bits.OnesCount64(cl.mask & (1<<j - 1))
			on, off := w.on[j], w.off[j]
			for c := range T {
				if c>>b&1 != 0 {
					T[c] *= on
				} else {
					T[c] *= off
				}
			}
		}
		for _, g := range cl.groups {
			grp := &cp.groups[g]
			nc := 1 << len(grp.bits)
			w.gt = emGrow(w.gt, nc)
			gt := w.gt
			for c := range gt {
				gt[c] = 1
			}
			for e := range grp.effs {
				t := w.tv[w.tvOff[g]+e*nc:]
				for c := range gt {
					gt[c] *= t[c]
				}
			}
			mx := 0.0
			for _, x := range gt {
				mx = max(mx, x)
			}
			if mx == 0 {
				return 0, emZero
			}
			if mx < emTiny {
				return 0, emUnderflow
			}
			logScale += math.Log(mx)
			for c := range gt {
				gt[c] /= mx
			}
			P := w.project(cl.mask, grp.mask)
			for c := range T {
				T[c] *= gt[P[c]]
			}
		}
	}
	return logScale, emOK
}

// treeUp has each clique send the sum over its own sources to its parent,
// scaled to a maximum of 1 (the root: to a sum of 1), the scales kept in
// w.scale and their logs added to logScale, which it returns.
func (w *emWorker) treeUp(cp *emComp, logScale float64) (float64, int) {
	for i := range cp.cliques {
		cl := &cp.cliques[i]
		T := w.table(cp, i)
		if cl.parent < 0 {
			z := 0.0
			for _, x := range T {
				z += x
			}
			if st := scaleStatus(z); st != emOK {
				return 0, st
			}
			w.scale[i] = z
			logScale += math.Log(z)
			continue
		}
		m := w.msgs[w.msgOff[i] : w.msgOff[i]+1<<bits.OnesCount64(cl.sep)]
		clear(m)
		P := w.project(cl.mask, cl.sep)
		for c, x := range T {
			m[P[c]] += x
		}
		mx := 0.0
		for _, x := range m {
			mx = max(mx, x)
		}
		if st := scaleStatus(mx); st != emOK {
			return 0, st
		}
		w.scale[i] = mx
		logScale += math.Log(mx)
		for s := range m {
			m[s] /= mx
		}
		Tp := w.table(cp, int(cl.parent))
		P = w.project(cp.cliques[cl.parent].mask, cl.sep)
		for c := range Tp {
			Tp[c] *= m[P[c]]
		}
	}
	return logScale, emOK
}

// scaleStatus says whether the sum v can scale a message: emZero when it
// is 0, emUnderflow when it is below emTiny (or NaN), else emOK.
func scaleStatus(v float64) int {
	if v == 0 {
		return emZero
	}
	if !(v >= emTiny) {
		return emUnderflow
	}
	return emOK
}

// treeDown turns each clique's table, root first, into the posterior of
// its sources: its parent's posterior marginal over the separator divided
// by the message it sent up.
func (w *emWorker) treeDown(cp *emComp) {
	for i := len(cp.cliques) - 1; i >= 0; i-- {
		cl := &cp.cliques[i]
		T := w.table(cp, i)
		if cl.parent < 0 {
			iz := 1 / w.scale[i]
			for c := range T {
				T[c] *= iz
			}
			continue
		}
		ns := 1 << bits.OnesCount64(cl.sep)
		w.marg = emGrow(w.marg, ns)
		marg := w.marg
		clear(marg)
		P := w.project(cp.cliques[cl.parent].mask, cl.sep)
		for c, x := range w.table(cp, int(cl.parent)) {
			marg[P[c]] += x
		}
		m := w.msgs[w.msgOff[i] : w.msgOff[i]+ns]
		for s := range marg {
			if m[s] > 0 {
				marg[s] /= m[s] * w.scale[i]
			} else {
				marg[s] = 0
			}
		}
		P = w.project(cl.mask, cl.sep)
		for c := range T {
			T[c] *= marg[P[c]]
		}
	}
}

// treeMarginals sets the sources' posteriors and the groups' marginals
// from the cliques' posterior tables.
func (w *emWorker) treeMarginals(cp *emComp) {
	for j, s := range cp.srcs {
		i := int(cp.srcClique[j])
		w.post[s] = bitMass(w.table(cp, i), bits.OnesCount64(cp.cliques[i].mask&(1<<j-1)))
	}
	w.groupMarginals(cp)
	for g := range cp.groups {
		grp := &cp.groups[g]
		i := int(grp.clique)
		q := w.q[w.qOff[g]:w.qOff[g+1]]
		P := w.project(cp.cliques[i].mask, grp.mask)
		for c, x := range w.table(cp, i) {
			q[P[c]] += x
		}
	}
}

// bitMass returns the sum, in index order, of the entries of T whose
// index has bit b set.
func bitMass(T []float64, b int) float64 {
	p := 0.0
	for c, x := range T {
		if c>>b&1 != 0 {
			p += x
		}
	}
	return p
}

// enumerate sums a component by enumerating its 2^k source states in logs:
// the fallback of tree when products underflow. It sets the sources'
// posteriors and the groups' marginals as tree does.
func (w *emWorker) enumerate(cp *emComp) (float64, int) {
	f := w.f
	k := len(cp.srcs)
	w.enum = emGrow(w.enum, 1<<k)
	W := w.enum
	W[0] = 0
	for j, s := range cp.srcs {
		lOn := w.logOn[s] - w.logZ[s]
		lOff := f.log1mP[s] - w.logZ[s]
		h := 1 << j
		for x := range h {
			W[x|h] = W[x] + lOn
			W[x] += lOff
		}
	}
	for g := range cp.groups {
		grp := &cp.groups[g]
		nc := 1 << len(grp.bits)
		w.gt = emGrow(w.gt, nc)
		lt := w.gt
		clear(lt)
		for e := range grp.effs {
			t := w.tv[w.tvOff[g]+e*nc:]
			for c := range lt {
				lt[c] += math.Log(t[c])
			}
		}
		ex := w.expandOf(grp)
		mask := int(grp.mask)
		for x := range W {
			W[x] += lt[w.compact(ex, x&mask)]
		}
	}
	mx := math.Inf(-1)
	for _, x := range W {
		mx = max(mx, x)
	}
	if math.IsInf(mx, -1) {
		return 0, emZero
	}
	z := 0.0
	for x := range W {
		W[x] = math.Exp(W[x] - mx)
		z += W[x]
	}
	for x := range W {
		W[x] /= z
	}
	for j, s := range cp.srcs {
		w.post[s] = bitMass(W, j)
	}
	w.groupMarginals(cp)
	for g := range cp.groups {
		grp := &cp.groups[g]
		q := w.q[w.qOff[g]:w.qOff[g+1]]
		ex := w.expandOf(grp)
		mask := int(grp.mask)
		for x, v := range W {
			q[w.compact(ex, x&mask)] += v
		}
	}
	return mx + math.Log(z), emOK
}

// expandOf returns, for each compact subset c of grp's mask, the subset as
// local source bits.
func (w *emWorker) expandOf(grp *emGroup) []int {
	nc := 1 << len(grp.bits)
	w.expand = emGrow(w.expand, nc)
	ex := w.expand
	ex[0] = 0
	for c := 1; c < nc; c++ {
		ex[c] = ex[c&(c-1)] | 1<<grp.bits[bits.TrailingZeros(uint(c))]
	}
	return ex
}

// compact returns the compact index of the subset sub of a group's mask,
// given the group's expansion table (a binary search: ex is increasing).
func (w *emWorker) compact(ex []int, sub int) int {
	c, _ := slices.BinarySearch(ex, sub)
	return c
}

// groupMarginals makes room in w.q, zeroed, for the marginal of every
// group over its mask.
func (w *emWorker) groupMarginals(cp *emComp) {
	w.qOff = append(w.qOff[:0], 0)
	for g := range cp.groups {
		w.qOff = append(w.qOff, w.qOff[g]+1<<len(cp.groups[g].bits))
	}
	w.q = emGrow(w.q, w.qOff[len(cp.groups)])
	clear(w.q)
}

// groupStats adds the expected activations of the positive effects of
// group g of cp, from its marginal in w.q and its factors in w.tv.
func (w *emWorker) groupStats(bl *emBlock, cp *emComp, g int, wt float64) {
	f := w.f
	grp := &cp.groups[g]
	nc := 1 << len(grp.bits)
	q := w.q[w.qOff[g]:w.qOff[g+1]]
	for e, ef := range grp.effs {
		t := w.tv[w.tvOff[g]+e*nc : w.tvOff[g]+(e+1)*nc]
		w.parSum = emGrow(w.parSum, len(ef.par))
		ps := w.parSum
		clear(ps)
		leakSum := 0.0
		for c := range nc {
			if t[c] == 0 {
				continue
			}
			r := q[c] / t[c]
			leakSum += r
			for i, p := range ef.par {
				if c>>p.bit&1 != 0 {
					ps[i] += r
				}
			}
		}
		bl.leakAct[ef.a] += wt * f.leak[ef.a] * leakSum
		for i, p := range ef.par {
			bl.act[p.e] += wt * f.u[p.e] * ps[i]
		}
	}
}
