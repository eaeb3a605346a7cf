package stats

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
)

// TestSummary checks Summarize and Stats.Summary against hand counts: x is
// discrete (a twice, b once, one missing), y continuous (1.5, 2.5, 4.5
// and one missing): mean 17/6, SD
// sqrt(((−4/3)²+(−1/3)²+(5/3)²)/2) = sqrt(7/3).
func TestSummary(t *testing.T) {
	d, _, err := data.ReadCSV(strings.NewReader("x,y\na,1.5\nb,2.5\na,4.5\n,\n"), data.ReadOptions{Missing: data.MissingKeep, Continuous: []string{"y"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := Compute(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]VarSummary{"Summarize": Summarize(d), "Summary": st.Summary()} {
		x, y := got[0], got[1]
		if x.Kind != "discrete" || !slices.Equal(x.States, []string{"a", "b"}) || !slices.Equal(x.Counts, []int{2, 1}) || x.Missing != 1 || x.Mean != nil {
			t.Errorf("%s: x = %+v", name, x)
		}
		if y.Kind != "continuous" || y.Missing != 1 || y.Mean == nil || math.Abs(*y.Mean-17.0/6) > 1e-12 || math.Abs(*y.SD-math.Sqrt(7.0/3)) > 1e-12 {
			t.Errorf("%s: y = %+v", name, y)
		}
	}
}
