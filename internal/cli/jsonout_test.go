package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/stats"
)

// TestWriteJSONNonFinite: numbers JSON cannot hold are written as null
// (writeJSON failed with "json: unsupported value" instead), and the rest
// of the document is written exactly as encoding/json writes it: member
// order, tags, omitempty, embedded structs, maps and values with their own
// JSON form.
func TestWriteJSONNonFinite(t *testing.T) {
	type inner struct {
		X float64 `json:"x"`
		Y float32 `json:"y,omitempty"`
	}
	type doc struct {
		*inner
		Name   string             `json:"name"`
		Score  *model.Score       `json:"score"`
		Vars   []stats.VarSummary `json:"vars"`
		ByName map[string]any     `json:"by_name"`
		ByInt  map[int]float64    `json:"by_int,omitempty"`
		Skip   float64            `json:"-"`
		Raw    json.RawMessage    `json:"raw"`
		Bytes  []byte             `json:"bytes"`
		Untagd []float64
		unexp  float64
	}
	sd, mean := 2.5, -1.0
	mk := func(ll, bad float64) doc {
		return doc{
			inner:  &inner{X: ll, Y: 0.5},
			Name:   "d.csv",
			Score:  &model.Score{LogLik: ll, BIC: -2 * ll, Rows: 3},
			Vars:   []stats.VarSummary{{Name: "a", Kind: "continuous", Mean: &mean, SD: &sd}, {Name: "b", Kind: "discrete", States: []string{"0", "1"}, Counts: []int{1, 2}}},
			ByName: map[string]any{"z": 1, "a": []float64{ll, 2}, "m": nil},
			ByInt:  map[int]float64{10: 1, 2: bad},
			Skip:   bad,
			Raw:    json.RawMessage(`{"k":[1,2]}`),
			Bytes:  []byte("hi"),
			Untagd: []float64{bad, 1e300},
			unexp:  bad,
		}
	}
	// Finite: exactly encoding/json's bytes.
	finite := mk(-12.25, 7)
	want, err := json.MarshalIndent(finite, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var direct, walked bytes.Buffer
	if err := writeJSON(&direct, finite); err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(&walked)
	enc.SetIndent("", "  ")
	if err := enc.Encode(finiteJSON(reflect.ValueOf(finite))); err != nil {
		t.Fatal(err)
	}
	if direct.String() != string(want)+"\n" || walked.String() != string(want)+"\n" {
		t.Fatalf("finite values written differently:\n%s\nwalked:\n%s\nwant:\n%s", direct.String(), walked.String(), want)
	}
	// Not finite: null where the numbers were, the rest unchanged.
	nan := math.NaN()
	v := mk(math.Inf(-1), nan)
	v.Vars[0].SD = &nan
	var b bytes.Buffer
	if err := writeJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	score := back["score"].(map[string]any)
	if back["x"] != nil || score["loglik"] != nil || score["bic"] != nil || score["rows"] != 3.0 {
		t.Errorf("score %v, x %v: want null log-likelihood, BIC and x, 3 rows", score, back["x"])
	}
	if sdv, ok := back["vars"].([]any)[0].(map[string]any)["sd"]; !ok || sdv != nil {
		t.Errorf("sd %v (present %v), want null", sdv, ok)
	}
	if u := back["Untagd"].([]any); u[0] != nil || u[1] != 1e300 {
		t.Errorf("Untagd %v", u)
	}
	if m := back["by_int"].(map[string]any); m["2"] != nil || m["10"] != 1.0 {
		t.Errorf("by_int %v", m)
	}
	if !strings.Contains(b.String(), `"raw": {`) || !strings.Contains(b.String(), `"bytes": "aGk="`) || strings.Contains(b.String(), "unexp") {
		t.Errorf("document:\n%s", b.String())
	}
}
