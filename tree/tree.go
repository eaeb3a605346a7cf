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
	return id, nil
}

// AddObserved adds an observed node with the given name.
func (t *Tree) AddObserved(name string) (int, error) {
	return t.AddNode(Node{Name: name})
}

// AddHidden adds an unnamed hidden node. Use AutoNameHidden to give hidden
// nodes names once a tree is complete.
func (t *Tree) AddHidden() int {
	id, _ := t.AddNode(Node{Hidden: true}) // cannot fail: no name
	return id
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
	return nil
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
	var ids []int
	for id, ok := range t.alive {
		if ok && !t.nodes[id].Hidden {
			ids = append(ids, id)
		}
	}
	return ids
}

// Hidden returns the identifiers of the hidden nodes in increasing order.
func (t *Tree) Hidden() []int {
	var ids []int
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
	t.adj[u] = append(t.adj[u], Half{To: v, Length: length})
	t.adj[v] = append(t.adj[v], Half{To: u, Length: length})
	t.edges++
	return nil
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
	for k, a := range t.adj {
		c.adj[k] = slices.Clone(a)
	}
	if t.byName != nil {
		c.byName = make(map[string]int, len(t.byName))
		for k, v := range t.byName {
			c.byName[k] = v
		}
	}
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
		old2new[id], _ = c.AddNode(t.nodes[id]) // names are already unique
	}
	for _, e := range t.Edges() {
		_ = c.AddEdge(old2new[e.U], old2new[e.V], e.Length)
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
				_ = t.SetName(id, name)
				break
			}
		}
	}
}

// Validate checks that the tree is a single connected tree with at least
// one node, whose observed nodes have distinct non-empty names, and whose
// edge lengths are not negative or infinite (NaN means unknown and is
// allowed).
func (t *Tree) Validate() error {
	if err := t.checkShape(); err != nil {
		return err
	}
	for _, e := range t.Edges() {
		if e.Length < 0 || math.IsInf(e.Length, 0) {
			return fmt.Errorf("tree: edge %s–%s has invalid length %g", t.Name(e.U), t.Name(e.V), e.Length)
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

// Path returns the nodes on the path from u to v, both included. It returns
// nil if v cannot be reached from u.
func (t *Tree) Path(u, v int) []int {
	t.check(u)
	t.check(v)
	if u == v {
		return []int{u}
	}
	prev := make([]int, len(t.nodes))
	for i := range prev {
		prev[i] = -2
	}
	prev[u] = -1
	queue := []int{u}
	for len(queue) > 0 && prev[v] == -2 {
		x := queue[0]
		queue = queue[1:]
		for _, h := range t.adj[x] {
			if prev[h.To] == -2 {
				prev[h.To] = x
				queue = append(queue, h.To)
			}
		}
	}
	if prev[v] == -2 {
		return nil
	}
	var p []int
	for x := v; x != -1; x = prev[x] {
		p = append(p, x)
	}
	slices.Reverse(p)
	return p
}

// PathLength returns the sum of edge lengths on the path from u to v (NaN if
// a length on it is unknown, +Inf if v cannot be reached).
func (t *Tree) PathLength(u, v int) float64 {
	p := t.Path(u, v)
	if p == nil {
		return math.Inf(1)
	}
	s := 0.0
	for k := 1; k < len(p); k++ {
		l, _ := t.EdgeLength(p[k-1], p[k])
		s += l
	}
	return s
}

// Rooted is a tree oriented away from a root, for message passing.
type Rooted struct {
	Root int
	// Parent[id] is the parent of node id, -1 for the root and for
	// identifiers that are not part of the tree.
	Parent []int
	// ParentLength[id] is the length of the edge from id to its parent.
	ParentLength []float64
	// Children[id] are the children of node id.
	Children [][]int
	// Order lists the nodes reachable from the root, parents before
	// children (breadth-first). Iterate it backwards for a post-order.
	Order []int
}

// Root orients the tree away from root. Nodes not connected to root are not
// in the result.
func (t *Tree) Root(root int) *Rooted {
	t.check(root)
	n := len(t.nodes)
	r := &Rooted{
		Root:         root,
		Parent:       make([]int, n),
		ParentLength: make([]float64, n),
		Children:     make([][]int, n),
		Order:        make([]int, 0, t.live),
	}
	for i := range r.Parent {
		r.Parent[i] = -1
		r.ParentLength[i] = math.NaN()
	}
	seen := make([]bool, n)
	seen[root] = true
	r.Order = append(r.Order, root)
	for k := 0; k < len(r.Order); k++ {
		u := r.Order[k]
		for _, h := range t.adj[u] {
			if seen[h.To] {
				continue
			}
			seen[h.To] = true
			r.Parent[h.To] = u
			r.ParentLength[h.To] = h.Length
			r.Children[u] = append(r.Children[u], h.To)
			r.Order = append(r.Order, h.To)
		}
	}
	return r
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
				_ = t.RemoveEdge(u, v)
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
			panic("tree: ReplaceSubtree: " + err.Error()) // names were checked above
		}
		out[s] = id
	}
	for _, e := range sub.Edges() {
		// Cannot fail: edges among the set were removed and the other
		// endpoints are new nodes.
		if err := t.AddEdge(out[e.U], out[e.V], e.Length); err != nil {
			panic("tree: ReplaceSubtree: " + err.Error())
		}
	}
	return out, nil
}

// describe names a node for an error message without panicking when id does
// not name a live node.
func (t *Tree) describe(id int) string {
	if t.Has(id) {
		return t.Name(id)
	}
	return "nonexistent node " + strconv.Itoa(id)
}
