package structure

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

func matrix(t *testing.T, names []string, D []float64) *distance.Matrix {
	t.Helper()
	m, err := distance.NewMatrix(names)
	if err != nil {
		t.Fatal(err)
	}
	copy(m.D, D)
	return m
}

const tiny = 1e-9

func TestLearnExactAllMethods(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for it := 0; it < 30; it++ {
		truth, _ := simulate.RandomMinimal(rng, 4+rng.IntN(30), simulate.MinimalOptions{})
		names, D := exactInput(t, rng, truth)
		d := matrix(t, names, D)
		for _, m := range []Method{MethodRG, MethodCLRG, MethodCLNJ} {
			got, rep, err := Learn(d, Options{Method: m, Contract: tiny, RG: RGOptions{Grouping: Grouping(it % 2)}})
			if err != nil {
				t.Fatal(err)
			}
			if !sameTree(t, string(m), truth, got) {
				t.FailNow()
			}
			if rep.Hidden != truth.NumHidden() || rep.Observed != len(names) {
				t.Fatalf("%s: report %+v", m, rep)
			}
			// Estimated edge lengths equal the true ones: every path
			// length between observed nodes equals the input distance.
			checkPathLengths(t, got, names, D)
		}
	}
}

func checkPathLengths(t *testing.T, got *tree.Tree, names []string, D []float64) {
	t.Helper()
	m := len(names)
	for i := 0; i < m; i++ {
		u, _ := got.Lookup(names[i])
		for j := i + 1; j < m; j++ {
			v, _ := got.Lookup(names[j])
			if l := got.PathLength(u, v); math.Abs(l-D[i*m+j]) > 1e-7 {
				t.Fatalf("path length %s–%s = %g, distance %g", names[i], names[j], l, D[i*m+j])
			}
		}
	}
}

func TestLearnNJBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for it := 0; it < 30; it++ {
		truth, _ := simulate.RandomBinary(rng, 3+rng.IntN(40), 0.5)
		names, D := exactInput(t, rng, truth)
		got, _, err := Learn(matrix(t, names, D), Options{Method: MethodNJ, Contract: tiny})
		if err != nil {
			t.Fatal(err)
		}
		if !sameTree(t, "NJ", truth, got) {
			t.FailNow()
		}
		checkPathLengths(t, got, names, D)
	}
}

// Blind trees (Choi et al. 2011, §5.3): all internal nodes hidden, and
// the nearest observed node of each hidden node is one of its children.
// Homogeneous edges on trees where every hidden node has an observed leaf
// satisfy this: the HMM, stars and double stars.
func TestLearnCLBlind(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	hmm, _ := simulate.HMM(20)
	ds, _ := simulate.DoubleStar(6, 9)
	st, _ := simulate.Star(8)
	for _, truth := range []*tree.Tree{hmm, ds, st} {
		g, err := simulate.Gaussian(rng, truth, simulate.GaussianOptions{RhoMin: 0.6, RhoMax: 0.6})
		if err != nil {
			t.Fatal(err)
		}
		obs := truth.Observed()
		names := make([]string, len(obs))
		for i, v := range obs {
			names[i] = truth.Name(v)
		}
		// HMM ends have observed leaves on a hidden node: blind requires
		// all internal nodes hidden, which holds.
		got, _, err := Learn(matrix(t, names, g.Distances(obs)), Options{Method: MethodCLBlind})
		if err != nil {
			t.Fatal(err)
		}
		if !sameTree(t, "CLBlind", truth, got) {
			t.FailNow()
		}
		checkPathLengths(t, got, names, g.Distances(obs))
	}
}

func TestChowLiuMST(t *testing.T) {
	// A chain a–b–c–d by distances: MST and Chow–Liu on −distance agree.
	names := []string{"a", "b", "c", "d"}
	D := []float64{
		0, 1, 2, 3,
		1, 0, 1, 2,
		2, 1, 0, 1,
		3, 2, 1, 0,
	}
	mst, _, err := Learn(matrix(t, names, D), Options{Method: MethodMST})
	if err != nil {
		t.Fatal(err)
	}
	mi := make([]float64, len(D))
	for i, x := range D {
		mi[i] = -x
	}
	cl, err := ChowLiu(names, mi)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []*tree.Tree{mst, cl} {
		for _, e := range [][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}} {
			u, _ := tr.Lookup(e[0])
			v, _ := tr.Lookup(e[1])
			if !tr.HasEdge(u, v) {
				t.Errorf("missing edge %v in %s", e, tr.Newick())
			}
		}
	}
}

func TestNJTextbook(t *testing.T) {
	// An additive five-taxon matrix from the tree
	// ((a:5,b:4)u:3,c:2,(d:3,e:2)v:1): observed path lengths a-b 9, a-c 10,
	// a-d 12, a-e 11, b-c 9, b-d 11, b-e 10, c-d 6, c-e 5, d-e 5. NJ must
	// return that tree with those branch lengths.
	names := []string{"a", "b", "c", "d", "e"}
	D := []float64{
		0, 9, 10, 12, 11,
		9, 0, 9, 11, 10,
		10, 9, 0, 6, 5,
		12, 11, 6, 0, 5,
		11, 10, 5, 5, 0,
	}
	got, _, err := Learn(matrix(t, names, D), Options{Method: MethodNJ, Contract: -1})
	if err != nil {
		t.Fatal(err)
	}
	want, err := tree.ParseNewick("((a:5,b:4):3,c:2,(d:3,e:2):1);", tree.NewickOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !sameTree(t, "NJ", want, got) {
		t.FailNow()
	}
	checkPathLengths(t, got, names, D)
}

func TestNJNonAdditive(t *testing.T) {
	// Hand-worked Saitou–Nei on a matrix that violates the four-point
	// condition (ab+cd = 7, ac+bd = 9, ad+bc = 11):
	//   d: ab 3, ac 4, ad 6, bc 5, bd 5, cd 4; R: a 13, b 13, c 13, d 15.
	//   Q = 2d − R_i − R_j: ab −20, ac −18, ad −16, bc −16, bd −18, cd −20;
	//   the tie ab/cd goes to ab (first in order). d(a,u) = 1.5 + 0/4 = 1.5,
	//   d(b,u) = 1.5, d(u,c) = (4+5−3)/2 = 3, d(u,d) = (6+5−3)/2 = 4.
	//   Active slots are now u, d, c (d moved into b's slot); all three Q
	//   values tie at −11 and the first pair (u,d) is joined into v:
	//   d(u,v) = 2 + (7−8)/2 = 1.5, d(d,v) = 2.5, d(c,v) = (3+4−4)/2 = 1.5.
	names := []string{"a", "b", "c", "d"}
	D := []float64{
		0, 3, 4, 6,
		3, 0, 5, 5,
		4, 5, 0, 4,
		6, 5, 4, 0,
	}
	got, _, err := Learn(matrix(t, names, D), Options{Method: MethodNJ, Contract: -1})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := tree.ParseNewick("((a:1.5,b:1.5):1.5,c:1.5,d:2.5);", tree.NewickOptions{})
	if !sameTree(t, "NJ", want, got) {
		t.FailNow()
	}
	for _, c := range []struct {
		a, b string
		l    float64
	}{{"a", "b", 3}, {"a", "c", 4.5}, {"a", "d", 5.5}, {"c", "d", 4}, {"b", "c", 4.5}} {
		u, _ := got.Lookup(c.a)
		v, _ := got.Lookup(c.b)
		if l := got.PathLength(u, v); math.Abs(l-c.l) > 1e-12 {
			t.Errorf("path %s–%s = %g, want %g", c.a, c.b, l, c.l)
		}
	}
}

func TestLearnDegenerate(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name  string
		names []string
		D     []float64
		err   string
	}{
		{"one variable", []string{"a"}, []float64{0}, ""},
		{"two variables", []string{"a", "b"}, []float64{0, 1, 1, 0}, ""},
		{"independent", []string{"a", "b", "c", "d"}, []float64{0, inf, inf, inf, inf, 0, inf, inf, inf, inf, 0, inf, inf, inf, inf, 0}, ""},
		{"duplicates", []string{"a", "b", "c", "d"}, []float64{0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0.5, 1, 1, 0.5, 0}, ""},
		{"all zero", []string{"a", "b", "c"}, []float64{0, 0, 0, 0, 0, 0, 0, 0, 0}, ""},
		{"two blocks", []string{"a", "b", "c", "d"}, []float64{0, 1, inf, inf, 1, 0, inf, inf, inf, inf, 0, 1, inf, inf, 1, 0}, ""},
		{"NaN", []string{"a", "b", "c"}, []float64{0, math.NaN(), 1, math.NaN(), 0, 1, 1, 1, 0}, "NaN"},
		{"negative", []string{"a", "b", "c"}, []float64{0, -1, 1, -1, 0, 1, 1, 1, 0}, "negative"},
	}
	for _, c := range cases {
		for _, m := range Methods {
			got, rep, err := Learn(matrix(t, c.names, c.D), Options{Method: m})
			if c.err != "" {
				if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(c.err)) {
					t.Errorf("%s/%s: error %v, want one mentioning %q", c.name, m, err, c.err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s/%s: %v", c.name, m, err)
				continue
			}
			if err := got.Validate(); err != nil || got.NumObserved() != len(c.names) {
				t.Errorf("%s/%s: invalid result %v", c.name, m, err)
			}
			if c.name == "independent" && len(rep.Infinite) != 6 {
				t.Errorf("%s/%s: %d infinite pairs reported", c.name, m, len(rep.Infinite))
			}
		}
	}
}
