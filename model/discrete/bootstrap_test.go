package discrete

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/internal/testenv"
)

// Bootstrap standard errors of a simulated latent class model are within
// a factor 1.3 of the observed-information ones (500 replicates: the
// bootstrap's own relative error is about 1/√1000 = 3%); they do not depend
// on the number of workers and repeat for a seed.
func TestBootstrapNearHessian(t *testing.T) {
	tr, root := seTree(t, false)
	truth := seTruth(t, tr, root, 9)
	d, err := truth.Sample(rand.NewPCG(41, 42), 1000)
	if err != nil {
		t.Fatal(err)
	}
	m := fitTight(t, tr, d)
	hess, err := m.StandardErrors(d, SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	B := testenv.Pick(500, 2000)
	boot, err := m.Bootstrap(d, BootstrapOptions{Replicates: B, Src: rand.NewPCG(5, 5), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if boot.Method != SEBootstrap || boot.Replicates != B {
		t.Errorf("method %q, %d replicates", boot.Method, boot.Replicates)
	}
	worst := 1.0
	check := func(what string, b, h float64) {
		r := b / h
		worst = math.Max(worst, math.Max(r, 1/r))
		if !(r > 1/1.3 && r < 1.3) {
			t.Errorf("%s: bootstrap SE %.4g, Hessian SE %.4g (ratio %.3g)", what, b, h, r)
		}
	}
	for i := range hess.Prior {
		check("prior", boot.Prior[i], hess.Prior[i])
	}
	for v := range hess.CPT {
		for i := range hess.CPT[v] {
			check(tr.Name(v), boot.CPT[v][i], hess.CPT[v][i])
		}
	}
	t.Logf("largest ratio of bootstrap to Hessian SEs: %.3g", worst)
	again, err := m.Bootstrap(d, BootstrapOptions{Replicates: 20, Src: rand.NewPCG(5, 5), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	par, err := m.Bootstrap(d, BootstrapOptions{Replicates: 20, Src: rand.NewPCG(5, 5), Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if paramDiff(&Model{Prior: again.Prior, CPT: again.CPT}, &Model{Prior: par.Prior, CPT: par.CPT}) != 0 {
		t.Error("bootstrap SEs depend on the number of workers")
	}
	if _, err := m.Bootstrap(d, BootstrapOptions{Replicates: 1}); err == nil {
		t.Error("one replicate accepted")
	}
}

// alignTo undoes a renaming of the hidden states.
func TestAlignToUndoesRenaming(t *testing.T) {
	tr2, root := seTree(t, true)
	m := seTruth(t, tr2, root, 3)
	c := m.Clone()
	for _, v := range tr2.Hidden() {
		c.permuteStates(v, []int{1, 0})
	}
	if paramDiff(c, m) == 0 {
		t.Fatal("renaming changed nothing")
	}
	c.alignTo(m)
	if diff := paramDiff(c, m); diff != 0 {
		t.Errorf("aligned model differs by %g", diff)
	}
}
