package discrete

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

type jsonNodeParams struct {
	Name   string   `json:"name"`
	Hidden bool     `json:"hidden"`
	States int      `json:"states"`
	Labels []string `json:"labels,omitempty"`
	// Parent is the parent's name (empty for the root); CPT[a][b] is
	// P(this = b | parent = a). The root has Prior instead.
	Parent string      `json:"parent,omitempty"`
	CPT    [][]float64 `json:"cpt,omitempty"`
	Prior  []float64   `json:"prior,omitempty"`
	// PriorSE and CPTSE are standard errors laid out as Prior and CPT
	// (optional: Model.SE).
	PriorSE []float64   `json:"prior_se,omitempty"`
	CPTSE   [][]float64 `json:"cpt_se,omitempty"`
}

// jsonSE describes the standard errors of the nodes' prior_se and cpt_se.
type jsonSE struct {
	Method     string `json:"method"`
	Replicates int    `json:"replicates,omitempty"`
}

type jsonModel struct {
	model.Header
	Nodes      []jsonNodeParams  `json:"nodes"`
	Covariates *jsonRegression   `json:"covariates,omitempty"`
	SE         *jsonSE           `json:"se,omitempty"`
	Provenance *model.Provenance `json:"provenance,omitempty"`
}

// jsonRegression is a root regression (Model.Regression): the covariate
// columns, the design's terms (written for readers, checked on reading)
// and the coefficients, one row per state of the root.
type jsonRegression struct {
	Columns []jsonCovariate `json:"columns"`
	Terms   []string        `json:"terms"`
	Beta    [][]float64     `json:"beta"`
	BetaSE  [][]float64     `json:"beta_se,omitempty"`
}

type jsonCovariate struct {
	Name string `json:"name"`
	// Kind is "continuous" or "categorical" (with States, the first the
	// reference).
	Kind   string   `json:"kind"`
	States []string `json:"states,omitempty"`
}

func (m *Model) jsonRegression() *jsonRegression {
	reg := m.Regression
	if reg == nil {
		return nil
	}
	out := &jsonRegression{Terms: reg.Terms()}
	for _, c := range reg.Covariates {
		kind := "continuous"
		if c.States != nil {
			kind = "categorical"
		}
		out.Columns = append(out.Columns, jsonCovariate{Name: c.Name, Kind: kind, States: c.States})
	}
	p := 1 + reg.NumTerms()
	for s := 0; s < m.States[m.Root]; s++ {
		out.Beta = append(out.Beta, reg.Beta[s*p:(s+1)*p])
		if m.SE != nil && m.SE.Beta != nil {
			out.BetaSE = append(out.BetaSE, m.SE.Beta[s*p:(s+1)*p])
		}
	}
	return out
}

// readRegression sets m.Regression from the file's, when it has one.
func (m *Model) readRegression(j *jsonRegression) error {
	if j == nil {
		return nil
	}
	reg := &RootRegression{}
	for _, c := range j.Columns {
		switch c.Kind {
		case "continuous":
			if c.States != nil {
				return fmt.Errorf("model: continuous covariate %q has states", c.Name)
			}
		case "categorical":
			if len(c.States) == 0 {
				return fmt.Errorf("model: categorical covariate %q has no states", c.Name)
			}
		default:
			return fmt.Errorf("model: covariate %q of unknown kind %q (want continuous or categorical)", c.Name, c.Kind)
		}
		reg.Covariates = append(reg.Covariates, Covariate{Name: c.Name, States: c.States})
	}
	if got, want := j.Terms, reg.Terms(); !slices.Equal(got, want) {
		return fmt.Errorf("model: the covariates' terms are %q, want %q", got, want)
	}
	k, p := m.States[m.Root], 1+reg.NumTerms()
	flat := func(rows [][]float64, what string) ([]float64, error) {
		if len(rows) != k {
			return nil, fmt.Errorf("model: the covariates' %s has %d rows, want %d (states of the root)", what, len(rows), k)
		}
		var out []float64
		for s, row := range rows {
			if len(row) != p {
				return nil, fmt.Errorf("model: the covariates' %s, row %d has %d entries, want %d", what, s, len(row), p)
			}
			out = append(out, row...)
		}
		return out, nil
	}
	var err error
	if reg.Beta, err = flat(j.Beta, "beta"); err != nil {
		return err
	}
	m.Regression = reg
	if err := m.Validate(); err != nil {
		return err
	}
	if j.BetaSE != nil {
		if m.SE == nil {
			return errors.New("model: standard errors of the covariates (beta_se) without the \"se\" description")
		}
		if m.SE.Beta, err = flat(j.BetaSE, "beta_se"); err != nil {
			return err
		}
		for _, x := range m.SE.Beta {
			if !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("model: the covariates have standard error %g", x)
			}
		}
	}
	return nil
}

// WriteJSON writes the model as a JSON document:
//
//	{"format":"latentree-model","version":1,"type":"discrete",
//	 "root":"h1", "tree":{latentree-tree document},
//	 "nodes":[{"name":"h1","hidden":true,"states":2,"prior":[0.4,0.6]},
//	          {"name":"x1","hidden":false,"states":2,"labels":["0","1"],
//	           "parent":"h1","cpt":[[0.9,0.1],[0.2,0.8]]}, ...],
//	 "provenance":{...}}
//
// With standard errors (Model.SE) every node has "prior_se" or "cpt_se",
// laid out as "prior" and "cpt", and the document
// "se":{"method":"hessian"} or {"method":"bootstrap","replicates":B}.
// A root regression (Regression) is written as
//
//	"covariates":{"columns":[{"name":"age","kind":"continuous"},
//	               {"name":"sex","kind":"categorical","states":["f","m"]}],
//	              "terms":["(intercept)","age","sex=m"],
//	              "beta":[[0,0,0],[-0.5,0.02,0.8]], "beta_se":[[0,0,0],[...]]}
//
// (beta: one row per state of the root; beta_se with standard errors);
// files without it read as models without covariates.
// Nodes are referred to by name; unnamed hidden nodes are named h1, h2, ...
// (in the model's tree) first. Probabilities are written exactly.
func (m *Model) WriteJSON(w io.Writer, prov *model.Provenance) error {
	if err := m.Validate(); err != nil {
		return err
	}
	t := m.Tree
	h, err := model.NewHeader("discrete", t, m.Root)
	if err != nil {
		return err
	}
	r := m.Rooted()
	doc := jsonModel{Header: h, Provenance: prov, Covariates: m.jsonRegression()}
	for _, v := range r.Order {
		k := m.States[v]
		n := jsonNodeParams{Name: t.Name(v), Hidden: t.IsHidden(v), States: k}
		if !t.IsHidden(v) {
			n.Labels = m.StateLabels(v)
		}
		if v == m.Root {
			n.Prior = m.Prior
		} else {
			p := r.Parent[v]
			n.Parent = t.Name(p)
			for a := 0; a < m.States[p]; a++ {
				n.CPT = append(n.CPT, m.CPT[v][a*k:(a+1)*k])
			}
		}
		if se := m.SE; se != nil {
			if v == m.Root {
				n.PriorSE = se.Prior
			} else {
				for a := 0; a < m.States[r.Parent[v]]; a++ {
					n.CPTSE = append(n.CPTSE, se.CPT[v][a*k:(a+1)*k])
				}
			}
		}
		doc.Nodes = append(doc.Nodes, n)
	}
	if se := m.SE; se != nil {
		if err := m.checkSE(); err != nil {
			return err
		}
		doc.SE = &jsonSE{Method: se.Method, Replicates: se.Replicates}
	}
	return model.WriteDocument(w, doc)
}

// ReadJSON reads a model written by WriteJSON, checking every part: the
// format and version, the tree, that every node of the tree has exactly
// one entry with the right parent, and that the prior and CPT rows are
// probability distributions of the declared sizes.
func ReadJSON(in io.Reader) (*Model, *model.Provenance, error) {
	var doc jsonModel
	dec := json.NewDecoder(in)
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, fmt.Errorf("model: not a latentree model file: %w", err)
	}
	t, root, err := readHeader(doc.Header)
	if err != nil {
		return nil, nil, err
	}
	entry, states, err := nodeEntries(t, doc.Nodes)
	if err != nil {
		return nil, nil, err
	}
	m, err := New(t, root, states)
	if err != nil {
		return nil, nil, err
	}
	if err := m.setParams(entry, doc.Root); err != nil {
		return nil, nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	if err := m.readSE(entry, doc.SE); err != nil {
		return nil, nil, err
	}
	if err := m.readRegression(doc.Covariates); err != nil {
		return nil, nil, err
	}
	return m, doc.Provenance, nil
}

// readSE sets m.SE from the file's standard errors, when it has them: the
// "se" description and every node's prior_se or cpt_se, of the sizes of
// its parameters, finite and non-negative.
func (m *Model) readSE(entry []*jsonNodeParams, desc *jsonSE) error {
	t := m.Tree
	has := false
	for _, v := range t.Nodes() {
		has = has || entry[v].PriorSE != nil || entry[v].CPTSE != nil
	}
	if desc == nil {
		if has {
			return errors.New("model: standard errors (prior_se, cpt_se) without their \"se\" description")
		}
		return nil
	}
	if desc.Method != SEHessian && desc.Method != SESandwich && desc.Method != SEBootstrap {
		return fmt.Errorf("model: standard errors of unknown method %q (want %q, %q or %q)", desc.Method, SEHessian, SESandwich, SEBootstrap)
	}
	se := &StdErrors{Method: desc.Method, Replicates: desc.Replicates, CPT: make([][]float64, len(m.CPT))}
	for _, v := range t.Nodes() {
		n := entry[v]
		if v == m.Root {
			se.Prior = n.PriorSE
			continue
		}
		if len(n.CPTSE) != len(n.CPT) {
			return fmt.Errorf("model: cpt_se of %q has %d rows, want %d", n.Name, len(n.CPTSE), len(n.CPT))
		}
		for a, row := range n.CPTSE {
			if len(row) != n.States {
				return fmt.Errorf("model: cpt_se of %q, row %d has %d entries, want %d", n.Name, a, len(row), n.States)
			}
			se.CPT[v] = append(se.CPT[v], row...)
		}
	}
	m.SE = se
	return m.checkSE()
}

// checkSE checks that m.SE has the layout of the parameters and holds
// finite, non-negative numbers.
func (m *Model) checkSE() error {
	se, t := m.SE, m.Tree
	check := func(what string, got []float64, n int) error {
		if len(got) != n {
			return fmt.Errorf("model: %s has %d standard errors, want %d", what, len(got), n)
		}
		for _, x := range got {
			if !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("model: %s has standard error %g", what, x)
			}
		}
		return nil
	}
	if len(se.CPT) < len(m.CPT) {
		return errors.New("model: standard errors for fewer nodes than the model has")
	}
	for _, v := range t.Nodes() {
		var err error
		if v == m.Root {
			err = check("the prior of "+t.Name(v), se.Prior, len(m.Prior))
		} else {
			err = check("the CPT of "+t.Name(v), se.CPT[v], len(m.CPT[v]))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readHeader checks a discrete model file's header and reads its tree,
// whose nodes must all be named, and root.
func readHeader(h model.Header) (*tree.Tree, int, error) {
	if h.Format != model.ModelFormat {
		return nil, 0, fmt.Errorf("model: format %q, want %q", h.Format, model.ModelFormat)
	}
	if h.Version != model.ModelVersion {
		return nil, 0, fmt.Errorf("model: version %d not supported (this latentree reads version %d)", h.Version, model.ModelVersion)
	}
	if h.Type != "discrete" {
		return nil, 0, fmt.Errorf("model: type %q not supported (want discrete)", h.Type)
	}
	if len(h.Tree) == 0 {
		return nil, 0, errors.New("model: no tree")
	}
	t := tree.New()
	if err := t.UnmarshalJSON(h.Tree); err != nil {
		return nil, 0, fmt.Errorf("model: tree: %w", err)
	}
	if err := t.Validate(); err != nil {
		return nil, 0, fmt.Errorf("model: tree: %w", err)
	}
	for _, v := range t.Nodes() {
		if t.Node(v).Name == "" {
			return nil, 0, errors.New("model: every node of the tree must be named")
		}
	}
	root, ok := t.Lookup(h.Root)
	if !ok {
		return nil, 0, fmt.Errorf("model: root %q is not a node of the tree", h.Root)
	}
	return t, root, nil
}

// nodeEntries matches the file's node entries to t's nodes (each node
// exactly once, hidden as in the tree, with at least one state) and
// returns them, with the states, indexed by node.
func nodeEntries(t *tree.Tree, nodes []jsonNodeParams) ([]*jsonNodeParams, []int, error) {
	states := make([]int, t.MaxID())
	entry := make([]*jsonNodeParams, t.MaxID())
	for i := range nodes {
		n := &nodes[i]
		v, ok := t.Lookup(n.Name)
		if !ok {
			return nil, nil, fmt.Errorf("model: node %q is not in the tree", n.Name)
		}
		if entry[v] != nil {
			return nil, nil, fmt.Errorf("model: node %q appears twice", n.Name)
		}
		if n.Hidden != t.IsHidden(v) {
			return nil, nil, fmt.Errorf("model: node %q is hidden in one place and observed in another", n.Name)
		}
		if n.States < 1 {
			return nil, nil, fmt.Errorf("model: node %q has %d states", n.Name, n.States)
		}
		entry[v], states[v] = n, n.States
	}
	for _, v := range t.Nodes() {
		if entry[v] == nil {
			return nil, nil, fmt.Errorf("model: node %q has no parameters", t.Name(v))
		}
	}
	return entry, states, nil
}

// setParams copies the entries' labels, prior and CPTs into m, checking
// their sizes and that each entry names the parent it has when m is
// rooted at rootName. The values are checked later by Validate (NaN in
// the prior here).
func (m *Model) setParams(entry []*jsonNodeParams, rootName string) error {
	t, states := m.Tree, m.States
	r := m.Rooted()
	for _, v := range t.Nodes() {
		n := entry[v]
		if n.Labels != nil {
			if len(n.Labels) != n.States {
				return fmt.Errorf("model: node %q has %d states but %d labels", n.Name, n.States, len(n.Labels))
			}
			m.Labels[v] = n.Labels
		}
		if v == m.Root {
			if len(n.Prior) != n.States {
				return fmt.Errorf("model: root %q needs a prior of %d probabilities", n.Name, n.States)
			}
			m.Prior = n.Prior
			continue
		}
		p := r.Parent[v]
		if n.Parent != t.Name(p) {
			return fmt.Errorf("model: node %q has parent %q in the file but %q when rooted at %q", n.Name, n.Parent, t.Name(p), rootName)
		}
		if len(n.CPT) != states[p] {
			return fmt.Errorf("model: CPT of %q has %d rows, want %d (states of %q)", n.Name, len(n.CPT), states[p], n.Parent)
		}
		flat := make([]float64, 0, states[p]*n.States)
		for a, row := range n.CPT {
			if len(row) != n.States {
				return fmt.Errorf("model: CPT of %q, row %d has %d entries, want %d", n.Name, a, len(row), n.States)
			}
			flat = append(flat, row...)
		}
		m.CPT[v] = flat
	}
	for _, x := range m.Prior {
		if math.IsNaN(x) {
			return errors.New("model: NaN in the prior")
		}
	}
	return nil
}
