package mixed

import (
	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/tree"
)

// discreteBranches roots t at its first node and returns the rooting and
// a function that counts, for a node v, the branches of v (the subtrees
// of its neighbours) that hold a node marked in disc.
func discreteBranches(t *tree.Tree, disc []bool) (*tree.Rooted, func(v int) int) {
	r := t.Root(t.Nodes()[0])
	below := make([]int, t.MaxID()) // marked nodes in each subtree
	for i := len(r.Order) - 1; i >= 0; i-- {
		v := r.Order[i]
		if disc[v] {
			below[v]++
		}
		if p := r.Parent[v]; p >= 0 {
			below[p] += below[v]
		}
	}
	total := below[r.Root]
	return r, func(v int) int {
		n := 0
		for _, c := range r.Children[v] {
			if below[c] > 0 {
				n++
			}
		}
		if r.Parent[v] >= 0 && total-below[v] > 0 {
			n++
		}
		return n
	}
}

// Misplaced returns the continuous observed nodes of t that lie on a path
// between two discrete observed nodes (discrete nodes in two or more of
// their branches): the nodes for which Layout fails, since no orientation
// keeps every discrete node above them. kind reports the kind of an
// observed node by its name; nodes it does not know count as neither
// kind. The nodes come in the order of t rooted at its first node.
func Misplaced(t *tree.Tree, kind func(name string) (data.Kind, bool)) []int {
	if len(t.Nodes()) == 0 {
		return nil
	}
	disc, cont := make([]bool, t.MaxID()), make([]bool, t.MaxID())
	for _, v := range t.Observed() {
		k, ok := kind(t.Name(v))
		disc[v] = ok && k == data.Discrete
		cont[v] = ok && k == data.Continuous
	}
	r, branches := discreteBranches(t, disc)
	var out []int
	for _, v := range r.Order {
		if cont[v] && branches(v) >= 2 {
			out = append(out, v)
		}
	}
	return out
}

// Repair hangs every Misplaced node of t under a new discrete hidden node,
// so that Layout accepts t: the new node takes the continuous node's place
// (its edges, with their lengths) and the continuous node becomes its
// leaf, at length 0, so that path lengths between the other nodes are
// unchanged. It returns the names of the nodes it moved (none: t is
// unchanged). Moving a node changes no other node's branches, so one pass
// repairs the tree.
func Repair(t *tree.Tree, kind func(name string) (data.Kind, bool)) ([]string, error) {
	var moved []string
	for _, v := range Misplaced(t, kind) {
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
		if _, _, err := Layout(t, kind, false); err != nil {
			return nil, err
		}
	}
	return moved, nil
}

// ColumnKinds returns the kind of d's columns by name, as Layout, Misplaced
// and Repair ask for it.
func ColumnKinds(d *data.Dataset) func(name string) (data.Kind, bool) {
	return func(name string) (data.Kind, bool) {
		j, ok := d.Index(name)
		if !ok {
			return 0, false
		}
		return d.Var(j).Kind, true
	}
}
