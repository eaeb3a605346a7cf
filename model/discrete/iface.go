package discrete

import (
	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

var _ model.Model = (*Model)(nil)

// Structure returns the model's tree.
func (m *Model) Structure() *tree.Tree { return m.Tree }

// RootNode returns the node at which the model is rooted.
func (m *Model) RootNode() int { return m.Root }

// Kind returns data.Discrete.
func (m *Model) Kind() data.Kind { return data.Discrete }

// NodeKind returns data.Discrete: every node of the model has that kind.
func (*Model) NodeKind(int) data.Kind { return data.Discrete }

// InformationDistances is Distances (the Model method).
func (m *Model) InformationDistances(nodes []int) ([]float64, error) {
	if err := model.CheckNodes(m.Tree, nodes); err != nil {
		return nil, err
	}
	return m.Distances(nodes)
}

// Conditionals returns the posterior distribution of each given node in
// every row of d (Posterior, with the states' labels).
func (m *Model) Conditionals(d *data.Dataset, nodes []int, opt model.InferOptions) ([]model.Conditional, error) {
	post, err := m.Posterior(d, nodes, opt)
	if err != nil {
		return nil, err
	}
	out := make([]model.Conditional, len(nodes))
	for x, v := range nodes {
		out[x] = model.Conditional{Node: v, Name: m.Tree.Name(v), Labels: m.StateLabels(v), Prob: post[x]}
	}
	return out, nil
}
