package stats

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/latentree/latentree/data"
)

// cacheBudget is the number of bytes of column data a row block of a pair
// kernel may touch: about half of a typical per-core L2 cache.
const cacheBudget = 512 << 10

// column is the prepared form of one column for the pair kernels.
type column struct {
	missing int64
	bit1    []uint64  // binary discrete: bit r set when row r is in state 1
	obs     []uint64  // bit r set when row r is observed; nil if none missing
	codes   []uint16  // discrete: state codes with Missing mapped to NumStates
	vals    []float64 // continuous values (NaN missing)
}

// computer holds the state shared by the phases of Compute.
type computer struct {
	d       *data.Dataset
	s       *Stats
	workers int
	budget  int
	rows    int
	words   int
	cols    []column
	// per discrete position
	bit1 [][]uint64
	obs  [][]uint64
}

// Compute computes the statistics of d: with frequency weights, those of
// its rows each repeated by its weight (sampling weights are an error:
// the statistics are whole counts). It returns an error if d is nil, if
// opt.Workers is negative, if a column has the wrong length, a discrete
// code out of range or an infinite continuous value, or if the pair
// statistics would take more than opt.MaxPairBytes (checked before they
// are allocated).
func Compute(d *data.Dataset, opt Options) (*Stats, error) {
	return compute(d, opt, cacheBudget)
}

// compute is Compute with row blocks sized for budget bytes of column data
// (tests use tiny budgets to exercise many blocks).
func compute(d *data.Dataset, opt Options, budget int) (*Stats, error) {
	if d == nil {
		return nil, errors.New("stats: nil dataset")
	}
	if opt.Workers < 0 {
		return nil, fmt.Errorf("stats: negative number of workers %d", opt.Workers)
	}
	if d.Weighted() {
		return computeWeighted(d, opt, budget)
	}
	workers := opt.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	vars := d.Vars()
	for j := range vars {
		vars[j].States = append([]string(nil), vars[j].States...)
		if vars[j].Kind == data.Continuous {
			vars[j].States = nil
		}
	}
	if opt.MaxPairBytes < 0 {
		return nil, fmt.Errorf("stats: negative MaxPairBytes %d", opt.MaxPairBytes)
	}
	if err := opt.checkPairs(vars); err != nil {
		return nil, err
	}
	s := newStats(vars, !opt.NoPairs)
	rows := d.NumRows()
	s.rows = int64(rows)
	c := &computer{
		d:       d,
		s:       s,
		workers: workers,
		budget:  budget,
		rows:    rows,
		words:   (rows + 63) / 64,
		cols:    make([]column, len(vars)),
	}
	if err := c.columns(); err != nil {
		return nil, err
	}
	if s.pairs {
		c.binaryPairs()
		c.generalPairs()
		c.mixedMoments()
		c.continuousPairs()
	}
	return s, nil
}

// forEach calls fn(i) for i in [0, n) on up to workers goroutines, handing
// out indices dynamically.
func forEach(workers, n int, fn func(i int)) {
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// runRanges calls fn(lo, hi) for consecutive ranges given by bounds, each on
// its own goroutine (inline when there is one range).
func runRanges(bounds []int, fn func(lo, hi int)) {
	if len(bounds) <= 2 {
		if len(bounds) == 2 && bounds[0] < bounds[1] {
			fn(bounds[0], bounds[1])
		}
		return
	}
	var wg sync.WaitGroup
	for k := 0; k+1 < len(bounds); k++ {
		lo, hi := bounds[k], bounds[k+1]
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// splitTri splits the pairs a < b of m items, in lexicographic order, into
// at most parts ranges of about equal total cost and returns the linear
// boundaries (first 0, last m(m−1)/2).
func splitTri(m, parts int, cost func(a, b int) int64) []int {
	n := m * (m - 1) / 2
	if parts < 1 {
		parts = 1
	}
	var total int64
	for a := 0; a < m; a++ {
		for b := a + 1; b < m; b++ {
			total += cost(a, b)
		}
	}
	bounds := []int{0}
	if total == 0 || parts == 1 {
		return append(bounds, n)
	}
	var acc int64
	k := 1
	t := 0
	for a := 0; a < m; a++ {
		for b := a + 1; b < m; b++ {
			acc += cost(a, b)
			t++
			if k < parts && acc*int64(parts) >= total*int64(k) {
				bounds = append(bounds, t)
				k++
			}
		}
	}
	if bounds[len(bounds)-1] != n {
		bounds = append(bounds, n)
	}
	return bounds
}

// triDecode returns the pair a < b with linear index t among m items.
func triDecode(t, m int) (a, b int) {
	for t >= m-a-1 {
		t -= m - a - 1
		a++
	}
	return a, a + 1 + t
}

// triNext returns the pair after (a, b), a < b < m, in the order of the
// linear index.
func triNext(a, b, m int) (int, int) {
	if b+1 == m {
		return a + 1, a + 2
	}
	return a, b + 1
}

// columns validates every column and computes the per-variable statistics
// and the packed forms the pair kernels need.
func (c *computer) columns() error {
	s := c.s
	nd, nc := len(s.lay.dvars), len(s.lay.cvars)
	nbin := 0
	for _, j := range s.lay.dvars {
		if len(s.vars[j].States) == 2 {
			nbin++
		}
	}
	ngen := nd - nbin
	pairs := s.pairs
	errs := make([]error, len(s.vars))
	forEach(c.workers, len(s.vars), func(j int) {
		v := s.vars[j]
		if v.Kind == data.Discrete {
			binKernel := pairs && len(v.States) == 2 && nbin >= 2
			needCodes := pairs && (nd >= 2 && (len(v.States) != 2 || ngen > 0) || nc > 0)
			errs[j] = c.discreteColumn(j, binKernel, needCodes)
		} else {
			errs[j] = c.continuousColumn(j)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	c.bit1 = make([][]uint64, nd)
	c.obs = make([][]uint64, nd)
	for a, j := range s.lay.dvars {
		c.bit1[a] = c.cols[j].bit1
		c.obs[a] = c.cols[j].obs
	}
	return nil
}

// discreteColumn prepares discrete column j.
func (c *computer) discreteColumn(j int, binKernel, needCodes bool) error {
	s := c.s
	v := s.vars[j]
	col := c.d.Discrete(j)
	if len(col) != c.rows {
		return fmt.Errorf("stats: column %q has %d cells, want %d", v.Name, len(col), c.rows)
	}
	n := len(v.States)
	cnt := s.marg[j]
	cc := &c.cols[j]
	if binKernel {
		// One branch-free pass: pack, validate and count by popcount.
		bit1 := make([]uint64, c.words)
		var obs []uint64 // allocated at the first missing cell
		var bad uint32
		var ones, seen int64
		for w := range bit1 {
			lo := w * 64
			hi := min(lo+64, c.rows)
			b1, miss, bd := packWord(col[lo:hi])
			bad |= bd
			bo := ^miss & (^uint64(0) >> uint(64-(hi-lo)))
			bit1[w] = b1
			if miss != 0 && obs == nil {
				obs = make([]uint64, c.words)
				for k := range w {
					obs[k] = ^uint64(0)
				}
			}
			if obs != nil {
				obs[w] = bo
			}
			ones += int64(bits.OnesCount64(b1))
			seen += int64(bits.OnesCount64(bo))
		}
		if bad != 0 {
			return badCode(v, col)
		}
		cnt[0], cnt[1] = seen-ones, ones
		cc.missing = int64(c.rows) - seen
		s.count[j] = seen
		cc.bit1 = bit1
		cc.obs = obs
		if needCodes {
			cc.codes = remap(col, n, cc.missing)
		}
		return nil
	}
	var miss int64
	for _, x := range col {
		if int(x) < n {
			cnt[x]++
		} else {
			miss++
		}
	}
	seen := int64(len(col)) - miss
	// Codes ≥ n other than Missing are invalid (and were counted in miss).
	if miss > 0 && n < int(data.Missing) {
		for _, x := range col {
			if int(x) >= n && x != data.Missing {
				return badCode(v, col)
			}
		}
	}
	cc.missing = miss
	s.count[j] = seen
	if needCodes {
		cc.codes = remap(col, n, miss)
	}
	return nil
}

// packWord packs up to 64 codes of a binary variable: bit k of one is set
// when x[k] is 1, bit k of miss when x[k] is Missing (or any code ≥ 0x8000).
// bad is non-zero when some code is neither 0, 1 nor Missing.
func packWord(x []uint16) (one, miss uint64, bad uint32) {
	if len(x) == 64 {
		// Four codes at a time, one in each 16-bit lane of a word: the
		// lanes' bits 0 (and 15) gathered into 4 adjacent bits by a
		// multiplication whose partial products never overlap.
		const lanes, gather = 0x0001_0001_0001_0001, 1 | 1<<15 | 1<<30 | 1<<45
		a := (*[64]uint16)(x)
		var wrong uint64
		for k := 0; k < 64; k += 4 {
			w := uint64(a[k]) | uint64(a[k+1])<<16 | uint64(a[k+2])<<32 | uint64(a[k+3])<<48
			lo, hi := w&lanes, w>>15&lanes
			one |= (lo * gather >> 45 & 0xF) << k
			miss |= (hi * gather >> 45 & 0xF) << k
			// A lane is valid when its bits but bit 0 are all clear (0, 1)
			// or all its bits are set (Missing).
			wrong |= w&^lanes ^ hi*0xFFFE | hi&^lo
		}
		if wrong != 0 {
			bad = 1
		}
		return one &^ miss, miss, bad
	}
	for k, c := range x {
		one |= uint64(c&1) << uint(k)
		miss |= uint64(c>>15) << uint(k)
		bad |= (uint32(c+1) + 0xFFFD) >> 16
	}
	return one &^ miss, miss, bad
}

// remap returns the codes of col with Missing mapped to n; col itself when
// nothing is missing.
func remap(col []uint16, n int, missing int64) []uint16 {
	if missing == 0 {
		return col
	}
	out := make([]uint16, len(col))
	for r, x := range col {
		if x == data.Missing {
			x = uint16(n)
		}
		out[r] = x
	}
	return out
}

// badCode returns the error for the first invalid code of col.
func badCode(v data.Variable, col []uint16) error {
	for r, x := range col {
		if int(x) >= len(v.States) && x != data.Missing {
			return fmt.Errorf("stats: row %d, variable %q: state code %d out of range (%d states)", r+1, v.Name, x, len(v.States))
		}
	}
	return fmt.Errorf("stats: variable %q: invalid state code", v.Name)
}

// continuousColumn prepares continuous column j: count, mean and sum of
// squared deviations by the corrected two-pass algorithm.
func (c *computer) continuousColumn(j int) error {
	s := c.s
	v := s.vars[j]
	col := c.d.Continuous(j)
	if len(col) != c.rows {
		return fmt.Errorf("stats: column %q has %d cells, want %d", v.Name, len(col), c.rows)
	}
	var n int64
	var sum float64
	for r, x := range col {
		if x != x {
			continue
		}
		if math.IsInf(x, 0) {
			return fmt.Errorf("stats: row %d, variable %q: infinite value", r+1, v.Name)
		}
		n++
		sum += x
	}
	cc := &c.cols[j]
	cc.vals = col
	cc.missing = int64(len(col)) - n
	s.count[j] = n
	if n == 0 {
		return nil
	}
	mean := sum / float64(n)
	if math.IsInf(mean, 0) {
		return fmt.Errorf("stats: variable %q: values too large (sum overflows)", v.Name)
	}
	var s1, s2 float64
	for _, x := range col {
		if x != x {
			continue
		}
		dx := x - mean
		s1 += dx
		s2 += dx * dx
	}
	s.mean[j] = mean + s1/float64(n)
	s.m2[j] = max(0, s2-s1*s1/float64(n))
	if math.IsInf(s.m2[j], 0) || math.IsNaN(s.m2[j]) {
		return fmt.Errorf("stats: variable %q: values too large (variance overflows)", v.Name)
	}
	return nil
}

// mixedMoments fills, for every discrete–continuous pair, the moments of
// the continuous variable within each state of the discrete one over the
// rows where both are observed, and their counts (mixN). Values are centred
// on the continuous variable's mean before summing, as in continuousPairs.
func (c *computer) mixedMoments() {
	s := c.s
	nd, nc := len(s.lay.dvars), len(s.lay.cvars)
	if nd == 0 || nc == 0 {
		return
	}
	rb := blockSize(c.budget/(8*nc+2), 1024, c.rows)
	forEach(c.workers, nd, func(a int) {
		codes := c.cols[s.lay.dvars[a]].codes
		k := s.lay.states(a)
		// acc[(b*(k+1)+x)*3 ...]: rows, Σd, Σd² of continuous b in state x
		// (x = k collects the rows where the discrete cell is missing).
		acc := make([]float64, nc*(k+1)*3)
		for r0 := 0; r0 < c.rows; r0 += rb {
			r1 := min(r0+rb, c.rows)
			x := codes[r0:r1]
			for b, j := range s.lay.cvars {
				accumulateStates(acc[b*(k+1)*3:(b+1)*(k+1)*3], x, c.cols[j].vals[r0:r1], s.mean[j])
			}
		}
		for b, j := range s.lay.cvars {
			var total int64
			for x := range k {
				t := acc[(b*(k+1)+x)*3:]
				p := finishMoments(int64(t[0]), t[1], 0, t[2], 0, 0, s.mean[j], 0)
				s.mixM[s.lay.mixIndex(a, x, b)] = contPair{n: p.n, mi: p.mi, m2i: p.m2i}
				total += p.n
			}
			s.mixN[a*nc+b] = total
		}
	})
}

// accumulateStates adds to acc[3x], acc[3x+1], acc[3x+2] the number of
// rows with code x and an observed value, and the sums of the values less
// shift and of their squares.
func accumulateStates(acc []float64, codes []uint16, vals []float64, shift float64) {
	vals = vals[:len(codes)]
	for r, x := range codes {
		v := vals[r]
		if v != v {
			continue
		}
		d := v - shift
		t := acc[3*int(x) : 3*int(x)+3]
		t[0]++
		t[1] += d
		t[2] += d * d
	}
}
