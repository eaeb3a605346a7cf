package stats

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestJSONRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, opt := range []Options{{}, {NoPairs: true}} {
		d := randDataset(t, rng, 500, specs(9, []int{2, 0, 5, 2}, []float64{0, 0.3}))
		s := mustCompute(t, d, opt)
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), `{"format":"latentree-stats","version":1,`) {
			t.Errorf("JSON starts %.60s", b)
		}
		var r Stats
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		sameStats(t, &r, s, 0)
		if !opt.NoPairs {
			checkNaive(t, d, &r)
		}
		b2, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		if string(b2) != string(b) {
			t.Error("second encoding differs")
		}
	}
	// Empty statistics.
	var z Stats
	b, err := json.Marshal(&z)
	if err != nil {
		t.Fatal(err)
	}
	var r Stats
	if err := json.Unmarshal(b, &r); err != nil || r.NumVars() != 0 {
		t.Errorf("empty round trip: %v, %d vars", err, r.NumVars())
	}
}

// TestJSONErrors corrupts a valid encoding in many ways; each must be
// rejected with a clear error, leaving the receiver unchanged.
func TestJSONErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	d := randDataset(t, rng, 50, specs(6, []int{2, 0, 3}, []float64{0.1}))
	// Columns: v0 binary, v1 cont, v2 3 states, v3 binary, v4 cont, v5 3 states.
	s := mustCompute(t, d, Options{})
	good, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	type obj = map[string]any
	cases := []struct {
		name string
		edit func(m obj)
		raw  string
		want string
	}{
		{name: "not JSON", raw: `{"format":`, want: "decoding JSON"},
		{name: "not an object", raw: `[1,2]`, want: "decoding JSON"},
		{name: "format", edit: func(m obj) { m["format"] = "other" }, want: `format "other"`},
		{name: "no format", edit: func(m obj) { delete(m, "format") }, want: `format ""`},
		{name: "version", edit: func(m obj) { m["version"] = 2 }, want: "version 2"},
		{name: "unknown field", edit: func(m obj) { m["extra"] = 1 }, want: "unknown field"},
		{name: "negative rows", edit: func(m obj) { m["rows"] = -1 }, want: "negative number of rows"},
		{name: "count above rows", edit: func(m obj) { m["rows"] = 10 }, want: "outside [0, 10 rows]"},
		{name: "no name", edit: func(m obj) { v(m, 0)["name"] = "" }, want: "variable 1 has no name"},
		{name: "duplicate name", edit: func(m obj) { v(m, 1)["name"] = "v0" }, want: `duplicate variable name "v0"`},
		{name: "kind", edit: func(m obj) { v(m, 0)["kind"] = "ordinal" }, want: `unknown kind "ordinal"`},
		{name: "no states", edit: func(m obj) { delete(v(m, 0), "states") }, want: `"v0" has 0 states`},
		{name: "duplicate state", edit: func(m obj) { v(m, 2)["states"] = []any{"s0", "s1", "s0"} }, want: `duplicate state "s0"`},
		{name: "marginal length", edit: func(m obj) { v(m, 2)["marginal"] = []any{1, 2} }, want: "marginal has 2 counts for 3 states"},
		{name: "negative marginal", edit: func(m obj) {
			mg := v(m, 0)["marginal"].([]any)
			mg[0], mg[1] = -1.0, mg[1].(float64)+mg[0].(float64)+1
		}, want: "negative marginal count"},
		{name: "marginal sum", edit: func(m obj) { v(m, 0)["count"] = v(m, 0)["count"].(float64) - 1 }, want: "marginal sums to"},
		{name: "negative count", edit: func(m obj) { v(m, 1)["count"] = -3 }, want: "count -3 outside"},
		{name: "continuous without mean", edit: func(m obj) { delete(v(m, 1), "mean") }, want: "lacks mean"},
		{name: "negative m2", edit: func(m obj) { v(m, 1)["m2"] = -1 }, want: "invalid moments"},
		{name: "continuous with states", edit: func(m obj) { v(m, 1)["states"] = []any{"a"} }, want: "has states"},
		{name: "discrete with mean", edit: func(m obj) { v(m, 0)["mean"] = 1 }, want: "has continuous moments"},
		{name: "pair table length", edit: func(m obj) { m["discrete_pairs"] = m["discrete_pairs"].([]any)[1:] }, want: "discrete_pairs has"},
		{name: "negative pair count", edit: func(m obj) { m["discrete_pairs"].([]any)[0] = -1 }, want: "negative count -1"},
		{name: "pair above marginal", edit: func(m obj) { m["discrete_pairs"].([]any)[0] = 1e6 }, want: "more than its marginal"},
		{name: "mixed length", edit: func(m obj) { m["mixed_counts"] = []any{1} }, want: "mixed_counts has 1 counts"},
		{name: "mixed count", edit: func(m obj) { m["mixed_counts"].([]any)[2] = 51 }, want: "mixed count of"},
		{name: "continuous pairs missing", edit: func(m obj) { delete(m, "continuous_pairs") }, want: "continuous_pairs missing"},
		{name: "continuous pairs length", edit: func(m obj) { cp(m)["c"] = []any{} }, want: "continuous_pairs.c has 0 values"},
		{name: "continuous pair n", edit: func(m obj) { cp(m)["n"] = []any{-1} }, want: "count -1 outside"},
		{name: "continuous pair m2", edit: func(m obj) { cp(m)["m2_j"] = []any{-0.5} }, want: "invalid moments"},
		{name: "pairs false with tables", edit: func(m obj) { m["pairs"] = false }, want: `"pairs" is false`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := []byte(c.raw)
			if c.edit != nil {
				var m obj
				if err := json.Unmarshal(good, &m); err != nil {
					t.Fatal(err)
				}
				c.edit(m)
				if raw, err = json.Marshal(m); err != nil {
					t.Fatal(err)
				}
			}
			r := mustCompute(t, d, Options{NoPairs: true})
			err := r.UnmarshalJSON(raw)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if !strings.Contains(err.Error(), "stats: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			if r.HasPairs() || r.Rows() != 50 {
				t.Error("failed UnmarshalJSON changed the receiver")
			}
		})
	}
	// The unedited encoding passes through the same path.
	var m obj
	_ = json.Unmarshal(good, &m)
	raw, _ := json.Marshal(m)
	var r Stats
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("re-encoded valid JSON rejected: %v", err)
	}
	sameStats(t, &r, s, 0)
}

// v returns variable k of a decoded encoding.
func v(m map[string]any, k int) map[string]any {
	return m["variables"].([]any)[k].(map[string]any)
}

// cp returns the continuous pairs of a decoded encoding.
func cp(m map[string]any) map[string]any { return m["continuous_pairs"].(map[string]any) }

// FuzzUnmarshalJSON reads arbitrary bytes as statistics in JSON: an error
// or statistics that marshal and read back, never a panic.
func FuzzUnmarshalJSON(f *testing.F) {
	rng := rand.New(rand.NewPCG(14, 3))
	for _, sp := range [][]colSpec{
		specs(4, []int{2, 0, 3}, []float64{0, 0.3}),
		specs(3, []int{0}, []float64{0.1}),
	} {
		d := randDataset(f, rng, 20, sp)
		for _, opt := range []Options{{}, {NoPairs: true}} {
			s, err := Compute(d, opt)
			if err != nil {
				f.Fatal(err)
			}
			b, err := json.Marshal(s)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Stats
		if err := s.UnmarshalJSON(b); err != nil {
			return
		}
		out, err := json.Marshal(&s)
		if err != nil {
			return // non-finite moments cannot be written as JSON
		}
		var back Stats
		if err := back.UnmarshalJSON(out); err != nil {
			t.Fatalf("accepted statistics do not read back: %v", err)
		}
	})
}
