package spectral_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/spectral"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

// Spectral parameters on a given tree: no iterations and no local optima.
// P̂ is an estimate of the joint distribution that may be ≤ 0 for rare
// rows; RowLikelihoods gives it with its log, and Score counts the rows
// with P̂ ≤ 0.
func ExampleFit() {
	t, _ := tree.ParseNewick("(((a,b),(c,d)),((e,f),(g,h)));", tree.NewickOptions{})
	truth, _ := simulate.General(rand.NewPCG(1, 2), t, simulate.GeneralOptions{ObservedStates: 3, HiddenStates: 2})
	train, _ := truth.Sample(rand.NewPCG(3, 4), 50000)
	test, _ := truth.Sample(rand.NewPCG(5, 6), 1000)

	s, err := spectral.Fit(t, train, spectral.Options{HiddenStates: 2}) // local M* linkers
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d linkers of rank %d\n", len(s.Edges), s.Edges[0].Rank)

	prob, _, _ := model.RowLikelihoods(s, test, model.InferOptions{})
	exact, _, _ := model.RowLikelihoods(truth, test, model.InferOptions{})
	fmt.Printf("first test row: P̂ = %.4f, P = %.4f\n", prob[0], exact[0])

	sc, _ := s.Score(test, model.InferOptions{})
	fmt.Printf("rows with P̂ ≤ 0: %d of %d\n", sc.NonPositive, sc.Rows)

	// The spectral estimate as a start for EM.
	m, em, _ := model.Fit(t, train, model.FitOptions{Init: model.InitSpectral})
	fmt.Printf("EM from the spectral start: %s model, converged %v\n", m.Kind(), em.Converged)
	// Output:
	// 5 linkers of rank 2
	// first test row: P̂ = 0.0413, P = 0.0406
	// rows with P̂ ≤ 0: 0 of 1000
	// EM from the spectral start: discrete model, converged true
}
