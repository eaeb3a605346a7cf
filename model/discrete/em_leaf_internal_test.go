package discrete

import (
	"math/rand/v2"
	"testing"
)

// TestLeafCountsMatchGeneral checks the E-step's counts of observed
// leaves (leafCounts, from the parent's message only) bit for bit against
// the general loop over the leaf's full λ and π, on many-state leaves with
// missing cells and weighted rows.
func TestLeafCountsMatchGeneral(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < 6; it++ {
		m0 := smallModel(t, rng)
		for _, v := range m0.Tree.Observed() {
			m0.States[v] = 3 + rng.IntN(12)
		}
		m, err := New(m0.Tree, m0.Root, m0.States)
		if err != nil {
			t.Fatal(err)
		}
		m.Randomize(rng)
		d := randomData(t, m, rng, 600+it*50, []float64{0, 0.3}[it%2])
		b, err := m.bind(d)
		if err != nil {
			t.Fatal(err)
		}
		if it%3 == 2 {
			b = b.compress()
		}
		e := newEngine(m)
		leaves := 0
		e.forBlocks(b.rows, 1, func(_ int, w *work, r0, nb int) {
			e.upward(b, w, r0, nb, true)
			e.downward(b, w, r0, nb, true)
			for _, v := range e.order {
				p := e.parent[v]
				if p < 0 || b.codes[v] == nil || len(e.children[v]) > 0 {
					continue
				}
				leaves++
				k, kp, cpt := e.k[v], e.k[p], m.CPT[v]
				lam, down := w.lam[v], w.down[v]
				norm := make([]float64, nb)
				for a := 0; a < kp; a++ {
					for s := 0; s < k; s++ {
						for i := range norm {
							norm[i] += down[a*blockRows+i] * cpt[a*k+s] * lam[s*blockRows+i]
						}
					}
				}
				for i := range norm {
					if norm[i] > 0 {
						norm[i] = b.w(r0+i) / norm[i]
					}
				}
				// This block's counts from the E-step (leafCounts).
				c := e.newCounts()
				e.estep(b, w, r0, nb, c)
				for a := 0; a < kp; a++ {
					for s := 0; s < k; s++ {
						q := cpt[a*k+s]
						if q == 0 {
							continue
						}
						acc := 0.0
						for i := range norm {
							acc += down[a*blockRows+i] * lam[s*blockRows+i] * norm[i]
						}
						if want := q * acc; c.cpt[v][a*k+s] != want {
							t.Fatalf("iteration %d, rows %d+%d, node %d: count (%d, %d) = %.17g, want %.17g", it, r0, nb, v, a, s, c.cpt[v][a*k+s], want)
						}
					}
				}
				// estep overwrote w; recompute the general messages.
				e.upward(b, w, r0, nb, true)
				e.downward(b, w, r0, nb, true)
			}
		})
		if leaves == 0 {
			t.Fatalf("iteration %d: no observed leaf checked", it)
		}
	}
}
