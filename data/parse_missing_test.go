package data

import (
	"testing"
)

func TestParseMissing(t *testing.T) {
	for _, c := range []struct {
		s    string
		want MissingPolicy
	}{
		{"error", MissingError},
		{"drop-rows", MissingDropRows},
		{"drop", MissingDropRows},
		{"keep", MissingKeep},
	} {
		got, err := ParseMissing(c.s)
		if err != nil || got != c.want {
			t.Errorf("ParseMissing(%q) = %v, %v; want %v", c.s, got, err, c.want)
		}
	}
	for _, s := range []string{"", "skip", "Keep"} {
		if _, err := ParseMissing(s); err == nil {
			t.Errorf("ParseMissing(%q): no error", s)
		}
	}
}
