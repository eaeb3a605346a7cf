package spectral

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

type jsonSpecVar struct {
	Name   string   `json:"name"`
	Labels []string `json:"labels"`
}

type jsonSpecMode struct {
	// Kind is "parent", "child" or "leaf"; Rep names the observed
	// variable whose states index the mode; Child is the child factor's
	// index (kind "child").
	Kind  string `json:"kind"`
	Rep   string `json:"rep"`
	Child int    `json:"child,omitempty"`
}

type jsonSpecFactor struct {
	// Node names the factor's tree node (empty for a copy of a split
	// node); Parent is the parent factor's index (−1 for the root).
	Node   string         `json:"node,omitempty"`
	CopyOf string         `json:"copy_of,omitempty"`
	Parent int            `json:"parent"`
	Rank   int            `json:"rank"`
	Modes  []jsonSpecMode `json:"modes"`
	Shape  []int          `json:"shape"`
	// Table is the joint table of the modes' representatives, row-major
	// (first mode slowest).
	Table []float64 `json:"table"`
	// Linker (nb×na, rows indexed by the parent's representative b) and
	// Pair (P̂(x_a, x_b), na×nb) of the edge to the parent.
	Linker []float64     `json:"linker,omitempty"`
	Pair   []float64     `json:"pair,omitempty"`
	Edge   *EdgeSpectrum `json:"edge,omitempty"`
}

type jsonSpecModel struct {
	model.Header
	HiddenStates int               `json:"hidden_states"`
	Linker       string            `json:"linker"`
	Tol          float64           `json:"tol"`
	Observed     []jsonSpecVar     `json:"observed"`
	Factors      []jsonSpecFactor  `json:"factors"`
	Provenance   *model.Provenance `json:"provenance,omitempty"`
}

// WriteJSON writes the model as a latentree-model document of type
// "spectral": the tree, k′, the linker, the observed variables' states,
// and the tensor network's factors (each with its representatives, table,
// and the linker, pair table and singular values of the edge to its
// parent factor).
func (s *Model) WriteJSON(w io.Writer, prov *model.Provenance) error {
	if err := s.Validate(); err != nil {
		return err
	}
	t := s.Tree
	h, err := model.NewHeader("spectral", t, s.root)
	if err != nil {
		return err
	}
	doc := jsonSpecModel{Header: h,
		HiddenStates: s.HiddenStates, Linker: s.Linker.String(), Tol: s.Tol, Provenance: prov}
	for _, v := range t.Observed() {
		doc.Observed = append(doc.Observed, jsonSpecVar{Name: t.Name(v), Labels: s.StateLabels(v)})
	}
	for f := range s.net.factors {
		fac := &s.net.factors[f]
		jf := jsonSpecFactor{Parent: fac.parent, Rank: fac.rank, Shape: fac.shape, Table: fac.table, Linker: fac.linker, Pair: fac.pair}
		if fac.node >= 0 {
			jf.Node = t.Name(fac.node)
		}
		if fac.copyOf >= 0 {
			jf.CopyOf = t.Name(fac.copyOf)
		}
		if fac.parent >= 0 {
			e := fac.edge
			jf.Edge = &e
		}
		for _, m := range fac.modes {
			jm := jsonSpecMode{Rep: t.Name(m.rep)}
			switch m.kind {
			case modeParent:
				jm.Kind = "parent"
			case modeChild:
				jm.Kind, jm.Child = "child", m.child
			default:
				jm.Kind = "leaf"
			}
			jf.Modes = append(jf.Modes, jm)
		}
		doc.Factors = append(doc.Factors, jf)
	}
	return model.WriteDocument(w, doc)
}

// read reads a document written by Model.WriteJSON and checks
// that its network is consistent with its tree.
func read(raw []byte) (*Model, *model.Provenance, error) {
	var doc jsonSpecModel
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, nil, fmt.Errorf("model: not a latentree model file: %w", err)
	}
	t, root, err := doc.Header.ReadTree()
	if err != nil {
		return nil, nil, err
	}
	linker, err := model.ParseLinker(doc.Linker)
	if err != nil {
		return nil, nil, err
	}
	if doc.HiddenStates < 1 || !(doc.Tol > 0 && doc.Tol < 1) {
		return nil, nil, fmt.Errorf("model: spectral model with %d hidden states and tolerance %g", doc.HiddenStates, doc.Tol)
	}
	s := &Model{Tree: t, HiddenStates: doc.HiddenStates, Linker: linker, Tol: doc.Tol,
		States: make([]int, t.MaxID()), Labels: make([][]string, t.MaxID())}
	s.root = root
	for _, jv := range doc.Observed {
		v, ok := t.Lookup(jv.Name)
		if !ok || t.IsHidden(v) {
			return nil, nil, fmt.Errorf("model: %q is not an observed node of the tree", jv.Name)
		}
		if len(jv.Labels) < 1 || s.States[v] != 0 {
			return nil, nil, fmt.Errorf("model: observed variable %q has no states or is listed twice", jv.Name)
		}
		s.States[v], s.Labels[v] = len(jv.Labels), jv.Labels
	}
	for _, v := range t.Observed() {
		if s.States[v] == 0 {
			return nil, nil, fmt.Errorf("model: observed variable %q has no states", t.Name(v))
		}
	}
	net, err := specNetFromJSON(t, s.States, doc.Factors)
	if err != nil {
		return nil, nil, err
	}
	s.setNet(net)
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	return s, doc.Provenance, nil
}

// specNetFromJSON builds and checks the network of a file's factors:
// each factor on its own, then the links between parents and children,
// then that every factor hangs from the root.
func specNetFromJSON(t *tree.Tree, states []int, jfs []jsonSpecFactor) (*specNet, error) {
	net := &specNet{states: states, leafOf: make([]int, t.MaxID()), root: -1}
	for i := range net.leafOf {
		net.leafOf[i] = -1
	}
	nf := len(jfs)
	if nf == 0 {
		return nil, errors.New("model: spectral model without factors")
	}
	childOf := make([]int, nf)
	for i := range childOf {
		childOf[i] = -1
	}
	for f := range jfs {
		fac, err := net.factorFromJSON(t, states, jfs, f, childOf)
		if err != nil {
			return nil, err
		}
		net.factors = append(net.factors, fac)
	}
	if net.root < 0 {
		return nil, errors.New("model: spectral model without a root factor")
	}
	if err := net.checkLinks(childOf); err != nil {
		return nil, err
	}
	for _, v := range t.Observed() {
		if net.leafOf[v] < 0 {
			return nil, fmt.Errorf("model: spectral model: observed variable %q is not a leaf of any factor", t.Name(v))
		}
	}
	if err := net.orderFromRoot(); err != nil {
		return nil, err
	}
	return net, nil
}

// badFactor is the error of a file's factor f.
func badFactor(f int, format string, args ...any) error {
	return fmt.Errorf("model: spectral factor %d: %s", f, fmt.Sprintf(format, args...))
}

// factorFromJSON checks and converts the file's factor f, recording in
// net its root and leaves and in childOf the parent of each child mode.
func (net *specNet) factorFromJSON(t *tree.Tree, states []int, jfs []jsonSpecFactor, f int, childOf []int) (specFactor, error) {
	bad := badFactor
	nf := len(jfs)
	jf := jfs[f]
	fac := specFactor{node: -1, copyOf: -1, parent: jf.Parent, rank: jf.Rank, table: jf.Table, linker: jf.Linker, pair: jf.Pair}
	if jf.Node != "" {
		v, ok := t.Lookup(jf.Node)
		if !ok {
			return fac, bad(f, "node %q is not in the tree", jf.Node)
		}
		fac.node = v
	}
	if jf.CopyOf != "" {
		v, ok := t.Lookup(jf.CopyOf)
		if !ok || fac.node >= 0 {
			return fac, bad(f, "copy_of %q is not a node of the tree, or the factor is a node itself", jf.CopyOf)
		}
		fac.copyOf = v
	}
	if jf.Parent < -1 || jf.Parent >= nf || jf.Parent == f {
		return fac, bad(f, "parent %d out of range", jf.Parent)
	}
	if jf.Parent < 0 {
		if net.root >= 0 {
			return fac, bad(f, "a second root")
		}
		net.root = f
	}
	if len(jf.Shape) != len(jf.Modes) || len(jf.Modes) == 0 {
		return fac, bad(f, "%d modes and a shape of %d", len(jf.Modes), len(jf.Shape))
	}
	for i, jm := range jf.Modes {
		v, ok := t.Lookup(jm.Rep)
		if !ok || t.IsHidden(v) {
			return fac, bad(f, "representative %q is not an observed node", jm.Rep)
		}
		if jf.Shape[i] != states[v] {
			return fac, bad(f, "mode %d has %d states, %q has %d", i, jf.Shape[i], jm.Rep, states[v])
		}
		m := specMode{rep: v}
		switch jm.Kind {
		case "parent":
			if i != 0 || jf.Parent < 0 {
				return fac, bad(f, "a parent mode must be the first mode of a non-root factor")
			}
			m.kind = modeParent
		case "child":
			if jm.Child < 0 || jm.Child >= nf || childOf[jm.Child] >= 0 || jfs[jm.Child].Parent != f {
				return fac, bad(f, "child %d is not a factor whose parent is %d", jm.Child, f)
			}
			childOf[jm.Child] = f
			m.kind, m.child = modeChild, jm.Child
		case "leaf":
			if net.leafOf[v] >= 0 {
				return fac, bad(f, "observed variable %q is a leaf of two factors", jm.Rep)
			}
			net.leafOf[v] = f
			m.kind = modeLeaf
		default:
			return fac, bad(f, "unknown mode kind %q", jm.Kind)
		}
		fac.modes = append(fac.modes, m)
	}
	if jf.Parent >= 0 && fac.modes[0].kind != modeParent {
		return fac, bad(f, "no parent mode")
	}
	fac.shape = append([]int(nil), jf.Shape...)
	if cellCount(fac.shape) != len(fac.table) {
		return fac, bad(f, "%d table entries for shape %v", len(fac.table), fac.shape)
	}
	if jf.Edge != nil {
		fac.edge = *jf.Edge
	}
	for _, x := range append(append(append([]float64(nil), fac.table...), fac.linker...), fac.pair...) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fac, bad(f, "a non-finite number")
		}
	}
	return fac, nil
}

// checkLinks checks that every non-root factor is a child mode of its
// parent (childOf, from factorFromJSON) and that its linker and pair
// table fit the edge.
func (net *specNet) checkLinks(childOf []int) error {
	for f := range net.factors {
		fac := &net.factors[f]
		if fac.parent >= 0 {
			if childOf[f] != fac.parent {
				return badFactor(f, "its parent %d has no child mode for it", fac.parent)
			}
			na, nb := fac.shape[0], net.factors[fac.parent].shape[net.childMode(fac.parent, f)]
			if len(fac.linker) != na*nb {
				return badFactor(f, "a linker of %d entries, want %d×%d", len(fac.linker), nb, na)
			}
			if fac.pair != nil && len(fac.pair) != na*nb {
				return badFactor(f, "a pair table of %d entries, want %d×%d", len(fac.pair), na, nb)
			}
		}
	}
	return nil
}

// orderFromRoot sets net.order, parents before children, from the root,
// checking that every factor is reached once.
func (net *specNet) orderFromRoot() error {
	nf := len(net.factors)
	seen := make([]bool, nf)
	queue := []int{net.root}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if seen[f] {
			return badFactor(f, "reached twice")
		}
		seen[f] = true
		net.order = append(net.order, f)
		for _, m := range net.factors[f].modes {
			if m.kind == modeChild {
				queue = append(queue, m.child)
			}
		}
	}
	if len(net.order) != nf {
		return fmt.Errorf("model: spectral model: %d of %d factors are not connected to the root", nf-len(net.order), nf)
	}
	return nil
}
