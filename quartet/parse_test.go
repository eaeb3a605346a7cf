package quartet

import (
	"testing"
)

func TestParseOrder(t *testing.T) {
	for _, c := range []struct {
		s    string
		want Order
	}{
		{"closest", OrderClosest},
		{"given", OrderGiven},
		{"random", OrderRandom},
	} {
		got, err := ParseOrder(c.s)
		if err != nil || got != c.want {
			t.Errorf("ParseOrder(%q) = %v, %v; want %v", c.s, got, err, c.want)
		}
	}
	for _, s := range []string{"", "Closest", "shuffle"} {
		if _, err := ParseOrder(s); err == nil {
			t.Errorf("ParseOrder(%q): no error", s)
		}
	}
}
