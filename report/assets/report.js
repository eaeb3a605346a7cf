// latentree report: draws the model of the JSON block #model-data as an
// interactive tree. Plain JavaScript, no libraries, no network.
(function () {
  'use strict';
  var NS = 'http://www.w3.org/2000/svg';
  var DX = 190, DY = 18;        // horizontal step per level, vertical step per leaf row
  var AUTO_LEAVES = 160;        // larger trees open collapsed to fit about this many rows

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
  function expl(i) { return D.expl ? D.expl[i] : null; }
  function label(i) { var e = expl(i); return e && e.l ? e.l : ''; }

  // Marginals of a discrete model, parents before children.
  var marg = null;
  if (kind === 'discrete') {
    marg = new Array(N);
    for (i = 0; i < N; i++) {
      var c = D.cpt[i];
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
  var svg = document.getElementById('tree');
  var viewport = document.getElementById('viewport');
  var gNodes = document.getElementById('nodes'), gEdges = document.getElementById('edges');
  var els = new Array(N), cnt = new Array(N);
  function el(tag, attrs, parentEl) {
    var e = document.createElementNS(NS, tag);
    for (var a in attrs) e.setAttribute(a, attrs[a]);
    if (parentEl) parentEl.appendChild(e);
    return e;
  }
  function short(s, n) { return s.length > n ? s.slice(0, n - 1) + '…' : s; }
  var frag = document.createDocumentFragment();
  for (i = 0; i < N; i++) {
    var hid = isHidden(i), net = D.hidden.charAt(i) === '2';
    var g = el('g', { 'class': 'node ' + (net ? 'net' : hid ? 'hid' : 'obs'), 'data-name': names[i], 'data-i': i });
    el('circle', { 'class': 'halo', r: 9 }, g);
    if (net) el('path', { 'class': 'shape', d: 'M0,-7L7,0L0,7L-7,0Z' }, g);
    else if (hid) el('circle', { 'class': 'shape' + (kids[i].length ? ' toggle' : ''), r: 5.5 }, g);
    else el('rect', { 'class': 'shape', x: -4, y: -4, width: 8, height: 8 }, g);
    var t;
    if (kids[i].length) { // label above the incoming edge, ending left of the node
      t = el('text', { x: -8, y: -5, 'text-anchor': 'end' }, g);
    } else {
      t = el('text', { x: 9, y: 4 }, g);
    }
    t.appendChild(document.createTextNode(names[i]));
    var lb = label(i);
    if (lb) {
      var ts = el('tspan', { 'class': 'lbl' }, t);
      ts.textContent = ' ' + short(lb, 40);
    }
    if (kids[i].length) {
      var tc = el('text', { x: 9, y: 4, 'class': 'cnt-text' }, g);
      cnt[i] = el('tspan', { 'class': 'cnt' }, tc);
    }
    var title = el('title', {}, g);
    title.textContent = names[i] + (lb ? ' — ' + lb : '');
    els[i] = g;
    frag.appendChild(g);
  }
  gNodes.appendChild(frag);
  var paths = {};
  ['wu', 'w0', 'w1', 'w2', 'w3'].forEach(function (w) { paths[w] = el('path', { 'class': w }, gEdges); });

  // ---- layout: depth across, one row per visible leaf ----
  var collapsed = new Uint8Array(N), vis = new Uint8Array(N);
  var X = new Float64Array(N), Y = new Float64Array(N);
  var rows = 0, maxDepth = 0;
  function size(i) { // descendants of i
    var n = 0, st = kids[i].slice();
    while (st.length) { var v = st.pop(); n++; for (var j = 0; j < kids[v].length; j++) st.push(kids[v][j]); }
    return n;
  }
  function layout() {
    vis.fill(0);
    var slot = 0;
    maxDepth = 0;
    // iterative post-order over visible nodes
    for (var r = 0; r < roots.length; r++) {
      var stack = [roots[r]], post = [];
      while (stack.length) {
        var v = stack.pop();
        vis[v] = 1; post.push(v);
        if (!collapsed[v]) for (var j = kids[v].length - 1; j >= 0; j--) stack.push(kids[v][j]);
      }
      // post holds a pre-order; leaves get rows in that order, parents are centred afterwards
      for (var q = 0; q < post.length; q++) {
        var u = post[q];
        X[u] = depth[u] * DX;
        if (depth[u] > maxDepth) maxDepth = depth[u];
        if (collapsed[u] || !kids[u].length) Y[u] = (slot++) * DY;
      }
      for (q = post.length - 1; q >= 0; q--) {
        u = post[q];
        if (!collapsed[u] && kids[u].length) {
          var ks = kids[u];
          Y[u] = (Y[ks[0]] + Y[ks[ks.length - 1]]) / 2;
        }
      }
    }
    rows = slot;
    render();
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
      if (cnt[v]) cnt[v].textContent = isC ? '+' + size(v) : '';
      var p = parent[v];
      if (p >= 0) {
        var s = D.strength ? D.strength[v] : null, w = 'wu';
        if (s !== null && s !== undefined) w = 'w' + Math.min(3, Math.floor(s * 4));
        d[w].push('M' + (X[p] + 6) + ',' + Y[p] + 'H' + (X[p] + 16) + 'V' + Y[v] + 'H' + (X[v] - 6));
      }
    }
    for (var w in d) paths[w].setAttribute('d', d[w].join(''));
  }

  // ---- view: zoom and pan ----
  var view = { x: 40, y: 20, k: 1 };
  var pending = false;
  function apply() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      viewport.setAttribute('transform', 'translate(' + view.x + ',' + view.y + ') scale(' + view.k + ')');
      svg.classList.toggle('far', view.k < 0.45);
    });
  }
  function box() { var r = svg.getBoundingClientRect(); return { w: r.width || 800, h: r.height || 600, left: r.left, top: r.top }; }
  function fit() {
    var b = box();
    var w = maxDepth * DX + 260, h = Math.max(rows - 1, 0) * DY + 40;
    var k = Math.min(b.w / w, b.h / h, 1.6);
    view.k = Math.max(k, 0.02);
    view.x = 30 * view.k + (b.w - w * view.k) / 2 + 90 * view.k;
    view.y = (b.h - (h - 40) * view.k) / 2;
    apply();
  }
  // The first view: the whole tree when it is readable so, else the top
  // of it at a readable scale (pan, zoom or Fit for the rest).
  function firstView() {
    fit();
    if (view.k >= 0.6) return;
    var b = box(), w = maxDepth * DX + 260;
    view.k = Math.min(0.75, Math.max(0.6, b.w / w));
    view.x = 220 * view.k;
    view.y = roots.length ? b.h / 2 - Y[roots[0]] * view.k : 30;
    apply();
  }
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
    var y0 = Y[v];
    collapsed[v] ^= 1;
    layout();
    view.y += (y0 - Y[v]) * view.k; // keep the node where it was
    apply();
  }
  function reveal(v) { // expand the ancestors of v
    var changed = false;
    for (var p = parent[v]; p >= 0; p = parent[p]) if (collapsed[p]) { collapsed[p] = 0; changed = true; }
    if (changed) layout();
  }
  function collapseBelow(level) {
    collapsed.fill(0);
    for (var v = 0; v < N; v++) if (depth[v] >= level && kids[v].length) collapsed[v] = 1;
    layout();
  }
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
    kv(info, 'kind', net ? 'network' : kind === 'noisy-or' ? (isHidden(v) ? 'source (hidden cause)' : 'effect (observed)') : (isHidden(v) ? 'hidden variable' : 'observed variable'));
    if (label(v)) kv(info, 'label', label(v));
    if (parent[v] >= 0 && !(kind === 'noisy-or' && parent[v] === 0)) kv(info, kind === 'noisy-or' ? 'strongest source' : 'parent', link(parent[v]));
    if (kids[v].length) kv(info, kind === 'noisy-or' && !net ? 'effects shown under it' : 'children', String(kids[v].length) + (kids[v].length ? ' (' + size(v) + ' below)' : ''));
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
        return [s.l, share, rise];
      });
      pbody.appendChild(grid(['state', D.from_data ? 'posterior share' : 'share', 'rising'], rowsData));
    }
    if (e.r && e.r.length) {
      pbody.appendChild(h('h3', 'Related observed variables'));
      var head = kind === 'gaussian' ? ['variable', 'correlation'] : kind === 'noisy-or' ? ['effect', 'failure'] : ['variable', 'mutual information'];
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
  layout();
  if (rows > AUTO_LEAVES) { // open a large tree collapsed to a readable depth
    var leafAt = [], atDepth = [], lev;
    for (lev = 0; lev <= maxDepth; lev++) { leafAt.push(0); atDepth.push(0); }
    for (v = 0; v < N; v++) { atDepth[depth[v]]++; if (!kids[v].length) leafAt[depth[v]]++; }
    var best = 1;
    for (lev = 1, acc = leafAt[0]; lev <= maxDepth; acc += leafAt[lev], lev++) {
      if (acc + atDepth[lev] <= AUTO_LEAVES) best = lev;
    }
    collapseBelow(best);
  }
  firstView();
  window.latentreeReport = {
    nodes: N, toggle: toggle, select: select, layout: layout,
    visible: function () { var n = 0; for (var v = 0; v < N; v++) n += vis[v]; return n; }
  };
  document.body.setAttribute('data-ready', '1');
})();
