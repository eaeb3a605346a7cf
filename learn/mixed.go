package learn

import (
	"fmt"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/tree"
)

// Data that mix continuous and discrete columns get a conditional-Gaussian
// model (package mixed): Learn learns the structure from the mixed
// information distances, as on data of one kind, and model.Fit fits the
// mixed family. A conditional-Gaussian tree has no discrete node below a
// continuous one, so a continuous observed variable that the learner put
// on a path between two discrete ones (an internal node of a Chow–Liu
// tree, or of a CLNJ tree whose observed variables stay internal) admits
// no such model: repairLayout hangs it under a new discrete hidden node
// that takes its place in the tree.

// MixedReport says what Learn did with data that mix continuous and
// discrete columns: it fitted a conditional-Gaussian model (package mixed).
type MixedReport struct {
	// Continuous and Discrete count the observed variables of each kind;
	// HiddenContinuous and HiddenDiscrete the hidden variables of each
	// kind in the fitted model (mixed.Layout chooses them), HiddenStates
	// the number of states of the discrete ones, chosen by BIC among
	// mixed.AutoStatesRange when AutoStates (Fit.AutoStates).
	Continuous       int  `json:"continuous"`
	Discrete         int  `json:"discrete"`
	HiddenContinuous int  `json:"hidden_continuous"`
	HiddenDiscrete   int  `json:"hidden_discrete"`
	HiddenStates     int  `json:"hidden_states"`
	AutoStates       bool `json:"auto_states"`
	// Repaired names the continuous variables the structure learner put
	// between discrete ones, each hung under a new discrete hidden node
	// so that a conditional-Gaussian model fits the tree.
	Repaired []string `json:"repaired,omitempty"`
	// Integers names the continuous columns whose values are distinct
	// integers (data.DistinctIntegers): row identifiers, perhaps, which
	// the model takes for variables.
	Integers []string `json:"distinct_integers,omitempty"`
}

// dataKind is data.Continuous or data.Discrete when every column of d is
// of that kind, else data.Mixed.
func dataKind(d *data.Dataset) data.Kind {
	switch {
	case d.AllContinuous():
		return data.Continuous
	case d.AllDiscrete():
		return data.Discrete
	}
	return data.Mixed
}

// kindOf returns the kind of d's variables by name, as mixed.Layout asks
// for it.
func kindOf(d *data.Dataset) func(name string) (data.Kind, bool) {
	return func(name string) (data.Kind, bool) {
		j, ok := d.Index(name)
		if !ok {
			return 0, false
		}
		return d.Var(j).Kind, true
	}
}

// repairLayout hangs every continuous observed node of t that lies on a
// path between two discrete observed nodes under a new discrete hidden
// node: the new node takes the continuous node's place (its edges, with
// their lengths) and the continuous node becomes its leaf, at length 0,
// so that path lengths between the other nodes are unchanged. It returns
// the names of the nodes it moved. Each such node has two or more
// branches holding discrete nodes; moving it changes no other node's
// branches, so one pass repairs the tree.
func repairLayout(t *tree.Tree, kind func(string) (data.Kind, bool)) ([]string, error) {
	var moved []string
	for _, v := range betweenDiscrete(t, kind) {
		h := t.AddHidden()
		for _, hf := range append([]tree.Half(nil), t.Adjacent(v)...) {
			if err := t.RemoveEdge(v, hf.To); err != nil {
				return nil, err
			}
			if err := t.AddEdge(h, hf.To, hf.Length); err != nil {
				return nil, err
			}
		}
		if err := t.AddEdge(h, v, 0); err != nil {
			return nil, err
		}
		moved = append(moved, t.Name(v))
	}
	if len(moved) > 0 {
		if _, _, err := mixed.Layout(t, kind, false); err != nil {
			return nil, err
		}
	}
	return moved, nil
}

// betweenDiscrete returns the continuous observed nodes of t with
// discrete observed nodes in two or more of their branches (the nodes
// mixed.Layout refuses).
func betweenDiscrete(t *tree.Tree, kind func(string) (data.Kind, bool)) []int {
	nodes := t.Nodes()
	if len(nodes) == 0 {
		return nil
	}
	r := t.Root(nodes[0])
	below := make([]int, t.MaxID()) // discrete observed nodes in each subtree
	isDisc := func(v int) bool {
		k, ok := kind(t.Name(v))
		return !t.IsHidden(v) && ok && k == data.Discrete
	}
	for i := len(r.Order) - 1; i >= 0; i-- {
		v := r.Order[i]
		if isDisc(v) {
			below[v]++
		}
		if p := r.Parent[v]; p >= 0 {
			below[p] += below[v]
		}
	}
	total := below[r.Root]
	var out []int
	for _, v := range r.Order {
		if k, ok := kind(t.Name(v)); t.IsHidden(v) || !ok || k != data.Continuous {
			continue
		}
		n := 0
		for _, c := range r.Children[v] {
			if below[c] > 0 {
				n++
			}
		}
		if r.Parent[v] >= 0 && total-below[v] > 0 {
			n++
		}
		if n >= 2 {
			out = append(out, v)
		}
	}
	return out
}

// mixedReport describes the mixed model m fitted to d, with the nodes
// repairLayout moved.
func mixedReport(m *mixed.Model, d *data.Dataset, repaired []string, auto bool) (*MixedReport, error) {
	r := &MixedReport{Repaired: repaired, AutoStates: auto}
	for _, v := range d.Vars() {
		if v.Kind == data.Continuous {
			r.Continuous++
		} else {
			r.Discrete++
		}
	}
	for _, h := range m.Tree.Hidden() {
		if m.Kinds[h] == data.Continuous {
			r.HiddenContinuous++
		} else {
			r.HiddenDiscrete++
			r.HiddenStates = max(r.HiddenStates, m.States[h])
		}
	}
	ints, err := data.DistinctIntegers(d)
	if err != nil {
		return nil, err
	}
	r.Integers = ints
	return r, nil
}

// baselineTree is the Chow–Liu tree the contraction by BIC compares with.
// On mixed data it is repaired (repairLayout) and, when the statistics
// give no mutual information between the kinds, it is the minimum
// spanning tree of the information distances instead (the Chow–Liu tree
// of a Gaussian tree, whose mutual information −½ log(1 − ρ²) falls as the
// distance −log |ρ| grows).
func baselineTree(st *stats.Stats, d *data.Dataset, kind data.Kind, opt Options) (*tree.Tree, error) {
	cl, err := chowLiu(st, opt.Distance.Pseudo)
	if kind != data.Mixed {
		return cl, err
	}
	if err != nil {
		mst := opt
		mst.Method, mst.Contract = MST, ContractOptions{Rule: ContractThreshold, Threshold: -1}
		r, err2 := fromStats(st, nil, mst)
		if err2 != nil {
			return nil, fmt.Errorf("%w (and the minimum spanning tree instead: %v)", err, err2)
		}
		cl = r.Tree
	}
	if _, err := repairLayout(cl, kindOf(d)); err != nil {
		return nil, err
	}
	return cl, nil
}
