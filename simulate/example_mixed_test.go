package simulate_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/simulate"
)

// A random mixed model on a 10-leaf tree (40% of the leaves continuous by
// default) and 1,000 rows of its observed variables.
func ExampleRandomMixed() {
	m, err := simulate.RandomMixed(rand.NewPCG(1, 2), 10, simulate.MinimalOptions{ObservedInternalProb: -1}, simulate.MixedOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	continuous := 0
	for _, v := range m.Tree.Observed() {
		if m.NodeKind(v) == data.Continuous {
			continuous++
		}
	}
	fmt.Printf("%d observed variables, %d continuous\n", m.Tree.NumObserved(), continuous)
	d, err := m.Sample(rand.NewPCG(3, 4), 1000)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.NumRows(), "rows of", d.NumVars(), "columns")
	// Output:
	// 10 observed variables, 4 continuous
	// 1000 rows of 10 columns
}
