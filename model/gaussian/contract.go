package gaussian

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// A Contractor scores contractions of the edges of a fitted model's tree
// on complete data, from their moments, exactly with the rest of the model
// held.
//
// Why it is exact and local: cut the tree at a node's neighbourhood. Given
// the parameters of the subtree that hangs from a neighbour w, everything
// its observed variables say about w is one linear measurement y_w of w's
// standardised value with a known noise variance (the belief-propagation
// message from the subtree, which is observed w itself when w is
// observed), and the log-likelihood of the data is that of the
// measurements, a small Gaussian, plus terms of the held subtrees alone.
// Contracting the edge keep–drop changes only the correlations of keep's
// new neighbours (those of keep and of drop), so the change in
// log-likelihood is the change in the measurements' log-likelihood, whose
// sample covariance follows from the data's covariance once the messages
// are known: a few operations per neighbour pair, and EM on the star of
// keep and its neighbours fits the new correlations.
//
// The messages are computed once, in Model.Contractor, and each one's
// product with the sample covariance (p² for p observed variables) when
// a contraction first needs it. A Contractor is safe for concurrent use.
type Contractor struct {
	g   *Model
	mom *Moments
	col []int // node → column of the moments, −1 hidden
	msg map[[2]int]*message
	// The binding of the model's observed nodes to the moments and its
	// pattern, which ContractorAfter shares (read only).
	b    *gbinding
	bcol []int
	pat  gaussPattern
	// pool holds *scoreScratch for Score.
	pool sync.Pool
	// LogLik is the log-likelihood of the model on the moments.
	LogLik float64
}

// message is what the subtree of a directed edge's tail (the side away
// from its head) says about the tail: the measurement y = yᵀ(x − x̄) of
// its standardised value, with noise variance nu (0 when the tail is
// observed; +Inf when the subtree says nothing), and S·y for the sample
// covariance S.
type message struct {
	// y is sparse: its nonzero entries, val, at the columns idx, in
	// increasing order (a subtree's message is zero off its observed
	// variables).
	idx []int
	val []float64
	nu  float64
	// sy is computed on first use (syOnce): a search rescores few
	// candidates after its first round.
	syOnce sync.Once
	sy     []float64
}

// syOf returns S·y for the message e.
func (c *Contractor) syOf(e *message) []float64 {
	e.syOnce.Do(func() {
		m := c.mom
		p := len(m.Names)
		e.sy = make([]float64, p)
		for i := range p {
			row := m.Cov[i*p : (i+1)*p]
			s := 0.0
			for t, j := range e.idx {
				s += row[j] * e.val[t]
			}
			e.sy[i] = s
		}
	})
	return e.sy
}

// Contractor returns the local scorer of g's contractions on the complete
// data whose moments are m. The model must be valid and its observed
// variables those of m.
func (g *Model) Contractor(m *Moments) (*Contractor, error) {
	return g.contractor(m, nil)
}

// ContractorAfter is Contractor, given prev, a contractor of an earlier
// model (or nil): when prev is on the same moments and its model's
// observed nodes are g's (as after contractions of edges at hidden
// nodes), what depends on the moments and the observed nodes alone is
// prev's, not made again.
func (g *Model) ContractorAfter(m *Moments, prev *Contractor) (*Contractor, error) {
	return g.contractor(m, prev)
}

// contractor is Contractor, sharing prev's binding when prev is on m and
// has g's observed nodes.
func (g *Model) contractor(m *Moments, prev *Contractor) (*Contractor, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	var (
		b   *gbinding
		col []int
		pat gaussPattern
	)
	if prev != nil && prev.mom == m && slices.Equal(prev.b.obs, g.Tree.Observed()) {
		b, col, pat = prev.b, prev.bcol, prev.pat
	} else {
		prev = nil
		var err error
		if b, col, err = g.bindMoments(m); err != nil {
			return nil, err
		}
		pat = momentPattern(m, col)
	}
	// The log-likelihood is computed on another goroutine while the
	// messages are (both only read the model, whose rooting is made
	// first).
	t, r := g.Tree, g.Rooted()
	em := &gaussEM{g: g, b: b, nodes: t.Nodes(), pats: []gaussPattern{pat}}
	var (
		ll    float64
		llErr error
		done  = make(chan struct{})
	)
	go func() {
		defer close(done)
		ll, llErr = em.loglik()
		em.release()
	}()
	// The map is made at its size (a message each way on every edge).
	c := &Contractor{g: g, mom: m, col: make([]int, t.MaxID()), msg: make(map[[2]int]*message, 2*t.NumEdges()), b: b, bcol: col, pat: pat}
	for i := range c.col {
		c.col[i] = -1
	}
	for a, v := range b.obs {
		c.col[v] = col[a]
	}
	sc := &combineScratch{acc: make([]float64, len(m.Names))}
	if prev != nil {
		sc.prev = prev.msg
	}
	for i := len(r.Order) - 1; i >= 0; i-- {
		if v := r.Order[i]; r.Parent[v] >= 0 {
			c.msg[[2]int{v, r.Parent[v]}] = c.combine(v, r.Parent[v], sc)
		}
	}
	for _, v := range r.Order {
		for _, h := range t.Adjacent(v) {
			w := h.To
			if r.Parent[w] == v {
				c.msg[[2]int{v, w}] = c.combine(v, w, sc)
			}
		}
	}
	<-done
	if llErr != nil {
		return nil, llErr
	}
	c.LogLik = ll
	return c, nil
}

// edgeCorr returns the correlation of g's adjacent nodes u and v.
func (g *Model) edgeCorr(u, v int) float64 {
	if g.Rooted().Parent[u] == v {
		return g.Rho[u]
	}
	return g.Rho[v]
}

// combine returns the message of v to its neighbour to, from the messages
// into v of its other neighbours. When the scratch holds the messages of
// an earlier contractor on the same moments and the one of v to to there
// is equal to it (as it is when the subtree behind it is unchanged), that
// message is returned, with its S·y once computed.
func (c *Contractor) combine(v, to int, sc *combineScratch) *message {
	g := c.g
	sc.ji, sc.jv = sc.ji[:0], sc.jv[:0]
	nu := 0.0
	if j := c.col[v]; j >= 0 {
		sc.ji, sc.jv = append(sc.ji, j), append(sc.jv, 1/math.Sqrt(g.Var[v]))
	} else {
		// The entries of y summed densely, in acc.
		acc := sc.acc
		clear(acc)
		prec := 0.0
		for _, h := range g.Tree.Adjacent(v) {
			w := h.To
			in := c.msg[[2]int{w, v}]
			if w == to || math.IsInf(in.nu, 1) {
				continue
			}
			rho := g.edgeCorr(v, w)
			d := 1 - rho*rho + in.nu
			prec += rho * rho / d
			for t, j := range in.idx {
				acc[j] += rho / d * in.val[t]
			}
		}
		if !(prec > 0) {
			nu = math.Inf(1)
		} else {
			for j, x := range acc {
				if y := x / prec; y != 0 {
					sc.ji, sc.jv = append(sc.ji, j), append(sc.jv, y)
				}
			}
			nu = 1 / prec
		}
	}
	if old := sc.prev[[2]int{v, to}]; old != nil && old.nu == nu && slices.Equal(old.idx, sc.ji) && slices.Equal(old.val, sc.jv) {
		return old
	}
	out := &message{nu: nu}
	if len(sc.ji) > 0 {
		out.idx, out.val = sc.put(sc.ji, sc.jv)
	}
	return out
}

// combineScratch is the scratch space of combine: acc (one entry per
// column), the entries of a message (ji, jv), the memory the messages'
// entries are copied into, and the messages of an earlier contractor on
// the same moments (prev, or nil).
type combineScratch struct {
	acc  []float64
	ji   []int
	jv   []float64
	is   []int
	vs   []float64
	prev map[[2]int]*message
}

// put returns copies of idx and val in the scratch's memory.
func (sc *combineScratch) put(idx []int, val []float64) ([]int, []float64) {
	if len(sc.is)+len(idx) > cap(sc.is) {
		sc.is = make([]int, 0, max(1024, 2*len(idx)))
		sc.vs = make([]float64, 0, max(1024, 2*len(idx)))
	}
	a := len(sc.is)
	sc.is, sc.vs = append(sc.is, idx...), append(sc.vs, val...)
	return sc.is[a:len(sc.is):len(sc.is)], sc.vs[a:len(sc.vs):len(sc.vs)]
}

// meas is a measurement of a contraction's star (Contractor.Score).
type meas struct {
	node  int
	m     *message
	arm   float64 // correlation with the centre of its side (keep or drop)
	far   bool    // on drop's side
	start float64 // correlation with keep in the model
}

// scoreScratch is the scratch space of Contractor.Score, pooled.
type scoreScratch struct {
	ms                   []meas
	use                  []int
	yi                   [][]int
	yv, sys              [][]float64
	far                  []bool
	nus, Y, r, old, both []float64
	keepIdx              []int
	star                 star
}

// grow returns (*b)[:n], growing *b when short.
func grow[T any](b *[]T, n int) []T {
	if cap(*b) < n {
		*b = make([]T, n)
	}
	*b = (*b)[:n]
	return *b
}

// growf is grow for float64s.
func growf(b *[]float64, n int) []float64 { return grow(b, n) }

// localFit is a contraction's new correlations: of keep with each of its
// neighbours.
type localFit struct {
	keep  int
	nodes []int
	rho   []float64
}

// corr returns the new correlation of keep with its neighbour v.
func (l *localFit) corr(v int) float64 {
	for i, u := range l.nodes {
		if u == v {
			return l.rho[i]
		}
	}
	return 0
}

// Contraction is a contraction scored by Contractor.Contract (or
// Contractor.Score, which leaves Model to Build).
type Contraction struct {
	// Model is the contracted model and LogLik its exact log-likelihood.
	Model  *Model
	LogLik float64
	// Change is Model's log-likelihood less that of the uncontracted
	// tree with the correlations around the edge (of keep, drop and their
	// neighbours) refitted likewise, the rest held: what the contraction
	// itself costs, whether or not the contractor's model was at its
	// maximum there.
	Change float64
	// Bounded reports that Change is an upper bound (from
	// Contractor.ScoreBound): the change against the uncontracted
	// neighbourhood at the model's own correlations, which its refit can
	// only raise.
	Bounded bool

	g    *Model
	ct   *tree.Tree
	drop int
	loc  *localFit
}

// Build returns the contracted model, Model, building it first when the
// contraction was scored by Contractor.Score. Its tree is the one given
// to Score, or to BuildOn; when neither gave one, a copy of the
// contractor's model's tree with the edge contracted.
func (c *Contraction) Build() (*Model, error) {
	if c.Model != nil {
		return c.Model, nil
	}
	if c.ct == nil {
		ct := c.g.Tree.Clone()
		if err := ct.Contract(c.loc.keep, c.drop); err != nil {
			return nil, err
		}
		c.ct = ct
	}
	m, err := c.g.withLocal(c.ct, c.loc)
	if err != nil {
		return nil, err
	}
	c.Model = m
	return m, nil
}

// BuildOn is Build on ct, the contraction of the edge of a Contraction
// scored by Score without its tree (ct nil): the contracted model is
// built on ct. It is Build when the Contraction has its tree already.
func (c *Contraction) BuildOn(ct *tree.Tree) (*Model, error) {
	if c.Model == nil && c.ct == nil {
		if ct == nil || !ct.Has(c.loc.keep) || ct.Has(c.drop) {
			return nil, errors.New("model: the tree is not the contraction of the edge")
		}
		c.ct = ct
	}
	return c.Build()
}

// Contract scores the contraction of the edge keep–drop of the
// contractor's model's tree, whose result is ct (drop, hidden, merged into
// keep): the model on ct in which the correlations of keep with its
// neighbours are fitted to the data, every other parameter being the
// contractor's model's, with its exact log-likelihood. The fits (of the
// contracted and of the uncontracted neighbourhood) take at most maxIter
// quasi-Newton steps each and stop when a step gains at most tol nat; the
// new correlations start from those of the model (the products along the
// paths through drop).
func (c *Contractor) Contract(ct *tree.Tree, keep, drop, maxIter int, tol float64) (*Contraction, error) {
	out, err := c.Score(ct, keep, drop, maxIter, tol)
	if err != nil {
		return nil, err
	}
	if _, err := out.Build(); err != nil {
		return nil, err
	}
	return out, nil
}

// Score is Contract without building the contracted model: the
// Contraction's Model is nil until its Build is called, which is what a
// search that scores many contractions and keeps few needs. ct may be
// nil: the score does not need the contracted tree, which Build then
// makes (or BuildOn takes).
func (c *Contractor) Score(ct *tree.Tree, keep, drop, maxIter int, tol float64) (*Contraction, error) {
	return c.score(ct, keep, drop, maxIter, tol, math.Inf(-1))
}

// ScoreBound is Score for a search that needs a contraction's Change
// exactly only above floor: the uncontracted neighbourhood's refit, which
// can only lower Change, is skipped when the change against it at the
// model's own correlations (an upper bound on Change) is at most floor;
// the Contraction then has that bound as Change, and Bounded set. A
// search that ranks candidates above floor and discards the rest decides
// the same with half the local fits of the discarded ones.
func (c *Contractor) ScoreBound(ct *tree.Tree, keep, drop, maxIter int, tol, floor float64) (*Contraction, error) {
	return c.score(ct, keep, drop, maxIter, tol, floor)
}

func (c *Contractor) score(ct *tree.Tree, keep, drop, maxIter int, tol, floor float64) (*Contraction, error) {
	g := c.g
	t := g.Tree
	switch {
	case !t.HasEdge(keep, drop) || !t.IsHidden(drop):
		return nil, fmt.Errorf("model: %d–%d is not an edge of the model's tree at the hidden node %d", keep, drop, drop)
	case ct != nil && (!ct.Has(keep) || ct.Has(drop)):
		return nil, errors.New("model: the tree is not the contraction of the edge")
	}
	rkd := g.edgeCorr(keep, drop)
	// The measurements: keep itself when observed, then every other
	// neighbour of keep and of drop that the data say something about.
	sc, _ := c.pool.Get().(*scoreScratch)
	if sc == nil {
		sc = &scoreScratch{}
	}
	defer c.pool.Put(sc)
	ms := sc.ms[:0]
	for _, w := range t.Neighbors(keep) {
		if w != drop {
			a := g.edgeCorr(keep, w)
			ms = append(ms, meas{node: w, m: c.msg[[2]int{w, keep}], arm: a, start: a})
		}
	}
	for _, w := range t.Neighbors(drop) {
		if w != keep {
			a := g.edgeCorr(drop, w)
			ms = append(ms, meas{node: w, m: c.msg[[2]int{w, drop}], arm: a, far: true, start: a * rkd})
		}
	}
	sc.ms = ms
	use := sc.use[:0] // indices of informative measurements
	for i := range ms {
		if !math.IsInf(ms[i].m.nu, 1) {
			use = append(use, i)
		}
	}
	sc.use = use
	obsKeep := c.col[keep] >= 0
	off := 0
	if obsKeep {
		off = 1
	}
	k := len(use) + off
	p := len(c.mom.Names)
	yi, yv, sys := grow(&sc.yi, k), grow(&sc.yv, k), grow(&sc.sys, k)
	nus, Y, r := growf(&sc.nus, k), growf(&sc.Y, k*k), growf(&sc.r, len(use))
	far, old := grow(&sc.far, len(use)), growf(&sc.old, len(use)+1)
	if obsKeep {
		j := c.col[keep]
		s := 1 / math.Sqrt(g.Var[keep])
		sy := growf(&sc.both, p+1)
		nus[0] = 0
		yi[0], yv[0], sys[0] = append(sc.keepIdx[:0], j), sy[p:], sy[:p]
		sc.keepIdx = yi[0]
		yv[0][0] = s
		for i := range p {
			sys[0][i] = c.mom.Cov[i*p+j] * s
		}
	}
	for a, i := range use {
		yi[a+off], yv[a+off], sys[a+off], nus[a+off] = ms[i].m.idx, ms[i].m.val, c.syOf(ms[i].m), ms[i].m.nu
	}
	// Y = yᵀ S y over the nonzero entries of the y's, in increasing
	// columns.
	for a := range k {
		for b := a; b < k; b++ {
			s := 0.0
			sb := sys[b]
			for t, j := range yi[a] {
				s += yv[a][t] * sb[j]
			}
			Y[a*k+b], Y[b*k+a] = s, s
		}
	}
	n := float64(c.mom.Rows)
	// The uncontracted neighbourhood: at the model's correlations, and
	// refitted with the rest held.
	for a, i := range use {
		far[a], old[a] = ms[i].far, ms[i].arm
	}
	old[len(use)] = rkd
	ost := &sc.star
	*ost = star{Y: Y, nus: nus, k: k, off: off, n: n, far: far, two: true, lr: ost.lr, work: ost.work, fitbuf: ost.fitbuf,
		sig: ost.sig, L: ost.L, inv: ost.inv, tmp: ost.tmp, gm: ost.gm, x: ost.x}
	llOld, err := ost.eval(old, nil)
	if err != nil {
		return nil, err
	}
	// The star of keep and its neighbours, in the old star's scratch.
	for a, i := range use {
		r[a] = max(-rhoMax, min(rhoMax, ms[i].start))
	}
	ost.two, ost.far = false, nil
	llNew, err := ost.fit(r, maxIter, tol)
	if err != nil {
		return nil, err
	}
	// The old star refitted, unless the bound already puts the change
	// at or below floor.
	llOldMax, bounded := llOld, llNew-llOld <= floor
	if !bounded {
		ost.two, ost.far = true, far
		if llOldMax, err = ost.fit(old, maxIter, tol); err != nil {
			return nil, err
		}
	}
	loc := &localFit{keep: keep, nodes: make([]int, len(ms)), rho: make([]float64, len(ms))}
	for i, x := range ms {
		loc.nodes[i], loc.rho[i] = x.node, x.start // uninformative: the path's correlation
	}
	for a, i := range use {
		loc.rho[i] = r[a]
	}
	return &Contraction{LogLik: c.LogLik + llNew - llOld, Change: llNew - llOldMax, Bounded: bounded, g: g, ct: ct, drop: drop, loc: loc}, nil
}

// withLocal returns the model on t (a contraction of g's tree that merges
// a node into loc.keep) with g's parameters, except the correlations of
// loc.keep with its neighbours, which are loc's.
func (g *Model) withLocal(t *tree.Tree, loc *localFit) (*Model, error) {
	root := g.Root
	if !t.Has(root) {
		root = model.DefaultRoot(t)
	}
	return g.withLocals(t, root, []*localFit{loc})
}

// withLocals is withLocal for local fits at merged nodes that share no
// node and no neighbour, rooted at root.
func (g *Model) withLocals(t *tree.Tree, root int, locs []*localFit) (*Model, error) {
	if len(locs) == 0 {
		return nil, errors.New("model: no local fit")
	}
	out, err := New(t, root, 0)
	if err != nil {
		return nil, err
	}
	copy(out.Mean, g.Mean)
	copy(out.Var, g.Var)
	// at[v] is the local fit merged at v, if any.
	var at map[int]*localFit
	if len(locs) > 1 {
		at = make(map[int]*localFit, len(locs))
		for _, l := range locs {
			at[l.keep] = l
		}
	}
	fitAt := func(v int) *localFit {
		if at == nil {
			if locs[0].keep == v {
				return locs[0]
			}
			return nil
		}
		return at[v]
	}
	r := out.Rooted()
	for _, v := range r.Order {
		p := r.Parent[v]
		if p < 0 {
			continue
		}
		if l := fitAt(v); l != nil {
			out.Rho[v] = l.corr(p)
		} else if l := fitAt(p); l != nil {
			out.Rho[v] = l.corr(v)
		} else if g.Tree.HasEdge(v, p) {
			out.Rho[v] = g.edgeCorr(v, p)
		} else {
			return nil, fmt.Errorf("model: %s–%s is not an edge of the model's tree", t.Name(v), t.Name(p))
		}
	}
	out.local = locs[len(locs)-1]
	return out, out.validateParams() // New validated t
}

// WithLocal returns the model on t, a contraction of g's tree by an edge
// whose ends are not near any other contraction g went through, with g's
// parameters except the correlations of the merged node with its
// neighbours, which are from's: from is a model returned by
// Contractor.Contract (of this or an earlier model), on a tree with the
// same merged node and neighbours. It puts several contractions scored
// against the same model together.
func (g *Model) WithLocal(t *tree.Tree, from *Model) (*Model, error) {
	if from == nil || from.local == nil {
		return nil, errors.New("model: no local fit to put in (the model is not from Contractor.Contract)")
	}
	return g.withLocal(t, from.local)
}

// WithContractions is WithContraction for several contractions at once,
// scored by the same contractor (of g or an earlier model) and sharing
// no node and no neighbour: t is g's tree with their edges contracted in
// order, and root the root of the result (the one WithContraction, one
// contraction after another, would give: g's root, or DefaultRoot of the
// tree at the step that removed it). The result is the same model.
func (g *Model) WithContractions(t *tree.Tree, root int, cs ...*Contraction) (*Model, error) {
	locs := make([]*localFit, len(cs))
	for i, c := range cs {
		if c == nil || c.loc == nil {
			return nil, errors.New("model: no contraction to put in")
		}
		locs[i] = c.loc
	}
	return g.withLocals(t, root, locs)
}

// WithContraction is WithLocal with the local fit of c, a contraction
// scored by the Contractor of this or an earlier model, built or not.
func (g *Model) WithContraction(t *tree.Tree, c *Contraction) (*Model, error) {
	if c == nil || c.loc == nil {
		return nil, errors.New("model: no contraction to put in")
	}
	return g.withLocal(t, c.loc)
}

// star is the log-likelihood of a contraction's measurements (second
// moments Y, k×k, of n rows) as a function of the correlations r_i of
// each measured neighbour with its centre: with one centre (the merged
// node keep) their covariance is Σ = r rᵀ + diag(1 − r² + nu). With two
// (two: the uncontracted keep–drop), the last entry of r is the
// correlation ρ of keep and drop, far tells the neighbours of drop, and
// Σ_ij carries a factor ρ when i and j are on different sides. When keep
// is observed (off = 1) its own standardised value comes first (variance
// 1, covariance with measurement i that of keep with its node).
type star struct {
	Y, nus []float64
	k, off int
	n      float64
	far    []bool
	two    bool
	// scratch of eval (star.go) and fit; wyw is WᵀYW of the last
	// evalValue in the low-rank form, for gradient.
	lr           lowRank
	work, fitbuf []float64
	wyw          [16]float64
	// scratch of evalDense, k² each (L, inv, tmp, gm) and k (x).
	sig, L, inv, tmp, gm, x []float64
}

// scratch sets the scratch space of evalDense, allocating it when short.
func (s *star) scratch() {
	kk := s.k * s.k
	if cap(s.sig) < 5*kk+s.k {
		s.sig = make([]float64, 5*kk+s.k)
	}
	buf := s.sig[:5*kk+s.k]
	s.sig, s.L, s.inv, s.tmp, s.gm, s.x = buf[:kk], buf[kk:2*kk], buf[2*kk:3*kk], buf[3*kk:4*kk], buf[4*kk:5*kk], buf[5*kk:]
}

// factor returns the correlation between the centres of measurements i
// and j (−1 for keep itself), given r.
func (s *star) factor(r []float64, i, j int) float64 {
	if !s.two {
		return 1
	}
	fi, fj := i >= 0 && s.far[i], j >= 0 && s.far[j] // keep is near
	if fi != fj {
		return r[len(r)-1]
	}
	return 1
}

// sigma returns Σ at r.
func (s *star) sigma(r []float64) []float64 {
	k, off := s.k, s.off
	s.scratch()
	sig := s.sig
	for a := range k {
		sig[a*k+a] = 1 + s.nus[a]
		for b := a + 1; b < k; b++ {
			var x float64
			if off == 1 && a == 0 {
				x = r[b-1] * s.factor(r, -1, b-1)
			} else {
				x = r[a-off] * r[b-off] * s.factor(r, a-off, b-off)
			}
			sig[a*k+b], sig[b*k+a] = x, x
		}
	}
	return sig
}

// evalDense is eval from Σ formed entry by entry and its Cholesky factor
// (k³), where two measurements are nearly free of noise; its gradient: with G = −n/2 (Σ⁻¹ − Σ⁻¹ Y Σ⁻¹), ∂ℓ/∂θ = 2 Σ_{i<j} G_ij
// ∂Σ_ij/∂θ.
func (s *star) evalDense(r, grad []float64) (float64, error) {
	k, off := s.k, s.off
	sig := s.sigma(r)
	ll, inv, err := smallLogLik(sig, s.Y, k, s.n, grad != nil, s.L, s.inv, s.x)
	if err != nil || grad == nil {
		return ll, err
	}
	// G = −n/2 (Σ⁻¹ − Σ⁻¹ Y Σ⁻¹), by rows.
	tmp := s.tmp
	clear(tmp)
	for a := range k {
		ta := tmp[a*k : (a+1)*k]
		for c := range k {
			if x := inv[a*k+c]; x != 0 {
				for b, y := range s.Y[c*k : (c+1)*k] {
					ta[b] += x * y
				}
			}
		}
	}
	gm := s.gm
	clear(gm)
	for a := range k {
		ga := gm[a*k : (a+1)*k]
		for c, x := range tmp[a*k : (a+1)*k] {
			for b, y := range inv[c*k : (c+1)*k] {
				ga[b] += x * y
			}
		}
		for b := range ga {
			ga[b] = -0.5 * s.n * (inv[a*k+b] - ga[b])
		}
	}
	G := func(a, b int) float64 { return gm[a*k+b] }
	clear(grad)
	m := len(r)
	if s.two {
		m--
	}
	for a := range k {
		for b := a + 1; b < k; b++ {
			gab := 2 * G(a, b)
			var i, j int // measurement indices (−1: keep itself)
			if off == 1 && a == 0 {
				i, j = -1, b-1
			} else {
				i, j = a-off, b-off
			}
			f := s.factor(r, i, j)
			if i >= 0 {
				grad[i] += gab * r[j] * f
				grad[j] += gab * r[i] * f
			} else {
				grad[j] += gab * f
			}
			if s.two && (i >= 0 && s.far[i]) != s.far[j] {
				ri := 1.0
				if i >= 0 {
					ri = r[i]
				}
				grad[m] += gab * ri * r[j]
			}
		}
	}
	return ll, nil
}

// fit maximises the log-likelihood over r, from r, by at most maxIter
// BFGS steps projected on the box |r| ≤ rhoMax, each with a backtracking
// line search (to the maximum of a parabola) and no coordinate moving by
// more than ¼; it stops when a step gains at most tol nat, or would by
// its first-order gain. It returns the log-likelihood reached, at
// r. (EM on the star is far slower: with an edge near |ρ| = 1 it moved by
// 10⁻⁷ per thousand iterations; and in the coordinates atanh r, which
// Fit's quasi-Newton phase uses, the log-likelihood is so flat near the
// bound that steps from a start at |r| ≈ 1 − 10⁻⁵ stalled 0.008 nat
// short.)
func (s *star) fit(r []float64, maxIter int, tol float64) (float64, error) {
	m := len(r)
	// Scratch: g, x, xn, rn, gn, d, gf, sv, yv, hy (m each) and H (m²).
	buf := growf(&s.fitbuf, 10*m+m*m)
	clear(buf)
	next := func(k int) []float64 {
		out := buf[:k:k]
		buf = buf[k:]
		return out
	}
	g := next(m)
	ll, err := s.eval(r, g)
	if err != nil || m == 0 {
		return ll, err
	}
	x := next(m)
	copy(x, r)
	H := next(m * m) // inverse of the negative Hessian
	reset := func() {
		gmax := 0.0
		for _, v := range g {
			gmax = max(gmax, math.Abs(v))
		}
		clear(H)
		for i := range m {
			H[i*m+i] = 0.25 / max(gmax, 1)
		}
	}
	reset()
	fresh := true
	xn, rn, gn, d, gf := next(m), next(m), next(m), next(m), next(m)
	sv, yv, hy := next(m), next(m), next(m)
	for range maxIter {
		// Coordinates held at the bound by a gradient pointing out of
		// the box take no part in the step.
		copy(gf, g)
		for i, v := range x {
			if math.Abs(v) >= rhoMax && v*g[i] > 0 {
				gf[i] = 0
			}
		}
		big := 0.0
		for i := range m {
			v := 0.0
			if gf[i] != 0 || g[i] == 0 {
				for j := range m {
					v += H[i*m+j] * gf[j]
				}
			}
			d[i] = v
			big = max(big, math.Abs(v))
		}
		if big > 0.25 {
			for i := range d {
				d[i] *= 0.25 / big
			}
		}
		// The step's first-order gain, gᵀd, bounds what it can gain
		// where ℓ is concave along d: at most tol, and the step would
		// end the fit by the rule below after its evaluations (up to 30
		// when rounding hides the gain).
		pred := 0.0
		for i := range m {
			pred += gf[i] * d[i]
		}
		if pred <= tol {
			break
		}
		var lln float64
		step := 1.0
		ok := false
		for range 30 {
			dot := 0.0
			for i := range m {
				xn[i] = max(-rhoMax, min(rhoMax, x[i]+step*d[i]))
				rn[i] = xn[i]
				dot += g[i] * (xn[i] - x[i])
			}
			// The gradient of a trial point is computed only if the
			// point is taken (two trials in five are not).
			var dense bool
			if lln, dense, err = s.evalValue(rn, gn); err == nil && lln >= ll+1e-4*dot && lln > ll {
				ok = true
				if !dense {
					s.gradient(rn, gn)
				}
				break
			}
			// Back to the maximum of the parabola through ℓ(0), its
			// slope along the step and ℓ at the step, kept within
			// [1/10, 1/2] of the step (halving took four or five
			// trials on the first step of most fits).
			u := 0.5
			if den := lln - ll - dot; err == nil && den < 0 && dot > 0 && !math.IsInf(lln, 0) {
				u = max(0.1, min(0.5, -dot/(2*den)))
			}
			step *= u
		}
		if !ok {
			if fresh {
				break
			}
			// Start the curvature estimate afresh along the gradient.
			reset()
			fresh = true
			continue
		}
		gain := lln - ll
		// BFGS update of H for the minimisation of −ℓ: s = Δx, y = −Δg.
		sy := 0.0
		for i := range m {
			sv[i], yv[i] = xn[i]-x[i], g[i]-gn[i]
			sy += sv[i] * yv[i]
		}
		if sy > 1e-12 && fresh {
			// The first curvature pair scales the start (Nocedal and
			// Wright, eq. 6.20): H = sᵀy / yᵀy · I.
			yy := 0.0
			for _, v := range yv {
				yy += v * v
			}
			clear(H)
			for i := range m {
				H[i*m+i] = sy / yy
			}
		}
		fresh = false
		if sy > 1e-12 {
			yhy := 0.0
			for i := range m {
				v := 0.0
				for j := range m {
					v += H[i*m+j] * yv[j]
				}
				hy[i] = v
				yhy += yv[i] * v
			}
			// H += ((1 + yᵀHy/sᵀy) s sᵀ − Hy sᵀ − s (Hy)ᵀ)/sᵀy, by rows:
			// u_i sᵀ − w_i (Hy)ᵀ.
			c1 := 1 + yhy/sy
			for i := range m {
				u, w := (c1*sv[i]-hy[i])/sy, sv[i]/sy
				row := H[i*m : (i+1)*m]
				for j := range row {
					row[j] += u*sv[j] - w*hy[j]
				}
			}
		}
		copy(x, xn)
		copy(r, rn)
		copy(g, gn)
		ll = lln
		if gain <= tol {
			break
		}
	}
	return ll, nil
}

// smallLogLik returns −n/2 [k log 2π + log|Σ| + tr(Σ⁻¹Y)] for the k×k
// covariance sig and second moments Y (row-major), by a Cholesky
// factorisation of sig, and Σ⁻¹ when inverse is set. L and inv (k²) and x
// (k) are scratch space; the Σ⁻¹ returned is inv.
func smallLogLik(sig, Y []float64, k int, n float64, inverse bool, L, inv, x []float64) (float64, []float64, error) {
	logdet := 0.0
	for i := range k {
		for j := 0; j <= i; j++ {
			s := sig[i*k+j]
			for m := range j {
				s -= L[i*k+m] * L[j*k+m]
			}
			if i == j {
				if !(s > 0) {
					return 0, nil, errors.New("model: a contraction's local covariance is singular")
				}
				L[i*k+i] = math.Sqrt(s)
				logdet += 2 * math.Log(L[i*k+i])
			} else {
				L[i*k+j] = s / L[j*k+j]
			}
		}
	}
	// solve overwrites x with Σ⁻¹ x.
	solve := func(x []float64) {
		for i := range k {
			s := x[i]
			for m := range i {
				s -= L[i*k+m] * x[m]
			}
			x[i] = s / L[i*k+i]
		}
		for i := k - 1; i >= 0; i-- {
			s := x[i]
			for m := i + 1; m < k; m++ {
				s -= L[m*k+i] * x[m]
			}
			x[i] = s / L[i*k+i]
		}
	}
	tr := 0.0
	if inverse {
		clear(inv[:k*k])
		for col := range k {
			inv[col*k+col] = 1
			solve(inv[col*k : (col+1)*k])
		}
		for i := range k {
			for j := range k {
				tr += inv[i*k+j] * Y[j*k+i]
			}
		}
		return -0.5 * n * (float64(k)*math.Log(2*math.Pi) + logdet + tr), inv, nil
	}
	for col := range k {
		for i := range k {
			x[i] = Y[i*k+col]
		}
		solve(x[:k])
		tr += x[col]
	}
	return -0.5 * n * (float64(k)*math.Log(2*math.Pi) + logdet + tr), inv, nil
}
