package stats

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// Statistics written before the per-state moments of discrete–continuous
// pairs were kept (JSON without mixed_moments, a binary file without flag
// bit 1) still read, without those moments; merging them in drops the
// moments, and writing them back writes the old form.
func TestStateMomentsOldFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	d := randDataset(t, rng, 200, specs(5, []int{2, 0, 3}, []float64{0, 0.2}))
	s := mustCompute(t, d, Options{})
	if !s.HasStateMoments() {
		t.Fatal("computed statistics lack the state moments")
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"mixed_moments"`) {
		t.Fatal("no mixed_moments in the JSON of mixed statistics")
	}
	o := *withoutStateMoments(t, s)
	if o.HasStateMoments() {
		t.Error("old JSON: HasStateMoments")
	}
	if _, _, _, ok := o.StateMoments(0, 1); ok {
		t.Error("old JSON: StateMoments ok")
	}
	if o.PairCount(0, 1) != s.PairCount(0, 1) {
		t.Errorf("old JSON: PairCount %d, want %d", o.PairCount(0, 1), s.PairCount(0, 1))
	}
	e := encode(t, &o)
	if flags := binary.LittleEndian.Uint16(e[len(binaryMagic)+2:]); flags != flagPairs {
		t.Errorf("old statistics written with flags %#x, want %#x", flags, flagPairs)
	}
	r, err := ReadBinary(bytes.NewReader(e))
	if err != nil {
		t.Fatal(err)
	}
	sameStats(t, r, &o, 0)
	if err := r.Merge(s); err != nil {
		t.Fatal(err)
	}
	if r.HasStateMoments() {
		t.Error("merge with old statistics kept the state moments")
	}
	full := encode(t, s)
	if flags := binary.LittleEndian.Uint16(full[len(binaryMagic)+2:]); flags != flagPairs|flagStateMoments {
		t.Errorf("mixed statistics written with flags %#x", flags)
	}
	// Counts that disagree with mixed_counts are an error.
	bad := strings.Replace(string(b), `"mixed_moments":{"n":[`, `"mixed_moments":{"n":[1000,`, 1)
	bad = strings.Replace(bad, `],"mean":[`, `],"mean":[0,`, 1)
	bad = strings.Replace(bad, `],"m2":[`, `],"m2":[0,`, 1)
	if err := json.Unmarshal([]byte(bad), &o); err == nil {
		t.Error("inconsistent mixed_moments accepted")
	}
}

// Data of one kind have no state moments: their files keep flag bit 1
// clear and their JSON has no mixed_moments (the encodings are those of
// the version that did not keep state moments).
func TestStateMomentsOneKind(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 8))
	for _, sp := range [][]colSpec{specs(4, []int{2, 3}, []float64{0.1}), specs(4, []int{0}, []float64{0.1})} {
		s := mustCompute(t, randDataset(t, rng, 100, sp), Options{})
		e := encode(t, s)
		if flags := binary.LittleEndian.Uint16(e[len(binaryMagic)+2:]); flags != flagPairs {
			t.Errorf("flags %#x, want %#x", flags, flagPairs)
		}
		b, _ := json.Marshal(s)
		if strings.Contains(string(b), "mixed_moments") {
			t.Error("mixed_moments in the JSON of one kind of data")
		}
	}
}

// withoutStateMoments returns s as read from statistics written before
// the state moments were kept: its JSON without mixed_moments.
func withoutStateMoments(t testing.TB, s *Stats) *Stats {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "mixed_moments")
	old, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var o Stats
	if err := json.Unmarshal(old, &o); err != nil {
		t.Fatalf("JSON without mixed_moments: %v", err)
	}
	return &o
}
