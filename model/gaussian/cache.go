package gaussian

import (
	"slices"
	"sync"

	"github.com/latentree/latentree/data"
)

// Cache holds what repeated Gaussian fits to the same data share:
// the rows grouped by missingness pattern and each pattern's sample mean and
// scatter matrix, which cost O(rows × variables²) to compute and do not
// depend on the tree. Pass one cache in Options.Cache to every
// fit of many trees over the same dataset (as a contraction search does).
// The zero value is ready to use and is safe for concurrent use; a cache
// serves the first dataset and column order it sees, and fits of other
// data simply compute their own.
type Cache struct {
	mu      sync.Mutex
	d       *data.Dataset
	names   []string
	pats    []pattern
	moments []*patternMoments
}

// patternMoments are a pattern's sample mean and scatter (len(idx)²
// row-major), computed once.
type patternMoments struct {
	once          sync.Once
	mean, scatter []float64
}

// patterns returns the missingness patterns of b, from the cache when it
// holds d with the same columns, and the cache's moments (nil without a
// usable cache).
func (c *Cache) patterns(d *data.Dataset, g *Model, b *gbinding) ([]pattern, []*patternMoments) {
	if c == nil {
		return b.patterns(), nil
	}
	names := make([]string, len(b.obs))
	for i, v := range b.obs {
		names[i] = g.Tree.Name(v)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.d == nil {
		c.d, c.names, c.pats = d, names, b.patterns()
		c.moments = make([]*patternMoments, len(c.pats))
		for i := range c.moments {
			c.moments[i] = &patternMoments{}
		}
	}
	if c.d != d || !slices.Equal(c.names, names) {
		return b.patterns(), nil
	}
	return c.pats, c.moments
}

// get returns the moments of pattern pt, computing them on first use.
func (m *patternMoments) get(b *gbinding, pt pattern) ([]float64, []float64) {
	m.once.Do(func() { m.mean, m.scatter = sampleMoments(b, pt) })
	return m.mean, m.scatter
}

// sampleMoments returns the (weighted) sample mean of the pattern's
// observed columns over its rows and their scatter matrix (weighted sums
// of products of deviations).
func sampleMoments(b *gbinding, pt pattern) (mean, scatter []float64) {
	k := len(pt.idx)
	mean = make([]float64, k)
	scatter = make([]float64, k*k)
	cnt := b.weightOf(pt.rows)
	for a, i := range pt.idx {
		s := 0.0
		for _, r := range pt.rows {
			s += b.wt(r) * b.cols[i][r]
		}
		mean[a] = s / cnt
	}
	for a, i := range pt.idx {
		for c := a; c < k; c++ {
			j := pt.idx[c]
			s := 0.0
			for _, r := range pt.rows {
				s += b.wt(r) * (b.cols[i][r] - mean[a]) * (b.cols[j][r] - mean[c])
			}
			scatter[a*k+c], scatter[c*k+a] = s, s
		}
	}
	return mean, scatter
}
