package tree

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/latentree/latentree/internal/unionfind"
)

// JSONFormat and JSONVersion identify the JSON document written by
// MarshalJSON.
const (
	JSONFormat  = "latentree-tree"
	JSONVersion = 1
)

type jsonTree struct {
	Format  string     `json:"format"`
	Version int        `json:"version"`
	Nodes   []jsonNode `json:"nodes"`
	Edges   []jsonEdge `json:"edges"`
}

type jsonNode struct {
	ID     *int   `json:"id"`
	Name   string `json:"name,omitempty"`
	Hidden bool   `json:"hidden"`
}

type jsonEdge struct {
	U      *int     `json:"u"`
	V      *int     `json:"v"`
	Length *float64 `json:"length"`
}

// MarshalJSON encodes the tree as the JSON document
//
//	{"format":"latentree-tree","version":1,
//	 "nodes":[{"id":0,"name":"a","hidden":false},{"id":1,"hidden":true},...],
//	 "edges":[{"u":0,"v":1,"length":0.5},{"u":1,"v":2,"length":null},...]}
//
// Node identifiers are renumbered 0..n-1 in the order of the tree's
// identifiers; names of unnamed hidden nodes are omitted; unknown lengths
// are null. Lengths are written exactly. The tree may be a forest (as while
// it is being built) but not have a cycle, and edge lengths must be NaN or
// finite and not negative, as UnmarshalJSON requires.
func (t *Tree) MarshalJSON() ([]byte, error) {
	doc, err := t.jsonDoc()
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

func (t *Tree) jsonDoc() (*jsonTree, error) {
	if err := t.checkForest(); err != nil {
		return nil, err
	}
	c, _ := t.Compact()
	doc := &jsonTree{Format: JSONFormat, Version: JSONVersion, Nodes: make([]jsonNode, 0, c.live), Edges: make([]jsonEdge, 0, c.edges)}
	for id, n := range c.nodes {
		doc.Nodes = append(doc.Nodes, jsonNode{ID: &id, Name: n.Name, Hidden: n.Hidden})
	}
	for _, e := range c.Edges() {
		je := jsonEdge{U: &e.U, V: &e.V}
		if !math.IsNaN(e.Length) {
			je.Length = &e.Length
		}
		doc.Edges = append(doc.Edges, je)
	}
	return doc, nil
}

// checkForest checks what the JSON form requires: no cycle and valid
// lengths.
func (t *Tree) checkForest() error {
	// Union–find over node identifiers.
	parent := make([]int, len(t.nodes))
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, e := range t.Edges() {
		if e.Length < 0 || math.IsInf(e.Length, 0) {
			return fmt.Errorf("tree: edge %s–%s has invalid length %g", t.Name(e.U), t.Name(e.V), e.Length)
		}
		a, b := find(e.U), find(e.V)
		if a == b {
			return fmt.Errorf("tree: edge %s–%s closes a cycle", t.Name(e.U), t.Name(e.V))
		}
		parent[a] = b
	}
	return nil
}

// UnmarshalJSON decodes a document written by MarshalJSON and replaces t
// with the tree it describes; on error t is unchanged. The nodes get the
// identifiers 0..n-1 in increasing order of their "id" values (so a
// document written by MarshalJSON keeps its identifiers). It is an error if
// the format or version is not known, a field is unknown or missing, an
// identifier is repeated, an edge names an unknown node, joins a node to
// itself or repeats another edge, the edges make a cycle, a length is
// negative, two nodes have the same name, or an observed node has no name.
// The document may describe a forest; call Validate to insist on a single
// tree.
func (t *Tree) UnmarshalJSON(data []byte) error {
	nt, err := decodeJSON(data)
	if err != nil {
		return err
	}
	*t = *nt
	return nil
}

func decodeJSON(data []byte) (*Tree, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc jsonTree
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("tree: JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("tree: JSON: unexpected data after the tree document")
	}
	return doc.tree()
}

func (doc *jsonTree) tree() (*Tree, error) {
	if doc.Format != JSONFormat {
		return nil, fmt.Errorf("tree: JSON: format is %q, want %q", doc.Format, JSONFormat)
	}
	if doc.Version != JSONVersion {
		return nil, fmt.Errorf("tree: JSON: %s version %d is not supported (want %d)", JSONFormat, doc.Version, JSONVersion)
	}
	order := make([]int, len(doc.Nodes)) // indices of doc.Nodes by id
	for k, n := range doc.Nodes {
		if n.ID == nil {
			return nil, fmt.Errorf("tree: JSON: node %d (from 0) has no id", k)
		}
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(*doc.Nodes[a].ID, *doc.Nodes[b].ID) })
	ids := make(map[int]int, len(doc.Nodes)) // document id -> tree id
	t := &Tree{}
	for _, k := range order {
		n := doc.Nodes[k]
		if _, dup := ids[*n.ID]; dup {
			return nil, fmt.Errorf("tree: JSON: node id %d is used twice", *n.ID)
		}
		id, err := t.AddNode(Node{Name: n.Name, Hidden: n.Hidden})
		if err != nil {
			return nil, fmt.Errorf("tree: JSON: node id %d: %w", *n.ID, err)
		}
		ids[*n.ID] = id
	}
	joined := unionfind.New[int](len(doc.Nodes)) // for cycles
	for k, e := range doc.Edges {
		if e.U == nil || e.V == nil {
			return nil, fmt.Errorf("tree: JSON: edge %d (from 0) lacks \"u\" or \"v\"", k)
		}
		u, ok := ids[*e.U]
		if !ok {
			return nil, fmt.Errorf("tree: JSON: edge %d (from 0) refers to unknown node id %d", k, *e.U)
		}
		v, ok := ids[*e.V]
		if !ok {
			return nil, fmt.Errorf("tree: JSON: edge %d (from 0) refers to unknown node id %d", k, *e.V)
		}
		l := math.NaN()
		if e.Length != nil {
			l = *e.Length
			if l < 0 {
				return nil, fmt.Errorf("tree: JSON: edge %d (from 0), %s–%s, has negative length %g", k, t.Name(u), t.Name(v), l)
			}
		}
		if u == v {
			return nil, fmt.Errorf("tree: JSON: edge %d (from 0) joins node %s to itself", k, t.Name(u))
		}
		if t.find(u, v) >= 0 {
			return nil, fmt.Errorf("tree: JSON: edge %d (from 0) repeats the edge %s–%s", k, t.Name(u), t.Name(v))
		}
		if !joined.Union(u, v) {
			return nil, fmt.Errorf("tree: JSON: edge %d (from 0), %s–%s, closes a cycle", k, t.Name(u), t.Name(v))
		}
		if err := t.AddEdge(u, v, l); err != nil { // checked above
			return nil, internalError("reading JSON", err)
		}
	}
	return t, nil
}

// WriteJSON writes t as by MarshalJSON, indented with one node or edge per
// line, followed by a newline.
func WriteJSON(w io.Writer, t *Tree) error {
	doc, err := t.jsonDoc()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\n  \"format\": %q,\n  \"version\": %d,\n  \"nodes\": ", doc.Format, doc.Version)
	if err := writeJSONLines(&buf, doc.Nodes); err != nil {
		return err
	}
	buf.WriteString(",\n  \"edges\": ")
	if err := writeJSONLines(&buf, doc.Edges); err != nil {
		return err
	}
	buf.WriteString("\n}\n")
	_, err = w.Write(buf.Bytes())
	return err
}

// ReadJSON reads a tree written by WriteJSON or MarshalJSON; see
// UnmarshalJSON for what is checked.
func ReadJSON(r io.Reader) (*Tree, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("tree: JSON: %w", err)
	}
	return decodeJSON(data)
}

// writeJSONLines writes items as a JSON array with one item per line,
// indented for a member of the top-level object.
func writeJSONLines[T any](buf *bytes.Buffer, items []T) error {
	buf.WriteByte('[')
	for k, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return err
		}
		if k > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n    ")
		buf.Write(b)
	}
	if len(items) > 0 {
		buf.WriteString("\n  ")
	}
	buf.WriteByte(']')
	return nil
}
