package vem

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/latentree/latentree/internal/testenv"
	"github.com/latentree/latentree/noisyor"
)

// bruteLogJoint returns log P(X = mask, row r) under n, the observed
// effects of row r only.
func bruteLogJoint(n *noisyor.Network, b *noisyor.Binary, r, mask int) float64 {
	lp := 0.0
	for s, src := range n.Sources {
		if mask&(1<<s) != 0 {
			lp += math.Log(src.Prior)
		} else {
			lp += math.Log1p(-src.Prior)
		}
	}
	for a := range n.Effects {
		v := b.Value(a, r)
		if v < 0 {
			continue
		}
		p0 := 1 - n.LeakOf(a)
		for s := range n.Sources {
			if mask&(1<<s) != 0 {
				p0 *= n.Failure(s, a)
			}
		}
		if v == 0 {
			lp += math.Log(p0)
		} else {
			lp += math.Log1p(-p0)
		}
	}
	return lp
}

// logSumExp returns log Σ exp(x).
func logSumExp(x []float64) float64 {
	m := slices.Max(x)
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}

// bruteLogLik returns log P(row) for every row of b under n, by
// enumerating the 2^K source states.
func bruteLogLik(n *noisyor.Network, b *noisyor.Binary) []float64 {
	out := make([]float64, b.Rows)
	terms := make([]float64, 1<<n.NumSources())
	for r := range b.Rows {
		for mask := range terms {
			terms[mask] = bruteLogJoint(n, b, r, mask)
		}
		out[r] = logSumExp(terms)
	}
	return out
}

// vemStateFor returns a fit state on b with the parameters of n (θ = 0
// for the pairs that are not edges) and the given workers and inner
// alternations, ready for a fresh E-step.
func vemStateFor(t testing.TB, n *noisyor.Network, b *noisyor.Binary, workers, inner int) *vemState {
	t.Helper()
	d, err := newVEMData(b)
	if err != nil {
		t.Fatal(err)
	}
	st := newVEMState(d, n.NumSources(), &Options{Workers: workers, Inner: inner})
	p := st.p
	for j, s := range n.Sources {
		p.prior[j] = s.Prior
		for _, c := range s.Children {
			p.th[c.Effect*p.k+j] = -math.Log(c.Failure)
		}
	}
	for a := range p.m {
		p.th0[a] = thetaOf(n.LeakOf(a))
	}
	st.fresh = true
	return st
}

// binaryOf packs rows given as strings of '0', '1' and '.' (missing).
func binaryOf(t testing.TB, rows []string) *noisyor.Binary {
	t.Helper()
	m := len(rows[0])
	b := &noisyor.Binary{Rows: len(rows), Ones: make([][]uint64, m), Zeros: make([][]uint64, m), Missing: make([]int, m)}
	words := (len(rows) + 63) / 64
	for a := range m {
		b.Names = append(b.Names, fmt.Sprintf("e%d", a+1))
		b.Ones[a], b.Zeros[a] = make([]uint64, words), make([]uint64, words)
	}
	for r, row := range rows {
		for a, ch := range row {
			switch ch {
			case '1':
				b.Ones[a][r>>6] |= 1 << (r & 63)
			case '0':
				b.Zeros[a][r>>6] |= 1 << (r & 63)
			default:
				b.Missing[a]++
			}
		}
	}
	return b
}

// allRows returns every 0/1 row of m effects, then every row with effect
// (i mod m) missing.
func allRows(m int) []string {
	var rows []string
	for mask := range 1 << m {
		var sb strings.Builder
		for a := range m {
			if mask&(1<<a) != 0 {
				sb.WriteByte('1')
			} else {
				sb.WriteByte('0')
			}
		}
		rows = append(rows, sb.String())
	}
	for i := range 1 << m {
		r := []byte(rows[i])
		r[i%m] = '.'
		rows = append(rows, string(r))
	}
	return rows
}

// randomNetwork returns a network with k sources, m effects, every pair
// an edge with probability pEdge and random parameters.
func randomNetwork(rng *rand.Rand, k, m int, pEdge float64) *noisyor.Network {
	n := &noisyor.Network{}
	for a := range m {
		n.Effects = append(n.Effects, fmt.Sprintf("e%d", a+1))
		n.Leak = append(n.Leak, 0.001+0.2*rng.Float64())
	}
	for s := range k {
		src := noisyor.Source{Name: fmt.Sprintf("X%d", s+1), Prior: 0.1 + 0.5*rng.Float64()}
		for a := range m {
			if rng.Float64() < pEdge {
				src.Children = append(src.Children, noisyor.Child{Effect: a, Failure: 0.05 + 0.9*rng.Float64()})
			}
		}
		n.Sources = append(n.Sources, src)
	}
	return n
}

// TestVEMRowBound checks the row bound on every 0/1 row of small random
// networks (and rows with a missing cell): at random q it equals the
// bounded joint summed over the 2^K source states by brute force (the
// factorisation), it is at most log P(row), and the E-step only raises
// it, staying below log P(row).
func TestVEMRowBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 4 {
		k, m := 3, 5
		n := randomNetwork(rng, k, m, []float64{1, 0.7, 0.7, 0.5}[trial])
		b := binaryOf(t, allRows(m))
		exact := bruteLogLik(n, b)
		st := vemStateFor(t, n, b, 1, 0)
		st.prepare()
		s := st.scratch[0]
		p := st.p
		// Random q on the support θ > 0.
		for c, a32 := range st.d.cellEff {
			a := int(a32)
			q := st.q[c*k : c*k+k]
			sum := 0.0
			for j := range k {
				q[j] = 0
				if p.th[a*k+j] > 0 {
					q[j] = 0.05 + rng.Float64()
					sum += q[j]
				}
			}
			for j := range k {
				q[j] /= sum
			}
		}
		atQ := make([]float64, b.Rows)
		terms := make([]float64, 1<<k)
		for r := range b.Rows {
			cst := st.rowSetup(s, r)
			atQ[r] = st.rowOptimize(s, r, cst, 0)
			// Brute force: Σ_X P(X) Π_{a=0} P(a=0|X) Π_{a=1} exp(Jensen bound).
			for mask := range terms {
				lp := 0.0
				for j := range k {
					if mask&(1<<j) != 0 {
						lp += math.Log(p.prior[j])
					} else {
						lp += math.Log1p(-p.prior[j])
					}
				}
				for a := range m {
					switch b.Value(a, r) {
					case 0:
						lp -= p.th0[a]
						for j := range k {
							if mask&(1<<j) != 0 {
								lp -= p.th[a*k+j]
							}
						}
					case 1:
						c := slices.Index(st.d.cellEff[st.d.rowStart[r]:st.d.rowStart[r+1]], int32(a)) + st.d.rowStart[r]
						q := st.q[c*k : c*k+k]
						if slices.Max(q) == 0 {
							lp += gval(p.th0[a])
							continue
						}
						for j := range k {
							if q[j] == 0 {
								continue
							}
							if mask&(1<<j) != 0 {
								lp += q[j] * gval(p.th0[a]+p.th[a*k+j]/q[j])
							} else {
								lp += q[j] * gval(p.th0[a])
							}
						}
					}
				}
				terms[mask] = lp
			}
			if want := logSumExp(terms); math.Abs(atQ[r]-want) > 1e-10*(1+math.Abs(want)) {
				t.Fatalf("trial %d row %d: bound at q %.15g, brute force %.15g", trial, r, atQ[r], want)
			}
			if atQ[r] > exact[r]+1e-12 {
				t.Fatalf("trial %d row %d: bound at random q %.15g above log P %.15g", trial, r, atQ[r], exact[r])
			}
		}
		// The E-step from these q (kept and fresh starts).
		st.inner, st.fresh = 50, false
		st.prepare()
		for r := range b.Rows {
			got := st.rowEStep(s, r)
			if got > exact[r]+1e-12 {
				t.Fatalf("trial %d row %d: bound %.15g above log P %.15g", trial, r, got, exact[r])
			}
			if got < atQ[r]-1e-12 {
				t.Fatalf("trial %d row %d: E-step lowered the bound from %.15g to %.15g", trial, r, atQ[r], got)
			}
		}
	}
}

// TestVEMBoundTight checks that the bound equals log P(row) when every
// effect has a single parent (Jensen is then an equality), on every row,
// with missing cells too, and that the total matches.
func TestVEMBoundTight(t *testing.T) {
	n := &noisyor.Network{Effects: []string{"a", "b", "c", "d", "e", "f"}, Leak: []float64{0.01, 0.2, 0.001, 0.05, 0.3, 0.02},
		Sources: []noisyor.Source{
			{Name: "X1", Prior: 0.3, Children: []noisyor.Child{{Effect: 0, Failure: 0.1}, {Effect: 1, Failure: 0.5}}},
			{Name: "X2", Prior: 0.6, Children: []noisyor.Child{{Effect: 2, Failure: 0.2}, {Effect: 3, Failure: 0.05}, {Effect: 4, Failure: 0.7}}},
			{Name: "X3", Prior: 0.15, Children: []noisyor.Child{{Effect: 5, Failure: 0.3}}},
		}}
	b := binaryOf(t, allRows(6))
	exact := bruteLogLik(n, b)
	st := vemStateFor(t, n, b, 2, 3)
	total := st.eStep()
	s := st.scratch[0]
	st.prepare()
	for r := range b.Rows {
		got := st.rowEStep(s, r)
		if math.Abs(got-exact[r]) > 1e-12*(1+math.Abs(exact[r])) {
			t.Errorf("row %d: bound %.15g, log P %.15g", r, got, exact[r])
		}
	}
	want := 0.0
	for _, v := range exact {
		want += v
	}
	if math.Abs(total-want) > 1e-10*math.Abs(want) {
		t.Errorf("total bound %.15g, log-likelihood %.15g", total, want)
	}
}

// threeSources is the recovery network: 3 sources on 12 effects, each
// source 5 effects, neighbours sharing one (0–4, 4–8, 8–11 and 0).
func threeSources() *noisyor.Network {
	n := &noisyor.Network{}
	for a := range 12 {
		n.Effects = append(n.Effects, fmt.Sprintf("e%02d", a))
		n.Leak = append(n.Leak, 0.001)
	}
	for i, set := range [][]int{{0, 1, 2, 3, 4}, {4, 5, 6, 7, 8}, {0, 8, 9, 10, 11}} {
		src := noisyor.Source{Name: fmt.Sprintf("T%d", i+1), Prior: 0.25}
		for _, a := range set {
			src.Children = append(src.Children, noisyor.Child{Effect: a, Failure: 0.1})
		}
		n.Sources = append(n.Sources, src)
	}
	return n
}

func sampleBinary(t testing.TB, n *noisyor.Network, seed uint64, rows int) *noisyor.Binary {
	t.Helper()
	d, err := n.Sample(rand.NewPCG(seed, 1), rows)
	if err != nil {
		t.Fatal(err)
	}
	b, err := noisyor.NewBinary(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVEMMonotone checks that the total bound never decreases from one
// E-step to the next (within 1e-9 relative), with learned and fixed
// leaks and with missing cells.
func TestVEMMonotone(t *testing.T) {
	b := sampleBinary(t, threeSources(), 5, 1500)
	// Blank every 17th cell.
	bm := *b
	bm.Ones, bm.Zeros, bm.Missing = make([][]uint64, len(b.Ones)), make([][]uint64, len(b.Zeros)), make([]int, len(b.Missing))
	for a := range b.Ones {
		bm.Ones[a], bm.Zeros[a] = slices.Clone(b.Ones[a]), slices.Clone(b.Zeros[a])
		for r := a; r < b.Rows; r += 17 {
			bm.Ones[a][r>>6] &^= 1 << (r & 63)
			bm.Zeros[a][r>>6] &^= 1 << (r & 63)
			bm.Missing[a]++
		}
	}
	for _, tc := range []struct {
		name string
		b    *noisyor.Binary
		opt  Options
	}{
		{"learned leaks", b, Options{Sources: 3, Restarts: 3, Tol: 1e-9}},
		{"fixed leaks", b, Options{Sources: 3, Restarts: 2, FixLeak: true, Leak: 0.002}},
		{"missing cells", &bm, Options{Sources: 3, Restarts: 2}},
		{"more sources", b, Options{Sources: 5, Restarts: 1, Inner: 1}},
	} {
		tc.opt.Src = rand.NewPCG(9, 9)
		res, err := Fit(tc.b, tc.opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i, s := range res.Starts {
			if len(s.Trace) != s.Iterations || s.Trace[len(s.Trace)-1] != s.Bound {
				t.Errorf("%s start %d: trace of %d entries ending %v, %d iterations, bound %v", tc.name, i, len(s.Trace), s.Trace[len(s.Trace)-1], s.Iterations, s.Bound)
			}
			for it := 1; it < len(s.Trace); it++ {
				if s.Trace[it] < s.Trace[it-1]-1e-9*math.Abs(s.Trace[it-1]) {
					t.Errorf("%s start %d: bound fell from %.12g to %.12g at E-step %d", tc.name, i, s.Trace[it-1], s.Trace[it], it+1)
				}
			}
		}
		if tc.opt.FixLeak {
			for a, v := range res.Network.Leak {
				if v != -math.Expm1(-thetaOf(0.002)) {
					t.Errorf("%s: leak of %s moved to %v", tc.name, res.Network.Effects[a], v)
				}
			}
		}
	}
}

// TestVEMRecovery fits the three-source network from 5,000 rows and
// checks that the best start finds every source: matched by their strong
// children (failure < 0.5), which must be the true children, with
// failures within 0.03 of 0.1, every other failure above 0.95 (weak
// edges the sampling noise leaves; pruning at 1 − 1e-3 keeps some),
// priors within 0.03 of 0.25 and leaks below 0.01. The short form runs
// the first 3 of the long form's 8 random starts (start i is seeded the
// same whatever their number); the best of the 8 is start 2, so both forms
// check the same fit.
func TestVEMRecovery(t *testing.T) {
	truth := threeSources()
	b := sampleBinary(t, truth, 7, 5000)
	res, err := Fit(b, Options{Sources: 3, Restarts: testenv.Pick(3, 8), Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	exact := 0.0
	for _, v := range bruteLogLik(res.Network, b) {
		exact += v
	}
	t.Logf("bound %.2f (log-likelihood of the pruned fit %.2f), best start %d of %d, %d iterations", res.Bound, exact, res.Best, len(res.Starts), res.Iterations)
	for i, s := range res.Starts {
		t.Logf("start %d: bound %.2f, %d iterations", i, s.Bound, s.Iterations)
	}
	strong := func(fails []float64) []int {
		var ch []int
		for a, f := range fails {
			if f < 0.5 {
				ch = append(ch, a)
			}
		}
		return ch
	}
	used := map[int]bool{}
	for _, tsrc := range truth.Sources {
		var want []int
		for _, c := range tsrc.Children {
			want = append(want, c.Effect)
		}
		match := -1
		for s := range res.Failures {
			if !used[s] && slices.Equal(strong(res.Failures[s]), want) {
				match = s
			}
		}
		if match < 0 {
			t.Errorf("source %s (children %v) not recovered", tsrc.Name, want)
			continue
		}
		used[match] = true
		if p := res.Network.Sources[match].Prior; math.Abs(p-0.25) > 0.03 {
			t.Errorf("source %s: prior %.4f, want 0.25 ± 0.03", tsrc.Name, p)
		}
		for a, f := range res.Failures[match] {
			if slices.Contains(want, a) {
				if math.Abs(f-0.1) > 0.03 {
					t.Errorf("source %s → %s: failure %.4f, want 0.1 ± 0.03", tsrc.Name, truth.Effects[a], f)
				}
			} else if f < 0.95 {
				t.Errorf("source %s → %s: failure %.4f, want > 0.95 (no edge)", tsrc.Name, truth.Effects[a], f)
			}
		}
	}
	if t.Failed() {
		for s := range res.Failures {
			t.Logf("fitted %s prior %.3f failures %.3f", res.Network.Sources[s].Name, res.Network.Sources[s].Prior, res.Failures[s])
		}
	}
	for a, v := range res.Network.Leak {
		if v > 0.01 {
			t.Errorf("leak of %s is %.4f, want < 0.01", truth.Effects[a], v)
		}
	}
	if res.Bound > exact+1e-9 {
		t.Errorf("bound %.6f above the fit's log-likelihood %.6f", res.Bound, exact)
	}
}

// TestVEMDeterministic checks that results do not depend on GOMAXPROCS or
// on the number of workers.
func TestVEMDeterministic(t *testing.T) {
	b := sampleBinary(t, threeSources(), 11, 1200)
	run := func(procs, workers int) *Result {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		res, err := Fit(b, Options{Sources: 3, Restarts: 2, Workers: workers, Src: rand.NewPCG(5, 6)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	ref := run(1, 0)
	for _, c := range [][2]int{{2, 0}, {2, 3}, {1, 2}} {
		got := run(c[0], c[1])
		if got.Bound != ref.Bound || got.Best != ref.Best {
			t.Errorf("GOMAXPROCS %d workers %d: bound %v (start %d), want %v (start %d)", c[0], c[1], got.Bound, got.Best, ref.Bound, ref.Best)
		}
		for i := range ref.Starts {
			if !slices.Equal(got.Starts[i].Trace, ref.Starts[i].Trace) {
				t.Errorf("GOMAXPROCS %d workers %d: start %d traces differ", c[0], c[1], i)
			}
		}
		for s := range ref.Failures {
			if !slices.Equal(got.Failures[s], ref.Failures[s]) {
				t.Errorf("GOMAXPROCS %d workers %d: failures of source %d differ", c[0], c[1], s)
			}
		}
		if !slices.Equal(got.Network.Leak, ref.Network.Leak) {
			t.Errorf("GOMAXPROCS %d workers %d: leaks differ", c[0], c[1])
		}
	}
}

// TestVEMResult checks the shape of the result: source order and names,
// pruning against Failures, starts, and that it validates and writes.
func TestVEMResult(t *testing.T) {
	b := sampleBinary(t, threeSources(), 2, 800)
	res, err := Fit(b, Options{Sources: 4, Restarts: 3, MaxIter: 20, Src: rand.NewPCG(1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	n := res.Network
	if err := n.Validate(); err != nil {
		t.Fatal(err)
	}
	if n.NumSources() != 4 || len(res.Failures) != 4 || len(res.Starts) != 3 {
		t.Fatalf("%d sources, %d failure rows, %d starts", n.NumSources(), len(res.Failures), len(res.Starts))
	}
	for s, src := range n.Sources {
		if src.Name != fmt.Sprintf("X%d", s+1) {
			t.Errorf("source %d named %q", s, src.Name)
		}
		if s > 0 && src.Prior > n.Sources[s-1].Prior {
			t.Errorf("priors not decreasing: %v then %v", n.Sources[s-1].Prior, src.Prior)
		}
		k := 0
		for a, f := range res.Failures[s] {
			if f < MinProb || f > 1-MinProb {
				t.Errorf("failure %v outside the clamps", f)
			}
			if f <= DefaultMaxFailure {
				if k >= len(src.Children) || src.Children[k].Effect != a || src.Children[k].Failure != f {
					t.Errorf("source %s: edge to %s (failure %v) missing", src.Name, n.Effects[a], f)
				}
				k++
			}
		}
		if k != len(src.Children) {
			t.Errorf("source %s: %d children, %d failures ≤ %v", src.Name, len(src.Children), k, DefaultMaxFailure)
		}
	}
	best := res.Starts[res.Best]
	for _, s := range res.Starts {
		if s.Bound > best.Bound || s.Iterations < 1 || s.Iterations > 20 {
			t.Errorf("start %+v against best %v", s, best.Bound)
		}
	}
	if res.Bound != best.Bound || res.Iterations != best.Iterations || res.Converged != best.Converged {
		t.Errorf("result %v/%d/%v, best start %v/%d/%v", res.Bound, res.Iterations, res.Converged, best.Bound, best.Iterations, best.Converged)
	}
	var sb strings.Builder
	if err := n.WriteJSON(&sb, nil); err != nil {
		t.Fatal(err)
	}
	// MaxFailure 1 keeps every pair.
	all, err := Fit(b, Options{Sources: 2, Restarts: 1, MaxIter: 5, MaxFailure: 1})
	if err != nil {
		t.Fatal(err)
	}
	if all.Network.NumEdges() != 2*12 {
		t.Errorf("MaxFailure 1: %d edges, want 24", all.Network.NumEdges())
	}
}

func TestVEMErrors(t *testing.T) {
	b := sampleBinary(t, threeSources(), 1, 50)
	empty := &noisyor.Binary{Names: []string{"a"}, Ones: [][]uint64{{}}, Zeros: [][]uint64{{}}, Missing: []int{0}}
	for _, tc := range []struct {
		b    *noisyor.Binary
		opt  Options
		want string
	}{
		{nil, Options{Sources: 1}, "nil data"},
		{empty, Options{Sources: 1}, "no rows"},
		{&noisyor.Binary{Rows: 3}, Options{Sources: 1}, "no effects"},
		{b, Options{}, "0 sources"},
		{b, Options{Sources: -2}, "-2 sources"},
		{b, Options{Sources: 2, Restarts: -1}, "restarts"},
		{b, Options{Sources: 2, MaxIter: -1}, "MaxIter"},
		{b, Options{Sources: 2, Inner: -1}, "Inner"},
		{b, Options{Sources: 2, Tol: -1}, "tolerance"},
		{b, Options{Sources: 2, Tol: math.NaN()}, "tolerance"},
		{b, Options{Sources: 2, Tol: math.Inf(1)}, "tolerance"},
		{b, Options{Sources: 2, Workers: -1}, "workers"},
		{b, Options{Sources: 2, Leak: 1}, "leak"},
		{b, Options{Sources: 2, Leak: 1e-9}, "leak"},
		{b, Options{Sources: 2, Leak: math.NaN()}, "leak"},
		{b, Options{Sources: 2, MaxFailure: 1.5}, "MaxFailure"},
		{b, Options{Sources: 2, MaxFailure: -0.1}, "MaxFailure"},
	} {
		_, err := Fit(tc.b, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "noisyor: ") {
			t.Errorf("%+v: error %v, want one with %q", tc.opt, err, tc.want)
		}
	}
}

// TestMaxConcave checks the 1-D maximiser on h(x) = −αx + β log x
// (maximum at β/α) inside and at both ends of the interval.
func TestMaxConcave(t *testing.T) {
	for _, tc := range []struct{ alpha, beta, x0, want float64 }{
		{2, 1, 3, 0.5},
		{1e-3, 5, 0.01, 10},  // optimum 5000 above hi = 10
		{1e6, 1e-3, 5, 1e-6}, // optimum 1e-9 below lo = 1e-6
		{1, 2, 1e-6, 2},
		{3, 7, 10, 7.0 / 3},
	} {
		h := func(x float64) float64 { return -tc.alpha*x + tc.beta*math.Log(x) }
		d := func(x float64) (float64, float64) { return -tc.alpha + tc.beta/x, -tc.beta / (x * x) }
		got := maxConcave(tc.x0, 1e-6, 10, d, h)
		if math.Abs(got-tc.want) > 1e-9*tc.want {
			t.Errorf("α %v β %v from %v: %v, want %v", tc.alpha, tc.beta, tc.x0, got, tc.want)
		}
	}
}

// TestGfun checks g and g′ against direct formulas.
func TestGfun(t *testing.T) {
	for _, x := range []float64{1e-9, 1e-4, 0.3, math.Ln2, 0.7, 2, 30, 700, 800, 1e20} {
		g, gp := gfun(x)
		wantG := math.Log(-math.Expm1(-x))
		wantGp := 1 / math.Expm1(x)
		if math.Abs(g-wantG) > 1e-15*math.Max(1, math.Abs(wantG)) && !(wantG == 0 && math.Abs(g) < 1e-300) {
			t.Errorf("g(%v) = %v, want %v", x, g, wantG)
		}
		if math.Abs(gp-wantGp) > 1e-14*wantGp+1e-300 {
			t.Errorf("g′(%v) = %v, want %v", x, gp, wantGp)
		}
		if gprime(x) != gp {
			t.Errorf("gprime(%v) = %v, gfun %v", x, gprime(x), gp)
		}
	}
}

// imageNetwork returns the benchmark network: 8 sources on an 8×8 grid
// of pixels, each a random set of 8–16 pixels, priors 0.25, failures 0.1,
// leaks 0.001.
func imageNetwork(seed uint64) *noisyor.Network {
	rng := rand.New(rand.NewPCG(seed, 99))
	n := &noisyor.Network{}
	for a := range 64 {
		n.Effects = append(n.Effects, fmt.Sprintf("p%d%d", a/8, a%8))
		n.Leak = append(n.Leak, 0.001)
	}
	for s := range 8 {
		pix := rng.Perm(64)[:8+rng.IntN(9)]
		slices.Sort(pix)
		src := noisyor.Source{Name: fmt.Sprintf("T%d", s+1), Prior: 0.25}
		for _, a := range pix {
			src.Children = append(src.Children, noisyor.Child{Effect: a, Failure: 0.1})
		}
		n.Sources = append(n.Sources, src)
	}
	return n
}

// BenchmarkVEMImage fits the 8-source, 64-pixel image network to 10,000
// rows with one start; it reports the seconds per E-step+M-step
// iteration, the iterations to converge, the bound and how many of the 8
// sources were found (the same children with failure < 0.5).
func BenchmarkVEMImage(b *testing.B) {
	truth := imageNetwork(1)
	data := sampleBinary(b, truth, 7, 10000)
	for b.Loop() {
		res, err := Fit(data, Options{Sources: 8, Restarts: 1, Src: rand.NewPCG(1, 1)})
		if err != nil {
			b.Fatal(err)
		}
		s := res.Starts[0]
		b.ReportMetric(s.Seconds/float64(s.Iterations), "s/iter")
		b.ReportMetric(float64(s.Iterations), "iters")
		b.ReportMetric(s.Bound, "bound")
		found := 0
		for _, ts := range truth.Sources {
			for _, fails := range res.Failures {
				same := true
				for a, f := range fails {
					child := slices.ContainsFunc(ts.Children, func(c noisyor.Child) bool { return c.Effect == a })
					if (f < 0.5) != child {
						same = false
						break
					}
				}
				if same {
					found++
					break
				}
			}
		}
		b.ReportMetric(float64(found), "found")
	}
}

// ExampleFit fits two sources to data sampled from a known network and
// prints their strong edges.
func ExampleFit() {
	truth := &noisyor.Network{
		Effects: []string{"cough", "fever", "ache", "rash", "itch", "sneeze"},
		Leak:    []float64{0.01, 0.01, 0.01, 0.01, 0.01, 0.01},
		Sources: []noisyor.Source{
			{Name: "flu", Prior: 0.3, Children: []noisyor.Child{{Effect: 0, Failure: 0.1}, {Effect: 1, Failure: 0.1}, {Effect: 2, Failure: 0.2}}},
			{Name: "allergy", Prior: 0.2, Children: []noisyor.Child{{Effect: 3, Failure: 0.1}, {Effect: 4, Failure: 0.2}, {Effect: 5, Failure: 0.1}}},
		},
	}
	d, _ := truth.Sample(rand.NewPCG(1, 2), 4000)
	b, _ := noisyor.NewBinary(d)
	res, err := Fit(b, Options{Sources: 2, Restarts: 4, Src: rand.NewPCG(3, 4)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Network.Sources {
		fmt.Printf("%s prior %.1f:", s.Name, s.Prior)
		for _, c := range s.Children {
			if c.Failure < 0.5 {
				fmt.Printf(" %s %.1f", res.Network.Effects[c.Effect], c.Failure)
			}
		}
		fmt.Println()
	}
	// Output:
	// X1 prior 0.3: cough 0.1 fever 0.1 ache 0.2
	// X2 prior 0.2: rash 0.1 itch 0.2 sneeze 0.1
}
