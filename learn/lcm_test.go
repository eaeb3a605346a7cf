package learn_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/testenv"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

// lcmCase is a simulated latent class data set: classes classes, items
// with the given numbers of states, a share of cells blanked at random.
type lcmCase struct {
	rows, classes int
	states        []int
	missing       float64
	// sep mixes each class's answer distribution with a one-hot one on a
	// state of its own: 0 gives overlapping classes, near 1 clear ones.
	sep  float64
	seed uint64
}

// simulateLCM draws rows of a latent class model and returns them as a
// dataset and as a row-major matrix (data.Missing for blank cells).
func simulateLCM(t *testing.T, c lcmCase) (*data.Dataset, [][]uint16) {
	t.Helper()
	rng := rand.New(rand.NewPCG(c.seed, 77))
	dirichlet := func(k int) []float64 {
		p := make([]float64, k)
		s := 0.0
		for i := range p {
			p[i] = -math.Log(1 - rng.Float64())
			s += p[i]
		}
		for i := range p {
			p[i] /= s
		}
		return p
	}
	draw := func(p []float64) int {
		u, acc := rng.Float64(), 0.0
		for i, x := range p {
			if acc += x; u < acc {
				return i
			}
		}
		return len(p) - 1
	}
	prior := dirichlet(c.classes)
	for i := range prior {
		prior[i] = 0.5*prior[i] + 0.5/float64(c.classes) // no tiny class
	}
	theta := make([][][]float64, c.classes)
	for a := range theta {
		theta[a] = make([][]float64, len(c.states))
		for j, k := range c.states {
			p := dirichlet(k)
			for s := range p {
				p[s] *= 1 - c.sep
			}
			p[(a+j)%k] += c.sep
			theta[a][j] = p
		}
	}
	vars := make([]data.Variable, len(c.states))
	cols := make([][]uint16, len(c.states))
	for j, k := range c.states {
		vars[j] = data.Variable{Name: "q" + strconv.Itoa(j+1), Kind: data.Discrete}
		for s := 0; s < k; s++ {
			vars[j].States = append(vars[j].States, strconv.Itoa(s+1))
		}
		cols[j] = make([]uint16, c.rows)
	}
	x := make([][]uint16, c.rows)
	for r := range x {
		a := draw(prior)
		x[r] = make([]uint16, len(c.states))
		for j := range c.states {
			v := uint16(draw(theta[a][j]))
			if rng.Float64() < c.missing {
				v = data.Missing
			}
			x[r][j], cols[j][r] = v, v
		}
	}
	// Every state appears (a state never seen would be dropped by a CSV
	// reader, not by FromDiscrete, but keeps the case honest).
	d, err := data.FromDiscrete(vars, cols)
	if err != nil {
		t.Fatal(err)
	}
	return d, x
}

// lcmParams are a latent class model's parameters: prior[a] and
// theta[a][j][s] = P(item j = s | class a).
type lcmParams struct {
	prior []float64
	theta [][][]float64
}

// lcmLogLik is the log-likelihood of x (missing cells left out of each
// row's product) and, when post is not nil, the class posteriors of each
// row.
func lcmLogLik(p lcmParams, x [][]uint16, post [][]float64) float64 {
	k := len(p.prior)
	lp := make([]float64, k)
	// The logs of the parameters, taken once rather than once a row (the
	// same values: plainEMLCM calls this thousands of times).
	logPrior := make([]float64, k)
	logTheta := make([][][]float64, k)
	for a := range k {
		logPrior[a] = math.Log(p.prior[a])
		logTheta[a] = make([][]float64, len(p.theta[a]))
		for j, th := range p.theta[a] {
			logTheta[a][j] = make([]float64, len(th))
			for v, q := range th {
				logTheta[a][j][v] = math.Log(q)
			}
		}
	}
	ll := 0.0
	for r, row := range x {
		top := math.Inf(-1)
		for a := 0; a < k; a++ {
			l := logPrior[a]
			for j, v := range row {
				if v != data.Missing {
					l += logTheta[a][j][v]
				}
			}
			lp[a] = l
			top = math.Max(top, l)
		}
		s := 0.0
		for a := range lp {
			lp[a] = math.Exp(lp[a] - top)
			s += lp[a]
		}
		ll += top + math.Log(s)
		if post != nil {
			for a := range lp {
				post[r][a] = lp[a] / s
			}
		}
	}
	return ll
}

// plainEMLCM is an independent latent class EM: starts random starts of
// plain EM, each run until an iteration gains less than 1e-9 nats (or
// maxIter iterations); it returns the best log-likelihood.
func plainEMLCM(x [][]uint16, states []int, k, starts, maxIter int, rng *rand.Rand) float64 {
	best := math.Inf(-1)
	post := make([][]float64, len(x))
	for r := range post {
		post[r] = make([]float64, k)
	}
	rnd := func(n int) []float64 {
		p := make([]float64, n)
		s := 0.0
		for i := range p {
			p[i] = 0.2 + rng.Float64()
			s += p[i]
		}
		for i := range p {
			p[i] /= s
		}
		return p
	}
	for s := 0; s < starts; s++ {
		p := lcmParams{prior: rnd(k), theta: make([][][]float64, k)}
		for a := range p.theta {
			p.theta[a] = make([][]float64, len(states))
			for j, n := range states {
				p.theta[a][j] = rnd(n)
			}
		}
		prev := math.Inf(-1)
		var ll float64
		for it := 0; it < maxIter; it++ {
			ll = lcmLogLik(p, x, post)
			if ll-prev < 1e-9 {
				break
			}
			prev = ll
			// M-step.
			for a := 0; a < k; a++ {
				w := 0.0
				for r := range x {
					w += post[r][a]
				}
				p.prior[a] = w / float64(len(x))
				for j := range states {
					th := p.theta[a][j]
					clear(th)
					tot := 0.0
					for r, row := range x {
						if v := row[j]; v != data.Missing {
							th[v] += post[r][a]
							tot += post[r][a]
						}
					}
					for v := range th {
						th[v] /= tot
					}
				}
			}
		}
		best = math.Max(best, ll)
	}
	return best
}

// paramsOf reads a fitted latent class model's parameters.
func paramsOf(t *testing.T, m *discrete.Model, d *data.Dataset) lcmParams {
	t.Helper()
	h := m.Root
	if !m.Tree.IsHidden(h) {
		t.Fatalf("root %s is not the hidden node", m.Tree.Name(h))
	}
	k := m.States[h]
	p := lcmParams{prior: m.Prior, theta: make([][][]float64, k)}
	for a := 0; a < k; a++ {
		p.theta[a] = make([][]float64, d.NumVars())
		for j := 0; j < d.NumVars(); j++ {
			x, ok := m.Tree.Lookup(d.Var(j).Name)
			if !ok {
				t.Fatalf("no node %s", d.Var(j).Name)
			}
			n := m.States[x]
			p.theta[a][j] = m.CPT[x][a*n : (a+1)*n]
		}
	}
	return p
}

// TestLCMFitReachesOptimum fits latent class models with the lcm
// method's full restarts and checks that they reach the best
// log-likelihood of an independent plain EM with many long restarts to
// 1e-3 nat, and that the library's log-likelihood is that of its
// parameters under the independent formula.
func TestLCMFitReachesOptimum(t *testing.T) {
	cases := []lcmCase{
		{rows: 300, classes: 4, states: []int{2, 3, 6, 4, 2, 5, 3, 2}, missing: 0.05, sep: 0.25, seed: 1},
	}
	if testenv.Long() {
		cases = append(cases,
			lcmCase{rows: 1000, classes: 3, states: []int{3, 2, 4, 6, 2, 3, 5, 2, 4, 3}, missing: 0.03, sep: 0.2, seed: 2},
			lcmCase{rows: 300, classes: 5, states: []int{2, 2, 3, 3, 4, 6, 5, 2, 3, 2}, missing: 0.1, sep: 0.6, seed: 3},
			lcmCase{rows: 3000, classes: 4, states: []int{6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6}, missing: 0.02, sep: 0.3, seed: 4},
			lcmCase{rows: 600, classes: 3, states: []int{2, 2, 2, 2, 2, 2, 2, 2}, missing: 0.05, sep: 0.5, seed: 5},
			lcmCase{rows: 2000, classes: 5, states: []int{2, 3, 4, 5, 6, 2, 3, 4, 5, 6}, missing: 0.05, sep: 0.45, seed: 6},
		)
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("n%d_k%d", c.rows, c.classes), func(t *testing.T) {
			d, x := simulateLCM(t, c)
			tr, err := learn.LCMTree(d.Names())
			if err != nil {
				t.Fatal(err)
			}
			m, em, err := model.Fit(tr, d, model.FitOptions{HiddenStates: c.classes, Init: model.InitRandom,
				EM: model.EMOptions{Restarts: learn.DefaultLCMRestarts, RestartIter: model.FullRestarts, Src: rand.NewPCG(c.seed, 9)}})
			if err != nil {
				t.Fatal(err)
			}
			own := lcmLogLik(paramsOf(t, m.(*discrete.Model), d), x, nil)
			if math.Abs(own-em.LogLik) > 1e-6*math.Abs(own) {
				t.Errorf("library log-likelihood %.6f, its parameters give %.6f", em.LogLik, own)
			}
			ref := plainEMLCM(x, c.states, c.classes, testenv.Pick(20, 100), 20000, rand.New(rand.NewPCG(c.seed, 10)))
			t.Logf("lcm %.4f (replicated %d/%d), independent plain EM %.4f", em.LogLik, em.Replicated, len(em.Starts), ref)
			if em.LogLik < ref-1e-3 {
				t.Errorf("lcm fit %.4f is %.4f nats below the independent EM's best %.4f", em.LogLik, ref-em.LogLik, ref)
			}
			if em.LogLik > ref+1e-3 {
				t.Errorf("lcm fit %.4f is %.4f nats above the independent EM's best %.4f (its restarts missed the optimum)", em.LogLik, em.LogLik-ref, ref)
			}
			if em.Replicated < 1 || em.Replicated > len(em.Starts) {
				t.Errorf("replicated %d of %d starts", em.Replicated, len(em.Starts))
			}
		})
	}
}

// TestLCMChoosesClasses checks that lcm picks the true number of classes
// on clearly separated data, and reports a BIC table that starts at 1.
func TestLCMChoosesClasses(t *testing.T) {
	cases := []lcmCase{{rows: 1000, classes: 3, states: []int{3, 2, 4, 6, 2, 3, 5, 2, 4, 3}, missing: 0.05, sep: 0.7, seed: 11}}
	if testenv.Long() {
		cases = append(cases, lcmCase{rows: 2000, classes: 4, states: []int{4, 4, 5, 6, 3, 4, 5, 6, 4, 4}, missing: 0.02, sep: 0.7, seed: 12},
			lcmCase{rows: 500, classes: 2, states: []int{2, 2, 2, 2, 2, 2, 2, 2}, missing: 0.05, sep: 0.6, seed: 13})
	}
	for _, c := range cases {
		d, _ := simulateLCM(t, c)
		opt := learn.Options{Method: learn.LCM, Src: rand.NewPCG(c.seed, 1)}
		// 4 random starts a fit rather than 10 in the short form: the
		// classes are clearly separated (BIC 130 and more between the
		// counts), and reaching the optimum is TestLCMFitReachesOptimum's.
		opt.Fit.EM.Restarts = testenv.Pick(4, 0)
		res, err := learn.Learn(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		l := res.LCM
		if l.Classes != c.classes {
			t.Errorf("n=%d: chose %d classes, want %d (fits %+v)", c.rows, l.Classes, c.classes, l.Fits)
		}
		for _, f := range l.Fits {
			t.Logf("%+v", f)
		}
		if len(l.Fits) == 0 || l.Fits[0].Classes != 1 {
			t.Fatalf("fits %+v do not start at 1 class", l.Fits)
		}
		for _, f := range l.Fits {
			if f.Classes == l.Classes && math.Abs(f.BIC-res.Score.BIC) > 1e-6*math.Abs(f.BIC) {
				t.Errorf("kept fit's BIC %.4f, result's score %.4f", f.BIC, res.Score.BIC)
			}
			if f.Classes != l.Classes && f.BIC < res.Score.BIC {
				t.Errorf("%d classes have a better BIC %.2f than the kept %.2f", f.Classes, f.BIC, res.Score.BIC)
			}
		}
		if res.Model.(*discrete.Model).States[res.Model.(*discrete.Model).Root] != c.classes {
			t.Errorf("model's root has %d states", res.Model.(*discrete.Model).States[res.Model.(*discrete.Model).Root])
		}
	}
}

// TestDefaultBeatsChowLiuAndLCM checks that the default learn scores at
// least as well in BIC as the Chow–Liu tree and as the lcm method's best
// latent class model, on latent class data (where the latent class model
// is the truth) and on latent tree data, with 2–6-state variables.
func TestDefaultBeatsChowLiuAndLCM(t *testing.T) {
	type gen struct {
		name string
		data func(t *testing.T) *data.Dataset
	}
	lcmData := func(c lcmCase) gen {
		return gen{fmt.Sprintf("lcm_n%d_k%d", c.rows, c.classes), func(t *testing.T) *data.Dataset { d, _ := simulateLCM(t, c); return d }}
	}
	treeData := func(name string, top func() (*tree.Tree, error), obs, hid, rows int, seed uint64) gen {
		return gen{name, func(t *testing.T) *data.Dataset {
			tr, err := top()
			if err != nil {
				t.Fatal(err)
			}
			m, err := simulate.General(rand.NewPCG(seed, 1), tr, simulate.GeneralOptions{ObservedStates: obs, HiddenStates: hid})
			if err != nil {
				t.Fatal(err)
			}
			d, err := m.Sample(rand.NewPCG(seed, 2), rows)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}}
	}
	gens := []gen{
		lcmData(lcmCase{rows: 800, classes: 3, states: []int{4, 4, 3, 5, 2, 4, 6, 3, 4, 4}, missing: 0.02, sep: 0.5, seed: 21}),
		treeData("doublestar_n1000", func() (*tree.Tree, error) { return simulate.DoubleStar(5, 5) }, 3, 3, 1000, 22),
		// Noisy 4-state distances through 3-state hidden nodes (standard
		// errors near 6 at distances near 5): CLNJ's tie resolution once
		// moved whole neighbourhoods on noise here and the default fell
		// to the Chow–Liu tree (33230.28 against 32409.46).
		treeData("complete_n3000", func() (*tree.Tree, error) { return simulate.CompleteKary(3, 2) }, 4, 3, 3000, 28),
	}
	if testenv.Long() {
		gens = append(gens,
			lcmData(lcmCase{rows: 300, classes: 2, states: []int{2, 2, 2, 2, 2, 2, 2, 2}, missing: 0, sep: 0.5, seed: 23}),
			lcmData(lcmCase{rows: 2800, classes: 4, states: []int{6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6}, missing: 0.01, sep: 0.3, seed: 24}),
			lcmData(lcmCase{rows: 3000, classes: 5, states: []int{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, missing: 0.05, sep: 0.5, seed: 25}),
			treeData("hmm_n500", func() (*tree.Tree, error) { return simulate.HMM(8) }, 2, 2, 500, 26),
			treeData("star_n1000", func() (*tree.Tree, error) { return simulate.Star(12) }, 4, 3, 1000, 27),
			treeData("binary_n2000", func() (*tree.Tree, error) { return simulate.RandomBinary(rand.NewPCG(29, 0), 16, 0.3) }, 5, 3, 2000, 29),
			treeData("star6_n300", func() (*tree.Tree, error) { return simulate.Star(8) }, 6, 2, 300, 30),
		)
	}
	for _, g := range gens {
		t.Run(g.name, func(t *testing.T) {
			d := g.data(t)
			bic := map[learn.Method]float64{}
			var def *learn.Result
			for _, m := range []learn.Method{learn.CLNJ, learn.ChowLiu, learn.LCM} {
				opt := learn.Options{Method: m}
				if m == learn.LCM && strings.HasPrefix(g.name, "doublestar") && !testenv.Long() {
					// On latent tree data the latent class model loses by
					// hundreds (330 on doublestar_n1000): 3 random starts
					// a fit rather than 10, which took 30% of the test (the same
					// BIC, 9476.80).
					opt.Fit.EM.Restarts = 3
				}
				res, err := learn.Learn(d, opt)
				if err != nil {
					t.Fatal(err)
				}
				bic[m] = res.Score.BIC
				if m == learn.CLNJ {
					def = res
				}
			}
			t.Logf("default %.2f (kept %s), chowliu %.2f, lcm %.2f", bic[learn.CLNJ], def.Contraction.Kept, bic[learn.ChowLiu], bic[learn.LCM])
			// (A relative 1e-6 for rounding.)
			tol := 1e-6 * math.Abs(bic[learn.CLNJ])
			if bic[learn.CLNJ] > bic[learn.ChowLiu]+tol {
				t.Errorf("default BIC %.2f is worse than Chow–Liu's %.2f", bic[learn.CLNJ], bic[learn.ChowLiu])
			}
			if bic[learn.CLNJ] > bic[learn.LCM]+tol {
				t.Errorf("default BIC %.2f is worse than the latent class model's %.2f", bic[learn.CLNJ], bic[learn.LCM])
			}
		})
	}
}
