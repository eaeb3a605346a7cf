package discrete

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	countsfile "github.com/latentree/latentree/model/internal/counts"
)

// Map-reduce EM. One iteration of plain EM (AccelNone) is an E-step, a sum
// over rows, then an M-step. EStep computes the expected counts of a shard
// of the data, Counts.Merge adds up the counts of several shards, and
// MStep turns the sum into new parameters: the same iteration as FitEM's,
// computed wherever the shards are. Counts carry fingerprints of the
// model they were computed with, so that counts of another model, or of
// the same structure at other parameters (another iteration), are refused.
// Only discrete models have this; Gaussian models are left out.

// CountsFormat and CountsVersion identify the JSON document of Counts.
const (
	CountsFormat  = "latentree-em-counts"
	CountsVersion = 1
)

// Counts are the expected sufficient statistics of one E-step of a
// discrete model over some rows: for every node, the expected number of
// rows with each (parent state, state) pair (the root: each state), plus
// the log-likelihood of the rows and their number. Counts of disjoint
// shards add up (Merge) to the counts of their union, up to rounding.
type Counts struct {
	// Structure is a fingerprint (SHA-256, hex) of the model's rooted
	// structure: node names, hidden or observed, numbers of states, state
	// labels and parents.
	Structure string `json:"structure"`
	// Params is a fingerprint (SHA-256, hex) of the exact parameters the
	// E-step used.
	Params string `json:"params"`
	// Rows is the number of data rows.
	Rows int `json:"rows"`
	// LogLik is the log-likelihood of the rows at the parameters used
	// (natural log), leaving out the Impossible rows of probability 0,
	// as FitEM does; the log-likelihood of all the rows is −∞ when
	// Impossible > 0 (see TotalLogLik).
	LogLik float64 `json:"loglik"`
	// Impossible counts the rows of probability 0 at the parameters used.
	Impossible int `json:"impossible_rows,omitempty"`
	// Nodes has one entry per node, in the model's rooted order (parents
	// before children, the root first).
	Nodes []NodeCounts `json:"nodes"`
}

// NodeCounts are a node's expected counts: Table[a][s] is the expected
// number of rows with the parent in state a and the node in state s. The
// root has a single row, the expected number of rows in each state.
type NodeCounts struct {
	Name   string      `json:"name"`
	Parent string      `json:"parent,omitempty"`
	Table  [][]float64 `json:"table"`
}

// fingerprints returns the structure and parameter fingerprints of m.
// Unnamed hidden nodes are first named h1, h2, ..., as WriteJSON does.
func (m *Model) fingerprints() (structure, params string) {
	m.Tree.AutoNameHidden("h")
	r := m.Rooted()
	f := countsfile.NewFingerprinter(CountsFormat)
	for _, v := range r.Order {
		f.Str(m.Tree.Name(v))
		parent := ""
		if p := r.Parent[v]; p >= 0 {
			parent = m.Tree.Name(p)
		}
		f.Str(parent)
		f.Str(strconv.FormatBool(m.Tree.IsHidden(v)))
		f.Str(strconv.Itoa(m.States[v]))
		if !m.Tree.IsHidden(v) {
			for _, l := range m.StateLabels(v) {
				f.Str(l)
			}
		}
		t := m.Prior
		if v != m.Root {
			t = m.CPT[v]
		}
		for _, x := range t {
			f.Num(x)
		}
	}
	return f.Sums()
}

// EStep runs one E-step of EM over the rows of d at the model's current
// parameters and returns the expected counts; the model is not changed.
// d must match the model as for FitEM (columns by name, states by label;
// missing cells are marginalised). A shard may have no rows.
//
// EStep on the whole data followed by MStep is exactly one iteration of
// FitEM with Accel AccelNone (with Pseudo > 0, FitEM first raises zero
// parameters to 1e-10; EStep does not).
func (m *Model) EStep(d *data.Dataset, opt model.InferOptions) (*Counts, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	b, err := m.bind(d)
	if err != nil {
		return nil, err
	}
	rows := b.rows
	e := newEngine(m)
	c := e.expected(b.compress(), opt.Workers)
	out := &Counts{Rows: rows, LogLik: c.ll, Impossible: int(math.Round(c.impossible))}
	out.Structure, out.Params = m.fingerprints()
	r := m.Rooted()
	for _, v := range r.Order {
		n := NodeCounts{Name: m.Tree.Name(v)}
		k := m.States[v]
		if p := r.Parent[v]; p >= 0 {
			n.Parent = m.Tree.Name(p)
			for a := 0; a < m.States[p]; a++ {
				n.Table = append(n.Table, append([]float64(nil), c.cpt[v][a*k:(a+1)*k]...))
			}
		} else {
			n.Table = [][]float64{append([]float64(nil), c.prior...)}
		}
		out.Nodes = append(out.Nodes, n)
	}
	return out, nil
}

// sameShape reports why c and o do not have the same nodes and tables.
func (c *Counts) sameShape(o *Counts) error {
	if len(c.Nodes) != len(o.Nodes) {
		return fmt.Errorf("%d nodes against %d", len(c.Nodes), len(o.Nodes))
	}
	for i, n := range c.Nodes {
		p := o.Nodes[i]
		if n.Name != p.Name || n.Parent != p.Parent {
			return fmt.Errorf("node %d is %q (parent %q) against %q (parent %q)", i, n.Name, n.Parent, p.Name, p.Parent)
		}
		if len(n.Table) != len(p.Table) {
			return fmt.Errorf("node %q has %d parent states against %d", n.Name, len(n.Table), len(p.Table))
		}
		for a := range n.Table {
			if len(n.Table[a]) != len(p.Table[a]) {
				return fmt.Errorf("node %q has %d states against %d", n.Name, len(n.Table[a]), len(p.Table[a]))
			}
		}
	}
	return nil
}

// TotalLogLik returns the log-likelihood of all the rows: LogLik, or −∞
// when some rows have probability 0 (as Model.LogLikelihood gives).
func (c *Counts) TotalLogLik() float64 {
	if c.Impossible > 0 {
		return math.Inf(-1)
	}
	return c.LogLik
}

// Merge adds the counts of o to c: the counts of the union of their rows.
// Both must come from E-steps of the same model at the same parameters
// (equal fingerprints and tables of the same shapes); otherwise c is left
// unchanged and the error says which differs. The sums are exact up to
// floating-point rounding: merging shards agrees with an E-step on their
// concatenation to about 1e-15 relative, not bit for bit, since the
// additions are in another order.
func (c *Counts) Merge(o *Counts) error {
	if err := countsSpec.SameModel(c.Structure, c.Params, o.Structure, o.Params); err != nil {
		return err
	}
	if err := c.sameShape(o); err != nil {
		return fmt.Errorf("model: the counts have different shapes: %v", err)
	}
	c.Rows += o.Rows
	c.LogLik += o.LogLik
	c.Impossible += o.Impossible
	for i, n := range c.Nodes {
		for a, row := range n.Table {
			for s, x := range o.Nodes[i].Table[a] {
				row[s] += x
			}
		}
	}
	return nil
}

// MStep sets the model's parameters from expected counts computed by
// EStep with this model (same structure and parameters; otherwise an
// error and the model is unchanged), plus pseudo every count (0: maximum
// likelihood), as FitEM's M-step does. A table row without mass keeps its
// parameters.
func (m *Model) MStep(c *Counts, pseudo float64) error {
	if c == nil {
		return errors.New("model: no counts")
	}
	if pseudo < 0 || math.IsNaN(pseudo) || math.IsInf(pseudo, 0) {
		return fmt.Errorf("model: EM pseudo-count %g must be finite and non-negative", pseudo)
	}
	if err := m.Validate(); err != nil {
		return err
	}
	structure, params := m.fingerprints()
	if err := countsSpec.FromModel(c.Structure, c.Params, structure, params); err != nil {
		return err
	}
	if c.Rows == 0 {
		return errors.New("model: no rows to fit (the counts are of 0 rows)")
	}
	e := newEngine(m)
	in := e.newCounts()
	if len(c.Nodes) != len(e.order) {
		return fmt.Errorf("model: counts of %d nodes for a model of %d", len(c.Nodes), len(e.order))
	}
	for i, v := range e.order {
		n := c.Nodes[i]
		k := m.States[v]
		dst, rows := in.prior, 1
		if p := e.parent[v]; p >= 0 {
			dst, rows = in.cpt[v], m.States[p]
		}
		if n.Name != m.Tree.Name(v) || len(n.Table) != rows {
			return fmt.Errorf("model: counts of node %q do not fit node %q of the model", n.Name, m.Tree.Name(v))
		}
		for a, row := range n.Table {
			if len(row) != k {
				return fmt.Errorf("model: counts of node %q have %d states, want %d", n.Name, len(row), k)
			}
			copy(dst[a*k:], row)
		}
	}
	m.mstep(in, pseudo)
	return nil
}

var countsSpec = countsfile.Spec{Format: CountsFormat, Version: CountsVersion, Name: "EM counts", Structure: "nodes, states or state labels"}

type countsDoc struct {
	countsfile.Header
	*Counts
}

// WriteCounts writes the counts as a JSON document:
//
//	{"format":"latentree-em-counts","version":1,
//	 "structure":"<sha256>","params":"<sha256>","rows":1000,"loglik":-5321.7,
//	 "nodes":[{"name":"h1","table":[[512.3,487.7]]},
//	          {"name":"x1","parent":"h1","table":[[400.1,112.2],[20.5,467.2]]}, ...]}
//
// Numbers are written exactly (shortest round-trip form).
func (c *Counts) WriteCounts(w io.Writer) error {
	if err := c.check(); err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(countsDoc{Header: countsSpec.Header(), Counts: c})
}

// ReadCounts reads counts written by WriteCounts (at most 1 GiB),
// checking the format, the version and every table (rectangular, finite,
// non-negative).
func ReadCounts(r io.Reader) (*Counts, error) {
	doc := countsDoc{Counts: &Counts{}}
	if err := countsSpec.Read(r, countsfile.MaxBytes, &doc, &doc.Header); err != nil {
		return nil, err
	}
	if err := doc.Counts.check(); err != nil {
		return nil, err
	}
	return doc.Counts, nil
}

// check reports counts that no E-step writes.
func (c *Counts) check() error {
	if err := countsfile.CheckFingerprints(c.Structure, c.Params); err != nil {
		return err
	}
	if c.Rows < 0 {
		return fmt.Errorf("model: EM counts: %d rows", c.Rows)
	}
	if math.IsNaN(c.LogLik) || math.IsInf(c.LogLik, 0) || c.LogLik > 0 {
		return fmt.Errorf("model: EM counts: log-likelihood %g, want a finite value ≤ 0", c.LogLik)
	}
	if c.Impossible < 0 || c.Impossible > c.Rows {
		return fmt.Errorf("model: EM counts: %d rows of probability 0 among %d", c.Impossible, c.Rows)
	}
	if len(c.Nodes) == 0 {
		return errors.New("model: EM counts: no nodes")
	}
	states := make(map[string]int, len(c.Nodes)) // node → number of states
	for i, n := range c.Nodes {
		if _, dup := states[n.Name]; n.Name == "" || dup {
			return fmt.Errorf("model: EM counts: node %d has an empty or repeated name %q", i, n.Name)
		}
		if (i == 0) != (n.Parent == "") {
			return fmt.Errorf("model: EM counts: node %q: only the first node, the root, has no parent", n.Name)
		}
		want := 1
		if i > 0 {
			k, ok := states[n.Parent]
			if !ok {
				return fmt.Errorf("model: EM counts: node %q comes before its parent %q", n.Name, n.Parent)
			}
			want = k
		}
		if len(n.Table) != want {
			return fmt.Errorf("model: EM counts: node %q has %d table rows, want %d", n.Name, len(n.Table), want)
		}
		states[n.Name] = len(n.Table[0])
		for _, row := range n.Table {
			if len(row) == 0 || len(row) != len(n.Table[0]) || len(row) > data.MaxStates {
				return fmt.Errorf("model: EM counts: node %q has rows of %d and %d states", n.Name, len(n.Table[0]), len(row))
			}
			for _, x := range row {
				if !(x >= 0) || math.IsInf(x, 0) {
					return fmt.Errorf("model: EM counts: node %q has the count %g; want finite and ≥ 0", n.Name, x)
				}
			}
		}
	}
	return nil
}
