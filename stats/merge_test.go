package stats

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
)

// shard returns the rows [lo, hi) of u as a dataset whose columns are in
// the order perm and whose discrete variables have as states only the
// labels occurring in those rows, in a shuffled order.
func shard(t *testing.T, rng *rand.Rand, u *data.Dataset, lo, hi int, perm []int) *data.Dataset {
	t.Helper()
	rows := hi - lo
	vars := make([]data.Variable, len(perm))
	recode := make([][]uint16, len(perm))
	for k, j := range perm {
		v := u.Var(j)
		if v.Kind == data.Discrete {
			seen := make([]bool, v.NumStates())
			for _, x := range u.Discrete(j)[lo:hi] {
				if x != data.Missing {
					seen[x] = true
				}
			}
			var codes []int
			for c, ok := range seen {
				if ok {
					codes = append(codes, c)
				}
			}
			if len(codes) == 0 {
				codes = []int{0} // a variable needs a state
			}
			rng.Shuffle(len(codes), func(a, b int) { codes[a], codes[b] = codes[b], codes[a] })
			recode[k] = make([]uint16, v.NumStates())
			states := make([]string, len(codes))
			for i, c := range codes {
				states[i] = v.States[c]
				recode[k][c] = uint16(i)
			}
			v.States = states
		}
		vars[k] = v
	}
	d, err := data.New(vars, rows)
	if err != nil {
		t.Fatal(err)
	}
	for k, j := range perm {
		if u.Var(j).Kind == data.Discrete {
			dst := d.Discrete(k)
			for r, x := range u.Discrete(j)[lo:hi] {
				if x == data.Missing {
					dst[r] = x
				} else {
					dst[r] = recode[k][x]
				}
			}
		} else {
			copy(d.Continuous(k), u.Continuous(j)[lo:hi])
		}
	}
	return d
}

// mergeUniverse draws a dataset in which some labels occur only in some
// row ranges, so that shards have different label sets.
func mergeUniverse(t *testing.T, rng *rand.Rand, rows int) *data.Dataset {
	cols := specs(14, []int{2, 4, 0, 3, 2, 0, 6}, []float64{0, 0.2})
	u := randDataset(t, rng, rows, cols)
	// v0 (binary): state 1 only in the second half; v1 (4 states): state 3
	// only in the first half; v3: state 0 only in the last quarter.
	for r := range rows {
		if r < rows/2 && u.Discrete(0)[r] == 1 {
			u.Discrete(0)[r] = 0
		}
		if r >= rows/2 && u.Discrete(1)[r] == 3 {
			u.Discrete(1)[r] = 2
		}
		if r < 3*rows/4 && u.Discrete(3)[r] == 0 {
			u.Discrete(3)[r] = 1
		}
	}
	return u
}

func mustCompute(t testing.TB, d *data.Dataset, opt Options) *Stats {
	t.Helper()
	s, err := Compute(d, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMergeEqualsCompute(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const rows = 3000
	u := mergeUniverse(t, rng, rows)
	want := mustCompute(t, u, Options{})
	p := u.NumVars()
	ident := make([]int, p)
	for j := range ident {
		ident[j] = j
	}
	for _, cut := range []int{rows / 2, rows / 3, 1, 0} {
		a := shard(t, rng, u, 0, cut, ident)
		b := shard(t, rng, u, cut, rows, rng.Perm(p))
		sa := mustCompute(t, a, Options{})
		sb := mustCompute(t, b, Options{Workers: 1})
		if err := sa.Merge(sb); err != nil {
			t.Fatal(err)
		}
		sameStats(t, sa, want, 1e-12)
		// The other way round.
		sa = mustCompute(t, a, Options{})
		sb = mustCompute(t, b, Options{})
		if err := sb.Merge(sa); err != nil {
			t.Fatal(err)
		}
		sameStats(t, sb, want, 1e-12)
	}
}

func TestMergeManyShards(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const rows = 2000
	u := mergeUniverse(t, rng, rows)
	want := mustCompute(t, u, Options{})
	cuts := []int{0, 300, 301, 1000, 1500, 1999, 2000}
	var total Stats // the zero value is an empty shard
	for k := 0; k+1 < len(cuts); k++ {
		d := shard(t, rng, u, cuts[k], cuts[k+1], rng.Perm(u.NumVars()))
		s := mustCompute(t, d, Options{})
		// Through JSON, as shards from other machines would arrive.
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var r Stats
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if err := total.Merge(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := total.Merge(&Stats{}); err != nil {
		t.Fatal(err)
	}
	sameStats(t, &total, want, 1e-12)
}

func TestMergeSelf(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	u := mergeUniverse(t, rng, 700)
	twice, err := u.Rows(append(rng.Perm(700), rng.Perm(700)...))
	if err != nil {
		t.Fatal(err)
	}
	s := mustCompute(t, u, Options{})
	if err := s.Merge(s); err != nil {
		t.Fatal(err)
	}
	sameStats(t, s, mustCompute(t, twice, Options{}), 1e-12)
}

func TestMergeNoPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	u := mergeUniverse(t, rng, 1000)
	want := mustCompute(t, u, Options{NoPairs: true})
	a := mustCompute(t, shard(t, rng, u, 0, 400, rng.Perm(u.NumVars())), Options{NoPairs: true})
	b := mustCompute(t, shard(t, rng, u, 400, 1000, rng.Perm(u.NumVars())), Options{NoPairs: true})
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	sameStats(t, a, want, 1e-12)
}

func TestMergeErrors(t *testing.T) {
	mk := func(vars []data.Variable, opt Options) *Stats {
		d, err := data.New(vars, 3)
		if err != nil {
			t.Fatal(err)
		}
		return mustCompute(t, d, opt)
	}
	disc := func(name string) data.Variable {
		return data.Variable{Name: name, Kind: data.Discrete, States: []string{"0", "1"}}
	}
	cont := func(name string) data.Variable { return data.Variable{Name: name, Kind: data.Continuous} }
	base := func() *Stats { return mk([]data.Variable{disc("a"), cont("b"), disc("c")}, Options{}) }
	cases := []struct {
		o    *Stats
		want string
	}{
		{nil, "nil"},
		{mk([]data.Variable{disc("a"), disc("b"), disc("c")}, Options{}), `variable "b" is continuous in one shard and discrete in the other`},
		{mk([]data.Variable{disc("a"), cont("b")}, Options{}), `variable "c" is missing`},
		{mk([]data.Variable{disc("a"), cont("b"), disc("c"), disc("d")}, Options{}), `variable "d" is only in the merged shard`},
		{mk([]data.Variable{disc("a"), cont("b"), disc("e")}, Options{}), `"e"`},
		{mk([]data.Variable{disc("a"), cont("b"), disc("c")}, Options{NoPairs: true}), "NoPairs"},
	}
	for _, c := range cases {
		s := base()
		before, _ := json.Marshal(s)
		err := s.Merge(c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "stats: ") {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
		after, _ := json.Marshal(s)
		if string(before) != string(after) {
			t.Error("failed Merge changed the receiver")
		}
	}
}

// Merged pair statistics larger than the limit (and than either shard)
// are refused before they are allocated: shards with disjoint states make
// tables of 4×4 cells (128 bytes) from tables of 2×2 (32 bytes).
func TestMergePairLimit(t *testing.T) {
	shard := func(states []string) *Stats {
		vars := []data.Variable{
			{Name: "a", Kind: data.Discrete, States: states},
			{Name: "b", Kind: data.Discrete, States: states},
		}
		d, err := data.New(vars, 2)
		if err != nil {
			t.Fatal(err)
		}
		d.Discrete(0)[1], d.Discrete(1)[1] = 1, 1
		s, err := Compute(d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s, o := shard([]string{"0", "1"}), shard([]string{"2", "3"})
	err := s.Clone().merge(o, 100)
	if err == nil || !strings.HasPrefix(err.Error(), "stats: merge: the pair statistics of 2 variables (2 discrete, 0 continuous) would take 128 B, more than the limit of 100 B") {
		t.Errorf("over the limit: %v", err)
	}
	if err := s.Clone().merge(o, 128); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if err := s.Merge(o); err != nil {
		t.Errorf("default limit: %v", err)
	}
}

// Statistics JSON declaring pair tables larger than its counts is refused
// before the tables are allocated (two 46,000-state variables: 16 GiB).
func TestUnmarshalJSONDeclaredTables(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"format":"` + jsonFormat + `","version":` + fmt.Sprint(jsonVersion) + `,"rows":1,"pairs":true,"variables":[`)
	for v, name := range []string{"a", "b"} {
		if v > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name":%q,"kind":"discrete","count":1,"states":[`, name)
		for k := range 46000 {
			if k > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"%d"`, k)
		}
		b.WriteString(`],"marginal":[1`)
		b.WriteString(strings.Repeat(",0", 45999))
		b.WriteString(`]}`)
	}
	b.WriteString(`],"discrete_pairs":[1]}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var s Stats
	err := s.UnmarshalJSON([]byte(b.String()))
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "discrete_pairs has 1 counts, want 2116000000") {
		t.Errorf("error %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
		t.Errorf("allocated %d MiB", grew>>20)
	}
}
