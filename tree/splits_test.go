package tree

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestBitset(t *testing.T) {
	b := NewBitset(130)
	if len(b) != 3 || !b.IsEmpty() {
		t.Fatalf("NewBitset(130) = %v", b)
	}
	for _, i := range []int{0, 63, 64, 129} {
		b.Set(i)
	}
	if !b.Has(63) || !b.Has(64) || b.Has(1) || b.Has(130) || b.Has(-1) || b.Has(1000) {
		t.Error("Has wrong")
	}
	if got := b.Indices(); !slices.Equal(got, []int{0, 63, 64, 129}) {
		t.Errorf("Indices = %v", got)
	}
	if b.Count() != 4 {
		t.Errorf("Count = %d", b.Count())
	}
	c := b.Complement(130)
	if c.Count() != 126 || c.Has(0) || !c.Has(1) || c.Has(129) || !c.Has(128) || c.Has(130) {
		t.Errorf("Complement wrong: count %d", c.Count())
	}
	if c[2] != 1 { // only bit 128 of the last word, bit 129 excluded
		t.Errorf("Complement last word = %#x", c[2])
	}
	b.Clear(63)
	if b.Has(63) || b.Count() != 3 {
		t.Error("Clear failed")
	}
	d := b.Clone()
	d.Set(5)
	if b.Has(5) {
		t.Error("Clone shares storage")
	}
	u := NewBitset(130)
	u.Union(d)
	if !u.Equal(d) || u.Equal(b) {
		t.Error("Union/Equal wrong")
	}
	// Equal and Compare ignore capacity beyond the elements.
	short, long := NewBitset(10), NewBitset(200)
	short.Set(3)
	long.Set(3)
	if !short.Equal(long) || short.Compare(long) != 0 {
		t.Error("sets of different capacity compare unequal")
	}
	x, y := NewBitset(10), NewBitset(10)
	x.Set(2)
	x.Set(9)
	y.Set(3)
	if x.Compare(y) != -1 || y.Compare(x) != 1 {
		t.Errorf("Compare({2,9},{3}) = %d", x.Compare(y))
	}
	long.Set(150)
	if short.Compare(long) != 1 || long.Compare(short) != -1 {
		t.Error("Compare across capacities wrong")
	}
}

func TestSplitsFixtures(t *testing.T) {
	cases := []struct {
		name string
		spec string
		want []string // sides without the first name, in Splits order
	}{
		{"observed centre", "x-a x-b x-c", []string{"b", "c", "b|c|x"}},
		{"hidden centre", "h-x h-a h-b h-c", []string{"b", "c", "x", "b|c|x"}},
		{"quartet", "a-h1 b-h1 h1-h2 h2-c h2-d", []string{"b", "c", "d", "c|d", "b|c|d"}},
		{"degree-two hidden and hidden leaf", "a-h1 h1-h2 h2-b h2-c h2-h3", []string{"b", "c", "b|c"}},
		{"path of observed", "a-b b-c", []string{"c", "b|c"}},
		{"one node", "a", nil},
		{"two nodes", "a-b", []string{"b"}},
	}
	for _, c := range cases {
		tr := build(t, c.spec)
		ss, err := Splits(tr)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, s := range ss {
			_, other := s.Sides()
			got = append(got, strings.Join(other, "|"))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: splits %q, want %q", c.name, got, c.want)
		}
	}
}

func TestSplitMethods(t *testing.T) {
	tr := build(t, "a-h1 b-h1 h1-h2 h2-c h2-d h2-e")
	ss, err := Splits(tr)
	if err != nil {
		t.Fatal(err)
	}
	// Splits: {b} {c} {d} {e} {c,d,e}|{a,b} ... and {b,c,d,e}|{a}.
	if len(ss) != 6 {
		t.Fatalf("%d splits: %v", len(ss), ss)
	}
	var ab Split
	for _, s := range ss {
		if s.Side().Count() == 3 {
			ab = s
		}
	}
	with, other := ab.Sides()
	if !slices.Equal(with, []string{"a", "b"}) || !slices.Equal(other, []string{"c", "d", "e"}) {
		t.Errorf("Sides = %v, %v", with, other)
	}
	if got := ab.String(); got != "{a, b} | {c, d, e}" {
		t.Errorf("String = %q", got)
	}
	if got := ab.Smaller(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Smaller = %v", got)
	}
	if ab.IsSingleton() || ab.NumVariables() != 5 {
		t.Error("IsSingleton/NumVariables wrong")
	}
	if got := ab.Side().Indices(); !slices.Equal(got, []int{2, 3, 4}) {
		t.Errorf("Side = %v", got)
	}
	if !ss[0].IsSingleton() || !ss[5].IsSingleton() {
		t.Errorf("singletons not recognised: %v, %v", ss[0], ss[5])
	}
	if ss[0].Equal(ss[1]) || !ss[0].Equal(ss[0]) {
		t.Error("Equal wrong")
	}
	// Side returns a copy.
	ss[0].Side().Set(4)
	if ss[0].Side().Has(4) {
		t.Error("Side exposes internal storage")
	}
}

func TestSplitsErrors(t *testing.T) {
	if _, err := Splits(build(t, "a-b c-d")); err == nil {
		t.Error("Splits of a forest succeeded")
	}
	if _, err := Splits(New()); err == nil {
		t.Error("Splits of the empty tree succeeded")
	}
	ss, err := Splits(build(t, "h1-h2"))
	if err != nil || len(ss) != 0 {
		t.Errorf("Splits without observed nodes = %v, %v", ss, err)
	}
}

func TestRobinsonFouldsFixtures(t *testing.T) {
	cases := []struct {
		name       string
		a, b       string
		rf         int
		normalized float64
		onlyA      []string
		onlyB      []string
	}{
		{"observed vs hidden centre", "x-a x-b x-c", "h-x h-a h-b h-c", 1, 1, nil, []string{"{a, b, c} | {x}"}},
		{"quartets", "a-h1 b-h1 h1-h2 h2-c h2-d", "a-h1 c-h1 h1-h2 h2-b h2-d", 2, 1,
			[]string{"{a, b} | {c, d}"}, []string{"{a, c} | {b, d}"}},
		{"six leaves", "a-h1 b-h1 h1-h2 c-h2 h2-h3 h3-d h3-h4 h4-e h4-f",
			"a-h1 c-h1 h1-h2 b-h2 h2-h3 h3-d h3-h4 h4-e h4-f", 2, 2.0 / 6,
			[]string{"{a, b} | {c, d, e, f}"}, []string{"{a, c} | {b, d, e, f}"}},
		{"same", "a-h1 b-h1 h1-c", "c-h9 h9-b h9-a", 0, 0, nil, nil},
		{"star vs resolved", "h-a h-b h-c h-d", "a-h1 b-h1 h1-h2 h2-c h2-d", 1, 1, nil, []string{"{a, b} | {c, d}"}},
		{"observed internal moved", "a-b b-c c-d", "a-c c-b b-d", 2, 1,
			[]string{"{a, b} | {c, d}"}, []string{"{a, c} | {b, d}"}},
		{"two nodes", "a-b", "b-a", 0, 0, nil, nil},
	}
	for _, c := range cases {
		ta, tb := build(t, c.a), build(t, c.b)
		r, err := RobinsonFoulds(ta, tb)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		str := func(ss []Split) []string {
			var out []string
			for _, s := range ss {
				out = append(out, s.String())
			}
			return out
		}
		if r.RF != c.rf || r.Normalized != c.normalized || !slices.Equal(str(r.OnlyA), c.onlyA) || !slices.Equal(str(r.OnlyB), c.onlyB) {
			t.Errorf("%s: RF %d norm %g onlyA %q onlyB %q; want %d %g %q %q", c.name,
				r.RF, r.Normalized, str(r.OnlyA), str(r.OnlyB), c.rf, c.normalized, c.onlyA, c.onlyB)
		}
		same, err := SameTopology(ta, tb)
		if err != nil || same != (c.rf == 0) {
			t.Errorf("%s: SameTopology = %v, %v", c.name, same, err)
		}
	}
}

func TestRobinsonFouldsErrors(t *testing.T) {
	_, err := RobinsonFoulds(build(t, "a-h b-h c-h"), build(t, "a-h b-h d-h e-h"))
	if err == nil {
		t.Fatal("different variables accepted")
	}
	for _, want := range []string{`only in the first tree: "c"`, `only in the second tree: "d", "e"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, err := RobinsonFoulds(build(t, "a-b"), build(t, "a b")); err == nil || !strings.Contains(err.Error(), "second tree") {
		t.Errorf("forest accepted or error unclear: %v", err)
	}
	if _, err := SameTopology(build(t, "a-b"), build(t, "a-c")); err == nil {
		t.Error("SameTopology with different variables succeeded")
	}
	var many []string
	for i := range 15 {
		many = append(many, "x"+string(rune('a'+i)))
	}
	err = namesDiffer(nil, many)
	if !strings.Contains(err.Error(), "and 5 more") {
		t.Errorf("long list not shortened: %v", err)
	}
}

// TestSplitsRandom compares Splits with a brute-force computation, and
// RobinsonFoulds with the symmetric difference of brute-force split sets.
func TestSplitsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		n := 1 + rng.IntN(30)
		if iter%50 == 0 {
			n = 70 + rng.IntN(70) // several words per bitset
		}
		opt := genOptions{hiddenProb: 0.6, removeSome: iter%2 == 0, hiddenLeaves: rng.IntN(2)}
		a := randomTree(rng, n, opt)
		ss, err := Splits(a)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := splitKeys(ss), bruteSplits(a); !slices.Equal(got, want) {
			t.Fatalf("iteration %d: Splits %q, brute force %q", iter, got, want)
		}
		if !slices.IsSortedFunc(ss, compareSplits) {
			t.Fatalf("iteration %d: splits not sorted", iter)
		}
		b := otherTree(t, rng, a, n+rng.IntN(5), opt)
		if b == nil {
			continue
		}
		r, err := RobinsonFoulds(a, b)
		if err != nil {
			t.Fatal(err)
		}
		sa, sb := bruteSplits(a), bruteSplits(b)
		var onlyA, onlyB []string
		for _, s := range sa {
			if !slices.Contains(sb, s) {
				onlyA = append(onlyA, s)
			}
		}
		for _, s := range sb {
			if !slices.Contains(sa, s) {
				onlyB = append(onlyB, s)
			}
		}
		if !slices.Equal(splitKeys(r.OnlyA), onlyA) || !slices.Equal(splitKeys(r.OnlyB), onlyB) || r.RF != len(onlyA)+len(onlyB) {
			t.Fatalf("iteration %d: RF %d onlyA %q onlyB %q; brute %q %q", iter, r.RF, splitKeys(r.OnlyA), splitKeys(r.OnlyB), onlyA, onlyB)
		}
		if r.Normalized < 0 || r.Normalized > 1 {
			t.Fatalf("iteration %d: normalised RF %g", iter, r.Normalized)
		}
		r2, _ := RobinsonFoulds(b, a)
		if r2.RF != r.RF || r2.Normalized != r.Normalized || len(r2.OnlyA) != len(r.OnlyB) {
			t.Fatalf("iteration %d: RF not symmetric", iter)
		}
		if r0, _ := RobinsonFoulds(a, a.Clone()); r0.RF != 0 || r0.Normalized != 0 {
			t.Fatalf("iteration %d: RF(a, a) = %d", iter, r0.RF)
		}
	}
}

func BenchmarkSplits(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	tr := randomTree(rng, 2000, genOptions{hiddenProb: 0.7})
	b.ResetTimer()
	for b.Loop() {
		if _, err := Splits(tr); err != nil {
			b.Fatal(err)
		}
	}
}

// otherTree returns a random tree of n nodes over the observed names of a
// (a different random tree with its names shuffled), or nil if it has too
// few observed nodes for them.
func otherTree(t *testing.T, rng *rand.Rand, a *Tree, n int, opt genOptions) *Tree {
	t.Helper()
	b := randomTree(rng, n, opt)
	bObs, names := b.Observed(), a.ObservedNames()
	if len(bObs) < len(names) {
		return nil
	}
	for k, v := range bObs {
		_ = b.SetName(v, "tmp"+strconv.Itoa(k))
	}
	perm := rng.Perm(len(bObs))
	for k, v := range bObs {
		if perm[k] < len(names) {
			_ = b.SetName(v, names[perm[k]])
		} else {
			b.nodes[v].Hidden = true // internal-only nodes may become hidden
			_ = b.SetName(v, "")
		}
	}
	if b.NumObserved() != len(names) {
		t.Fatal("relabelling failed")
	}
	return b
}

// TestRobinsonFouldsMatchesBitsets compares the linear-time RobinsonFoulds
// with the merge of the two trees' bitset splits (Splits) that it
// replaced, on random trees, some of them nearly equal (a few edges moved),
// and checks the order of OnlyA and OnlyB and their sides.
func TestRobinsonFouldsMatchesBitsets(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := range 400 {
		n := 2 + rng.IntN(40)
		if iter%40 == 0 {
			n = 100 + rng.IntN(100)
		}
		opt := genOptions{hiddenProb: 0.5 + 0.4*rng.Float64(), removeSome: iter%3 == 0, hiddenLeaves: rng.IntN(3)}
		a := randomTree(rng, n, opt)
		var b *Tree
		if iter%2 == 0 {
			b = otherTree(t, rng, a, n+rng.IntN(5), opt)
		} else {
			b = a.Clone()
			for range 1 + rng.IntN(3) {
				moveLeaf(rng, b)
			}
		}
		if b == nil {
			continue
		}
		got, err := RobinsonFoulds(a, b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := rfBitsets(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if got.RF != want.RF || got.Normalized != want.Normalized ||
			!slices.Equal(splitKeys(got.OnlyA), splitKeys(want.OnlyA)) || !slices.Equal(splitKeys(got.OnlyB), splitKeys(want.OnlyB)) {
			t.Fatalf("iteration %d: RF %d (%g) only %q %q; bitsets %d (%g) only %q %q", iter,
				got.RF, got.Normalized, splitKeys(got.OnlyA), splitKeys(got.OnlyB), want.RF, want.Normalized, splitKeys(want.OnlyA), splitKeys(want.OnlyB))
		}
		for _, only := range [][]Split{got.OnlyA, got.OnlyB} {
			for k, s := range only {
				b := Split{side: s.Side(), names: s.names}
				if !slices.Equal(s.Smaller(), b.Smaller()) || s.IsSingleton() != b.IsSingleton() || !s.Equal(b) || !b.Equal(s) {
					t.Fatalf("iteration %d: split %v: smaller side %q, want %q", iter, s, s.Smaller(), b.Smaller())
				}
				if k > 0 {
					p := only[k-1].Smaller()
					if len(p) > len(b.Smaller()) || len(p) == len(b.Smaller()) && p[0] > b.Smaller()[0] {
						t.Fatalf("iteration %d: splits out of order: %q before %q", iter, p, b.Smaller())
					}
				}
			}
		}
	}
}

// moveLeaf moves a random leaf of t to another node, if t has a leaf
// whose removal leaves a tree of two nodes or more.
func moveLeaf(rng *rand.Rand, t *Tree) {
	nodes := t.Nodes()
	var leaves []int
	for _, v := range nodes {
		if t.Degree(v) == 1 {
			leaves = append(leaves, v)
		}
	}
	if len(leaves) == 0 || len(nodes) < 3 {
		return
	}
	v := leaves[rng.IntN(len(leaves))]
	u := t.Adjacent(v)[0].To
	to := nodes[rng.IntN(len(nodes))]
	if to == v || to == u {
		return
	}
	_ = t.RemoveEdge(v, u)
	_ = t.AddEdge(v, to, 1)
}

// rfBitsets is RobinsonFoulds by merging the sorted bitset splits of the
// two trees: quadratic in the number of observed nodes, the reference for
// the linear-time algorithm.
func rfBitsets(a, b *Tree) (RFResult, error) {
	sa, err := Splits(a)
	if err != nil {
		return RFResult{}, err
	}
	sb, err := Splits(b)
	if err != nil {
		return RFResult{}, err
	}
	var res RFResult
	commonSingletons := 0
	i, j := 0, 0
	for i < len(sa) || j < len(sb) {
		var c int
		switch {
		case i == len(sa):
			c = 1
		case j == len(sb):
			c = -1
		default:
			c = compareSplits(sa[i], sb[j])
		}
		switch {
		case c < 0:
			res.OnlyA = append(res.OnlyA, sa[i])
			i++
		case c > 0:
			res.OnlyB = append(res.OnlyB, sb[j])
			j++
		default:
			if sa[i].IsSingleton() {
				commonSingletons++
			}
			i++
			j++
		}
	}
	res.RF = len(res.OnlyA) + len(res.OnlyB)
	if den := len(sa) + len(sb) - 2*commonSingletons; den > 0 {
		res.Normalized = float64(res.RF) / float64(den)
	}
	return res, nil
}

// caterpillarTree returns a caterpillar over n ≥ 3 observed leaves named
// by names: a path of n−2 hidden nodes, each with one leaf, and one more
// leaf at each end.
func caterpillarTree(tb testing.TB, names []string) *Tree {
	tb.Helper()
	t := New()
	n := len(names)
	prev := -1
	for i := range n - 2 {
		h := t.AddHidden()
		if prev >= 0 {
			_ = t.AddEdge(prev, h, 1)
		}
		leaf, err := t.AddObserved(names[i+1])
		if err != nil {
			tb.Fatal(err)
		}
		_ = t.AddEdge(h, leaf, 1)
		if i == 0 {
			first, _ := t.AddObserved(names[0])
			_ = t.AddEdge(h, first, 1)
		}
		prev = h
	}
	last, _ := t.AddObserved(names[n-1])
	_ = t.AddEdge(prev, last, 1)
	return t
}

// TestRobinsonFouldsCaterpillars: two caterpillars differing by the swap
// of two leaves k and k+1 in the middle differ by exactly one non-trivial
// split on each side (the cherry point moves), whatever their size.
func TestRobinsonFouldsCaterpillars(t *testing.T) {
	for _, n := range []int{6, 101, 20000} {
		names := make([]string, n)
		for i := range names {
			names[i] = "x" + strconv.Itoa(i)
		}
		a := caterpillarTree(t, names)
		k := n / 2
		names[k], names[k+1] = names[k+1], names[k]
		b := caterpillarTree(t, names)
		r, err := RobinsonFoulds(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if r.RF != 2 || len(r.OnlyA) != 1 || len(r.OnlyB) != 1 {
			t.Fatalf("n %d: RF %d, want 2", n, r.RF)
		}
		if want := 2 / float64(2*(n-3)); r.Normalized != want {
			t.Errorf("n %d: normalised %g, want %g", n, r.Normalized, want)
		}
	}
}

// BenchmarkRobinsonFoulds100k compares two caterpillars over 10⁵ leaves
// in different orders (almost every split differs).
func BenchmarkRobinsonFoulds100k(b *testing.B) {
	const n = 100000
	names := make([]string, n)
	for i := range names {
		names[i] = "x" + strconv.Itoa(i)
	}
	ta := caterpillarTree(b, names)
	rand.New(rand.NewPCG(1, 1)).Shuffle(n, func(i, j int) { names[i], names[j] = names[j], names[i] })
	tb := caterpillarTree(b, names)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RobinsonFoulds(ta, tb); err != nil {
			b.Fatal(err)
		}
	}
}
