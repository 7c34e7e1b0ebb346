// The timeline page's script: it decodes the data the page carries
// (timeline-data), draws the plot for the visible time range and redraws
// it on zoom and pan (wheel, drag, the toolbar's buttons, keys), and
// zooms to a violation's or a fault's time when it is chosen in the list.
(function () {
  'use strict';
  const D = JSON.parse(document.getElementById('timeline-data').textContent);
  const plot = document.getElementById('plot');
  const svg = document.getElementById('plot-svg');
  const LABEL_W = 100, AXIS_H = 18, GAP = 3, RIGHT_PAD = 6;
  const ROW_H_MIN = 4, ROW_H_MAX = 16, CLIENT_ROWS_MIN = 3;
  const OPS_DRAW_MAX = 3000; // more exact operations in view than this: draw the bins
  const SPAN_MIN_NS = 10000; // the deepest zoom: 10 µs across the plot
  const ZOOM_STEP = 1.5, PAN_STEP = 0.2;

  // ---- decoding (the encoding is described in encode.go) ----
  const DIG = new Int16Array(128).fill(-1);
  for (let i = 0; i < D.digits.length; i++) DIG[D.digits.charCodeAt(i)] = i;
  function reader(s) {
    let i = 0;
    const r = {
      more: () => i < s.length,
      u: function () {
        let v = 0, mul = 1;
        for (;;) {
          const d = DIG[s.charCodeAt(i++)];
          if (d === undefined || d < 0) throw new Error('timeline: bad encoded digit at ' + (i - 1));
          if (d < 32) return v + d * mul;
          v += (d - 32) * mul;
          mul *= 32;
        }
      },
      s: function () { const z = r.u(); return z % 2 ? -(z + 1) / 2 : z / 2; },
    };
    return r;
  }
  D.clients.forEach(function (c) {
    const n = c.n, r = reader(c.ops);
    c.id = new Float64Array(n); c.from = new Float64Array(n); c.to = new Float64Array(n);
    c.kind = new Uint8Array(n); c.out = new Uint8Array(n); c.row = new Uint8Array(n);
    c.scope = new Uint16Array(n); c.off = new Float64Array(n);
    let id = 0, us = 0;
    for (let k = 0; k < n; k++) {
      id += r.s(); us += r.s();
      const dur = r.u(), code = r.u();
      c.id[k] = id; c.from[k] = us * 1000; c.to[k] = (us + dur) * 1000;
      c.kind[k] = Math.floor(code / 64); c.out[k] = Math.floor(code / 8) % 8; c.row[k] = code % 8;
      c.scope[k] = r.u(); c.off[k] = r.u();
    }
    if (r.more()) throw new Error('timeline: ' + c.name + ' carries more than its ' + n + ' operations');
    c.binCounts = c.bins.map(function (s) {
      const a = new Uint32Array(D.bins), br = reader(s);
      let i = 0;
      while (br.more()) { i += br.u(); a[i] = br.u(); i++; }
      return a;
    });
    c.rows = Math.max(c.rows, CLIENT_ROWS_MIN);
  });
  const exactBin = new Uint8Array(D.bins);
  D.exact.forEach(function (r) { for (let b = r[0]; b < r[1]; b++) exactBin[b] = 1; });
  const badById = new Map();
  D.bad.forEach(function (b) { badById.set(b.op, b); });

  // ---- the view: the visible time range, in ns ----
  const view = { from: 0, to: D.endNs };
  let selectedOps = new Set(), selectedFault = 0;
  function setView(from, to) {
    let span = Math.min(Math.max(to - from, SPAN_MIN_NS), D.endNs);
    from = Math.min(Math.max(from, 0), D.endNs - span);
    view.from = from; view.to = from + span;
    render();
  }
  function zoom(factor, atNs) {
    const span = view.to - view.from;
    if (atNs === undefined) atNs = view.from + span / 2;
    const next = Math.min(Math.max(span * factor, SPAN_MIN_NS), D.endNs);
    setView(atNs - (atNs - view.from) * next / span, atNs - (atNs - view.from) * next / span + next);
  }
  function pan(fraction) {
    const span = view.to - view.from;
    setView(view.from + span * fraction, view.to + span * fraction);
  }
  function reset() { setView(0, D.endNs); }
  // zoomTo shows fromNs..toNs with a quarter of it (at least 0.1 s) on
  // either side, for context.
  function zoomTo(fromNs, toNs) {
    const pad = Math.max((toNs - fromNs) / 4, 1e8);
    setView(fromNs - pad, toNs + pad);
  }

  // ---- formatting ----
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
  }
  function secs(ns) { return (ns / 1e9).toFixed(3) + ' s'; }

  // ---- labels: every text of the plot is placed here, in priority order
  // (the axis and the rows' names, then the violating operations, the
  // faults, the other bars, the operations), so that no two overlap: a
  // label is cut short of the next one already placed on its line, with
  // "…" (its whole text stays in its mark's tooltip), or left out when
  // too little room is left. Widths are measured with the page's font.
  const PRIO = { axis: 0, lane: 0, bad: 1, mark: 2, fault: 3, instant: 4, bar: 5, op: 6 };
  const ctx2d = document.createElement('canvas').getContext('2d');
  const FONT = getComputedStyle(document.body).fontFamily;
  function textW(text, size, bold) {
    ctx2d.font = (bold ? 'bold ' : '') + size + 'px ' + FONT;
    return ctx2d.measureText(text).width;
  }
  let labels = [], obstacles = [];
  // obstacle keeps labels off a shape that must stay readable (a
  // violating operation), the box in plot pixels.
  function obstacle(x1, y1, x2, y2) { obstacles.push({ l: x1, r: x2, t: y1, b: y2 }); }
  // label asks for text at (x, baseline y), at most maxW px wide, drawn
  // with class cls (and attrs) inside a group of class group.
  function label(prio, group, cls, x, y, text, maxW, size, bold, attrs) {
    if (maxW < 8) return; // not even a letter and "…"
    labels.push({ p: PRIO[prio], g: group, c: cls, x: x, y: y, t: text, w: maxW, s: size, b: bold, a: attrs || '' });
  }
  function placeLabels(out) {
    labels.sort(function (a, b) { return a.p - b.p; });
    const placed = obstacles;
    labels.forEach(function (l) {
      const top = l.y - l.s, bottom = l.y + l.s * 0.3;
      let room = l.w;
      for (const q of placed) {
        if (q.b <= top || q.t >= bottom) continue; // another line
        if (q.r <= l.x) continue; // wholly to the left
        if (q.l <= l.x) return; // covers the label's start: no room at all
        room = Math.min(room, q.l - l.x - 2);
      }
      const text = elide(l.t, room, l.s, l.b);
      if (!text) return;
      const w = textW(text, l.s, l.b);
      placed.push({ l: l.x, r: l.x + w, t: top, b: bottom });
      out.push('<g class="label ' + l.g + '"><text' + (l.c ? ' class="' + l.c + '"' : '') + l.a + ' x="' + l.x.toFixed(1) + '" y="' + l.y.toFixed(1) + '">' +
        esc(text) + '</text></g>');
    });
    labels = [];
    obstacles = [];
  }
  // elide is text cut to px wide, ending with "…" when cut ('' when not
  // even a letter and the ellipsis fit).
  function elide(text, px, size, bold) {
    if (textW(text, size, bold) <= px) return text;
    let lo = 0, hi = text.length;
    while (lo < hi) { // the longest prefix that fits with the ellipsis
      const mid = Math.ceil((lo + hi) / 2);
      if (textW(text.slice(0, mid) + '…', size, bold) <= px) lo = mid; else hi = mid - 1;
    }
    return lo < 2 ? '' : text.slice(0, lo) + '…';
  }

  // ---- layout: the lanes' heights fit the plot's box ----
  function layout() {
    const W = plot.clientWidth, H = plot.clientHeight;
    const lanes = D.lanes.map(function (l, i) { return { kind: 'process', i: i, name: l.name, rows: l.rows }; })
      .concat(D.clients.map(function (c, i) { return { kind: 'client', i: i, name: c.name, rows: c.rows }; }));
    let rows = 0;
    lanes.forEach(function (l) { rows += l.rows; });
    const rowH = Math.max(ROW_H_MIN, Math.min(ROW_H_MAX, (H - AXIS_H - GAP * lanes.length - 2) / rows));
    let y = AXIS_H;
    lanes.forEach(function (l) { l.y = y; l.h = l.rows * rowH; y += l.h + GAP; });
    return { W: W, H: Math.max(H - 1, y), lanes: lanes, rowH: rowH };
  }

  // ---- drawing ----
  let L = null, X0 = LABEL_W, PW = 1;
  function X(t) { return X0 + (t - view.from) * PW / (view.to - view.from); }
  function cx(x) { return Math.max(X0 - 1, Math.min(X0 + PW + 1, x)); }
  function render() {
    L = layout();
    PW = Math.max(L.W - LABEL_W - RIGHT_PAD, 50);
    const out = [];
    L.lanes.forEach(function (l, n) {
      out.push('<rect class="lane-bg lane-bg' + (n % 2) + '" data-lane="' + esc(l.name) + '" x="0" y="' + l.y + '" width="' + L.W + '" height="' + l.h + '"/>');
    });
    axis(out);
    L.lanes.forEach(function (l) {
      label('lane', '', 'lane-name', 4, l.y + Math.min(12, l.h - 1), l.name, LABEL_W - 6, 11, true, ' data-name="' + esc(l.name) + '"');
    });
    let mode = 'bins', drawn = 0;
    L.lanes.forEach(function (l) { if (l.kind === 'process') processLane(out, l); });
    const exactInView = countExactInView();
    if (exactInView <= OPS_DRAW_MAX) mode = 'ops';
    L.lanes.forEach(function (l) { if (l.kind === 'client') drawn += clientLane(out, l, mode === 'ops'); });
    marks(out);
    placeLabels(out);
    svg.setAttribute('width', L.W);
    svg.setAttribute('height', L.H);
    svg.innerHTML = out.join('');
    plot.dataset.fromNs = Math.round(view.from);
    plot.dataset.toNs = Math.round(view.to);
    plot.dataset.mode = mode;
    plot.dataset.opsDrawn = drawn;
    document.getElementById('range').textContent = secs(view.from) + ' – ' + secs(view.to) + ' of ' + secs(D.endNs);
  }

  function axis(out) {
    const span = view.to - view.from;
    let step = 1000;
    const want = span * 90 / PW;
    for (let p = 1000; step < want; p *= 10) {
      for (const m of [1, 2, 5]) { step = m * p; if (step >= want) break; }
    }
    const dec = Math.max(0, Math.min(6, Math.ceil(-Math.log10(step / 1e9) - 1e-9)));
    out.push('<rect class="axis-bg" x="0" y="0" width="' + L.W + '" height="' + AXIS_H + '"/>');
    for (let t = Math.ceil(view.from / step) * step; t <= view.to; t += step) {
      const x = X(t).toFixed(1);
      out.push('<line class="tick" x1="' + x + '" y1="' + (AXIS_H - 4) + '" x2="' + x + '" y2="' + L.H + '"/>');
      label('axis', '', 'tick-label', +x + 2, 12, (t / 1e9).toFixed(dec) + ' s', 1e6, 10, false, ' data-t-ns="' + t + '"');
    }
  }

  function processLane(out, l) {
    const lane = D.lanes[l.i], rowH = L.rowH;
    const nextInstant = {}; // row -> x of the next instant to the right, for label room
    for (let k = lane.bars.length - 1; k >= 0; k--) {
      const a = lane.bars[k], b = { r: a[0], f: a[1], t: a[2], c: a[3], l: a[4], h: a[5], x: a[6], i: a[7] };
      if (b.t < view.from || b.f > view.to) { if (b.i) nextInstant[b.r] = X(b.f); continue; }
      const y = l.y + b.r * rowH + 1, h = rowH - 2;
      const fault = b.x ? D.faults[b.x - 1] : null;
      const text = fault ? fault.label : b.l;
      const title = fault ? fault.label + "\n(the plan's fault " + fault.n + ')' : b.h;
      const kind = (b.i ? 'instant ' : '') + b.c;
      const cls = (fault ? 'fault-mark ' : 'bar ') + kind + (b.x && b.x === selectedFault ? ' selected' : '');
      const attrs = ' data-lane="' + esc(l.name) + '"' + (b.x ? ' data-fault="' + b.x + '"' : '');
      const of = b.x ? ' data-label-of="' + b.x + '"' : '';
      if (b.i) {
        const x = X(b.f), room = (nextInstant[b.r] === undefined ? X0 + PW : nextInstant[b.r]) - x - 4;
        nextInstant[b.r] = x;
        out.push('<g class="' + cls + '"' + attrs + '><title>' + esc(title) + '</title><line x1="' + x.toFixed(1) + '" y1="' + y + '" x2="' + x.toFixed(1) + '" y2="' + (y + h) + '"/></g>');
        if (h >= 7) label(fault ? 'fault' : 'instant', kind, '', x + 2, y + h - 1, text, room, 10, false, of);
        continue;
      }
      const x1 = cx(X(b.f)), x2 = cx(X(b.t)), w = Math.max(x2 - x1, 1.5);
      out.push('<g class="' + cls + '"' + attrs + '><title>' + esc(title) + '</title><rect x="' + x1.toFixed(1) + '" y="' + y + '" width="' + w.toFixed(1) + '" height="' + h + '"/></g>');
      if (h >= 7) label(fault ? 'fault' : 'bar', kind, '', x1 + 2, y + h - 1, text, w - 3, 10, false, of);
    }
  }

  function binOf(t) { return Math.min(Math.max(Math.floor(t / D.binNs), 0), D.bins - 1); }

  function countExactInView() {
    let n = 0;
    D.clients.forEach(function (c) {
      for (let k = 0; k < c.n; k++) if (c.to[k] >= view.from && c.from[k] <= view.to && exactBin[binOf(c.from[k])]) n++;
    });
    return n;
  }

  function opTitle(c, k) {
    let t = 'op ' + c.id[k] + ': ' + c.name + ' ' + D.kinds[c.kind[k]] + ' on ' + D.scopes[c.scope[k]] + ', ' +
      secs(c.from[k]) + ' to ' + secs(c.to[k]) + ', ' + D.outcomes[c.out[k]];
    if (c.off[k]) t += ' at offset ' + c.off[k];
    return t;
  }

  // clientLane draws one client's operations one by one where it may
  // (exact bins, when few enough are in view) and its bins elsewhere;
  // the violating operations always. It returns the operations drawn.
  function clientLane(out, l, exact) {
    const c = D.clients[l.i], rowH = l.h / c.rows;
    let drawn = 0;
    bins(out, l, c, exact);
    if (exact) {
      for (let k = 0; k < c.n; k++) {
        if (c.to[k] < view.from || c.from[k] > view.to || !exactBin[binOf(c.from[k])] || badById.has(c.id[k])) continue;
        const x1 = cx(X(c.from[k])), w = Math.max(cx(X(c.to[k])) - x1, 1), y = l.y + c.row[k] * rowH + 0.5;
        out.push('<g class="op op-' + D.outcomes[c.out[k]] + '"><title>' + esc(opTitle(c, k)) + '</title><rect x="' + x1.toFixed(1) + '" y="' + y.toFixed(1) +
          '" width="' + w.toFixed(1) + '" height="' + Math.max(rowH - 1, 1).toFixed(1) + '"/></g>');
        if (w > 40 && rowH >= 8) label('op', 'op op-' + D.outcomes[c.out[k]], '', x1 + 2, y + rowH - 2, D.kinds[c.kind[k]], w - 3, 10, false);
        drawn++;
      }
    }
    D.bad.forEach(function (b) {
      if (b.lane !== l.i || b.t < view.from || b.f > view.to) return;
      const x1 = cx(X(b.f)), w = Math.max(cx(X(b.t)) - x1, 3), y = l.y + b.row * rowH + 0.5;
      out.push('<g class="op violating' + (selectedOps.has(b.op) ? ' selected' : '') + '" id="op-' + b.op + '" data-op="' + b.op + '"><title>' + esc(b.detail) +
        '</title><rect x="' + x1.toFixed(1) + '" y="' + y.toFixed(1) + '" width="' + w.toFixed(1) + '" height="' + Math.max(rowH - 1, 2).toFixed(1) + '"/></g>');
      obstacle(x1, y, x1 + w, y + Math.max(rowH - 1, 2));
      if (rowH >= 7) label('bad', 'violating', '', x1 + w + 2, y + rowH - 2, 'op ' + b.op, Math.min(80, X0 + PW - x1 - w - 2), 10, true);
      drawn++;
    });
    return drawn;
  }

  // bins draws a lane's counts as stacked columns, one per bin (or per
  // group of bins when a bin is under 2 px), heights scaled to the
  // fullest column in view; exact bins are left to the operations when
  // they are drawn one by one.
  function bins(out, l, c, exact) {
    const binPx = D.binNs * PW / (view.to - view.from);
    const group = Math.max(1, Math.ceil(2 / binPx));
    const first = Math.floor(binOf(view.from) / group) * group, last = binOf(view.to);
    const cols = [];
    let peak = 0;
    for (let b0 = first; b0 <= last; b0 += group) {
      const counts = new Array(c.binCounts.length).fill(0);
      let total = 0;
      for (let b = b0; b < Math.min(b0 + group, D.bins); b++) {
        if (exact && exactBin[b]) continue;
        for (let o = 0; o < counts.length; o++) { counts[o] += c.binCounts[o][b]; total += c.binCounts[o][b]; }
      }
      if (total === 0) continue;
      peak = Math.max(peak, total);
      cols.push({ b: b0, counts: counts, total: total });
    }
    if (cols.length === 0) return;
    const paths = c.binCounts.map(function () { return []; });
    const hMax = l.h - 1, bottom = l.y + l.h;
    cols.forEach(function (col) {
      const x1 = cx(X(col.b * D.binNs)), x2 = cx(X((col.b + group) * D.binNs)), w = Math.max(x2 - x1, 0.8);
      let y = bottom;
      col.counts.forEach(function (n, o) {
        if (!n) return;
        const h = Math.max(n * hMax / peak, 0.8);
        y -= h;
        paths[o].push('M' + x1.toFixed(1) + ' ' + y.toFixed(1) + 'h' + w.toFixed(1) + 'v' + h.toFixed(1) + 'h' + (-w).toFixed(1) + 'z');
      });
    });
    paths.forEach(function (p, o) {
      if (p.length) {
        out.push('<path class="bin op-' + D.classes[o] + '" data-lane="' + esc(l.name) + '" d="' + p.join('') + '"><title>' + esc(c.name + ': ' + D.classes[o] +
          ' operations invoked per ' + secs(D.binNs * group) + ' (tallest column ' + peak + ')') + '</title></path>');
      }
    });
  }

  // marks are dashed lines across the plot at each violating operation.
  function marks(out) {
    D.bad.forEach(function (b) {
      if (b.f < view.from || b.f > view.to) return;
      const x = X(b.f).toFixed(1);
      out.push('<g class="mark' + (selectedOps.has(b.op) ? ' selected' : '') + '"><title>violating op ' + b.op + ' (' + esc(b.inv) + ')</title><line x1="' + x + '" y1="' + AXIS_H + '" x2="' + x + '" y2="' + L.H + '"/></g>');
      label('mark', 'mark', '', +x + 3, AXIS_H + 9, 'op ' + b.op, Math.min(80, X0 + PW - x - 3), 10, true);
    });
  }

  // ---- the cursor readout: time under the mouse, a bin's counts ----
  function cursorAt(ev) {
    const r = svg.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
    const el = document.getElementById('cursor');
    if (!L || x < X0 || x > X0 + PW) { el.textContent = ''; return; }
    const t = view.from + (x - X0) * (view.to - view.from) / PW;
    let text = 'cursor ' + secs(t);
    L.lanes.forEach(function (l) {
      if (l.kind !== 'client' || y < l.y || y > l.y + l.h) return;
      const c = D.clients[l.i], b = binOf(t), parts = [];
      c.binCounts.forEach(function (a, o) { if (a[b]) parts.push(a[b] + ' ' + D.classes[o]); });
      text += ' · ' + c.name + ' invoked ' + (parts.length ? parts.join(', ') : 'nothing') + ' in ' + secs(b * D.binNs) + '–' + secs((b + 1) * D.binNs);
    });
    el.textContent = text;
  }

  // ---- input ----
  function timeAtClientX(clientX) {
    const x = clientX - svg.getBoundingClientRect().left;
    if (x < X0 || x > X0 + PW) return undefined;
    return view.from + (x - X0) * (view.to - view.from) / PW;
  }
  plot.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    const unit = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? 400 : 1;
    const dx = ev.deltaX * unit, dy = ev.deltaY * unit;
    if (ev.shiftKey || Math.abs(dx) > Math.abs(dy)) {
      pan((Math.abs(dx) > Math.abs(dy) ? dx : dy) / PW);
      return;
    }
    zoom(Math.pow(1.0015, dy), timeAtClientX(ev.clientX));
  }, { passive: false });
  let drag = null;
  plot.addEventListener('mousedown', function (ev) {
    if (ev.button !== 0) return;
    drag = { x: ev.clientX, from: view.from, to: view.to, moved: false };
    plot.classList.add('dragging');
    plot.focus();
  });
  window.addEventListener('mousemove', function (ev) {
    cursorAt(ev);
    if (!drag) return;
    const dt = (ev.clientX - drag.x) * (drag.to - drag.from) / PW;
    if (Math.abs(ev.clientX - drag.x) > 2) drag.moved = true;
    setView(drag.from - dt, drag.to - dt);
  });
  window.addEventListener('mouseup', function () { drag = null; plot.classList.remove('dragging'); });
  document.getElementById('zoom-in').addEventListener('click', function () { zoom(1 / ZOOM_STEP); });
  document.getElementById('zoom-out').addEventListener('click', function () { zoom(ZOOM_STEP); });
  document.getElementById('pan-left').addEventListener('click', function () { pan(-PAN_STEP); });
  document.getElementById('pan-right').addEventListener('click', function () { pan(PAN_STEP); });
  document.getElementById('reset').addEventListener('click', reset);
  document.addEventListener('keydown', function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || /^(INPUT|TEXTAREA|SELECT)$/.test(ev.target.tagName)) return;
    const act = { '+': () => zoom(1 / ZOOM_STEP), '=': () => zoom(1 / ZOOM_STEP), '-': () => zoom(ZOOM_STEP), '_': () => zoom(ZOOM_STEP),
      ArrowLeft: () => pan(-PAN_STEP), ArrowRight: () => pan(PAN_STEP), '0': reset, Home: reset }[ev.key];
    if (act) { ev.preventDefault(); act(); }
  });
  window.addEventListener('resize', render);

  // ---- the lists: a violation or a fault zooms the plot to it ----
  function opSpan(id) {
    const b = badById.get(id);
    return b ? [b.f, b.t] : null;
  }
  function select(ids, li) {
    selectedOps = new Set(ids);
    document.querySelectorAll('.finding.active').forEach(function (e) { e.classList.remove('active'); });
    if (li) li.classList.add('active');
    let lo = Infinity, hi = -Infinity;
    ids.forEach(function (id) { const s = opSpan(id); if (s) { lo = Math.min(lo, s[0]); hi = Math.max(hi, s[1]); } });
    if (lo <= hi) zoomTo(lo, hi); else render();
  }
  document.querySelectorAll('li.finding').forEach(function (li) {
    const ids = D.findings[+li.dataset.finding] || [];
    li.addEventListener('click', function (ev) {
      const a = ev.target.closest('a.evidence');
      if (ev.target.closest('details')) return;
      ev.preventDefault();
      select(a ? [+a.dataset.op] : ids, li);
    });
  });
  const faultList = document.getElementById('fault-list');
  D.faults.forEach(function (f, i) {
    const li = document.createElement('li'), a = document.createElement('a');
    a.className = 'fault-link';
    a.href = '#fault-' + (i + 1);
    a.dataset.fault = i + 1;
    a.title = "the plan's fault " + f.n;
    a.textContent = f.label;
    a.addEventListener('click', function (ev) {
      ev.preventDefault();
      selectedFault = i + 1;
      const s = Math.max(f.end - f.at, 2e8);
      setView(f.at - s / 2, f.end + s / 2);
    });
    li.appendChild(a);
    faultList.appendChild(li);
  });
  render();
})();
