package report

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/explain"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/noisyor"
	"github.com/latentree/latentree/simulate"
)

// nasty are variable names that would break a page that did not escape
// them.
var nasty = []string{`</script><script>alert(1)</script>`, `a"b'c`, `<!--x`, `x&amp;y`, `<b>bold</b>`, "line\u2028sep"}

// testModel returns a symmetric binary model on a random binary tree with
// the given number of observed variables (2·leaves−2 nodes); with rename,
// the first observed variables get the nasty names.
func testModel(t testing.TB, leaves int, seed uint64, rename bool) *discrete.Model {
	t.Helper()
	src := rand.NewPCG(seed, 7)
	tr, err := simulate.RandomBinary(src, leaves, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if rename {
		for k, v := range tr.Observed() {
			if k == len(nasty) {
				break
			}
			if err := tr.SetName(v, nasty[k]); err != nil {
				t.Fatal(err)
			}
		}
	}
	m, err := simulate.Symmetric(src, tr, simulate.SymmetricOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr.AutoNameHidden("h")
	return m
}

// fullInput is a report input with every section: explanation,
// provenance with an EM trace, data with missing cells.
func fullInput(t testing.TB, m model.Model, rows int) Input {
	t.Helper()
	d, err := m.Sample(rand.NewPCG(3, 4), rows)
	if err != nil {
		t.Fatal(err)
	}
	if d.NumVars() > 2 {
		col := d.Discrete(1)
		for r := 0; r < rows; r += 7 {
			col[r] = data.Missing
		}
	}
	ex, err := explain.Model(m, explain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := m.Score(d, model.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	trace := []float64{-1200, -1100, -1050, -1040, -1038, -1037.5}
	prov := &model.Provenance{
		Created: "2025-01-01T00:00:00Z", Software: "latentree", Method: "clrg",
		Options: map[string]any{"hidden-states": "2", "seed": "1"},
		Data:    &model.DataInfo{File: "sample.csv", Rows: rows, SHA256: strings.Repeat("ab", 32)},
		Scores:  sc,
		EM:      &model.EMResult{LogLik: -1037.5, Iterations: len(trace), Converged: true, Trace: trace},
	}
	return Input{Model: m, Provenance: prov, Explanation: ex, Data: d, DataName: "sample.csv"}
}

func render(t testing.TB, in Input) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, in); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var dataBlock = regexp.MustCompile(`(?s)<script type="application/json" id="model-data">(.*?)</script>`)

// pageData extracts and decodes the page's JSON block.
func pageData(t *testing.T, page []byte) map[string]any {
	t.Helper()
	found := dataBlock.FindSubmatch(page)
	if found == nil {
		t.Fatal("no model-data block")
	}
	var p map[string]any
	if err := json.Unmarshal(found[1], &p); err != nil {
		t.Fatalf("model-data is not JSON: %v", err)
	}
	return p
}

func TestWriteWellFormed(t *testing.T) {
	m := testModel(t, 16, 1, false)
	page := render(t, fullInput(t, m, 500))
	s := string(page)
	if !strings.HasPrefix(s, "<!DOCTYPE html>") || !strings.HasSuffix(s, "</html>\n") {
		t.Error("not a complete HTML document")
	}
	for _, want := range []string{`id="search"`, `id="panel"`, `id="tree"`, `id="summary"`, `id="trace-plot"`, `id="quality"`, "<polyline", "sample.csv", "clrg", strings.Repeat("ab", 32)} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, tag := range []string{"script", "style", "section", "table", "svg", "main", "aside", "header"} {
		open := len(regexp.MustCompile(`<`+tag+`[\s>]`).FindAllString(s, -1))
		if closed := strings.Count(s, "</"+tag+">"); open != closed {
			t.Errorf("<%s>: %d opened, %d closed", tag, open, closed)
		}
	}
	p := pageData(t, page)
	names := p["names"].([]any)
	if len(names) != m.Tree.NumNodes() {
		t.Errorf("%d names for %d nodes", len(names), m.Tree.NumNodes())
	}
	if len(p["hidden"].(string)) != len(names) || len(p["cpt"].([]any)) != len(names) {
		t.Error("per-node arrays differ in length")
	}
	expl := p["expl"].([]any)
	labelled := 0
	for _, e := range expl {
		if e != nil {
			labelled++
		}
	}
	if labelled != m.Tree.NumHidden() {
		t.Errorf("%d hidden nodes explained, want %d", labelled, m.Tree.NumHidden())
	}
	// A parent comes before its children.
	for i, x := range p["parent"].([]any) {
		if pi := int(x.(float64)); pi >= i {
			t.Fatalf("node %d has parent %d", i, pi)
		}
	}
	if !strings.Contains(s, "missing cells") {
		t.Error("no missing-cell note")
	}
}

func TestJSONEscaping(t *testing.T) {
	m := testModel(t, 16, 2, true)
	page := render(t, fullInput(t, m, 200))
	s := string(page)
	if n := strings.Count(s, "</script"); n != 2 {
		t.Errorf("%d closing script tags, want 2 (the data block and the script)", n)
	}
	if strings.Contains(s, "<!--") {
		t.Error("page contains <!--")
	}
	if strings.Contains(s, "<b>bold") || strings.Contains(s, "alert(1)</script>") {
		t.Error("a variable name is markup in the page")
	}
	p := pageData(t, page)
	got := map[string]bool{}
	for _, x := range p["names"].([]any) {
		got[x.(string)] = true
	}
	for _, n := range nasty {
		if !got[n] {
			t.Errorf("name %q not in the data block", n)
		}
	}
}

// TestNoExternalLoads checks that the page loads nothing: no URLs other
// than the SVG namespace, no src or href attributes, no link elements.
func TestNoExternalLoads(t *testing.T) {
	m := testModel(t, 40, 3, false)
	s := string(render(t, fullInput(t, m, 100)))
	s = strings.ReplaceAll(s, `"http://www.w3.org/2000/svg"`, "")
	s = strings.ReplaceAll(s, `'http://www.w3.org/2000/svg'`, "")
	for _, bad := range []string{"http://", "https://", "<link", " src=", " href=", "@import", "url("} {
		if strings.Contains(s, bad) {
			i := strings.Index(s, bad)
			t.Errorf("page contains %q: …%s…", bad, s[max(0, i-40):min(len(s), i+40)])
		}
	}
}

func TestSizeLarge(t *testing.T) {
	m := testModel(t, 1001, 4, false)
	if n := m.Tree.NumNodes(); n != 2000 {
		t.Fatalf("%d nodes, want 2000", n)
	}
	page := render(t, fullInput(t, m, 1000))
	t.Logf("2,000-node report with explanation and data: %d bytes", len(page))
	if len(page) > 600_000 {
		t.Errorf("report of 2,000 nodes is %d bytes, want at most 600,000", len(page))
	}
	p := pageData(t, page)
	if n := len(p["names"].([]any)); n != 2000 {
		t.Errorf("%d names", n)
	}
}

func TestGaussianAndSpectral(t *testing.T) {
	src := rand.NewPCG(5, 6)
	tr, err := simulate.RandomBinary(src, 12, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	g, err := simulate.Gaussian(src, tr, simulate.GaussianOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr.AutoNameHidden("h")
	ex, err := explain.Model(g, explain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := pageData(t, render(t, Input{Model: g, Explanation: ex}))
	if p["kind"] != "gaussian" || len(p["rho"].([]any)) != tr.NumNodes() {
		t.Errorf("kind %v, rho %v", p["kind"], p["rho"])
	}
}

func TestNoisyor(t *testing.T) {
	net := &noisyor.Network{
		Effects: []string{"a", "b", "c", "d"},
		Sources: []noisyor.Source{
			{Name: "X1", Prior: 0.3, Children: []noisyor.Child{{Effect: 0, Failure: 0.1}, {Effect: 1, Failure: 0.4}}},
			{Name: "X2", Prior: 0.2, Children: []noisyor.Child{{Effect: 1, Failure: 0.2}, {Effect: 2, Failure: 0.5}}},
		},
		Leak: []float64{0.01, 0.01, 0.02, 0.05},
	}
	ex, err := explain.Noisyor(net, explain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := pageData(t, render(t, Input{Noisyor: net, Explanation: ex}))
	par := p["parent"].([]any)
	// network, X1, X2, a, b, c, d: b goes under X2 (failure 0.2 < 0.4), d under the network.
	want := []float64{-1, 0, 0, 1, 2, 2, 0}
	for i, w := range want {
		if par[i].(float64) != w {
			t.Errorf("parent of %v is %v, want %v", p["names"].([]any)[i], par[i], w)
		}
	}
	if len(p["edges"].([]any)) != 4 {
		t.Errorf("edges %v", p["edges"])
	}
}

func TestWriteNoModel(t *testing.T) {
	if err := Write(&bytes.Buffer{}, Input{}); err == nil {
		t.Error("no error without a model")
	}
}

func TestFmtTicksTellEndsApart(t *testing.T) {
	for _, c := range [][4]string{
		{"-115303.6337", "-115303.5056", "-115303.6", "-115303.5"},
		{"1", "2", "1", "2"},
		{"5", "5", "5", "5"},
	} {
		lo, _ := strconv.ParseFloat(c[0], 64)
		hi, _ := strconv.ParseFloat(c[1], 64)
		a, b := fmtTicks(lo, hi)
		if a != c[2] || b != c[3] {
			t.Errorf("fmtTicks(%s, %s) = %s, %s; want %s, %s", c[0], c[1], a, b, c[2], c[3])
		}
	}
}
