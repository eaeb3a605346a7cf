package tree

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Node is a node of a Tree: an observed variable (Hidden false, Name the
// variable's name) or a hidden variable (Hidden true, Name optional).
type Node struct {
	Name   string
	Hidden bool
}

// Half is one end of an edge as seen from a node: the neighbour and the
// length of the edge (NaN when unknown).
type Half struct {
	To     int
	Length float64
}

// Edge is an undirected edge with U < V.
type Edge struct {
	U, V   int
	Length float64
}

// Tree is an undirected tree (or, while being built, a forest) of observed
// and hidden nodes. The zero value is an empty tree ready to use.
//
// Methods that take node identifiers panic when given one that does not name
// a live node, as slices do for an index out of range: that is a programming
// error, not bad input.
type Tree struct {
	nodes  []Node
	alive  []bool
	adj    [][]Half
	byName map[string]int
	live   int
	edges  int
}

// New returns an empty tree.
func New() *Tree { return &Tree{} }

// ErrDuplicateName is returned when a node would get a name that another
// node of the tree already has.
var ErrDuplicateName = errors.New("tree: duplicate node name")

// AddNode adds a node and returns its identifier. Non-empty names must be
// unique within the tree; an observed node must have a name.
func (t *Tree) AddNode(n Node) (int, error) {
	if !n.Hidden && n.Name == "" {
		return -1, errors.New("tree: observed node without a name")
	}
	if n.Name != "" {
		if _, dup := t.byName[n.Name]; dup {
			return -1, fmt.Errorf("%w %q", ErrDuplicateName, n.Name)
		}
	}
	return t.addNode(n), nil
}

// addNode is AddNode without its checks, for callers that have made them.
func (t *Tree) addNode(n Node) int {
	id := len(t.nodes)
	t.nodes = append(t.nodes, n)
	t.alive = append(t.alive, true)
	t.adj = append(t.adj, nil)
	t.live++
	if n.Name != "" {
		if t.byName == nil {
			t.byName = make(map[string]int)
		}
		t.byName[n.Name] = id
	}
	return id
}

// AddObserved adds an observed node with the given name.
func (t *Tree) AddObserved(name string) (int, error) {
	return t.AddNode(Node{Name: name})
}

// AddHidden adds an unnamed hidden node. Use AutoNameHidden to give hidden
// nodes names once a tree is complete.
func (t *Tree) AddHidden() int {
	return t.addNode(Node{Hidden: true}) // no name: nothing to check
}

func (t *Tree) check(id int) {
	if id < 0 || id >= len(t.nodes) || !t.alive[id] {
		panic(fmt.Sprintf("tree: node %d does not exist", id))
	}
}

// Has reports whether id names a live node.
func (t *Tree) Has(id int) bool { return id >= 0 && id < len(t.nodes) && t.alive[id] }

// Node returns the node with the given identifier.
func (t *Tree) Node(id int) Node { t.check(id); return t.nodes[id] }

// Name returns the node's name, or for an unnamed hidden node a stable
// placeholder "#id".
func (t *Tree) Name(id int) string {
	t.check(id)
	if n := t.nodes[id].Name; n != "" {
		return n
	}
	return "#" + strconv.Itoa(id)
}

// IsHidden reports whether the node is hidden.
func (t *Tree) IsHidden(id int) bool { t.check(id); return t.nodes[id].Hidden }

// SetName renames a node. An empty name is allowed only for hidden nodes.
func (t *Tree) SetName(id int, name string) error {
	t.check(id)
	old := t.nodes[id].Name
	if old == name {
		return nil
	}
	if name == "" && !t.nodes[id].Hidden {
		return errors.New("tree: observed node without a name")
	}
	if name != "" {
		if _, dup := t.byName[name]; dup {
			return fmt.Errorf("%w %q", ErrDuplicateName, name)
		}
	}
	t.setName(id, name)
	return nil
}

// setName is SetName without its checks, for callers that have made them.
func (t *Tree) setName(id int, name string) {
	old := t.nodes[id].Name
	if old != "" {
		delete(t.byName, old)
	}
	if name != "" {
		if t.byName == nil {
			t.byName = make(map[string]int)
		}
		t.byName[name] = id
	}
	t.nodes[id].Name = name
}

// Lookup returns the node with the given (non-empty) name.
func (t *Tree) Lookup(name string) (int, bool) {
	id, ok := t.byName[name]
	return id, ok
}

// MaxID returns one more than the largest node identifier ever issued; use it
// to size slices indexed by node identifier.
func (t *Tree) MaxID() int { return len(t.nodes) }

// NumNodes returns the number of live nodes.
func (t *Tree) NumNodes() int { return t.live }

// NumEdges returns the number of edges.
func (t *Tree) NumEdges() int { return t.edges }

// Nodes returns the identifiers of live nodes in increasing order.
func (t *Tree) Nodes() []int {
	ids := make([]int, 0, t.live)
	for id, ok := range t.alive {
		if ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// Observed returns the identifiers of the observed nodes in increasing order.
func (t *Tree) Observed() []int {
	n := t.NumObserved()
	if n == 0 {
		return nil
	}
	ids := make([]int, 0, n) // counted first: models list them often
	for id, ok := range t.alive {
		if ok && !t.nodes[id].Hidden {
			ids = append(ids, id)
		}
	}
	return ids
}

// Hidden returns the identifiers of the hidden nodes in increasing order.
func (t *Tree) Hidden() []int {
	n := t.NumHidden()
	if n == 0 {
		return nil
	}
	ids := make([]int, 0, n) // counted first: models list them often
	for id, ok := range t.alive {
		if ok && t.nodes[id].Hidden {
			ids = append(ids, id)
		}
	}
	return ids
}

// NumObserved returns the number of observed nodes.
func (t *Tree) NumObserved() int {
	n := 0
	for id, ok := range t.alive {
		if ok && !t.nodes[id].Hidden {
			n++
		}
	}
	return n
}

// NumHidden returns the number of hidden nodes.
func (t *Tree) NumHidden() int { return t.live - t.NumObserved() }

// ObservedNames returns the names of the observed nodes, sorted.
func (t *Tree) ObservedNames() []string {
	var names []string
	for id, ok := range t.alive {
		if ok && !t.nodes[id].Hidden {
			names = append(names, t.nodes[id].Name)
		}
	}
	slices.Sort(names)
	return names
}

// Adjacent returns the edges at node id. The slice belongs to the tree: do
// not modify it, and do not keep it across changes to the tree.
func (t *Tree) Adjacent(id int) []Half { t.check(id); return t.adj[id] }

// Neighbors returns the neighbours of node id in a new slice.
func (t *Tree) Neighbors(id int) []int {
	t.check(id)
	nb := make([]int, len(t.adj[id]))
	for k, h := range t.adj[id] {
		nb[k] = h.To
	}
	return nb
}

// Degree returns the number of edges at node id.
func (t *Tree) Degree(id int) int { t.check(id); return len(t.adj[id]) }

// IsLeaf reports whether node id has degree at most one.
func (t *Tree) IsLeaf(id int) bool { return t.Degree(id) <= 1 }

func (t *Tree) find(u, v int) int {
	for k, h := range t.adj[u] {
		if h.To == v {
			return k
		}
	}
	return -1
}

// HasEdge reports whether u and v are adjacent.
func (t *Tree) HasEdge(u, v int) bool {
	t.check(u)
	t.check(v)
	return t.find(u, v) >= 0
}

// AddEdge joins u and v with an edge of the given length (NaN if unknown).
// It does not check for cycles: Validate does.
func (t *Tree) AddEdge(u, v int, length float64) error {
	t.check(u)
	t.check(v)
	if u == v {
		return fmt.Errorf("tree: self-loop at node %s", t.Name(u))
	}
	if t.find(u, v) >= 0 {
		return fmt.Errorf("tree: nodes %s and %s are already adjacent", t.Name(u), t.Name(v))
	}
	t.link(u, v, length)
	return nil
}

// link is AddEdge without its checks, for callers that have made them: u
// and v are distinct live nodes, not adjacent yet.
func (t *Tree) link(u, v int, length float64) {
	t.adj[u] = append(t.adj[u], Half{To: v, Length: length})
	t.adj[v] = append(t.adj[v], Half{To: u, Length: length})
	t.edges++
}

// RemoveEdge removes the edge between u and v.
func (t *Tree) RemoveEdge(u, v int) error {
	t.check(u)
	t.check(v)
	ku, kv := t.find(u, v), t.find(v, u)
	if ku < 0 || kv < 0 {
		return fmt.Errorf("tree: no edge between %s and %s", t.Name(u), t.Name(v))
	}
	t.adj[u] = slices.Delete(t.adj[u], ku, ku+1)
	t.adj[v] = slices.Delete(t.adj[v], kv, kv+1)
	t.edges--
	return nil
}

// EdgeLength returns the length of the edge between u and v and whether
// the edge exists.
func (t *Tree) EdgeLength(u, v int) (float64, bool) {
	t.check(u)
	t.check(v)
	k := t.find(u, v)
	if k < 0 {
		return math.NaN(), false
	}
	return t.adj[u][k].Length, true
}

// SetEdgeLength sets the length of the edge between u and v.
func (t *Tree) SetEdgeLength(u, v int, length float64) error {
	t.check(u)
	t.check(v)
	ku, kv := t.find(u, v), t.find(v, u)
	if ku < 0 || kv < 0 {
		return fmt.Errorf("tree: no edge between %s and %s", t.Name(u), t.Name(v))
	}
	t.adj[u][ku].Length = length
	t.adj[v][kv].Length = length
	return nil
}

// Edges returns all edges, each with U < V, ordered by (U, V).
func (t *Tree) Edges() []Edge {
	es := make([]Edge, 0, t.edges)
	for u, ok := range t.alive {
		if !ok {
			continue
		}
		for _, h := range t.adj[u] {
			if u < h.To {
				es = append(es, Edge{U: u, V: h.To, Length: h.Length})
			}
		}
	}
	slices.SortFunc(es, func(a, b Edge) int {
		if a.U != b.U {
			return a.U - b.U
		}
		return a.V - b.V
	})
	return es
}

// Validate checks that the tree is a single connected tree with at least
// one node, whose observed nodes have distinct non-empty names, and whose
// edge lengths are not negative or infinite (NaN means unknown and is
// allowed).
func (t *Tree) Validate() error {
	if err := t.checkShape(); err != nil {
		return err
	}
	// The first invalid edge in the order of Edges (by U, then V, U < V),
	// without making the list: models validate their tree often.
	for u, ok := range t.alive {
		if !ok {
			continue
		}
		bad := -1
		for k, h := range t.adj[u] {
			if u < h.To && (h.Length < 0 || math.IsInf(h.Length, 0)) && (bad < 0 || h.To < t.adj[u][bad].To) {
				bad = k
			}
		}
		if bad >= 0 {
			h := t.adj[u][bad]
			return fmt.Errorf("tree: edge %s–%s has invalid length %g", t.Name(u), t.Name(h.To), h.Length)
		}
	}
	return nil
}

// checkShape checks that the tree is a single connected tree with at least
// one node, ignoring edge lengths.
func (t *Tree) checkShape() error {
	if t.live == 0 {
		return errors.New("tree: empty tree")
	}
	if t.edges != t.live-1 {
		return fmt.Errorf("tree: %d nodes and %d edges: not a tree", t.live, t.edges)
	}
	// Connectivity.
	start := -1
	for id, ok := range t.alive {
		if ok {
			start = id
			break
		}
	}
	seen := make([]bool, len(t.nodes))
	stack := []int{start}
	seen[start] = true
	count := 0
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		count++
		for _, h := range t.adj[u] {
			if !seen[h.To] {
				seen[h.To] = true
				stack = append(stack, h.To)
			}
		}
	}
	if count != t.live {
		return fmt.Errorf("tree: not connected (%d of %d nodes reachable)", count, t.live)
	}
	return nil
}

// NonMinimal returns the hidden nodes whose degree is less than three, the
// nodes that make a latent tree non-identifiable (Choi et al. 2011, C1).
func (t *Tree) NonMinimal() []int {
	var ids []int
	for id, ok := range t.alive {
		if ok && t.nodes[id].Hidden && len(t.adj[id]) < 3 {
			ids = append(ids, id)
		}
	}
	return ids
}

// describe names a node for an error message without panicking when id does
// not name a live node.
func (t *Tree) describe(id int) string {
	if t.Has(id) {
		return t.Name(id)
	}
	return "nonexistent node " + strconv.Itoa(id)
}
