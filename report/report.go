package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/draw"
	"github.com/latentree/latentree/explain"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/noisyor"
)

// Input is what a report shows. Model or Noisyor is required; everything
// else is optional and its section is left out (or says it is unknown)
// when missing.
type Input struct {
	// Model is the model to show: a discrete, Gaussian, mixed
	// (conditional-Gaussian) or spectral latent tree model.
	Model model.Model
	// Noisyor is a noisy-or network, shown instead of Model: its sources
	// with their effects (each effect under the source that turns it on
	// most surely), the other sources in its panel.
	Noisyor *noisyor.Network
	// Provenance is how the model was made, as its model file records it:
	// method, options, data file and hash, rows, scores, EM result.
	Provenance *model.Provenance
	// Explanation labels the hidden variables and fills their panels.
	Explanation *explain.Explanation
	// Data, when given, are described in the data-quality notes
	// (rows, missing cells per variable, constant columns).
	Data     *data.Dataset
	DataName string
	// Residuals are the bivariate residuals of the observed pairs
	// (explain.BivariateResiduals, largest first), shown as the local
	// dependence section; nil leaves it out.
	Residuals []explain.Residual
	// Degenerate are pairs of variables at infinite information distance
	// (as learn reports them), listed in the data-quality notes.
	Degenerate []distance.Degenerate
	// Trace is the EM trace (objective per E-step); when nil the trace of
	// Provenance.EM is used.
	Trace []float64
	// Timings are the durations of the steps that made the model, in
	// order.
	Timings []Timing
	// Title is the page's title; by default one is made from the data
	// file's name.
	Title string
}

// Timing is a named duration, shown in the model summary.
type Timing struct {
	Name     string
	Duration time.Duration
}

//go:embed assets/report.css
var css string

//go:embed assets/report.js
var script string

// Write writes the report of in to w as one HTML document.
func Write(w io.Writer, in Input) error {
	if in.Model == nil && in.Noisyor == nil {
		return errors.New("report: no model")
	}
	p, err := buildPayload(in)
	if err != nil {
		return err
	}
	js, err := marshalPayload(p)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	writePage(&b, in, p, js)
	_, err = w.Write(b.Bytes())
	return err
}

// marshalPayload encodes the page's data. encoding/json escapes <, > and
// & (and U+2028, U+2029) inside strings, so no name can close the script
// element or open a comment in it.
func marshalPayload(p *payload) ([]byte, error) {
	js, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if bytes.Contains(js, []byte("</")) || bytes.Contains(js, []byte("<!--")) {
		return nil, errors.New("report: unescaped markup in the page's data") // cannot happen with encoding/json
	}
	return js, nil
}

// num is a number written with 4 significant digits (null when not
// finite), to keep the page small.
type num float64

func (x num) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', 4, 64), nil
}

func nums(x []float64) []num {
	if x == nil {
		return nil
	}
	out := make([]num, len(x))
	for i, v := range x {
		out[i] = num(v)
	}
	return out
}

// payload is the model as the page's script reads it. Nodes are numbered
// in breadth-first order from the root (a parent before its children);
// per-node arrays are indexed by that number.
type payload struct {
	Title string `json:"title"`
	// Kind is discrete, gaussian, mixed, spectral or noisy-or.
	Kind string `json:"kind"`
	// Kinds is each node's kind in a mixed model, "d" discrete or "c"
	// continuous (absent for other models).
	Kinds  string   `json:"kinds,omitempty"`
	Names  []string `json:"names"`
	Hidden string   `json:"hidden"` // "1" hidden, "0" observed, "2" the network node of a noisy-or report
	Parent []int    `json:"parent"`
	// Strength is the dependence of each node with its parent, scaled so
	// that the strongest edge is 1 (absent when unknown).
	Strength []num3 `json:"strength,omitempty"`
	// Discrete: State labels of the observed nodes (nil: 0, 1, ...; all
	// nil: absent) and CPT[i] = P(i | parent), a row per parent state (the
	// root's is its prior, one row), whose length is the number of states.
	Labels [][]string `json:"labels,omitempty"`
	CPT    [][][]num  `json:"cpt,omitempty"`
	Mean   []num      `json:"mean,omitempty"`
	Var    []num      `json:"var,omitempty"`
	Rho    []num      `json:"rho,omitempty"`
	// Mixed: a continuous node's mean and variance per state of its
	// discrete parent (one entry under a continuous parent or as the
	// root: the intercept and residual variance) and its coefficient on a
	// continuous parent (null otherwise); CPT holds the discrete nodes'.
	CMean [][]num     `json:"cmean,omitempty"`
	CVar  [][]num     `json:"cvar,omitempty"`
	Coef  []num       `json:"coef,omitempty"`
	Expl  []*explNode `json:"expl,omitempty"`
	// FromData says the state shares come from the data's posteriors.
	FromData bool `json:"from_data,omitempty"`
	// StateNames are the state labels the rising variables refer to.
	StateNames []string `json:"state_names,omitempty"`
	// Noisy-or: prior of each source, leak of each effect, and every
	// edge [source, effect, failure].
	Prior []num    `json:"prior,omitempty"`
	Leak  []num    `json:"leak,omitempty"`
	Edges [][3]num `json:"edges,omitempty"`
}

// explNode is the explanation of a hidden node: its label, the related
// observed variables as flat pairs (node, value) where the value is the
// mutual information (discrete), the correlation (Gaussian) or the failure
// probability (noisy-or), and its states.
type explNode struct {
	Label   string      `json:"l"`
	Related []num3      `json:"r,omitempty"`
	States  []explState `json:"s,omitempty"`
}

// explState is a state's label, share and rising variables as flat
// quadruples (node, probability, base probability, state) where the state
// indexes the payload's StateNames; in a mixed model also the mean shifts
// of continuous variables as flat quadruples (node, shift in SD units,
// mean in the state, overall mean).
type explState struct {
	Label  string `json:"l"`
	Share  num3   `json:"p"`
	Rising []num3 `json:"r,omitempty"`
	Shifts []num3 `json:"m,omitempty"`
}

// num3 is a number written with 3 significant digits.
type num3 float64

func (x num3) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', 3, 64), nil
}

// shown is the number of related variables, and of rising variables per
// state, shown for each hidden variable: all the explanation gives (5 by
// default) up to bigTree hidden variables, then 3, to keep the page small.
func shown(hidden int) int {
	if hidden > bigTree {
		return 3
	}
	return math.MaxInt
}

const bigTree = 300

func buildPayload(in Input) (*payload, error) {
	if in.Noisyor != nil {
		return noisyorPayload(in)
	}
	m := in.Model
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	t := m.Structure()
	r := t.Root(m.RootNode())
	n := len(r.Order)
	idx := make([]int, t.MaxID())
	for i := range idx {
		idx[i] = -1
	}
	for i, v := range r.Order {
		idx[v] = i
	}
	p := &payload{Title: title(in), Names: make([]string, n), Parent: make([]int, n)}
	hid := make([]byte, n)
	for i, v := range r.Order {
		p.Names[i] = t.Name(v)
		if p.Names[i] == "" {
			p.Names[i] = "#" + strconv.Itoa(v)
		}
		hid[i] = '0'
		if t.IsHidden(v) {
			hid[i] = '1'
		}
		p.Parent[i] = -1
		if par := r.Parent[v]; par >= 0 {
			p.Parent[i] = idx[par]
		}
	}
	p.Hidden = string(hid)
	switch mm := m.(type) {
	case *discrete.Model:
		p.Kind = "discrete"
		p.CPT = make([][][]num, n)
		p.Labels = make([][]string, n)
		for i, v := range r.Order {
			k := mm.States[v]
			if v < len(mm.Labels) && mm.Labels[v] != nil {
				p.Labels[i] = mm.Labels[v]
			}
			p.CPT[i] = tableRows(v == mm.Root, mm.Prior, mm.CPT[v], k)
		}
		if !slices.ContainsFunc(p.Labels, func(l []string) bool { return l != nil }) {
			p.Labels = nil
		}
	case *gaussian.Model:
		p.Kind = "gaussian"
		p.Mean, p.Var, p.Rho = make([]num, n), make([]num, n), make([]num, n)
		for i, v := range r.Order {
			p.Mean[i], p.Var[i] = num(mm.Mean[v]), num(mm.Var[v])
			p.Rho[i] = num(math.NaN())
			if v != mm.Root {
				p.Rho[i] = num(mm.Rho[v])
			}
		}
	case *mixed.Model:
		p.Kind = "mixed"
		kinds := make([]byte, n)
		p.CPT, p.Labels = make([][][]num, n), make([][]string, n)
		p.CMean, p.CVar, p.Coef = make([][]num, n), make([][]num, n), make([]num, n)
		for i, v := range r.Order {
			p.Coef[i] = num(math.NaN())
			if mm.Kinds[v] == data.Continuous {
				kinds[i] = 'c'
				p.CMean[i], p.CVar[i] = nums(mm.Mean[v]), nums(mm.Var[v])
				if par := r.Parent[v]; par >= 0 && mm.Kinds[par] == data.Continuous {
					p.Coef[i] = num(mm.Coef[v])
				}
				continue
			}
			kinds[i] = 'd'
			k := mm.States[v]
			if v < len(mm.Labels) && mm.Labels[v] != nil {
				p.Labels[i] = mm.Labels[v]
			}
			p.CPT[i] = tableRows(v == mm.Root, mm.Prior, mm.CPT[v], k)
		}
		p.Kinds = string(kinds)
		if !slices.ContainsFunc(p.Labels, func(l []string) bool { return l != nil }) {
			p.Labels = nil
		}
	default:
		p.Kind = "spectral"
	}
	if s, err := draw.EdgeStrengths(m); err == nil && len(s) > 0 {
		p.Strength = scaleStrengths(n, func(i int) (float64, bool) {
			v := r.Order[i]
			par := r.Parent[v]
			if par < 0 {
				return 0, false
			}
			if x, ok := s[[2]int{par, v}]; ok {
				return x, true
			}
			x, ok := s[[2]int{v, par}]
			return x, ok
		})
	}
	if in.Explanation != nil {
		lookup := func(name string) int {
			if v, ok := t.Lookup(name); ok && idx[v] >= 0 {
				return idx[v]
			}
			return -1
		}
		x := newExplainer(p, in.Explanation, lookup)
		for _, h := range in.Explanation.Hidden {
			i := lookup(h.Name)
			if i < 0 && h.Node >= 0 && h.Node < len(idx) {
				i = idx[h.Node]
			}
			if i >= 0 {
				p.Expl[i] = x.node(h)
			}
		}
	}
	return p, nil
}

// tableRows returns a discrete node's table as the page has it: the
// prior as one row for the root, else the CPT a row per parent state of k
// entries.
func tableRows(root bool, prior, cpt []float64, k int) [][]num {
	if root {
		return [][]num{nums(prior)}
	}
	var out [][]num
	for a := 0; a+k <= len(cpt); a += k {
		out = append(out, nums(cpt[a:a+k]))
	}
	return out
}

// explainer converts the hidden variables of an explanation.
type explainer struct {
	p      *payload
	lookup func(name string) int
	states map[string]int
	rising int
}

func newExplainer(p *payload, ex *explain.Explanation, lookup func(string) int) *explainer {
	p.FromData = ex.FromData
	p.Expl = make([]*explNode, len(p.Names))
	return &explainer{p: p, lookup: lookup, states: map[string]int{}, rising: shown(len(ex.Hidden))}
}

func (x *explainer) node(h explain.Hidden) *explNode {
	e := &explNode{Label: h.Label}
	for k, rel := range h.Related {
		j := x.lookup(rel.Name)
		if j < 0 || k >= x.rising {
			continue
		}
		v := rel.MI
		switch x.p.Kind {
		case "gaussian":
			v = rel.Corr
		case "noisy-or":
			v = rel.Failure
		case "mixed":
			// Signed between continuous variables, else the strength.
			v = rel.Strength
			if rel.Corr != 0 {
				v = rel.Corr
			}
		}
		e.Related = append(e.Related, num3(j), num3(v))
	}
	for _, s := range h.States {
		st := explState{Label: s.Label, Share: num3(s.Share)}
		for k, rise := range s.Rising {
			j := x.lookup(rise.Name)
			if j < 0 || k >= x.rising {
				continue
			}
			c, ok := x.states[rise.State]
			if !ok {
				c = len(x.p.StateNames)
				x.states[rise.State] = c
				x.p.StateNames = append(x.p.StateNames, rise.State)
			}
			st.Rising = append(st.Rising, num3(j), num3(rise.Prob), num3(rise.Base), num3(c))
		}
		for k, sh := range s.Shifts {
			j := x.lookup(sh.Name)
			if j < 0 || k >= x.rising {
				continue
			}
			st.Shifts = append(st.Shifts, num3(j), num3(sh.Z), num3(sh.Mean), num3(sh.Base))
		}
		e.States = append(e.States, st)
	}
	return e
}

// scaleStrengths returns the strengths of the edges to the parents
// divided by the largest (NaN where unknown).
func scaleStrengths(n int, get func(i int) (float64, bool)) []num3 {
	raw := make([]float64, n)
	top := 0.0
	for i := range raw {
		x, ok := get(i)
		if !ok || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			raw[i] = math.NaN()
			continue
		}
		raw[i] = x
		top = max(top, x)
	}
	if top <= 0 {
		return nil
	}
	out := make([]num3, n)
	for i, x := range raw {
		out[i] = num3(x / top)
	}
	return out
}

// noisyorPayload shows a noisy-or network as a tree: a root for the
// network, the sources under it and every effect under the source with the
// smallest failure probability (effects without a source under the root).
// The panels list every source of an effect.
func noisyorPayload(in Input) (*payload, error) {
	net := in.Noisyor
	if err := net.Validate(); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	ns, ne := net.NumSources(), net.NumEffects()
	p := &payload{Title: title(in), Kind: "noisy-or"}
	hid := []byte{'2'}
	p.Names = append(p.Names, "network")
	p.Parent = append(p.Parent, -1)
	p.Prior = append(p.Prior, num(math.NaN()))
	p.Leak = append(p.Leak, num(math.NaN()))
	for _, s := range net.Sources {
		p.Names = append(p.Names, s.Name)
		p.Parent = append(p.Parent, 0)
		p.Prior = append(p.Prior, num(s.Prior))
		p.Leak = append(p.Leak, num(math.NaN()))
		hid = append(hid, '1')
	}
	best := make([]int, ne)
	bestF := make([]float64, ne)
	for a := range best {
		best[a], bestF[a] = -1, 2
	}
	for s, src := range net.Sources {
		for _, c := range src.Children {
			p.Edges = append(p.Edges, [3]num{num(1 + s), num(1 + ns + c.Effect), num(c.Failure)})
			if c.Failure < bestF[c.Effect] {
				best[c.Effect], bestF[c.Effect] = s, c.Failure
			}
		}
	}
	// Effects are numbered after the sources; their parents come first,
	// as the page expects.
	for a, name := range net.Effects {
		p.Names = append(p.Names, name)
		p.Parent = append(p.Parent, 1+best[a])
		p.Prior = append(p.Prior, num(math.NaN()))
		p.Leak = append(p.Leak, num(net.LeakOf(a)))
		hid = append(hid, '0')
	}
	p.Hidden = string(hid)
	n := len(p.Names)
	p.Strength = scaleStrengths(n, func(i int) (float64, bool) {
		if i <= ns {
			return 0, false
		}
		if best[i-1-ns] < 0 {
			return 0, false
		}
		return 1 - bestF[i-1-ns], true
	})
	if in.Explanation != nil {
		at := make(map[string]int, n)
		for i := n - 1; i > 0; i-- {
			at[p.Names[i]] = i
		}
		lookup := func(name string) int {
			if i, ok := at[name]; ok {
				return i
			}
			return -1
		}
		x := newExplainer(p, in.Explanation, lookup)
		for _, h := range in.Explanation.Hidden {
			if i := lookup(h.Name); i > 0 {
				p.Expl[i] = x.node(h)
			}
		}
	}
	return p, nil
}

func title(in Input) string {
	if in.Title != "" {
		return in.Title
	}
	// The data the model was learned from; else the data given with it.
	name := ""
	if in.Provenance != nil && in.Provenance.Data != nil {
		name = in.Provenance.Data.File
	}
	if name == "" {
		name = in.DataName
	}
	if name == "" {
		return "latentree model"
	}
	return "latentree model of " + name
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
