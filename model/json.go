package model

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/latentree/latentree/tree"
)

// ModelFormat and ModelVersion identify the JSON document of a model.
const (
	ModelFormat  = "latentree-model"
	ModelVersion = 1
)

// Provenance records how a model was made.
type Provenance struct {
	Created  string         `json:"created,omitempty"`
	Software string         `json:"software,omitempty"`
	Method   string         `json:"method,omitempty"`
	Options  map[string]any `json:"options,omitempty"`
	Data     *DataInfo      `json:"data,omitempty"`
	Scores   *Score         `json:"scores,omitempty"`
	EM       *EMResult      `json:"em,omitempty"`
}

// DataInfo identifies the data a model was fitted to.
type DataInfo struct {
	File   string `json:"file,omitempty"`
	Rows   int    `json:"rows"`
	SHA256 string `json:"sha256,omitempty"`
}

// Header is the envelope every model file opens with: the format, its
// version, the family's type, the root's name and the tree (a
// latentree-tree document). A family's document embeds it first and adds
// its parameters, then the Provenance.
type Header struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	Type    string          `json:"type"`
	Root    string          `json:"root"`
	Tree    json.RawMessage `json:"tree"`
}

// NewHeader returns the header of a model of the given type on t rooted at
// root, naming t's unnamed hidden nodes h1, h2, ... first.
func NewHeader(typ string, t *tree.Tree, root int) (Header, error) {
	t.AutoNameHidden("h")
	tj, err := t.MarshalJSON()
	if err != nil {
		return Header{}, err
	}
	return Header{Format: ModelFormat, Version: ModelVersion, Type: typ, Root: t.Name(root), Tree: tj}, nil
}

// WriteDocument writes a family's model document (a struct embedding a
// Header) to w as indented JSON, the layout every model file has.
func WriteDocument(w io.Writer, doc any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(doc)
}

// Read reads a model file written by the WriteJSON of a model of any
// registered family and returns that model: a *discrete.Model, a
// *gaussian.Model or a *spectral.Model (see Register).
func Read(in io.Reader) (Model, *Provenance, error) {
	raw, err := io.ReadAll(in)
	if err != nil {
		return nil, nil, err
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
		Type    string `json:"type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, nil, fmt.Errorf("model: not a latentree model file: %w", err)
	}
	if f, ok := families[head.Type]; ok {
		return f.Read(raw)
	}
	switch {
	case head.Format != ModelFormat:
		return nil, nil, fmt.Errorf("model: format %q, want %q", head.Format, ModelFormat)
	case head.Version != ModelVersion:
		return nil, nil, fmt.Errorf("model: version %d not supported (this latentree reads version %d)", head.Version, ModelVersion)
	}
	return nil, nil, fmt.Errorf("model: type %q not supported (want %s)", head.Type, registered())
}

// ReadTree checks the header's format and version and reads its tree and
// root (what every family's reader after the discrete one shares).
func (h Header) ReadTree() (*tree.Tree, int, error) {
	format, version, raw, rootName := h.Format, h.Version, h.Tree, h.Root
	if format != ModelFormat || version != ModelVersion {
		return nil, 0, fmt.Errorf("model: format %q version %d, want %q version %d", format, version, ModelFormat, ModelVersion)
	}
	t := tree.New()
	if err := t.UnmarshalJSON(raw); err != nil {
		return nil, 0, fmt.Errorf("model: tree: %w", err)
	}
	if err := t.Validate(); err != nil {
		return nil, 0, fmt.Errorf("model: tree: %w", err)
	}
	root, ok := t.Lookup(rootName)
	if !ok {
		return nil, 0, fmt.Errorf("model: root %q is not a node of the tree", rootName)
	}
	return t, root, nil
}
