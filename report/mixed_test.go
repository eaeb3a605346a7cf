package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/explain"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/tree"
)

// mixedModel is a conditional-Gaussian model: discrete hidden h over
// discrete x (labels no, yes) and continuous y, and continuous hidden g
// over continuous z1 and a continuous variable with a name that is
// markup; parameters by hand.
func mixedModel(t *testing.T) (*mixed.Model, map[string]int) {
	t.Helper()
	tr, err := tree.ParseNewick("(x,y,(z1,zz)g)h;", tree.NewickOptions{HiddenInternalLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	id := map[string]int{}
	for _, v := range tr.Nodes() {
		id[tr.Name(v)] = v
	}
	if err := tr.SetName(id["zz"], nasty[0]); err != nil {
		t.Fatal(err)
	}
	id[nasty[0]] = id["zz"]
	kinds := make([]data.Kind, tr.MaxID())
	states := make([]int, tr.MaxID())
	for _, v := range tr.Nodes() {
		kinds[v] = data.Continuous
	}
	kinds[id["h"]], kinds[id["x"]] = data.Discrete, data.Discrete
	states[id["h"]], states[id["x"]] = 2, 2
	m, err := mixed.New(tr, id["h"], kinds, states)
	if err != nil {
		t.Fatal(err)
	}
	m.Prior = []float64{0.25, 0.75}
	m.CPT[id["x"]] = []float64{0.9, 0.1, 0.3, 0.7}
	m.Labels[id["x"]] = []string{"no", "yes"}
	m.Mean[id["y"]], m.Var[id["y"]] = []float64{-1, 3}, []float64{2, 0.5}
	m.Mean[id["g"]] = []float64{-0.75, 0.25}
	m.Mean[id["z1"]][0], m.Coef[id["z1"]], m.Var[id["z1"]][0] = 5, 2, 0.25
	m.Coef[id["zz"]] = -1
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m, id
}

func mixedInput(t *testing.T) (Input, *mixed.Model, map[string]int) {
	m, id := mixedModel(t)
	ex, err := explain.Model(m, explain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Input{Model: m, Explanation: ex}, m, id
}

func TestMixedPayload(t *testing.T) {
	in, m, id := mixedInput(t)
	page := render(t, in)
	p := pageData(t, page)
	if p["kind"] != "mixed" {
		t.Fatalf("kind %v", p["kind"])
	}
	names := p["names"].([]any)
	kinds := p["kinds"].(string)
	if len(kinds) != len(names) {
		t.Fatalf("kinds %q for %d nodes", kinds, len(names))
	}
	at := map[string]int{}
	for i, n := range names {
		at[n.(string)] = i
	}
	for name, v := range id {
		if name == "zz" {
			continue
		}
		want := byte('d')
		if m.Kinds[v] == data.Continuous {
			want = 'c'
		}
		if kinds[at[name]] != want {
			t.Errorf("%s: kind %c, want %c", name, kinds[at[name]], want)
		}
	}
	cmean := p["cmean"].([]any)
	if got := fmt.Sprint(cmean[at["y"]]); got != "[-1 3]" {
		t.Errorf("y's means %s", got)
	}
	if got := fmt.Sprint(p["coef"].([]any)[at["z1"]]); got != "2" {
		t.Errorf("z1's coefficient %s", got)
	}
	if p["coef"].([]any)[at["y"]] != nil {
		t.Error("y has a coefficient under a discrete parent")
	}
	if got := fmt.Sprint(p["cpt"].([]any)[at["x"]]); got != "[[0.9 0.1] [0.3 0.7]]" {
		t.Errorf("x's CPT %s", got)
	}
	// h's states carry the mean shifts of the continuous variables; g's
	// related variables their signed correlations.
	expl := p["expl"].([]any)
	hs := expl[at["h"]].(map[string]any)["s"].([]any)
	if len(hs) != 2 || hs[0].(map[string]any)["m"] == nil {
		t.Fatalf("h's states %v", hs)
	}
	shifts := hs[0].(map[string]any)["m"].([]any)
	if len(shifts)%4 != 0 || len(shifts) < 4 {
		t.Fatalf("shifts %v", shifts)
	}
	gr := expl[at["g"]].(map[string]any)["r"].([]any)
	neg := false
	for j := 0; j+1 < len(gr); j += 2 {
		if int(gr[j].(float64)) == at[nasty[0]] && gr[j+1].(float64) < 0 {
			neg = true
		}
	}
	if !neg {
		t.Errorf("g's related %v: no negative correlation with the variable of coefficient −1", gr)
	}
	s := string(page)
	for _, want := range []string{`data-kind="observed-continuous"`, `data-kind="hidden-continuous"`, `data-kind="observed-discrete"`, `data-kind="hidden-discrete"`, "<th>type</th><td>mixed</td>"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(s, nasty[0]) {
		t.Error("a name that is markup reaches the page unescaped")
	}
}

func TestBrowserMixedReport(t *testing.T) {
	p := openBrowser(t)
	in, m, _ := mixedInput(t)
	p.load(t, in)
	if n := eval[int](t, p, `document.querySelectorAll('g.node.cont').length`); n != 4 {
		t.Errorf("%d continuous node elements, want 4", n)
	}
	if n := eval[int](t, p, `document.querySelectorAll('g.node .ring').length`); n != 4 {
		t.Errorf("%d rings, want 4", n)
	}
	want := map[string][]string{
		"h":  {"hidden variable, discrete", "States", "SD", "canonical correlation", "Marginal"},
		"g":  {"hidden variable, continuous", "Related observed variables", "Parameters", "mean", "variance"},
		"y":  {"observed variable, continuous", "Parameters", "variance"},
		"z1": {"observed variable, continuous", "intercept", "coefficient on g", "residual variance"},
		"x":  {"observed variable, discrete", "Marginal", "P(x | h)"},
	}
	for name, words := range want {
		v, _ := m.Tree.Lookup(name)
		body := eval[string](t, p, fmt.Sprintf(`(() => {
			const g = Array.from(document.querySelectorAll('g.node')).find(e => e.getAttribute('data-name') === %q);
			window.latentreeReport.select(+g.getAttribute('data-i'), true);
			return document.getElementById('panel-body').textContent;
		})()`, m.Tree.Name(v)))
		for _, w := range words {
			if !strings.Contains(body, w) {
				t.Errorf("panel of %s lacks %q: %s", name, w, body)
			}
		}
	}
	p.checkClean(t)
}
