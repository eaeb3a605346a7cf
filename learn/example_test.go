package learn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

// truth returns a binary double star (two hidden variables with four
// observed leaves each) and 5,000 samples of a symmetric model on it.
func truth() (*tree.Tree, *data.Dataset) {
	t, err := simulate.DoubleStar(4, 4)
	if err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	m, err := simulate.Symmetric(rng, t, simulate.SymmetricOptions{ThetaMin: 0.05, ThetaMax: 0.1})
	if err != nil {
		panic(err)
	}
	d, err := m.Sample(rng, 5000)
	if err != nil {
		panic(err)
	}
	return t, d
}

// Learn runs the whole path in one call: statistics, distances, CLNJ,
// EM and scores.
func ExampleLearn() {
	t, d := truth()
	res, err := learn.Learn(d, learn.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rf, err := tree.RobinsonFoulds(t, res.Tree)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d hidden variables, Robinson–Foulds %d\n", res.Method, res.Tree.NumHidden(), rf.RF)
	fmt.Printf("log-likelihood per row %.2f, %d parameters\n", res.Score.PerRow, res.Score.Params)
	// Output:
	// clnj: 2 hidden variables, Robinson–Foulds 0
	// log-likelihood per row -3.18, 19 parameters
}

// The same path stage by stage, for users who want to keep or replace the
// intermediate results.
func Example_stages() {
	_, d := truth()
	st, err := stats.Compute(d, stats.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	dm, _, err := distance.Information(st, distance.InfoOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	t, _, err := structure.Learn(dm, structure.Options{Method: structure.MethodCLNJ, Samples: d.NumRows()})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, em, err := model.Fit(t, d, model.FitOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	sc, err := m.Score(d, model.InferOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d hidden, EM converged: %v, BIC per row %.2f\n", t.NumHidden(), em.Converged, sc.BIC/float64(sc.Rows))
	// Output:
	// 2 hidden, EM converged: true, BIC per row 6.40
}

// Every learner from the same data. Options that do not apply to a
// method are rejected, so each gets only its own.
func ExampleLearn_methods() {
	t, d := truth()
	for _, m := range learn.Methods {
		opt := learn.Options{Method: m, StructureOnly: !m.Regularized()}
		res, err := learn.Learn(d, opt)
		if err != nil {
			fmt.Println(m, err)
			continue
		}
		rf, err := tree.RobinsonFoulds(t, res.Tree)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-8s hidden %d  RF %d\n", m, res.Tree.NumHidden(), rf.RF)
	}
	// Output:
	// clnj     hidden 2  RF 0
	// clrg     hidden 2  RF 0
	// nj       hidden 2  RF 0
	// rg       hidden 2  RF 0
	// clblind  hidden 4  RF 2
	// chowliu  hidden 0  RF 6
	// mst      hidden 0  RF 6
	// quartet  hidden 6  RF 4
	// regclnj  hidden 2  RF 4
	// regclrg  hidden 2  RF 4
	// lcm      hidden 1  RF 1
}

// Options that do not apply to the method are an error, not ignored.
func ExampleOptions_Validate() {
	opt := learn.Options{Method: learn.CLNJ, RG: structure.RGOptions{Tau: 3}}
	fmt.Println(opt.Validate())
	// Output:
	// learn: recursive grouping options do not apply to method clnj
}

// FromDistances learns from a distance matrix alone; here the exact
// information distances of a model give back its tree.
func ExampleFromDistances() {
	t, _ := truth()
	names := t.ObservedNames()
	m := len(names)
	dm := &distance.Matrix{Names: names, D: make([]float64, m*m)}
	for i, a := range names {
		for j, b := range names {
			u, _ := t.Lookup(a)
			v, _ := t.Lookup(b)
			dm.D[i*m+j] = t.PathLength(u, v)
		}
	}
	res, err := learn.FromDistances(dm, learn.Options{Method: learn.RG})
	if err != nil {
		fmt.Println(err)
		return
	}
	rf, _ := tree.RobinsonFoulds(t, res.Tree)
	fmt.Println(res.Tree.NumHidden(), "hidden, Robinson–Foulds", rf.RF)
	// Output:
	// 2 hidden, Robinson–Foulds 0
}

// Observed variables with different numbers of states (here 2 to 5) need
// no option: the distance-based methods use the rank-k distance, with k
// the number of hidden states capped by the smallest number of states
// (distance.DefaultRank), and say so in Result.DistanceRank.
func Example_unequalStates() {
	t, err := simulate.DoubleStar(4, 4)
	if err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	m, err := simulate.General(rng, t, simulate.GeneralOptions{HiddenStates: 2, ObservedStatesOf: func(v int) int { return 2 + v%4 }})
	if err != nil {
		panic(err)
	}
	d, err := m.Sample(rng, 5000)
	if err != nil {
		panic(err)
	}
	res, err := learn.Learn(d, learn.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rf, err := tree.RobinsonFoulds(t, res.Tree)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("rank-%d distance; %s: %d hidden variables, Robinson–Foulds %d\n", res.DistanceRank, res.Method, res.Tree.NumHidden(), rf.RF)
	// Output:
	// rank-2 distance; clnj: 2 hidden variables, Robinson–Foulds 0
}
