package mixed

import (
	"errors"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
)

// errTODO marks operations of the mixed family not built yet.
var errTODO = errors.New("mixed: not implemented yet")

// LogLikelihood returns the log-likelihood of every row of d and their sum.
func (m *Model) LogLikelihood(d *data.Dataset, opt model.InferOptions) ([]float64, float64, error) {
	return nil, 0, errTODO
}

// Score returns the log-likelihood of d and the scores derived from it.
func (m *Model) Score(d *data.Dataset, opt model.InferOptions) (*model.Score, error) {
	return nil, errTODO
}

// Conditionals returns the distribution of each of the given nodes in
// every row of d given the row's observed cells: state probabilities for
// discrete nodes, mean and standard deviation for continuous ones.
func (m *Model) Conditionals(d *data.Dataset, nodes []int, opt model.InferOptions) ([]model.Conditional, error) {
	return nil, errTODO
}

// Impute completes d.
func (m *Model) Impute(d *data.Dataset, opt model.ImputeOptions) (*model.Imputation, error) {
	return nil, errTODO
}

// InformationDistances returns the exact information distances between
// the given nodes.
func (m *Model) InformationDistances(nodes []int) ([]float64, error) {
	return nil, errTODO
}

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

// EStep returns the expected sufficient statistics of the rows of d
// (missing cells of either kind marginalised).
func (m *Model) EStep(d *data.Dataset, opt model.InferOptions) (*Expected, error) {
	return nil, errTODO
}
