package gaussian_test

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/simulate"
)

// Fits through a shared cache equal fits without one, for several trees at
// once, and a cache holding other data is bypassed.
func TestGaussianCacheSameFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	tr, err := simulate.RandomBinary(rng, 12, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	g, err := simulate.Gaussian(rng, tr, simulate.GaussianOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := g.Sample(rng, 2000)
	if err != nil {
		t.Fatal(err)
	}
	other, err := g.Sample(rng, 500)
	if err != nil {
		t.Fatal(err)
	}
	// Blank some cells so that patterns of both kinds occur.
	for j := 0; j < d.NumVars(); j++ {
		col := d.Continuous(j)
		for r := j; r < len(col); r += 37 {
			col[r] = math.NaN()
		}
	}
	want, _, err := gaussian.Fit(tr, d, gaussian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantOther, _, err := gaussian.Fit(tr, other, gaussian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cache := &gaussian.Cache{}
	var wg sync.WaitGroup
	got := make([]*gaussian.Model, 4)
	for i := range got {
		wg.Go(func() {
			data := d
			if i == 3 {
				data = other
			}
			m, _, err := gaussian.Fit(tr, data, gaussian.Options{Cache: cache})
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = m
		})
	}
	wg.Wait()
	for i, m := range got {
		w := want
		if i == 3 {
			w = wantOther
		}
		if m == nil {
			continue
		}
		for _, v := range tr.Nodes() {
			if m.Rho[v] != w.Rho[v] || m.Mean[v] != w.Mean[v] || m.Var[v] != w.Var[v] {
				t.Fatalf("fit %d differs at node %d: ρ %g vs %g", i, v, m.Rho[v], w.Rho[v])
			}
		}
	}
}
