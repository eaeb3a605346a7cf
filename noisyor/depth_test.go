package noisyor

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// coupledBrute computes CoupledDepths by enumerating every size-subset of
// every source's children and checking every other remaining source.
func coupledBrute(n *Network, size int) []int {
	ns := len(n.Sources)
	depth := make([]int, ns)
	for i := range depth {
		depth[i] = -1
	}
	for d := 0; ; d++ {
		var found []int
		for s := range ns {
			if depth[s] >= 0 {
				continue
			}
			if coupledSubsetBrute(n, s, size, depth) != nil {
				found = append(found, s)
			}
		}
		if len(found) == 0 {
			return depth
		}
		for _, s := range found {
			depth[s] = d
		}
	}
}

// coupledSubsetBrute returns the first singly-coupled size-subset of the
// children of s among the sources with depth −1, or nil.
func coupledSubsetBrute(n *Network, s, size int, depth []int) []int {
	ch := n.Sources[s].Children
	if len(ch) < size {
		return nil
	}
	// The conflict of two children, computed pair by pair from Failure.
	conflict := make([][]bool, len(ch))
	for i := range ch {
		conflict[i] = make([]bool, len(ch))
		for j := range ch {
			for y := range n.Sources {
				if y != s && depth[y] < 0 && i != j && n.Failure(y, ch[i].Effect) < 1 && n.Failure(y, ch[j].Effect) < 1 {
					conflict[i][j] = true
				}
			}
		}
	}
	idx := make([]int, size)
	var rec func(pos, from int) bool
	rec = func(pos, from int) bool {
		if pos == size {
			return true
		}
		for i := from; i < len(ch); i++ {
			ok := true
			for _, j := range idx[:pos] {
				if conflict[i][j] {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			idx[pos] = i
			if rec(pos+1, i+1) {
				return true
			}
		}
		return false
	}
	if !rec(0, 0) {
		return nil
	}
	out := make([]int, size)
	for i, j := range idx {
		out[i] = ch[j].Effect
	}
	return out
}

// depthTestNet is a random network for the brute-force comparison: some
// sources plain random, some covering parts of others, so that every
// depth, −1 included, turns up.
func depthTestNet(rng *rand.Rand, ns, m, kmin, kmax int) *Network {
	n := &Network{Effects: make([]string, m)}
	for a := range n.Effects {
		n.Effects[a] = fmt.Sprintf("e%d", a)
	}
	for s := range ns {
		var kids []int
		r := rng.IntN(6)
		if s > 0 && r == 0 {
			// A near twin: an earlier source's children with one or two
			// of them replaced.
			for _, c := range n.Sources[rng.IntN(s)].Children {
				kids = append(kids, c.Effect)
			}
			rng.Shuffle(len(kids), func(i, j int) { kids[i], kids[j] = kids[j], kids[i] })
			k := 1 + rng.IntN(2)
			kids = kids[:max(len(kids)-k, 0)]
			for range k {
				kids = append(kids, rng.IntN(m))
			}
		} else if s > 0 && r <= 2 {
			// Most of an earlier source's children plus a few.
			base := n.Sources[rng.IntN(s)].Children
			for _, c := range base {
				if rng.IntN(4) != 0 {
					kids = append(kids, c.Effect)
				}
			}
			for range rng.IntN(3) {
				kids = append(kids, rng.IntN(m))
			}
		} else {
			k := kmin + rng.IntN(kmax-kmin+1)
			kids = rng.Perm(m)[:k]
		}
		slices.Sort(kids)
		kids = slices.Compact(kids)
		src := Source{Name: fmt.Sprintf("X%d", s), Prior: 0.2}
		for _, a := range kids {
			src.Children = append(src.Children, Child{Effect: a, Failure: 0.3})
		}
		n.Sources = append(n.Sources, src)
	}
	return n
}

func TestCoupledDepthsBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	seen := map[int]int{}
	for trial := range 600 {
		ns := 2 + rng.IntN(8)
		m := 6 + rng.IntN(16)
		n := depthTestNet(rng, ns, m, 3, min(m, 9))
		if err := n.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{2, 3, 4} {
			want := coupledBrute(n, size)
			got := CoupledDepths(n, size)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d size %d: CoupledDepths %v, brute force %v", trial, size, got, want)
			}
			if size == 4 {
				for _, d := range got {
					seen[d]++
				}
			}
		}
	}
	// The comparison must have met the interesting cases.
	for _, d := range []int{-1, 0, 1, 2} {
		if seen[d] == 0 {
			t.Errorf("no source of quartet depth %d in the random networks: %v", d, seen)
		}
	}
	t.Logf("quartet depths seen: %v", seen)
}

// TestCoupledDepthsBruteWide checks sources with more than 64 children
// (several words per bit row) and dense conflict graphs, where the
// clique-cover bound prunes.
func TestCoupledDepthsBruteWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	seen := map[int]int{}
	for trial := range 10 {
		n := depthTestNet(rng, 3+rng.IntN(5), 110, 40, 95)
		for _, size := range []int{3, 4} {
			want := coupledBrute(n, size)
			got := CoupledDepths(n, size)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d size %d: CoupledDepths %v, brute force %v", trial, size, got, want)
			}
			if size == 4 {
				for _, d := range got {
					seen[d]++
				}
			}
		}
	}
	t.Logf("quartet depths seen: %v", seen)
}

// TestCoupledDepthsCover plants sources whose children are covered by
// three other sources (no quartet, but triplets) and by two (no triplet).
func TestCoupledDepthsCover(t *testing.T) {
	m := 300
	n := &Network{Effects: make([]string, m)}
	for a := range n.Effects {
		n.Effects[a] = fmt.Sprintf("e%d", a)
	}
	add := func(name string, lo, hi int, extra ...int) {
		s := Source{Name: name, Prior: 0.1}
		kids := extra
		for a := lo; a < hi; a++ {
			kids = append(kids, a)
		}
		slices.Sort(kids)
		for _, a := range kids {
			s.Children = append(s.Children, Child{Effect: a, Failure: 0.5})
		}
		n.Sources = append(n.Sources, s)
	}
	// Three blocks of 70 children; X's 150 children are 50 from each.
	add("A", 0, 70)
	add("B", 70, 140)
	add("C", 140, 210)
	var x []int
	for b := range 3 {
		for a := range 50 {
			x = append(x, 70*b+a)
		}
	}
	add("X", 0, 0, x...)
	// Y lies in two blocks.
	add("Y", 0, 0, 60, 61, 62, 63, 64, 65, 130, 131, 132, 133)
	got := QuartetDepths(n)
	if want := []int{0, 0, 0, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("QuartetDepths %v, want %v", got, want)
	}
	if got, want := TripletDepths(n), []int{0, 0, 0, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("TripletDepths %v, want %v", got, want)
	}
	if q := n.SinglyCoupled(3, 4, nil); q != nil {
		t.Errorf("X has singly-coupled quartet %v", q)
	}
	if q := n.SinglyCoupled(3, 3, nil); len(q) != 3 {
		t.Errorf("X has no singly-coupled triplet")
	}
	q := n.SinglyCoupled(3, 4, []bool{true, true, true, false, false})
	if len(q) != 4 {
		t.Fatalf("X has no singly-coupled quartet after removing A, B, C")
	}
	// Y's children 60..65 and 130..133 are children of X: at most one.
	inY := 0
	for _, a := range q {
		if n.Failure(4, a) < 1 {
			inY++
		}
	}
	if inY > 1 {
		t.Errorf("quartet %v has %d children of Y", q, inY)
	}
}

func TestSinglyCoupledWitness(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	for range 200 {
		n := depthTestNet(rng, 2+rng.IntN(6), 8+rng.IntN(10), 3, 8)
		removed := make([]bool, len(n.Sources))
		for s := range removed {
			removed[s] = rng.IntN(3) == 0
		}
		depth := make([]int, len(n.Sources))
		for s := range depth {
			depth[s] = -1
			if removed[s] {
				depth[s] = 0
			}
		}
		for s := range n.Sources {
			for _, size := range []int{3, 4} {
				got := n.SinglyCoupled(s, size, removed)
				want := coupledSubsetBrute(n, s, size, depth)
				if (got == nil) != (want == nil) {
					t.Fatalf("source %d size %d: SinglyCoupled %v, brute force %v", s, size, got, want)
				}
				if got == nil {
					continue
				}
				if len(got) != size || !slices.IsSorted(got) {
					t.Fatalf("witness %v", got)
				}
				for _, a := range got {
					if n.Failure(s, a) == 1 {
						t.Fatalf("witness %v: %d is not a child of %d", got, a, s)
					}
				}
				for y := range n.Sources {
					if y == s || removed[y] {
						continue
					}
					c := 0
					for _, a := range got {
						if n.Failure(y, a) < 1 {
							c++
						}
					}
					if c > 1 {
						t.Fatalf("witness %v of %d: source %d is a parent of %d of them", got, s, y, c)
					}
				}
			}
		}
	}
}

func TestCoupledDepthsGOMAXPROCS(t *testing.T) {
	n, err := QMRLike(rand.NewPCG(11, 0), QMROptions{Sources: 150, Effects: 1200})
	if err != nil {
		t.Fatal(err)
	}
	prev := runtime.GOMAXPROCS(1)
	one := QuartetDepths(n)
	runtime.GOMAXPROCS(max(prev, 4))
	many := QuartetDepths(n)
	runtime.GOMAXPROCS(prev)
	if !slices.Equal(one, many) {
		t.Error("QuartetDepths depends on GOMAXPROCS")
	}
}

func TestDepthTable(t *testing.T) {
	n := &Network{Effects: []string{"a", "b"}, Sources: []Source{
		{Name: "A", Prior: 0.1, Children: []Child{{0, 0.5}}},
		{Name: "B", Prior: 0.1, Children: []Child{{0, 0.5}, {1, 0.5}}},
		{Name: "C", Prior: 0.1, Children: []Child{{1, 0.5}}},
		{Name: "D", Prior: 0.1},
	}}
	got := DepthTable(n, []int{2, 0, -1, 2})
	want := []DepthCount{{0, 1, 2}, {1, 0, 0}, {2, 2, 1}, {-1, 1, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("DepthTable %v, want %v", got, want)
	}
	if got := DepthTable(n, []int{0, 0, 0, 0}); !slices.Equal(got, []DepthCount{{0, 4, 4}}) {
		t.Errorf("DepthTable of all depth 0: %v", got)
	}
	if got := DepthTable(n, []int{-1, -1, -1, -1}); !slices.Equal(got, []DepthCount{{-1, 4, 4}}) {
		t.Errorf("DepthTable of all depth -1: %v", got)
	}
}

func BenchmarkQuartetDepthsQMR(b *testing.B) {
	n, err := QMRLike(rand.NewPCG(1, 0), QMROptions{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		QuartetDepths(n)
	}
}

// Two sources that share all their children but one each are never found;
// the third is found at once, and a source that lies inside it afterwards.
func ExampleQuartetDepths() {
	n := &Network{Effects: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}}
	add := func(name string, kids ...int) {
		s := Source{Name: name, Prior: 0.1}
		for _, a := range kids {
			s.Children = append(s.Children, Child{Effect: a, Failure: 0.2})
		}
		n.Sources = append(n.Sources, s)
	}
	add("twin1", 0, 1, 2, 3, 4)    // a b c d e
	add("twin2", 0, 1, 2, 3, 5)    // a b c d f
	add("big", 6, 7, 8, 9, 10, 11) // g h i j k l
	add("inside", 5, 6, 7, 8)      // f g h i
	fmt.Println(QuartetDepths(n))
	fmt.Println(TripletDepths(n))
	for _, r := range DepthTable(n, QuartetDepths(n)) {
		fmt.Printf("depth %d: %d sources, %d edges\n", r.Depth, r.Sources, r.Edges)
	}
	// Output:
	// [-1 -1 0 1]
	// [-1 -1 0 1]
	// depth 0: 1 sources, 6 edges
	// depth 1: 1 sources, 4 edges
	// depth -1: 2 sources, 10 edges
}
