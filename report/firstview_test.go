package report

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/draw"
	"github.com/latentree/latentree/explain"
	"github.com/latentree/latentree/internal/experiment"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/simulate"
	"github.com/latentree/latentree/tree"
)

// The first view of a report: the visible tree (large trees open
// collapsed) fitted to the window, every label readable, inside the window
// and clear of the other labels and nodes, and the nodes drawn with the
// shapes and colours of package draw.

// newsgroups is the model of the 20 Newsgroups training data learned as
// TestBrowserNewsgroups and explain's acceptance test learn it, learned
// once for the tests that use it.
var newsgroups struct {
	once sync.Once
	in   Input
	skip string
	err  error
}

// loadNewsgroups learns the newsgroups model once; it returns why it
// cannot (data not found, short tests) or the error learning it met.
func loadNewsgroups() (Input, string, error) {
	if testing.Short() {
		return Input{}, "learns a model on 8,121 rows", nil
	}
	ng := &newsgroups
	ng.once.Do(func() {
		var path string
		var dirs []string
		for _, name := range []string{"newsgroups100-train.csv", "newsgroups100-train.csv.gz"} {
			if path, dirs = experiment.FindDataFile(name); path != "" {
				break
			}
		}
		if path == "" {
			ng.skip = fmt.Sprintf("newsgroups100-train.csv not found (set %s to its directory; looked in %s)", experiment.DataEnvVar, strings.Join(dirs, ", "))
			return
		}
		f, err := os.Open(path)
		if err != nil {
			ng.err = err
			return
		}
		defer f.Close()
		d, _, err := data.ReadCSV(f, data.ReadOptions{Name: path, MaxDiscreteStates: 2})
		if err != nil {
			ng.err = err
			return
		}
		res, err := learn.Learn(d, learn.Options{Contract: learn.ContractOptions{Rule: learn.ContractThreshold}})
		if err != nil {
			ng.err = err
			return
		}
		ex, err := explain.Model(res.Model, explain.Options{Data: d})
		if err != nil {
			ng.err = err
			return
		}
		ng.in = Input{Model: res.Model, Explanation: ex, Data: d, DataName: path}
	})
	return ng.in, ng.skip, ng.err
}

// newsgroupsModel returns the report input of the newsgroups model, or
// skips the test when it cannot be learned.
func newsgroupsModel(t *testing.T) Input {
	t.Helper()
	in, skip, err := loadNewsgroups()
	if err != nil {
		t.Fatal(err)
	}
	if skip != "" {
		t.Skip(skip)
	}
	return in
}

// abilityTree is a tree of 9 ability scores with 30-character names and 3
// hidden variables, whose root h1 (returned) has an observed child with
// children, as have two observed variables further down: x1 (x2, x3), x4
// (x5) and x9 (x8).
func abilityTree(t *testing.T) (*tree.Tree, int) {
	t.Helper()
	tr := tree.New()
	obs := map[string]int{}
	for _, s := range []string{"x1_visual_perception", "x2_cubes", "x3_lozenges", "x4_paragraph_comprehension",
		"x5_sentence_completion", "x6_word_meaning", "x7_speeded_addition", "x8_speeded_counting_dots", "x9_speeded_discrimination"} {
		name := (s + "_score_standardised_wave_one")[:30]
		id, err := tr.AddObserved(name)
		if err != nil {
			t.Fatal(err)
		}
		obs[s[:2]] = id
	}
	h1, h2, h3 := tr.AddHidden(), tr.AddHidden(), tr.AddHidden()
	for _, e := range [][2]int{
		{h1, obs["x1"]}, {h1, h2}, {h1, h3},
		{obs["x1"], obs["x2"]}, {obs["x1"], obs["x3"]},
		{h2, obs["x4"]}, {h2, obs["x6"]}, {obs["x4"], obs["x5"]},
		{h3, obs["x9"]}, {h3, obs["x7"]}, {obs["x9"], obs["x8"]},
	} {
		if err := tr.AddEdge(e[0], e[1], 1); err != nil {
			t.Fatal(err)
		}
	}
	return tr, h1
}

// firstViewJS collects, in the report's first view, what breaks the
// rules: labels outside the tree's window, labels over each other or over
// another node's mark, a tree that does not fill its window. It returns
// the problems found (at most 20 of each kind) and measures.
const firstViewJS = `(() => {
	const svg = document.getElementById('tree'), s = svg.getBoundingClientRect();
	const shown = e => getComputedStyle(e).display !== 'none';
	const nodes = Array.from(document.querySelectorAll('g.node')).filter(shown);
	const labels = [], marks = [], out = [];
	let fontPx = 1e9;
	const k = document.getElementById('viewport').getCTM().a;
	for (const g of nodes) {
		const name = g.getAttribute('data-name');
		for (const tx of g.querySelectorAll('text')) {
			if (!shown(tx) || !tx.textContent.trim()) continue;
			labels.push({name, text: tx.textContent, r: tx.getBoundingClientRect()});
			fontPx = Math.min(fontPx, parseFloat(getComputedStyle(tx).fontSize) * k);
		}
		marks.push({name, r: g.querySelector('.shape').getBoundingClientRect()});
	}
	const tol = 0.5, cap = 20;
	const hit = (a, b) => a.left < b.right - tol && b.left < a.right - tol && a.top < b.bottom - tol && b.top < a.bottom - tol;
	const box = r => '[' + [r.left, r.top, r.right, r.bottom].map(x => x.toFixed(1)).join(' ') + ']';
	let outside = 0, overlaps = 0, overMarks = 0;
	for (const l of labels) {
		if (l.r.left < s.left - tol || l.r.right > s.right + tol || l.r.top < s.top - tol || l.r.bottom > s.bottom + tol) {
			if (outside++ < cap) out.push('label outside the window ' + box(s) + ': ' + JSON.stringify(l.text) + ' ' + box(l.r));
		}
	}
	for (let i = 0; i < labels.length; i++) {
		for (let j = i + 1; j < labels.length; j++) {
			if (hit(labels[i].r, labels[j].r) && overlaps++ < cap) {
				out.push('labels overlap: ' + JSON.stringify(labels[i].text) + ' ' + box(labels[i].r) + ' and ' + JSON.stringify(labels[j].text) + ' ' + box(labels[j].r));
			}
		}
		for (const m of marks) {
			if (m.name !== labels[i].name && hit(labels[i].r, m.r) && overMarks++ < cap) {
				out.push('label ' + JSON.stringify(labels[i].text) + ' over the node ' + JSON.stringify(m.name));
			}
		}
	}
	const c = document.getElementById('viewport').getBoundingClientRect();
	return {problems: out, labels: labels.length, visible: nodes.length, fontPx: fontPx === 1e9 ? 0 : fontPx,
		svg: [s.left, s.top, s.right, s.bottom], content: [c.left, c.top, c.right, c.bottom]};
})()`

type firstView struct {
	Problems []string  `json:"problems"`
	Labels   int       `json:"labels"`
	Visible  int       `json:"visible"`
	FontPx   float64   `json:"fontPx"`
	SVG      []float64 `json:"svg"`
	Content  []float64 `json:"content"`
}

// checkFirstView checks the rules of the first view of the report open in
// p: every visible node labelled at a readable size (at least 8 pixels),
// every label inside the tree's window and clear of the other labels and
// of the other nodes' marks, the tree inside the window with at most 30
// pixels above it and filling at least 60% of its width or height. At
// least minVisible nodes must be shown.
func checkFirstView(t *testing.T, p *page, minVisible int) {
	t.Helper()
	fv := eval[firstView](t, p, firstViewJS)
	t.Logf("first view: %d nodes visible, %d labels, font %.1f px, window %.0f, tree %.0f", fv.Visible, fv.Labels, fv.FontPx, fv.SVG, fv.Content)
	for _, s := range fv.Problems {
		t.Error(s)
	}
	if fv.Visible < minVisible {
		t.Errorf("%d nodes visible, want at least %d", fv.Visible, minVisible)
	}
	if fv.Labels < fv.Visible {
		t.Errorf("%d labels shown for %d visible nodes", fv.Labels, fv.Visible)
	}
	if fv.FontPx < 8 {
		t.Errorf("labels drawn %.1f pixels high, want at least 8", fv.FontPx)
	}
	s, c := fv.SVG, fv.Content
	if len(s) != 4 || len(c) != 4 {
		t.Fatalf("window %v, tree %v", s, c)
	}
	const tol = 0.5
	if c[0] < s[0]-tol || c[2] > s[2]+tol || c[1] < s[1]-tol || c[3] > s[3]+tol {
		t.Errorf("the tree %.0f is cut off by the window %.0f", c, s)
	}
	if gap := c[1] - s[1]; gap > 30 {
		t.Errorf("%.0f pixels blank above the tree", gap)
	}
	fw, fh := (c[2]-c[0])/(s[2]-s[0]), (c[3]-c[1])/(s[3]-s[1])
	if fw < 0.6 && fh < 0.6 {
		t.Errorf("the tree fills %.0f%% of the window's width and %.0f%% of its height, want 60%% of either", 100*fw, 100*fh)
	}
}

// drawMark is how package draw marks a kind of node: the element and its
// fill and stroke colours as CSS computes them.
type drawMark struct{ Tag, Fill, Stroke string }

var (
	drawNodeRE  = regexp.MustCompile(`class="node (observed|hidden)"[^>]*><title>[^<]*</title><(\w+) class="mark"`)
	drawStyleRE = regexp.MustCompile(`\.(observed|hidden) \.mark\{fill:(#[0-9a-fA-F]+);stroke:(#[0-9a-fA-F]+)`)
)

// drawMarks draws tr with package draw and returns its marks of observed
// and hidden nodes.
func drawMarks(t *testing.T, tr *tree.Tree) map[string]drawMark {
	t.Helper()
	var b bytes.Buffer
	if err := draw.SVG(&b, tr, draw.Options{}); err != nil {
		t.Fatal(err)
	}
	marks := map[string]drawMark{}
	for _, m := range drawNodeRE.FindAllStringSubmatch(b.String(), -1) {
		if old, ok := marks[m[1]]; ok && old.Tag != m[2] {
			t.Fatalf("draw marks %s nodes with %s and %s", m[1], old.Tag, m[2])
		}
		marks[m[1]] = drawMark{Tag: m[2]}
	}
	for _, m := range drawStyleRE.FindAllStringSubmatch(b.String(), -1) {
		d := marks[m[1]]
		d.Fill, d.Stroke = cssRGB(t, m[2]), cssRGB(t, m[3])
		marks[m[1]] = d
	}
	for _, k := range []string{"observed", "hidden"} {
		if d := marks[k]; d.Tag == "" || d.Fill == "" {
			t.Fatalf("no %s mark in draw's picture: %+v", k, marks)
		}
	}
	return marks
}

// cssRGB converts #rgb or #rrggbb to rgb(r, g, b) as getComputedStyle
// writes it.
func cssRGB(t *testing.T, hex string) string {
	t.Helper()
	h := strings.TrimPrefix(hex, "#")
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	x, err := strconv.ParseUint(h, 16, 32)
	if err != nil || len(h) != 6 {
		t.Fatalf("colour %q", hex)
	}
	return fmt.Sprintf("rgb(%d, %d, %d)", x>>16, x>>8&255, x&255)
}

// marksJS lists the marks of the visible nodes and of the legend's keys.
const marksJS = `(() => {
	const mark = (e, name, collapsed) => { const st = getComputedStyle(e); return {name, collapsed, tag: e.tagName, fill: st.fill, stroke: st.stroke}; };
	const nodes = Array.from(document.querySelectorAll('g.node')).filter(g => getComputedStyle(g).display !== 'none')
		.map(g => mark(g.querySelector('.shape'), g.getAttribute('data-name'), g.classList.contains('collapsed')));
	const keys = Array.from(document.querySelectorAll('#legend [data-kind] .shape')).map(e => mark(e, e.closest('[data-kind]').getAttribute('data-kind'), false));
	return {nodes, keys};
})()`

type shownMark struct {
	Name      string `json:"name"`
	Collapsed bool   `json:"collapsed"`
	Tag       string `json:"tag"`
	Fill      string `json:"fill"`
	Stroke    string `json:"stroke"`
}

// checkMarks checks that the report open in p marks observed and hidden
// nodes as package draw does: the same element, and the same colours
// unless collapsed; and that its legend shows the same marks, and the mark
// of a collapsed hidden node.
func checkMarks(t *testing.T, p *page, tr *tree.Tree) {
	t.Helper()
	want := drawMarks(t, tr)
	got := eval[struct {
		Nodes []shownMark `json:"nodes"`
		Keys  []shownMark `json:"keys"`
	}](t, p, marksJS)
	bad := 0
	for _, m := range got.Nodes {
		v, ok := tr.Lookup(m.Name)
		if !ok {
			t.Fatalf("node %q is not in the tree", m.Name)
		}
		kind := "observed"
		if tr.IsHidden(v) {
			kind = "hidden"
		}
		w := want[kind]
		if m.Tag != w.Tag || (!m.Collapsed && (m.Fill != w.Fill || m.Stroke != w.Stroke)) {
			if bad++; bad <= 5 {
				t.Errorf("%s node %s is a %s filled %s stroked %s (collapsed %v); draw uses a %s filled %s stroked %s", kind, m.Name, m.Tag, m.Fill, m.Stroke, m.Collapsed, w.Tag, w.Fill, w.Stroke)
			}
		}
	}
	keys := map[string]bool{}
	for _, k := range got.Keys {
		keys[k.Name] = true
		if k.Name == "collapsed" {
			for _, m := range got.Nodes {
				if v, _ := tr.Lookup(m.Name); m.Collapsed && tr.IsHidden(v) && (m.Tag != k.Tag || m.Fill != k.Fill) {
					t.Errorf("collapsed hidden node %s is a %s filled %s; the legend shows a %s filled %s", m.Name, m.Tag, m.Fill, k.Tag, k.Fill)
					break
				}
			}
		}
		w, ok := want[k.Name]
		if !ok {
			continue
		}
		if k.Tag != w.Tag || k.Fill != w.Fill || k.Stroke != w.Stroke {
			t.Errorf("legend shows %s nodes as a %s filled %s stroked %s; draw uses a %s filled %s stroked %s", k.Name, k.Tag, k.Fill, k.Stroke, w.Tag, w.Fill, w.Stroke)
		}
	}
	for _, k := range []string{"observed", "hidden", "collapsed"} {
		if !keys[k] {
			t.Errorf("the legend has no key for %s nodes", k)
		}
	}
}

// TestBrowserFirstView opens reports in one browser and checks their
// first view (checkFirstView) and marks (checkMarks): the 20 Newsgroups
// model (a simulated tree of 100 leaves when the data are absent), a
// 2,000-node tree (shown collapsed), and Gaussian and discrete models of
// 12 nodes with 30-character names and observed variables with children.
func TestBrowserFirstView(t *testing.T) {
	p := openBrowser(t)
	open := func(t *testing.T, in Input, minVisible int) {
		t.Helper()
		p.load(t, in)
		checkFirstView(t, p, minVisible)
		checkMarks(t, p, in.Model.Structure())
		screenshot(t, p, "first-view.png")
		p.checkClean(t)
	}
	t.Run("newsgroups", func(t *testing.T) {
		in, skip, err := loadNewsgroups()
		if err != nil {
			t.Fatal(err)
		}
		if skip != "" {
			t.Logf("a simulated tree of 100 leaves instead of the newsgroups model: %s", skip)
			in = fullInput(t, testModel(t, 100, 21, false), 300)
		}
		open(t, in, 20)
	})
	t.Run("2000-nodes", func(t *testing.T) {
		m := testModel(t, 1001, 12, false)
		open(t, fullInput(t, m, 300), 20)
	})
	for _, kind := range []string{"gaussian", "discrete"} {
		t.Run("ability-"+kind, func(t *testing.T) {
			tr, root := abilityTree(t)
			src := rand.NewPCG(8, 9)
			var m model.Model
			var err error
			if kind == "gaussian" {
				m, err = simulate.Gaussian(src, tr, simulate.GaussianOptions{Root: &root})
			} else {
				m, err = simulate.Symmetric(src, tr, simulate.SymmetricOptions{Root: &root})
			}
			if err != nil {
				t.Fatal(err)
			}
			tr.AutoNameHidden("h")
			in := Input{Model: m}
			if in.Explanation, err = explain.Model(m, explain.Options{}); err != nil {
				t.Fatal(err)
			}
			open(t, in, tr.NumNodes())
		})
	}
}
