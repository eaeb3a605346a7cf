package structure

import (
	"testing"
)

func TestParseGrouping(t *testing.T) {
	for _, c := range []struct {
		s    string
		want Grouping
	}{
		{"silhouette", GroupSilhouette},
		{"threshold", GroupThreshold},
	} {
		got, err := ParseGrouping(c.s)
		if err != nil || got != c.want {
			t.Errorf("ParseGrouping(%q) = %v, %v; want %v", c.s, got, err, c.want)
		}
	}
	for _, s := range []string{"", "default", "Silhouette"} {
		if _, err := ParseGrouping(s); err == nil {
			t.Errorf("ParseGrouping(%q): no error", s)
		}
	}
}
