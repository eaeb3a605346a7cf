package quartet_test

import (
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/quartet"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

// sample draws a random binary latent tree over m observed variables with
// the given numbers of states, and n rows from a model on it.
func sample(rng *rand.Rand, m, observed, hidden, n int) (*tree.Tree, *data.Dataset, error) {
	truth, err := simulate.RandomBinary(rng, m, 0.5)
	if err != nil {
		return nil, nil, err
	}
	mod, err := simulate.General(rng, truth, simulate.GeneralOptions{ObservedStates: observed, HiddenStates: hidden})
	if err != nil {
		return nil, nil, err
	}
	d, err := mod.Sample(rng, n)
	return truth, d, err
}

// Build learns a binary latent tree from data by nuclear-norm quartet
// tests, without being told how many states the hidden variables have.
func ExampleBuild() {
	rng := rand.New(rand.NewPCG(1, 1))
	truth, d, err := sample(rng, 8, 3, 2, 20000)
	if err != nil {
		fmt.Println(err)
		return
	}
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
	rf, err := tree.RobinsonFoulds(truth, res.Tree)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d hidden nodes from %d quartet tests; Robinson–Foulds distance to the truth: %d\n",
		res.Tree.NumHidden(), res.Tests, rf.RF)
	// Output:
	// 6 hidden nodes from 9 quartet tests; Robinson–Foulds distance to the truth: 0
}

// Resolve tests one quartet; the scores are the nuclear norms of the three
// unfoldings, and the margin says how clear the decision was.
func ExampleDataOracle_Resolve() {
	rng := rand.New(rand.NewPCG(2, 2))
	truth, d, err := sample(rng, 4, 4, 2, 5000)
	if err != nil {
		fmt.Println(err)
		return
	}
	o, err := quartet.NewDataOracle(d, quartet.TestNuclear, 0, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := o.Resolve([4]int{0, 1, 2, 3})
	if err != nil {
		fmt.Println(err) // a numerical failure, for example
		return
	}
	a, b := r.Pairing.Pairs()
	names := d.Names()
	fmt.Printf("{%s, %s | %s, %s}, margin %.2f\n", names[a[0]], names[a[1]], names[b[0]], names[b[1]], r.Margin)
	fmt.Print("true tree: ")
	if err := tree.WriteNewick(os.Stdout, truth, tree.NewickOptions{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {x1, x2 | x3, x4}, margin 0.17
	// true tree: (x1,x2,(x3,x4));
}
