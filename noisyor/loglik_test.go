package noisyor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
)

// lkRandNet returns a random network of ns sources and m effects: priors
// in (0.05, 0.6) (one in four networks has a source of prior 1), each
// source with 1 to m/2+1 random children, failures in (0.05, 0.95) with
// an occasional 0, leaks in (0, 0.2) with an occasional 0.
func lkRandNet(rng *rand.Rand, ns, m int) *Network {
	n := &Network{Leak: make([]float64, m)}
	for a := range m {
		n.Effects = append(n.Effects, fmt.Sprintf("e%d", a))
		if rng.IntN(5) > 0 {
			n.Leak[a] = 0.2 * rng.Float64()
		}
	}
	for s := range ns {
		src := Source{Name: fmt.Sprintf("X%d", s), Prior: 0.05 + 0.55*rng.Float64()}
		if s == 0 && rng.IntN(4) == 0 {
			src.Prior = 1
		}
		k := 1 + rng.IntN(m/2+1)
		for _, a := range rng.Perm(m)[:k] {
			f := 0.05 + 0.9*rng.Float64()
			if rng.IntN(15) == 0 {
				f = 0
			}
			src.Children = append(src.Children, Child{Effect: a, Failure: f})
		}
		sortChildren(src.Children)
		n.Sources = append(n.Sources, src)
	}
	return n
}

func sortChildren(c []Child) {
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j].Effect < c[j-1].Effect; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
}

// lkData returns rows of effect values (0, 1, or −1 missing) and their
// Binary with columns in the order perm (perm[c] is the effect of column
// c), drawn from the network with missing cells at rate miss.
func lkData(t testing.TB, n *Network, rng *rand.Rand, rows int, miss float64, perm []int) ([][]int, *Binary) {
	t.Helper()
	d, err := n.Sample(rand.NewPCG(rng.Uint64(), rng.Uint64()), rows)
	if err != nil {
		t.Fatal(err)
	}
	m := len(n.Effects)
	vals := make([][]int, rows)
	for r := range vals {
		vals[r] = make([]int, m)
		for a := range m {
			vals[r][a] = int(d.Discrete(a)[r])
			if rng.Float64() < miss {
				vals[r][a] = -1
			}
		}
	}
	return vals, lkBinary(t, n.Effects, vals, perm)
}

// lkBinary packs rows of values (−1 missing), columns in the order perm.
func lkBinary(t testing.TB, names []string, vals [][]int, perm []int) *Binary {
	t.Helper()
	vars := make([]data.Variable, len(perm))
	cols := make([][]uint16, len(perm))
	for c, a := range perm {
		vars[c] = data.Variable{Name: names[a], Kind: data.Discrete, States: []string{"0", "1"}}
		cols[c] = make([]uint16, len(vals))
		for r := range vals {
			v := vals[r][a]
			if v < 0 {
				cols[c][r] = data.Missing
			} else {
				cols[c][r] = uint16(v)
			}
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
	return b
}

// bruteRow returns P(row) and P(source s on | row) by enumerating all
// 2^n source states with the model's definition.
func bruteRow(n *Network, vals []int) (float64, []float64) {
	ns := len(n.Sources)
	total := 0.0
	on := make([]float64, ns)
	for x := range 1 << ns {
		w := 1.0
		for s := range ns {
			if x>>s&1 == 1 {
				w *= n.Sources[s].Prior
			} else {
				w *= 1 - n.Sources[s].Prior
			}
		}
		for a, v := range vals {
			if v < 0 {
				continue
			}
			off := 1 - n.LeakOf(a)
			for s := range ns {
				if x>>s&1 == 1 {
					off *= n.Failure(s, a)
				}
			}
			if v == 0 {
				w *= off
			} else {
				w *= 1 - off
			}
		}
		total += w
		for s := range ns {
			if x>>s&1 == 1 {
				on[s] += w
			}
		}
	}
	for s := range on {
		on[s] /= total
	}
	return total, on
}

func identity(m int) []int {
	p := make([]int, m)
	for i := range p {
		p[i] = i
	}
	return p
}

// TestLogLikelihoodBrute compares every row's log-likelihood and
// posteriors with enumeration over all source states, on random networks
// with missing cells and the data's columns shuffled.
func TestLogLikelihoodBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 40 {
		ns, m := 1+rng.IntN(8), 2+rng.IntN(11)
		n := lkRandNet(rng, ns, m)
		vals, b := lkData(t, n, rng, 150, 0.2, rng.Perm(m))
		// Some rows with every effect positive, and some all missing.
		for r := range 5 {
			for a := range m {
				vals[r][a] = 1
				vals[5+r][a] = -1
			}
		}
		b = lkBinary(t, n.Effects, vals, rng.Perm(m))
		l, err := n.LogLikelihood(b, LikOptions{Rows: true, Posteriors: true})
		if err != nil {
			t.Fatal(err)
		}
		if l.Approx != 0 || l.components[bySampling] != 0 {
			t.Fatalf("trial %d: %d rows approximated", trial, l.Approx)
		}
		sum := 0.0
		for r, v := range vals {
			p, post := bruteRow(n, v)
			want := math.Log(p)
			if p == 0 {
				if !math.IsInf(l.Rows[r], -1) {
					t.Fatalf("trial %d row %d: loglik %v, want -Inf", trial, r, l.Rows[r])
				}
				continue
			}
			sum += want
			if d := math.Abs(l.Rows[r] - want); d > 1e-10 {
				t.Fatalf("trial %d row %d %v: loglik %v, brute force %v (diff %g)", trial, r, v, l.Rows[r], want, d)
			}
			for s := range post {
				if d := math.Abs(l.Posteriors[r][s] - post[s]); d > 1e-10 {
					t.Fatalf("trial %d row %d source %d: posterior %v, brute force %v", trial, r, s, l.Posteriors[r][s], post[s])
				}
			}
		}
		if l.Zero == 0 && math.Abs(l.LogLik-sum) > 1e-9*float64(len(vals)) {
			t.Fatalf("trial %d: total %v, brute force %v", trial, l.LogLik, sum)
		}
	}
}

// TestQuickscoreBrute forces quickscore (enumeration over 2^12 states
// beyond MaxExact) on rows with few positives and compares with brute
// force; rows with too many positives for quickscore are sampled.
func TestQuickscoreBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for trial := range 4 {
		ns, m := 12, 24
		n := &Network{Leak: make([]float64, m)}
		for a := range m {
			n.Effects = append(n.Effects, fmt.Sprintf("w%d", a))
			n.Leak[a] = 0.01 * rng.Float64()
		}
		// Every source is a parent of effects 0..3, so a row's positives
		// among them couple every source.
		for s := range ns {
			src := Source{Name: fmt.Sprintf("Z%d", s), Prior: 0.02 + 0.2*rng.Float64()}
			for a := range m {
				if a < 4 || rng.IntN(4) == 0 {
					src.Children = append(src.Children, Child{Effect: a, Failure: 0.3 + 0.65*rng.Float64()})
				}
			}
			n.Sources = append(n.Sources, src)
		}
		rows := 30
		vals := make([][]int, rows)
		for r := range vals {
			vals[r] = make([]int, m)
			for a := range m {
				switch {
				case a < 4 && rng.IntN(2) == 0:
					vals[r][a] = 1
				case a >= 4 && rng.IntN(10) == 0:
					vals[r][a] = 1
				case rng.IntN(10) == 0:
					vals[r][a] = -1
				}
			}
		}
		b := lkBinary(t, n.Effects, vals, identity(m))
		l, err := n.LogLikelihood(b, LikOptions{MaxExact: 1 << 8, Rows: true, Posteriors: true})
		if err != nil {
			t.Fatal(err)
		}
		if l.components[byQuickscore] < rows/2 {
			t.Fatalf("trial %d: quickscore used for %d components (components %v)", trial, l.components[byQuickscore], l.components)
		}
		for r, v := range vals {
			if l.RowStdErr[r] > 0 {
				continue // sampled
			}
			p, post := bruteRow(n, v)
			if d := math.Abs(l.Rows[r] - math.Log(p)); d > 1e-10 {
				t.Fatalf("trial %d row %d: loglik %v, brute force %v (diff %g)", trial, r, l.Rows[r], math.Log(p), d)
			}
			for s := range post {
				if d := math.Abs(l.Posteriors[r][s] - post[s]); d > 1e-10 {
					t.Fatalf("trial %d row %d source %d: posterior %v, brute force %v", trial, r, s, l.Posteriors[r][s], post[s])
				}
			}
		}
	}
}

// TestQuickscoreCancellation: quickscore on a component whose sum cancels
// far beyond double-double precision reports failure rather than a wrong
// answer, and LogLikelihood then enumerates.
func TestQuickscoreCancellation(t *testing.T) {
	// Two unlikely sources, each a parent of all 12 effects with failure
	// 0.99: P(all on) ~ 2·10^-6·10^-24, against terms of size ~1.
	m := 12
	n := &Network{}
	x := Source{Name: "X", Prior: 1e-6}
	y := Source{Name: "Y", Prior: 2e-6}
	for a := range m {
		n.Effects = append(n.Effects, fmt.Sprintf("a%d", a))
		x.Children = append(x.Children, Child{Effect: a, Failure: 0.99})
		y.Children = append(y.Children, Child{Effect: a, Failure: 0.98})
	}
	n.Sources = []Source{x, y}
	vals := [][]int{make([]int, m)}
	for a := range m {
		vals[0][a] = 1
	}
	b := lkBinary(t, n.Effects, vals, identity(m))
	w := newLikWorker(mustEngine(t, n, b, LikOptions{}))
	pos := make([]int32, m)
	for a := range pos {
		pos[a] = int32(a)
	}
	w.row(0, pos, nil, nil) // fills pi1, pi0
	c := &likComponent{srcs: []int32{0, 1}}
	w.local[0], w.local[1] = 0, 1
	c.build(w, pos, false)
	if v, ok := c.quickscore(); ok {
		t.Fatalf("quickscore accepted a cancelling sum: %v", v)
	}
	p, _ := bruteRow(n, vals[0])
	want := math.Log(p)
	if got := c.enumerate(); math.Abs(got-want) > 1e-10 {
		t.Fatalf("enumeration %v, want %v", got, want)
	}
	l, err := n.LogLikelihood(b, LikOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(l.LogLik-want) > 1e-10 || l.Exact != 1 {
		t.Fatalf("loglik %v (exact rows %d), want %v", l.LogLik, l.Exact, want)
	}
}

func mustEngine(t *testing.T, n *Network, b *Binary, opt LikOptions) *likEngine {
	t.Helper()
	e, err := newLikEngine(n, b, &opt)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestLogLikelihoodUnderflow: a row whose probability is far below the
// smallest float64 still has its exact log-likelihood.
func TestLogLikelihoodUnderflow(t *testing.T) {
	m := 1000
	n := &Network{Leak: make([]float64, m)}
	s1 := Source{Name: "X", Prior: 0.3}
	s2 := Source{Name: "Y", Prior: 0.4}
	for a := range m {
		n.Effects = append(n.Effects, fmt.Sprintf("a%d", a))
		s1.Children = append(s1.Children, Child{Effect: a, Failure: 0.9})
		if a%2 == 0 {
			s2.Children = append(s2.Children, Child{Effect: a, Failure: 0.8})
		}
	}
	n.Sources = []Source{s1, s2}
	vals := [][]int{make([]int, m)}
	for a := range m {
		vals[0][a] = 1
	}
	b := lkBinary(t, n.Effects, vals, identity(m))
	l, err := n.LogLikelihood(b, LikOptions{Posteriors: true})
	if err != nil {
		t.Fatal(err)
	}
	// No leak, and X is a parent of every effect: X must be on, Y either.
	onlyX := math.Log(0.3*0.6) + float64(m)*math.Log(0.1)
	both := math.Log(0.3*0.4) + float64(m/2)*math.Log(1-0.9*0.8) + float64(m/2)*math.Log(0.1)
	want := logAddExp(onlyX, both)
	if math.Abs(l.LogLik-want) > 1e-9*math.Abs(want) {
		t.Fatalf("loglik %v, want %v", l.LogLik, want)
	}
	postY := math.Exp(both - want)
	if got := l.Posteriors[0]; got[0] != 1 || math.Abs(got[1]-postY) > 1e-12 {
		t.Fatalf("posteriors %v, want [1 %v]", got, postY)
	}
}

// TestLogLikelihoodZero: a positive effect that nothing can turn on gives
// probability 0: −Inf, counted, NaN posteriors, no error.
func TestLogLikelihoodZero(t *testing.T) {
	n := &Network{
		Effects: []string{"a", "b", "c"},
		Leak:    []float64{0.1, 0, 0},
		Sources: []Source{{Name: "X", Prior: 0.5, Children: []Child{{Effect: 0, Failure: 0.2}, {Effect: 2, Failure: 0.3}}}},
	}
	vals := [][]int{{1, 0, 1}, {0, 1, 0}, {1, -1, 0}, {0, 1, 1}}
	b := lkBinary(t, n.Effects, vals, identity(3))
	l, err := n.LogLikelihood(b, LikOptions{Rows: true, Posteriors: true})
	if err != nil {
		t.Fatal(err)
	}
	if l.Zero != 2 || l.FirstZero != 1 || !math.IsInf(l.LogLik, -1) {
		t.Fatalf("zero rows %d, first %d, loglik %v; want 2, 1, -Inf", l.Zero, l.FirstZero, l.LogLik)
	}
	want := 0.0
	for _, r := range []int{0, 2} {
		p, post := bruteRow(n, vals[r])
		want += math.Log(p)
		if math.Abs(l.Rows[r]-math.Log(p)) > 1e-12 || math.Abs(l.Posteriors[r][0]-post[0]) > 1e-12 {
			t.Fatalf("row %d: %v %v, want %v %v", r, l.Rows[r], l.Posteriors[r], math.Log(p), post)
		}
	}
	if math.Abs(l.FiniteLogLik-want) > 1e-12 {
		t.Fatalf("finite loglik %v, want %v", l.FiniteLogLik, want)
	}
	if !math.IsNaN(l.Posteriors[1][0]) || !math.IsInf(l.Rows[3], -1) {
		t.Fatalf("row 1 posterior %v, row 3 loglik %v", l.Posteriors[1], l.Rows[3])
	}
	// A source with prior 1 and a failure of 0 to an effect at 0.
	n2 := &Network{Effects: []string{"a"}, Sources: []Source{{Name: "X", Prior: 1, Children: []Child{{Effect: 0, Failure: 0}}}}}
	b2 := lkBinary(t, n2.Effects, [][]int{{0}, {1}}, identity(1))
	l2, err := n2.LogLikelihood(b2, LikOptions{Rows: true})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(l2.Rows[0], -1) || l2.Rows[1] != 0 || l2.Zero != 1 {
		t.Fatalf("rows %v zero %d, want [-Inf 0] 1", l2.Rows, l2.Zero)
	}
}

// TestLogLikelihoodColumns: columns are matched by name; a missing effect
// or an extra column is an error naming it.
func TestLogLikelihoodColumns(t *testing.T) {
	n := &Network{Effects: []string{"a", "b", "c"}, Sources: []Source{{Name: "X", Prior: 0.5, Children: []Child{{Effect: 1, Failure: 0.2}}}}}
	vals := [][]int{{1, 0, 1, 0}}
	names := []string{"a", "b", "c", "zz"}
	_, err := n.LogLikelihood(lkBinary(t, names, vals, []int{0, 2}), LikOptions{})
	if err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Fatalf("missing effect: %v", err)
	}
	_, err = n.LogLikelihood(lkBinary(t, names, vals, []int{3, 0, 1, 2}), LikOptions{})
	if err == nil || !strings.Contains(err.Error(), `"zz"`) {
		t.Fatalf("extra column: %v", err)
	}
	if _, err := n.LogLikelihood(lkBinary(t, names, vals, []int{2, 0, 1}), LikOptions{Samples: 1}); err == nil {
		t.Fatal("Samples 1 accepted")
	}
	if _, err := n.LogLikelihood(nil, LikOptions{}); err == nil {
		t.Fatal("nil data accepted")
	}
}

// TestLogLikelihoodSampled forces importance sampling everywhere (budget
// 1) and checks the estimates against the exact answers: every row within
// 5 standard errors, about 95% within 2, the total within 4 of its
// standard error; and the same result for any number of workers.
func TestLogLikelihoodSampled(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	n := lkRandNet(rng, 8, 12)
	_, b := lkData(t, n, rng, 300, 0.1, identity(12))
	exact, err := n.LogLikelihood(b, LikOptions{Rows: true, Posteriors: true})
	if err != nil {
		t.Fatal(err)
	}
	opt := LikOptions{MaxExact: 1, Samples: 2000, Rows: true, Posteriors: true, Src: rand.NewPCG(7, 7)}
	est, err := n.LogLikelihood(b, opt)
	if err != nil {
		t.Fatal(err)
	}
	if est.Exact+est.Approx != b.Rows || est.components[byEnumeration]+est.components[byQuickscore] != 0 {
		t.Fatalf("exact %d approx %d components %v", est.Exact, est.Approx, est.components)
	}
	within2, rows, postErr := 0, 0, 0.0
	for r := range b.Rows {
		if est.RowStdErr[r] == 0 {
			if est.Rows[r] != exact.Rows[r] && math.Abs(est.Rows[r]-exact.Rows[r]) > 1e-12 {
				t.Fatalf("row %d without estimated component differs", r)
			}
			continue
		}
		rows++
		z := math.Abs(est.Rows[r]-exact.Rows[r]) / est.RowStdErr[r]
		if z > 5 {
			t.Fatalf("row %d: estimate %v ± %v, exact %v", r, est.Rows[r], est.RowStdErr[r], exact.Rows[r])
		}
		if z <= 2 {
			within2++
		}
		for s := range n.Sources {
			d := math.Abs(est.Posteriors[r][s] - exact.Posteriors[r][s])
			if d > 0.15 {
				t.Fatalf("row %d source %d: posterior %v, exact %v", r, s, est.Posteriors[r][s], exact.Posteriors[r][s])
			}
			postErr += d
		}
	}
	// About 2000 draws with half of them effective: posterior errors of
	// about 0.01 on average.
	if postErr /= float64(rows * len(n.Sources)); postErr > 0.015 {
		t.Fatalf("mean absolute posterior error %v", postErr)
	}
	if rows < 100 || float64(within2) < 0.88*float64(rows) {
		t.Fatalf("%d of %d estimated rows within 2 standard errors", within2, rows)
	}
	if z := math.Abs(est.LogLik-exact.LogLik) / est.StdErr; z > 4 {
		t.Fatalf("total %v ± %v, exact %v", est.LogLik, est.StdErr, exact.LogLik)
	}
	t.Logf("estimated %d rows: total %.4f ± %.4f, exact %.4f; %d within 2 se; posterior error %.4f", rows, est.LogLik, est.StdErr, exact.LogLik, within2, postErr)
	for _, workers := range []int{1, 3} {
		o := opt
		o.Workers, o.Src = workers, rand.NewPCG(7, 7)
		again, err := n.LogLikelihood(b, o)
		if err != nil {
			t.Fatal(err)
		}
		if again.LogLik != est.LogLik || again.StdErr != est.StdErr {
			t.Fatalf("workers %d: %v ± %v, want %v ± %v", workers, again.LogLik, again.StdErr, est.LogLik, est.StdErr)
		}
		for r := range again.Rows {
			if again.Rows[r] != est.Rows[r] || again.Posteriors[r][0] != est.Posteriors[r][0] {
				t.Fatalf("workers %d row %d differs", workers, r)
			}
		}
	}
}

// TestPosteriorsWrapper: Posteriors is LogLikelihood's posteriors.
func TestPosteriorsWrapper(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	n := lkRandNet(rng, 5, 9)
	vals, b := lkData(t, n, rng, 70, 0.1, identity(9))
	post, err := n.Posteriors(b, LikOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for r, v := range vals {
		p, want := bruteRow(n, v)
		for s := range want {
			if p > 0 && math.Abs(post[r][s]-want[s]) > 1e-10 {
				t.Fatalf("row %d source %d: %v, want %v", r, s, post[r][s], want[s])
			}
		}
	}
}

// lkImageNet is the benchmark's network: 8 sources, 64 effects, priors
// 0.25, failures 0.1, leaks 0.001, 8 to 16 random children per source.
func lkImageNet(rng *rand.Rand) *Network {
	n := &Network{Leak: make([]float64, 64)}
	for a := range 64 {
		n.Effects = append(n.Effects, fmt.Sprintf("p%d", a))
		n.Leak[a] = 0.001
	}
	for s := range 8 {
		src := Source{Name: fmt.Sprintf("X%d", s+1), Prior: 0.25}
		for _, a := range rng.Perm(64)[:8+rng.IntN(9)] {
			src.Children = append(src.Children, Child{Effect: a, Failure: 0.1})
		}
		sortChildren(src.Children)
		n.Sources = append(n.Sources, src)
	}
	return n
}

func BenchmarkLogLikelihood(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 5))
	n := lkImageNet(rng)
	_, bin := lkData(b, n, rng, 10000, 0, identity(64))
	for _, post := range []bool{false, true} {
		b.Run(fmt.Sprintf("rows=10000/posteriors=%v", post), func(b *testing.B) {
			for b.Loop() {
				if _, err := n.LogLikelihood(bin, LikOptions{Posteriors: post}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("rows=10000/sampled", func(b *testing.B) {
		for b.Loop() {
			if _, err := n.LogLikelihood(bin, LikOptions{MaxExact: 1, Samples: 1000}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func ExampleNetwork_LogLikelihood() {
	n := &Network{
		Effects: []string{"fever", "cough"},
		Leak:    []float64{0.01, 0.05},
		Sources: []Source{{Name: "flu", Prior: 0.1, Children: []Child{{Effect: 0, Failure: 0.2}, {Effect: 1, Failure: 0.4}}}},
	}
	vars := []data.Variable{
		{Name: "cough", Kind: data.Discrete, States: []string{"0", "1"}},
		{Name: "fever", Kind: data.Discrete, States: []string{"0", "1"}},
	}
	d, _ := data.FromDiscrete(vars, [][]uint16{{1, 0, data.Missing}, {1, 0, 1}})
	b, _ := NewBinary(d)
	l, err := n.LogLikelihood(b, LikOptions{Rows: true, Posteriors: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("log-likelihood %.4f (%d exact rows)\n", l.LogLik, l.Exact)
	for r := range l.Rows {
		fmt.Printf("row %d: loglik %.4f, P(flu) %.4f\n", r, l.Rows[r], l.Posteriors[r][0])
	}
	// Output:
	// log-likelihood -5.5670 (3 exact rows)
	// row 0: loglik -2.9923, P(flu) 0.9910
	// row 1: loglik -0.1579, P(flu) 0.0088
	// row 2: loglik -2.4169, P(flu) 0.8991
}

// TestBernoulliSet: the bucketed sampler includes each source with its
// probability (within 4.5 standard errors over 200,000 draws), including
// probabilities 1, exactly 1/2 and tiny ones.
func TestBernoulliSet(t *testing.T) {
	r := []float64{1, 0.5, 0.7, 0.3, 0.26, 0.01, 0.012, 0.0001, 1e-300, 0.5000001, 0.49, 0.125}
	free := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	var bs bernoulliSet
	bs.init(r, free)
	rng := rand.New(rand.NewPCG(21, 21))
	count := make([]int, len(r))
	const n = 200000
	var out []int32
	for range n {
		out = bs.draw(rng, out[:0])
		seen := map[int32]bool{}
		for _, x := range out {
			if seen[x] {
				t.Fatalf("source %d drawn twice", x)
			}
			seen[x] = true
			count[x]++
		}
	}
	for i, p := range r {
		f := float64(count[i]) / n
		if tol := 4.5*math.Sqrt(p*(1-p)/n) + 1e-12; math.Abs(f-p) > tol {
			t.Errorf("source %d: frequency %v, want %v ± %v", i, f, p, tol)
		}
	}
}

// TestSampledManySources: on a QMR-like network (60 sources with small
// priors, 200 effects, about 9 parents per effect) the sampler's estimates
// agree with quickscore's exact answers within their standard errors.
func TestSampledManySources(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	ns, m := 60, 200
	n := &Network{Leak: make([]float64, m)}
	for a := range m {
		n.Effects = append(n.Effects, fmt.Sprintf("f%d", a))
		n.Leak[a] = 0.002
	}
	for s := range ns {
		src := Source{Name: fmt.Sprintf("D%d", s), Prior: 0.005 + 0.03*rng.Float64()}
		for _, a := range rng.Perm(m)[:30] {
			src.Children = append(src.Children, Child{Effect: a, Failure: 0.3 + 0.6*rng.Float64()})
		}
		sortChildren(src.Children)
		n.Sources = append(n.Sources, src)
	}
	vals, b := lkData(t, n, rng, 400, 0.05, identity(m))
	exact, err := n.LogLikelihood(b, LikOptions{Rows: true, Posteriors: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exact run: components %v", exact.components)
	est, err := n.LogLikelihood(b, LikOptions{MaxExact: 1, Samples: 3000, Rows: true, Posteriors: true})
	if err != nil {
		t.Fatal(err)
	}
	rows, within2, far := 0, 0, 0
	for r := range vals {
		if exact.RowStdErr[r] > 0 || est.RowStdErr[r] == 0 {
			continue // exact answer unavailable, or nothing sampled
		}
		rows++
		z := math.Abs(est.Rows[r]-exact.Rows[r]) / est.RowStdErr[r]
		if z <= 2 {
			within2++
		}
		if z > 5 {
			far++
		}
		for s := range n.Sources {
			if d := math.Abs(est.Posteriors[r][s] - exact.Posteriors[r][s]); d > 0.1 {
				t.Errorf("row %d source %d: posterior %v, exact %v", r, s, est.Posteriors[r][s], exact.Posteriors[r][s])
			}
		}
	}
	t.Logf("%d rows compared (%d exact components by quickscore): %d within 2 se, %d beyond 5", rows, exact.components[byQuickscore], within2, far)
	if rows < 100 || float64(within2) < 0.85*float64(rows) || far > 0 {
		t.Fatalf("%d rows compared: %d within 2 se, %d beyond 5", rows, within2, far)
	}
}
