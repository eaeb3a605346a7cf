package noisyor

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestImageNetwork(t *testing.T) {
	n := ImageNetwork()
	if err := n.Validate(); err != nil {
		t.Fatal(err)
	}
	if n.NumEffects() != 64 || n.NumSources() != 8 {
		t.Fatalf("%d effects, %d sources", n.NumEffects(), n.NumSources())
	}
	if n.Effects[0] != "p0_0" || n.Effects[9] != "p1_1" || n.Effects[63] != "p7_7" {
		t.Errorf("effect names %q %q %q", n.Effects[0], n.Effects[9], n.Effects[63])
	}
	for a := range n.Effects {
		if n.LeakOf(a) != 0.001 {
			t.Fatalf("leak of %s is %v", n.Effects[a], n.LeakOf(a))
		}
	}
	for i, s := range n.Sources {
		if s.Name != ImageShapes[i] || s.Prior != 0.25 {
			t.Errorf("source %d: %q prior %v", i, s.Name, s.Prior)
		}
		if k := len(s.Children); k < 8 || k > 16 {
			t.Errorf("source %s has %d pixels", s.Name, k)
		}
		for _, c := range s.Children {
			if c.Failure != 0.1 {
				t.Errorf("failure %s→%s is %v", s.Name, n.Effects[c.Effect], c.Failure)
			}
		}
	}
	// The first and last sources need one subtraction, the others none.
	if got, want := QuartetDepths(n), []int{1, 0, 0, 0, 0, 0, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("QuartetDepths %v, want %v", got, want)
	}
	// No two shapes are equal.
	for i, s := range n.Sources {
		for _, o := range n.Sources[:i] {
			if slices.Equal(o.Children, s.Children) {
				t.Errorf("%s and %s are the same shape", o.Name, s.Name)
			}
		}
	}
	if !reflect.DeepEqual(n, ImageNetwork()) {
		t.Error("ImageNetwork differs between calls")
	}
}

func TestRandomNetwork(t *testing.T) {
	opt := RandomOptions{Sources: 15, Effects: 60, MinChildren: 5, MaxChildren: 9, PriorMin: 0.1, PriorMax: 0.2,
		FailureMin: 0.2, FailureMax: 0.4, Leak: 0.01}
	n, err := RandomNetwork(rand.NewPCG(1, 2), opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Validate(); err != nil {
		t.Fatal(err)
	}
	if n.NumSources() != 15 || n.NumEffects() != 60 || n.Sources[0].Name != "X1" || n.Effects[59] != "e60" {
		t.Fatalf("network %d×%d, names %q %q", n.NumSources(), n.NumEffects(), n.Sources[0].Name, n.Effects[59])
	}
	for _, s := range n.Sources {
		if k := len(s.Children); k < 5 || k > 9 {
			t.Errorf("%s has %d children", s.Name, k)
		}
		if s.Prior < 0.1 || s.Prior > 0.2 {
			t.Errorf("%s prior %v", s.Name, s.Prior)
		}
		for _, c := range s.Children {
			if c.Failure < 0.2 || c.Failure > 0.4 {
				t.Errorf("failure %v", c.Failure)
			}
		}
	}
	if n.LeakOf(3) != 0.01 {
		t.Errorf("leak %v", n.LeakOf(3))
	}
	// Same seed, same network; another seed, another.
	again, _ := RandomNetwork(rand.NewPCG(1, 2), opt)
	if !reflect.DeepEqual(n, again) {
		t.Error("RandomNetwork is not reproducible with the same seed")
	}
	other, _ := RandomNetwork(rand.NewPCG(2, 2), opt)
	if reflect.DeepEqual(n, other) {
		t.Error("RandomNetwork gives the same network for two seeds")
	}
	// Defaults and no leaks.
	d, err := RandomNetwork(nil, RandomOptions{Leak: -1})
	if err != nil {
		t.Fatal(err)
	}
	if d.NumSources() != 20 || d.NumEffects() != 100 || d.Leak != nil {
		t.Errorf("defaults: %d sources, %d effects, leak %v", d.NumSources(), d.NumEffects(), d.Leak)
	}
}

func TestRandomNetworkLearnable(t *testing.T) {
	// Dense enough that plain draws usually have unlearnable sources.
	opt := RandomOptions{Sources: 30, Effects: 40, MinChildren: 4, MaxChildren: 8}
	plainBad := 0
	for seed := range uint64(10) {
		n, err := RandomNetwork(rand.NewPCG(seed, 0), opt)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Min(QuartetDepths(n)) < 0 {
			plainBad++
		}
	}
	if plainBad == 0 {
		t.Fatal("the test's options give learnable networks without Learnable")
	}
	opt.Learnable = true
	for seed := range uint64(10) {
		n, err := RandomNetwork(rand.NewPCG(seed, 0), opt)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if d := QuartetDepths(n); slices.Min(d) < 0 {
			t.Errorf("seed %d: Learnable network has depths %v", seed, d)
		}
	}
	// Impossible: three sources over four effects, four children each.
	_, err := RandomNetwork(nil, RandomOptions{Sources: 3, Effects: 4, MinChildren: 4, MaxChildren: 4, Learnable: true, Attempts: 20})
	if err == nil || !strings.HasPrefix(err.Error(), "noisyor: ") {
		t.Errorf("impossible learnable network: %v", err)
	}
}

func TestRandomNetworkBadOptions(t *testing.T) {
	for _, o := range []RandomOptions{
		{Sources: -1},
		{Effects: 5, MinChildren: 3, MaxChildren: 6},
		{MinChildren: 8, MaxChildren: 5},
		{MinChildren: 3, Learnable: true},
		{PriorMin: 0.5, PriorMax: 0.2},
		{PriorMax: 1.5},
		{FailureMax: 1},
		{Leak: 1},
	} {
		if _, err := RandomNetwork(nil, o); err == nil || !strings.HasPrefix(err.Error(), "noisyor: ") {
			t.Errorf("%+v: error %v", o, err)
		}
	}
}

func TestQMRLike(t *testing.T) {
	n, err := QMRLike(rand.NewPCG(1, 0), QMROptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n.NumSources() != 570 || n.NumEffects() != 4000 {
		t.Fatalf("%d sources, %d effects", n.NumSources(), n.NumEffects())
	}
	if e := n.NumEdges(); e < 35000 || e > 55000 {
		t.Errorf("%d edges, want about 45,000", e)
	}
	kids := make([]int, 0, n.NumSources())
	for _, s := range n.Sources {
		kids = append(kids, len(s.Children))
		if s.Prior < 0.001 || s.Prior > 0.05 {
			t.Errorf("%s prior %v", s.Name, s.Prior)
		}
		for _, c := range s.Children {
			if c.Failure < 0.1 || c.Failure > 0.95 {
				t.Errorf("failure %v", c.Failure)
			}
		}
	}
	slices.Sort(kids)
	// Heavy tail: a median of tens, a maximum of hundreds.
	if med, top := kids[len(kids)/2], kids[len(kids)-1]; med < 20 || med > 100 || top < 200 {
		t.Errorf("children: median %d, max %d", med, top)
	}
	// The most popular finding has many parents, the median one few.
	par := n.Parents()
	np := make([]int, len(par))
	for a, p := range par {
		np[a] = len(p)
	}
	slices.Sort(np)
	if np[len(np)-1] < 100 || np[len(np)/2] > 20 {
		t.Errorf("parents per finding: median %d, max %d", np[len(np)/2], np[len(np)-1])
	}
	q := QuartetDepths(n)
	tab := DepthTable(n, q)
	t.Logf("quartet depths %v", tab)
	count := map[int]int{}
	for _, d := range q {
		count[d]++
	}
	if f := float64(count[0]) / 570; f < 0.7 || f > 0.9 {
		t.Errorf("%.2f of the sources at depth 0", f)
	}
	if count[1] < 40 || count[2] < 3 || count[-1] < 4 || count[-1] > 15 {
		t.Errorf("depth counts %v", count)
	}
	tr := TripletDepths(n)
	tc := map[int]int{}
	for _, d := range tr {
		tc[d]++
	}
	if tc[0] <= count[0] || tc[-1] < 2 || tc[-1] >= count[-1] {
		t.Errorf("triplet depth counts %v against quartet %v", tc, count)
	}
	// Known structure never needs more rounds than quartets.
	for s := range q {
		if q[s] >= 0 && (tr[s] < 0 || tr[s] > q[s]) {
			t.Errorf("%s: triplet depth %d, quartet depth %d", n.Sources[s].Name, tr[s], q[s])
		}
	}
	again, _ := QMRLike(rand.NewPCG(1, 0), QMROptions{})
	if !reflect.DeepEqual(n, again) {
		t.Error("QMRLike is not reproducible with the same seed")
	}
}

func TestQMRLikeTwins(t *testing.T) {
	// Without subtypes and twins nearly everything is found at once; each
	// twin pair adds two sources never found.
	base := QMROptions{Sources: 120, Effects: 1500, Subtypes: -1, Twins: -1, NearTwins: -1}
	n, err := QMRLike(rand.NewPCG(4, 0), base)
	if err != nil {
		t.Fatal(err)
	}
	q := QuartetDepths(n)
	if slices.Min(q) < 0 {
		t.Errorf("no twins, yet depths %v", DepthTable(n, q))
	}
	tw := base
	tw.Twins, tw.NearTwins = 2, 3
	n, err = QMRLike(rand.NewPCG(4, 0), tw)
	if err != nil {
		t.Fatal(err)
	}
	q, tr := QuartetDepths(n), TripletDepths(n)
	nq, nt := 0, 0
	for s := range q {
		if q[s] < 0 {
			nq++
		}
		if tr[s] < 0 {
			nt++
		}
	}
	if nq != 10 || nt != 4 {
		t.Errorf("%d sources never found with quartets (want 10), %d with triplets (want 4)", nq, nt)
	}
}

func TestQMRLikeBadOptions(t *testing.T) {
	for _, o := range []QMROptions{
		{Sources: -3},
		{Sources: 3, Twins: 1, NearTwins: 1},
		{Effects: 5},
		{Effects: 100, MaxChildren: 99},
		{MinChildren: 10, MaxChildren: 9},
		{MedianChildren: -1},
		{Popularity: -1},
		{Subtypes: 1.5},
		{PriorMax: 2},
		{FailureMin: -0.1},
	} {
		if _, err := QMRLike(nil, o); err == nil || !strings.HasPrefix(err.Error(), "noisyor: ") {
			t.Errorf("%+v: error %v", o, err)
		}
	}
}

// The generated networks sample and write like any other.
func TestGeneratedNetworksSampleAndWrite(t *testing.T) {
	n, err := RandomNetwork(rand.NewPCG(3, 3), RandomOptions{Sources: 5, Effects: 20, Learnable: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, net := range []*Network{ImageNetwork(), n} {
		d, err := net.Sample(rand.NewPCG(1, 1), 50)
		if err != nil {
			t.Fatal(err)
		}
		if d.NumRows() != 50 {
			t.Errorf("%d rows", d.NumRows())
		}
		var b bytes.Buffer
		if err := net.WriteJSON(&b, nil); err != nil {
			t.Fatal(err)
		}
		back, _, err := ReadJSON(&b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Sources, net.Sources) {
			t.Error("sources differ after a JSON round trip")
		}
	}
}

func ExampleImageNetwork() {
	n := ImageNetwork()
	depth := QuartetDepths(n)
	for i, s := range n.Sources {
		fmt.Printf("%-13s %2d pixels, depth %d\n", s.Name, len(s.Children), depth[i])
	}
	// Output:
	// diagonal       8 pixels, depth 1
	// top-bar       16 pixels, depth 0
	// cross         15 pixels, depth 0
	// block         16 pixels, depth 0
	// frame         16 pixels, depth 0
	// bottom-bar    16 pixels, depth 0
	// letter-L      12 pixels, depth 0
	// anti-diagonal  8 pixels, depth 1
}

func ExampleQMRLike() {
	n, err := QMRLike(rand.NewPCG(1, 0), QMROptions{Sources: 200, Effects: 1500})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n.NumSources(), "sources,", n.NumEffects(), "effects")
	for _, r := range DepthTable(n, QuartetDepths(n)) {
		fmt.Printf("depth %2d: %3d sources\n", r.Depth, r.Sources)
	}
	// Output:
	// 200 sources, 1500 effects
	// depth  0: 152 sources
	// depth  1:  35 sources
	// depth  2:   8 sources
	// depth  3:   1 sources
	// depth -1:   4 sources
}

func ExampleRandomNetwork() {
	n, err := RandomNetwork(rand.NewPCG(1, 0), RandomOptions{Sources: 10, Effects: 30, Learnable: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n.NumSources(), "sources,", n.NumEffects(), "effects")
	fmt.Println("never found:", slices.Index(QuartetDepths(n), -1) >= 0)
	// Output:
	// 10 sources, 30 effects
	// never found: false
}
