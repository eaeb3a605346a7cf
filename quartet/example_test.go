package quartet_test

import (
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/latentree/latentree/quartet"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

// Build learns a binary latent tree from data by nuclear-norm quartet
// tests, without being told how many states the hidden variables have.
func ExampleBuild() {
	rng := rand.New(rand.NewPCG(1, 1))
	truth, _ := simulate.RandomBinary(rng, 8, 0.5)
	m, _ := simulate.General(rng, truth, simulate.GeneralOptions{ObservedStates: 3, HiddenStates: 2})
	d, _ := m.Sample(rng, 20000)

	o, err := quartet.NewDataOracle(d, quartet.TestNuclear, 0, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := quartet.Build(d.Names(), o, quartet.BuildOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rf, _ := tree.RobinsonFoulds(truth, res.Tree)
	fmt.Printf("%d hidden nodes from %d quartet tests; Robinson–Foulds distance to the truth: %d\n",
		res.Tree.NumHidden(), res.Tests, rf.RF)
	// Output:
	// 6 hidden nodes from 9 quartet tests; Robinson–Foulds distance to the truth: 0
}

// Resolve tests one quartet; the scores are the nuclear norms of the three
// unfoldings, and the margin says how clear the decision was.
func ExampleDataOracle_Resolve() {
	rng := rand.New(rand.NewPCG(2, 2))
	truth, _ := simulate.RandomBinary(rng, 4, 0.5)
	m, _ := simulate.General(rng, truth, simulate.GeneralOptions{ObservedStates: 4, HiddenStates: 2})
	d, _ := m.Sample(rng, 5000)

	o, _ := quartet.NewDataOracle(d, quartet.TestNuclear, 0, 0)
	r, err := o.Resolve([4]int{0, 1, 2, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	a, b := r.Pairing.Pairs()
	names := d.Names()
	fmt.Printf("{%s, %s | %s, %s}, margin %.2f\n", names[a[0]], names[a[1]], names[b[0]], names[b[1]], r.Margin)
	fmt.Print("true tree: ")
	_ = tree.WriteNewick(os.Stdout, truth, tree.NewickOptions{})
	// Output:
	// {x1, x2 | x3, x4}, margin 0.17
	// true tree: (x1,x2,(x3,x4));
}
