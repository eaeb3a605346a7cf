package gaussian

import (
	"errors"
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// Moments are what the likelihood of a Gaussian latent tree depends on
// when no cell is missing: the number of rows and the sample mean and
// covariance of the observed columns. Statistics files hold them, so that
// a model can be fitted (FitMoments) and scored (LogLikMoments) without
// the rows.
type Moments struct {
	// Names are the columns, in the order of Mean and Cov.
	Names []string
	// Rows is the number of rows n.
	Rows int
	// Mean is each column's sample mean and Cov the sample covariance
	// (sums of products of deviations divided by n, not n − 1),
	// len(Names)² row-major.
	Mean, Cov []float64
}

// MomentsOf returns the moments of d, whose columns must all be continuous
// and complete (a missing cell is an error naming its column and row) and
// whose rows must be unweighted.
func MomentsOf(d *data.Dataset) (*Moments, error) {
	if d == nil || d.NumRows() == 0 {
		return nil, errors.New("model: no data rows")
	}
	if d.Weighted() {
		return nil, errors.New("model: the rows are weighted; Gaussian moments are of unweighted rows")
	}
	p, n := d.NumVars(), d.NumRows()
	names := d.Names()
	m := &Moments{Names: names, Rows: n, Mean: make([]float64, p), Cov: make([]float64, p*p)}
	cent := make([][]float64, p)
	for j := range p {
		if d.Var(j).Kind != data.Continuous {
			return nil, fmt.Errorf("model: column %q is discrete; Gaussian moments need continuous columns", names[j])
		}
		col := d.Continuous(j)
		s := 0.0
		for r, x := range col {
			if math.IsNaN(x) {
				return nil, fmt.Errorf("model: column %q is missing in row %d; Gaussian moments need complete rows", names[j], r+1)
			}
			s += x
		}
		mu := s / float64(n)
		c := make([]float64, n)
		for r, x := range col {
			c[r] = x - mu
		}
		m.Mean[j], cent[j] = mu, c
	}
	for i := range p {
		for j := i; j < p; j++ {
			s := 0.0
			for r, x := range cent[i] {
				s += x * cent[j][r]
			}
			s /= float64(n)
			m.Cov[i*p+j], m.Cov[j*p+i] = s, s
		}
	}
	return m, m.Validate()
}

// Validate checks the moments: at least two rows, one mean and a square
// covariance per column, finite values, positive variances and a
// symmetric covariance.
func (m *Moments) Validate() error {
	p := len(m.Names)
	switch {
	case m.Rows < 2:
		return fmt.Errorf("model: moments of %d rows; at least 2 are needed", m.Rows)
	case len(m.Mean) != p || len(m.Cov) != p*p:
		return fmt.Errorf("model: moments of %d columns need %d means and %d covariances, not %d and %d", p, p, p*p, len(m.Mean), len(m.Cov))
	}
	for i := range p {
		if math.IsNaN(m.Mean[i]) || math.IsInf(m.Mean[i], 0) {
			return fmt.Errorf("model: column %q has mean %g", m.Names[i], m.Mean[i])
		}
		if v := m.Cov[i*p+i]; !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("model: column %q has zero or infinite variance", m.Names[i])
		}
		for j := range i {
			a, b := m.Cov[i*p+j], m.Cov[j*p+i]
			if math.IsNaN(a) || math.IsInf(a, 0) || math.Abs(a-b) > 1e-9*math.Sqrt(m.Cov[i*p+i]*m.Cov[j*p+j]) {
				return fmt.Errorf("model: the covariance of columns %q and %q is not finite and symmetric", m.Names[i], m.Names[j])
			}
		}
	}
	return nil
}

// bindMoments maps the moments' columns onto g's observed nodes: the
// binding (no row data: cols is nil, rows is m.Rows) and, for each of its
// observed nodes in order, the moments' column.
func (g *Model) bindMoments(m *Moments) (*gbinding, []int, error) {
	if m == nil {
		return nil, nil, errors.New("model: no moments")
	}
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	t := g.Tree
	index := make(map[string]int, len(m.Names))
	for j, s := range m.Names {
		index[s] = j
	}
	b := &gbinding{rows: m.Rows, n: float64(m.Rows)}
	var col []int
	for _, v := range t.Observed() {
		j, ok := index[t.Name(v)]
		if !ok {
			return nil, nil, fmt.Errorf("model: the tree's variable %q has no moments", t.Name(v))
		}
		b.obs = append(b.obs, v)
		col = append(col, j)
	}
	if len(b.obs) != len(m.Names) {
		return nil, nil, fmt.Errorf("model: the moments have %d columns, the tree %d observed variables", len(m.Names), len(b.obs))
	}
	return b, col, nil
}

// momentPattern is the one dense pattern of complete data given by m, in
// the order of the binding's columns col.
func momentPattern(m *Moments, col []int) gaussPattern {
	p := len(m.Names)
	k := len(col)
	pt := gaussPattern{dense: true, cnt: float64(m.Rows), mean: make([]float64, k), scatter: make([]float64, k*k)}
	pt.idx = make([]int, k)
	for a, i := range col {
		pt.idx[a] = a
		pt.mean[a] = m.Mean[i]
		for c, j := range col {
			pt.scatter[a*k+c] = float64(m.Rows) * m.Cov[i*p+j]
		}
	}
	return pt
}

// FitMoments is Fit from the moments of complete data: the same model,
// start and EM as Fit on the rows (which works on their sample moments
// when no cell is missing). The EMResult counts Rows and DistinctRows as
// m.Rows and one pattern.
func FitMoments(t *tree.Tree, m *Moments, opt Options) (*Model, *model.EMResult, error) {
	return fit(t, opt, func(g *Model) (*gaussEM, error) {
		b, col, err := g.bindMoments(m)
		if err != nil {
			return nil, err
		}
		p := len(m.Names)
		pos := g.columnOf(b)
		for a, v := range b.obs {
			g.Mean[v], g.Var[v] = m.Mean[col[a]], m.Cov[col[a]*p+col[a]]
		}
		g.startCorrelations(pos, func(i, j int) float64 {
			if m.Cov[col[i]*p+col[j]] < 0 {
				return -1
			}
			return 1
		})
		return &gaussEM{g: g, b: b, nodes: g.Tree.Nodes(), pats: []gaussPattern{momentPattern(m, col)}}, nil
	})
}

// LogLikMoments returns the log-likelihood of the complete data whose
// moments are m under the model: −n/2 [p log 2π + log|Σ| + tr(Σ⁻¹(S +
// δδᵀ))] with Σ the model's covariance of the observed variables, S the
// sample covariance and δ the difference of the sample and model means.
func (g *Model) LogLikMoments(m *Moments) (float64, error) {
	if err := g.Validate(); err != nil {
		return 0, err
	}
	b, col, err := g.bindMoments(m)
	if err != nil {
		return 0, err
	}
	em := &gaussEM{g: g, b: b, nodes: g.Tree.Nodes(), pats: []gaussPattern{momentPattern(m, col)}}
	defer em.release()
	return em.loglik()
}
