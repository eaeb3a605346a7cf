package mixed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// jsonNode is one node's entry in a mixed model file.
type jsonNode struct {
	Name   string `json:"name"`
	Hidden bool   `json:"hidden"`
	// Kind is "discrete" or "continuous".
	Kind string `json:"kind"`
	// States and Labels of a discrete node (labels of observed ones).
	States int      `json:"states,omitempty"`
	Labels []string `json:"labels,omitempty"`
	// Parent is the parent's name (empty for the root).
	Parent string `json:"parent,omitempty"`
	// Prior of a discrete root; CPT[a][b] = P(this = b | parent = a) of
	// another discrete node.
	Prior []float64   `json:"prior,omitempty"`
	CPT   [][]float64 `json:"cpt,omitempty"`
	// Mean and Variance of a continuous node: one per state of a discrete
	// parent, else one; Coef its coefficient on a continuous parent.
	Mean     []float64 `json:"mean,omitempty"`
	Variance []float64 `json:"variance,omitempty"`
	Coef     *float64  `json:"coef,omitempty"`
}

type jsonModel struct {
	model.Header
	Nodes      []jsonNode        `json:"nodes"`
	Provenance *model.Provenance `json:"provenance,omitempty"`
}

// StateLabels returns the labels of discrete node v's states: Labels[v],
// or "0", "1", ... when it has none (nil for a continuous node).
func (m *Model) StateLabels(v int) []string {
	if v < len(m.Labels) && m.Labels[v] != nil {
		return m.Labels[v]
	}
	if v >= len(m.States) || m.States[v] == 0 {
		return nil
	}
	out := make([]string, m.States[v])
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

// WriteJSON writes the model as a JSON document of type "mixed":
//
//	{"format":"latentree-model","version":1,"type":"mixed",
//	 "root":"h1", "tree":{latentree-tree document},
//	 "nodes":[{"name":"h1","hidden":true,"kind":"discrete","states":2,"prior":[0.4,0.6]},
//	          {"name":"x1","hidden":false,"kind":"discrete","states":2,"labels":["a","b"],
//	           "parent":"h1","cpt":[[0.9,0.1],[0.2,0.8]]},
//	          {"name":"x2","hidden":false,"kind":"continuous","parent":"h1",
//	           "mean":[-1,1],"variance":[1,0.5]},
//	          {"name":"h2","hidden":true,"kind":"continuous","parent":"h1",
//	           "mean":[-0.6,0.6],"variance":[0.64,0.64]},
//	          {"name":"x3","hidden":false,"kind":"continuous","parent":"h2",
//	           "mean":[3],"variance":[0.5],"coef":0.8}, ...],
//	 "provenance":{...}}
//
// Nodes are listed in the order of their identifiers (so that a document
// read and written again is the same) and referred to by name; unnamed hidden nodes are named h1, h2, ... (in the model's
// tree) first. A continuous node has one mean and variance per state of a
// discrete parent, else one, and a coefficient "coef" on a continuous
// parent. Observed discrete nodes have their labels. Values are written
// exactly.
func (m *Model) WriteJSON(w io.Writer, prov *model.Provenance) error {
	if err := m.Validate(); err != nil {
		return err
	}
	t := m.Tree
	h, err := model.NewHeader("mixed", t, m.Root)
	if err != nil {
		return err
	}
	r := m.Rooted()
	doc := jsonModel{Header: h, Nodes: make([]jsonNode, 0, len(r.Order)), Provenance: prov}
	for _, v := range t.Nodes() {
		n := jsonNode{Name: t.Name(v), Hidden: t.IsHidden(v), Kind: m.Kinds[v].String()}
		p := r.Parent[v]
		if p >= 0 {
			n.Parent = t.Name(p)
		}
		if m.Kinds[v] == data.Discrete {
			k := m.States[v]
			n.States = k
			if !t.IsHidden(v) {
				n.Labels = m.StateLabels(v)
			}
			if p < 0 {
				n.Prior = m.Prior
			} else {
				for a := range m.States[p] {
					n.CPT = append(n.CPT, m.CPT[v][a*k:(a+1)*k])
				}
			}
		} else {
			n.Mean, n.Variance = m.Mean[v], m.Var[v]
			if p >= 0 && m.Kinds[p] == data.Continuous {
				c := m.Coef[v]
				n.Coef = &c
			}
		}
		doc.Nodes = append(doc.Nodes, n)
	}
	return model.WriteDocument(w, doc)
}

// read reads a model document of type "mixed" (written by WriteJSON),
// checking every part: the header and tree, that every node of the tree
// has exactly one entry with its kind, the parent it has when the tree is
// rooted at the file's root, and parameters of the sizes its kind and its
// parent's call for; then Validate. Every table it allocates is as large
// as one in the document, so a hostile document cannot make it allocate
// more than a constant times its own size.
func read(doc []byte) (*Model, *model.Provenance, error) {
	var f jsonModel
	if err := json.Unmarshal(doc, &f); err != nil {
		return nil, nil, fmt.Errorf("model: not a latentree model file: %w", err)
	}
	if f.Type != "mixed" {
		return nil, nil, fmt.Errorf("model: type %q, want mixed", f.Type)
	}
	if len(f.Tree) == 0 {
		return nil, nil, errors.New("model: no tree")
	}
	t, root, err := f.Header.ReadTree()
	if err != nil {
		return nil, nil, err
	}
	entry, err := mixedEntries(t, f.Nodes)
	if err != nil {
		return nil, nil, err
	}
	n := t.MaxID()
	m := &Model{Tree: t, Root: root, Kinds: make([]data.Kind, n), States: make([]int, n), Labels: make([][]string, n),
		CPT: make([][]float64, n), Mean: make([][]float64, n), Var: make([][]float64, n), Coef: make([]float64, n)}
	for _, v := range t.Nodes() {
		e := entry[v]
		switch e.Kind {
		case "discrete":
			if e.States < 1 || e.States > data.MaxStates {
				return nil, nil, fmt.Errorf("model: discrete node %q has %d states (want 1 to %d)", e.Name, e.States, data.MaxStates)
			}
			m.Kinds[v], m.States[v] = data.Discrete, e.States
		case "continuous":
			if e.States != 0 || e.Labels != nil {
				return nil, nil, fmt.Errorf("model: continuous node %q has states or labels", e.Name)
			}
			m.Kinds[v] = data.Continuous
		default:
			return nil, nil, fmt.Errorf("model: node %q has kind %q (want discrete or continuous)", e.Name, e.Kind)
		}
	}
	if err := m.setParams(entry); err != nil {
		return nil, nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	return m, f.Provenance, nil
}

// mixedEntries matches the file's node entries to t's nodes (each node
// exactly once, hidden as in the tree) and returns them by node.
func mixedEntries(t *tree.Tree, nodes []jsonNode) ([]*jsonNode, error) {
	entry := make([]*jsonNode, t.MaxID())
	for i := range nodes {
		e := &nodes[i]
		v, ok := t.Lookup(e.Name)
		if !ok {
			return nil, fmt.Errorf("model: node %q is not in the tree", e.Name)
		}
		if entry[v] != nil {
			return nil, fmt.Errorf("model: node %q appears twice", e.Name)
		}
		if e.Hidden != t.IsHidden(v) {
			return nil, fmt.Errorf("model: node %q is hidden in one place and observed in another", e.Name)
		}
		entry[v] = e
	}
	for _, v := range t.Nodes() {
		if entry[v] == nil {
			return nil, fmt.Errorf("model: node %q has no parameters", t.Name(v))
		}
	}
	return entry, nil
}

// setParams copies the entries' labels and parameters into m (whose kinds
// and states are set), checking each entry's parent and the sizes of its
// tables; values are checked by Validate.
func (m *Model) setParams(entry []*jsonNode) error {
	t := m.Tree
	r := m.Rooted()
	if len(r.Order) != t.NumNodes() {
		return errors.New("model: the tree is not connected")
	}
	for _, v := range r.Order {
		e := entry[v]
		p := r.Parent[v]
		want := ""
		if p >= 0 {
			want = t.Name(p)
		}
		if e.Parent != want {
			return fmt.Errorf("model: node %q has parent %q in the file but %q when rooted at %q", e.Name, e.Parent, want, t.Name(m.Root))
		}
		if m.Kinds[v] == data.Discrete {
			if err := m.setDiscrete(v, p, e); err != nil {
				return err
			}
			continue
		}
		if e.Prior != nil || e.CPT != nil {
			return fmt.Errorf("model: continuous node %q has a prior or a CPT", e.Name)
		}
		want1 := 1
		if p >= 0 && m.Kinds[p] == data.Discrete {
			want1 = m.States[p]
		}
		if len(e.Mean) != want1 || len(e.Variance) != want1 {
			return fmt.Errorf("model: continuous node %q needs %d means and variances, has %d and %d", e.Name, want1, len(e.Mean), len(e.Variance))
		}
		m.Mean[v], m.Var[v] = e.Mean, e.Variance
		switch {
		case p >= 0 && m.Kinds[p] == data.Continuous:
			if e.Coef == nil {
				return fmt.Errorf("model: continuous node %q needs a coefficient \"coef\" on its continuous parent %q", e.Name, e.Parent)
			}
			m.Coef[v] = *e.Coef
		case e.Coef != nil:
			return fmt.Errorf("model: node %q has a coefficient but no continuous parent", e.Name)
		}
	}
	return nil
}

// setDiscrete sets the labels and the prior or CPT of discrete node v with
// parent p (−1 for the root).
func (m *Model) setDiscrete(v, p int, e *jsonNode) error {
	k := m.States[v]
	if e.Mean != nil || e.Variance != nil || e.Coef != nil {
		return fmt.Errorf("model: discrete node %q has means, variances or a coefficient", e.Name)
	}
	if e.Labels != nil {
		if e.Hidden {
			return fmt.Errorf("model: hidden node %q has labels", e.Name)
		}
		if len(e.Labels) != k {
			return fmt.Errorf("model: node %q has %d states but %d labels", e.Name, k, len(e.Labels))
		}
		seen := make(map[string]bool, k)
		for _, l := range e.Labels {
			if l == "" {
				return fmt.Errorf("model: node %q has an empty label", e.Name)
			}
			if seen[l] {
				return fmt.Errorf("model: node %q has label %q twice", e.Name, l)
			}
			seen[l] = true
		}
		m.Labels[v] = e.Labels
	}
	if p < 0 {
		if e.CPT != nil {
			return fmt.Errorf("model: root %q has a CPT", e.Name)
		}
		if len(e.Prior) != k {
			return fmt.Errorf("model: root %q needs a prior of %d probabilities", e.Name, k)
		}
		m.Prior = e.Prior
		return nil
	}
	if e.Prior != nil {
		return fmt.Errorf("model: node %q has a prior but is not the root", e.Name)
	}
	if m.Kinds[p] != data.Discrete {
		return fmt.Errorf("model: discrete node %q has continuous parent %q (a conditional-Gaussian tree allows no such edge)", e.Name, e.Parent)
	}
	if len(e.CPT) != m.States[p] {
		return fmt.Errorf("model: CPT of %q has %d rows, want %d (states of %q)", e.Name, len(e.CPT), m.States[p], e.Parent)
	}
	for a, row := range e.CPT {
		if len(row) != k {
			return fmt.Errorf("model: CPT of %q, row %d has %d entries, want %d", e.Name, a, len(row), k)
		}
	}
	flat := make([]float64, 0, len(e.CPT)*k) // (as large as the document's table)
	for _, row := range e.CPT {
		flat = append(flat, row...)
	}
	m.CPT[v] = flat
	return nil
}
