package distance

import (
	"testing"
)

func TestParseKind(t *testing.T) {
	for _, c := range []struct {
		s    string
		want Kind
	}{
		{"auto", Auto},
		{"gaussian", Gaussian},
		{"discrete", Discrete},
		{"symmetric", Symmetric},
		{"mixed", Mixed},
	} {
		got, err := ParseKind(c.s)
		if err != nil || got != c.want {
			t.Errorf("ParseKind(%q) = %v, %v; want %v", c.s, got, err, c.want)
		}
	}
	for _, s := range []string{"", "Gaussian", "lake"} {
		if _, err := ParseKind(s); err == nil {
			t.Errorf("ParseKind(%q): no error", s)
		}
	}
}
