package quartetlearn

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/testenv"
	"github.com/latentree/latentree/noisyor"
)

// randomImageLike draws a network of ns sources over m effects, each with
// 8–16 random children, priors 0.25, failures 0.1, leaks 0.001, redrawn
// until every source is quartet-learnable (by bruteDepths).
func randomImageLike(rng *rand.Rand, ns, m int) *noisyor.Network {
	for {
		var children [][]int
		var prior, fail []float64
		for range ns {
			k := 8 + rng.IntN(9)
			ch := rng.Perm(m)[:k]
			sortInts(ch)
			children = append(children, ch)
			prior = append(prior, 0.25)
			fail = append(fail, 0.1)
		}
		n := netFrom(m, prior, children, fail, 0.001)
		ok := true
		for _, d := range bruteDepths(n) {
			ok = ok && d >= 0
		}
		if ok {
			return n
		}
	}
}

// TestLearnRecoversSampledNetworks: image-like networks of 6 and 8 sources
// (and, in the long form, 10) over 64 effects, sampled at 20,000 rows
// (100,000 in the long form, where the 10-source network alone takes half
// a minute), are recovered exactly: every source with its exact children,
// parameters within 0.03 (0.02 at 100,000 rows, whose sampling error is
// below 0.01; at 20,000 rows the largest errors are 0.015 and 0.013).
func TestLearnRecoversSampledNetworks(t *testing.T) {
	rows := testenv.Pick(20000, 100000)
	trials := testenv.Pick(2, 3)
	tol := testenv.Pick(0.03, 0.02)
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range trials {
		n := randomImageLike(rng, 6+2*trial, 64)
		b := sampleBinary(t, n, uint64(trial), rows, 0)
		res, err := Learn(b, Options{})
		if err != nil {
			t.Fatal(err)
		}
		matchNetworks(t, n, res.Network, tol)
	}
}

func TestLearnExactPartiallyLearnable(t *testing.T) {
	// Sources that are never learnable must not spoil the others: every
	// learned source is a true one, exactly, at its structural depth.
	rng := rand.New(rand.NewPCG(21, 22))
	checked := 0
	for trial := 0; trial < 40 && checked < 10; trial++ {
		ns := 4 + rng.IntN(8)
		m := 2*ns + 2
		var children [][]int
		var prior, fail []float64
		for range ns {
			k := 4 + rng.IntN(5)
			ch := rng.Perm(m)[:k]
			sortInts(ch)
			children = append(children, ch)
			prior = append(prior, 0.05+0.4*rng.Float64())
			fail = append(fail, 0.05+0.8*rng.Float64())
		}
		n := netFrom(m, prior, children, fail, 0.02)
		want := bruteDepths(n)
		nLearnable := 0
		for _, d := range want {
			if d >= 0 {
				nLearnable++
			}
		}
		if nLearnable == 0 || nLearnable == ns {
			continue
		}
		checked++
		res, err := LearnExact(n, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Network
		for _, gs := range got.Sources {
			match := -1
			for s, ws := range n.Sources {
				if reflect.DeepEqual(effects(gs.Children), effects(ws.Children)) {
					match = s
				}
			}
			if match < 0 {
				t.Errorf("trial %d: learned source with children %v is not a true source", trial, effects(gs.Children))
				continue
			}
			if want[match] < 0 || gs.Learned.Depth != want[match] {
				t.Errorf("trial %d: source %s learned at depth %d, structural depth %d", trial, n.Sources[match].Name, gs.Learned.Depth, want[match])
			}
		}
		// Sources found by the structural analysis before any unlearnable
		// one matters are all found.
		if len(got.Sources) < nLearnable {
			t.Errorf("trial %d: learned %d sources, %d are learnable", trial, len(got.Sources), nLearnable)
		}
	}
	if checked < 5 {
		t.Fatalf("only %d partially learnable networks drawn", checked)
	}
}

func effects(ch []noisyor.Child) []int {
	out := make([]int, len(ch))
	for i, c := range ch {
		out[i] = c.Effect
	}
	return out
}

func TestLearnDeterministicAcrossWorkers(t *testing.T) {
	n := randomImageLike(rand.New(rand.NewPCG(31, 32)), 8, 64)
	d, _ := n.Sample(rand.NewPCG(1, 2), 5000)
	b, _ := noisyor.NewBinary(d)
	var first *noisyor.Network
	for _, w := range []int{1, 2, 5} {
		res, err := Learn(b, Options{Workers: w, MaxQuartets: 3000})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res.Network
			continue
		}
		if !reflect.DeepEqual(first, res.Network) {
			t.Fatalf("workers %d: different network", w)
		}
	}
}

// TestLearnMissingCells: an image-like network of 6 sources over 40
// effects, sampled at 25,000 rows (60,000 in the long form) with 10% of the
// cells hidden at random, is recovered exactly: every source with its exact
// children, parameters within 0.03 (the largest errors are 0.012 at 25,000
// rows and 0.011 at 60,000), and so are the moment estimates before the EM
// polish, within 0.05. Most of the time is the EM polish, which cannot
// merge rows that differ in their missing cells.
func TestLearnMissingCells(t *testing.T) {
	n := randomImageLike(rand.New(rand.NewPCG(41, 42)), 6, 40)
	d, _ := n.Sample(rand.NewPCG(3, 4), testenv.Pick(25000, 60000))
	// Hide 10% of cells completely at random.
	rng := rand.New(rand.NewPCG(5, 6))
	vars := d.Vars()
	cols := make([][]uint16, len(vars))
	for a := range vars {
		cols[a] = append([]uint16(nil), d.Discrete(a)...)
		for r := range cols[a] {
			if rng.Float64() < 0.1 {
				cols[a][r] = data.Missing
			}
		}
	}
	dm, err := data.FromDiscrete(vars, cols)
	if err != nil {
		t.Fatal(err)
	}
	b, err := noisyor.NewBinary(dm)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Learn(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	matchNetworks(t, n, res.Network, 0.03)
	// The quartet method's own estimates, before the EM polish (which
	// would mend moments that mishandle the missing cells), have the same
	// structure, within 0.05 (largest errors 0.023 and 0.010).
	if res.Moments == nil {
		t.Fatalf("no EM polish: %s", res.PolishSkipped)
	}
	matchNetworks(t, n, res.Moments, 0.05)
}

func TestLearnBadInput(t *testing.T) {
	mk := func(names []string, states [][]string, cols [][]uint16) *noisyor.Binary {
		t.Helper()
		vars := make([]data.Variable, len(names))
		for i := range names {
			vars[i] = data.Variable{Name: names[i], Kind: data.Discrete, States: states[i]}
		}
		d, err := data.FromDiscrete(vars, cols)
		if err != nil {
			t.Fatal(err)
		}
		b, err := noisyor.NewBinary(d)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	bin := []string{"0", "1"}
	three := mk([]string{"a", "b", "c"}, [][]string{bin, bin, bin}, [][]uint16{{0, 1}, {1, 0}, {0, 0}})
	if _, err := Learn(three, Options{}); err == nil || !strings.Contains(err.Error(), "at least 4") {
		t.Errorf("3 effects: %v", err)
	}
	allOne := mk([]string{"a", "b", "c", "d"}, [][]string{bin, bin, {"1"}, bin}, [][]uint16{{0, 1}, {1, 0}, {0, 0}, {1, 1}})
	if _, err := Learn(allOne, Options{}); err == nil || !strings.Contains(err.Error(), `"c" is 1 in every observed row`) {
		t.Errorf("all-one column: %v", err)
	}
	ok := mk([]string{"a", "b", "c", "d"}, [][]string{bin, bin, bin, bin}, [][]uint16{{0, 1}, {1, 0}, {0, 1}, {1, 0}})
	for _, opt := range []Options{{RankTol: -1}, {RankTol: 1}, {PMITol: -0.1}, {PairZ: -1}, {MaxQuartets: -5}, {RankTol: 0.5, Test: 9}} {
		if _, err := Learn(ok, opt); err == nil {
			t.Errorf("options %+v accepted", opt)
		}
	}
	// Non-binary labels are refused by NewBinary, naming column and value.
	vars := []data.Variable{{Name: "x", Kind: data.Discrete, States: []string{"0", "2"}}}
	d, _ := data.FromDiscrete(vars, [][]uint16{{0, 1}})
	if _, err := noisyor.NewBinary(d); err == nil || !strings.Contains(err.Error(), `column "x" has value "2"`) {
		t.Errorf("non-binary: %v", err)
	}
	cont, _ := data.FromContinuous([]string{"y"}, [][]float64{{0.5, 1}})
	if _, err := noisyor.NewBinary(cont); err == nil || !strings.Contains(err.Error(), "continuous") {
		t.Errorf("continuous: %v", err)
	}
	if _, err := LearnExact(&noisyor.Network{Effects: []string{"a", "b", "c"}}, Options{}); err == nil {
		t.Error("exact with 3 effects accepted")
	}
}

func ExampleLearnExact() {
	// Source A has the singly-coupled quartet {e4, e5, e8, e9}; every
	// quartet of B's children holds two of A's, so B is found at depth 1,
	// after A has been subtracted off.
	net := &noisyor.Network{Effects: []string{"e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9"}}
	edges := func(f float64, effects ...int) []noisyor.Child {
		var c []noisyor.Child
		for _, a := range effects {
			c = append(c, noisyor.Child{Effect: a, Failure: f})
		}
		return c
	}
	net.Sources = []noisyor.Source{
		{Name: "A", Prior: 0.3, Children: edges(0.1, 0, 1, 2, 3, 4, 5, 8, 9)},
		{Name: "B", Prior: 0.2, Children: edges(0.2, 0, 1, 2, 3, 6, 7)},
	}
	res, err := LearnExact(net, Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Network.Sources {
		fmt.Printf("depth %d: prior %.3f, %d children, failure on %s %.3f\n",
			s.Learned.Depth, s.Prior, len(s.Children), net.Effects[s.Children[0].Effect], s.Children[0].Failure)
	}
	// Output:
	// depth 0: prior 0.300, 8 children, failure on e0 0.100
	// depth 1: prior 0.200, 6 children, failure on e0 0.200
}
