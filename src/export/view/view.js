// SPDX-License-Identifier: MIT
// memtap view: renders the embedded data. Every string from the trace goes into the page
// through textContent (never as markup); nothing is fetched.
'use strict';
(function () {
  const D = JSON.parse(document.getElementById('memtap-data').textContent);
  const span = Math.max(D.span_ns / 1e9, 1e-9);
  const S = { t0: 0, t1: span, y0: 0, y1: 1, load: true, store: true, fault: true, region: -1 };
  const redraws = [];

  // ---- helpers ----
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function $(id) { return document.getElementById(id); }
  function fmtBytes(b) {
    if (b === null || b === undefined) return '-';
    const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (Math.abs(b) >= 1024 && i < u.length - 1) { b /= 1024; i++; }
    return (i ? b.toFixed(b < 10 ? 2 : b < 100 ? 1 : 0) : String(Math.round(b))) + ' ' + u[i];
  }
  function fmtSec(s) {
    if (s === null || s === undefined) return '-';
    if (s >= 1) return s.toFixed(s < 10 ? 3 : 2) + ' s';
    if (s >= 1e-3) return (s * 1e3).toFixed(2) + ' ms';
    if (s >= 1e-6) return (s * 1e6).toFixed(1) + ' µs';
    return (s * 1e9).toFixed(0) + ' ns';
  }
  function fmtNum(n) { return n === null || n === undefined ? '-' : Number(n).toLocaleString('en-US'); }
  function fmtFrac(x) { return x.toFixed(3); }
  function b64(s, Type) {
    if (!s) return new Type(0);
    const bin = atob(s), u8 = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
    return new Type(u8.buffer);
  }
  function canvasFor(c, h) {
    const r = window.devicePixelRatio || 1, w = c.clientWidth || 800;
    c.width = Math.round(w * r); c.height = Math.round(h * r); c.style.height = h + 'px';
    const g = c.getContext('2d'); g.setTransform(r, 0, 0, r, 0, 0);
    return { g, w, h };
  }

  // ---- header ----
  const run = D.run;
  $('cmd').textContent = run.command || '(no command)';
  const facts = [
    ['trace', run.trace], ['duration', fmtSec(run.duration_ns / 1e9)],
    ['exit status', run.exit_status === null ? 'unknown' : run.exit_status],
    ['lost events', fmtNum(run.lost_events)], ['recorded by memtap', run.recorded_by],
    ['report by memtap', D.memtap_version],
  ];
  for (const [k, v] of facts) {
    const s = el('span', k + ' '); s.appendChild(el('b', v)); $('facts').appendChild(s);
  }
  for (const s of document.querySelectorAll('main section')) {
    const a = el('a', s.querySelector('h2').textContent); a.href = '#' + s.id; $('nav').appendChild(a);
  }
  document.title = 'memtap: ' + (run.command || run.trace);

  // ---- tables ----
  function table(host, cols, rows, opts) {
    opts = opts || {};
    const wrap = el('div', null, 'scroll'), t = el('table'), thead = el('thead'), tb = el('tbody');
    const hr = el('tr');
    let sortKey = opts.sort, dir = -1;
    cols.forEach(c => {
      const th = el('th', c.label); th.title = c.title || c.label;
      th.addEventListener('click', () => { dir = sortKey === c.key ? -dir : -1; sortKey = c.key; fill(); });
      hr.appendChild(th);
    });
    thead.appendChild(hr); t.appendChild(thead); t.appendChild(tb); wrap.appendChild(t);
    host.textContent = '';
    if (!rows.length) { host.appendChild(el('p', opts.empty || 'nothing recorded', 'note')); return; }
    host.appendChild(wrap);
    function fill() {
      const r = rows.slice();
      if (sortKey) {
        r.sort((a, b) => {
          const x = a[sortKey], y = b[sortKey];
          if (x === y) return 0;
          if (x === null || x === undefined) return 1;
          if (y === null || y === undefined) return -1;
          return (x < y ? -1 : 1) * dir;
        });
      }
      tb.textContent = '';
      for (const row of r) {
        const tr = el('tr');
        for (const c of cols) {
          const td = el('td', null, c.num ? 'n' : '');
          if (c.node) td.appendChild(c.node(row));
          else if (row[c.key] === null || row[c.key] === undefined) td.textContent = '-'; // nothing backs it
          else td.textContent = c.fmt ? c.fmt(row[c.key], row) : row[c.key];
          if (c.cls) td.className += ' ' + c.cls(row);
          tr.appendChild(td);
        }
        tb.appendChild(tr);
      }
    }
    fill();
  }

  // collectors: mechanism, status, parameters (periods, rates, costs), events and losses
  table($('collectors'), [
    { key: 'name', label: 'collector' }, { key: 'mechanism', label: 'mechanism' },
    { key: 'status', label: 'status' }, { key: 'events', label: 'events', num: true, fmt: fmtNum },
    { key: 'lost', label: 'lost', num: true, fmt: fmtNum },
    { key: 'details', label: 'parameters', fmt: (p, r) => Object.entries(p || {}).map(([k, v]) => k + '=' + v).join(', ') + (r.reason ? ' (' + r.reason + ')' : '') },
  ], run.collectors, { empty: 'no collectors' });
  $('run-note').textContent = 'Every figure below comes from the collectors in this table; sampled figures are estimates (their mechanism and period are listed), fault and allocation counts are exact.';

  const mrmCls = r => 'mrm-' + r.mrm;
  table($('t-regions'), [
    { key: 'region_id', label: 'id', num: true }, { key: 'pid', label: 'pid', num: true },
    { key: 'region_type', label: 'type' }, { key: 'label', label: 'label' },
    { key: 'bytes', label: 'size', num: true, fmt: fmtBytes },
    { key: 'samples', label: 'samples', num: true, fmt: fmtNum },
    { key: 'total_reads', label: 'loads', num: true, fmt: fmtNum }, { key: 'total_writes', label: 'stores', num: true, fmt: fmtNum },
    { key: 'faults', label: 'faults', num: true, fmt: fmtNum },
    { key: 'retention_s', label: 'retention', num: true, fmt: fmtSec },
    { key: 'lifetime_s', label: 'lifetime', num: true, fmt: fmtSec },
    { key: 'write_once_ratio', label: 'write-once', num: true, fmt: fmtFrac },
    { key: 'write_once_basis', label: 'basis' },
    { key: 'wss_peak_pages', label: 'WSS peak', num: true, fmt: v => fmtBytes(v * 4096) },
    { key: 'mrm', label: 'MRM', cls: mrmCls },
    { key: 'mrm_decided_by', label: 'decided by', title: 'the figures that decided the MRM label' },
  ], D.regions.map(r => Object.assign({ faults: r.faults_minor + r.faults_major }, r)), { sort: 'samples', empty: 'no regions with samples or faults' });
  $('regions-note').textContent = D.regions.length + ' regions with samples or faults; click a heading to sort.';
  table($('t-types'), [
    { key: 'region_type', label: 'type' }, { key: 'regions', label: 'regions', num: true, fmt: fmtNum },
    { key: 'samples', label: 'samples', num: true, fmt: fmtNum },
    { key: 'read_fraction', label: 'read frac', num: true, fmt: v => v.toFixed(2) },
    { key: 'retention_p50_s', label: 'retention p50', num: true, fmt: fmtSec },
    { key: 'retention_p99_s', label: 'p99', num: true, fmt: fmtSec },
    { key: 'lifetime_p50_s', label: 'lifetime p50', num: true, fmt: fmtSec },
    { key: 'write_once_ratio', label: 'write-once', num: true, fmt: fmtFrac },
    { key: 'mean_stride_bytes', label: 'stride mean', num: true, fmt: fmtBytes },
    { key: 'same_page_fraction', label: 'same page', num: true, fmt: v => v.toFixed(2) },
    { key: 'iai_p50_ns', label: 'IAI p50', num: true, fmt: v => fmtSec(v / 1e9) },
    { key: 'wss_peak_pages', label: 'WSS peak', num: true, fmt: v => fmtBytes(v * 4096) },
    { key: 'mrm', label: 'MRM', cls: mrmCls },
    { key: 'mrm_decided_by', label: 'decided by', title: 'the figures that decided the MRM label' },
  ], D.types, { sort: 'samples' });
  table($('t-sites'), [
    { key: 'stack', label: 'site', node: r => {
      const d = el('details'); d.appendChild(el('summary', r.stack.length ? r.stack[0] : '[no stack]'));
      const ol = el('ol'); r.stack.forEach(f => ol.appendChild(el('li', f))); d.appendChild(ol); return d;
    } },
    { key: 'pid', label: 'pid', num: true },
    { key: 'peak_bytes', label: 'at peak', num: true, fmt: fmtBytes },
    { key: 'bytes', label: 'allocated', num: true, fmt: fmtBytes },
    { key: 'calls', label: 'calls', num: true, fmt: fmtNum },
    { key: 'leaked_bytes', label: 'leaked', num: true, fmt: fmtBytes },
    { key: 'temporary', label: 'temporary', num: true, fmt: fmtNum },
  ], D.sites, { sort: 'peak_bytes', empty: 'no allocations recorded' });
  table($('t-syscalls'), [
    { key: 'name', label: 'syscall' }, { key: 'calls', label: 'calls', num: true, fmt: fmtNum },
    { key: 'errors', label: 'errors', num: true, fmt: fmtNum },
    { key: 'total_ns', label: 'time', num: true, fmt: v => fmtSec(v / 1e9) },
  ], D.syscalls, { sort: 'total_ns', empty: 'system calls not recorded (memtap record --syscalls)' });
  table($('t-rereads'), [
    { key: 'path', label: 'file' }, { key: 'reread_bytes', label: 're-read', num: true, fmt: fmtBytes },
    { key: 'bytes_read', label: 'read', num: true, fmt: fmtBytes },
    { key: 'reads', label: 'reads', num: true, fmt: fmtNum }, { key: 'faults', label: 'faults', num: true, fmt: fmtNum },
  ], D.rereads, { sort: 'reread_bytes', empty: 'no file read twice (or no system calls recorded)' });
  table($('t-procs'), [
    { key: 'pid', label: 'pid', num: true }, { key: 'ppid', label: 'ppid', num: true },
    { key: 'comm', label: 'comm' }, { key: 'argv', label: 'arguments', fmt: v => v.join(' ') },
    { key: 'duration_ns', label: 'lived', num: true, fmt: v => v === null ? 'to the end' : fmtSec(v / 1e9) },
    { key: 'exit_status', label: 'exit', num: true, fmt: v => v === null ? 'unknown' : v },
    { key: 'rss_peak', label: 'RSS peak', num: true, fmt: fmtBytes },
    { key: 'heap_peak', label: 'heap peak', num: true, fmt: fmtBytes },
    { key: 'faults_minor', label: 'minor faults', num: true, fmt: fmtNum },
    { key: 'faults_major', label: 'major faults', num: true, fmt: fmtNum },
  ], D.processes, {});

  // ---- time range ----
  function setRange(t0, t1) {
    if (!(t1 > t0)) return;
    S.t0 = Math.max(0, t0); S.t1 = Math.min(span, t1);
    if (!(S.t1 > S.t0)) { S.t0 = 0; S.t1 = span; }
    redraw();
  }
  function resetAll() { S.t0 = 0; S.t1 = span; S.y0 = 0; S.y1 = 1; redraw(); }
  $('reset').addEventListener('click', resetAll);
  function pan(f) { // by a fraction of the window, kept inside the run
    const w = S.t1 - S.t0;
    let a = S.t0 + f * w;
    a = Math.max(0, Math.min(span - w, a));
    S.t0 = a; S.t1 = a + w; redraw();
  }
  function zoomOut() {
    const w = S.t1 - S.t0, c = (S.t0 + S.t1) / 2;
    S.t0 = Math.max(0, c - w); S.t1 = Math.min(span, c + w); redraw();
  }
  $('pan-left').addEventListener('click', () => pan(-0.5));
  $('pan-right').addEventListener('click', () => pan(0.5));
  $('zoom-out').addEventListener('click', zoomOut);
  document.addEventListener('keydown', e => {
    if (e.target && e.target.tagName === 'INPUT') return;
    if (e.key === 'ArrowLeft') pan(-0.25);
    else if (e.key === 'ArrowRight') pan(0.25);
    else if (e.key === '-') zoomOut();
    else if (e.key === 'Escape') resetAll();
  });
  $('t-apply').addEventListener('click', () => setRange(parseFloat($('t-from').value), parseFloat($('t-to').value)));
  function redraw() {
    $('range').textContent = S.t0.toFixed(6) + ' – ' + S.t1.toFixed(6) + ' s';
    $('t-from').value = S.t0.toFixed(6); $('t-to').value = S.t1.toFixed(6);
    for (const f of redraws) f();
  }
  // dragging across a canvas selects a range; onDone(x0, x1, y0, y1) in CSS pixels
  function dragZoom(c, onDone, draw) {
    let start = null;
    c.addEventListener('mousedown', e => { const r = c.getBoundingClientRect(); start = [e.clientX - r.left, e.clientY - r.top]; });
    c.addEventListener('mousemove', e => {
      if (!start) return;
      const r = c.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
      draw(); const g = c.getContext('2d');
      g.fillStyle = 'rgba(47,111,214,0.15)';
      g.fillRect(Math.min(start[0], x), Math.min(start[1], y), Math.abs(x - start[0]), Math.abs(y - start[1]));
    });
    window.addEventListener('mouseup', e => {
      if (!start) return;
      const r = c.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top, s = start;
      start = null;
      if (Math.abs(x - s[0]) >= 4) onDone(Math.min(s[0], x), Math.max(s[0], x), Math.min(s[1], y), Math.max(s[1], y));
      else draw();
    });
    c.addEventListener('dblclick', resetAll);
  }

  // ---- timelines ----
  const TL = D.timeline, NB = TL.buckets, bucketS = TL.bucket_ns / 1e9;
  const PAD = { l: 70, r: 12, t: 8, b: 22 };
  const phaseColors = ['rgba(255,193,7,0.16)', 'rgba(76,175,80,0.14)', 'rgba(156,39,176,0.12)', 'rgba(3,169,244,0.14)', 'rgba(255,87,34,0.12)'];
  const phaseNames = [...new Set(TL.phases.map(p => p.name))];
  function bands(g, w, h) { // phases as bands, named at their start
    for (const p of TL.phases) {
      const a = p.start / 1e9, b = p.end / 1e9;
      if (b < S.t0 || a > S.t1) continue;
      const x0 = PAD.l + Math.max(0, (a - S.t0) / (S.t1 - S.t0)) * (w - PAD.l - PAD.r);
      const x1 = PAD.l + Math.min(1, (b - S.t0) / (S.t1 - S.t0)) * (w - PAD.l - PAD.r);
      g.fillStyle = phaseColors[phaseNames.indexOf(p.name) % phaseColors.length];
      g.fillRect(x0, PAD.t, Math.max(1, x1 - x0), h - PAD.t - PAD.b);
      g.fillStyle = '#8a6d00'; g.font = '11px sans-serif';
      if (x1 - x0 > 30) g.fillText(p.name, x0 + 3, PAD.t + 11);
    }
  }
  function axes(g, w, h, ymax, yfmt) {
    g.strokeStyle = '#d5dbe3'; g.fillStyle = '#5b6675'; g.font = '11px sans-serif';
    for (let i = 0; i <= 4; i++) {
      const y = h - PAD.b - i / 4 * (h - PAD.t - PAD.b);
      g.beginPath(); g.moveTo(PAD.l, y); g.lineTo(w - PAD.r, y); g.stroke();
      g.fillText(yfmt(ymax * i / 4), 4, y + 4);
    }
    for (let i = 0; i <= 5; i++) {
      const x = PAD.l + i / 5 * (w - PAD.l - PAD.r), t = S.t0 + i / 5 * (S.t1 - S.t0);
      g.fillText(t.toFixed(t < 10 ? 3 : 1) + ' s', Math.min(x - 10, w - 50), h - 6);
    }
  }
  function chart(title, series, yfmt, kind) {
    const host = el('div', null, 'chart'), c = el('canvas');
    host.appendChild(el('div', title, 'title')); host.appendChild(c); $('charts').appendChild(host);
    function draw() {
      const { g, w, h } = canvasFor(c, 150);
      g.clearRect(0, 0, w, h); bands(g, w, h);
      let ymax = 0;
      for (const s of series) for (let i = 0; i < s.x.length; i++)
        if (s.x[i] >= S.t0 - bucketS && s.x[i] <= S.t1 && s.y[i] > ymax) ymax = s.y[i];
      ymax = ymax || 1; axes(g, w, h, ymax, yfmt);
      const X = x => PAD.l + (x - S.t0) / (S.t1 - S.t0) * (w - PAD.l - PAD.r);
      const Y = y => h - PAD.b - y / ymax * (h - PAD.t - PAD.b);
      g.save(); g.beginPath(); g.rect(PAD.l, PAD.t, w - PAD.l - PAD.r, h - PAD.t - PAD.b); g.clip();
      let lx = PAD.l + 8;
      for (const s of series) {
        g.strokeStyle = s.color; g.fillStyle = s.color; g.lineWidth = 1.5;
        if (kind === 'bars') {
          for (let i = 0; i < s.x.length; i++) if (s.y[i]) {
            const x0 = X(s.x[i]), x1 = Math.max(X(s.x[i] + s.w) , x0 + 1);
            g.fillRect(x0, Y(s.y[i]), x1 - x0, h - PAD.b - Y(s.y[i]));
          }
        } else {
          g.beginPath(); // steps: a value holds until the next
          let prev = null;
          for (let i = 0; i < s.x.length; i++) {
            const x = X(s.x[i]), y = Y(s.y[i]);
            if (prev === null) g.moveTo(x, y); else { g.lineTo(x, prev); g.lineTo(x, y); }
            prev = y;
          }
          g.stroke();
        }
        g.fillText(s.name, lx, PAD.t + 24); lx += g.measureText(s.name).width + 14;
      }
      g.restore();
    }
    dragZoom(c, (x0, x1) => {
      const w = c.clientWidth, f = x => S.t0 + (x - PAD.l) / (w - PAD.l - PAD.r) * (S.t1 - S.t0);
      setRange(f(x0), f(x1));
    }, draw);
    redraws.push(draw);
  }
  const bx = Array.from({ length: NB }, (_, i) => (i + 1) * bucketS);
  if (TL.rss_file) chart('resident memory by type (sum over live processes, at each interval\'s end; peak ' + fmtBytes(TL.rss_peak) + ')', [
    { name: 'anon', color: '#d9534f', x: bx, y: TL.rss_anon }, { name: 'file', color: '#2f6fd6', x: bx, y: TL.rss_file },
    { name: 'shmem', color: '#8a3ffc', x: bx, y: TL.rss_shmem }, { name: 'swap', color: '#9a6700', x: bx, y: TL.rss_swap },
  ], fmtBytes);
  if (TL.heap) chart('live heap bytes (largest in each interval; peak ' + fmtBytes(TL.heap_peak) + ')', [
    { name: 'heap', color: '#2e9d52', x: bx, y: TL.heap }], fmtBytes);
  if (TL.wss.length) chart('working set: distinct pages touched per ' + fmtSec(TL.wss_window_ns / 1e9) + ' window (samples, faults, page writes: a lower bound)', [
    { name: 'working set', color: '#2f6fd6', x: TL.wss.map(p => p[0] / 1e9), y: TL.wss.map(p => p[1] * 4096) }], fmtBytes);
  if (TL.faults_minor) chart('page faults per ' + fmtSec(bucketS) + (TL.faults_tracking && TL.faults_tracking.some(v => v) ? ' (the workload\'s; memtap\'s page-write tracking apart)' : ''), [
    { name: 'minor', color: '#2e9d52', x: bx.map(x => x - bucketS), y: TL.faults_minor, w: bucketS },
    { name: 'major', color: '#8a3ffc', x: bx.map(x => x - bucketS), y: TL.faults_major, w: bucketS }].concat(
    TL.faults_tracking && TL.faults_tracking.some(v => v) ? [{ name: 'page-write tracking (memtap)', color: '#9a9a9a', x: bx.map(x => x - bucketS), y: TL.faults_tracking, w: bucketS }] : []), fmtNum, 'bars');
  if (TL.spans && TL.spans.length) spanLanes();
  if (!$('charts').children.length) $('charts').appendChild(el('p', 'no RSS, heap, working-set or fault records in this trace', 'note'));

  // The workload's own spans (memtap_span_begin/end): one lane per thread, nested spans
  // below their parent, coloured by name; the name where it fits, all of it on hover.
  function spanLanes() {
    const lanes = [...new Set(TL.spans.map(s => s.pid + '/' + s.tid))];
    const depth = Math.min(4, 1 + Math.max(...TL.spans.map(s => s.depth)));
    const names = [...new Set(TL.spans.map(s => s.name))], RH = 12;
    const colors = ['#2f6fd6', '#2e9d52', '#d9534f', '#8a3ffc', '#9a6700', '#00838f'];
    const host = el('div', null, 'chart'), c = el('canvas');
    host.appendChild(el('div', TL.spans.length + ' spans of the workload (memtap_span_begin/end) by thread' +
      (TL.spans_dropped ? '; ' + TL.spans_dropped + ' more not drawn' : ''), 'title'));
    host.appendChild(c); $('charts').appendChild(host);
    const H = PAD.t + PAD.b + lanes.length * depth * RH + 4;
    function draw() {
      const { g, w, h } = canvasFor(c, Math.min(600, H));
      g.clearRect(0, 0, w, h); bands(g, w, h);
      const X = x => PAD.l + (x - S.t0) / (S.t1 - S.t0) * (w - PAD.l - PAD.r);
      g.font = '10px sans-serif';
      lanes.forEach((l, i) => { g.fillStyle = '#5b6675'; g.fillText(l, 4, PAD.t + i * depth * RH + 10); });
      g.save(); g.beginPath(); g.rect(PAD.l, 0, w - PAD.l - PAD.r, h); g.clip();
      for (const s of TL.spans) {
        const a = s.start / 1e9, b = s.end / 1e9;
        if (b < S.t0 || a > S.t1 || s.depth >= depth) continue;
        const y = PAD.t + lanes.indexOf(s.pid + '/' + s.tid) * depth * RH + s.depth * RH;
        const x0 = X(a), x1 = Math.max(X(b), x0 + 1);
        g.fillStyle = colors[names.indexOf(s.name) % colors.length];
        g.globalAlpha = s.open ? 0.4 : 0.8; g.fillRect(x0, y, x1 - x0, RH - 2); g.globalAlpha = 1;
        if (x1 - x0 > 40) { g.fillStyle = '#fff'; g.fillText(s.name, x0 + 2, y + 9); }
      }
      g.restore();
    }
    c.title = names.slice(0, 20).join(', ');
    dragZoom(c, (x0, x1) => {
      const w = c.clientWidth, f = x => S.t0 + (x - PAD.l) / (w - PAD.l - PAD.r) * (S.t1 - S.t0);
      setRange(f(x0), f(x1));
    }, draw);
    redraws.push(draw);
  }

  // ---- address x time ----
  const A = D.address, At = b64(A.t, Float32Array), Ay = b64(A.y, Float32Array);
  const Ak = b64(A.kind, Uint8Array), Ar = b64(A.region, Uint32Array), N = At.length;
  const kindColor = ['#2f6fd6', '#d9534f', '#2e9d52', '#8a3ffc'];
  const regionBox = new Map(); // overlay index -> [ymin, ymax] on the axis
  for (let i = 0; i < N; i++) {
    const r = Ar[i]; if (r === 0xffffffff) continue;
    const b = regionBox.get(r); if (!b) regionBox.set(r, [Ay[i], Ay[i]]); else { if (Ay[i] < b[0]) b[0] = Ay[i]; if (Ay[i] > b[1]) b[1] = Ay[i]; }
  }
  $('addr-note').textContent = A.total ? (A.stride > 1 ?
    'Showing ' + fmtNum(A.drawn) + ' of ' + fmtNum(A.total) + ' samples and faults (1 in ' + A.stride + ', evenly through the run).' :
    'Every one of the ' + fmtNum(A.drawn) + ' samples with an address and faults is drawn.') +
    ' The address axis is compacted: each band is a stretch of one process\'s touched addresses (gaps over 16 MiB cut), sized by its span and its share of the points.' :
    'No sampled accesses or page faults in this trace.';
  const sel = $('region-sel');
  sel.appendChild(el('option', 'all regions')).value = '-1';
  A.regions.slice().sort((a, b) => (b.bytes || 0) - (a.bytes || 0)).forEach(r => {
    const o = el('option', r.region_type + ': ' + r.label + ' (pid ' + r.pid + ')'); o.value = String(r.ix); sel.appendChild(o);
  });
  sel.addEventListener('change', () => {
    S.region = parseInt(sel.value, 10);
    const b = regionBox.get(S.region);
    if (S.region >= 0 && b) { const pad = Math.max((b[1] - b[0]) * 0.05, 0.002); S.y0 = Math.max(0, b[0] - pad); S.y1 = Math.min(1, b[1] + pad); }
    else { S.y0 = 0; S.y1 = 1; }
    redraw();
  });
  for (const k of ['load', 'store', 'fault']) $('show-' + k).addEventListener('change', e => { S[k] = e.target.checked; redraw(); });
  const ac = $('addr'), APAD = { l: 150, r: 10, t: 8, b: 22 };
  function segAt(y) { for (const s of A.segments) if (y >= s.y0 && y < s.y0 + s.h) return s; return null; }
  function addrAt(y) {
    const s = segAt(y); if (!s) return null;
    return { pid: s.pid, a: BigInt(s.lo) + BigInt(Math.floor((y - s.y0) / s.h * s.size)) };
  }
  function drawAddr() {
    const { g, w, h } = canvasFor(ac, 460);
    const pw = w - APAD.l - APAD.r, ph = h - APAD.t - APAD.b;
    const X = t => APAD.l + (t - S.t0) / (S.t1 - S.t0) * pw, Y = y => APAD.t + (y - S.y0) / (S.y1 - S.y0) * ph;
    g.clearRect(0, 0, w, h);
    g.font = '11px sans-serif';
    A.segments.forEach((s, i) => { // bands, alternating, labelled in the gutter
      const y0 = Y(s.y0), y1 = Y(s.y0 + s.h);
      if (y1 < APAD.t || y0 > h - APAD.b) return;
      g.fillStyle = i % 2 ? '#f3f5f8' : '#fff'; g.fillRect(APAD.l, Math.max(APAD.t, y0), pw, Math.min(y1, h - APAD.b) - Math.max(APAD.t, y0));
      if (y1 - y0 > 12) { g.fillStyle = '#5b6675'; g.fillText(s.lo + ' pid ' + s.pid, 4, Math.max(APAD.t + 10, y0 + 11)); g.fillText(fmtBytes(s.size), 4, Math.max(APAD.t + 22, y0 + 23)); }
    });
    g.save(); g.beginPath(); g.rect(APAD.l, APAD.t, pw, ph); g.clip();
    for (const r of A.regions) { // region overlays: a tick on the right, labelled when tall enough
      const b = regionBox.get(r.ix); if (!b) continue;
      const y0 = Y(b[0]), y1 = Y(b[1]);
      if (y1 < APAD.t - 2 || y0 > h - APAD.b + 2) continue;
      g.fillStyle = r.ix === S.region ? 'rgba(47,111,214,0.5)' : 'rgba(91,102,117,0.35)';
      g.fillRect(w - APAD.r - 6, y0, 4, Math.max(2, y1 - y0));
      if (y1 - y0 > 14) { g.fillStyle = '#5b6675'; g.textAlign = 'right'; g.fillText(r.region_type + ' ' + r.label, w - APAD.r - 10, y0 + 11); g.textAlign = 'left'; }
    }
    let shown = 0;
    for (let i = 0; i < N; i++) {
      const t = At[i], y = Ay[i], k = Ak[i];
      if (t < S.t0 || t > S.t1 || y < S.y0 || y > S.y1) continue;
      if ((k === 0 && !S.load) || (k === 1 && !S.store) || (k >= 2 && !S.fault)) continue;
      if (S.region >= 0 && Ar[i] !== S.region) continue;
      g.fillStyle = kindColor[k]; g.fillRect(X(t) - 1, Y(y) - 1, k >= 2 ? 3 : 2, k >= 2 ? 3 : 2);
      shown++;
    }
    g.restore();
    g.fillStyle = '#5b6675';
    for (let i = 0; i <= 5; i++) { const t = S.t0 + i / 5 * (S.t1 - S.t0); g.fillText(t.toFixed(t < 10 ? 3 : 1) + ' s', Math.min(APAD.l + i / 5 * pw - 10, w - 50), h - 6); }
    $('addr-count').textContent = fmtNum(shown) + ' points in view (blue loads, red stores, green minor faults, violet major faults)';
    ac.dataset.shown = String(shown);
  }
  dragZoom(ac, (x0, x1, y0, y1) => {
    const w = ac.clientWidth, h = ac.clientHeight, pw = w - APAD.l - APAD.r, ph = h - APAD.t - APAD.b;
    const ft = x => S.t0 + (x - APAD.l) / pw * (S.t1 - S.t0), fy = y => S.y0 + (y - APAD.t) / ph * (S.y1 - S.y0);
    if (y1 - y0 >= 4) { const a = fy(y0), b = fy(y1); S.y0 = Math.max(0, a); S.y1 = Math.min(1, b); }
    setRange(ft(x0), ft(x1));
  }, drawAddr);
  ac.addEventListener('mousemove', e => {
    const r = ac.getBoundingClientRect(), w = ac.clientWidth, h = ac.clientHeight;
    const pw = w - APAD.l - APAD.r, ph = h - APAD.t - APAD.b, x = e.clientX - r.left, y = e.clientY - r.top;
    if (x < APAD.l || y < APAD.t || y > h - APAD.b) { $('hover').textContent = ''; return; }
    const t = S.t0 + (x - APAD.l) / pw * (S.t1 - S.t0), a = addrAt(S.y0 + (y - APAD.t) / ph * (S.y1 - S.y0));
    $('hover').textContent = 't = ' + t.toFixed(6) + ' s' + (a ? ', pid ' + a.pid + ', address ≈ 0x' + a.a.toString(16) : '');
  });
  // an address range: the axis from the band holding `from` to the one holding `to`
  function yOf(hex) {
    let a;
    try { a = BigInt(hex.trim()); } catch (e) { return null; }
    let best = null;
    for (const sg of A.segments) {
      const lo = BigInt(sg.lo), hi = lo + BigInt(Math.round(sg.size));
      if (a >= lo && a < hi) return sg.y0 + Number(a - lo) / sg.size * sg.h;
      if (a < lo && (best === null || sg.y0 < best)) best = sg.y0; // the next band up
    }
    return best === null ? 1 : best;
  }
  $('a-apply').addEventListener('click', () => {
    const a = yOf($('a-from').value), b = yOf($('a-to').value);
    if (a === null || b === null || !(b > a)) { $('addr-count').textContent = 'addresses: give two hexadecimal addresses, the first below the second'; return; }
    S.y0 = a; S.y1 = b; redraw();
  });
  redraws.push(drawAddr);
  window.addEventListener('resize', redraw);

  $('foot').textContent = 'memtap ' + D.memtap_version + ' — this page is self-contained: it loads nothing and runs offline.';
  redraw();
  window.memtapView = { state: S, setRange, reset: resetAll, points: N };
  document.body.dataset.ready = '1';
})();
