package noisyor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/latentree/latentree/model"
)

// FormatType is the "type" of a noisy-or model file.
const FormatType = "noisy-or"

// jsonNetwork is the model file: a latentree-model of type noisy-or.
//
//	{"format":"latentree-model","version":1,"type":"noisy-or",
//	 "effects":["a","b",...],
//	 "sources":[{"name":"X1","prior":0.25,"children":{"a":0.1,...},
//	             "depth":0,"quartet":["a","b","c","d"],"singular":[...],"pair":["a","b"]}],
//	 "leak":{"a":0.001,...},
//	 "provenance":{...}}
type jsonNetwork struct {
	Format     string            `json:"format"`
	Version    int               `json:"version"`
	Type       string            `json:"type"`
	Effects    []string          `json:"effects"`
	Sources    []jsonSource      `json:"sources"`
	Leak       orderedFloats     `json:"leak"`
	Provenance *model.Provenance `json:"provenance,omitempty"`
}

type jsonSource struct {
	Name     string        `json:"name"`
	Prior    float64       `json:"prior"`
	Children orderedFloats `json:"children"`
	Depth    *int          `json:"depth,omitempty"`
	Quartet  []string      `json:"quartet,omitempty"`
	Singular []float64     `json:"singular,omitempty"`
	Pair     []string      `json:"pair,omitempty"`
}

// orderedFloats is a JSON object of name → number kept in a given order
// (effect order), which encoding/json's maps would sort by name.
type orderedFloats struct {
	keys []string
	vals []float64
}

func (o orderedFloats) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.WriteString(strconv.FormatFloat(o.vals[i], 'g', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o *orderedFloats) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		if t == nil {
			return nil
		}
		return errors.New("want an object of name: number")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		var v float64
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("value of %q: %w", k, err)
		}
		o.keys = append(o.keys, k)
		o.vals = append(o.vals, v)
	}
	_, err = dec.Token()
	return err
}

// WriteJSON writes the network as a latentree model file of type
// "noisy-or", with prov (may be nil) as its provenance.
func (n *Network) WriteJSON(w io.Writer, prov *model.Provenance) error {
	if err := n.Validate(); err != nil {
		return err
	}
	j := jsonNetwork{Format: "latentree-model", Version: 1, Type: FormatType, Effects: n.Effects, Provenance: prov}
	j.Leak = orderedFloats{keys: n.Effects, vals: make([]float64, len(n.Effects))}
	for a := range n.Effects {
		j.Leak.vals[a] = n.LeakOf(a)
	}
	j.Sources = make([]jsonSource, len(n.Sources))
	for i, s := range n.Sources {
		js := jsonSource{Name: s.Name, Prior: s.Prior}
		for _, c := range s.Children {
			js.Children.keys = append(js.Children.keys, n.Effects[c.Effect])
			js.Children.vals = append(js.Children.vals, c.Failure)
		}
		if js.Children.keys == nil {
			js.Children.keys = []string{}
		}
		if p := s.Learned; p != nil {
			d := p.Depth
			js.Depth = &d
			for _, a := range p.Quartet {
				js.Quartet = append(js.Quartet, n.Effects[a])
			}
			js.Singular = p.Singular[:]
			js.Pair = []string{n.Effects[p.Pair[0]], n.Effects[p.Pair[1]]}
		}
		j.Sources[i] = js
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}

// ReadJSON reads a model file of type "noisy-or" and validates it.
func ReadJSON(r io.Reader) (*Network, *model.Provenance, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, fmt.Errorf("noisyor: %w", err)
	}
	var j jsonNetwork
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, nil, fmt.Errorf("noisyor: model file: %w", err)
	}
	if err := j.checkHeader(); err != nil {
		return nil, nil, err
	}
	n := &Network{Effects: j.effects()}
	index := make(effectIndex, len(n.Effects))
	for a, name := range n.Effects {
		if _, dup := index[name]; dup {
			return nil, nil, fmt.Errorf("noisyor: effect %q listed twice", name)
		}
		index[name] = a
	}
	n.Leak = make([]float64, len(n.Effects))
	for i, k := range j.Leak.keys {
		a, err := index.lookup("leak", k)
		if err != nil {
			return nil, nil, err
		}
		n.Leak[a] = j.Leak.vals[i]
	}
	for i := range j.Sources {
		s, err := j.Sources[i].source(i, index, n.Effects)
		if err != nil {
			return nil, nil, err
		}
		n.Sources = append(n.Sources, s)
	}
	if err := n.Validate(); err != nil {
		return nil, nil, err
	}
	return n, j.Provenance, nil
}

// checkHeader checks the file's format, version and model type.
func (j *jsonNetwork) checkHeader() error {
	if j.Format != "latentree-model" {
		return fmt.Errorf("noisyor: format %q, want \"latentree-model\"", j.Format)
	}
	if j.Version != 1 {
		return fmt.Errorf("noisyor: model file version %d, want 1", j.Version)
	}
	if j.Type != FormatType {
		return fmt.Errorf("noisyor: model type %q, want %q", j.Type, FormatType)
	}
	return nil
}

// effects returns the effects of the file: its list, or for files written
// by hand that have none, the effects named in the leaks and then in the
// sources' children, in order of first appearance.
func (j *jsonNetwork) effects() []string {
	if len(j.Effects) > 0 {
		return j.Effects
	}
	effs := j.Effects // empty, possibly not nil
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			effs = append(effs, k)
		}
	}
	for _, k := range j.Leak.keys {
		add(k)
	}
	for _, s := range j.Sources {
		for _, k := range s.Children.keys {
			add(k)
		}
	}
	return effs
}

// effectIndex maps an effect's name to its index.
type effectIndex map[string]int

// lookup returns the index of effect name, named by what in the error
// when there is no such effect.
func (index effectIndex) lookup(what, name string) (int, error) {
	a, ok := index[name]
	if !ok {
		return 0, fmt.Errorf("noisyor: %s names unknown effect %q", what, name)
	}
	return a, nil
}

// source decodes source i (named "X<i+1>" when unnamed) over the given
// effects: its children, sorted by effect, and the provenance of a
// learned source.
func (js *jsonSource) source(i int, index effectIndex, effects []string) (Source, error) {
	s := Source{Name: js.Name, Prior: js.Prior}
	if s.Name == "" {
		s.Name = "X" + strconv.Itoa(i+1)
	}
	what := "source " + strconv.Quote(s.Name)
	for k, name := range js.Children.keys {
		a, err := index.lookup(what, name)
		if err != nil {
			return s, err
		}
		s.Children = append(s.Children, Child{Effect: a, Failure: js.Children.vals[k]})
	}
	slices.SortFunc(s.Children, func(x, y Child) int { return x.Effect - y.Effect })
	for k := 1; k < len(s.Children); k++ {
		if s.Children[k].Effect == s.Children[k-1].Effect {
			return s, fmt.Errorf("noisyor: %s lists child %q twice", what, effects[s.Children[k].Effect])
		}
	}
	if js.Depth != nil {
		p, err := js.provenance(what, index)
		if err != nil {
			return s, err
		}
		s.Learned = p
	}
	return s, nil
}

// provenance decodes the provenance of a learned source (what names it).
func (js *jsonSource) provenance(what string, index effectIndex) (*Provenance, error) {
	p := &Provenance{Depth: *js.Depth}
	if len(js.Quartet) != 4 || len(js.Pair) != 2 || len(js.Singular) > 3 {
		return nil, fmt.Errorf("noisyor: %s has a depth but not a quartet of 4 effects, a pair of 2 and at most 3 singular values", what)
	}
	if *js.Depth < 0 {
		return nil, fmt.Errorf("noisyor: %s has depth %d", what, *js.Depth)
	}
	for k, name := range js.Quartet {
		a, err := index.lookup(what+" quartet", name)
		if err != nil {
			return nil, err
		}
		p.Quartet[k] = a
	}
	copy(p.Singular[:], js.Singular)
	for k, name := range js.Pair {
		a, err := index.lookup(what+" pair", name)
		if err != nil {
			return nil, err
		}
		p.Pair[k] = a
	}
	return p, nil
}
