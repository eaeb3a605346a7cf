package counts

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// The fingerprints are SHA-256 sums of length-prefixed strings and of
// little-endian float64 bits, as written by hand here.
func TestFingerprinter(t *testing.T) {
	f := NewFingerprinter("fmt")
	f.Str("ab")
	f.Num(1)
	f.Nums([]float64{2})
	s, p := f.Sums()
	ws := sha256.Sum256([]byte("\x03fmt\x02ab"))
	wp := sha256.Sum256([]byte("\x00\x00\x00\x00\x00\x00\xf0\x3f\x01\x00\x00\x00\x00\x00\x00\x00\x40"))
	if s != hex.EncodeToString(ws[:]) || p != hex.EncodeToString(wp[:]) {
		t.Fatalf("fingerprints %s %s", s, p)
	}
	if err := CheckFingerprints(s, p); err != nil {
		t.Fatal(err)
	}
	if err := CheckFingerprints(s, "abc"); err == nil || !strings.Contains(err.Error(), "params") {
		t.Fatalf("bad params fingerprint: %v", err)
	}
}

func TestRead(t *testing.T) {
	spec := Spec{Format: "f", Version: 2, Name: "test counts", Structure: "nodes"}
	type doc struct {
		Header
		X int `json:"x"`
	}
	for _, c := range []struct{ in, err string }{
		{`{"format":"f","version":2,"x":7}`, ""},
		{`{"format":"g","version":2}`, `format "g", want "f"`},
		{`{"format":"f","version":3}`, "test counts version 3 not supported"},
		{`{"format":"f",`, "not a latentree test counts file"},
		{`{"format":"f","version":2,"x":7}` + strings.Repeat(" ", 100), ""},
		{`{"format":"f","version":2,"x":` + strings.Repeat("1", 100) + `}`, "larger than 60 bytes"},
	} {
		var d doc
		err := spec.Read(strings.NewReader(c.in), 60, &d, &d.Header)
		if c.err == "" {
			if err != nil || d.X != 7 {
				t.Errorf("%s: %v, x %d", c.in, err, d.X)
			}
		} else if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want %q", c.in, err, c.err)
		}
	}
	if err := spec.SameModel("a", "p", "b", "p"); err == nil || !strings.Contains(err.Error(), "different structure (nodes)") {
		t.Error(err)
	}
	if err := spec.SameModel("a", "p", "a", "q"); err == nil || !strings.Contains(err.Error(), "different parameters") {
		t.Error(err)
	}
	if err := spec.FromModel("a", "p", "a", "p"); err != nil {
		t.Error(err)
	}
	if err := spec.FromModel("a", "p", "a", "q"); err == nil || !strings.Contains(err.Error(), "other parameters") {
		t.Error(err)
	}
}
