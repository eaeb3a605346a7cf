// Package counts holds what the map-reduce EM counts files of the model
// families share: the fingerprints of a model's structure and parameters,
// the document's format and version header, and the checks of both.
package counts

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
)

// MaxBytes bounds the size of a counts document Spec.Read reads: far above
// what a model of data.MaxStates-state nodes writes per node, it keeps a
// hostile or mistaken input from exhausting memory.
const MaxBytes = 1 << 30

// Fingerprinter computes the two fingerprints of a model (SHA-256, hex):
// its structure from strings (Str) and its exact parameters from numbers
// (Num, Nums).
type Fingerprinter struct {
	structure, params hash.Hash
	buf               [8]byte
}

// NewFingerprinter returns a Fingerprinter whose structure starts with
// the format's name.
func NewFingerprinter(format string) *Fingerprinter {
	f := &Fingerprinter{structure: sha256.New(), params: sha256.New()}
	f.Str(format)
	return f
}

// Str adds s, preceded by its length, to the structure.
func (f *Fingerprinter) Str(s string) {
	f.structure.Write(binary.AppendUvarint(nil, uint64(len(s))))
	f.structure.Write([]byte(s))
}

// Num adds the bits of x to the parameters.
func (f *Fingerprinter) Num(x float64) {
	binary.LittleEndian.PutUint64(f.buf[:], math.Float64bits(x))
	f.params.Write(f.buf[:])
}

// Nums adds the length of xs, then its numbers, to the parameters.
func (f *Fingerprinter) Nums(xs []float64) {
	f.params.Write(binary.AppendUvarint(nil, uint64(len(xs))))
	for _, x := range xs {
		f.Num(x)
	}
}

// Sums returns the structure and parameter fingerprints.
func (f *Fingerprinter) Sums() (structure, params string) {
	return hex.EncodeToString(f.structure.Sum(nil)), hex.EncodeToString(f.params.Sum(nil))
}

// CheckFingerprints reports fingerprints that are not SHA-256 sums in hex.
func CheckFingerprints(structure, params string) error {
	for _, f := range []struct{ name, v string }{{"structure", structure}, {"params", params}} {
		if b, err := hex.DecodeString(f.v); err != nil || len(b) != sha256.Size {
			return fmt.Errorf("model: EM counts: the %s fingerprint is not a SHA-256 in hex", f.name)
		}
	}
	return nil
}

// Header is the start of a counts document; a family's document embeds it
// next to its counts.
type Header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// Spec describes a family's counts documents.
type Spec struct {
	Format  string
	Version int
	// Name names the documents in errors ("EM counts").
	Name string
	// Structure says what the structure fingerprint covers, in errors
	// ("nodes, states or state labels").
	Structure string
}

// Header returns the header of the documents Spec describes.
func (s Spec) Header() Header { return Header{Format: s.Format, Version: s.Version} }

// Read decodes one JSON document of at most max bytes from r into doc,
// which embeds *h, and checks h's format and version.
func (s Spec) Read(r io.Reader, max int64, doc any, h *Header) error {
	lr := &io.LimitedReader{R: r, N: max + 1}
	if err := json.NewDecoder(lr).Decode(doc); err != nil {
		if lr.N <= 0 {
			return fmt.Errorf("model: %s larger than %d bytes", s.Name, max)
		}
		return fmt.Errorf("model: not a latentree %s file: %w", s.Name, err)
	}
	if h.Format != s.Format {
		return fmt.Errorf("model: format %q, want %q", h.Format, s.Format)
	}
	if h.Version != s.Version {
		return fmt.Errorf("model: %s version %d not supported (this latentree reads version %d)", s.Name, h.Version, s.Version)
	}
	return nil
}

// SameModel reports counts of two E-steps (fingerprints a and b) that
// cannot be merged: of models of different structure, or of one structure
// at different parameters.
func (s Spec) SameModel(aStructure, aParams, bStructure, bParams string) error {
	if aStructure != bStructure {
		return fmt.Errorf("model: the counts come from models of different structure (%s); merge only counts of E-steps of one model", s.Structure)
	}
	if aParams != bParams {
		return errors.New("model: the counts come from the same structure at different parameters (E-steps of different EM iterations?); merge only counts of E-steps of one model")
	}
	return nil
}

// FromModel reports counts (fingerprints c) that do not come from an
// E-step of the model with fingerprints m.
func (s Spec) FromModel(cStructure, cParams, mStructure, mParams string) error {
	if cStructure != mStructure {
		return fmt.Errorf("model: the counts come from a model of different structure (%s)", s.Structure)
	}
	if cParams != mParams {
		return errors.New("model: the counts come from an E-step at other parameters than the model's (another EM iteration?)")
	}
	return nil
}
