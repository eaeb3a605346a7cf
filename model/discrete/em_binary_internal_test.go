package discrete

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// TestBinaryEStepMatchesGeneric checks the specialised binary E-step
// against the generic one: expected counts and log-likelihood, with
// missing cells, weighted (compressed) rows, an observed internal node and
// roots at hidden and observed nodes.
func TestBinaryEStepMatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := 0; it < 12; it++ {
		m0 := smallModel(t, rng)
		for v := range m0.States {
			if m0.Tree.Has(v) {
				m0.States[v] = 2
			}
		}
		root := m0.Root
		if it%3 == 2 {
			root = m0.Tree.Observed()[it%len(m0.Tree.Observed())]
		}
		m, err := New(m0.Tree, root, m0.States)
		if err != nil {
			t.Fatal(err)
		}
		m.Randomize(rng)
		rows := 700 + it*37
		if it >= 10 {
			rows = 20000 // enough cells for binCodes' parallel conversion
		}
		d := randomData(t, m, rng, rows, []float64{0, 0.2, 0.6}[it%3])
		b, err := m.bind(d)
		if err != nil {
			t.Fatal(err)
		}
		if it%2 == 1 {
			b = b.compress()
		}
		e := newEngine(m)
		if !e.binaryModel() {
			t.Fatal("model not binary")
		}
		got := e.expectedBinary(b, 2+it%3)
		want := e.expectedGeneric(b, 1)
		near := func(what string, x, y float64) {
			if math.Abs(x-y) > 1e-9*(1+math.Abs(y)) {
				t.Fatalf("iteration %d: %s = %.15g, want %.15g", it, what, x, y)
			}
		}
		// The same counts, to the bit, whatever the number of workers.
		one := e.expectedBinary(b, 1)
		same := one.ll == got.ll && one.prior[0] == got.prior[0] && one.prior[1] == got.prior[1]
		for v := range one.cpt {
			for i := range one.cpt[v] {
				same = same && one.cpt[v][i] == got.cpt[v][i]
			}
		}
		if !same {
			t.Fatalf("iteration %d: counts depend on the number of workers", it)
		}
		near("ll", got.ll, want.ll)
		// loglik (through the binary E-step) against the generic upward
		// pass.
		generic := 0.0
		e.forBlocks(b.rows, 1, func(_ int, w *work, r0, nb int) {
			e.upward(b, w, r0, nb, true)
			for i := 0; i < nb; i++ {
				generic += b.w(r0+i) * w.logZ[i]
			}
		})
		near("loglik", e.loglik(b, 2), generic)
		for s := range want.prior {
			near("prior count", got.prior[s], want.prior[s])
		}
		for v := range want.cpt {
			for i := range want.cpt[v] {
				near("cpt count", got.cpt[v][i], want.cpt[v][i])
			}
		}
	}
}

// TestBinaryGroupsMatchGeneric checks the binary E-step with collapsed
// subtrees (binGroups) against the generic one on random trees of 40
// binary nodes, some observed nodes internal, some columns with missing
// cells (their subtrees are not collapsed), rooted at a hidden or an
// observed node, and checks that subtrees were collapsed.
func TestBinaryGroupsMatchGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for it := range 6 {
		const n = 40
		parent := make([]int, n)
		kids := make([]int, n)
		for i := 1; i < n; i++ {
			parent[i] = rng.IntN(i)
			kids[parent[i]]++
		}
		tr := tree.New()
		id := make([]int, n)
		for i := range n {
			if kids[i] >= 2 && rng.Float64() < 0.7 {
				id[i] = tr.AddHidden()
				continue
			}
			v, err := tr.AddObserved(fmt.Sprintf("x%d", i))
			if err != nil {
				t.Fatal(err)
			}
			id[i] = v
		}
		for i := 1; i < n; i++ {
			if err := tr.AddEdge(id[parent[i]], id[i], math.NaN()); err != nil {
				t.Fatal(err)
			}
		}
		states := make([]int, tr.MaxID())
		for _, v := range tr.Nodes() {
			states[v] = 2
		}
		root := model.DefaultRoot(tr)
		if it%2 == 1 {
			root = tr.Observed()[it%len(tr.Observed())]
		}
		m, err := New(tr, root, states)
		if err != nil {
			t.Fatal(err)
		}
		m.Randomize(rng)
		rows := 3000 + 5000*it
		d := randomData(t, m, rng, rows, 0)
		for j := range 3 {
			col := d.Discrete((j * 7) % d.NumVars())
			for i := range col {
				if rng.Float64() < 0.2 {
					col[i] = data.Missing
				}
			}
		}
		b, err := m.bind(d)
		if err != nil {
			t.Fatal(err)
		}
		e := newEngine(m)
		if g := e.binPrepare(b).g; len(g.list) == 0 {
			t.Fatalf("iteration %d: no subtree collapsed", it)
		}
		got := e.expectedBinary(b, 2)
		one := e.expectedBinary(b, 1)
		want := e.expectedGeneric(b, 1)
		near := func(what string, x, y float64) {
			if math.Abs(x-y) > 1e-9*(1+math.Abs(y)) {
				t.Fatalf("iteration %d: %s = %.15g, want %.15g", it, what, x, y)
			}
		}
		near("ll", got.ll, want.ll)
		if one.ll != got.ll {
			t.Fatalf("iteration %d: log-likelihood depends on the number of workers", it)
		}
		for s := range want.prior {
			near("prior count", got.prior[s], want.prior[s])
		}
		for v := range want.cpt {
			for i := range want.cpt[v] {
				near("cpt count", got.cpt[v][i], want.cpt[v][i])
				if one.cpt[v][i] != got.cpt[v][i] {
					t.Fatalf("iteration %d: counts depend on the number of workers", it)
				}
			}
		}
	}
}

// TestSourceRowsKept checks that the passes over a data.Packed after the
// first, which reuse the first pass's prepared codes, give the same counts
// to the bit as the first pass and as a source that is read anew (a
// Packed behind another Source), and that the codes are kept only for a
// Packed.
func TestSourceRowsKept(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	m := smallBinaryModel(t, rng)
	m.Randomize(rng)
	d := randomData(t, m, rng, 50000, 0)
	for _, col := range []int{1, 3} {
		c := d.Discrete(col)
		for i := range c {
			if rng.Float64() < 0.1 {
				c[i] = data.Missing
			}
		}
	}
	p, err := data.Pack(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetBlockRows(7000); err != nil {
		t.Fatal(err)
	}
	e := newEngine(m)
	same := func(a, b *counts) bool {
		eq := a.ll == b.ll && a.prior[0] == b.prior[0] && a.prior[1] == b.prior[1]
		for v := range a.cpt {
			eq = eq && slices.Equal(a.cpt[v], b.cpt[v])
		}
		return eq
	}
	kept := &sourceRows{src: p}
	first, err := kept.estepAll(e, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept.kept) != 8 {
		t.Fatalf("%d blocks kept, want 8", len(kept.kept))
	}
	fresh := &sourceRows{src: sourceOnly{p}}
	for pass := range 3 {
		again, err := kept.estepAll(e, 1+pass%2)
		if err != nil {
			t.Fatal(err)
		}
		read, err := fresh.estepAll(e, 2)
		if err != nil {
			t.Fatal(err)
		}
		if fresh.kept != nil {
			t.Fatal("codes kept for a source that is not a Packed")
		}
		if !same(again, first) || !same(read, first) {
			t.Fatalf("pass %d: counts differ from the first pass's", pass)
		}
		// New parameters: the kept codes hold no parameters.
		m.mstep(again, 0)
		first, err = fresh.estepAll(e, 1)
		if err != nil {
			t.Fatal(err)
		}
	}
}

// sourceOnly hides all but a Source's Scan.
type sourceOnly struct{ data.Source }

// smallBinaryModel is smallModel with every variable binary, rooted at
// smallModel's root.
func smallBinaryModel(t *testing.T, rng *rand.Rand) *Model {
	t.Helper()
	m0 := smallModel(t, rng)
	for v := range m0.States {
		if m0.Tree.Has(v) {
			m0.States[v] = 2
		}
	}
	m, err := New(m0.Tree, m0.Root, m0.States)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
