package discrete

import (
	"math"
	"math/rand/v2"
	"testing"
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
