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

// ReadModelTree checks a model document's format and version and reads its
// tree and root (the part every model type after the discrete one shares).
func ReadModelTree(format string, version int, raw json.RawMessage, rootName string) (*tree.Tree, int, error) {
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
