package mixed

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
)

// distData samples rows of the fixture with about 10% of the cells of
// each column missing, and splits them into two shards of consecutive rows.
func distData(t testing.TB, m *Model, n int) (*data.Dataset, []*data.Dataset) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	d, err := m.Sample(rng, n)
	if err != nil {
		t.Fatal(err)
	}
	for j := range d.NumVars() {
		for i := range n {
			if rng.Float64() < 0.1 {
				if d.Var(j).Kind == data.Discrete {
					d.Discrete(j)[i] = data.Missing
				} else {
					d.Continuous(j)[i] = math.NaN()
				}
			}
		}
	}
	var shards []*data.Dataset
	for _, r := range [][2]int{{0, n / 3}, {n / 3, n}} {
		idx := make([]int, 0, r[1]-r[0])
		for i := r[0]; i < r[1]; i++ {
			idx = append(idx, i)
		}
		s, err := d.Rows(idx)
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, s)
	}
	return d, shards
}

// copyModel returns an independent copy of m (through its file).
func copyModel(t testing.TB, m *Model) *Model {
	t.Helper()
	c, _, err := read(writeDoc(t, m, nil))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mapReduce computes the counts of every shard, writes and reads back all
// but the first and merges them into the first.
func mapReduce(t testing.TB, m *Model, shards []*data.Dataset) *Counts {
	t.Helper()
	var sum *Counts
	for _, s := range shards {
		c, err := m.Counts(s, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sum == nil {
			sum = c
			continue
		}
		var buf bytes.Buffer
		if err := c.WriteCounts(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCounts(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := sum.Merge(back); err != nil {
			t.Fatal(err)
		}
	}
	return sum
}

// maxRelDiff is the largest relative difference between the parameters
// of a and b (same structure).
func maxRelDiff(a, b *Model) float64 {
	worst := 0.0
	cmp := func(x, y []float64) {
		for i := range x {
			worst = max(worst, math.Abs(x[i]-y[i])/math.Max(1, math.Abs(y[i])))
		}
	}
	cmp(a.Prior, b.Prior)
	for v := range a.Kinds {
		if !a.Tree.Has(v) {
			continue
		}
		cmp(a.CPT[v], b.CPT[v])
		cmp(a.Mean[v], b.Mean[v])
		cmp(a.Var[v], b.Var[v])
		cmp([]float64{a.Coef[v]}, []float64{b.Coef[v]})
	}
	return worst
}

// K iterations of map-reduce EM over two shards (counts written and read
// back) equal K iterations of EStep and MStep on all the rows, to 1e-12:
// the sums differ only in the order of additions.
func TestCountsMapReduceEqualsEM(t *testing.T) {
	whole := ioFixture(t)
	d, shards := distData(t, whole, 900)
	dist := copyModel(t, whole)
	for k := range 4 {
		e, err := whole.EStep(d, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sum := mapReduce(t, dist, shards)
		if sum.Rows != e.Rows || math.Abs(sum.LogLik-e.LogLik) > 1e-9*math.Abs(e.LogLik) {
			t.Fatalf("iteration %d: merged counts of %g rows, log-likelihood %.12g; whole data %g rows, %.12g", k, sum.Rows, sum.LogLik, e.Rows, e.LogLik)
		}
		if _, err := whole.MStep(e); err != nil {
			t.Fatal(err)
		}
		if _, err := dist.MStepCounts(sum); err != nil {
			t.Fatal(err)
		}
		if diff := maxRelDiff(dist, whole); diff > 1e-12 {
			t.Fatalf("iteration %d: map-reduce parameters differ from EM's by %g relative", k+1, diff)
		}
	}
}

// Counts of another iteration, another model or of other shapes are
// refused by Merge and MStepCounts, which then change nothing.
func TestCountsRefused(t *testing.T) {
	m := ioFixture(t)
	d, shards := distData(t, m, 200)
	c0, err := m.Counts(shards[0], model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	next := copyModel(t, m)
	if _, err := next.MStepCounts(mapReduce(t, next, shards)); err != nil {
		t.Fatal(err)
	}
	c1, err := next.Counts(shards[1], model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows := c0.Rows
	if err := c0.Merge(c1); err == nil || !strings.Contains(err.Error(), "different parameters") || c0.Rows != rows {
		t.Errorf("merge of two iterations: %v (rows %g)", err, c0.Rows)
	}
	before := copyModel(t, next)
	if _, err := next.MStepCounts(c0); err == nil || !strings.Contains(err.Error(), "other parameters") || maxRelDiff(next, before) != 0 {
		t.Errorf("M-step with counts of the previous iteration: %v", err)
	}
	other := copyModel(t, m)
	other.States[ioNode(t, other, "h2")] = 3
	other.CPT[ioNode(t, other, "h2")] = []float64{0.5, 0.3, 0.2, 0.2, 0.3, 0.5}
	other.CPT[ioNode(t, other, "x5")] = []float64{0.9, 0.1, 0.2, 0.8, 0.5, 0.5}
	other.Mean[ioNode(t, other, "x6")], other.Var[ioNode(t, other, "x6")] = []float64{0, 1, 2}, []float64{1, 1, 1}
	if err := other.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := other.MStepCounts(c0); err == nil || !strings.Contains(err.Error(), "different structure") {
		t.Errorf("M-step with counts of another structure: %v", err)
	}
	oc, err := other.Counts(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c0.Merge(oc); err == nil || !strings.Contains(err.Error(), "different structure") {
		t.Errorf("merge of two structures: %v", err)
	}
	if _, err := m.MStepCounts(nil); err == nil {
		t.Error("M-step without counts: no error")
	}
}

// ReadCounts refuses documents no E-step writes, and inputs over its
// limit as soon as the limit is passed.
func TestReadCountsErrors(t *testing.T) {
	m := ioFixture(t)
	_, shards := distData(t, m, 100)
	c, err := m.Counts(shards[0], model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := c.WriteCounts(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	if _, err := readCounts(strings.NewReader(good), int64(len(good)-10)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("input over the limit: %v", err)
	}
	if _, err := readCounts(strings.NewReader(good), int64(len(good))); err != nil {
		t.Errorf("input at the limit: %v", err)
	}
	for _, tc := range []struct{ from, to, want string }{
		{`"format":"latentree-mixed-em-counts"`, `"format":"latentree-em-counts"`, "format"},
		{`"version":1`, `"version":2`, "version"},
		{`"kind":"discrete"`, `"kind":"ordinal"`, "kind"},
		{`"structure":"`, `"structure":"zz`, "fingerprint"},
		{`"rows":`, `"rows":-`, "rows"},
		{`"w":[`, `"w":[-1,`, "w, s1 and s2"},
		{`"parent":"h0"`, `"parent":"nobody"`, "before its parent"},
	} {
		bad := strings.Replace(good, tc.from, tc.to, 1)
		if bad == good {
			t.Fatalf("%s not in the document", tc.from)
		}
		if _, err := ReadCounts(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s → %s: %v, want an error about %s", tc.from, tc.to, err, tc.want)
		}
	}
}

// FuzzReadCounts reads arbitrary bytes as counts: an error or counts that
// write and read back the same, never a panic.
func FuzzReadCounts(f *testing.F) {
	m := ioFixture(f)
	_, shards := distData(f, m, 50)
	c, err := m.Counts(shards[0], model.InferOptions{})
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := c.WriteCounts(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"format":"latentree-mixed-em-counts","version":1}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := ReadCounts(bytes.NewReader(in))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := c.WriteCounts(&out); err != nil {
			t.Fatalf("counts read cannot be written: %v", err)
		}
		first := bytes.Clone(out.Bytes())
		back, err := ReadCounts(&out)
		if err != nil {
			t.Fatalf("counts written cannot be read: %v", err)
		}
		var again bytes.Buffer
		if err := back.WriteCounts(&again); err != nil || !bytes.Equal(again.Bytes(), first) {
			t.Fatalf("round trip changed the counts: %v", err)
		}
	})
}
