// latentree report: draws the model of the JSON block #model-data as an
// interactive tree. Plain JavaScript, no libraries, no network.
(function () {
  'use strict';
  var NS = 'http://www.w3.org/2000/svg';
  var R = 5;                    // node marks: circles of radius R, squares of side 2R−2 (as package draw)
  var LX = R + 4;               // a label starts this far right of its node
  var FONT = 11;                // label size (report.css)
  var DY = 18;                  // least vertical step between leaf rows
  var GAP = 8, BUS = 14;        // a label's end, GAP, the bus to the children, BUS, the children
  var MARGIN = 16;              // around the tree in the first view and Fit
  var KMIN = 0.8, KMAX = 1.25;  // the first view's least scale (else it collapses levels) and largest

  var D = JSON.parse(document.getElementById('model-data').textContent);
  var N = D.names.length, names = D.names, parent = D.parent, kind = D.kind;
  var kids = [], depth = new Int32Array(N), i, v, acc;
  for (i = 0; i < N; i++) kids.push([]);
  for (i = 0; i < N; i++) {
    if (parent[i] >= 0) { kids[parent[i]].push(i); depth[i] = depth[parent[i]] + 1; }
  }
  var roots = [];
  for (i = 0; i < N; i++) if (parent[i] < 0) roots.push(i);
  function isHidden(i) { return D.hidden.charAt(i) !== '0'; }
  function isCont(i) { return !!D.kinds && D.kinds.charAt(i) === 'c'; }
  function expl(i) { return D.expl ? D.expl[i] : null; }
  function label(i) { var e = expl(i); return e && e.l ? e.l : ''; }

  // Marginals of a discrete model (of the discrete nodes of a mixed one,
  // whose parents are discrete), parents before children.
  var marg = null;
  if (kind === 'discrete' || kind === 'mixed') {
    marg = new Array(N);
    for (i = 0; i < N; i++) {
      var c = D.cpt[i];
      if (!c) continue;
      if (parent[i] < 0) { marg[i] = c[0].slice(); continue; }
      var pm = marg[parent[i]], k = c[0].length, m = [];
      for (var b = 0; b < k; b++) {
        var s = 0;
        for (var a = 0; a < pm.length; a++) s += pm[a] * c[a][b];
        m.push(s);
      }
      marg[i] = m;
    }
  }
  function stateLabels(i) {
    if (D.labels && D.labels[i]) return D.labels[i];
    var out = [], k = D.cpt ? D.cpt[i][0].length : 0;
    for (var s = 0; s < k; s++) out.push(String(s));
    return out;
  }
  function fmt(x, d) {
    if (x === null || x === undefined) return '–';
    if (x !== 0 && Math.abs(x) < 1e-3) return x.toExponential(1);
    return Number(x.toFixed(d === undefined ? 3 : d)).toString();
  }

  // ---- elements ----
  // Nodes are marked as package draw marks them: an observed variable is a
  // filled circle of radius R, a hidden one a hollow square of side 2R−2
  // (filled when its subtree is collapsed). A node's name and label are set
  // right of it (see the label modes below).
  var svg = document.getElementById('tree');
  var viewport = document.getElementById('viewport');
  var gNodes = document.getElementById('nodes'), gEdges = document.getElementById('edges');
  var els = new Array(N), texts = new Array(N), full = new Array(N), cnt = new Array(N);
  function el(tag, attrs, parentEl) {
    var e = document.createElementNS(NS, tag);
    for (var a in attrs) e.setAttribute(a, attrs[a]);
    if (parentEl) parentEl.appendChild(e);
    return e;
  }
  var frag = document.createDocumentFragment();
  for (i = 0; i < N; i++) {
    var hid = isHidden(i), net = D.hidden.charAt(i) === '2';
    var cont = isCont(i);
    var g = el('g', { 'class': 'node ' + (net ? 'net' : hid ? 'hid' : 'obs') + (cont ? ' cont' : ''), 'data-name': names[i], 'data-i': i });
    el('circle', { 'class': 'halo', r: R + 4 }, g);
    if (net) el('path', { 'class': 'shape', d: 'M0,-7L7,0L0,7L-7,0Z' }, g);
    else if (hid) el('rect', { 'class': 'shape' + (kids[i].length ? ' toggle' : ''), x: 1 - R, y: 1 - R, width: 2 * R - 2, height: 2 * R - 2 }, g);
    else el('circle', { 'class': 'shape', r: R }, g);
    // A continuous node of a mixed model: a second outline, as package draw.
    if (cont && hid) el('rect', { 'class': 'ring', x: -R - 2.5, y: -R - 2.5, width: 2 * R + 5, height: 2 * R + 5 }, g);
    else if (cont) el('circle', { 'class': 'ring', r: R + 2.5 }, g);
    var lb = label(i);
    full[i] = names[i] + (lb ? ' ' + lb : '');
    texts[i] = el('text', { x: LX, y: 4 }, g);
    texts[i].textContent = full[i]; // one line, to be measured
    var title = el('title', {}, g);
    title.textContent = names[i] + (lb ? ' — ' + lb : '');
    els[i] = g;
    frag.appendChild(g);
  }
  gNodes.appendChild(frag);
  var paths = {};
  ['wu', 'w0', 'w1', 'w2', 'w3'].forEach(function (w) { paths[w] = el('path', { 'class': w }, gEdges); });

  // ---- labels ----
  // A label is the node's name and, after it, the label of its explanation,
  // measured in the page. It is set in one of the label modes: one line
  // at most 240 pixels wide; or, for trees too wide for the window, more
  // and narrower lines (a hidden variable's name over its label, long text
  // broken after an underscore, space or dot). Text beyond is cut with an
  // ellipsis; the node's tooltip and panel have it all.
  var LH = 13; // between the baselines of two lines
  var MODES = [{ w: 240, lines: 1 }, { w: 170, lines: 2 }, { w: 110, lines: 4 }];
  var below = new Int32Array(N);
  for (i = N - 1; i >= 0; i--) if (parent[i] >= 0) below[parent[i]] += below[i] + 1;
  var scratch = el('text', { 'class': 'measure', x: 0, y: -1000, visibility: 'hidden', 'aria-hidden': 'true' }, svg);
  var scratchCnt = el('tspan', { 'class': 'cnt' }, scratch);
  var widthOf = {};
  function measure(s) { // width of s set as a count
    if (!(s in widthOf)) { scratchCnt.textContent = s; widthOf[s] = scratch.getComputedTextLength(); }
    return widthOf[s];
  }
  function estimate(n) { return 0.62 * FONT * n; } // when the page cannot measure (not displayed)
  var oneW = new Float64Array(N);
  for (i = 0; i < N; i++) oneW[i] = texts[i].getComputedTextLength() || estimate(full[i].length);
  var ellW = measure('…');
  // sub is the width of characters a to e of node v's text.
  function sub(v, a, e) {
    if (e <= a) return 0;
    if (a === 0 && e === full[v].length) return oneW[v];
    try { return texts[v].getSubStringLength(a, e - a); } catch (err) { return estimate(e - a); }
  }
  function unsplit(s, e) { // do not cut a surrogate pair
    var c = s.charCodeAt(e);
    return c >= 0xdc00 && c <= 0xdfff ? e - 1 : e;
  }
  // reach is the largest end in (a, e] whose characters from a, and extra
  // pixels, fit in w (a + 1 when none does: widths are measured, so a line
  // wider than w is laid out as wide as it is).
  function reach(v, a, e, w, extra) {
    var lo = a + 1, hi = e;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (sub(v, a, mid) + extra <= w) lo = mid; else hi = mid - 1;
    }
    lo = unsplit(full[v], lo);
    return lo > a ? lo : Math.min(e, a + 2); // a + 1 would split a pair
  }
  // wrap sets characters a to e of v's text in at most k lines of width w,
  // breaking after a space, underscore, hyphen, dot, slash or middle dot
  // when there is one in the last two thirds of the line; the last line is
  // cut with an ellipsis when the text does not fit. A line is [start,
  // end, cut].
  function wrap(v, a, e, w, k) {
    var s = full[v], out = [];
    while (a < e && out.length < k) {
      if (sub(v, a, e) <= w) { out.push([a, e, false]); break; }
      if (out.length === k - 1) { out.push([a, reach(v, a, e, w, ellW), true]); break; }
      var end = reach(v, a, e, w, 0);
      for (var j = end; j > a + (end - a) / 3; j--) {
        if ('_ -.·/'.indexOf(s.charAt(j - 1)) >= 0) { end = j; break; }
      }
      out.push([a, end, false]);
      a = end;
      while (s.charAt(a) === ' ') a++;
    }
    return out;
  }
  // lines returns the lines of v in mode m: a hidden variable's name, then
  // its label on lines of their own.
  function lines(v, m) {
    var n = full[v].length, nl = names[v].length, w = MODES[m].w, k = MODES[m].lines;
    if (k === 1 || oneW[v] <= w) return wrap(v, 0, n, w, 1);
    if (nl === n) return wrap(v, 0, n, w, k);
    var name = wrap(v, 0, nl, w, Math.max(1, Math.floor(k / 2)));
    return name.concat(wrap(v, nl + 1, n, w, k - name.length));
  }
  var lineSet = MODES.map(function () { return []; });
  var widths = MODES.map(function () { return new Float64Array(N); }), lastW = MODES.map(function () { return new Float64Array(N); });
  function prepare(m) { // the lines of every node in mode m, and their widths
    if (lineSet[m].length) return;
    for (var v = 0; v < N; v++) {
      var ls = lines(v, m), w = 0, lw = 0;
      for (var k = 0; k < ls.length; k++) {
        lw = sub(v, ls[k][0], ls[k][1]) + (ls[k][2] ? ellW : 0);
        w = Math.max(w, lw);
      }
      lineSet[m].push(ls);
      widths[m][v] = w;
      lastW[m][v] = lw;
    }
  }
  // The text's box about its node's centre (y), from a drawn label.
  var TY0 = -8, TY1 = 4;
  if (N) {
    var tb = texts[0].getBBox();
    if (tb.height > 0) { TY0 = tb.y; TY1 = tb.y + tb.height; }
  }
  var mode = -1, textW = widths[0], nLines = new Int32Array(N);
  // setMode lays the labels out in mode m; with write, it sets their text.
  function setMode(m, write) {
    prepare(m);
    mode = m; textW = widths[m];
    for (var v = 0; v < N; v++) nLines[v] = lineSet[m][v].length;
    if (write) for (v = 0; v < N; v++) writeText(v);
  }
  function writeText(v) {
    var t = texts[v], s = full[v], nl = names[v].length, ls = lineSet[mode][v];
    var copy = t.cloneNode(false);
    copy.setAttribute('y', 4 - (ls.length - 1) * LH / 2);
    ls.forEach(function (p, k) {
      var ln = el('tspan', { x: LX, dy: k ? LH : 0 }, copy);
      var a = p[0], e = p[1], ell = p[2] ? '…' : '';
      if (a < nl) ln.appendChild(document.createTextNode(s.slice(a, Math.min(e, nl)) + (e <= nl ? ell : '')));
      if (e > nl) el('tspan', { 'class': 'lbl' }, ln).textContent = s.slice(Math.max(a, nl), e) + ell;
      if (k === ls.length - 1 && kids[v].length) cnt[v] = el('tspan', { 'class': 'cnt' }, ln);
    });
    t.parentNode.replaceChild(copy, t);
    texts[v] = copy;
  }
  function countText(v) { return ' +' + below[v]; }
  function widthOfNode(v) {
    return collapsed[v] && kids[v].length ? Math.max(textW[v], lastW[mode][v] + measure(countText(v))) : textW[v];
  }
  function halfLines(v) { return (nLines[v] - 1) * LH / 2; }

  // ---- layout: depth across, one row per visible leaf ----
  // A node's label lies right of it, on its row; the edges to its children
  // leave from the label's end to a vertical bus GAP further, and the
  // children stand BUS right of the bus. Nodes neither above nor below each
  // other in the tree lie at least a row apart (the rows of two disjoint
  // subtrees do not mix) and a row is higher than a label, and a node's
  // label ends left of its bus, so no label meets another label, a node or
  // an edge.
  var collapsed = new Uint8Array(N), vis = new Uint8Array(N);
  var X = new Float64Array(N), Y = new Float64Array(N), first = new Int32Array(N), last = new Int32Array(N);
  var rows = 0, maxDepth = 0, bounds = { x0: 0, y0: 0, x1: 1, y1: 1 };
  function busX(p) { return X[p] + LX + textW[p] + GAP; }
  function place() {
    vis.fill(0);
    var slot = 0, order = [], q, u;
    maxDepth = 0;
    for (var r = 0; r < roots.length; r++) { // pre-order over visible nodes
      var stack = [roots[r]];
      while (stack.length) {
        var v = stack.pop();
        vis[v] = 1; order.push(v);
        if (!collapsed[v]) for (var j = kids[v].length - 1; j >= 0; j--) stack.push(kids[v][j]);
      }
    }
    var b = { x0: -R - 1, y0: 0, x1: R + 1, y1: 0 };
    // leaves get rows in that order, parents span their children's rows
    for (q = 0; q < order.length; q++) {
      u = order[q];
      if (depth[u] > maxDepth) maxDepth = depth[u];
      if (collapsed[u] || !kids[u].length) first[u] = last[u] = slot++;
      X[u] = parent[u] >= 0 ? busX(parent[u]) + BUS : 0;
      b.x1 = Math.max(b.x1, X[u] + LX + widthOfNode(u));
    }
    for (q = order.length - 1; q >= 0; q--) {
      u = order[q];
      if (!collapsed[u] && kids[u].length) { first[u] = first[kids[u][0]]; last[u] = last[kids[u][kids[u].length - 1]]; }
    }
    // A row is DY below the one before, or further when the labels of the
    // nodes whose rows end there or start below have two lines.
    var endH = new Float64Array(slot), startH = new Float64Array(slot), at = new Float64Array(slot);
    for (q = 0; q < order.length; q++) {
      u = order[q];
      endH[last[u]] = Math.max(endH[last[u]], halfLines(u));
      startH[first[u]] = Math.max(startH[first[u]], halfLines(u));
    }
    for (var k = 1; k < slot; k++) at[k] = at[k - 1] + Math.max(DY, TY1 - TY0 + endH[k - 1] + startH[k] + 5);
    for (q = order.length - 1; q >= 0; q--) { // a parent midway between its first and last child
      u = order[q];
      Y[u] = collapsed[u] || !kids[u].length ? at[first[u]] : (Y[kids[u][0]] + Y[kids[u][kids[u].length - 1]]) / 2;
    }
    b.y0 = Infinity; b.y1 = -Infinity;
    for (q = 0; q < order.length; q++) {
      u = order[q];
      b.y0 = Math.min(b.y0, Y[u] + Math.min(TY0 - halfLines(u), -R - 1));
      b.y1 = Math.max(b.y1, Y[u] + Math.max(TY1 + halfLines(u), R + 1));
    }
    bounds = b;
    rows = slot;
  }
  function render() {
    var d = { wu: [], w0: [], w1: [], w2: [], w3: [] };
    for (var v = 0; v < N; v++) {
      var g = els[v];
      if (!vis[v]) { if (g.style.display !== 'none') g.style.display = 'none'; continue; }
      if (g.style.display === 'none') g.style.display = '';
      g.setAttribute('transform', 'translate(' + X[v] + ',' + Y[v] + ')');
      var isC = collapsed[v] === 1;
      g.classList.toggle('collapsed', isC);
      if (cnt[v]) cnt[v].textContent = isC ? countText(v) : '';
      var p = parent[v];
      if (p >= 0) {
        var s = D.strength ? D.strength[v] : null, w = 'wu';
        if (s !== null && s !== undefined) w = 'w' + Math.min(3, Math.floor(s * 4));
        d[w].push('M' + (X[p] + LX + textW[p] + 3) + ',' + Y[p] + 'H' + busX(p) + 'V' + Y[v] + 'H' + (X[v] - R - 1));
      }
    }
    for (var w in d) paths[w].setAttribute('d', d[w].join(''));
  }
  function layout() { place(); render(); }

  // ---- view: zoom and pan ----
  var view = { x: MARGIN, y: MARGIN, k: 1 };
  var pending = false, fitted = false;
  function paint() {
    viewport.setAttribute('transform', 'translate(' + view.x + ',' + view.y + ') scale(' + view.k + ')');
    svg.classList.toggle('far', view.k < 0.45);
  }
  function apply() {
    fitted = false;
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; paint(); });
  }
  function box() { var r = svg.getBoundingClientRect(); return { w: r.width || 800, h: r.height || 600, left: r.left, top: r.top }; }
  // fitScale is the scale at which the laid-out tree fills the window but
  // for a margin (at most KMAX).
  function fitScale() {
    var s = box();
    return Math.min((s.w - 2 * MARGIN) / (bounds.x1 - bounds.x0), (s.h - 2 * MARGIN) / (bounds.y1 - bounds.y0), KMAX);
  }
  // fit shows the whole visible tree: at the top of the window, centred
  // across.
  function fit() {
    var s = box();
    view.k = Math.max(fitScale(), 0.02);
    view.x = (s.w - (bounds.x1 - bounds.x0) * view.k) / 2 - bounds.x0 * view.k;
    view.y = MARGIN - bounds.y0 * view.k;
    paint();
    fitted = true;
  }
  // The first view: the whole tree when it fits the window at a readable
  // scale (KMIN); else the tree from the root down, a level at a time, as
  // far as it fits: a level that does not fit whole is expanded node by
  // node, smaller subtrees first, where they fit, the rest staying
  // collapsed. Every label mode is tried: the one that shows more nodes
  // wins, and on a tie a later mode (more lines) must make the scale 15%
  // larger.
  function opening(m) {
    setMode(m, false);
    collapsed.fill(0);
    place();
    if (fitScale() < KMIN) {
      collapseFrom(1);
      place();
      for (var lev = 1; lev <= maxDepth; lev++) {
        var level = [];
        for (var v = 0; v < N; v++) if (vis[v] && collapsed[v] && depth[v] === lev) level.push(v);
        if (!level.length) continue;
        level.forEach(function (u) { collapsed[u] = 0; });
        place();
        if (fitScale() >= KMIN) continue;
        level.forEach(function (u) { collapsed[u] = 1; });
        level.sort(function (a, c) { return below[a] - below[c] || Y[a] - Y[c]; });
        level.forEach(function (u) {
          collapsed[u] = 0;
          place();
          if (fitScale() < KMIN) collapsed[u] = 1;
        });
        place();
      }
    }
    var shown = 0;
    for (v = 0; v < N; v++) shown += vis[v];
    return { m: m, collapsed: collapsed.slice(), k: fitScale(), shown: shown };
  }
  function firstView() {
    var best = null;
    for (var m = 0; m < MODES.length; m++) {
      var o = opening(m);
      if (!best || o.shown > best.shown || (o.shown === best.shown && o.k > 1.15 * best.k)) best = o;
    }
    collapsed.set(best.collapsed);
    setMode(best.m, true);
    layout();
    fit();
  }
  window.addEventListener('resize', function () { if (fitted) fit(); });
  function centre(v) {
    var b = box();
    if (view.k < 0.8) view.k = 1;
    view.x = b.w / 2 - X[v] * view.k;
    view.y = b.h / 2 - Y[v] * view.k;
    apply();
  }
  svg.addEventListener('wheel', function (e) {
    e.preventDefault();
    var b = box(), mx = e.clientX - b.left, my = e.clientY - b.top;
    var k2 = Math.min(8, Math.max(0.02, view.k * Math.exp(-e.deltaY * 0.0015)));
    view.x = mx - (mx - view.x) * k2 / view.k;
    view.y = my - (my - view.y) * k2 / view.k;
    view.k = k2;
    apply();
  }, { passive: false });
  var drag = null, dragged = false;
  svg.addEventListener('pointerdown', function (e) {
    if (e.button !== 0) return;
    drag = { x: e.clientX, y: e.clientY, vx: view.x, vy: view.y };
    dragged = false;
  });
  window.addEventListener('pointermove', function (e) {
    if (!drag) return;
    var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!dragged && Math.abs(dx) + Math.abs(dy) < 4) return;
    dragged = true;
    svg.classList.add('dragging');
    view.x = drag.vx + dx; view.y = drag.vy + dy;
    apply();
  });
  window.addEventListener('pointerup', function () { drag = null; svg.classList.remove('dragging'); });

  // ---- collapse ----
  function toggle(v) {
    if (!kids[v].length) return;
    var x0 = X[v], y0 = Y[v];
    collapsed[v] ^= 1;
    layout();
    view.x += (x0 - X[v]) * view.k; // keep the node where it was
    view.y += (y0 - Y[v]) * view.k;
    apply();
  }
  function reveal(v) { // expand the ancestors of v
    var changed = false;
    for (var p = parent[v]; p >= 0; p = parent[p]) if (collapsed[p]) { collapsed[p] = 0; changed = true; }
    if (changed) layout();
  }
  function collapseFrom(level) {
    collapsed.fill(0);
    for (var v = 0; v < N; v++) if (depth[v] >= level && kids[v].length) collapsed[v] = 1;
  }
  function collapseBelow(level) { collapseFrom(level); layout(); }
  function nodeOf(target) {
    var g = target.closest ? target.closest('g.node') : null;
    return g ? +g.getAttribute('data-i') : -1;
  }
  gNodes.addEventListener('click', function (e) {
    if (dragged) { dragged = false; return; }
    var v = nodeOf(e.target);
    if (v < 0) return;
    if (e.target.classList.contains('toggle')) { toggle(v); return; }
    select(v, false);
  });
  gNodes.addEventListener('dblclick', function (e) {
    var v = nodeOf(e.target);
    if (v >= 0 && !e.target.classList.contains('toggle')) toggle(v);
  });

  // ---- search ----
  var search = document.getElementById('search'), count = document.getElementById('search-count');
  var matches = [], current = -1;
  function clearMatches() {
    for (var j = 0; j < matches.length; j++) els[matches[j]].classList.remove('match', 'current');
    matches = []; current = -1;
  }
  function runSearch() {
    clearMatches();
    searched = search.value;
    var q = search.value.trim().toLowerCase();
    if (!q) { count.textContent = ''; return; }
    var exact = [], named = [], labelled = [];
    for (var v = 0; v < N; v++) {
      var n = names[v].toLowerCase();
      if (n === q) exact.push(v);
      else if (n.indexOf(q) >= 0) named.push(v);
      else if (label(v).toLowerCase().indexOf(q) >= 0) labelled.push(v);
    }
    matches = exact.concat(named, labelled);
    for (var j = 0; j < matches.length; j++) els[matches[j]].classList.add('match');
    if (!matches.length) { count.textContent = 'no match'; return; }
    show(0);
  }
  function show(j) {
    if (current >= 0) els[matches[current]].classList.remove('current');
    current = j;
    var v = matches[j];
    els[v].classList.add('current');
    reveal(v);
    centre(v);
    count.textContent = (j + 1) + ' of ' + matches.length;
  }
  var timer = 0, searched = '';
  search.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(runSearch, 120); });
  search.addEventListener('keydown', function (e) {
    if (e.key === 'Enter') {
      e.preventDefault();
      clearTimeout(timer);
      if (matches.length && searched === search.value) show((current + (e.shiftKey ? matches.length - 1 : 1)) % matches.length);
      else runSearch();
    }
    if (e.key === 'Escape') { search.value = ''; runSearch(); }
  });

  // ---- panel ----
  var panel = document.getElementById('panel'), pname = document.getElementById('panel-name');
  var pbody = document.getElementById('panel-body');
  var selected = -1;
  function h(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function link(v) {
    var a = h('span', names[v], 'link');
    a.setAttribute('data-i', v);
    return a;
  }
  function kv(table, key, value) {
    var tr = h('tr'); tr.appendChild(h('th', key));
    var td = h('td'); if (typeof value === 'string') td.textContent = value; else td.appendChild(value);
    tr.appendChild(td); table.appendChild(tr);
  }
  function bar(p) { var b = h('span', null, 'bar'); b.style.width = Math.round(60 * Math.max(0, Math.min(1, p))) + 'px'; return b; }
  function grid(head, rowsData) {
    var t = h('table', null, 'grid'), tr = h('tr');
    head.forEach(function (x, j) { tr.appendChild(h('th', x, j === 0 ? 'l' : '')); });
    t.appendChild(tr);
    rowsData.forEach(function (r) {
      var tr2 = h('tr');
      r.forEach(function (x, j) {
        var td = h('td', null, j === 0 ? 'l' : '');
        if (x instanceof Node) td.appendChild(x); else td.textContent = x;
        tr2.appendChild(td);
      });
      t.appendChild(tr2);
    });
    return t;
  }
  function select(v, move) {
    if (selected >= 0) els[selected].classList.remove('selected');
    selected = v;
    els[v].classList.add('selected');
    if (move) { reveal(v); centre(v); }
    openPanel(v);
  }
  function openPanel(v) {
    panel.hidden = false;
    pname.textContent = names[v];
    pbody.textContent = '';
    var info = h('table', null, 'kv');
    var net = D.hidden.charAt(v) === '2';
    kv(info, 'kind', net ? 'network' : kind === 'noisy-or' ? (isHidden(v) ? 'source (hidden cause)' : 'effect (observed)') : (isHidden(v) ? 'hidden variable' : 'observed variable') +
      (kind === 'mixed' ? (isCont(v) ? ', continuous' : ', discrete') : ''));
    if (label(v)) kv(info, 'label', label(v));
    if (parent[v] >= 0 && !(kind === 'noisy-or' && parent[v] === 0)) kv(info, kind === 'noisy-or' ? 'strongest source' : 'parent', link(parent[v]));
    if (kids[v].length) kv(info, kind === 'noisy-or' && !net ? 'effects shown under it' : 'children', String(kids[v].length) + (kids[v].length ? ' (' + below[v] + ' below)' : ''));
    kv(info, 'depth', String(depth[v]));
    pbody.appendChild(info);
    if (kids[v].length) {
      var tb = h('button', collapsed[v] ? 'Expand subtree' : 'Collapse subtree');
      tb.type = 'button';
      tb.addEventListener('click', function () { toggle(v); openPanel(v); });
      pbody.appendChild(tb);
    }
    var e = expl(v);
    if (e) explanation(v, e);
    if (kind === 'discrete') discrete(v);
    if (kind === 'gaussian') gaussian(v);
    if (kind === 'noisy-or') noisy(v);
    if (kind === 'mixed') { if (isCont(v)) continuous(v); else discrete(v); }
  }
  function explanation(v, e) {
    if (e.s && e.s.length) {
      pbody.appendChild(h('h3', 'States'));
      pbody.appendChild(h('p', (D.from_data ? 'Share of the data rows in each state (mean posterior)' : 'Share of each state (model marginal)') +
        '; the observed variables whose probability rises most in it: P(variable = state | this state) (overall probability).', 'note'));
      var rowsData = e.s.map(function (s) {
        var share = h('span'); share.appendChild(bar(s.p)); share.appendChild(document.createTextNode(fmt(100 * s.p, 1) + '%'));
        var rise = h('span'), r = s.r || [];
        for (var j = 0; j + 3 < r.length; j += 4) {
          var line = h('span', null, 'rise');
          line.appendChild(link(r[j]));
          var st = D.state_names ? D.state_names[r[j + 3]] : '';
          line.appendChild(document.createTextNode((st !== undefined && st !== '1' ? '=' + st : '') + ' ' + fmt(r[j + 1], 2) + ' (' + fmt(r[j + 2], 2) + ')'));
          rise.appendChild(line);
        }
        var m = s.m || [];
        for (j = 0; j + 3 < m.length; j += 4) {
          var sl = h('span', null, 'rise');
          sl.appendChild(link(m[j]));
          sl.appendChild(document.createTextNode(' ' + (m[j + 1] >= 0 ? '+' : '') + fmt(m[j + 1], 2) + ' SD (' + fmt(m[j + 2], 3) + ' vs ' + fmt(m[j + 3], 3) + ')'));
          rise.appendChild(sl);
        }
        return [s.l, share, rise];
      });
      if (kind === 'mixed') pbody.appendChild(h('p', 'Continuous variables: the shift of their mean in the state, in standard deviations: +z SD (mean in the state vs overall mean).', 'note'));
      pbody.appendChild(grid(['state', D.from_data ? 'posterior share' : 'share', kind === 'mixed' ? 'rising / shifted' : 'rising'], rowsData));
    }
    if (e.r && e.r.length) {
      pbody.appendChild(h('h3', 'Related observed variables'));
      if (kind === 'mixed') pbody.appendChild(h('p', 'First canonical correlation: |ρ| between continuous variables (shown signed), the correlation ratio η between a discrete and a continuous one.', 'note'));
      var head = kind === 'gaussian' ? ['variable', 'correlation'] : kind === 'noisy-or' ? ['effect', 'failure'] : kind === 'mixed' ? ['variable', 'canonical correlation'] : ['variable', 'mutual information'];
      var rel = [];
      for (var j = 0; j + 1 < e.r.length; j += 2) rel.push([link(e.r[j]), fmt(e.r[j + 1])]);
      pbody.appendChild(grid(head, rel));
    }
  }
  function discrete(v) {
    var lab = stateLabels(v);
    pbody.appendChild(h('h3', 'Marginal'));
    pbody.appendChild(grid(['state', 'P'], marg[v].map(function (p, s) {
      var c = h('span'); c.appendChild(bar(p)); c.appendChild(document.createTextNode(fmt(p))); return [lab[s] || String(s), c];
    })));
    var cpt = D.cpt[v];
    if (parent[v] < 0) return;
    var pl = stateLabels(parent[v]);
    pbody.appendChild(h('h3', 'P(' + names[v] + ' | ' + names[parent[v]] + ')'));
    pbody.appendChild(grid([names[parent[v]] + ' \\ ' + names[v]].concat(lab), cpt.map(function (r, a) {
      return [pl[a] || String(a)].concat(r.map(function (x) { return fmt(x); }));
    })));
  }
  function gaussian(v) {
    var t = h('table', null, 'kv');
    kv(t, 'mean', fmt(D.mean[v])); kv(t, 'variance', fmt(D.var[v]));
    if (parent[v] >= 0) kv(t, 'correlation with ' + names[parent[v]], fmt(D.rho[v]));
    pbody.appendChild(h('h3', 'Parameters')); pbody.appendChild(t);
    if (kids[v].length) {
      pbody.appendChild(h('h3', 'Correlations with the children'));
      pbody.appendChild(grid(['child', 'ρ'], kids[v].map(function (c) { return [link(c), fmt(D.rho[c])]; })));
    }
  }
  // continuous shows a continuous node of a mixed model: its mean and
  // variance given each state of its discrete parent, or its intercept,
  // coefficient and residual variance under a continuous parent.
  function continuous(v) {
    var cm = D.cmean[v] || [], cv = D.cvar[v] || [], p = parent[v];
    pbody.appendChild(h('h3', 'Parameters'));
    if (p >= 0 && !isCont(p)) {
      var pl = stateLabels(p);
      pbody.appendChild(grid([names[p], 'mean', 'variance'], cm.map(function (x, a) { return [pl[a] || String(a), fmt(x), fmt(cv[a])]; })));
      return;
    }
    var t = h('table', null, 'kv');
    if (p >= 0) {
      kv(t, 'intercept', fmt(cm[0])); kv(t, 'coefficient on ' + names[p], fmt(D.coef[v])); kv(t, 'residual variance', fmt(cv[0]));
    } else {
      kv(t, 'mean', fmt(cm[0])); kv(t, 'variance', fmt(cv[0]));
    }
    pbody.appendChild(t);
  }
  function noisy(v) {
    var t = h('table', null, 'kv');
    if (D.prior && D.prior[v] !== null) kv(t, 'prior P(on)', fmt(D.prior[v]));
    if (D.leak && D.leak[v] !== null) kv(t, 'leak', fmt(D.leak[v]));
    pbody.appendChild(t);
    var rowsData = [];
    (D.edges || []).forEach(function (e) {
      if (e[0] === v) rowsData.push([link(e[1]), fmt(e[2])]);
      if (e[1] === v) rowsData.push([link(e[0]), fmt(e[2])]);
    });
    if (rowsData.length) {
      pbody.appendChild(h('h3', isHidden(v) ? 'Effects' : 'Sources'));
      pbody.appendChild(h('p', 'Failure probability: the chance the active source does not turn the effect on.', 'note'));
      pbody.appendChild(grid([isHidden(v) ? 'effect' : 'source', 'failure'], rowsData));
    }
  }
  pbody.addEventListener('click', function (e) {
    var t = e.target;
    if (t.classList && t.classList.contains('link')) select(+t.getAttribute('data-i'), true);
  });
  document.getElementById('panel-close').addEventListener('click', function () {
    panel.hidden = true;
    if (selected >= 0) els[selected].classList.remove('selected');
    selected = -1;
  });
  document.getElementById('fit').addEventListener('click', fit);
  document.getElementById('expand').addEventListener('click', function () { collapsed.fill(0); layout(); fit(); });
  document.getElementById('collapse').addEventListener('click', function () { collapseBelow(2); fit(); });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape' && document.activeElement !== search) document.getElementById('panel-close').click();
  });

  // ---- start ----
  firstView();
  window.latentreeReport = {
    nodes: N, toggle: toggle, select: select, layout: layout,
    visible: function () { var n = 0; for (var v = 0; v < N; v++) n += vis[v]; return n; }
  };
  document.body.setAttribute('data-ready', '1');
})();
