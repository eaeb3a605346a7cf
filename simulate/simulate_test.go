package simulate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/tree"
)

func degreesOK(t *testing.T, tr *tree.Tree) {
	t.Helper()
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	if nm := tr.NonMinimal(); len(nm) > 0 {
		t.Fatalf("hidden nodes of degree < 3: %v", nm)
	}
}

func TestTopologySizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rb, _ := RandomBinary(rng, 16, 0.2)
	cases := []struct {
		name        string
		tr          *tree.Tree
		err         error
		obs, hidden int
	}{}
	add := func(name string, tr *tree.Tree, err error, obs, hidden int) {
		cases = append(cases, struct {
			name        string
			tr          *tree.Tree
			err         error
			obs, hidden int
		}{name, tr, err, obs, hidden})
	}
	s, err := Star(7)
	add("star", s, err, 7, 1)
	ds, err := DoubleStar(40, 40)
	add("double star", ds, err, 80, 2)
	h, err := HMM(78)
	add("hmm", h, err, 80, 78)
	c, err := CompleteKary(5, 3)
	add("5-complete", c, err, 81, 25)
	add("binary", rb, nil, 16, 14)
	for _, tc := range cases {
		if tc.err != nil {
			t.Fatalf("%s: %v", tc.name, tc.err)
		}
		degreesOK(t, tc.tr)
		if tc.tr.NumObserved() != tc.obs || tc.tr.NumHidden() != tc.hidden {
			t.Errorf("%s: %d observed, %d hidden; want %d, %d", tc.name, tc.tr.NumObserved(), tc.tr.NumHidden(), tc.obs, tc.hidden)
		}
	}
	for _, v := range rb.Hidden() {
		if rb.Degree(v) != 3 {
			t.Errorf("binary tree hidden node of degree %d", rb.Degree(v))
		}
	}
	for _, v := range h.Hidden() {
		if h.Degree(v) != 3 {
			t.Errorf("HMM hidden node of degree %d", h.Degree(v))
		}
	}
}

func TestTopologyErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	if _, err := Star(2); err == nil {
		t.Error("Star(2): no error")
	}
	if _, err := DoubleStar(1, 5); err == nil {
		t.Error("DoubleStar(1,5): no error")
	}
	if _, err := HMM(0); err == nil {
		t.Error("HMM(0): no error")
	}
	if _, err := CompleteKary(2, 3); err == nil {
		t.Error("CompleteKary(2,3): no error")
	}
	if _, err := RandomBinary(rng, 10, 1); err == nil {
		t.Error("RandomBinary β=1: no error")
	}
	if _, err := RandomMinimal(rng, 2, MinimalOptions{}); err == nil {
		t.Error("RandomMinimal(2): no error")
	}
}

func TestRandomBinarySkew(t *testing.T) {
	// With β = 0.2 the tree is a caterpillar-like skewed tree: its longest
	// hidden path is much longer than that of a balanced tree.
	rng := rand.New(rand.NewPCG(3, 4))
	skew, _ := RandomBinary(rng, 16, 0.2)
	bal, _ := RandomBinary(rng, 16, 0.5)
	if a, b := diameter(skew), diameter(bal); a <= b {
		t.Errorf("skewed tree diameter %d not above balanced %d", a, b)
	}
}

func diameter(t *tree.Tree) int {
	best := 0
	for _, u := range t.Observed() {
		for _, v := range t.Observed() {
			if l := len(t.Path(u, v)) - 1; l > best {
				best = l
			}
		}
	}
	return best
}

func TestRandomMinimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	internal := 0
	highDeg := 0
	for it := 0; it < 200; it++ {
		m := 4 + rng.IntN(60)
		tr, err := RandomMinimal(rng, m, MinimalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		degreesOK(t, tr)
		if tr.NumObserved() != m {
			t.Fatalf("%d observed, want %d", tr.NumObserved(), m)
		}
		for _, v := range tr.Observed() {
			if tr.Degree(v) > 1 {
				internal++
			}
		}
		for _, v := range tr.Hidden() {
			if tr.Degree(v) > 3 {
				highDeg++
			}
		}
	}
	if internal == 0 || highDeg == 0 {
		t.Errorf("no observed internal nodes (%d) or hidden nodes of degree > 3 (%d) in 200 trees", internal, highDeg)
	}
}

// additive checks that the model's exact distance between every pair of
// nodes equals the sum of the edge lengths on the path (1e-9).
func additive(t *testing.T, tr *tree.Tree, tol, maxLen float64, dist func(u, v int) float64) {
	t.Helper()
	nodes := tr.Nodes()
	for _, u := range nodes {
		for _, v := range nodes {
			want := tr.PathLength(u, v)
			if want > maxLen {
				continue
			}
			got := dist(u, v)
			if math.Abs(got-want) > tol*math.Max(1, want) {
				t.Fatalf("d(%s,%s) = %.12g, path length %.12g", tr.Name(u), tr.Name(v), got, want)
			}
		}
	}
}

func TestGaussianAdditive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for it := 0; it < 20; it++ {
		tr, _ := RandomMinimal(rng, 5+rng.IntN(30), MinimalOptions{})
		g, err := Gaussian(rng, tr, GaussianOptions{RandomSign: it%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		additive(t, tr, 1e-9, math.Inf(1), g.InformationDistance)
		// Distances agrees with InformationDistance.
		nodes := tr.Nodes()
		d := g.Distances(nodes)
		for i, u := range nodes {
			for j, v := range nodes {
				if math.Abs(d[i*len(nodes)+j]-g.InformationDistance(u, v)) > 1e-12 {
					t.Fatal("Distances and InformationDistance differ")
				}
			}
		}
	}
}

func TestSymmetricAdditive(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for it := 0; it < 10; it++ {
		tr, _ := RandomMinimal(rng, 5+rng.IntN(20), MinimalOptions{})
		m, err := Symmetric(rng, tr, SymmetricOptions{States: 2 + it%3})
		if err != nil {
			t.Fatal(err)
		}
		additive(t, tr, 1e-9, math.Inf(1), func(u, v int) float64 {
			d, err := m.InformationDistance(u, v)
			if err != nil {
				t.Fatal(err)
			}
			return d
		})
	}
}

func TestGeneralAdditive(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for it := 0; it < 10; it++ {
		tr, _ := RandomMinimal(rng, 5+rng.IntN(15), MinimalOptions{})
		opt := GeneralOptions{ObservedStates: 3}
		if it%2 == 1 {
			opt.Scheme = Perturbed
			opt.Mu = 0.3
		}
		m, err := General(rng, tr, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		// Long paths make P(u,v) nearly singular (det ≈ e^−40), where the
		// determinant of the exact table loses most of its digits to
		// cancellation: check paths up to length 15 (det ≥ e^−15) to 1e-9.
		additive(t, tr, 1e-9, 15, func(u, v int) float64 {
			d, err := m.InformationDistance(u, v)
			if err != nil {
				t.Fatal(err)
			}
			return d
		})
	}
}

func TestGeneralHiddenStates(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	tr, _ := RandomBinary(rng, 16, 0.5)
	m, err := General(rng, tr, GeneralOptions{ObservedStates: 10, HiddenMin: 2, HiddenMax: 8, Scheme: Perturbed, Mu: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, v := range tr.Hidden() {
		k := m.States[v]
		if k < 2 || k > 8 {
			t.Fatalf("hidden node with %d states", k)
		}
		seen[k] = true
	}
	for _, v := range tr.Observed() {
		if m.States[v] != 10 {
			t.Fatalf("observed node with %d states", m.States[v])
		}
	}
	if len(seen) < 3 {
		t.Errorf("only %d distinct hidden state counts among 14 hidden nodes", len(seen))
	}
}

// TestSampleConverges checks that empirical pair frequencies of a large
// sample approach the exact pair marginals: with n = 200,000 rows every
// cell is within 5 standard errors (plus 1e-4).
func TestSampleConverges(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	tr, _ := RandomMinimal(rng, 8, MinimalOptions{})
	m, err := General(rng, tr, GeneralOptions{ObservedStates: 3, HiddenMin: 2, HiddenMax: 4})
	if err != nil {
		t.Fatal(err)
	}
	const n = 200000
	d, err := m.Sample(rng, n)
	if err != nil {
		t.Fatal(err)
	}
	obs := tr.Observed()
	exact := m.PairMarginals(obs)
	for i := range obs {
		for j := range obs {
			if i == j {
				continue
			}
			ci, cj := d.Discrete(i), d.Discrete(j)
			counts := make([]float64, 9)
			for r := range ci {
				counts[int(ci[r])*3+int(cj[r])]++
			}
			for c, p := range exact[i][j] {
				f := counts[c] / n
				se := math.Sqrt(p * (1 - p) / n)
				if math.Abs(f-p) > 5*se+1e-4 {
					t.Errorf("pair (%d,%d) cell %d: empirical %.5f, exact %.5f", i, j, c, f, p)
				}
			}
		}
	}
}

func TestGaussianSampleConverges(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	tr, _ := HMM(6)
	g, err := Gaussian(rng, tr, GaussianOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 100000
	d, err := g.Sample(rng, n)
	if err != nil {
		t.Fatal(err)
	}
	obs := tr.Observed()
	for i := range obs {
		for j := i + 1; j < len(obs); j++ {
			a, b := d.Continuous(i), d.Continuous(j)
			var sa, sb, sab, saa, sbb float64
			for r := range a {
				sa += a[r]
				sb += b[r]
			}
			ma, mb := sa/n, sb/n
			for r := range a {
				sab += (a[r] - ma) * (b[r] - mb)
				saa += (a[r] - ma) * (a[r] - ma)
				sbb += (b[r] - mb) * (b[r] - mb)
			}
			got := sab / math.Sqrt(saa*sbb)
			want := g.Corr(obs[i], obs[j])
			// The standard error of a sample correlation is (1−ρ²)/√n ≤ 0.0032.
			if math.Abs(got-want) > 0.016 {
				t.Errorf("corr(%d,%d) = %.4f, exact %.4f", i, j, got, want)
			}
		}
	}
}

// TestPairMarginalBruteForce compares PairMarginal with enumeration of the
// full joint distribution on a small tree.
func TestPairMarginalBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	tr, _ := RandomMinimal(rng, 5, MinimalOptions{})
	m, err := General(rng, tr, GeneralOptions{ObservedStates: 2, HiddenMin: 2, HiddenMax: 3})
	if err != nil {
		t.Fatal(err)
	}
	nodes := tr.Nodes()
	r := m.Rooted()
	x := make([]int, tr.MaxID())
	brute := map[[2]int][]float64{}
	for _, u := range nodes {
		for _, v := range nodes {
			brute[[2]int{u, v}] = make([]float64, m.States[u]*m.States[v])
		}
	}
	var rec func(k int, p float64)
	rec = func(k int, p float64) {
		if k == len(r.Order) {
			for _, u := range nodes {
				for _, v := range nodes {
					brute[[2]int{u, v}][x[u]*m.States[v]+x[v]] += p
				}
			}
			return
		}
		v := r.Order[k]
		for s := 0; s < m.States[v]; s++ {
			x[v] = s
			var q float64
			if v == m.Root {
				q = m.Prior[s]
			} else {
				q = m.CPT[v][x[r.Parent[v]]*m.States[v]+s]
			}
			rec(k+1, p*q)
		}
	}
	rec(0, 1)
	for _, u := range nodes {
		for _, v := range nodes {
			got := m.PairMarginal(u, v)
			for c, want := range brute[[2]int{u, v}] {
				if math.Abs(got[c]-want) > 1e-12 {
					t.Fatalf("P(%d,%d)[%d] = %g, brute force %g", u, v, c, got[c], want)
				}
			}
		}
	}
}

func TestSymmetricIndependent(t *testing.T) {
	// θ at its upper limit 1/K would make neighbours independent: the
	// option is rejected; a valid model gives finite distances.
	tr, _ := Star(4)
	rng := rand.New(rand.NewPCG(1, 1))
	if _, err := Symmetric(rng, tr, SymmetricOptions{States: 2, ThetaMin: 0.1, ThetaMax: 0.5}); err == nil {
		t.Error("θ = 1/K accepted")
	}
	var _ *discrete.Model
}

// TestScatterMatrix checks the Wishart draw against its moments: E[S] =
// (n−1)Σ and Var[S_ij] = (n−1)(Σ_ij² + Σ_ii Σ_jj).
func TestScatterMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	p, n := 3, 50
	sigma := []float64{
		1, 0.5, 0.2,
		0.5, 2, -0.3,
		0.2, -0.3, 1.5,
	}
	const reps = 20000
	mean := make([]float64, p*p)
	sq := make([]float64, p*p)
	for r := 0; r < reps; r++ {
		S, err := ScatterMatrix(rng, sigma, p, n)
		if err != nil {
			t.Fatal(err)
		}
		for k, x := range S {
			mean[k] += x / reps
			sq[k] += x * x / reps
		}
	}
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			k := i*p + j
			want := float64(n-1) * sigma[k]
			v := float64(n-1) * (sigma[k]*sigma[k] + sigma[i*p+i]*sigma[j*p+j])
			se := math.Sqrt(v / reps)
			if math.Abs(mean[k]-want) > 5*se {
				t.Errorf("E[S_%d%d] = %.3f, want %.3f (se %.3f)", i, j, mean[k], want, se)
			}
			gotV := sq[k] - mean[k]*mean[k]
			if math.Abs(gotV-v)/v > 0.05 {
				t.Errorf("Var[S_%d%d] = %.2f, want %.2f", i, j, gotV, v)
			}
		}
	}
	if _, err := ScatterMatrix(rng, sigma, p, 3); err == nil {
		t.Error("n ≤ p accepted")
	}
	if _, err := ScatterMatrix(rng, []float64{1, 2, 2, 1}, 2, 10); err == nil {
		t.Error("indefinite covariance accepted")
	}
}

func TestBlank(t *testing.T) {
	vars := []data.Variable{{Name: "a", Kind: data.Discrete, States: []string{"0", "1", "2"}}, {Name: "b", Kind: data.Continuous}}
	const n = 20000
	d, err := data.New(vars, n)
	if err != nil {
		t.Fatal(err)
	}
	for r := range n {
		d.Discrete(0)[r] = uint16(r % 3)
		d.Continuous(1)[r] = float64(r)
	}
	b, err := Blank(rand.NewPCG(1, 2), d, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	// Kept cells are unchanged and each column's missing count is
	// Binomial(n, 0.2): within 5 standard deviations (√(n·0.2·0.8) ≈ 57).
	for j := range 2 {
		if got := b.MissingCount(j); math.Abs(float64(got)-0.2*n) > 5*math.Sqrt(n*0.2*0.8) {
			t.Errorf("column %d: %d missing of %d, want about %g", j, got, n, 0.2*n)
		}
	}
	for r := range n {
		if x := b.Discrete(0)[r]; x != data.Missing && x != uint16(r%3) {
			t.Fatalf("row %d: discrete cell %d, want %d", r, x, r%3)
		}
		if x := b.Continuous(1)[r]; !math.IsNaN(x) && x != float64(r) {
			t.Fatalf("row %d: continuous cell %g, want %d", r, x, r)
		}
	}
	if d.HasMissing() {
		t.Error("Blank changed its input")
	}
	for _, f := range []float64{-0.1, 1.1, math.NaN()} {
		if _, err := Blank(rand.NewPCG(1, 2), d, f); err == nil {
			t.Errorf("fraction %g accepted", f)
		}
	}
}

// A number of rows whose sample would not fit in MaxSampleCells is
// refused before anything is drawn; the largest that fits is not.
func TestCheckRows(t *testing.T) {
	tr, err := HMM(3)
	if err != nil {
		t.Fatal(err)
	}
	most := MaxSampleCells / tr.NumNodes()
	for _, c := range []struct {
		rows int
		ok   bool
	}{{0, true}, {1000, true}, {most, true}, {most + 1, false}, {1e12, false}, {-1, false}} {
		if err := CheckRows(tr, c.rows); (err == nil) != c.ok {
			t.Errorf("%d rows of a %d-node tree: error %v, want ok %v", c.rows, tr.NumNodes(), err, c.ok)
		}
	}
}
