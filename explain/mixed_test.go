package explain

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/tree"
)

// tinyMixed is a conditional-Gaussian tree: discrete hidden root h0 (2
// states) with children x (observed, 3 states), h1 (hidden, 2 states), g
// (hidden continuous) and u (observed continuous); h1 has children w
// (observed, 2 states) and y (observed continuous); g has children z1
// and z2 (observed continuous). Parameters are set by hand, away from any
// symmetry.
func tinyMixed(t *testing.T) (*mixed.Model, map[string]int) {
	t.Helper()
	tr, err := tree.ParseNewick("(x,(w,y)h1,(z1,z2)g,u)h0;", tree.NewickOptions{HiddenInternalLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	id := map[string]int{}
	for _, v := range tr.Nodes() {
		id[tr.Name(v)] = v
	}
	kinds := make([]data.Kind, tr.MaxID())
	states := make([]int, tr.MaxID())
	for name, v := range id {
		switch name {
		case "g", "u", "y", "z1", "z2":
			kinds[v] = data.Continuous
		default:
			kinds[v] = data.Discrete
			states[v] = 2
		}
	}
	states[id["x"]] = 3
	m, err := mixed.New(tr, id["h0"], kinds, states)
	if err != nil {
		t.Fatal(err)
	}
	m.Prior = []float64{0.3, 0.7}
	m.CPT[id["x"]] = []float64{0.6, 0.3, 0.1, 0.1, 0.2, 0.7}
	m.CPT[id["h1"]] = []float64{0.8, 0.2, 0.25, 0.75}
	m.CPT[id["w"]] = []float64{0.9, 0.1, 0.35, 0.65}
	m.Labels[id["w"]] = []string{"no", "yes"}
	m.Mean[id["y"]], m.Var[id["y"]] = []float64{-1, 2}, []float64{1.5, 0.5}
	m.Mean[id["u"]], m.Var[id["u"]] = []float64{4, 3}, []float64{2, 1}
	m.Mean[id["g"]], m.Var[id["g"]] = []float64{-0.6, 0.2571428571428571}, []float64{0.7, 0.8}
	m.Mean[id["z1"]], m.Var[id["z1"]], m.Coef[id["z1"]] = []float64{1}, []float64{0.5}, 1.5
	m.Mean[id["z2"]], m.Var[id["z2"]], m.Coef[id["z2"]] = []float64{-2}, []float64{1}, -0.8
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m, id
}

// bruteMixed enumerates every configuration of the discrete nodes of m and
// gives, per configuration, its probability and the mean and covariance of
// the continuous nodes (from the linear equations x = c + B x + e, Σ =
// (I−B)⁻¹ D (I−B)⁻ᵀ), independently of the path formulas of package
// explain.
type bruteConfig struct {
	state map[int]int
	prob  float64
	mean  map[int]float64
	cov   func(x, y int) float64
}

func bruteMixed(t *testing.T, m *mixed.Model) []bruteConfig {
	t.Helper()
	r := m.Rooted()
	var disc, cont []int
	for _, v := range r.Order {
		if m.Kinds[v] == data.Discrete {
			disc = append(disc, v)
		} else {
			cont = append(cont, v)
		}
	}
	idx := map[int]int{}
	for i, v := range cont {
		idx[v] = i
	}
	var out []bruteConfig
	st := make([]int, len(disc))
	for {
		state := map[int]int{}
		for i, v := range disc {
			state[v] = st[i]
		}
		p := 1.0
		for _, v := range disc {
			if par := r.Parent[v]; par < 0 {
				p *= m.Prior[state[v]]
			} else {
				p *= m.CPT[v][state[par]*m.States[v]+state[v]]
			}
		}
		n := len(cont)
		ib := mat.NewDense(n, n, nil) // I − B
		c := mat.NewVecDense(n, nil)
		dm := mat.NewDense(n, n, nil)
		for i, v := range cont {
			ib.Set(i, i, 1)
			par := r.Parent[v]
			a := 0
			if par >= 0 && m.Kinds[par] == data.Discrete {
				a = state[par]
			} else if par >= 0 {
				ib.Set(i, idx[par], -m.Coef[v])
			}
			c.SetVec(i, m.Mean[v][a])
			dm.Set(i, i, m.Var[v][a])
		}
		var inv mat.Dense
		if err := inv.Inverse(ib); err != nil {
			t.Fatal(err)
		}
		var mu mat.VecDense
		mu.MulVec(&inv, c)
		var sigma, tmp mat.Dense
		tmp.Mul(&inv, dm)
		sigma.Mul(&tmp, inv.T())
		means := map[int]float64{}
		for i, v := range cont {
			means[v] = mu.AtVec(i)
		}
		sg := mat.DenseCopyOf(&sigma)
		out = append(out, bruteConfig{state: state, prob: p, mean: means, cov: func(x, y int) float64 { return sg.At(idx[x], idx[y]) }})
		k := 0
		for ; k < len(disc); k++ {
			st[k]++
			if st[k] < m.States[disc[k]] {
				break
			}
			st[k] = 0
		}
		if k == len(disc) {
			break
		}
	}
	return out
}

// moments returns E[x] and Var(x) of continuous x, and E[x | v = s] with
// P(v = s) for discrete v.
func moments(cfg []bruteConfig, x, v, k int) (mean, variance float64, cond, pv []float64) {
	cond, pv = make([]float64, k), make([]float64, k)
	e2 := 0.0
	for _, c := range cfg {
		mean += c.prob * c.mean[x]
		e2 += c.prob * (c.cov(x, x) + c.mean[x]*c.mean[x])
		if v >= 0 {
			cond[c.state[v]] += c.prob * c.mean[x]
			pv[c.state[v]] += c.prob
		}
	}
	for s := range cond {
		cond[s] /= pv[s]
	}
	return mean, e2 - mean*mean, cond, pv
}

const mixTol = 1e-10

func TestMixedAgainstBruteForce(t *testing.T) {
	m, id := tinyMixed(t)
	cfg := bruteMixed(t, m)
	total := 0.0
	for _, c := range cfg {
		total += c.prob
	}
	if math.Abs(total-1) > mixTol {
		t.Fatalf("configurations sum to %g", total)
	}
	e, err := Model(m, Options{Top: 10})
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != KindMixed || e.FromData || len(e.Hidden) != 3 {
		t.Fatalf("explanation kind %q from data %v, %d hidden", e.Kind, e.FromData, len(e.Hidden))
	}
	byName := map[string]Hidden{}
	for _, h := range e.Hidden {
		byName[h.Name] = h
	}
	if e.Hidden[0].Name != "h0" || byName["h0"].Kind != "discrete" || byName["h1"].Kind != "discrete" || byName["g"].Kind != "continuous" {
		t.Fatalf("hidden variables %+v", e.Hidden)
	}
	if byName["g"].States != nil || len(byName["h1"].States) != 2 {
		t.Fatalf("states of g %v, of h1 %v", byName["g"].States, byName["h1"].States)
	}
	// Discrete hidden variables: shares, mean shifts in SD units,
	// rising values, canonical correlations.
	for _, hn := range []string{"h0", "h1"} {
		h := byName[hn]
		hv := id[hn]
		strength := map[string]float64{}
		for _, r := range h.Related {
			strength[r.Name] = r.Strength
			if r.Corr != 0 {
				t.Errorf("%s: %s has a correlation %g", hn, r.Name, r.Corr)
			}
		}
		for _, xn := range []string{"u", "y", "z1", "z2"} {
			mean, variance, cond, ph := moments(cfg, id[xn], hv, 2)
			for s := range 2 {
				if math.Abs(h.States[s].Share-ph[s]) > mixTol {
					t.Errorf("%s state %d share %g, want %g", hn, s, h.States[s].Share, ph[s])
				}
				var got *Shift
				for i := range h.States[s].Shifts {
					if h.States[s].Shifts[i].Name == xn {
						got = &h.States[s].Shifts[i]
					}
				}
				want := (cond[s] - mean) / math.Sqrt(variance)
				if got == nil {
					t.Errorf("%s state %d: no shift of %s (want %g)", hn, s, xn, want)
					continue
				}
				if math.Abs(got.Z-want) > mixTol || math.Abs(got.Mean-cond[s]) > mixTol || math.Abs(got.Base-mean) > mixTol || math.Abs(got.SD-math.Sqrt(variance)) > mixTol {
					t.Errorf("%s state %d shift of %s %+v, want z %g mean %g base %g sd %g", hn, s, xn, *got, want, cond[s], mean, math.Sqrt(variance))
				}
			}
			eta := math.Sqrt((ph[0]*(cond[0]-mean)*(cond[0]-mean) + ph[1]*(cond[1]-mean)*(cond[1]-mean)) / variance)
			if math.Abs(strength[xn]-eta) > mixTol {
				t.Errorf("%s: strength of %s %g, want η %g", hn, xn, strength[xn], eta)
			}
		}
		for _, xn := range []string{"x", "w"} {
			x := id[xn]
			kx := m.States[x]
			joint := make([]float64, 2*kx)
			for _, c := range cfg {
				joint[c.state[hv]*kx+c.state[x]] += c.prob
			}
			ph, px := make([]float64, 2), make([]float64, kx)
			phi2 := -1.0
			for a := range 2 {
				for b := range kx {
					ph[a] += joint[a*kx+b]
					px[b] += joint[a*kx+b]
				}
			}
			for a := range 2 {
				for b := range kx {
					phi2 += joint[a*kx+b] * joint[a*kx+b] / (ph[a] * px[b])
				}
			}
			// A binary variable has one canonical correlation: φ².
			if math.Abs(strength[xn]-math.Sqrt(phi2)) > mixTol {
				t.Errorf("%s: strength of %s %g, want √φ² %g", hn, xn, strength[xn], math.Sqrt(phi2))
			}
			for s := range 2 {
				best, bestB := 0.0, -1
				for b := range kx {
					if d := joint[s*kx+b]/ph[s] - px[b]; d > best {
						best, bestB = d, b
					}
				}
				var got *Rise
				for i := range h.States[s].Rising {
					if h.States[s].Rising[i].Name == xn {
						got = &h.States[s].Rising[i]
					}
				}
				if bestB < 0 {
					if got != nil {
						t.Errorf("%s state %d: %s rises %+v", hn, s, xn, *got)
					}
					continue
				}
				if got == nil || got.State != stateLabels(m, x)[bestB] || math.Abs(got.Prob-joint[s*kx+bestB]/ph[s]) > mixTol || math.Abs(got.Base-px[bestB]) > mixTol {
					t.Errorf("%s state %d: rise of %s %+v, want state %d %g (%g)", hn, s, xn, got, bestB, joint[s*kx+bestB]/ph[s], px[bestB])
				}
			}
		}
	}
	// The continuous hidden variable: signed correlations with the
	// continuous observed variables, η of g on the discrete ones.
	g := byName["g"]
	rel := map[string]Related{}
	for _, r := range g.Related {
		rel[r.Name] = r
	}
	if len(g.Related) != 6 {
		t.Errorf("g has %d related variables, want 6", len(g.Related))
	}
	gm, gv, _, _ := moments(cfg, id["g"], -1, 0)
	for _, xn := range []string{"u", "y", "z1", "z2"} {
		xm, xv, _, _ := moments(cfg, id[xn], -1, 0)
		cov := 0.0
		for _, c := range cfg {
			cov += c.prob * (c.cov(id["g"], id[xn]) + c.mean[id["g"]]*c.mean[id[xn]])
		}
		cov -= gm * xm
		want := cov / math.Sqrt(gv*xv)
		if math.Abs(rel[xn].Corr-want) > mixTol || math.Abs(rel[xn].Strength-math.Abs(want)) > mixTol {
			t.Errorf("g and %s: %+v, want correlation %g", xn, rel[xn], want)
		}
	}
	if rel["z2"].Corr >= 0 || rel["z1"].Corr <= 0 {
		t.Errorf("signs: z1 %g, z2 %g", rel["z1"].Corr, rel["z2"].Corr)
	}
	for _, xn := range []string{"x", "w"} {
		_, _, cond, px := moments(cfg, id["g"], id[xn], m.States[id[xn]])
		v := 0.0
		for b := range cond {
			v += px[b] * (cond[b] - gm) * (cond[b] - gm)
		}
		if want := math.Sqrt(v / gv); math.Abs(rel[xn].Strength-want) > mixTol || rel[xn].Corr != 0 {
			t.Errorf("g and %s: %+v, want η %g", xn, rel[xn], want)
		}
	}
	for i := 1; i < len(g.Related); i++ {
		if g.Related[i].Strength > g.Related[i-1].Strength {
			t.Errorf("g's related variables out of order: %+v", g.Related)
		}
	}
	if g.Label != g.Related[0].Name+" · "+g.Related[1].Name+" · "+g.Related[2].Name {
		t.Errorf("g's label %q", g.Label)
	}
}

func TestMixedTopAndText(t *testing.T) {
	m, _ := tinyMixed(t)
	e, err := Model(m, Options{Top: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range e.Hidden {
		if len(h.Related) != 1 {
			t.Errorf("%s: %d related with Top 1", h.Name, len(h.Related))
		}
		for _, s := range h.States {
			if len(s.Rising) > 1 || len(s.Shifts) > 1 {
				t.Errorf("%s state %s: %d rising, %d shifts with Top 1", h.Name, s.Label, len(s.Rising), len(s.Shifts))
			}
		}
	}
	var b bytes.Buffer
	if err := e.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"mixed model, 3 hidden variables", "\ng (", ", continuous, parent h0, depth 1", ", discrete, depth 0", "means: ", " SD"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

// An all-continuous mixed model (no discrete node, no anchor) explains as
// a Gaussian one: correlations from the linear equations.
func TestMixedAllContinuous(t *testing.T) {
	tr, err := tree.ParseNewick("(a,b,(c,d)g2)g1;", tree.NewickOptions{HiddenInternalLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	kinds := make([]data.Kind, tr.MaxID())
	for i := range kinds {
		kinds[i] = data.Continuous
	}
	g1, _ := tr.Lookup("g1")
	m, err := mixed.New(tr, g1, kinds, make([]int, tr.MaxID()))
	if err != nil {
		t.Fatal(err)
	}
	coef := map[string]float64{"a": 0.9, "b": -0.5, "g2": 0.7, "c": 1.2, "d": 0.4}
	for name, c := range coef {
		v, _ := tr.Lookup(name)
		m.Coef[v], m.Mean[v][0], m.Var[v][0] = c, 1, 0.3
	}
	cfg := bruteMixed(t, m)
	e, err := Model(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range e.Hidden {
		hv, _ := tr.Lookup(h.Name)
		if h.States != nil || h.Kind != "continuous" {
			t.Errorf("%s: kind %q states %v", h.Name, h.Kind, h.States)
		}
		for _, r := range h.Related {
			x, _ := tr.Lookup(r.Name)
			c := cfg[0]
			want := c.cov(hv, x) / math.Sqrt(c.cov(hv, hv)*c.cov(x, x))
			if math.Abs(r.Corr-want) > mixTol {
				t.Errorf("%s and %s: correlation %g, want %g", h.Name, r.Name, r.Corr, want)
			}
		}
	}
}

// With data, a discrete hidden variable's shares are its mean posterior
// over the rows: by hand on one row with x and u observed (the other
// cells missing), P(h0 = a | x = 2, u = 3.5) ∝ P(h0 = a) P(x = 2 | a)
// N(3.5; μ_a, σ²_a).
func TestMixedSharesFromData(t *testing.T) {
	m, _ := tinyMixed(t)
	d, err := data.New([]data.Variable{{Name: "x", Kind: data.Discrete, States: []string{"0", "1", "2"}}, {Name: "w", Kind: data.Discrete, States: []string{"no", "yes"}},
		{Name: "y", Kind: data.Continuous}, {Name: "u", Kind: data.Continuous}, {Name: "z1", Kind: data.Continuous}, {Name: "z2", Kind: data.Continuous}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	d.Discrete(0)[0], d.Discrete(1)[0] = 2, data.Missing
	d.Continuous(2)[0], d.Continuous(3)[0], d.Continuous(4)[0], d.Continuous(5)[0] = math.NaN(), 3.5, math.NaN(), math.NaN()
	e, err := Model(m, Options{Data: d})
	if err != nil {
		t.Fatal(err)
	}
	normal := func(x, mu, v float64) float64 { return math.Exp(-(x-mu)*(x-mu)/(2*v)) / math.Sqrt(2*math.Pi*v) }
	j0, j1 := 0.3*0.1*normal(3.5, 4, 2), 0.7*0.7*normal(3.5, 3, 1)
	if !e.FromData || e.Rows != 1 {
		t.Fatalf("from data %v, rows %d", e.FromData, e.Rows)
	}
	if got := e.Hidden[0].States[0].Share; math.Abs(got-j0/(j0+j1)) > 1e-9 {
		t.Errorf("share of h0 = 0: %g, want %g", got, j0/(j0+j1))
	}
}

// The strength of a hidden and an observed variable is exp(−d) for the
// model's exact canonical-correlation information distance d
// (InformationDistances, computed independently by package model/mixed).
func TestMixedStrengthIsDistance(t *testing.T) {
	m, _ := tinyMixed(t)
	e, err := Model(m, Options{Top: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range e.Hidden {
		for _, r := range h.Related {
			x, _ := m.Tree.Lookup(r.Name)
			d, err := m.InformationDistances([]int{h.Node, x})
			if err != nil {
				t.Fatal(err)
			}
			if want := math.Exp(-d[1]); math.Abs(r.Strength-want) > 1e-9 {
				t.Errorf("%s and %s: strength %g, exp(−d) %g", h.Name, r.Name, r.Strength, want)
			}
		}
	}
}

// Profiles of a mixed model's discrete hidden variables: a continuous
// variable's mean and SD in each state, a discrete one's distribution,
// against enumeration.
func TestMixedProfiles(t *testing.T) {
	m, id := tinyMixed(t)
	cfg := bruteMixed(t, m)
	e, err := Model(m, Options{Profiles: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range e.Hidden {
		if h.Kind != "discrete" {
			continue
		}
		for s, st := range h.States {
			if len(st.Profile) != m.Tree.NumObserved() {
				t.Fatalf("%s state %d: profile of %d variables", h.Name, s, len(st.Profile))
			}
			for _, a := range st.Profile {
				x := id[a.Name]
				ps, e1, e2 := 0.0, 0.0, 0.0
				var px []float64
				if !a.Continuous {
					px = make([]float64, m.States[x])
				}
				for _, c := range cfg {
					if c.state[h.Node] != s {
						continue
					}
					ps += c.prob
					if a.Continuous {
						e1 += c.prob * c.mean[x]
						e2 += c.prob * (c.cov(x, x) + c.mean[x]*c.mean[x])
					} else {
						px[c.state[x]] += c.prob
					}
				}
				if a.Continuous {
					mean := e1 / ps
					sd := math.Sqrt(e2/ps - mean*mean)
					if math.Abs(a.Mean-mean) > mixTol || math.Abs(a.SD-sd) > mixTol || m.Kinds[x] != data.Continuous {
						t.Errorf("%s state %d, %s: %g±%g, want %g±%g", h.Name, s, a.Name, a.Mean, a.SD, mean, sd)
					}
					continue
				}
				for b := range px {
					if math.Abs(a.Probs[b]-px[b]/ps) > mixTol {
						t.Errorf("%s state %d, %s: P = %v, want %g at %d", h.Name, s, a.Name, a.Probs, px[b]/ps, b)
					}
				}
			}
		}
	}
	var b bytes.Buffer
	if err := e.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "continuous: mean±SD): x=") {
		t.Errorf("profile text:\n%s", b.String())
	}
	js, err := json.Marshal(e.Hidden[0].States[0].Profile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `{"name":"u","mean":`) || !strings.Contains(string(js), `"mode":`) {
		t.Errorf("profile JSON %s", js)
	}
}
