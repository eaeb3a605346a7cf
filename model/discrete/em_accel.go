package discrete

import (
	"errors"
	"math"

	"github.com/latentree/latentree/model/internal/squarem"
)

// emLoop runs EM iterations on the model of its engine.
type emLoop struct {
	e       *engine
	rs      rowSet
	workers int
	pseudo  float64
	maxIter int
	stop    squarem.Stopper
	// record, if set, receives every E-step's trace entry.
	record func(it int, obj float64)
	it     int     // E-steps so far
	last   float64 // the last trace entry
	// err is the first error of a pass over the rows (a Source that
	// fails) or of the root regression's M-step; the loop stops at it.
	err error
	// reg, when not nil, is the root regression's part of EM
	// (fitRegressionEM).
	reg *regEM
}

// regEM is the root regression's part of EM: its M-step after the CPTs'
// and its coefficients, appended to SQUAREM's parameter vector.
type regEM struct {
	b *binding
	k int
}

// mstep sets m's coefficients by Newton's method on the rows' posteriors
// of the root (the last E-step's) and the rows' priors from them.
func (r *regEM) mstep(m *Model) error {
	if err := m.Regression.mstepRegression(r.b.design, r.b.rootPost, r.b, r.k); err != nil {
		return err
	}
	r.update(m)
	return nil
}

// update sets the rows' priors of the root from m's coefficients, and
// m's Prior to their mean.
func (r *regEM) update(m *Model) {
	r.b.rootPrior = m.Regression.priors(r.b.design, r.k)
	copy(m.Prior, meanPrior(r.b.rootPrior, r.b, r.k))
}

// estep runs an E-step at the model's parameters and returns the counts
// and the objective there.
func (l *emLoop) estep() (*counts, float64) {
	c, err := l.rs.estepAll(l.e, l.workers)
	if err != nil {
		l.err = err
		return l.e.newCounts(), math.Inf(-1)
	}
	l.it++
	if l.reg != nil && c.impossible > 0 {
		// (A point SQUAREM extrapolates to has no probability 0: its
		// priors are a softmax, its CPTs projected above 0.)
		if l.it == 1 {
			l.err = errors.New("model: some rows have probability 0 under the model's parameters: EM cannot start there")
		}
		return c, math.Inf(-1)
	}
	obj := c.ll
	if l.pseudo > 0 && l.reg == nil {
		// (With a root regression the trace is the log-likelihood, as
		// its EM runs plain with pseudo-counts.)
		obj += l.pseudo * l.e.m.logParams()
	}
	return c, obj
}

func (l *emLoop) emit(obj float64) {
	l.last = obj
	if l.record != nil {
		l.record(l.it, obj)
	}
}

// start prepares the model's parameters: with pseudo-counts the objective
// has log θ terms, so zero entries are raised to the floor.
func (l *emLoop) start() {
	if l.pseudo > 0 && l.e.m.logParams() < -math.MaxFloat64 {
		lay := newLayout(l.e.m)
		p := make([]float64, lay.n)
		lay.save(p)
		lay.project(p, make([]float64, lay.n))
		lay.load(p)
	}
}

func (l *emLoop) mstep(c *counts) {
	l.e.m.mstep(c, l.pseudo)
	if l.reg != nil && l.err == nil {
		l.err = l.reg.mstep(l.e.m)
	}
}

// plain runs plain EM until the stopping rule or maxIter E-steps; it
// reports convergence.
func (l *emLoop) plain() bool {
	l.start()
	prev := math.Inf(-1)
	for l.it < l.maxIter {
		c, obj := l.estep()
		if l.err != nil {
			return false
		}
		l.mstep(c)
		if l.err != nil {
			return false
		}
		l.emit(obj)
		gain := obj - prev
		prev = obj
		if l.stop.Done(obj, gain) {
			return true
		}
	}
	return false
}

// squarem runs SQUAREM cycles (see AccelSQUAREM) until the stopping rule,
// checked at cycle boundaries, or maxIter E-steps; it reports convergence.
// The model ends one M-step past the last point accepted, or at the plain
// EM point θ2 when the budget ends after a rejected extrapolation.
func (l *emLoop) squarem() bool {
	l.start()
	lay := l.vector()
	p0, p1, p2, pe := make([]float64, lay.n), make([]float64, lay.n), make([]float64, lay.n), make([]float64, lay.n)
	if l.it >= l.maxIter {
		return false
	}
	c, obj := l.estep()
	if l.err != nil {
		return false
	}
	l.emit(obj)
	l.stop.Done(obj, math.Inf(1))
	stepMax := 1.0
	for {
		if l.it >= l.maxIter {
			l.mstep(c)
			return false
		}
		lay.save(p0)
		l.mstep(c)
		lay.save(p1)
		c1, obj1 := l.estep()
		if l.err != nil {
			return false
		}
		l.emit(obj1)
		l.mstep(c1)
		if l.it >= l.maxIter {
			return false
		}
		lay.save(p2)
		// gEM is the gain of one plain EM step from θ0.
		gEM := obj1 - obj
		alpha := squarem.StepLength(p0, p1, p2, stepMax)
		if alpha < -1 {
			squarem.Extrapolate(p0, p1, p2, pe, alpha)
			lay.project(pe, p2)
			lay.load(pe)
		}
		ce, obje := l.estep()
		if l.err != nil {
			return false
		}
		if obje >= obj1 {
			l.emit(obje)
			l.mstep(ce)
			if -alpha >= stepMax {
				stepMax *= squarem.StepGrow
			}
		} else {
			l.emit(obj1)
			lay.load(p2)
			stepMax = max(1, min(stepMax, -alpha)/squarem.StepGrow)
		}
		if l.it >= l.maxIter {
			return false
		}
		c, obj = l.estep()
		if l.err != nil {
			return false
		}
		l.emit(obj)
		if l.stop.Done(obj, gEM) {
			l.mstep(c)
			return true
		}
	}
}

// paramVector is SQUAREM's view of the parameters: the model's
// distributions (layout) and, with a root regression, its coefficients
// after them (free: not projected).
type paramVector struct {
	lay *layout
	m   *Model
	reg *regEM
	n   int
}

func (l *emLoop) vector() *paramVector {
	m := l.e.m
	v := &paramVector{lay: newLayout(m), m: m, reg: l.reg}
	v.n = v.lay.n
	if l.reg != nil {
		v.n += len(m.Regression.Beta)
	}
	return v
}

func (v *paramVector) save(dst []float64) {
	v.lay.save(dst[:v.lay.n])
	if v.reg != nil {
		copy(dst[v.lay.n:], v.m.Regression.Beta)
	}
}

// load sets the parameters, and with a root regression the rows' priors.
func (v *paramVector) load(src []float64) {
	v.lay.load(src[:v.lay.n])
	if v.reg != nil {
		copy(v.m.Regression.Beta, src[v.lay.n:])
		v.reg.update(v.m)
	}
}

func (v *paramVector) project(p, ref []float64) { v.lay.project(p[:v.lay.n], ref[:v.lay.n]) }

// keepFrac is the smallest fraction of its value at θ2 that an entry keeps
// in a projected SQUAREM point.
const keepFrac = 0.3

// projFloor is the smallest probability of a projected SQUAREM point.
const projFloor = 1e-10

// layout views a discrete model's parameters (prior and CPTs) as one
// vector of distributions (rows).
type layout struct {
	segs [][]float64 // the model's slices, written in place by mstep
	k    []int       // row length of each
	n    int
}

func newLayout(m *Model) *layout {
	l := &layout{}
	add := func(s []float64, k int) {
		l.segs = append(l.segs, s)
		l.k = append(l.k, k)
		l.n += len(s)
	}
	add(m.Prior, len(m.Prior))
	for _, v := range m.Rooted().Order {
		if v != m.Root {
			add(m.CPT[v], m.States[v])
		}
	}
	return l
}

func (l *layout) save(dst []float64) {
	o := 0
	for _, s := range l.segs {
		o += copy(dst[o:], s)
	}
}

func (l *layout) load(src []float64) {
	o := 0
	for _, s := range l.segs {
		o += copy(s, src[o:])
	}
}

// project makes p (laid out as l) valid distributions: every entry is
// raised to at least keepFrac times its value in ref (the plain EM point
// θ2) and at least projFloor, and every row renormalised.
func (l *layout) project(p, ref []float64) {
	o := 0
	for i, s := range l.segs {
		k := l.k[i]
		for a := o; a < o+len(s); a += k {
			row := p[a : a+k]
			sum := 0.0
			for x := range row {
				if lo := max(projFloor, keepFrac*ref[a+x]); !(row[x] >= lo) {
					row[x] = lo
				}
				sum += row[x]
			}
			for x := range row {
				row[x] /= sum
			}
		}
		o += len(s)
	}
}

// logParams returns Σ log θ over the prior and every CPT entry (−Inf if
// any is 0), the log-prior of the pseudo-count objective.
func (m *Model) logParams() float64 {
	s := 0.0
	for _, x := range m.Prior {
		s += math.Log(x)
	}
	for _, v := range m.Rooted().Order {
		if v != m.Root {
			for _, x := range m.CPT[v] {
				s += math.Log(x)
			}
		}
	}
	return s
}
