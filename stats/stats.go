package stats

import (
	"math"

	"github.com/latentree/latentree/data"
)

// Options configures Compute. The zero value computes everything with one
// goroutine per available CPU.
type Options struct {
	// Workers is the number of goroutines; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// NoPairs computes only counts, marginals, means and variances and
	// skips the pairwise tables and moments.
	NoPairs bool
	// MaxPairBytes bounds the memory of the pair statistics (8 bytes per
	// cell of every discrete pair table, plus the mixed and continuous
	// pairs): data whose pair statistics would take more are refused
	// before anything is allocated, with an error naming the limit. Zero
	// means DefaultMaxPairBytes; negative values are an error. Computing
	// from blocks (ComputeBlocks, ComputeSource) holds up to three such
	// sets at once while merging.
	MaxPairBytes int64
}

// contPair holds the pairwise-complete moments of two continuous variables
// i < j: the number of rows where both are observed, the means of i and j
// over those rows, their sums of squared deviations from those means, and
// the sum of cross products of deviations.
type contPair struct {
	n        int64
	mi, mj   float64
	m2i, m2j float64
	c        float64
}

// Stats holds the sufficient statistics of a dataset: counts, marginals,
// moments and, unless computed with Options.NoPairs, pairwise tables and
// moments. Build one with Compute, Merge shards into it, and read it through
// its methods. Variable indices are column indices of the dataset; like
// slice indices, an index outside [0, NumVars()) panics. Methods that read
// statistics may be called concurrently; Merge and UnmarshalJSON must not
// run concurrently with anything else on the same Stats.
type Stats struct {
	vars  []data.Variable
	index map[string]int
	rows  int64
	pairs bool

	count []int64   // per variable: rows where it is observed
	marg  [][]int64 // discrete: counts per state; nil for continuous
	mean  []float64 // continuous: mean over observed rows (0 if none)
	m2    []float64 // continuous: sum of squared deviations from mean

	lay layout

	dtab []int64    // discrete pair tables, concatenated (see layout)
	mixN []int64    // discrete position d × continuous position c: both observed
	cp   []contPair // continuous pairs a < b, triangular order

	// mixM holds the moments of each continuous variable within each state
	// of each discrete variable, over the rows where both are observed, at
	// mixIndex(d, x, c); only mi (the mean), m2i and n are used. hasMix is
	// false for pair statistics read from a file written before these
	// moments were kept (mixM is then nil); it is true without pairs and
	// when there are no discrete–continuous pairs.
	mixM   []contPair
	hasMix bool
}

// layout maps variables to their positions among the discrete and the
// continuous variables and locates the pair tables.
type layout struct {
	sub   []int   // variable j -> position among variables of its kind
	dvars []int   // discrete position -> variable
	cvars []int   // continuous position -> variable
	dcum  []int64 // prefix sums of the state counts of discrete positions
	dbase []int64 // offset of the tables of pairs (a, b>a); len D+1
}

// newLayout builds the layout for the given variables.
func newLayout(vars []data.Variable) layout {
	var l layout
	l.sub = make([]int, len(vars))
	for j, v := range vars {
		if v.Kind == data.Discrete {
			l.sub[j] = len(l.dvars)
			l.dvars = append(l.dvars, j)
		} else {
			l.sub[j] = len(l.cvars)
			l.cvars = append(l.cvars, j)
		}
	}
	nd := len(l.dvars)
	l.dcum = make([]int64, nd+1)
	for a, j := range l.dvars {
		l.dcum[a+1] = l.dcum[a] + int64(len(vars[j].States))
	}
	l.dbase = make([]int64, nd+1)
	total := l.dcum[nd]
	for a, j := range l.dvars {
		na := int64(len(vars[j].States))
		l.dbase[a+1] = l.dbase[a] + na*(total-l.dcum[a+1])
	}
	return l
}

// tableCells returns the total number of cells of the discrete pair tables.
func (l layout) tableCells() int64 { return l.dbase[len(l.dbase)-1] }

// states returns the number of states of discrete position a.
func (l *layout) states(a int) int { return int(l.dcum[a+1] - l.dcum[a]) }

// offset returns the offset of the table of discrete positions a < b.
func (l *layout) offset(a, b int) int64 {
	return l.dbase[a] + (l.dcum[a+1]-l.dcum[a])*(l.dcum[b]-l.dcum[a+1])
}

// mixCells returns the number of per-state moments of the
// discrete–continuous pairs: the total number of discrete states times the
// number of continuous variables.
func (l layout) mixCells() int64 { return l.dcum[len(l.dcum)-1] * int64(len(l.cvars)) }

// mixIndex returns the index of the moments of continuous position c within
// state x of discrete position a.
func (l *layout) mixIndex(a, x, c int) int64 {
	return (l.dcum[a]+int64(x))*int64(len(l.cvars)) + int64(c)
}

// tri returns the index of the pair a < b among m items in lexicographic
// order.
func tri(a, b, m int) int { return a*(2*m-a-1)/2 + (b - a - 1) }

// NumVars returns the number of variables.
func (s *Stats) NumVars() int { return len(s.vars) }

// Var returns variable j. Its States slice is shared: treat it as read-only.
func (s *Stats) Var(j int) data.Variable { return s.vars[j] }

// Names returns the variable names in column order.
func (s *Stats) Names() []string {
	out := make([]string, len(s.vars))
	for j, v := range s.vars {
		out[j] = v.Name
	}
	return out
}

// Index returns the column of the variable with the given name.
func (s *Stats) Index(name string) (int, bool) {
	j, ok := s.index[name]
	return j, ok
}

// Rows returns the total number of rows seen.
func (s *Stats) Rows() int64 { return s.rows }

// HasPairs reports whether the pairwise tables and moments were computed
// (false after Compute with Options.NoPairs).
func (s *Stats) HasPairs() bool { return s.pairs }

// Count returns the number of rows where variable j is observed.
func (s *Stats) Count(j int) int64 { return s.count[j] }

// Marginal returns the counts per state of discrete variable j, over the
// rows where it is observed. The slice is shared: treat it as read-only. It
// returns nil for a continuous variable.
func (s *Stats) Marginal(j int) []int64 { return s.marg[j] }

// Pair returns the joint counts of discrete variables i and j over the rows
// where both are observed, as a row-major ni×nj table whose row is the state
// of i. It writes into dst when cap(dst) ≥ ni·nj and allocates otherwise.
// For i == j it returns the diagonal table of the marginal. It returns nil
// when i or j is continuous, or when i ≠ j and the pairs were not computed.
func (s *Stats) Pair(i, j int, dst []int64) []int64 {
	vi, vj := s.vars[i], s.vars[j]
	if vi.Kind != data.Discrete || vj.Kind != data.Discrete {
		return nil
	}
	if i != j && !s.pairs {
		return nil
	}
	ni, nj := len(vi.States), len(vj.States)
	if cap(dst) >= ni*nj {
		dst = dst[:ni*nj]
	} else {
		dst = make([]int64, ni*nj)
	}
	if i == j {
		clear(dst)
		for k, c := range s.marg[i] {
			dst[k*nj+k] = c
		}
		return dst
	}
	a, b := s.lay.sub[i], s.lay.sub[j]
	if a < b {
		off := s.lay.offset(a, b)
		copy(dst, s.dtab[off:off+int64(ni*nj)])
		return dst
	}
	// Stored as nj×ni with j's states as rows: transpose.
	off := s.lay.offset(b, a)
	t := s.dtab[off : off+int64(ni*nj)]
	for y := 0; y < nj; y++ {
		row := t[y*ni : (y+1)*ni]
		for x, c := range row {
			dst[x*nj+y] = c
		}
	}
	return dst
}

// PairCount returns the number of rows where both variables i and j are
// observed, whatever their kinds; for i == j it is Count(i). It returns -1
// for i ≠ j when the pairs were not computed.
func (s *Stats) PairCount(i, j int) int64 {
	if i == j {
		return s.count[i]
	}
	if !s.pairs {
		return -1
	}
	vi, vj := s.vars[i].Kind, s.vars[j].Kind
	a, b := s.lay.sub[i], s.lay.sub[j]
	switch {
	case vi == data.Discrete && vj == data.Discrete:
		if a > b {
			a, b = b, a
		}
		off := s.lay.offset(a, b)
		var n int64
		for _, c := range s.dtab[off : off+int64(s.lay.states(a)*s.lay.states(b))] {
			n += c
		}
		return n
	case vi == data.Discrete:
		return s.mixN[a*len(s.lay.cvars)+b]
	case vj == data.Discrete:
		return s.mixN[b*len(s.lay.cvars)+a]
	}
	return s.contPair(a, b).n
}

// contPair returns the moments of continuous positions a ≠ b, oriented so
// that mi, m2i belong to a.
func (s *Stats) contPair(a, b int) contPair {
	q := len(s.lay.cvars)
	if a < b {
		return s.cp[tri(a, b, q)]
	}
	p := s.cp[tri(b, a, q)]
	p.mi, p.mj = p.mj, p.mi
	p.m2i, p.m2j = p.m2j, p.m2i
	return p
}

// HasStateMoments reports whether the pair statistics hold the moments of
// every continuous variable within the states of every discrete variable
// (StateMoments): true unless the pairs were not computed or the
// statistics were read from a file written before latentree kept them.
func (s *Stats) HasStateMoments() bool { return s.pairs && s.hasMix }

// StateMoments returns, for discrete variable i and continuous variable j
// (in either order), the moments of j within each state x of i over the
// rows where both are observed: the number of rows n[x], the mean of j
// over them mean[x] (0 when n[x] is 0) and the sum of squared deviations
// from that mean m2[x]. They give the correlation ratio of j on i, and
// merge exactly across shards. ok is false when the variables are not one
// discrete and one continuous, or HasStateMoments is false.
func (s *Stats) StateMoments(i, j int) (n []int64, mean, m2 []float64, ok bool) {
	if s.vars[i].Kind == data.Continuous {
		i, j = j, i
	}
	if s.vars[i].Kind != data.Discrete || s.vars[j].Kind != data.Continuous || !s.HasStateMoments() {
		return nil, nil, nil, false
	}
	a, c := s.lay.sub[i], s.lay.sub[j]
	k := s.lay.states(a)
	n, mean, m2 = make([]int64, k), make([]float64, k), make([]float64, k)
	for x := range k {
		p := s.mixM[s.lay.mixIndex(a, x, c)]
		n[x], mean[x], m2[x] = p.n, p.mi, p.m2i
	}
	return n, mean, m2, true
}

// Mean returns the mean of continuous variable j over the rows where it is
// observed; NaN for a discrete variable or one never observed.
func (s *Stats) Mean(j int) float64 {
	if s.vars[j].Kind != data.Continuous || s.count[j] == 0 {
		return math.NaN()
	}
	return s.mean[j]
}

// Cov returns the unbiased (n−1) covariance of continuous variables i and j
// over the n rows where both are observed; Cov(j, j) is the variance of j
// over the rows where j is observed. It returns NaN when n < 2, when either
// variable is discrete, or when i ≠ j and the pairs were not computed.
func (s *Stats) Cov(i, j int) float64 {
	if s.vars[i].Kind != data.Continuous || s.vars[j].Kind != data.Continuous {
		return math.NaN()
	}
	if i == j {
		if s.count[j] < 2 {
			return math.NaN()
		}
		return s.m2[j] / float64(s.count[j]-1)
	}
	if !s.pairs {
		return math.NaN()
	}
	p := s.contPair(s.lay.sub[i], s.lay.sub[j])
	if p.n < 2 {
		return math.NaN()
	}
	return p.c / float64(p.n-1)
}

// Corr returns the Pearson correlation of continuous variables i and j over
// the rows where both are observed. It returns NaN when it is undefined
// (fewer than two such rows, a constant variable on them, a discrete
// variable, or pairs not computed); Corr(j, j) is 1 unless j is constant.
func (s *Stats) Corr(i, j int) float64 {
	if s.vars[i].Kind != data.Continuous || s.vars[j].Kind != data.Continuous {
		return math.NaN()
	}
	if i == j {
		if s.count[j] < 2 || !(s.m2[j] > 0) {
			return math.NaN()
		}
		return 1
	}
	if !s.pairs {
		return math.NaN()
	}
	p := s.contPair(s.lay.sub[i], s.lay.sub[j])
	if p.n < 2 || !(p.m2i > 0) || !(p.m2j > 0) {
		return math.NaN()
	}
	r := p.c / math.Sqrt(p.m2i*p.m2j)
	return math.Max(-1, math.Min(1, r))
}

// PairMoments returns the pairwise-complete moments of continuous variables
// i ≠ j: the number n of rows where both are observed, the means of i and j
// over those rows, and the sums over those rows of squared deviations of i,
// of j, and of the products of the deviations of i and j. ok is false when
// either variable is discrete, i == j, or the pairs were not computed.
func (s *Stats) PairMoments(i, j int) (n int64, meanI, meanJ, m2I, m2J, cIJ float64, ok bool) {
	if i == j || !s.pairs || s.vars[i].Kind != data.Continuous || s.vars[j].Kind != data.Continuous {
		return 0, 0, 0, 0, 0, 0, false
	}
	p := s.contPair(s.lay.sub[i], s.lay.sub[j])
	return p.n, p.mi, p.mj, p.m2i, p.m2j, p.c, true
}

// Clone returns a deep copy of s.
func (s *Stats) Clone() *Stats {
	c := &Stats{
		vars:  make([]data.Variable, len(s.vars)),
		index: make(map[string]int, len(s.vars)),
		rows:  s.rows,
		pairs: s.pairs,
		count: append([]int64(nil), s.count...),
		marg:  make([][]int64, len(s.marg)),
		mean:  append([]float64(nil), s.mean...),
		m2:    append([]float64(nil), s.m2...),
		dtab:  append([]int64(nil), s.dtab...),
		mixN:  append([]int64(nil), s.mixN...),
		cp:    append([]contPair(nil), s.cp...),
		mixM:  append([]contPair(nil), s.mixM...),

		hasMix: s.hasMix,
	}
	for j, v := range s.vars {
		v.States = append([]string(nil), v.States...)
		if v.Kind == data.Continuous {
			v.States = nil
		}
		c.vars[j] = v
		c.index[v.Name] = j
	}
	for j, m := range s.marg {
		if m != nil {
			c.marg[j] = append([]int64(nil), m...)
		}
	}
	c.lay = newLayout(c.vars)
	return c
}

// newStats returns statistics with no rows over the given variables (which
// must be valid: unique non-empty names, discrete ones with states), with
// zeroed pair storage when pairs is true (including the per-state moments
// of the discrete–continuous pairs).
func newStats(vars []data.Variable, pairs bool) *Stats {
	s := &Stats{
		vars:   vars,
		index:  make(map[string]int, len(vars)),
		pairs:  pairs,
		hasMix: true,
		count:  make([]int64, len(vars)),
		marg:   make([][]int64, len(vars)),
		mean:   make([]float64, len(vars)),
		m2:     make([]float64, len(vars)),
	}
	for j, v := range vars {
		s.index[v.Name] = j
		if v.Kind == data.Discrete {
			s.marg[j] = make([]int64, len(v.States))
		}
	}
	s.lay = newLayout(vars)
	if pairs {
		nd, nc := len(s.lay.dvars), len(s.lay.cvars)
		s.dtab = make([]int64, s.lay.tableCells())
		s.mixN = make([]int64, nd*nc)
		s.cp = make([]contPair, nc*(nc-1)/2)
		s.mixM = make([]contPair, s.lay.mixCells())
	}
	return s
}
