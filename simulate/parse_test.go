package simulate

import (
	"testing"
)

func TestParseCPTScheme(t *testing.T) {
	for _, c := range []struct {
		s    string
		want CPTScheme
	}{
		{"dirichlet", Dirichlet},
		{"perturbed", Perturbed},
	} {
		got, err := ParseCPTScheme(c.s)
		if err != nil || got != c.want {
			t.Errorf("ParseCPTScheme(%q) = %v, %v; want %v", c.s, got, err, c.want)
		}
	}
	for _, s := range []string{"", "uniform"} {
		if _, err := ParseCPTScheme(s); err == nil {
			t.Errorf("ParseCPTScheme(%q): no error", s)
		}
	}
}
