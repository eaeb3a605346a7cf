package discrete_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
)

// shards splits d into n shards of consecutive rows.
func shards(t testing.TB, d *data.Dataset, n int) []*data.Dataset {
	t.Helper()
	var out []*data.Dataset
	rows := d.NumRows()
	for i := 0; i < n; i++ {
		var idx []int
		for r := i * rows / n; r < (i+1)*rows/n; r++ {
			idx = append(idx, r)
		}
		s, err := d.Rows(idx)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// relDiff is the largest |a−b|/max(1,|a|) over two models' parameters.
func relDiff(a, b *discrete.Model) float64 {
	worst := 0.0
	cmp := func(x, y []float64) {
		for i := range x {
			worst = max(worst, math.Abs(x[i]-y[i])/max(1, math.Abs(x[i])))
		}
	}
	cmp(a.Prior, b.Prior)
	for v := range a.CPT {
		cmp(a.CPT[v], b.CPT[v])
	}
	return worst
}

// mergedEStep runs EStep on every shard, writes and reads back each
// counts file, and merges them.
func mergedEStep(t testing.TB, m *discrete.Model, parts []*data.Dataset) *discrete.Counts {
	t.Helper()
	var sum *discrete.Counts
	for _, p := range parts {
		c, err := m.EStep(p, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := c.WriteCounts(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := discrete.ReadCounts(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if sum == nil {
			sum = back
		} else if err := sum.Merge(back); err != nil {
			t.Fatal(err)
		}
	}
	return sum
}

func TestEStepShardsMerge(t *testing.T) {
	_, m, d := emSetting(t, 3, 0.4, 3001)
	m.Randomize(nil)
	whole, err := m.EStep(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	merged := mergedEStep(t, m, shards(t, d, 3))
	if merged.Rows != d.NumRows() || whole.Rows != d.NumRows() {
		t.Fatalf("rows: merged %d, whole %d, data %d", merged.Rows, whole.Rows, d.NumRows())
	}
	rel := func(a, b float64) float64 { return math.Abs(a-b) / max(1, math.Abs(a)) }
	worst := rel(whole.LogLik, merged.LogLik)
	for i, n := range whole.Nodes {
		for a, row := range n.Table {
			for s, x := range row {
				worst = max(worst, rel(x, merged.Nodes[i].Table[a][s]))
			}
		}
	}
	t.Logf("largest relative difference, whole vs merged shards: %.2g", worst)
	if worst > 1e-9 {
		t.Fatalf("merged shards differ from the whole data by %g relative", worst)
	}
	// The counts add up to the rows at every node.
	for _, n := range whole.Nodes {
		s := 0.0
		for _, row := range n.Table {
			for _, x := range row {
				s += x
			}
		}
		if math.Abs(s-float64(d.NumRows())) > 1e-6 {
			t.Fatalf("node %s: counts sum to %g, want %d", n.Name, s, d.NumRows())
		}
	}
}

func TestEStepMStepIsPlainEM(t *testing.T) {
	for _, pseudo := range []float64{0, 0.5} {
		_, m, d := emSetting(t, 5, 0.3, 2000)
		m.Randomize(nil)
		ref := m.Clone()
		if _, err := ref.FitEM(d, model.EMOptions{Accel: model.AccelNone, MaxIter: 1, Restarts: -1, Pseudo: pseudo}); err != nil {
			t.Fatal(err)
		}
		// One iteration on the whole data: the same sums in the same
		// order, so exactly equal.
		one := m.Clone()
		c, err := one.EStep(d, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := one.MStep(c, pseudo); err != nil {
			t.Fatal(err)
		}
		if diff := relDiff(ref, one); diff != 0 {
			t.Fatalf("pseudo %g: EStep+MStep differs from one FitEM iteration by %g", pseudo, diff)
		}
		// Five iterations over 4 shards against five plain EM iterations.
		const k = 5
		ref = m.Clone()
		res, err := ref.FitEM(d, model.EMOptions{Accel: model.AccelNone, MaxIter: k, Restarts: -1, Pseudo: pseudo})
		if err != nil {
			t.Fatal(err)
		}
		if res.Iterations != k {
			t.Fatalf("reference ran %d iterations, want %d", res.Iterations, k)
		}
		dist := m.Clone()
		parts := shards(t, d, 4)
		for it := 0; it < k; it++ {
			c := mergedEStep(t, dist, parts)
			if math.Abs(c.LogLik-res.Trace[it]) > 1e-9*math.Abs(res.Trace[it]) && pseudo == 0 {
				t.Fatalf("iteration %d: log-likelihood %v, FitEM's trace %v", it, c.LogLik, res.Trace[it])
			}
			if err := dist.MStep(c, pseudo); err != nil {
				t.Fatal(err)
			}
		}
		diff := relDiff(ref, dist)
		t.Logf("pseudo %g: %d sharded iterations vs FitEM: largest difference %.2g", pseudo, k, diff)
		if diff > 1e-9 {
			t.Fatalf("pseudo %g: sharded EM differs from FitEM by %g", pseudo, diff)
		}
	}
}

func TestCountsRefused(t *testing.T) {
	_, m, d := emSetting(t, 7, 0.3, 500)
	m.Randomize(nil)
	c, err := m.EStep(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Another model: a different tree and data.
	_, other, od := emSetting(t, 8, 0.3, 500)
	oc, err := other.EStep(od, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := c.Rows
	if err := c.Merge(oc); err == nil || !strings.Contains(err.Error(), "different structure") {
		t.Fatalf("merging counts of another model: %v", err)
	}
	if c.Rows != before {
		t.Fatal("a refused merge changed the counts")
	}
	if err := other.MStep(c, 0); err == nil || !strings.Contains(err.Error(), "different structure") {
		t.Fatalf("M-step with counts of another model: %v", err)
	}
	// The same structure at other parameters (the next iteration).
	next := m.Clone()
	if err := next.MStep(c, 0); err != nil {
		t.Fatal(err)
	}
	nc, err := next.EStep(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Merge(nc); err == nil || !strings.Contains(err.Error(), "different parameters") {
		t.Fatalf("merging counts of another iteration: %v", err)
	}
	if err := next.MStep(c, 0); err == nil || !strings.Contains(err.Error(), "other parameters") {
		t.Fatalf("M-step with counts of another iteration: %v", err)
	}
	// The same structure with other state labels.
	relabeled := m.Clone()
	for _, v := range relabeled.Tree.Observed() {
		l := append([]string(nil), relabeled.StateLabels(v)...)
		l[0], l[1] = l[1], l[0]
		relabeled.Labels[v] = l
		break
	}
	if err := relabeled.MStep(c, 0); err == nil || !strings.Contains(err.Error(), "different structure") {
		t.Fatalf("M-step with counts of a relabelled model: %v", err)
	}
	if err := m.MStep(c, -1); err == nil {
		t.Fatal("negative pseudo-count accepted")
	}
	empty, err := d.Rows(nil)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := m.EStep(empty, model.InferOptions{})
	if err != nil {
		t.Fatalf("E-step on an empty shard: %v", err)
	}
	if err := m.MStep(ec, 0); err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Fatalf("M-step on 0 rows: %v", err)
	}
}

func TestReadCountsErrors(t *testing.T) {
	_, m, d := emSetting(t, 9, 0.3, 200)
	c, err := m.EStep(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := c.WriteCounts(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "not a latentree EM counts file"},
		{"model file", `{"format":"latentree-model","version":1,"type":"discrete"}`, `format "latentree-model"`},
		{"format", strings.Replace(good, discrete.CountsFormat, "other", 1), "format"},
		{"version", strings.Replace(good, `"version":1`, `"version":9`, 1), "version 9"},
		{"fingerprint", strings.Replace(good, c.Structure, "abc", 1), "fingerprint"},
		{"negative", strings.Replace(good, `"rows":200`, `"rows":-1`, 1), "-1 rows"},
		{"truncated", good[:len(good)/2], "not a latentree EM counts file"},
	} {
		_, err := discrete.ReadCounts(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
	back, err := discrete.ReadCounts(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.MStep(back, 0); err != nil {
		t.Fatal(err)
	}
}

func FuzzReadCounts(f *testing.F) {
	_, m, d := emSetting(f, 9, 0.3, 50)
	c, err := m.EStep(d, model.InferOptions{})
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := c.WriteCounts(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"format":"latentree-em-counts","version":1,"nodes":[{"name":"a","table":[[1]]}]}`))
	f.Add([]byte(`{"format":"latentree-em-counts","version":1,"rows":1,"loglik":0,"structure":"` + c.Structure + `","params":"` + c.Params + `","nodes":[{"name":"a","table":[[1,2]]},{"name":"b","parent":"a","table":[[1],[2]]}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := discrete.ReadCounts(bytes.NewReader(in))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := c.WriteCounts(&out); err != nil {
			t.Fatalf("counts read but not written: %v", err)
		}
		again, err := discrete.ReadCounts(&out)
		if err != nil {
			t.Fatalf("written counts not read back: %v", err)
		}
		if err := again.Merge(c); err != nil {
			t.Fatalf("counts do not merge with themselves: %v", err)
		}
		// An M-step with foreign counts is refused, never a panic.
		_ = m.Clone().MStep(c, 0)
	})
}
