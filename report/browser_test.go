package report

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/latentree/latentree/model"
)

// These tests open reports in headless Chromium (Debian package chromium;
// .ci/run installs it) from file:// and use them as a person would.

// browserPath returns a Chromium or Chrome binary, or skips the test.
func browserPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no browser: install Chromium (apt-get install chromium) to run the report's browser tests")
	return ""
}

// page is a report open in a headless browser, recording what the page
// wrote to the console and every request it made.
type page struct {
	ctx      context.Context
	mu       sync.Mutex
	console  []string
	requests []string
}

// browser is the one headless Chromium that the tests share (each opens
// its own tab): starting one took about a second of CPU per test. It
// starts with the first test that wants it; TestMain closes it.
var browser struct {
	once   sync.Once
	ctx    context.Context
	cancel func()
	err    error
}

// startBrowser starts the shared browser once.
func startBrowser(exe string) (context.Context, error) {
	browser.once.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Headless,
			chromedp.WindowSize(1280, 800), chromedp.Flag("disable-gpu", true),
			chromedp.Flag("disable-dev-shm-usage", true))
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelC := chromedp.NewContext(actx)
		browser.ctx, browser.cancel = ctx, func() { cancelC(); cancelA() }
		// The first Run starts the browser (with its first tab).
		browser.err = chromedp.Do(ctx)
	})
	return browser.ctx, browser.err
}

func TestMain(m *testing.M) {
	code := m.Run()
	if browser.cancel != nil {
		browser.cancel()
	}
	os.Exit(code)
}

func openBrowser(t *testing.T) *page {
	t.Helper()
	bctx, err := startBrowser(browserPath(t))
	if err != nil {
		t.Fatalf("starting the browser: %v", err)
	}
	// A new tab of the shared browser, closed when the test ends.
	ctx, cancelC := chromedp.NewContext(bctx)
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelT(); cancelC() })
	p := &page{ctx: ctx}
	messages := chromedp.Console(ctx)
	requests := chromedp.Events(ctx, network.RequestWillBeSent)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.console = append(p.console, m.String())
			p.mu.Unlock()
		}
	}()
	go func() {
		for ev, err := range requests {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.requests = append(p.requests, ev.Request.URL)
			p.mu.Unlock()
		}
	}()
	return p
}

// load writes the report of in to a file, opens it and waits until the
// page says it is ready; it returns the time that took.
func (p *page) load(t *testing.T, in Input) time.Duration {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, render(t, in), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := chromedp.Do(p.ctx, chromedp.Navigate("file://"+path), chromedp.WaitReady(chromedp.CSS(`body[data-ready="1"]`))); err != nil {
		t.Fatalf("opening the report: %v", err)
	}
	return time.Since(start)
}

func eval[T any](t *testing.T, p *page, js string) T {
	t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

func (p *page) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	// Let the page paint what the steps changed (the view's transform is
	// applied in an animation frame) before the next step aims at a node:
	// on a loaded machine a click could otherwise land where the node was.
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(0))))`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("%s: waiting for a frame: %v", what, err)
	}
}

// checkClean fails the test for console errors, exceptions and requests
// other than the report file itself.
func (p *page) checkClean(t *testing.T) {
	t.Helper()
	time.Sleep(100 * time.Millisecond) // let the last events arrive
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.console {
		if strings.HasPrefix(m, "error") || strings.HasPrefix(m, "exception") || strings.HasPrefix(m, "warning") {
			t.Errorf("console: %s", m)
		}
	}
	for _, u := range p.requests {
		if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page loaded %s", u)
		}
	}
}

const visibleJS = `Array.from(document.querySelectorAll('g.node')).filter(e => getComputedStyle(e).display !== 'none').length`

// descendants returns the number of nodes below v when the model's tree
// is rooted at its root.
func descendants(m model.Model, v int) int {
	r := m.Structure().Root(m.RootNode())
	n, stack := 0, slices.Clone(r.Children[v])
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		stack = append(stack, r.Children[u]...)
	}
	return n
}

// TestBrowserReport opens the report of a 30-node model (some variables
// with names that are markup) and checks the tree, collapsing, search, the
// panel and a screenshot.
func TestBrowserReport(t *testing.T) {
	p := openBrowser(t)
	m := testModel(t, 16, 11, true)
	tr := m.Tree
	if tr.NumNodes() != 30 {
		t.Fatalf("%d nodes", tr.NumNodes())
	}
	ready := p.load(t, fullInput(t, m, 400))
	t.Logf("30-node report ready in %v", ready)

	// As many node elements as nodes, named as the model's.
	names := eval[[]string](t, p, `Array.from(document.querySelectorAll('g.node')).map(e => e.getAttribute('data-name'))`)
	var want []string
	for _, v := range tr.Nodes() {
		want = append(want, tr.Name(v))
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("node elements %q, want %q", names, want)
	}
	if n := eval[int](t, p, visibleJS); n != 30 {
		t.Errorf("%d nodes visible, want 30", n)
	}
	if title := eval[string](t, p, `document.title`); !strings.Contains(title, "sample.csv") {
		t.Errorf("title %q", title)
	}

	// Collapse the hidden node with the largest subtree short of the root
	// by its toggle, then expand it by a double click.
	r := tr.Root(m.Root)
	h, below := -1, 0
	for _, v := range tr.Hidden() {
		if d := descendants(m, v); v != m.Root && d > below && r.Parent[v] >= 0 {
			h, below = v, d
		}
	}
	sel := fmt.Sprintf(`g.node[data-name=%q]`, tr.Name(h))
	p.do(t, "collapse", chromedp.Click(chromedp.CSS(sel+` .toggle`)))
	if n := eval[int](t, p, visibleJS); n != 30-below {
		t.Errorf("after collapsing %s (%d below): %d visible, want %d", tr.Name(h), below, n, 30-below)
	}
	if !eval[bool](t, p, `document.querySelector('`+sel+`').classList.contains('collapsed')`) {
		t.Error("collapsed node not marked")
	}
	p.do(t, "expand", chromedp.DoubleClick(chromedp.CSS(sel+` text`)))
	if n := eval[int](t, p, visibleJS); n != 30 {
		t.Errorf("after expanding: %d visible, want 30", n)
	}

	// Search: an observed variable below a collapsed node is revealed,
	// highlighted and brought into view.
	var target string
	for _, v := range tr.Observed() {
		if name := tr.Name(v); strings.HasPrefix(name, "x") && descendants(m, h) > 0 {
			if anc := r.Parent[v]; anc >= 0 && isBelow(r.Parent, v, h) {
				target = name
				break
			}
		}
	}
	if target == "" {
		t.Fatal("no plain-named variable below " + tr.Name(h))
	}
	p.do(t, "collapse again", chromedp.Click(chromedp.CSS(sel+` .toggle`)))
	p.do(t, "search", chromedp.SendKeys(chromedp.CSS(`#search`), target),
		chromedp.WaitReady(chromedp.CSS(`g.node.match.current`)))
	cur := eval[string](t, p, `document.querySelector('g.node.current').getAttribute('data-name')`)
	if cur != target {
		t.Errorf("search %q highlights %q", target, cur)
	}
	inView := eval[bool](t, p, `(() => {
		const e = document.querySelector('g.node.current').getBoundingClientRect();
		const s = document.getElementById('tree').getBoundingClientRect();
		return getComputedStyle(document.querySelector('g.node.current')).display !== 'none' &&
			e.left >= s.left && e.right <= s.right && e.top >= s.top && e.bottom <= s.bottom;
	})()`)
	if !inView {
		t.Error("the variable found is not visible in the view")
	}
	if c := eval[string](t, p, `document.getElementById('search-count').textContent`); !strings.Contains(c, "1 of") {
		t.Errorf("search count %q", c)
	}

	// A click opens the node's panel: a hidden variable's explanation and
	// CPT, then an observed variable whose name is markup.
	p.do(t, "click", chromedp.Click(chromedp.CSS(sel+` text`)), chromedp.WaitVisible(chromedp.CSS(`#panel`)))
	if name := eval[string](t, p, `document.getElementById('panel-name').textContent`); name != tr.Name(h) {
		t.Errorf("panel of %q, want %q", name, tr.Name(h))
	}
	body := eval[string](t, p, `document.getElementById('panel-body').textContent`)
	for _, w := range []string{"hidden variable", "States", "Related observed variables", "P(" + tr.Name(h) + " | "} {
		if !strings.Contains(body, w) {
			t.Errorf("panel lacks %q: %s", w, body)
		}
	}
	odd := nasty[0]
	if got := eval[bool](t, p, `(() => {
		const g = Array.from(document.querySelectorAll('g.node')).find(e => e.getAttribute('data-name') === `+jsString(odd)+`);
		window.latentreeReport.select(+g.getAttribute('data-i'), true);
		return document.getElementById('panel-name').textContent === `+jsString(odd)+`;
	})()`); !got {
		t.Errorf("panel of %q not shown", odd)
	}
	if n := eval[int](t, p, `document.querySelectorAll('#panel-body script, #panel-body b').length`); n != 0 {
		t.Error("a variable name became markup in the panel")
	}

	// Zoom and pan change the view's transform.
	before := eval[string](t, p, `document.getElementById('viewport').getAttribute('transform')`)
	p.do(t, "zoom", chromedp.Evaluate[chromedp.Void](`document.getElementById('tree').dispatchEvent(new WheelEvent('wheel', {deltaY: -300, clientX: 400, clientY: 300, bubbles: true, cancelable: true}))`),
		chromedp.Sleep(100*time.Millisecond))
	if after := eval[string](t, p, `document.getElementById('viewport').getAttribute('transform')`); after == before {
		t.Errorf("wheel did not zoom: %s", after)
	}

	// The page shows the summary, the EM trace and the data notes.
	side := eval[string](t, p, `document.getElementById('side').textContent`)
	for _, w := range []string{"clrg", "sample.csv", "BIC", "EM trace", "missing cells", "hidden variables"} {
		if !strings.Contains(side, w) {
			t.Errorf("side bar lacks %q", w)
		}
	}

	shot := screenshot(t, p, "report.png")
	t.Logf("screenshot %s", shot)
	p.checkClean(t)
}

func isBelow(parent []int, v, h int) bool {
	for u := parent[v]; u >= 0; u = parent[u] {
		if u == h {
			return true
		}
	}
	return false
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x2028 || r == 0x2029 || r == '<':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// screenshot writes a PNG of the page to the test's directory and fails
// the test when it is blank: fewer than 2% of its pixels differ from the
// background.
func screenshot(t *testing.T, p *page, name string) string {
	t.Helper()
	buf, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if frac := inked(img); frac < 0.02 {
		t.Errorf("screenshot is blank: %.2f%% of pixels drawn", 100*frac)
	} else {
		t.Logf("screenshot: %.1f%% of pixels drawn", 100*frac)
	}
	return path
}

// inked returns the share of pixels that differ clearly from the most
// common colour.
func inked(img image.Image) float64 {
	b := img.Bounds()
	count := map[[3]uint32]int{}
	px := func(x, y int) [3]uint32 {
		r, g, bb, _ := img.At(x, y).RGBA()
		return [3]uint32{r >> 8, g >> 8, bb >> 8}
	}
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			count[px(x, y)]++
		}
	}
	var bg [3]uint32
	best := 0
	for c, n := range count {
		if n > best {
			bg, best = c, n
		}
	}
	far, all := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			c := px(x, y)
			d := absDiff(c[0], bg[0]) + absDiff(c[1], bg[1]) + absDiff(c[2], bg[2])
			if d > 60 {
				far++
			}
			all++
		}
	}
	return float64(far) / float64(all)
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// TestBrowserLarge opens the report of a 2,000-node model: the page must
// be ready within a few seconds (the time is logged; the bound is loose),
// hold 2,000 node elements, and find a deep variable by search.
func TestBrowserLarge(t *testing.T) {
	p := openBrowser(t)
	m := testModel(t, 1001, 12, false)
	in := fullInput(t, m, 1000)
	// Start the browser before timing.
	p.do(t, "start", chromedp.Navigate("about:blank"))
	ready := p.load(t, in)
	inPage := eval[float64](t, p, `performance.now()`)
	t.Logf("2,000-node report: ready %v after navigation (page clock %.0f ms)", ready, inPage)
	if ready > 10*time.Second {
		t.Errorf("2,000-node report took %v to be ready", ready)
	}
	if n := eval[int](t, p, `document.querySelectorAll('g.node').length`); n != 2000 {
		t.Errorf("%d node elements, want 2000", n)
	}
	vis := eval[int](t, p, visibleJS)
	t.Logf("%d nodes visible at first (large trees open collapsed)", vis)
	if vis < 10 || vis > 2000 {
		t.Errorf("%d visible", vis)
	}
	// The deepest observed variable.
	r := m.Tree.Root(m.Root)
	deep, dmax := -1, -1
	for _, v := range m.Tree.Observed() {
		d := 0
		for u := r.Parent[v]; u >= 0; u = r.Parent[u] {
			d++
		}
		if d > dmax {
			deep, dmax = v, d
		}
	}
	start := time.Now()
	name := m.Tree.Name(deep)
	p.do(t, "search", chromedp.SendKeys(chromedp.CSS(`#search`), name+"\r"),
		chromedp.WaitReady(chromedp.CSS(fmt.Sprintf(`g.node.current[data-name=%q]`, name))))
	t.Logf("search of %s (depth %d) shown in %v", name, dmax, time.Since(start))
	if eval[string](t, p, `getComputedStyle(document.querySelector('g.node.current')).display`) == "none" {
		t.Error("the variable found is hidden")
	}
	start = time.Now()
	p.do(t, "expand all", chromedp.Click(chromedp.CSS(`#expand`)))
	if n := eval[int](t, p, visibleJS); n != 2000 {
		t.Errorf("after expand all: %d visible", n)
	}
	t.Logf("expand all: %v", time.Since(start))
	start = time.Now()
	for i := 0; i < 10; i++ {
		p.do(t, "zoom", chromedp.Evaluate[chromedp.Void](`document.getElementById('tree').dispatchEvent(new WheelEvent('wheel', {deltaY: 100, clientX: 400, clientY: 300, bubbles: true, cancelable: true}))`))
	}
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now()))))`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	t.Logf("10 zoom steps on 2,000 nodes: %v", time.Since(start))
	screenshot(t, p, "large.png")
	p.checkClean(t)
}

// TestBrowserNewsgroups opens the report of a model of the 20 Newsgroups
// data (CLNJ with the paper's threshold contraction, as explain's
// acceptance test): the page is at most 1 MB, its religion, sports and
// computing hidden variables carry their topic labels in the tree, and the
// time until it is interactive is logged (measured, not asserted).
func TestBrowserNewsgroups(t *testing.T) {
	in := newsgroupsModel(t)
	ex := in.Explanation
	p := openBrowser(t)
	nodes := in.Model.Structure().NumNodes()
	size := len(render(t, in))
	t.Logf("newsgroups report: %d nodes, %d bytes", nodes, size)
	if size > 1<<20 {
		t.Errorf("report of %d bytes, want at most 1 MB", size)
	}
	p.do(t, "start", chromedp.Navigate("about:blank"))
	ready := p.load(t, in)
	t.Logf("newsgroups report interactive %v after navigation", ready)
	if n := eval[int](t, p, `document.querySelectorAll('g.node').length`); n != nodes {
		t.Errorf("%d node elements, want %d", n, nodes)
	}
	topics := [][]string{
		{"god", "jesus", "bible", "christian", "religion"},
		{"baseball", "hockey", "games", "team", "season", "players", "nhl", "league"},
		{"windows", "dos", "files", "program", "software", "graphics", "computer", "drive", "card", "disk"},
	}
	for _, words := range topics {
		found := ""
		for _, h := range ex.Hidden {
			n := 0
			for _, r := range h.Related {
				if slices.Contains(words, r.Name) {
					n++
				}
			}
			if n >= 3 {
				found = h.Name
				text := eval[string](t, p, fmt.Sprintf(`document.querySelector('g.node[data-name=%q]').textContent`, h.Name))
				if !strings.Contains(text, h.Label) {
					t.Errorf("node %s shows %q, want its label %q", h.Name, text, h.Label)
				}
				break
			}
		}
		if found == "" {
			t.Errorf("no hidden variable has three of %v among its top five", words)
		}
	}
	p.checkClean(t)
}
