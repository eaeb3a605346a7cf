package mixed

import (
	"errors"
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
)

// Expected holds the expected sufficient statistics of rows under a model
// (the E-step of EM), indexed by node identifier like the parameters.
// Expected values are mergeable with Add (map-reduce EM).
type Expected struct {
	// LogLik is the log-likelihood of the rows (−Inf when some row has
	// probability 0), Rows their number (or total weight), Impossible
	// the number of rows of probability 0 (left out of the sums).
	LogLik     float64
	Rows       float64
	Impossible int
	// Counts[v] of a discrete node: for the root, the expected count of
	// each state; otherwise of each (parent state a, state b) at
	// a*States[v]+b, like CPT.
	Counts [][]float64
	// For a continuous node v with a discrete parent p, per parent state
	// a: W[v][a] = Σ_rows P(p=a | row), S1[v][a] = Σ P(p=a | row)·E[v |
	// p=a, row], S2[v][a] = Σ P(p=a | row)·E[v² | p=a, row]. For a
	// continuous node with a continuous parent or a continuous root,
	// W[v], S1[v], S2[v] have one entry: Σ 1, Σ E[v | row], Σ E[v² |
	// row].
	W, S1, S2 [][]float64
	// For a continuous node v with a continuous parent p: P1[v] = Σ E[p
	// | row], P2[v] = Σ E[p² | row], Cross[v] = Σ E[v·p | row].
	P1, P2, Cross []float64
}

// NewExpected returns zero statistics shaped for m.
func (m *Model) NewExpected() *Expected {
	n := m.Tree.MaxID()
	x := &Expected{Counts: make([][]float64, n), W: make([][]float64, n), S1: make([][]float64, n), S2: make([][]float64, n),
		P1: make([]float64, n), P2: make([]float64, n), Cross: make([]float64, n)}
	r := m.Rooted()
	for _, v := range r.Order {
		p := r.Parent[v]
		switch {
		case m.Kinds[v] == data.Discrete && p < 0:
			x.Counts[v] = make([]float64, m.States[v])
		case m.Kinds[v] == data.Discrete:
			x.Counts[v] = make([]float64, m.States[p]*m.States[v])
		default:
			k := 1
			if p >= 0 && m.Kinds[p] == data.Discrete {
				k = m.States[p]
			}
			x.W[v], x.S1[v], x.S2[v] = make([]float64, k), make([]float64, k), make([]float64, k)
		}
	}
	return x
}

// Add adds o's statistics to e's; they must have the same shape (the
// statistics of the same model structure).
func (e *Expected) Add(o *Expected) error {
	if o == nil {
		return errors.New("mixed: no statistics to add")
	}
	if len(e.Counts) != len(o.Counts) || len(e.W) != len(o.W) || len(e.S1) != len(o.S1) || len(e.S2) != len(o.S2) ||
		len(e.P1) != len(o.P1) || len(e.P2) != len(o.P2) || len(e.Cross) != len(o.Cross) {
		return errors.New("mixed: statistics of different models (node counts differ)")
	}
	for _, f := range [][2][][]float64{{e.Counts, o.Counts}, {e.W, o.W}, {e.S1, o.S1}, {e.S2, o.S2}} {
		for v := range f[0] {
			if len(f[0][v]) != len(f[1][v]) {
				return fmt.Errorf("mixed: statistics of different models (node %d has %d and %d entries)", v, len(f[0][v]), len(f[1][v]))
			}
		}
	}
	e.LogLik += o.LogLik
	e.Rows += o.Rows
	e.Impossible += o.Impossible
	for _, f := range [][2][][]float64{{e.Counts, o.Counts}, {e.W, o.W}, {e.S1, o.S1}, {e.S2, o.S2}} {
		for v := range f[0] {
			addTo(f[0][v], f[1][v])
		}
	}
	addTo(e.P1, o.P1)
	addTo(e.P2, o.P2)
	addTo(e.Cross, o.Cross)
	return nil
}

func addTo(dst, src []float64) {
	for i, x := range src {
		dst[i] += x
	}
}

// EStep returns the expected sufficient statistics of the rows of d
// (missing cells of either kind marginalised). Results do not depend on
// opt.Workers.
func (m *Model) EStep(d *data.Dataset, opt model.InferOptions) (*Expected, error) {
	e, b, err := m.prepare(d)
	if err != nil {
		return nil, err
	}
	return e.estep(b, opt.Workers), nil
}

// estep is EStep on bound data.
func (e *engine) estep(b *binding, workers int) *Expected {
	m := e.m
	parts := make([]*Expected, (b.rows+blockRows-1)/blockRows)
	e.forRows(b.rows, workers, func(w *work, ch, r0, r1 int) {
		x := m.NewExpected()
		for r := r0; r < r1; r++ {
			wt := b.wt(r)
			if wt == 0 {
				continue
			}
			x.Rows += wt
			e.load(b, w, r)
			ll := e.upward(w)
			if math.IsInf(ll, -1) {
				x.Impossible++
				x.LogLik = math.Inf(-1)
				continue
			}
			x.LogLik += wt * ll
			e.downward(w, false)
			e.accumulate(w, x, wt)
		}
		parts[ch] = x
	})
	total := m.NewExpected()
	for _, x := range parts {
		total.Add(x) // same shape by construction
	}
	return total
}

// accumulate adds one row's expected statistics (after upward and
// downward), times the row's weight wt, to x.
func (e *engine) accumulate(w *work, x *Expected, wt float64) {
	m := e.m
	for _, v := range e.disc {
		p := e.parent[v]
		cnt := x.Counts[v]
		if p < 0 {
			for s, q := range w.bel[v] {
				cnt[s] += wt * q
			}
			continue
		}
		lam, pi := w.lam[v], w.pi[v]
		k := len(lam)
		if o := w.ev[v]; o >= 0 && e.leaf[v] {
			// An observed leaf (see downward): only column o.
			z := pi[o] / wt
			if !(z > 0) {
				continue
			}
			cpt := m.CPT[v]
			for a, d := range w.down[v] {
				if d != 0 {
					cnt[a*k+o] += d / z * cpt[a*k+o]
				}
			}
			continue
		}
		z := 0.0
		for s := range lam {
			z += pi[s] * lam[s]
		}
		z /= wt
		if !(z > 0) {
			continue
		}
		cpt := m.CPT[v]
		for a, d := range w.down[v] {
			if d == 0 {
				continue
			}
			f := d / z
			for s := range k {
				cnt[a*k+s] += f * cpt[a*k+s] * lam[s]
			}
		}
	}
	for bi := range e.blocks {
		bl := &e.blocks[bi]
		top := bl.top
		for a, wa := range parentWeights(bl, w) {
			if wa == 0 {
				continue
			}
			wa *= wt
			e.blockPost(bl, w, a)
			mt := w.mean[top]
			x.W[top][a] += wa
			x.S1[top][a] += wa * mt
			x.S2[top][a] += wa * (w.vr[top] + mt*mt)
			for _, v := range bl.nodes[1:] {
				p := e.parent[v]
				mv, mp := w.mean[v], w.mean[p]
				x.W[v][0] += wa
				x.S1[v][0] += wa * mv
				x.S2[v][0] += wa * (w.vr[v] + mv*mv)
				x.P1[v] += wa * mp
				x.P2[v] += wa * (w.vr[p] + mp*mp)
				x.Cross[v] += wa * (w.cp[v] + mv*mp)
			}
		}
	}
}

// VarFloor is the smallest variance the M-step gives a continuous node,
// relative to the node's marginal variance estimated from the statistics
// (for an observed node with no missing cells, its column's variance).
const VarFloor = 1e-6

// minWeight is the expected count below which the M-step keeps a
// parameter's old value (no information about it).
const minWeight = 1e-10

// MStep sets m's parameters to the maximisers of the expected complete-data
// log-likelihood given e (computed under m): normalised counts for the
// prior and CPTs, weighted means and variances per parent state for
// continuous nodes under discrete parents, weighted least squares for
// continuous nodes under continuous parents. A table row or state with no
// expected count keeps its old value. Variances are raised to at least
// VarFloor times the node's marginal variance; floored lists the nodes
// raised. Hidden continuous nodes are then re-standardised to marginal
// mean 0 and variance 1 (their children's Mean and Coef absorb the
// change, so the likelihood is unchanged).
func (m *Model) MStep(e *Expected) (floored []int, err error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := m.NewExpected().Add(e); err != nil {
		return nil, err
	}
	floored = m.maximise(e)
	m.standardise()
	return floored, m.Validate()
}

// maximise is the M-step without the re-standardisation.
func (m *Model) maximise(e *Expected) (floored []int) {
	r := m.Rooted()
	for _, v := range r.Order {
		p := r.Parent[v]
		if m.Kinds[v] == data.Discrete {
			k := m.States[v]
			dst := m.Prior
			if p >= 0 {
				dst = m.CPT[v]
			}
			cnt := e.Counts[v]
			for a := 0; a < len(cnt)/k; a++ {
				normInto(dst[a*k:(a+1)*k], cnt[a*k:(a+1)*k])
			}
			continue
		}
		W, S1, S2 := e.W[v], e.S1[v], e.S2[v]
		floor := VarFloor * marginalVar(W, S1, S2)
		low := false
		if p >= 0 && m.Kinds[p] == data.Continuous {
			w := W[0]
			if !(w > minWeight) {
				continue
			}
			mp, mv := e.P1[v]/w, S1[0]/w
			spp := e.P2[v]/w - mp*mp
			svp := e.Cross[v]/w - mv*mp
			svv := S2[0]/w - mv*mv
			b := 0.0
			if spp > 1e-12*(e.P2[v]/w) {
				b = svp / spp
			}
			vr := svv - b*svp
			if !(vr >= floor) {
				vr, low = floor, true
			}
			m.Mean[v][0], m.Coef[v], m.Var[v][0] = mv-b*mp, b, vr
		} else {
			for a, w := range W {
				if !(w > minWeight) {
					continue
				}
				mu := S1[a] / w
				vr := S2[a]/w - mu*mu
				if !(vr >= floor) {
					vr, low = floor, true
				}
				m.Mean[v][a], m.Var[v][a] = mu, vr
			}
		}
		if low {
			floored = append(floored, v)
		}
	}
	return floored
}

// normInto sets dst to cnt normalised, unless cnt sums to nothing.
func normInto(dst, cnt []float64) {
	s := 0.0
	for _, x := range cnt {
		s += x
	}
	if !(s > 0) || math.IsInf(s, 0) {
		return
	}
	for i, x := range cnt {
		dst[i] = x / s
	}
}

// marginalVar is the variance of a node from its statistics summed over
// its parent's states; a positive stand-in when they have none.
func marginalVar(W, S1, S2 []float64) float64 {
	var w, s1, s2 float64
	for a := range W {
		w, s1, s2 = w+W[a], s1+S1[a], s2+S2[a]
	}
	if !(w > 0) {
		return 1
	}
	mu := s1 / w
	v := s2/w - mu*mu
	if !(v > 0) {
		// A constant column: a floor relative to its size.
		return 1e-6 * (1 + mu*mu)
	}
	return v
}

// marginals returns the marginal distribution of every discrete node and
// the marginal mean and variance of every continuous node, indexed by node
// identifier.
func (m *Model) marginals() (prob [][]float64, mean, variance []float64) {
	r := m.Rooted()
	n := m.Tree.MaxID()
	prob, mean, variance = make([][]float64, n), make([]float64, n), make([]float64, n)
	for _, v := range r.Order {
		p := r.Parent[v]
		switch {
		case m.Kinds[v] == data.Discrete && p < 0:
			prob[v] = append([]float64(nil), m.Prior...)
		case m.Kinds[v] == data.Discrete:
			k := m.States[v]
			q := make([]float64, k)
			for a, pa := range prob[p] {
				for s := range k {
					q[s] += pa * m.CPT[v][a*k+s]
				}
			}
			prob[v] = q
		case p < 0:
			mean[v], variance[v] = m.Mean[v][0], m.Var[v][0]
		case m.Kinds[p] == data.Discrete:
			var s1, s2 float64
			for a, pa := range prob[p] {
				mu := m.Mean[v][a]
				s1 += pa * mu
				s2 += pa * (m.Var[v][a] + mu*mu)
			}
			mean[v], variance[v] = s1, max(0, s2-s1*s1)
		default:
			c := m.Coef[v]
			mean[v] = m.Mean[v][0] + c*mean[p]
			variance[v] = c*c*variance[p] + m.Var[v][0]
		}
	}
	return prob, mean, variance
}

// standardise rescales every hidden continuous node to marginal mean 0
// and variance 1, moving the change into its children's Mean and Coef:
// the distribution of the observed nodes is unchanged.
func (m *Model) standardise() {
	_, mean, variance := m.marginals()
	r := m.Rooted()
	t := m.Tree
	for _, h := range r.Order {
		if m.Kinds[h] != data.Continuous || !t.IsHidden(h) || !(variance[h] > 0) {
			continue
		}
		mu, sd := mean[h], math.Sqrt(variance[h])
		for a := range m.Mean[h] {
			m.Mean[h][a] = (m.Mean[h][a] - mu) / sd
			m.Var[h][a] /= variance[h]
		}
		m.Coef[h] /= sd
		for _, c := range r.Children[h] {
			m.Mean[c][0] += m.Coef[c] * mu
			m.Coef[c] *= sd
		}
	}
}
