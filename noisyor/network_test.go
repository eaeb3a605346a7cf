package noisyor

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
)

// ntBruteJoint returns the joint distribution of the effects in set (the
// layout of Network.Joint) by enumerating all source states.
func ntBruteJoint(n *Network, set []int) []float64 {
	ns, k := len(n.Sources), len(set)
	t := make([]float64, 1<<k)
	for x := range 1 << ns {
		w := 1.0
		for s := range ns {
			if x>>s&1 == 1 {
				w *= n.Sources[s].Prior
			} else {
				w *= 1 - n.Sources[s].Prior
			}
		}
		off := make([]float64, k) // P(set[i] = 0 | x)
		for i, a := range set {
			off[i] = 1 - n.LeakOf(a)
			for s := range ns {
				if x>>s&1 == 1 {
					off[i] *= n.Failure(s, a)
				}
			}
		}
		for idx := range t {
			p := w
			for i := range k {
				if idx>>(k-1-i)&1 == 1 {
					p *= 1 - off[i]
				} else {
					p *= off[i]
				}
			}
			t[idx] += p
		}
	}
	return t
}

// TestNegMomentJointBrute compares NegMoment and Joint with enumeration
// over all source states on random networks, to 1e-12.
func TestNegMomentJointBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for trial := range 50 {
		ns, m := 1+rng.IntN(7), 1+rng.IntN(10)
		n := lkRandNet(rng, ns, m)
		if trial%5 == 0 {
			n.Leak = nil
		}
		for range 10 {
			k := 1 + rng.IntN(min(m, 5))
			set := rng.Perm(m)[:k]
			want := ntBruteJoint(n, set)
			got, err := n.Joint(set)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-12 {
					t.Fatalf("trial %d set %v: joint[%d] = %v, brute force %v", trial, set, i, got[i], want[i])
				}
			}
			// N(set) is the all-zero entry.
			if neg := n.NegMoment(set); math.Abs(neg-want[0]) > 1e-12 {
				t.Fatalf("trial %d set %v: NegMoment %v, brute force %v", trial, set, neg, want[0])
			}
		}
		if got := n.NegMoment(nil); got != 1 {
			t.Fatalf("NegMoment of the empty set %v", got)
		}
	}
	if _, err := (&Network{}).Joint(make([]int, 31)); err == nil {
		t.Fatal("joint of 31 effects accepted")
	}
}

// TestNegJointInverse: JointToNeg undoes NegToJoint and the other way
// round, and NegToJoint turns negative moments into the joint.
func TestNegJointInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	for k := range 7 {
		x := make([]float64, 1<<k)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		y := append([]float64(nil), x...)
		NegToJoint(y, k)
		JointToNeg(y, k)
		z := append([]float64(nil), x...)
		JointToNeg(z, k)
		NegToJoint(z, k)
		for i := range x {
			if math.Abs(y[i]-x[i]) > 1e-12 || math.Abs(z[i]-x[i]) > 1e-12 {
				t.Fatalf("k=%d entry %d: %v, %v, want %v", k, i, y[i], z[i], x[i])
			}
		}
	}
	// Two independent effects: P(a=0) = 0.3, P(b=0) = 0.6.
	neg := []float64{0.3 * 0.6, 0.3, 0.6, 1} // (0,0), (0,·), (·,0), (·,·)
	NegToJoint(neg, 2)
	want := []float64{0.18, 0.12, 0.42, 0.28}
	for i := range want {
		if math.Abs(neg[i]-want[i]) > 1e-15 {
			t.Fatalf("joint %v, want %v", neg, want)
		}
	}
}

// ntNetwork is a small network with every optional part set.
func ntNetwork() *Network {
	return &Network{
		Effects: []string{"fever", "cough", "rash", "ache"},
		Leak:    []float64{0.01, 0.05, 0, 1e-300},
		Sources: []Source{
			{Name: "flu", Prior: 0.1, Children: []Child{{0, 0.2}, {1, 0.4}, {3, 0.30000000000000004}}},
			{Name: "measles", Prior: 0.02, Children: []Child{{0, 0.3}, {2, 0}},
				Learned: &Provenance{Depth: 1, Quartet: [4]int{0, 1, 2, 3}, Singular: [3]float64{1e-3, 2e-4, 3e-5}, Pair: [2]int{1, 3}}},
			{Name: "none", Prior: 1, Children: nil},
		},
	}
}

// TestJSONRoundTrip: WriteJSON then ReadJSON gives the same network,
// floats exactly, with the provenance.
func TestJSONRoundTrip(t *testing.T) {
	n := ntNetwork()
	prov := &model.Provenance{Method: "test", Data: &model.DataInfo{File: "x.csv", Rows: 10}}
	var buf bytes.Buffer
	if err := n.WriteJSON(&buf, prov); err != nil {
		t.Fatal(err)
	}
	got, p, err := ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	want := n.Clone()
	want.Sources[2].Children = nil
	if len(got.Sources[2].Children) != 0 {
		t.Fatalf("childless source read with children %v", got.Sources[2].Children)
	}
	got.Sources[2].Children = nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v\nfile %s", got, want, buf.String())
	}
	if p == nil || p.Method != "test" || p.Data.Rows != 10 {
		t.Fatalf("provenance %+v", p)
	}
	// Effects in the file keep the network's order, leaks and children
	// listed by name.
	if !strings.Contains(buf.String(), `"type": "noisy-or"`) || !strings.Contains(buf.String(), `"fever": 0.2`) {
		t.Fatalf("file:\n%s", buf.String())
	}
	// No leaks: read back as zero leaks.
	n.Leak = nil
	buf.Reset()
	if err := n.WriteJSON(&buf, nil); err != nil {
		t.Fatal(err)
	}
	got, _, err = ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for a := range got.Effects {
		if got.LeakOf(a) != 0 {
			t.Fatalf("leak of %s %v", got.Effects[a], got.LeakOf(a))
		}
	}
}

// TestReadJSONHandWritten: a file without "effects" takes them from the
// leaks and children; names default to X1, ...; errors name the problem.
func TestReadJSONHandWritten(t *testing.T) {
	doc := `{"format":"latentree-model","version":1,"type":"noisy-or",
	 "sources":[{"prior":0.25,"children":{"b":0.1,"a":0.2}},{"name":"Y","prior":0.5,"children":{"c":0.3}}],
	 "leak":{"a":0.001}}`
	n, _, err := ReadJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(n.Effects, []string{"a", "b", "c"}) || n.Sources[0].Name != "X1" || n.Sources[1].Name != "Y" {
		t.Fatalf("effects %v sources %q %q", n.Effects, n.Sources[0].Name, n.Sources[1].Name)
	}
	if n.Failure(0, 0) != 0.2 || n.Failure(0, 1) != 0.1 || n.Failure(1, 0) != 1 || n.LeakOf(0) != 0.001 || n.LeakOf(2) != 0 {
		t.Fatalf("parameters %+v", n)
	}
	bad := map[string]string{
		`{"format":"x","version":1,"type":"noisy-or"}`:                                                                                      "format",
		`{"format":"latentree-model","version":2,"type":"noisy-or"}`:                                                                        "version",
		`{"format":"latentree-model","version":1,"type":"discrete"}`:                                                                        "type",
		`{"format":"latentree-model","version":1,"type":"noisy-or","effects":["a"],"leak":{"b":0.1}}`:                                       `"b"`,
		`{"format":"latentree-model","version":1,"type":"noisy-or","effects":["a","a"]}`:                                                    `"a"`,
		`{"format":"latentree-model","version":1,"type":"noisy-or","effects":["a"],"sources":[{"prior":0.5,"children":{"a":0.1,"a":0.2}}]}`: "twice",
		`{"format":"latentree-model","version":1,"type":"noisy-or","effects":["a"],"sources":[{"prior":1.5,"children":{"a":0.1}}]}`:         "prior",
		`{"format":"latentree-model","version":1,"type":"noisy-or","effects":["a"],"sources":[{"prior":0.5,"children":{"a":1}}]}`:           "failure",
		`not json`: "model file",
	}
	for doc, want := range bad {
		_, _, err := ReadJSON(strings.NewReader(doc))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one mentioning %s", doc, err, want)
		}
	}
}

// TestValidateErrors: every malformed part of a network is reported,
// naming it.
func TestValidateErrors(t *testing.T) {
	if err := ntNetwork().Validate(); err != nil {
		t.Fatal(err)
	}
	var nilNet *Network
	if err := nilNet.Validate(); err == nil {
		t.Fatal("nil network valid")
	}
	cases := []struct {
		edit func(n *Network)
		want string
	}{
		{func(n *Network) { n.Effects[1] = "" }, "effect 1"},
		{func(n *Network) { n.Effects[1] = "fever" }, `"fever" repeated`},
		{func(n *Network) { n.Leak = n.Leak[:3] }, "3 leaks for 4 effects"},
		{func(n *Network) { n.Leak[2] = 1 }, `"rash"`},
		{func(n *Network) { n.Leak[2] = -0.1 }, `"rash"`},
		{func(n *Network) { n.Leak[2] = math.NaN() }, `"rash"`},
		{func(n *Network) { n.Sources[1].Name = "" }, "source 1"},
		{func(n *Network) { n.Sources[1].Name = "flu" }, `"flu" repeated`},
		{func(n *Network) { n.Sources[0].Prior = 0 }, `"flu"`},
		{func(n *Network) { n.Sources[0].Prior = 1.01 }, `"flu"`},
		{func(n *Network) { n.Sources[0].Prior = math.NaN() }, `"flu"`},
		{func(n *Network) { n.Sources[0].Children[2].Effect = 4 }, "out of range"},
		{func(n *Network) { n.Sources[0].Children[2].Effect = -1 }, "out of range"},
		{func(n *Network) { n.Sources[0].Children[1].Effect = 0 }, "increasing"},
		{func(n *Network) { n.Sources[0].Children[1].Failure = 1 }, "flu→cough"},
		{func(n *Network) { n.Sources[0].Children[1].Failure = -0.5 }, "flu→cough"},
	}
	for i, c := range cases {
		n := ntNetwork()
		c.edit(n)
		err := n.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "noisyor: ") {
			t.Errorf("case %d: error %v, want one mentioning %s", i, err, c.want)
		}
	}
}

// TestNetworkAccessors: counts, Failure, Parents, Index and Clone.
func TestNetworkAccessors(t *testing.T) {
	n := ntNetwork()
	if n.NumEffects() != 4 || n.NumSources() != 3 || n.NumEdges() != 5 {
		t.Fatalf("counts %d %d %d", n.NumEffects(), n.NumSources(), n.NumEdges())
	}
	if n.Failure(0, 1) != 0.4 || n.Failure(0, 2) != 1 || n.Failure(1, 2) != 0 {
		t.Fatal("Failure")
	}
	p := n.Parents()
	if !reflect.DeepEqual(p[0], []Parent{{0, 0.2}, {1, 0.3}}) || len(p[2]) != 1 || p[2][0].Source != 1 {
		t.Fatalf("parents %v", p)
	}
	if a, ok := n.Index("rash"); !ok || a != 2 {
		t.Fatal("Index")
	}
	if _, ok := n.Index("nope"); ok {
		t.Fatal("Index of a missing name")
	}
	c := n.Clone()
	c.Sources[0].Children[0].Failure = 0.9
	c.Sources[1].Learned.Depth = 7
	c.Leak[0] = 0.5
	if n.Sources[0].Children[0].Failure != 0.2 || n.Sources[1].Learned.Depth != 1 || n.Leak[0] != 0.01 {
		t.Fatal("Clone shares memory")
	}
}

// TestSampleMarginals: the sampled frequencies of single effects and of
// pairs at 0 agree with the exact negative moments within 4.5 standard
// errors, and the hidden states with the priors; the same seed gives the
// same data.
func TestSampleMarginals(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	n := lkRandNet(rng, 5, 8)
	rows := 20000
	d, hidden, err := n.SampleAll(rand.NewPCG(1, 2), rows)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, count int, p float64) {
		t.Helper()
		tol := 4.5*math.Sqrt(p*(1-p)/float64(rows)) + 1e-12
		if f := float64(count) / float64(rows); math.Abs(f-p) > tol {
			t.Errorf("%s: frequency %.4f, exact %.4f (tolerance %.4f)", what, f, p, tol)
		}
	}
	m := len(n.Effects)
	for a := range m {
		zeros := 0
		for _, v := range d.Discrete(a) {
			if v == 0 {
				zeros++
			}
		}
		check(n.Effects[a], zeros, n.NegMoment([]int{a}))
		for b := a + 1; b < m; b++ {
			both := 0
			for r := range rows {
				if d.Discrete(a)[r] == 0 && d.Discrete(b)[r] == 0 {
					both++
				}
			}
			check(n.Effects[a]+","+n.Effects[b], both, n.NegMoment([]int{a, b}))
		}
	}
	for s, h := range hidden {
		on := 0
		for _, x := range h {
			if x {
				on++
			}
		}
		check(n.Sources[s].Name, on, n.Sources[s].Prior)
	}
	d2, err := n.Sample(rand.NewPCG(1, 2), rows)
	if err != nil {
		t.Fatal(err)
	}
	for a := range m {
		if !reflect.DeepEqual(d.Discrete(a), d2.Discrete(a)) {
			t.Fatal("same seed, different data")
		}
	}
	if _, err := n.Sample(nil, -1); err == nil {
		t.Fatal("negative rows accepted")
	}
	if _, err := (&Network{}).Sample(nil, 5); err == nil {
		t.Fatal("network without effects sampled")
	}
}

// TestNewBinary: packing, labels, missing cells and the errors for
// non-binary columns.
func TestNewBinary(t *testing.T) {
	vars := []data.Variable{
		{Name: "a", Kind: data.Discrete, States: []string{"no", "yes"}},
		{Name: "b", Kind: data.Discrete, States: []string{"TRUE", "False"}},
		{Name: "c", Kind: data.Discrete, States: []string{"1"}},
	}
	rows := 70 // two words
	cols := make([][]uint16, 3)
	for j := range cols {
		cols[j] = make([]uint16, rows)
	}
	for r := range rows {
		cols[0][r] = uint16(r % 2)
		cols[1][r] = uint16(r % 3 % 2) // 0 → "TRUE" = 1, 1 → "False" = 0
		if r%3 == 2 {
			cols[1][r] = data.Missing
		}
	}
	d, err := data.FromDiscrete(vars, cols)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBinary(d)
	if err != nil {
		t.Fatal(err)
	}
	if b.Rows != rows || b.NumEffects() != 3 || !reflect.DeepEqual(b.Names, []string{"a", "b", "c"}) {
		t.Fatalf("binary %d rows %v", b.Rows, b.Names)
	}
	ones := [3]int{}
	for r := range rows {
		wantA := r % 2
		wantB := []int{1, 0, -1}[r%3]
		if b.Value(0, r) != wantA || b.Value(1, r) != wantB || b.Value(2, r) != 1 {
			t.Fatalf("row %d: %d %d %d, want %d %d 1", r, b.Value(0, r), b.Value(1, r), b.Value(2, r), wantA, wantB)
		}
		for j := range 3 {
			if b.Value(j, r) == 1 {
				ones[j]++
			}
		}
	}
	for j := range 3 {
		zeros := rows - ones[j] - b.Missing[j]
		if b.CountOnes(j) != ones[j] || b.CountZeros(j) != zeros {
			t.Fatalf("column %d: counts %d %d, want %d %d", j, b.CountOnes(j), b.CountZeros(j), ones[j], zeros)
		}
	}
	if b.Missing[1] != rows/3 || !b.HasMissing() {
		t.Fatalf("missing %v", b.Missing)
	}

	bad := []data.Variable{{Name: "x", Kind: data.Discrete, States: []string{"0", "2"}}}
	d, _ = data.FromDiscrete(bad, [][]uint16{{0, 1}})
	if _, err := NewBinary(d); err == nil || !strings.Contains(err.Error(), `"x"`) || !strings.Contains(err.Error(), `"2"`) {
		t.Fatalf("non-binary label: %v", err)
	}
	d, _ = data.FromContinuous([]string{"y"}, [][]float64{{0.5, 1}})
	if _, err := NewBinary(d); err == nil || !strings.Contains(err.Error(), `"y"`) || !strings.Contains(err.Error(), "continuous") {
		t.Fatalf("continuous column: %v", err)
	}
	if _, err := NewBinary(nil); err == nil {
		t.Fatal("nil dataset accepted")
	}
}
