package noisyor

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Posteriors returns P(source s is on | row r) for every row r of b and
// every source s (Posteriors[r][s], sources in the network's order),
// computed as LogLikelihood computes the row's probability: exactly by
// enumeration of each component's source states (or quickscore with the
// source clamped on), or, beyond opt.MaxExact, by self-normalised
// importance sampling. A source that is the parent of no positive finding
// of the row has the closed-form posterior p·g/(1 − p + p·g), g the
// product of its failures to the row's negative findings. A row with
// probability 0 has NaN posteriors.
func (n *Network) Posteriors(b *Binary, opt LikOptions) ([][]float64, error) {
	opt.Posteriors = true
	l, err := n.LogLikelihood(b, opt)
	if err != nil {
		return nil, err
	}
	return l.Posteriors, nil
}

// likComponent is one connected component of a row: the sources that are
// parents of the row's positive findings, coupled by shared positive
// findings. Sources and positives have local indices; a positive's parents
// are in increasing local order.
type likComponent struct {
	srcs     []int32 // global source indices, in enumeration order
	k, np    int     // number of sources, of positive findings
	pi1, pi0 []float64
	leak     []float64 // per positive: ν
	leakOff  []float64 // per positive: 1 − ν
	// Parents of positive j: paSrc[paStart[j]:paStart[j+1]] (local), paF.
	paStart []int32
	paSrc   []int32
	paF     []float64
	// Children of source d among the positives: chPos[chStart[d]:chStart[d+1]], chF.
	chStart []int32
	chPos   []int32
	chF     []float64
	// Positives whose last parent is source d: fin[finStart[d]:finStart[d+1]].
	finStart []int32
	fin      []int32
	next     []int32 // scratch
	last     []int32 // scratch: per positive
	order    []int32 // scratch: per source
	tmpSrc   []int32
	picked   []bool // scratch: per source
	wantPost bool
	postv    []float64 // per source: P(on | row), filled by eval

	// Enumeration: per positive, F = ∏_{on} f and 1 − F.
	fj, cj, save, save2 []float64
	onMass              []scaled
	// Quickscore.
	fprod, fsave, fac, pre []dd
	qp0, qp1               []dd // π0, π1 normalised in double-double
	touched                []int32
	qsSum                  dd
	qsAbs                  float64
	num                    []dd
	numAbs                 []float64
	// Importance sampling.
	qv, sx, dp, dq, mj, logNu []float64
	free, fixedOn, on         []int32
	stamp, hit                []int32
	drawPi, drawQ             bernoulliSet
}

// build fills the component for the row being computed by w from its
// sources (c.srcs, whose local indices are in w.local) and positives pos.
// For enumeration, the sources are reordered so that positive findings
// are complete (all their parents decided) as early as possible.
func (c *likComponent) build(w *likWorker, pos []int32, wantPost bool) {
	e := w.e
	c.k, c.np, c.wantPost = len(c.srcs), len(pos), wantPost
	k, np := c.k, c.np
	c.leak, c.leakOff = resize(c.leak, np), resize(c.leakOff, np)
	for j, a := range pos {
		c.leak[j], c.leakOff[j] = e.n.LeakOf(int(a)), e.leakOff[a]
	}
	c.edges(w, pos)
	if k > 2 && k < 40 && c.reorder() {
		for i, s := range c.srcs {
			w.local[s] = int32(i)
		}
		c.edges(w, pos)
	}
	c.pi1, c.pi0, c.postv = resize(c.pi1, k), resize(c.pi0, k), resize(c.postv, k)
	for i, s := range c.srcs {
		c.pi1[i], c.pi0[i] = w.pi1[s], w.pi0[s]
	}
	// Positives by their last parent.
	c.finStart = resizeInt(c.finStart, k+1)
	clear(c.finStart)
	c.last = resizeInt(c.last, np)
	for j := range np {
		last := int32(0)
		for h := c.paStart[j]; h < c.paStart[j+1]; h++ {
			last = max(last, c.paSrc[h])
		}
		c.last[j] = last
		c.finStart[last+1]++
	}
	for d := range k {
		c.finStart[d+1] += c.finStart[d]
	}
	c.fin = resizeInt(c.fin, np)
	c.next = resizeInt(c.next, k)
	next := c.next
	copy(next, c.finStart[:k])
	for j := range np {
		c.fin[next[c.last[j]]] = int32(j)
		next[c.last[j]]++
	}
}

// edges fills the parents of every positive and the children of every
// source, in local indices.
func (c *likComponent) edges(w *likWorker, pos []int32) {
	e := w.e
	k, np := c.k, c.np
	c.paStart = resizeInt(c.paStart, np+1)
	c.paSrc, c.paF = c.paSrc[:0], c.paF[:0]
	c.chStart = resizeInt(c.chStart, k+1)
	clear(c.chStart)
	for j, a := range pos {
		c.paStart[j] = int32(len(c.paSrc))
		for _, p := range e.parents[a] {
			l := w.local[p.Source]
			c.paSrc = append(c.paSrc, l)
			c.paF = append(c.paF, p.Failure)
			c.chStart[l+1]++
		}
	}
	edges := len(c.paSrc)
	c.paStart[np] = int32(edges)
	for d := range k {
		c.chStart[d+1] += c.chStart[d]
	}
	c.chPos, c.chF = resizeInt(c.chPos, edges), resize(c.chF, edges)
	c.next = resizeInt(c.next, k)
	fill := c.next
	copy(fill, c.chStart[:k])
	for j := range np {
		for h := c.paStart[j]; h < c.paStart[j+1]; h++ {
			l := c.paSrc[h]
			c.chPos[fill[l]] = int32(j)
			c.chF[fill[l]] = c.paF[h]
			fill[l]++
		}
	}
}

// reorder orders c.srcs greedily: next the source that completes the most
// positives, then the one that starts the fewest new ones. It reports
// whether the order changed.
func (c *likComponent) reorder() bool {
	k := c.k
	c.last = resizeInt(c.last, c.np) // parents not yet decided
	for j := range c.np {
		c.last[j] = c.paStart[j+1] - c.paStart[j]
	}
	c.order = resizeInt(c.order, k)
	c.picked = c.picked[:0]
	for range k {
		c.picked = append(c.picked, false)
	}
	changed := false
	for step := range k {
		best, bestDone, bestNew := -1, -1, 0
		for t := range k {
			if c.picked[t] {
				continue
			}
			done, fresh := 0, 0
			for i := c.chStart[t]; i < c.chStart[t+1]; i++ {
				j := c.chPos[i]
				if c.last[j] == 1 {
					done++
				}
				if c.last[j] == c.paStart[j+1]-c.paStart[j] {
					fresh++
				}
			}
			if done > bestDone || (done == bestDone && fresh < bestNew) {
				best, bestDone, bestNew = t, done, fresh
			}
		}
		c.picked[best] = true
		c.order[step] = int32(best)
		changed = changed || best != step
		for i := c.chStart[best]; i < c.chStart[best+1]; i++ {
			c.last[c.chPos[i]]--
		}
	}
	if !changed {
		return false
	}
	c.tmpSrc = c.tmpSrc[:0]
	for _, t := range c.order {
		c.tmpSrc = append(c.tmpSrc, c.srcs[t])
	}
	c.srcs, c.tmpSrc = c.tmpSrc, c.srcs
	return true
}

// eval returns the log of the component's factor of the row's probability,
// E_π[∏_{a positive}(1 − (1−ν_a)∏_{X on} f_{X,a})] over the sources'
// posteriors π given the negatives, with its standard error (0 when
// exact), and fills postv when asked.
func (c *likComponent) eval(w *likWorker) (logv, se float64, method int) {
	maxE := float64(w.e.opt.MaxExact)
	enumOK := c.k < 62 && math.Ldexp(1, c.k) <= maxE
	qsOK := c.np < 62 && math.Ldexp(float64(c.k+1), c.np) <= maxE
	preferQS := qsOK && (!enumOK || math.Ldexp(float64(c.k+1)*16, c.np) < math.Ldexp(1, c.k))
	if preferQS {
		if v, ok := c.quickscore(); ok {
			return v, 0, byQuickscore
		}
	}
	if enumOK {
		return c.enumerate(), 0, byEnumeration
	}
	v, se := c.sample(w.rand(), w.e.opt.Samples)
	return v, se, bySampling
}

// How a component was computed.
const (
	byEnumeration = iota
	byQuickscore
	bySampling
)

// scaled is v·2^e: products of many probabilities that would underflow a
// float64 keep their binary exponent apart.
type scaled struct {
	v float64
	e int
}

const (
	scaleLow  = 0x1p-256
	scaleUp   = 0x1p256
	scaleBits = 256
)

func (x scaled) mul(f float64) scaled {
	x.v *= f
	if x.v < scaleLow && x.v != 0 {
		x.v *= scaleUp
		x.e -= scaleBits
	}
	return x
}

func (x scaled) add(y scaled) scaled {
	switch {
	case y.v == 0:
		return x
	case x.v == 0:
		return y
	case x.e == y.e:
		x.v += y.v
		return x
	case x.e < y.e:
		x, y = y, x
	}
	x.v += math.Ldexp(y.v, y.e-x.e)
	return x
}

func (x scaled) log() float64 { return math.Log(x.v) + float64(x.e)*math.Ln2 }

// ratio returns x/y.
func (x scaled) ratio(y scaled) float64 { return math.Ldexp(x.v/y.v, x.e-y.e) }

// enumerate sums the component's 2^k source states depth first: the
// sources are decided in local order, and each positive finding's factor
// is multiplied in as soon as its last parent is decided. The factor
// 1 − (1−ν)F, F = ∏_{on} f, is formed as ν + (1−ν)(1−F), with 1 − F kept
// alongside F by (1 − Ff) = (1 − F) + F(1 − f), so that it has no
// cancellation when ν is small and F near 1.
func (c *likComponent) enumerate() float64 {
	c.fj, c.cj = resize(c.fj, c.np), resize(c.cj, c.np)
	for j := range c.np {
		c.fj[j], c.cj[j] = 1, 0
	}
	c.save, c.save2 = resize(c.save, len(c.chPos)), resize(c.save2, len(c.chPos))
	if c.wantPost {
		c.onMass = c.onMass[:0]
		for range c.k {
			c.onMass = append(c.onMass, scaled{})
		}
	}
	total := c.enum(0, scaled{v: 1}) // k ≥ 1
	if total.v == 0 {
		return math.Inf(-1)
	}
	if c.wantPost {
		for d := range c.k {
			c.postv[d] = min(1, c.onMass[d].ratio(total))
		}
	}
	return total.log()
}

// enum returns the sum, over the states of sources d.., of the weight w of
// the decided part times the rest.
func (c *likComponent) enum(d int, w scaled) scaled {
	fin := c.fin[c.finStart[d]:c.finStart[d+1]]
	last := d == c.k-1
	var on, off scaled
	if p := c.pi1[d]; p > 0 {
		lo, hi := c.chStart[d], c.chStart[d+1]
		for i := lo; i < hi; i++ {
			j := c.chPos[i]
			c.save[i], c.save2[i] = c.fj[j], c.cj[j]
			c.cj[j] += c.fj[j] * (1 - c.chF[i])
			c.fj[j] *= c.chF[i]
		}
		on = c.finish(w, p, fin)
		if on.v != 0 && !last {
			on = c.enum(d+1, on)
		}
		for i := lo; i < hi; i++ {
			j := c.chPos[i]
			c.fj[j], c.cj[j] = c.save[i], c.save2[i]
		}
		if c.wantPost {
			c.onMass[d] = c.onMass[d].add(on)
		}
	}
	if p := c.pi0[d]; p > 0 {
		off = c.finish(w, p, fin)
		if off.v != 0 && !last {
			off = c.enum(d+1, off)
		}
	}
	return on.add(off)
}

// finish returns w·p times the factors ν + (1−ν)(1−F) of the positives
// fin, which are complete.
func (c *likComponent) finish(w scaled, p float64, fin []int32) scaled {
	for _, j := range fin {
		p *= c.leak[j] + c.leakOff[j]*c.cj[j]
		if p < scaleLow {
			w = w.mul(p)
			p = 1
		}
	}
	return w.mul(p)
}

// dd is a double-double number hi + lo (about 106 bits), for quickscore's
// alternating sums.
type dd struct{ hi, lo float64 }

// twoSum returns s = fl(a+b) and the rounding error e, a+b = s+e exactly.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// quickTwoSum returns a+b as a normalised dd, given |a| ≥ |b|.
func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func (x dd) add(y dd) dd {
	s, e := twoSum(x.hi, y.hi)
	t, f := twoSum(x.lo, y.lo)
	e += t
	r := quickTwoSum(s, e)
	return quickTwoSum(r.hi, r.lo+f)
}

func (x dd) mul(y dd) dd {
	p := x.hi * y.hi
	e := math.FMA(x.hi, y.hi, -p)
	e += x.hi*y.lo + x.lo*y.hi
	return quickTwoSum(p, e)
}

func (x dd) mulF(y float64) dd {
	p := x.hi * y
	e := math.FMA(x.hi, y, -p)
	e += x.lo * y
	return quickTwoSum(p, e)
}

// ddDiv returns a/b.
func ddDiv(a float64, b dd) dd {
	q1 := a / b.hi
	r := dd{a, 0}.add(b.mulF(q1).neg())
	return quickTwoSum(q1, r.hi/b.hi)
}

func (x dd) neg() dd { return dd{-x.hi, -x.lo} }

// quickscore computes the component's factor by inclusion–exclusion over
// the subsets S of its positive findings,
// Σ_S (−1)^|S| ∏_{a∈S}(1−ν_a) ∏_X (π0_X + π1_X ∏_{a∈S} f_{X,a}),
// in double-double arithmetic. The inputs (π, f, ν) enter as float64, so
// the sum is accurate whenever double-double rounding is small against
// the cancellation: it reports false when the rounding-error bound, at
// most (3k + 2p + 8)·2^−100 per unit of Σ_S |term| (a generous bound for
// the double-double operations), exceeds quickscoreTol of the sum, or,
// for posteriors, of a posterior's absolute error. The inputs' own
// rounding moves the result by a few units of float64 rounding per source,
// as it does for enumeration (every input enters multilinearly with
// positive weights).
func (c *likComponent) quickscore() (float64, bool) {
	k := c.k
	c.fprod, c.fsave = resizeDD(c.fprod, k), resizeDD(c.fsave, len(c.paSrc))
	c.fac, c.pre = resizeDD(c.fac, k), resizeDD(c.pre, k)
	c.touched = resizeInt(c.touched, k)
	c.qp0, c.qp1 = resizeDD(c.qp0, k), resizeDD(c.qp1, k)
	for t := range k {
		c.fprod[t] = dd{1, 0}
		c.touched[t] = 0
		// Inclusion–exclusion needs π0 + π1 = 1: normalise in
		// double-double, a relative change of the inputs of about 2^−53.
		z := quickTwoSum(twoSum(c.pi0[t], c.pi1[t]))
		c.qp0[t], c.qp1[t] = ddDiv(c.pi0[t], z), ddDiv(c.pi1[t], z)
	}
	c.qsSum, c.qsAbs = dd{}, 0
	if c.wantPost {
		c.num = resizeDD(c.num, k)
		clear(c.num)
		c.numAbs = resize(c.numAbs, k)
		clear(c.numAbs)
	}
	c.qs(0, false, dd{1, 0})
	gamma := float64(3*k+2*c.np+8) * 0x1p-100
	sum := c.qsSum.hi + c.qsSum.lo
	bound := gamma * c.qsAbs
	if !(sum > 0) || bound > quickscoreTol*sum {
		return 0, false
	}
	if c.wantPost {
		for t := range k {
			p := (c.num[t].hi + c.num[t].lo) / sum
			if err := (gamma*c.numAbs[t] + math.Abs(p)*bound) / sum; err > quickscoreTol {
				return 0, false
			}
			c.postv[t] = min(1, max(0, p))
		}
	}
	return math.Log(sum), true
}

// qs adds the terms of the subsets that extend the decision on positives
// 0..j−1 (odd: |S| is odd; lf: ∏_{a∈S}(1−ν_a); fprod holds ∏_{a∈S} f per
// source, touched whether S has a child of the source).
func (c *likComponent) qs(j int, odd bool, lf dd) {
	if j == c.np {
		prod := lf
		for t := range c.k {
			f := dd{1, 0}
			if c.touched[t] > 0 {
				f = c.fprod[t].mul(c.qp1[t]).add(c.qp0[t])
			}
			c.fac[t] = f
			prod = prod.mul(f)
		}
		if odd {
			c.qsSum = c.qsSum.add(prod.neg())
		} else {
			c.qsSum = c.qsSum.add(prod)
		}
		c.qsAbs += prod.hi
		if c.wantPost {
			p := lf
			for t := range c.k {
				c.pre[t] = p
				p = p.mul(c.fac[t])
			}
			suf := dd{1, 0}
			for t := c.k - 1; t >= 0; t-- {
				term := c.pre[t].mul(suf).mul(c.fprod[t]).mul(c.qp1[t])
				if odd {
					term = term.neg()
				}
				c.num[t] = c.num[t].add(term)
				c.numAbs[t] += math.Abs(term.hi)
				suf = suf.mul(c.fac[t])
			}
		}
		return
	}
	c.qs(j+1, odd, lf)
	lo, hi := c.paStart[j], c.paStart[j+1]
	for h := lo; h < hi; h++ {
		t := c.paSrc[h]
		c.fsave[h] = c.fprod[t]
		c.fprod[t] = c.fprod[t].mulF(c.paF[h])
		c.touched[t]++
	}
	c.qs(j+1, !odd, lf.mulF(c.leakOff[j]))
	for h := lo; h < hi; h++ {
		t := c.paSrc[h]
		c.fprod[t] = c.fsave[h]
		c.touched[t]--
	}
}

// sample estimates the component's factor by importance sampling (see
// LogLikelihood) and returns its log and the log's standard error; the
// posteriors are self-normalised estimates. Sources whose posterior given
// the negatives is 0 or 1 are fixed; the others are drawn from the
// defensive mixture. A draw costs time proportional to the number of
// sources drawn on and their positive children, not to k.
func (c *likComponent) sample(rng *rand.Rand, nsamp int) (float64, float64) {
	k := c.k
	b := c.sampleSetup()
	big := math.Inf(-1)
	var sum, sum2 float64
	for it := range nsamp {
		lw, ok := c.logWeight(rng, it, &b)
		if !ok {
			continue
		}
		if lw > big {
			r := math.Exp(big - lw)
			sum *= r
			sum2 *= r * r
			for _, t := range c.free {
				c.sx[t] *= r
			}
			big = lw
		}
		wt := math.Exp(lw - big)
		sum += wt
		sum2 += wt * wt
		for _, t := range c.on {
			c.sx[t] += wt
		}
	}
	if sum == 0 {
		return math.Inf(-1), math.Inf(1)
	}
	n := float64(nsamp)
	rel := math.Sqrt(max(0, sum2*n/(sum*sum)-1) / (n - 1))
	if c.wantPost {
		for t := range k {
			c.postv[t] = c.pi1[t] // 0 or 1 for the fixed sources
		}
		for _, t := range c.free {
			c.postv[t] = min(1, c.sx[t]/sum)
		}
	}
	return big + math.Log(sum/n), rel
}

// sampleBase holds the log-weight of a draw with every free source off,
// under the posterior given the negatives (p) and the proposal (q), and
// the positives' leak factors (nu, over the zeroNu positives with a
// nonzero leak not counted).
type sampleBase struct {
	p, q, nu     float64
	zeroNu       int
	lmix, lprior float64 // log of the mixture's weights
}

// sampleSetup prepares the draws of sample: the proposal, the fixed and
// free sources, each free source's change of the log-weights when on,
// and the positives' leak factors.
func (c *likComponent) sampleSetup() sampleBase {
	k, np := c.k, c.np
	c.proposal()
	c.free, c.fixedOn = c.free[:0], c.fixedOn[:0]
	c.dp, c.dq = resize(c.dp, k), resize(c.dq, k)
	var b sampleBase
	for t := range k {
		switch {
		case c.pi1[t] == 0:
		case c.pi0[t] == 0:
			c.fixedOn = append(c.fixedOn, int32(t))
		default:
			c.free = append(c.free, int32(t))
			lp0, lq0 := math.Log(c.pi0[t]), math.Log1p(-c.qv[t])
			b.p += lp0
			b.q += lq0
			c.dp[t] = math.Log(c.pi1[t]) - lp0
			c.dq[t] = math.Log(c.qv[t]) - lq0
		}
	}
	c.drawPi.init(c.pi1, c.free)
	c.drawQ.init(c.qv, c.free)
	// Positives: with no parent on, a positive's factor is ν.
	c.logNu = resize(c.logNu, np)
	for j := range np {
		if c.leak[j] == 0 {
			b.zeroNu++
			c.logNu[j] = 0
			continue
		}
		c.logNu[j] = math.Log(c.leak[j])
		b.nu += c.logNu[j]
	}
	c.fj, c.cj = resize(c.fj, np), resize(c.cj, np)
	c.stamp = resizeInt(c.stamp, np)
	for j := range np {
		c.stamp[j] = -1
	}
	clear(c.sx[:k])
	b.lmix, b.lprior = math.Log(defensiveMix), math.Log1p(-defensiveMix)
	return b
}

// logWeight draws draw number it from the defensive mixture into c.on
// and returns its log importance weight; false when the weight is 0.
func (c *likComponent) logWeight(rng *rand.Rand, it int, b *sampleBase) (float64, bool) {
	on := c.on[:0]
	if rng.Float64() < defensiveMix {
		on = c.drawQ.draw(rng, on)
	} else {
		on = c.drawPi.draw(rng, on)
	}
	c.on = on
	lp, lq := b.p, b.q
	for _, t := range on {
		lp += c.dp[t]
		lq += c.dq[t]
	}
	lw := lp - logAddExp(b.lmix+lq, b.lprior+lp)
	// The positives with a parent on.
	c.hit = c.hit[:0]
	stamp := int32(it)
	for _, list := range [2][]int32{on, c.fixedOn} {
		for _, t := range list {
			for i := c.chStart[t]; i < c.chStart[t+1]; i++ {
				j := c.chPos[i]
				if c.stamp[j] != stamp {
					c.stamp[j] = stamp
					c.fj[j], c.cj[j] = 1, 0
					c.hit = append(c.hit, j)
				}
				c.cj[j] += c.fj[j] * (1 - c.chF[i])
				c.fj[j] *= c.chF[i]
			}
		}
	}
	prod := scaled{v: 1}
	lnu := b.nu
	zero := b.zeroNu
	for _, j := range c.hit {
		prod = prod.mul(c.leak[j] + c.leakOff[j]*c.cj[j])
		if c.leak[j] == 0 {
			zero--
		} else {
			lnu -= c.logNu[j]
		}
	}
	if zero > 0 || prod.v == 0 {
		return 0, false // a positive with no cause: weight 0
	}
	lw += lnu + prod.log()
	if math.IsNaN(lw) || math.IsInf(lw, -1) {
		return 0, false
	}
	return lw, true
}

// proposal sets c.qv to a damped fixed point of each source's odds given
// its positive children, the other parents averaged under the current
// proposal: logit q_X = logit π_X + Σ_a log((1 − f_{X,a} m_a)/(1 − m_a)),
// m_a = (1−ν_a)∏_{Y≠X}(1 − q_Y + q_Y f_{Y,a}). Free sources' values are
// kept within [1e-9, 1 − 1e-9].
func (c *likComponent) proposal() {
	k, np := c.k, c.np
	c.qv, c.sx = resize(c.qv, k), resize(c.sx, k)
	c.mj = resize(c.mj, np)
	copy(c.qv, c.pi1)
	for range 50 {
		// m_j with every parent, recomputed each sweep against drift.
		for j := range np {
			m := c.leakOff[j]
			for h := c.paStart[j]; h < c.paStart[j+1]; h++ {
				q := c.qv[c.paSrc[h]]
				m *= 1 - q + q*c.paF[h]
			}
			c.mj[j] = m
		}
		change := 0.0
		for t := range k {
			if c.pi1[t] == 0 || c.pi0[t] == 0 {
				continue
			}
			qt := c.qv[t]
			lon, loff := math.Log(c.pi1[t]), math.Log(c.pi0[t])
			for i := c.chStart[t]; i < c.chStart[t+1]; i++ {
				j, f := c.chPos[i], c.chF[i]
				rest := c.others(j, int32(t), qt, f)
				lon += math.Log1p(-f * rest)
				loff += math.Log1p(-rest)
			}
			nq := 1 / (1 + math.Exp(loff-lon))
			if math.IsNaN(nq) {
				nq = c.pi1[t]
			}
			nq = min(1-1e-9, max(1e-9, 0.5*(nq+qt)))
			change = max(change, math.Abs(nq-qt))
			for i := c.chStart[t]; i < c.chStart[t+1]; i++ {
				j, f := c.chPos[i], c.chF[i]
				c.mj[j] = c.others(j, int32(t), qt, f) * (1 - nq + nq*f)
			}
			c.qv[t] = nq
		}
		if change < 1e-4 {
			break
		}
	}
}

// others returns m_j without source t's factor (t's proposal qt, failure
// f): by division when the factor is not small, else recomputed.
func (c *likComponent) others(j, t int32, qt, f float64) float64 {
	if own := 1 - qt + qt*f; own > 1e-3 {
		return c.mj[j] / own
	}
	m := c.leakOff[j]
	for h := c.paStart[j]; h < c.paStart[j+1]; h++ {
		if u := c.paSrc[h]; u != t {
			q := c.qv[u]
			m *= 1 - q + q*c.paF[h]
		}
	}
	return m
}

// bernoulliSet draws subsets of sources, each source t in it independently
// with probability r[t], in time proportional to the number of distinct
// binary exponents of the r plus twice the expected size of the subset:
// sources are grouped by r into buckets [2^(e−1), 2^e), candidates in a
// bucket are found by geometric jumps at rate 2^e and kept with
// probability r/2^e ≥ 1/2.
type bernoulliSet struct {
	r       []float64
	members []int32
	buckets []bernoulliBucket
	keys    []int64 // scratch: exponent<<32 | source
}

type bernoulliBucket struct {
	start, end int
	rate, logq float64 // rate and log(1 − rate)
}

// init prepares draws of the sources free with probabilities r.
func (bs *bernoulliSet) init(r []float64, free []int32) {
	bs.r = r
	bs.keys = bs.keys[:0]
	for _, t := range free {
		_, e := math.Frexp(r[t])
		bs.keys = append(bs.keys, int64(min(e, 1))<<32|int64(t))
	}
	slices.Sort(bs.keys)
	bs.members, bs.buckets = bs.members[:0], bs.buckets[:0]
	for i, key := range bs.keys {
		e := int(key >> 32)
		if i == 0 || e != int(bs.keys[i-1]>>32) {
			rate := math.Ldexp(1, e)
			bs.buckets = append(bs.buckets, bernoulliBucket{start: i, rate: rate, logq: math.Log1p(-rate)})
		}
		bs.members = append(bs.members, int32(key&0xffffffff))
		bs.buckets[len(bs.buckets)-1].end = i + 1
	}
}

// draw appends a subset to out.
func (bs *bernoulliSet) draw(rng *rand.Rand, out []int32) []int32 {
	for _, bk := range bs.buckets {
		if bk.rate >= 1 {
			for _, t := range bs.members[bk.start:bk.end] {
				if rng.Float64() < bs.r[t] {
					out = append(out, t)
				}
			}
			continue
		}
		i := bk.start - 1
		for {
			gap := math.Log(1-rng.Float64()) / bk.logq // failures before the next candidate
			if gap >= float64(bk.end-i-1) {
				break
			}
			i += int(gap) + 1
			t := bs.members[i]
			if rng.Float64()*bk.rate < bs.r[t] {
				out = append(out, t)
			}
		}
	}
	return out
}

// logAddExp returns log(exp(a) + exp(b)), −∞ when both are −∞.
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

func resize(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}

func resizeDD(x []dd, n int) []dd {
	if cap(x) < n {
		return make([]dd, n)
	}
	return x[:n]
}

func resizeInt(x []int32, n int) []int32 {
	if cap(x) < n {
		return make([]int32, n)
	}
	return x[:n]
}
