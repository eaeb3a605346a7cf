package mixed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/internal/counts"
)

// Map-reduce EM. One iteration of EM is an E-step, a sum over rows, then
// an M-step. Counts computes the expected sufficient statistics of a shard
// of the data (EStep), Counts.Merge adds up the statistics of several
// shards, and MStepCounts turns the sum into new parameters: the same
// iteration as EStep and MStep on all the rows, computed wherever the
// shards are. Counts carry fingerprints of the model they were computed
// with, so that counts of another model, or of the same structure at
// other parameters (another iteration), are refused.

// CountsFormat and CountsVersion identify the JSON document of Counts.
const (
	CountsFormat  = "latentree-mixed-em-counts"
	CountsVersion = 1
)

// MaxCountsBytes bounds the size of a counts document ReadCounts reads:
// far above what a model of data.MaxStates-state nodes writes per node,
// it keeps a hostile or mistaken input from exhausting memory.
const MaxCountsBytes = counts.MaxBytes

// Counts are the expected sufficient statistics (Expected) of one E-step
// of a mixed model over some rows, by node name, with fingerprints of the
// model. Counts of disjoint shards add up (Merge) to the counts of their
// union, up to rounding.
type Counts struct {
	// Structure is a fingerprint (SHA-256, hex) of the model's rooted
	// structure: node names, hidden or observed, kinds, numbers of states,
	// state labels and parents.
	Structure string `json:"structure"`
	// Params is a fingerprint (SHA-256, hex) of the exact parameters the
	// E-step used.
	Params string `json:"params"`
	// Rows is the number of data rows (Expected.Rows).
	Rows float64 `json:"rows"`
	// LogLik is the log-likelihood of the rows at the parameters used
	// when Impossible is 0; with Impossible > 0 the log-likelihood is −∞
	// (TotalLogLik) and LogLik is 0.
	LogLik float64 `json:"loglik"`
	// Impossible counts the rows of probability 0 at the parameters used.
	Impossible int `json:"impossible_rows,omitempty"`
	// Nodes has one entry per node, parents before children: the root
	// first, then depth first with children in the order of their names
	// (so that copies of a model, whatever their node identifiers, list
	// them alike).
	Nodes []NodeCounts `json:"nodes"`
}

// NodeCounts are a node's expected sufficient statistics (see Expected).
type NodeCounts struct {
	Name   string `json:"name"`
	Parent string `json:"parent,omitempty"`
	// Kind is "discrete" or "continuous".
	Kind string `json:"kind"`
	// Table of a discrete node: Table[a][s] is the expected number of
	// rows with the parent in state a and the node in state s; the root
	// has one row.
	Table [][]float64 `json:"table,omitempty"`
	// W, S1, S2 of a continuous node: one entry per state of a discrete
	// parent, else one (Expected.W, S1, S2).
	W  []float64 `json:"w,omitempty"`
	S1 []float64 `json:"s1,omitempty"`
	S2 []float64 `json:"s2,omitempty"`
	// P1, P2 and Cross of a continuous node with a continuous parent.
	P1    float64 `json:"p1,omitempty"`
	P2    float64 `json:"p2,omitempty"`
	Cross float64 `json:"cross,omitempty"`
}

const (
	kindDiscrete   = "discrete"
	kindContinuous = "continuous"
)

// countsOrder returns m's nodes root first, then depth first with the
// children of each node in the order of their names.
func (m *Model) countsOrder() (order, parent []int) {
	r := m.Rooted()
	stack := []int{m.Root}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		order = append(order, v)
		kids := append([]int(nil), r.Children[v]...)
		sort.Slice(kids, func(i, j int) bool { return m.Tree.Name(kids[i]) > m.Tree.Name(kids[j]) })
		stack = append(stack, kids...)
	}
	return order, r.Parent
}

// fingerprints returns the structure and parameter fingerprints of m.
// Unnamed hidden nodes are first named h1, h2, ..., as WriteJSON does.
func (m *Model) fingerprints() (structure, params string) {
	m.Tree.AutoNameHidden("h")
	order, parents := m.countsOrder()
	f := counts.NewFingerprinter(CountsFormat)
	for _, v := range order {
		f.Str(m.Tree.Name(v))
		parent := ""
		if p := parents[v]; p >= 0 {
			parent = m.Tree.Name(p)
		}
		f.Str(parent)
		f.Str(strconv.FormatBool(m.Tree.IsHidden(v)))
		if m.Kinds[v] == data.Discrete {
			f.Str(kindDiscrete)
			f.Str(strconv.Itoa(m.States[v]))
			if !m.Tree.IsHidden(v) {
				for _, l := range m.StateLabels(v) {
					f.Str(l)
				}
			}
			if v == m.Root {
				f.Nums(m.Prior)
			} else {
				f.Nums(m.CPT[v])
			}
			continue
		}
		f.Str(kindContinuous)
		f.Nums(m.Mean[v])
		f.Nums(m.Var[v])
		f.Num(m.Coef[v])
	}
	return f.Sums()
}

// Counts runs one E-step (EStep) over the rows of d at the model's
// current parameters and returns its statistics with the model's
// fingerprints; the model is not changed. A shard may have no rows.
func (m *Model) Counts(d *data.Dataset, opt model.InferOptions) (*Counts, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	e, err := m.EStep(d, opt)
	if err != nil {
		return nil, err
	}
	c := &Counts{Rows: e.Rows, Impossible: e.Impossible}
	if e.Impossible == 0 {
		c.LogLik = e.LogLik
	}
	c.Structure, c.Params = m.fingerprints()
	order, parents := m.countsOrder()
	for _, v := range order {
		n := NodeCounts{Name: m.Tree.Name(v), Kind: kindContinuous}
		p := parents[v]
		if p >= 0 {
			n.Parent = m.Tree.Name(p)
		}
		if m.Kinds[v] == data.Discrete {
			n.Kind = kindDiscrete
			k, rows := m.States[v], 1
			if p >= 0 {
				rows = m.States[p]
			}
			if len(e.Counts[v]) != k*rows {
				return nil, fmt.Errorf("model: the E-step gave %d counts for node %s, want %d", len(e.Counts[v]), n.Name, k*rows)
			}
			for a := range rows {
				n.Table = append(n.Table, append([]float64(nil), e.Counts[v][a*k:(a+1)*k]...))
			}
		} else {
			n.W, n.S1, n.S2 = clone(e.W[v]), clone(e.S1[v]), clone(e.S2[v])
			if p >= 0 && m.Kinds[p] == data.Continuous {
				n.P1, n.P2, n.Cross = e.P1[v], e.P2[v], e.Cross[v]
			}
		}
		c.Nodes = append(c.Nodes, n)
	}
	return c, nil
}

func clone(x []float64) []float64 { return append([]float64(nil), x...) }

// TotalLogLik returns the log-likelihood of all the rows: LogLik, or −∞
// when some rows have probability 0.
func (c *Counts) TotalLogLik() float64 {
	if c.Impossible > 0 {
		return math.Inf(-1)
	}
	return c.LogLik
}

// Merge adds the counts of o to c: the counts of the union of their rows.
// Both must come from E-steps of the same model at the same parameters
// (equal fingerprints and nodes of the same shapes); otherwise c is left
// unchanged and the error says which differs. The sums agree with an
// E-step on the concatenated rows up to rounding, not bit for bit.
func (c *Counts) Merge(o *Counts) error {
	if err := countsSpec.SameModel(c.Structure, c.Params, o.Structure, o.Params); err != nil {
		return err
	}
	if err := c.sameShape(o); err != nil {
		return fmt.Errorf("model: the counts have different shapes: %v", err)
	}
	c.Rows += o.Rows
	c.Impossible += o.Impossible
	if c.Impossible > 0 {
		c.LogLik = 0
	} else {
		c.LogLik += o.LogLik
	}
	add := func(dst, src []float64) {
		for i, x := range src {
			dst[i] += x
		}
	}
	for i := range c.Nodes {
		n, p := &c.Nodes[i], &o.Nodes[i]
		for a, row := range n.Table {
			add(row, p.Table[a])
		}
		add(n.W, p.W)
		add(n.S1, p.S1)
		add(n.S2, p.S2)
		n.P1 += p.P1
		n.P2 += p.P2
		n.Cross += p.Cross
	}
	return nil
}

// sameShape reports why c and o do not have the same nodes and tables.
func (c *Counts) sameShape(o *Counts) error {
	if len(c.Nodes) != len(o.Nodes) {
		return fmt.Errorf("%d nodes against %d", len(c.Nodes), len(o.Nodes))
	}
	for i, n := range c.Nodes {
		p := o.Nodes[i]
		if n.Name != p.Name || n.Parent != p.Parent || n.Kind != p.Kind {
			return fmt.Errorf("node %d is %s %q (parent %q) against %s %q (parent %q)", i, n.Kind, n.Name, n.Parent, p.Kind, p.Name, p.Parent)
		}
		if len(n.Table) != len(p.Table) || len(n.W) != len(p.W) || len(n.S1) != len(p.S1) || len(n.S2) != len(p.S2) {
			return fmt.Errorf("node %q has tables of other sizes", n.Name)
		}
		for a := range n.Table {
			if len(n.Table[a]) != len(p.Table[a]) {
				return fmt.Errorf("node %q has %d states against %d", n.Name, len(n.Table[a]), len(p.Table[a]))
			}
		}
	}
	return nil
}

// MStepCounts sets the model's parameters from statistics computed by
// Counts with this model (same structure and parameters; otherwise an
// error and the model is unchanged), as MStep does from the Expected of
// all the rows; floored lists the nodes whose variance MStep floored.
func (m *Model) MStepCounts(c *Counts) (floored []int, err error) {
	if c == nil {
		return nil, errors.New("model: no counts")
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	structure, params := m.fingerprints()
	if err := countsSpec.FromModel(c.Structure, c.Params, structure, params); err != nil {
		return nil, err
	}
	if !(c.Rows > 0) {
		return nil, errors.New("model: no rows to fit (the counts are of 0 rows)")
	}
	e, err := m.expectedOf(c)
	if err != nil {
		return nil, err
	}
	return m.MStep(e)
}

// expectedOf turns counts into the Expected of m's nodes, checking every
// node's name, kind and sizes against the model.
func (m *Model) expectedOf(c *Counts) (*Expected, error) {
	order, parents := m.countsOrder()
	if len(c.Nodes) != len(order) {
		return nil, fmt.Errorf("model: counts of %d nodes for a model of %d", len(c.Nodes), len(order))
	}
	n := m.Tree.MaxID()
	e := &Expected{Rows: c.Rows, Impossible: c.Impossible, LogLik: c.TotalLogLik(),
		Counts: make([][]float64, n), W: make([][]float64, n), S1: make([][]float64, n), S2: make([][]float64, n),
		P1: make([]float64, n), P2: make([]float64, n), Cross: make([]float64, n)}
	for i, v := range order {
		nc := c.Nodes[i]
		p := parents[v]
		bad := func(what string) error {
			return fmt.Errorf("model: counts of node %q do not fit node %q of the model (%s)", nc.Name, m.Tree.Name(v), what)
		}
		if nc.Name != m.Tree.Name(v) {
			return nil, bad("name")
		}
		parentStates := 1
		if p >= 0 && m.Kinds[p] == data.Discrete {
			parentStates = m.States[p]
		}
		if m.Kinds[v] == data.Discrete {
			k := m.States[v]
			if nc.Kind != kindDiscrete || len(nc.Table) != parentStates {
				return nil, bad("kind or parent states")
			}
			e.Counts[v] = make([]float64, 0, k*parentStates)
			for _, row := range nc.Table {
				if len(row) != k {
					return nil, bad(fmt.Sprintf("%d states, want %d", len(row), k))
				}
				e.Counts[v] = append(e.Counts[v], row...)
			}
			continue
		}
		if nc.Kind != kindContinuous || len(nc.W) != parentStates || len(nc.S1) != parentStates || len(nc.S2) != parentStates {
			return nil, bad("kind or parent states")
		}
		e.W[v], e.S1[v], e.S2[v] = clone(nc.W), clone(nc.S1), clone(nc.S2)
		e.P1[v], e.P2[v], e.Cross[v] = nc.P1, nc.P2, nc.Cross
	}
	return e, nil
}

var countsSpec = counts.Spec{Format: CountsFormat, Version: CountsVersion, Name: "mixed EM counts", Structure: "nodes, kinds, states or state labels"}

type countsDoc struct {
	counts.Header
	*Counts
}

// WriteCounts writes the counts as a JSON document:
//
//	{"format":"latentree-mixed-em-counts","version":1,
//	 "structure":"<sha256>","params":"<sha256>","rows":1000,"loglik":-5321.7,
//	 "nodes":[{"name":"h1","kind":"discrete","table":[[512.3,487.7]]},
//	          {"name":"x1","parent":"h1","kind":"continuous","w":[512.3,487.7],"s1":[...],"s2":[...]},
//	          {"name":"x2","parent":"x1"...,"p1":..,"p2":..,"cross":..}, ...]}
//
// Numbers are written exactly (shortest round-trip form).
func (c *Counts) WriteCounts(w io.Writer) error {
	if err := c.check(); err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(countsDoc{Header: countsSpec.Header(), Counts: c})
}

// ReadCounts reads counts written by WriteCounts, at most MaxCountsBytes,
// checking the format, the version and every node (names, parents before
// children, sizes that agree with the parent's, finite values, counts and
// second moments ≥ 0).
func ReadCounts(r io.Reader) (*Counts, error) { return readCounts(r, MaxCountsBytes) }

// readCounts is ReadCounts with a limit of max bytes.
func readCounts(r io.Reader, max int64) (*Counts, error) {
	doc := countsDoc{Counts: &Counts{}}
	if err := countsSpec.Read(r, max, &doc, &doc.Header); err != nil {
		return nil, err
	}
	if err := doc.Counts.check(); err != nil {
		return nil, err
	}
	return doc.Counts, nil
}

// check reports counts that no E-step writes.
func (c *Counts) check() error {
	if err := counts.CheckFingerprints(c.Structure, c.Params); err != nil {
		return err
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if !finite(c.Rows) || c.Rows < 0 {
		return fmt.Errorf("model: EM counts: %g rows", c.Rows)
	}
	if !finite(c.LogLik) { // a log density: it may be positive
		return fmt.Errorf("model: EM counts: log-likelihood %g, want a finite value", c.LogLik)
	}
	if c.Impossible < 0 || float64(c.Impossible) > c.Rows {
		return fmt.Errorf("model: EM counts: %d rows of probability 0 among %g", c.Impossible, c.Rows)
	}
	if len(c.Nodes) == 0 {
		return errors.New("model: EM counts: no nodes")
	}
	type info struct {
		kind   string
		states int
	}
	seen := make(map[string]info, len(c.Nodes))
	for i, n := range c.Nodes {
		if _, dup := seen[n.Name]; n.Name == "" || dup {
			return fmt.Errorf("model: EM counts: node %d has an empty or repeated name %q", i, n.Name)
		}
		if (i == 0) != (n.Parent == "") {
			return fmt.Errorf("model: EM counts: node %q: only the first node, the root, has no parent", n.Name)
		}
		want := 1 // table rows, or continuous entries
		if i > 0 {
			p, ok := seen[n.Parent]
			if !ok {
				return fmt.Errorf("model: EM counts: node %q comes before its parent %q", n.Name, n.Parent)
			}
			if p.kind == kindDiscrete {
				want = p.states
			} else if n.Kind == kindDiscrete {
				return fmt.Errorf("model: EM counts: discrete node %q has a continuous parent %q", n.Name, n.Parent)
			}
		}
		nonNeg := func(what string, xs ...float64) error {
			for _, x := range xs {
				if !finite(x) || x < 0 {
					return fmt.Errorf("model: EM counts: node %q has the %s %g; want finite and ≥ 0", n.Name, what, x)
				}
			}
			return nil
		}
		switch n.Kind {
		case kindDiscrete:
			if len(n.Table) != want || n.W != nil || n.S1 != nil || n.S2 != nil || n.P1 != 0 || n.P2 != 0 || n.Cross != 0 {
				return fmt.Errorf("model: EM counts: discrete node %q needs a table of %d rows and nothing else", n.Name, want)
			}
			k := len(n.Table[0])
			for _, row := range n.Table {
				if k == 0 || len(row) != k || k > data.MaxStates {
					return fmt.Errorf("model: EM counts: node %q has rows of %d and %d states", n.Name, k, len(row))
				}
				if err := nonNeg("count", row...); err != nil {
					return err
				}
			}
			seen[n.Name] = info{kindDiscrete, k}
		case kindContinuous:
			if n.Table != nil || len(n.W) != want || len(n.S1) != want || len(n.S2) != want {
				return fmt.Errorf("model: EM counts: continuous node %q needs w, s1 and s2 of %d entries and no table", n.Name, want)
			}
			if err := nonNeg("weight", n.W...); err != nil {
				return err
			}
			if err := nonNeg("second moment", n.S2...); err != nil {
				return err
			}
			if err := nonNeg("second moment", n.P2); err != nil {
				return err
			}
			for _, x := range append([]float64{n.P1, n.Cross}, n.S1...) {
				if !finite(x) {
					return fmt.Errorf("model: EM counts: node %q has the moment %g; want finite", n.Name, x)
				}
			}
			seen[n.Name] = info{kind: kindContinuous}
		default:
			return fmt.Errorf("model: EM counts: node %q has kind %q, want discrete or continuous", n.Name, n.Kind)
		}
	}
	return nil
}
