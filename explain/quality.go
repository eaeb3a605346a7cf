package explain

import (
	"errors"
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
)

// Classification is how sharply the data's rows are assigned to the states
// of one discrete hidden variable, from each row's posterior p_ik =
// P(h = k | row i) over the n rows whose posterior is defined (rows of
// probability 0 under the model are left out), K states:
//
//   - ModelShares: π_k = Σ_i p_ik / n, the model-estimated shares;
//     ModalShares: the share of rows whose most likely state (the first of
//     ties) is k, the modal assignment.
//   - Entropy: the mean posterior entropy E = −Σ_i Σ_k p_ik ln p_ik / n
//     (nats).
//   - EntropyR2: LatentGOLD's entropy R², 1 − E / E₀ with E₀ =
//     −Σ_k π_k ln π_k, the entropy of the estimated shares: the share of
//     the uncertainty about the state that the rows remove. It is in
//     [0, 1] (E ≤ E₀, entropy being concave).
//   - RelativeEntropy: Mplus's "entropy" (Ramaswamy et al. 1993),
//     1 − E / ln K: E is measured against the uniform distribution's
//     entropy, whatever the shares. The two differ when the shares are
//     unequal (EntropyR2 ≤ RelativeEntropy then); with K = 1, or E₀ = 0
//     for EntropyR2, both are 1.
//   - Table: the classification table, Table[k][l] = Σ p_ik over the rows
//     assigned to state l (rows: the state, columns: the assignment), in
//     rows: its row sums are n·ModelShares, its column sums n·ModalShares.
//     Error = 1 − Σ_k Table[k][k] / n is LatentGOLD's expected
//     classification error of the modal assignment.
//   - AvePP: the average posterior probabilities by assigned state (Mplus's
//     "average latent class probabilities for most likely latent class
//     membership (row) by latent class (column)"), AvePP[l][k] =
//     Table[k][l] / (rows assigned to l), a row of zeros for a state no row
//     is assigned to; its diagonal is each state's AvePP.
type Classification struct {
	Node int    `json:"node"`
	Name string `json:"name"`
	// States are the state labels, in the model's order.
	States          []string    `json:"states"`
	Rows            int         `json:"rows"`
	ModelShares     []float64   `json:"model_shares"`
	ModalShares     []float64   `json:"modal_shares"`
	Entropy         float64     `json:"entropy"`
	EntropyR2       float64     `json:"entropy_r2"`
	RelativeEntropy float64     `json:"relative_entropy"`
	Error           float64     `json:"classification_error"`
	AvePP           [][]float64 `json:"avepp"`
	Table           [][]float64 `json:"table"`
}

// Classify returns the classification quality of the given conditional
// distribution of a discrete node (model.Model.Conditionals), as described
// at Classification. Rows with a NaN probability (probability 0 under the
// model) are left out; no row left is an error. The shares and entropies
// are model.EntropyOf's, shared with learn's fit tables.
func Classify(c model.Conditional) (*Classification, error) {
	return ClassifyWeighted(c, nil)
}

// ClassifyWeighted is Classify with row weights w (one per row of c, as
// data.Dataset.RowWeights; nil: 1 each): every sum over rows, the counts
// of rows assigned to a state included, is weighted, and n is the weight
// of the rows with a defined posterior (Rows is n rounded), so that
// a table of distinct rows with frequency weights classifies as its
// expanded rows.
func ClassifyWeighted(c model.Conditional, w []float64) (*Classification, error) {
	pe, err := model.EntropyOfWeighted(c, w)
	if err != nil {
		return nil, fmt.Errorf("explain: %w", err)
	}
	k := len(c.Labels)
	q := &Classification{Node: c.Node, Name: c.Name, States: c.Labels, Rows: pe.Rows,
		ModelShares: pe.Shares, ModalShares: make([]float64, k),
		Entropy: pe.Entropy, EntropyR2: pe.EntropyR2, RelativeEntropy: pe.RelativeEntropy,
		AvePP: make([][]float64, k), Table: make([][]float64, k)}
	for s := range k {
		q.AvePP[s] = make([]float64, k)
		q.Table[s] = make([]float64, k)
	}
	assigned := make([]float64, k)
	n := 0.0
	for r := 0; r < len(c.Prob)/k; r++ {
		p := c.Row(r)
		if hasNaN(p) {
			continue
		}
		wr := 1.0
		if w != nil {
			wr = w[r]
		}
		n += wr
		l, _ := c.Mode(r)
		assigned[l] += wr
		for s, x := range p {
			q.Table[s][l] += wr * x
		}
	}
	if w != nil {
		q.Rows = int(math.Round(n))
	}
	diag := 0.0
	for s := range k {
		q.ModalShares[s] = assigned[s] / n
		diag += q.Table[s][s]
		if assigned[s] > 0 {
			for t := range k {
				q.AvePP[s][t] = q.Table[t][s] / assigned[s]
			}
		}
	}
	q.Error = max(1-diag/n, 0)
	return q, nil
}

// ClassifyModel returns the classification quality (Classify) of every
// discrete hidden variable of m in the rows of d, top-down from the root,
// from m's Conditionals: it applies to every model with hidden-variable
// posteriors (discrete and mixed models; a spectral model has none and
// gives its error).
func ClassifyModel(m model.Model, d *data.Dataset, opt model.InferOptions) ([]Classification, error) {
	if m == nil || d == nil {
		return nil, errors.New("explain: ClassifyModel needs a model and data")
	}
	t := m.Structure()
	var hidden []int
	for _, v := range t.Root(m.RootNode()).Order {
		if t.IsHidden(v) && m.NodeKind(v) == data.Discrete {
			hidden = append(hidden, v)
		}
	}
	return classifyNodes(m, d, hidden, opt)
}

// classifyNodes classifies the rows of d by each of the given discrete
// nodes of m.
func classifyNodes(m model.Model, d *data.Dataset, nodes []int, opt model.InferOptions) ([]Classification, error) {
	if len(nodes) == 0 {
		return nil, nil
	}
	cond, err := m.Conditionals(d, nodes, opt)
	if err != nil {
		return nil, err
	}
	if len(cond) != len(nodes) {
		return nil, errors.New("explain: the model gave posteriors for other nodes than asked")
	}
	out := make([]Classification, len(nodes))
	for i := range cond {
		q, err := ClassifyWeighted(cond[i], d.RowWeights())
		if err != nil {
			return nil, err
		}
		out[i] = *q
	}
	return out, nil
}

func hasNaN(p []float64) bool {
	for _, x := range p {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}
