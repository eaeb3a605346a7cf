package noisyor

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
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
	// MaxSources bounds the exact enumeration: the sources that are
	// parents of a row's positive effects split into components (two
	// sources are connected when they share a positive child), and each
	// component's 2^k source states are enumerated. A row with a component
	// of more than MaxSources sources is an error naming the row; the
	// memory of a worker grows as 2^k. Zero means DefaultEMMaxSources
	// (20); at most MaxEMMaxSources (30).
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
// n is not changed. It is meant to polish the estimates of Learn, which
// are moments estimates.
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
// child), independent given the row, whose 2^k states are enumerated
// (see EMOptions.MaxSources). An activation of a positive effect a by an
// active X has posterior probability (1 − f_{X,a})/P(a = 1 | sources), and
// so on for the leak; a negative effect was activated by nothing. The
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
	col, err := emColumns(n, b)
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

// emColumns returns, for every effect of n, the column of b holding it.
func emColumns(n *Network, b *Binary) ([]int, error) {
	if len(b.Ones) != len(b.Names) || len(b.Zeros) != len(b.Names) || len(b.Missing) != len(b.Names) {
		return nil, fmt.Errorf("noisyor: data have %d names but %d/%d/%d columns", len(b.Names), len(b.Ones), len(b.Zeros), len(b.Missing))
	}
	words := (b.Rows + 63) / 64
	idx := make(map[string]int, len(b.Names))
	for c, name := range b.Names {
		if _, dup := idx[name]; dup {
			return nil, fmt.Errorf("noisyor: data column %q repeated", name)
		}
		if len(b.Ones[c]) < words || len(b.Zeros[c]) < words {
			return nil, fmt.Errorf("noisyor: data column %q has fewer words than %d rows need", name, b.Rows)
		}
		idx[name] = c
	}
	col := make([]int, len(n.Effects))
	var absent []string
	for a, name := range n.Effects {
		c, ok := idx[name]
		if !ok {
			absent = append(absent, strconvQuote(name))
			continue
		}
		col[a] = c
	}
	if len(absent) > 0 {
		return nil, fmt.Errorf("noisyor: effect%s %s of the network not in the data", plural(len(absent)), listNames(absent))
	}
	if len(b.Names) > len(n.Effects) {
		var extra []string
		for _, name := range b.Names {
			if _, ok := n.Index(name); !ok {
				extra = append(extra, strconvQuote(name))
			}
		}
		return nil, fmt.Errorf("noisyor: data column%s %s not an effect of the network", plural(len(extra)), listNames(extra))
	}
	return col, nil
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

func plural(k int) string {
	if k == 1 {
		return ""
	}
	return "s"
}

// listNames joins up to five quoted names and says how many more there are.
func listNames(q []string) string {
	if len(q) <= 5 {
		return strings.Join(q, ", ")
	}
	return strings.Join(q[:5], ", ") + fmt.Sprintf(" and %d more", len(q)-5)
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
	mask uint32
	bits []uint8
	effs []emEff
}

// emComp is a connected component of the sources that are parents of a
// row's positive effects.
type emComp struct {
	srcs   []int32 // global source indices; local index j is bit j
	groups []emGroup
	// The marginal of local source j is read from group srcGroup[j], compact
	// bit srcBit[j].
	srcGroup []int32
	srcBit   []uint8
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
	n       *Network
	opt     EMOptions
	m, ns   int
	edgeSrc []int32 // source of each edge (edges source-major, children order)
	edgeEff []int32
	parents [][]emParent
	rows    int
	obs     []float64 // rows observing each effect
	pats    []emPattern
	maxK    int
	blocks  []emBlock
	bsize   int

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
	f.maxK = cb.maxK
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
	f     *emFit
	uf    []int32 // union–find parent, −1 when the source is untouched
	local []int32
	comp  []int32
	touch []int32
	maxK  int
}

func newCompBuilder(f *emFit) *compBuilder {
	c := &compBuilder{f: f, uf: make([]int32, f.ns), local: make([]int32, f.ns), comp: make([]int32, f.ns)}
	for s := range c.uf {
		c.uf[s] = -1
	}
	return c
}

func (c *compBuilder) find(s int32) int32 {
	for c.uf[s] != s {
		c.uf[s] = c.uf[c.uf[s]]
		s = c.uf[s]
	}
	return s
}

func (c *compBuilder) build(pos []int32, row int) ([]emComp, error) {
	f := c.f
	c.touch = c.touch[:0]
	for _, a := range pos {
		ps := f.parents[a]
		if len(ps) == 0 {
			continue
		}
		for _, p := range ps {
			if c.uf[p.s] < 0 {
				c.uf[p.s] = p.s
				c.touch = append(c.touch, p.s)
			}
		}
		for _, p := range ps[1:] {
			x, y := c.find(ps[0].s), c.find(p.s)
			if x != y {
				c.uf[max(x, y)] = min(x, y)
			}
		}
	}
	if len(c.touch) == 0 {
		return nil, nil
	}
	slices.Sort(c.touch)
	// Components in order of their smallest source; local indices in
	// increasing source order.
	var comps []emComp
	// c.comp[r] is the component of root r, from 1 (0: not seen yet).
	for _, s := range c.touch {
		r := c.find(s)
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
		if k := len(comps[i].srcs); k > f.opt.MaxSources {
			names := make([]string, 0, 5)
			for _, s := range comps[i].srcs[:min(k, 5)] {
				names = append(names, strconvQuote(f.n.Sources[s].Name))
			}
			c.reset()
			return nil, fmt.Errorf("noisyor: row %d (counting from 1): its positive effects connect %d sources (%s%s), more than EMOptions.MaxSources = %d allows to enumerate",
				row+1, k, strings.Join(names, ", "), moreSources(k), f.opt.MaxSources)
		}
		c.maxK = max(c.maxK, len(comps[i].srcs))
	}
	// Positive effects by component, with their parents' masks.
	type effMask struct {
		a    int32
		mask uint32
	}
	byComp := make([][]effMask, len(comps))
	for _, a := range pos {
		ps := f.parents[a]
		if len(ps) == 0 {
			continue
		}
		i := int(c.comp[c.find(ps[0].s)]) - 1
		var mk uint32
		for _, p := range ps {
			mk |= 1 << c.local[p.s]
		}
		byComp[i] = append(byComp[i], effMask{a, mk})
	}
	for i := range comps {
		cp := &comps[i]
		em := byComp[i]
		// Largest masks first, so that each effect joins the first group
		// whose mask holds its parents.
		slices.SortStableFunc(em, func(x, y effMask) int {
			if d := bits.OnesCount32(y.mask) - bits.OnesCount32(x.mask); d != 0 {
				return d
			}
			return cmp.Compare(x.mask, y.mask)
		})
		for _, e := range em {
			g := slices.IndexFunc(cp.groups, func(g emGroup) bool { return g.mask&e.mask == e.mask })
			if g < 0 {
				g = len(cp.groups)
				grp := emGroup{mask: e.mask}
				for x := e.mask; x != 0; x &= x - 1 {
					grp.bits = append(grp.bits, uint8(bits.TrailingZeros32(x)))
				}
				cp.groups = append(cp.groups, grp)
			}
			grp := &cp.groups[g]
			eff := emEff{a: e.a}
			for _, p := range f.parents[e.a] {
				l := uint32(c.local[p.s])
				bit := bits.OnesCount32(grp.mask & (1<<l - 1))
				eff.par = append(eff.par, emPar{bit: uint8(bit), e: p.e})
			}
			grp.effs = append(grp.effs, eff)
		}
		k := len(cp.srcs)
		cp.srcGroup, cp.srcBit = make([]int32, k), make([]uint8, k)
		for j := range k {
			g := slices.IndexFunc(cp.groups, func(g emGroup) bool { return g.mask&(1<<j) != 0 })
			cp.srcGroup[j] = int32(g)
			cp.srcBit[j] = uint8(bits.OnesCount32(cp.groups[g].mask & (1<<j - 1)))
		}
	}
	c.reset()
	return comps, nil
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
		lz := emLogAddExp(f.log1mP[s], f.base[s])
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

// emLogAddExp returns log(e^x + e^y) for finite x or y.
func emLogAddExp(x, y float64) float64 {
	if x < y {
		x, y = y, x
	}
	return x + math.Log1p(math.Exp(y-x))
}

// eStep computes the log-likelihood of the current parameters and the
// expected sufficient statistics.
func (f *emFit) eStep() (float64, error) {
	f.derive()
	nb := len(f.blocks)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(f.opt.Workers, nb) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newEMWorker(f)
			for {
				i := int(next.Add(1)) - 1
				if i >= nb {
					return
				}
				lo, hi := i*f.bsize, min((i+1)*f.bsize, len(f.pats))
				w.block(&f.blocks[i], f.pats[lo:hi])
			}
		}()
	}
	wg.Wait()
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
	for s := range f.ns {
		f.prior[s] = emClamp(f.sumE[s] / float64(f.rows))
	}
	for e, s := range f.edgeSrc {
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
	w, sp   []float64 // 2^k state table and a scratch table
	tv      []float64 // factors t_a(c) of every effect of a component
	tab     []float64 // a group's table
	expand  []uint32
	parSum  []float64
}

func newEMWorker(f *emFit) *emWorker {
	n := 1 << f.maxK
	return &emWorker{f: f, stamp: make([]uint32, f.ns), logOn: make([]float64, f.ns), logZ: make([]float64, f.ns),
		post: make([]float64, f.ns), w: make([]float64, n), sp: make([]float64, n)}
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
		lz := emLogAddExp(f.log1mP[s], w.logOn[s])
		w.logZ[s] = lz
		w.post[s] = math.Exp(w.logOn[s] - lz)
		ll += lz - f.l0[s]
	}
	for i := range pat.comps {
		lc, ok := w.component(bl, &pat.comps[i], wt)
		if !ok {
			return fmt.Errorf("noisyor: row %d has probability 0 under the network (a positive effect that only a zero leak can explain)", pat.row+1)
		}
		ll += lc
	}
	if math.IsInf(ll, -1) {
		return fmt.Errorf("noisyor: row %d has probability 0 under the network (a positive effect with no parent and no leak)", pat.row+1)
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

// component enumerates the states of one component: it returns the log of
// its factor beyond the sources' normalisers logZ, sets the posteriors of
// its sources and adds the expected activations of its positive effects.
// ok is false when the component has probability 0.
func (w *emWorker) component(bl *emBlock, cp *emComp, wt float64) (lc float64, ok bool) {
	f := w.f
	k := len(cp.srcs)
	ns := 1 << k
	W := w.w[:ns]
	W[0] = 1
	for j, s := range cp.srcs {
		pOn := math.Exp(w.logOn[s] - w.logZ[s])
		pOff := math.Exp(f.log1mP[s] - w.logZ[s])
		h := 1 << j
		for x := range h {
			W[x|h] = W[x] * pOn
			W[x] *= pOff
		}
	}
	// The factor t_a(c) = ν + (1 − ν)(1 − ∏_{X∈c} f_{X,a}) of every effect
	// for every subset c of its group's mask, built without cancellation.
	need := 0
	for g := range cp.groups {
		need += len(cp.groups[g].effs) << len(cp.groups[g].bits)
	}
	if cap(w.tv) < need {
		w.tv = make([]float64, need)
	}
	tv := w.tv[:need]
	off := 0
	logScale := 0.0
	sp := w.sp[:ns]
	for g := range cp.groups {
		grp := &cp.groups[g]
		nc := 1 << len(grp.bits)
		tab := w.table(nc)
		for i := range tab {
			tab[i] = 1
		}
		for _, ef := range grp.effs {
			nu := f.leak[ef.a]
			t := tv[off : off+nc]
			for c := range nc {
				r := 0.0
				for _, p := range ef.par {
					if c>>p.bit&1 != 0 {
						r += f.u[p.e] * (1 - r)
					}
				}
				t[c] = nu + (1-nu)*r
				tab[c] *= t[c]
			}
			off += nc
		}
		mx := 0.0
		for _, x := range tab {
			if x > mx {
				mx = x
			}
		}
		if mx == 0 {
			return 0, false
		}
		logScale += math.Log(mx)
		ex := w.expandOf(grp)
		for c, x := range tab {
			sp[ex[c]] = x / mx
		}
		mask := int(grp.mask)
		for x := range W {
			W[x] *= sp[x&mask]
		}
	}
	z := 0.0
	for _, x := range W {
		z += x
	}
	if z > 1e-280 && !math.IsInf(z, 0) {
		lc = logScale + math.Log(z)
		iz := 1 / z
		for x := range W {
			W[x] *= iz
		}
	} else {
		var ok bool
		if lc, ok = w.logDomain(cp, W, tv); !ok {
			return 0, false
		}
	}
	// Marginals of each group's mask, expected activations and the
	// sources' posteriors.
	off = 0
	for g := range cp.groups {
		grp := &cp.groups[g]
		nc := 1 << len(grp.bits)
		ex := w.expandOf(grp)
		for _, e := range ex {
			sp[e] = 0
		}
		// Runs of 2^tz consecutive states share their subset of the mask:
		// sum each run first.
		mask := int(grp.mask)
		if run := 1 << bits.TrailingZeros32(grp.mask); run == 1 {
			for x, p := range W {
				sp[x&mask] += p
			}
		} else {
			for x := 0; x < len(W); x += run {
				sum := 0.0
				for _, p := range W[x : x+run] {
					sum += p
				}
				sp[x&mask] += sum
			}
		}
		q := w.table(nc)
		for c, e := range ex {
			q[c] = sp[e]
		}
		for _, ef := range grp.effs {
			nu := f.leak[ef.a]
			t := tv[off : off+nc]
			off += nc
			if cap(w.parSum) < len(ef.par) {
				w.parSum = make([]float64, len(ef.par))
			}
			ps := w.parSum[:len(ef.par)]
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
			bl.leakAct[ef.a] += wt * nu * leakSum
			for i, p := range ef.par {
				bl.act[p.e] += wt * f.u[p.e] * ps[i]
			}
		}
		for j, s := range cp.srcs {
			if int(cp.srcGroup[j]) != g {
				continue
			}
			bit := cp.srcBit[j]
			m := 0.0
			for c := range nc {
				if c>>bit&1 != 0 {
					m += q[c]
				}
			}
			w.post[s] = m
		}
	}
	return lc, true
}

// table returns a scratch table of nc values.
func (w *emWorker) table(nc int) []float64 {
	if cap(w.tab) < nc {
		w.tab = make([]float64, nc)
	}
	return w.tab[:nc]
}

// expandOf returns, for each compact subset c of grp's mask, the subset as
// local source bits.
func (w *emWorker) expandOf(grp *emGroup) []uint32 {
	nc := 1 << len(grp.bits)
	if cap(w.expand) < nc {
		w.expand = make([]uint32, nc)
	}
	ex := w.expand[:nc]
	ex[0] = 0
	for c := 1; c < nc; c++ {
		ex[c] = ex[c&(c-1)] | 1<<grp.bits[bits.TrailingZeros(uint(c))]
	}
	return ex
}

// logDomain recomputes the posterior of a component's states in W from
// logs, for components whose products underflow; it returns the
// component's log factor as component does.
func (w *emWorker) logDomain(cp *emComp, W, tv []float64) (float64, bool) {
	f := w.f
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
	sp := w.sp[:len(W)]
	o := 0
	for g := range cp.groups {
		grp := &cp.groups[g]
		nc := 1 << len(grp.bits)
		tab := w.table(nc)
		clear(tab)
		for range grp.effs {
			for c := range nc {
				tab[c] += math.Log(tv[o+c])
			}
			o += nc
		}
		ex := w.expandOf(grp)
		for c, x := range tab {
			sp[ex[c]] = x
		}
		mask := int(grp.mask)
		for x := range W {
			W[x] += sp[x&mask]
		}
	}
	mx := math.Inf(-1)
	for _, x := range W {
		mx = math.Max(mx, x)
	}
	if math.IsInf(mx, -1) {
		return 0, false
	}
	z := 0.0
	for x := range W {
		W[x] = math.Exp(W[x] - mx)
		z += W[x]
	}
	for x := range W {
		W[x] /= z
	}
	return mx + math.Log(z), true
}
