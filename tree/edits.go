package tree

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// RemoveNode removes a node and its edges.
func (t *Tree) RemoveNode(id int) {
	t.check(id)
	for _, h := range t.adj[id] {
		k := t.find(h.To, id)
		t.adj[h.To] = slices.Delete(t.adj[h.To], k, k+1)
		t.edges--
	}
	t.adj[id] = nil
	if n := t.nodes[id].Name; n != "" {
		delete(t.byName, n)
	}
	t.alive[id] = false
	t.live--
}

// Contract contracts the edge between keep and drop: drop disappears and its
// other neighbours are joined to keep. The length of each new edge is the sum
// of the contracted edge's length and the length of the edge it replaces, so
// that path lengths between the remaining nodes are preserved as well as a
// tree with one node fewer allows.
func (t *Tree) Contract(keep, drop int) error {
	t.check(keep)
	t.check(drop)
	l, ok := t.EdgeLength(keep, drop)
	if !ok {
		return fmt.Errorf("tree: cannot contract: no edge between %s and %s", t.Name(keep), t.Name(drop))
	}
	// Check before changing anything, so that an error leaves t as it was.
	// (In a tree, drop's other neighbours are never adjacent to keep.)
	for _, h := range t.adj[drop] {
		if h.To != keep && t.find(keep, h.To) >= 0 {
			return fmt.Errorf("tree: cannot contract %s into %s: %s is adjacent to both", t.Name(drop), t.Name(keep), t.Name(h.To))
		}
	}
	moved := slices.Clone(t.adj[drop])
	t.RemoveNode(drop)
	for _, h := range moved {
		if h.To == keep {
			continue
		}
		if err := t.AddEdge(keep, h.To, l+h.Length); err != nil {
			return err
		}
	}
	return nil
}

// SuppressHidden removes redundant hidden nodes: hidden leaves are deleted
// and hidden nodes of degree two are replaced by a single edge whose length
// is the sum of the two, repeatedly until none is left. It returns the
// number of nodes removed. Such nodes carry no information about the
// observed variables (Choi et al. 2011, condition C1).
func (t *Tree) SuppressHidden() int {
	removed := 0
	for changed := true; changed; {
		changed = false
		for id, ok := range t.alive {
			if !ok || !t.nodes[id].Hidden {
				continue
			}
			switch len(t.adj[id]) {
			case 0, 1:
				t.RemoveNode(id)
			case 2:
				a, b := t.adj[id][0], t.adj[id][1]
				t.RemoveNode(id)
				if t.find(a.To, b.To) < 0 {
					t.adj[a.To] = append(t.adj[a.To], Half{To: b.To, Length: a.Length + b.Length})
					t.adj[b.To] = append(t.adj[b.To], Half{To: a.To, Length: a.Length + b.Length})
					t.edges++
				}
			default:
				continue
			}
			removed++
			changed = true
		}
	}
	return removed
}

// Clone returns a deep copy of the tree with the same node identifiers.
func (t *Tree) Clone() *Tree {
	c := &Tree{
		nodes: slices.Clone(t.nodes),
		alive: slices.Clone(t.alive),
		adj:   make([][]Half, len(t.adj)),
		live:  t.live,
		edges: t.edges,
	}
	// One backing array for all adjacency lists (each capped at its
	// length, so that appending to one moves it rather than overwriting
	// the next): searches clone a tree per candidate.
	total := 0
	for _, a := range t.adj {
		total += len(a)
	}
	buf := make([]Half, total)
	for k, a := range t.adj {
		if len(a) > 0 {
			n := copy(buf, a)
			c.adj[k], buf = buf[:n:n], buf[n:]
		}
	}
	c.byName = maps.Clone(t.byName)
	return c
}

// Compact returns a copy of the tree whose node identifiers are 0..n-1 in the
// order of the old identifiers, together with the map from old to new
// identifiers (-1 for removed nodes).
func (t *Tree) Compact() (*Tree, []int) {
	old2new := make([]int, len(t.nodes))
	c := &Tree{}
	for id, ok := range t.alive {
		if !ok {
			old2new[id] = -1
			continue
		}
		// The names are unique in t, and the edges of t join distinct
		// nodes once each: the checks of AddNode and AddEdge would pass.
		old2new[id] = c.addNode(t.nodes[id])
	}
	for _, e := range t.Edges() {
		c.link(old2new[e.U], old2new[e.V], e.Length)
	}
	return c, old2new
}

// AutoNameHidden gives every unnamed hidden node a name prefix+k, k = 1, 2,
// ..., skipping names already in use, in increasing order of identifier.
func (t *Tree) AutoNameHidden(prefix string) {
	k := 1
	for id, ok := range t.alive {
		if !ok || !t.nodes[id].Hidden || t.nodes[id].Name != "" {
			continue
		}
		for {
			name := prefix + strconv.Itoa(k)
			k++
			if _, used := t.byName[name]; !used {
				t.setName(id, name) // a hidden node, a name not in use
				break
			}
		}
	}
}

// ReplaceSubtree replaces the part of t spanned by the nodes in set with the
// tree sub. The nodes in set must induce a connected subtree of t; all edges
// among them are removed. subToT maps each node of sub either to a node of
// set (which it stands for) or to -1, in which case a copy of the sub node is
// added to t. Every node of set must be the image of exactly one sub node.
// The edges of sub are then added. It returns, for every identifier of sub,
// the identifier of the corresponding node in t.
//
// This is the subtree replacement of CLGrouping (Choi et al. 2011, §5.4).
func (t *Tree) ReplaceSubtree(set []int, sub *Tree, subToT []int) ([]int, error) {
	if len(subToT) != sub.MaxID() {
		return nil, fmt.Errorf("tree: ReplaceSubtree: mapping has %d entries for %d sub nodes", len(subToT), sub.MaxID())
	}
	in := make(map[int]bool, len(set))
	for _, id := range set {
		t.check(id)
		in[id] = true
	}
	covered := make(map[int]bool, len(set))
	for s, id := range subToT {
		if !sub.Has(s) || id < 0 {
			continue
		}
		if !in[id] {
			return nil, fmt.Errorf("tree: ReplaceSubtree: sub node %s maps to %s, which is not in the replaced set", sub.Name(s), t.describe(id))
		}
		if covered[id] {
			return nil, fmt.Errorf("tree: ReplaceSubtree: two sub nodes map to %s", t.Name(id))
		}
		covered[id] = true
	}
	if len(covered) != len(in) {
		return nil, errors.New("tree: ReplaceSubtree: the sub tree does not cover the replaced set")
	}
	// Decide the nodes to add before changing anything, so that an error
	// leaves t as it was.
	added := make([]Node, sub.MaxID())
	for s := range added {
		if !sub.Has(s) || subToT[s] >= 0 {
			continue
		}
		n := sub.nodes[s]
		if n.Name != "" {
			if _, dup := t.byName[n.Name]; dup {
				if !n.Hidden {
					return nil, fmt.Errorf("%w %q", ErrDuplicateName, n.Name)
				}
				n.Name = "" // names of new hidden nodes are not kept if they clash
			}
		}
		added[s] = n
	}
	// Remove edges within the set.
	for _, u := range set {
		for k := len(t.adj[u]) - 1; k >= 0; k-- {
			v := t.adj[u][k].To
			if u < v && in[v] {
				if err := t.RemoveEdge(u, v); err != nil {
					return nil, internalError("ReplaceSubtree", err) // v is in t.adj[u]
				}
			}
		}
	}
	out := make([]int, sub.MaxID())
	for s := range out {
		out[s] = -1
		if !sub.Has(s) {
			continue
		}
		if subToT[s] >= 0 {
			out[s] = subToT[s]
			continue
		}
		id, err := t.AddNode(added[s])
		if err != nil {
			return nil, internalError("ReplaceSubtree", err) // names were checked above
		}
		out[s] = id
	}
	for _, e := range sub.Edges() {
		// Cannot fail: edges among the set were removed and the other
		// endpoints are new nodes.
		if err := t.AddEdge(out[e.U], out[e.V], e.Length); err != nil {
			return nil, internalError("ReplaceSubtree", err)
		}
	}
	return out, nil
}
