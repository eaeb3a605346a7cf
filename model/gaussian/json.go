package gaussian

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/latentree/latentree/model"
)

type jsonGaussNode struct {
	Name   string   `json:"name"`
	Hidden bool     `json:"hidden"`
	Mean   float64  `json:"mean"`
	Var    float64  `json:"variance"`
	Parent string   `json:"parent,omitempty"`
	Rho    *float64 `json:"rho,omitempty"`
}

type jsonGaussModel struct {
	model.Header
	Nodes      []jsonGaussNode   `json:"nodes"`
	Provenance *model.Provenance `json:"provenance,omitempty"`
}

// WriteJSON writes a Gaussian model as a JSON document of type
// "gaussian": per node its mean, variance, parent and correlation with the
// parent ("rho").
func (g *Model) WriteJSON(w io.Writer, prov *model.Provenance) error {
	if err := g.Validate(); err != nil {
		return err
	}
	t := g.Tree
	h, err := model.NewHeader("gaussian", t, g.Root)
	if err != nil {
		return err
	}
	r := g.Rooted()
	doc := jsonGaussModel{Header: h, Provenance: prov}
	for _, v := range r.Order {
		n := jsonGaussNode{Name: t.Name(v), Hidden: t.IsHidden(v), Mean: g.Mean[v], Var: g.Var[v]}
		if v != g.Root {
			rho := g.Rho[v]
			n.Parent, n.Rho = t.Name(r.Parent[v]), &rho
		}
		doc.Nodes = append(doc.Nodes, n)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(doc)
}

func read(raw []byte) (*Model, *model.Provenance, error) {
	var doc jsonGaussModel
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, nil, fmt.Errorf("model: not a latentree model file: %w", err)
	}
	t, root, err := doc.Header.ReadTree()
	if err != nil {
		return nil, nil, err
	}
	g, err := New(t, root, 0)
	if err != nil {
		return nil, nil, err
	}
	r := g.Rooted()
	seen := make([]bool, t.MaxID())
	for _, n := range doc.Nodes {
		v, ok := t.Lookup(n.Name)
		if !ok {
			return nil, nil, fmt.Errorf("model: node %q is not in the tree", n.Name)
		}
		if seen[v] {
			return nil, nil, fmt.Errorf("model: node %q appears twice", n.Name)
		}
		seen[v] = true
		g.Mean[v], g.Var[v] = n.Mean, n.Var
		if v == root {
			continue
		}
		if n.Parent != t.Name(r.Parent[v]) || n.Rho == nil {
			return nil, nil, fmt.Errorf("model: node %q needs parent %q and a correlation rho", n.Name, t.Name(r.Parent[v]))
		}
		g.Rho[v] = *n.Rho
	}
	for _, v := range t.Nodes() {
		if !seen[v] {
			return nil, nil, fmt.Errorf("model: node %q has no parameters", t.Name(v))
		}
	}
	if err := g.Validate(); err != nil {
		return nil, nil, err
	}
	return g, doc.Provenance, nil
}
