package mixed

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/model/internal/modeltest"
	"github.com/latentree/latentree/tree"
)

// node describes one node of a test tree: its name ("" with hidden),
// kind, number of states (discrete) and parent (by position, −1 for the
// root).
type node struct {
	name   string
	kind   data.Kind
	states int
	parent int
}

const (
	D = data.Discrete
	C = data.Continuous
)

// build makes a model of the given nodes (position 0 is the root) with
// random parameters.
func build(t *testing.T, nodes []node, rng *rand.Rand) *Model {
	t.Helper()
	tr := tree.New()
	ids := make([]int, len(nodes))
	for i, n := range nodes {
		if n.name == "" {
			ids[i] = tr.AddHidden()
		} else {
			id, err := tr.AddObserved(n.name)
			if err != nil {
				t.Fatal(err)
			}
			ids[i] = id
		}
		if n.parent >= 0 {
			if err := tr.AddEdge(ids[n.parent], ids[i], math.NaN()); err != nil {
				t.Fatal(err)
			}
		}
	}
	kinds := make([]data.Kind, tr.MaxID())
	states := make([]int, tr.MaxID())
	for i, n := range nodes {
		kinds[ids[i]], states[ids[i]] = n.kind, n.states
	}
	m, err := New(tr, ids[0], kinds, states)
	if err != nil {
		t.Fatal(err)
	}
	randomize(m, rng)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

// randomize draws random parameters (hidden continuous nodes not
// standardised).
func randomize(m *Model, rng *rand.Rand) {
	randDist := func(p []float64, k int) { randomRows(p, k, rng) }
	r := m.Rooted()
	for _, v := range r.Order {
		switch {
		case m.Kinds[v] == D && r.Parent[v] < 0:
			randDist(m.Prior, m.States[v])
		case m.Kinds[v] == D:
			randDist(m.CPT[v], m.States[v])
		default:
			for a := range m.Mean[v] {
				m.Mean[v][a] = 4*rng.Float64() - 2
				m.Var[v][a] = 0.2 + rng.Float64()
			}
			if p := r.Parent[v]; p >= 0 && m.Kinds[p] == C {
				m.Coef[v] = 3*rng.Float64() - 1.5
			}
		}
	}
}

// mixedNodes is a tree with every kind of edge: a discrete hidden root,
// a discrete hidden child, continuous hidden nodes under discrete and
// continuous parents, an observed continuous node with a continuous
// child.
var mixedNodes = []node{
	{"", D, 3, -1}, // 0 root
	{"a", D, 2, 0}, // 1
	{"b", C, 0, 0}, // 2
	{"", D, 2, 0},  // 3
	{"", C, 0, 0},  // 4 continuous hidden under the root
	{"d", D, 3, 3}, // 5
	{"e", C, 0, 3}, // 6
	{"", C, 0, 3},  // 7 continuous hidden under a discrete hidden node
	{"f", C, 0, 7}, // 8 observed, with a child
	{"g", C, 0, 7}, // 9
	{"", C, 0, 7},  // 10 continuous hidden under a continuous hidden node
	{"i", C, 0, 10},
	{"j", C, 0, 10},
	{"k", C, 0, 4},
	{"l", C, 0, 4},
	{"m", C, 0, 8},
	{"n", D, 2, 1}, // under an observed discrete node
}

// gaussNodes is an all-continuous tree rooted at a hidden node.
var gaussNodes = []node{
	{"", C, 0, -1},
	{"a", C, 0, 0},
	{"", C, 0, 0},
	{"b", C, 0, 2},
	{"c", C, 0, 2},
	{"d", C, 0, 0},
	{"e", C, 0, 3},
}

// gaussObsRoot is an all-continuous tree rooted at an observed node.
var gaussObsRoot = []node{
	{"a", C, 0, -1},
	{"", C, 0, 0},
	{"b", C, 0, 1},
	{"c", C, 0, 1},
	{"d", C, 0, 0},
}

// discNodes is an all-discrete tree.
var discNodes = []node{
	{"", D, 2, -1},
	{"a", D, 3, 0},
	{"", D, 3, 0},
	{"b", D, 2, 2},
	{"c", D, 2, 2},
	{"d", D, 4, 0},
}

// sample draws n rows of m's observed nodes, then removes each cell with
// probability miss.
func sample(t *testing.T, m *Model, rng *rand.Rand, n int, miss float64) *data.Dataset {
	t.Helper()
	r := m.Rooted()
	tr := m.Tree
	state := make([][]int, tr.MaxID())
	val := make([][]float64, tr.MaxID())
	drawState := func(p []float64) int {
		u := rng.Float64()
		for s, q := range p {
			if u -= q; u < 0 {
				return s
			}
		}
		return len(p) - 1
	}
	for _, v := range r.Order {
		p := r.Parent[v]
		if m.Kinds[v] == D {
			k := m.States[v]
			state[v] = make([]int, n)
			for i := range n {
				if p < 0 {
					state[v][i] = drawState(m.Prior)
				} else {
					a := state[p][i]
					state[v][i] = drawState(m.CPT[v][a*k : (a+1)*k])
				}
			}
			continue
		}
		val[v] = make([]float64, n)
		for i := range n {
			switch {
			case p < 0:
				val[v][i] = m.Mean[v][0] + math.Sqrt(m.Var[v][0])*rng.NormFloat64()
			case m.Kinds[p] == D:
				a := state[p][i]
				val[v][i] = m.Mean[v][a] + math.Sqrt(m.Var[v][a])*rng.NormFloat64()
			default:
				val[v][i] = m.Mean[v][0] + m.Coef[v]*val[p][i] + math.Sqrt(m.Var[v][0])*rng.NormFloat64()
			}
		}
	}
	obs := tr.Observed()
	vars := make([]data.Variable, len(obs))
	for j, v := range obs {
		vars[j] = data.Variable{Name: tr.Name(v), Kind: m.Kinds[v]}
		if m.Kinds[v] == D {
			vars[j].States = m.StateLabels(v)
		}
	}
	d, err := data.New(vars, n)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range obs {
		for i := range n {
			gone := rng.Float64() < miss
			if m.Kinds[v] == D {
				d.Discrete(j)[i] = uint16(state[v][i])
				if gone {
					d.Discrete(j)[i] = data.Missing
				}
			} else {
				d.Continuous(j)[i] = val[v][i]
				if gone {
					d.Continuous(j)[i] = math.NaN()
				}
			}
		}
	}
	return d
}

// brute holds brute-force answers for a dataset.
type brute struct {
	ll   []float64
	prob [][][]float64 // node → row → state probabilities
	mean [][]float64   // node → row → E[x | row]
	sd   [][]float64
	exp  *Expected
}

// bruteForce enumerates every configuration of the discrete nodes and,
// for each, builds the joint Gaussian of the continuous nodes from the
// parameters and conditions it on the row's observed continuous cells.
func bruteForce(t *testing.T, m *Model, d *data.Dataset) *brute {
	t.Helper()
	r := m.Rooted()
	tr := m.Tree
	n := tr.MaxID()
	var disc, cont []int
	idx := make([]int, n)
	for _, v := range r.Order {
		if m.Kinds[v] == D {
			disc = append(disc, v)
		} else {
			idx[v] = len(cont)
			cont = append(cont, v)
		}
	}
	nc := len(cont)
	rows := d.NumRows()
	out := &brute{ll: make([]float64, rows), prob: make([][][]float64, n), mean: make([][]float64, n), sd: make([][]float64, n), exp: m.NewExpected()}
	for _, v := range disc {
		out.prob[v] = make([][]float64, rows)
	}
	for _, v := range cont {
		out.mean[v], out.sd[v] = make([]float64, rows), make([]float64, rows)
	}
	out.exp.Rows = float64(rows)
	for row := range rows {
		ev := make([]int, n)
		y := make([]float64, n)
		for _, v := range tr.Nodes() {
			ev[v], y[v] = -1, math.NaN()
			if tr.IsHidden(v) {
				continue
			}
			j, _ := d.Index(tr.Name(v))
			if m.Kinds[v] == D {
				if c := d.Discrete(j)[row]; c != data.Missing {
					s, _ := strconv.Atoi(d.Var(j).States[c])
					ev[v] = s
				}
			} else {
				y[v] = d.Continuous(j)[row]
			}
		}
		type term struct {
			cfg    []int
			logw   float64
			mc, vc []float64 // conditional mean, covariance (nc×nc)
		}
		var terms []term
		cfg := make([]int, n)
		var rec func(i int, logp float64)
		rec = func(i int, logp float64) {
			if i < len(disc) {
				v := disc[i]
				k := m.States[v]
				for s := range k {
					if ev[v] >= 0 && ev[v] != s {
						continue
					}
					cfg[v] = s
					q := 0.0
					if p := r.Parent[v]; p < 0 {
						q = m.Prior[s]
					} else {
						q = m.CPT[v][cfg[p]*k+s]
					}
					if q > 0 {
						rec(i+1, logp+math.Log(q))
					}
				}
				return
			}
			mu := make([]float64, nc)
			S := make([]float64, nc*nc)
			for x, v := range cont {
				p := r.Parent[v]
				switch {
				case p < 0:
					mu[x], S[x*nc+x] = m.Mean[v][0], m.Var[v][0]
				case m.Kinds[p] == D:
					mu[x], S[x*nc+x] = m.Mean[v][cfg[p]], m.Var[v][cfg[p]]
				default:
					cf, px := m.Coef[v], idx[p]
					mu[x] = m.Mean[v][0] + cf*mu[px]
					for u := range x {
						S[x*nc+u] = cf * S[px*nc+u]
						S[u*nc+x] = S[x*nc+u]
					}
					S[x*nc+x] = cf*cf*S[px*nc+px] + m.Var[v][0]
				}
			}
			var O []int
			for x, v := range cont {
				if !math.IsNaN(y[v]) {
					O = append(O, x)
				}
			}
			no := len(O)
			Soo := make([]float64, no*no)
			res := make([]float64, no)
			for a, i := range O {
				res[a] = y[cont[i]] - mu[i]
				for b, j := range O {
					Soo[a*no+b] = S[i*nc+j]
				}
			}
			inv, logdet := invert(Soo, no)
			quad := 0.0
			for a := range no {
				for b := range no {
					quad += res[a] * inv[a*no+b] * res[b]
				}
			}
			logw := logp - 0.5*(float64(no)*math.Log(2*math.Pi)+logdet+quad)
			// K = S_·O inv; conditional mean and covariance.
			K := make([]float64, nc*no)
			for x := range nc {
				for b := range no {
					s := 0.0
					for a, i := range O {
						s += S[x*nc+i] * inv[a*no+b]
					}
					K[x*no+b] = s
				}
			}
			mc := make([]float64, nc)
			vc := make([]float64, nc*nc)
			for x := range nc {
				mc[x] = mu[x]
				for b := range no {
					mc[x] += K[x*no+b] * res[b]
				}
				for z := range nc {
					vc[x*nc+z] = S[x*nc+z]
					for b, j := range O {
						vc[x*nc+z] -= K[x*no+b] * S[j*nc+z]
					}
				}
			}
			terms = append(terms, term{append([]int(nil), cfg...), logw, mc, vc})
		}
		rec(0, 0)
		mx := math.Inf(-1)
		for _, tm := range terms {
			mx = math.Max(mx, tm.logw)
		}
		z := 0.0
		for _, tm := range terms {
			z += math.Exp(tm.logw - mx)
		}
		out.ll[row] = mx + math.Log(z)
		out.exp.LogLik += out.ll[row]
		for _, v := range disc {
			out.prob[v][row] = make([]float64, m.States[v])
		}
		x := out.exp
		for _, tm := range terms {
			w := math.Exp(tm.logw-mx) / z
			for _, v := range disc {
				out.prob[v][row][tm.cfg[v]] += w
				if p := r.Parent[v]; p < 0 {
					x.Counts[v][tm.cfg[v]] += w
				} else {
					x.Counts[v][tm.cfg[p]*m.States[v]+tm.cfg[v]] += w
				}
			}
			for i, v := range cont {
				mv := tm.mc[i]
				ev2 := tm.vc[i*nc+i] + mv*mv
				out.mean[v][row] += w * mv
				out.sd[v][row] += w * ev2
				p := r.Parent[v]
				a := 0
				if p >= 0 && m.Kinds[p] == D {
					a = tm.cfg[p]
				}
				x.W[v][a] += w
				x.S1[v][a] += w * mv
				x.S2[v][a] += w * ev2
				if p >= 0 && m.Kinds[p] == C {
					pi := idx[p]
					mp := tm.mc[pi]
					x.P1[v] += w * mp
					x.P2[v] += w * (tm.vc[pi*nc+pi] + mp*mp)
					x.Cross[v] += w * (tm.vc[i*nc+pi] + mv*mp)
				}
			}
		}
		for _, v := range cont {
			mv := out.mean[v][row]
			out.sd[v][row] = math.Sqrt(math.Max(0, out.sd[v][row]-mv*mv))
			if !math.IsNaN(y[v]) {
				out.sd[v][row] = 0
			}
		}
	}
	return out
}

// invert returns the inverse and log-determinant of the k×k symmetric
// positive definite matrix a (Gauss–Jordan elimination).
func invert(a []float64, k int) ([]float64, float64) {
	m := append([]float64(nil), a...)
	inv := make([]float64, k*k)
	for i := range k {
		inv[i*k+i] = 1
	}
	logdet := 0.0
	for c := range k {
		piv := m[c*k+c]
		logdet += math.Log(piv)
		for j := range k {
			m[c*k+j] /= piv
			inv[c*k+j] /= piv
		}
		for r := range k {
			if r == c {
				continue
			}
			f := m[r*k+c]
			for j := range k {
				m[r*k+j] -= f * m[c*k+j]
				inv[r*k+j] -= f * inv[c*k+j]
			}
		}
	}
	return inv, logdet
}

func near(a, b, tol float64) bool {
	return a == b || math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

var cases = []struct {
	name  string
	nodes []node
}{
	{"mixed", mixedNodes},
	{"gaussian", gaussNodes},
	{"gaussian-observed-root", gaussObsRoot},
	{"discrete", discNodes},
}

func TestLogLikelihoodBruteForce(t *testing.T) {
	for ci, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(ci)))
			m := build(t, tc.nodes, rng)
			d := sample(t, m, rng, 60, 0.25)
			bf := bruteForce(t, m, d)
			for _, workers := range []int{1, 3} {
				ll, total, err := m.LogLikelihood(d, model.InferOptions{Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				sum := 0.0
				for r := range ll {
					if !near(ll[r], bf.ll[r], 1e-9) {
						t.Errorf("row %d: log-likelihood %.12g, brute force %.12g", r, ll[r], bf.ll[r])
					}
					sum += bf.ll[r]
				}
				if !near(total, sum, 1e-9) {
					t.Errorf("total %.12g, brute force %.12g", total, sum)
				}
			}
			sc, err := m.Score(d, model.InferOptions{})
			if err != nil || sc.Params != m.NumParams() || sc.Rows != 60 || !near(sc.LogLik, bf.exp.LogLik, 1e-9) {
				t.Errorf("score %+v %v", sc, err)
			}
		})
	}
}

func TestConditionalsBruteForce(t *testing.T) {
	for ci, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(8, uint64(ci)))
			m := build(t, tc.nodes, rng)
			d := sample(t, m, rng, 40, 0.3)
			bf := bruteForce(t, m, d)
			nodes := m.Tree.Nodes()
			cond, err := m.Conditionals(d, nodes, model.InferOptions{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			for x, v := range nodes {
				c := cond[x]
				for r := range d.NumRows() {
					if m.Kinds[v] == D {
						for s, p := range c.Row(r) {
							if !near(p, bf.prob[v][r][s], 1e-9) {
								t.Errorf("node %s row %d state %d: %g, brute force %g", c.Name, r, s, p, bf.prob[v][r][s])
							}
						}
						continue
					}
					if !near(c.Mean[r], bf.mean[v][r], 1e-8) || !near(c.SD[r], bf.sd[v][r], 1e-6) {
						t.Errorf("node %s row %d: mean %g sd %g, brute force %g %g", c.Name, r, c.Mean[r], c.SD[r], bf.mean[v][r], bf.sd[v][r])
					}
				}
			}
		})
	}
}

func TestEStepBruteForce(t *testing.T) {
	for ci, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(9, uint64(ci)))
			m := build(t, tc.nodes, rng)
			d := sample(t, m, rng, 50, 0.25)
			bf := bruteForce(t, m, d).exp
			for _, workers := range []int{1, 2} {
				x, err := m.EStep(d, model.InferOptions{Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				compareExpected(t, x, bf, 1e-8)
			}
		})
	}
}

func compareExpected(t *testing.T, x, want *Expected, tol float64) {
	t.Helper()
	if !near(x.LogLik, want.LogLik, tol) || x.Rows != want.Rows || x.Impossible != want.Impossible {
		t.Errorf("loglik %g rows %g impossible %d, want %g %g %d", x.LogLik, x.Rows, x.Impossible, want.LogLik, want.Rows, want.Impossible)
	}
	for name, f := range map[string][2][][]float64{"Counts": {x.Counts, want.Counts}, "W": {x.W, want.W}, "S1": {x.S1, want.S1}, "S2": {x.S2, want.S2}} {
		for v := range f[0] {
			if len(f[0][v]) != len(f[1][v]) {
				t.Fatalf("%s[%d]: %d entries, want %d", name, v, len(f[0][v]), len(f[1][v]))
			}
			for i := range f[0][v] {
				if !near(f[0][v][i], f[1][v][i], tol) {
					t.Errorf("%s[%d][%d] = %.10g, want %.10g", name, v, i, f[0][v][i], f[1][v][i])
				}
			}
		}
	}
	for name, f := range map[string][2][]float64{"P1": {x.P1, want.P1}, "P2": {x.P2, want.P2}, "Cross": {x.Cross, want.Cross}} {
		for v := range f[0] {
			if !near(f[0][v], f[1][v], tol) {
				t.Errorf("%s[%d] = %.10g, want %.10g", name, v, f[0][v], f[1][v])
			}
		}
	}
}

// TestSpecialCases compares all-discrete and all-Gaussian models with the
// discrete and Gaussian families' log-likelihoods of the same
// parameters.
func TestSpecialCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 1))
	m := build(t, discNodes, rng)
	dm, err := discrete.New(m.Tree, m.Root, m.States)
	if err != nil {
		t.Fatal(err)
	}
	dm.Prior = m.Prior
	for _, v := range m.Tree.Nodes() {
		if v != m.Root {
			dm.CPT[v] = m.CPT[v]
		}
	}
	d := sample(t, m, rng, 200, 0.2)
	_, want, err := dm.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, got, err := m.LogLikelihood(d, model.InferOptions{}); err != nil || !near(got, want, 1e-10) {
		t.Errorf("all-discrete: %.12g, discrete model %.12g (%v)", got, want, err)
	}
	for _, nodes := range [][]node{gaussNodes, gaussObsRoot} {
		m := build(t, nodes, rng)
		gm, err := gaussian.New(m.Tree, m.Root, 0)
		if err != nil {
			t.Fatal(err)
		}
		r := m.Rooted()
		for _, v := range r.Order {
			p := r.Parent[v]
			if p < 0 {
				gm.Mean[v], gm.Var[v] = m.Mean[v][0], m.Var[v][0]
				continue
			}
			c := m.Coef[v]
			gm.Mean[v] = m.Mean[v][0] + c*gm.Mean[p]
			gm.Var[v] = c*c*gm.Var[p] + m.Var[v][0]
			gm.Rho[v] = c * math.Sqrt(gm.Var[p]/gm.Var[v])
		}
		d := sample(t, m, rng, 200, 0.2)
		_, want, err := gm.LogLikelihood(d, model.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, got, err := m.LogLikelihood(d, model.InferOptions{}); err != nil || !near(got, want, 1e-10) {
			t.Errorf("all-Gaussian: %.12g, Gaussian model %.12g (%v)", got, want, err)
		}
	}
}

// TestImpossibleRows checks that a row of probability 0 has −Inf, NaN
// conditionals, and is left out of the E-step's sums.
func TestImpossibleRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 1))
	m := build(t, mixedNodes, rng)
	a, _ := m.Tree.Lookup("a")
	n, _ := m.Tree.Lookup("n")
	// n can never be 1 when a is 0.
	m.CPT[n] = []float64{1, 0, 0.5, 0.5}
	d := sample(t, m, rng, 20, 0)
	ja, _ := d.Index("a")
	jn, _ := d.Index("n")
	d.Discrete(ja)[3], d.Discrete(jn)[3] = 0, 1
	ll, total, err := m.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(ll[3], -1) || !math.IsInf(total, -1) || math.IsInf(ll[2], 0) {
		t.Errorf("log-likelihoods %v", ll)
	}
	cond, err := m.Conditionals(d, []int{m.Root, a}, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(cond[0].Row(3)[0]) || math.IsNaN(cond[0].Row(2)[0]) {
		t.Errorf("conditionals %v %v", cond[0].Row(3), cond[0].Row(2))
	}
	x, err := m.EStep(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := d.Rows([]int{0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19})
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.EStep(rows, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want.LogLik, want.Rows, want.Impossible = math.Inf(-1), 20, 1
	if !math.IsInf(x.LogLik, -1) {
		t.Errorf("E-step log-likelihood %g", x.LogLik)
	}
	x.LogLik = want.LogLik
	compareExpected(t, x, want, 1e-12)
}

// TestImpute checks the filled cells against Conditionals.
func TestImpute(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	m := build(t, mixedNodes, rng)
	d := sample(t, m, rng, 30, 0.3)
	imp, err := m.Impute(d, model.ImputeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nodes := make([]int, d.NumVars())
	for j := range nodes {
		nodes[j], _ = m.Tree.Lookup(d.Var(j).Name)
	}
	cond, err := m.Conditionals(d, nodes, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	filled := 0
	for j := range nodes {
		for r := range d.NumRows() {
			if d.Var(j).Kind == D {
				c := d.Discrete(j)[r]
				got := imp.Data.Discrete(j)[r]
				if c != data.Missing {
					if got != c {
						t.Errorf("observed cell %d,%d changed", r, j)
					}
					continue
				}
				filled++
				if s, _ := cond[j].Mode(r); int(got) != s {
					t.Errorf("cell %d,%d: %d, mode %d", r, j, got, s)
				}
				continue
			}
			y := d.Continuous(j)[r]
			got := imp.Data.Continuous(j)[r]
			if !math.IsNaN(y) {
				if got != y {
					t.Errorf("observed cell %d,%d changed", r, j)
				}
				continue
			}
			filled++
			if got != cond[j].Mean[r] || math.IsNaN(got) {
				t.Errorf("cell %d,%d: %g, mean %g", r, j, got, cond[j].Mean[r])
			}
		}
	}
	if filled == 0 || len(imp.Cells) != filled {
		t.Errorf("%d cells recorded, %d filled", len(imp.Cells), filled)
	}
}

// TestMismatch checks that wrong columns are named.
func TestMismatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	m := build(t, mixedNodes, rng)
	d := sample(t, m, rng, 5, 0)
	vars := d.Vars()
	for j := range vars {
		if vars[j].Name == "b" {
			vars[j].Name = "zz"
		}
	}
	d2, err := data.New(vars, 5)
	if err != nil {
		t.Fatal(err)
	}
	modeltest.Mismatch(t, m, d2, "b", "zz")
	// A continuous column where the model has a discrete variable.
	for j := range vars {
		if vars[j].Name == "zz" {
			vars[j].Name = "b"
		}
		if vars[j].Name == "a" {
			vars[j].Kind, vars[j].States = C, nil
		}
	}
	d3, err := data.New(vars, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.LogLikelihood(d3, model.InferOptions{}); err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("kind mismatch: %v", err)
	}
}

// TestUnderflow checks a hidden root with hundreds of sharply informative
// leaves (products of messages far below the smallest float) and tables
// with entries near the smallest float, against the log-sum-exp of the
// per-state log-densities.
func TestUnderflow(t *testing.T) {
	nodes := []node{{"", D, 2, -1}, {"", D, 2, 0}}
	for i := range 300 {
		nodes = append(nodes, node{"x" + strconv.Itoa(i), C, 0, 1})
	}
	for i := range 5 {
		nodes = append(nodes, node{"y" + strconv.Itoa(i), D, 2, 0})
	}
	rng := rand.New(rand.NewPCG(14, 1))
	m := build(t, nodes, rng)
	m.CPT[1] = []float64{1 - 1e-300, 1e-300, 1e-300, 1 - 1e-300}
	for v := 2; v < 302; v++ {
		m.Mean[v] = []float64{-3, 3}
		m.Var[v] = []float64{0.5, 0.5}
	}
	d := sample(t, m, rng, 20, 0.1)
	// Rows whose leaves disagree: every state of node 1 has a tiny
	// product of messages.
	for r := range 10 {
		for j := range d.NumVars() {
			if d.Var(j).Kind == C && j%2 == r%2 {
				d.Continuous(j)[r] = -d.Continuous(j)[r]
			}
		}
	}
	ll, _, err := m.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cond, err := m.Conditionals(d, []int{0, 1}, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for r := range d.NumRows() {
		// Brute force over the two discrete hidden nodes.
		var terms []float64
		var post1 [2]float64
		for a := range 2 {
			for b := range 2 {
				lp := math.Log(m.Prior[a]) + math.Log(m.CPT[1][a*2+b])
				for j := range d.NumVars() {
					v, _ := m.Tree.Lookup(d.Var(j).Name)
					if m.Kinds[v] == C {
						if y := d.Continuous(j)[r]; !math.IsNaN(y) {
							z := y - m.Mean[v][b]
							lp += -0.5*math.Log(2*math.Pi*m.Var[v][b]) - z*z/(2*m.Var[v][b])
						}
					} else if c := d.Discrete(j)[r]; c != data.Missing {
						lp += math.Log(m.CPT[v][a*2+int(c)])
					}
				}
				terms = append(terms, lp)
			}
		}
		mx := math.Inf(-1)
		for _, x := range terms {
			mx = math.Max(mx, x)
		}
		s := 0.0
		for i, x := range terms {
			s += math.Exp(x - mx)
			post1[i%2] += math.Exp(x - mx)
		}
		want := mx + math.Log(s)
		if !near(ll[r], want, 1e-9) {
			t.Errorf("row %d: %.12g, want %.12g", r, ll[r], want)
		}
		if p := cond[1].Row(r)[1]; !near(p, post1[1]/s, 1e-9) {
			t.Errorf("row %d: posterior %g, want %g", r, p, post1[1]/s)
		}
	}
}
