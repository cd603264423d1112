// wirebench page: the explainer's spans as a hex view and a field tree,
// linked both ways. No framework, no build step; every request goes to the
// server that served this file.
'use strict';

const $ = (id) => document.getElementById(id);
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const PER_ROW = 16;
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const BLOCK = PER_ROW * 32;
// Rows of the per-field bars (the summary's `by_field` keys, in order).
const FIELD_ROWS = ['(envelope)', '(product framing)', 'id', 'sku', 'name', 'description',
  'price_cents', 'currency', 'rating', 'review_count', 'in_stock', 'stock', 'status', 'tags',
  'dimensions', 'variants', 'discount_percent', 'created_at_ms', 'image_url'];
const FORMATS = ['json', 'msgpack', 'protobuf', 'avro', 'flatbuffers'];

// What the browser test and the benchmark read.
window.wb = { timings: {}, explorers: {} };

function decode64(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function esc(s) {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
}

async function getJSON(url) {
  const early = window.wbEarly;
  let r;
  if (early && early.url === url) {
    window.wbEarly = null;
    r = await early.response;
  } else {
    r = await fetch(url, { headers: { Accept: 'application/json' } });
  }
  const body = await r.json();
  if (!r.ok) throw new Error(`${url}: ${r.status} ${body.error || ''}`);
  return body;
}

// The path a row of the bars selects: a document's member is its own path,
// its root framing the envelope.
function barPath(field) {
  if (state.payload !== 'data') return rowPath(field);
  return field === '(root framing)' ? '(envelope)' : field;
}

// The path a per-field row selects in product 0.
function rowPath(field) {
  if (field === '(envelope)') return '(envelope)';
  if (field === '(product framing)') return 'products[0]';
  return `products[0].${field}`;
}

// One payload: a hex view and a field tree over the explainer's spans.
class Explorer {
  constructor(treeEl, hexEl, detailEl, data, onSelectPath) {
    this.treeEl = treeEl;
    this.hexEl = hexEl;
    this.detailEl = detailEl;
    this.data = data;
    this.onSelectPath = onSelectPath;
    this.bytes = decode64(data.payload);
    this.spans = data.spans;
    this.lit = [];
    this.cur = -1;
    this.path = null;
    this.index();
    this.renderHex();
    if (treeEl) this.renderTree();
    this.bind();
  }

  // path -> span indices, in payload order; path order of first appearance.
  index() {
    this.byPath = new Map();
    this.paths = [];
    this.spans.forEach((s, k) => {
      for (const p of s.fields) {
        let list = this.byPath.get(p);
        if (!list) {
          list = [];
          this.byPath.set(p, list);
          this.paths.push(p);
        }
        list.push(k);
      }
    });
  }

  // One element per row, one element per span piece within a row.
  renderHex() {
    const b = this.bytes;
    const spans = this.spans;
    const html = [];
    let k = 0;
    for (let start = 0; start < b.length; start += PER_ROW) {
      // Blocks of rows the browser lays out only when they scroll into view.
      if (start % BLOCK === 0) {
        const rows = Math.ceil(Math.min(BLOCK, b.length - start) / PER_ROW);
        html.push(`${start ? '</div>' : ''}<div class="blk" style="contain-intrinsic-size:auto ${rows * 18}px">`);
      }
      const end = Math.min(start + PER_ROW, b.length);
      html.push(`<div class="row"><span class="o">${start.toString().padStart(7, ' ')}</span>  `);
      let at = start;
      while (at < end) {
        while (k < spans.length && spans[k].offset + spans[k].length <= at) k++;
        const s = spans[k];
        if (!s || s.offset > at) {
          // Bytes no span covers (a payload that did not parse).
          const stop = s ? Math.min(end, s.offset) : end;
          const hex = [];
          for (let i = at; i < stop; i++) hex.push(HEX[b[i]]);
          html.push(`<span class="u">${hex.join(' ')}</span> `);
          at = stop;
          continue;
        }
        const stop = Math.min(end, s.offset + s.length);
        const hex = [];
        for (let i = at; i < stop; i++) hex.push(HEX[b[i]]);
        html.push(`<span class="s ${s.category}" data-s="${k}" data-off="${at}">${hex.join(' ')}</span> `);
        at = stop;
      }
      html.push('   '.repeat(start + PER_ROW - end));
      let ascii = '';
      for (let i = start; i < end; i++) ascii += b[i] >= 0x20 && b[i] < 0x7f ? String.fromCharCode(b[i]) : '.';
      html.push(` <span class="a">${esc(ascii)}</span></div>`);
    }
    if (b.length) html.push('</div>');
    this.hexEl.innerHTML = html.join('');
    this.piecesOf = null;
    // The span → elements index is built after the first paint (or at the
    // first selection, whichever comes first).
    setTimeout(() => this.pieces, 0);
  }

  get pieces() {
    if (!this.piecesOf) {
      this.piecesOf = Array.from({ length: this.spans.length }, () => []);
      for (const el of this.hexEl.querySelectorAll('.s')) this.piecesOf[+el.dataset.s].push(el);
    }
    return this.piecesOf;
  }

  bytesOf(path) {
    let n = 0;
    for (const k of this.byPath.get(path) || []) n += this.spans[k].length;
    return n;
  }

  // The paths at or below `path` (`orders` → `orders[0].id`, …).
  under(path) {
    return this.paths.filter((p) => p === path || p.startsWith(`${path}.`) || p.startsWith(`${path}[`));
  }

  leaf(p, label, size) {
    return `<span class="f" data-path="${esc(p)}">${esc(label)}<span class="n">${size}</span></span>`;
  }

  // A document's tree, from the document the explainer read: every object,
  // array item, map entry, union value and null, each with the bytes it owns
  // itself, or "no bytes in FORMAT" when none at or below it are written.
  renderDocument(doc) {
    const html = [];
    const seen = new Set();
    // Every path that has bytes at or below it: the paths and their prefixes.
    const written = new Set();
    for (const p of this.paths) {
      written.add(p);
      for (let i = 0; i < p.length; i++) if (p[i] === '.' || p[i] === '[') written.add(p.slice(0, i));
    }
    const node = (p, label, v) => {
      seen.add(p);
      const kids = v !== null && typeof v === 'object'
        ? (Array.isArray(v) ? v.map((c, i) => [`${p}[${i}]`, `[${i}]`, c])
          : Object.entries(v).map(([k, c]) => [p ? `${p}.${k}` : k, k, c]))
        : null;
      const own = this.bytesOf(p || '(envelope)');
      const size = written.has(p || '(envelope)') ? `${own} B` : `no bytes in ${this.data.format}`;
      const text = kids ? '' : `: ${JSON.stringify(v).slice(0, 40)}`;
      const f = this.leaf(p || '(envelope)', p ? `${label}${text}` : '(envelope)', size);
      if (!kids) return void html.push(f);
      if (p) html.push(`<details open><summary>${f}</summary>`);
      else html.push(f);
      for (const [cp, cl, c] of kids) node(cp, cl, c);
      if (p) html.push('</details>');
    };
    node('', '', doc);
    // Paths the document does not hold stay reachable.
    const rest = this.paths.filter((p) => p !== '(envelope)' && !seen.has(p));
    return rest.map((p) => this.leaf(p, p, `${this.bytesOf(p)} B`)).join('') + html.join('');
  }

  renderTree() {
    if (this.data.document !== undefined) {
      this.treeEl.innerHTML = this.renderDocument(this.data.document);
      this.indexTree();
      return;
    }
    const products = new Map();
    const top = [];
    for (const p of this.paths) {
      const m = /^products\[(\d+)\]/.exec(p);
      if (!m) { top.push(p); continue; }
      if (!products.has(m[1])) products.set(m[1], []);
      products.get(m[1]).push(p);
    }
    const leaf = (p, label) =>
      `<span class="f" data-path="${esc(p)}">${esc(label)}<span class="n">${this.bytesOf(p)} B</span></span>`;
    const html = top.map((p) => leaf(p, p));
    for (const [i, paths] of products) {
      html.push(`<details data-product="${i}"${i === '0' ? ' open' : ''}><summary>products[${i}]</summary>`);
      for (const p of paths) html.push(leaf(p, p === `products[${i}]` ? '(framing)' : p.slice(p.indexOf('.') + 1)));
      html.push('</details>');
    }
    this.treeEl.innerHTML = html.join('');
    this.indexTree();
  }

  indexTree() {
    this.treeNodes = new Map();
    for (const el of this.treeEl.querySelectorAll('.f')) this.treeNodes.set(el.dataset.path, el);
  }

  bind() {
    const spanOf = (e) => e.target.closest('.s');
    this.hexEl.onclick = (e) => { const el = spanOf(e); if (el) this.selectSpan(+el.dataset.s, true); };
    this.hexEl.onmouseover = (e) => { const el = spanOf(e); if (el) this.preview(+el.dataset.s); };
    this.hexEl.onkeydown = (e) => this.key(e);
    if (this.treeEl) {
      this.treeEl.onclick = (e) => {
        const el = e.target.closest('.f');
        if (!el) return;
        if (el.closest('summary')) e.preventDefault(); // select, not fold
        this.selectPath(el.dataset.path, true);
      };
      this.treeEl.onkeydown = (e) => this.key(e);
    }
  }

  key(e) {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
    const fieldStep = { ArrowDown: 1, ArrowUp: -1 }[e.key];
    if (step) {
      this.selectSpan(Math.max(0, Math.min(this.spans.length - 1, this.cur + step)), true);
    } else if (fieldStep) {
      const i = this.paths.indexOf(this.path);
      const next = this.paths[Math.max(0, Math.min(this.paths.length - 1, i + fieldStep))];
      this.selectPath(next, true);
    } else if (e.key === 'Escape') {
      this.clear();
    } else {
      return;
    }
    e.preventDefault();
  }

  clear() {
    for (const el of this.lit) el.classList.remove('hl', 'cur');
    this.lit = [];
    this.cur = -1;
    this.path = null;
  }

  light(el, cls) {
    el.classList.add(cls);
    this.lit.push(el);
  }

  lightPath(path) {
    for (const k of this.byPath.get(path) || []) for (const el of this.pieces[k]) this.light(el, 'hl');
    const node = this.treeNodes && this.treeNodes.get(path);
    if (node) {
      this.light(node, 'hl');
      const d = node.closest('details');
      if (d) d.open = true;
    }
    return node;
  }

  preview(k) {
    this.show(k);
  }

  // Bytes → field: the span, every field it belongs to, and that field's bytes.
  selectSpan(k, user) {
    const t0 = performance.now();
    this.clear();
    const s = this.spans[k];
    if (!s) return;
    this.cur = k;
    this.path = s.fields[0];
    let node = null;
    for (const p of s.fields) node = this.lightPath(p) || node;
    for (const el of this.pieces[k]) this.light(el, 'cur');
    this.show(k);
    if (user) {
      if (node) node.scrollIntoView({ block: 'nearest' });
      if (this.onSelectPath) this.onSelectPath(this, this.path);
    }
    void this.hexEl.offsetHeight; // the time includes style and layout
    window.wb.timings.select_ms = performance.now() - t0;
  }

  // Field → bytes: every span the field owns, wherever it is; with
  // `subtree`, every span of the paths below it as well.
  selectPath(path, user, subtree) {
    const t0 = performance.now();
    this.clear();
    const paths = subtree ? this.under(path) : [path];
    const list = [...new Set(paths.flatMap((p) => this.byPath.get(p) || []))].sort((a, b) => a - b);
    this.path = path;
    for (const p of paths) this.lightPath(p);
    if (list.length) {
      this.cur = list[0];
      for (const el of this.pieces[list[0]]) this.light(el, 'cur');
      const first = this.pieces[list[0]][0];
      if (first) first.scrollIntoView({ block: 'nearest' });
    }
    this.showPath(path, list);
    if (user && this.onSelectPath) this.onSelectPath(this, path);
    void this.hexEl.offsetHeight;
    window.wb.timings.select_ms = performance.now() - t0;
  }

  rawHex(s) {
    const n = Math.min(s.length, 48);
    const hex = [];
    for (let i = s.offset; i < s.offset + n; i++) hex.push(HEX[this.bytes[i]]);
    return hex.join(' ') + (s.length > n ? ` … (${s.length - n} more)` : '');
  }

  show(k) {
    if (!this.detailEl) return;
    const s = this.spans[k];
    this.detailEl.textContent =
      `${this.data.format}  offset ${s.offset}, ${s.length} byte${s.length === 1 ? '' : 's'} (${s.category})\n` +
      `bytes: ${this.rawHex(s)}\nmeaning: ${s.meaning}\nfields: ${s.fields.join(', ')}` + this.text(s);
  }

  // The whole decoded text of a value's bytes, as a JSON string (the meaning
  // shows at most 40 characters); nothing for bytes that are not UTF-8.
  text(s) {
    if (s.category !== 'value' || s.length < 41) return '';
    try {
      const t = UTF8.decode(this.bytes.subarray(s.offset, s.offset + s.length));
      return `\ntext: ${JSON.stringify(t)}`;
    } catch {
      return '';
    }
  }

  showPath(path, list) {
    if (!this.detailEl) return;
    const n = list.reduce((a, k) => a + this.spans[k].length, 0);
    const first = this.spans[list[0]];
    this.detailEl.textContent = `${this.data.format}  ${path}: ${n} bytes in ${list.length} spans` +
      (first ? `\nfirst at offset ${first.offset}: ${this.rawHex(first)}\nmeaning: ${first.meaning}` : '');
  }
}

// ---- page state ----

const state = { view: 'explore', payload: 'catalog', format: 'json', count: 1, compression: 'none' };

function readHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  for (const k of Object.keys(state)) if (h.has(k)) state[k] = k === 'count' ? +h.get(k) : h.get(k);
  state.count = Math.max(1, Math.min(+$('count').max || 20, Math.floor(state.count) || 1));
  $('format').value = state.format;
  $('count').value = state.count;
  $('compression').value = state.compression;
  $('payload').value = state.payload;
}

function writeHash() {
  history.replaceState(null, '', '#' + new URLSearchParams(state).toString());
}

function explainUrl(format) {
  const shared = format === 'flatbuffers-shared';
  const f = shared ? 'flatbuffers' : format;
  if (state.payload === 'data') return `/explain/${f}?payload=data&compression=${state.compression}`;
  return `/explain/${f}?count=${state.count}&compression=${state.compression}${shared ? '&share=strings' : ''}`;
}

function note(text) {
  $('detail').textContent = text;
}

let renders = 0;
async function timed(name, work) {
  const t0 = performance.now();
  try {
    await work();
  } catch (e) {
    note(String(e));
    return;
  }
  window.wb.timings[name] = performance.now() - t0;
  if (renders++ === 0) window.wb.timings.first_render_ms = performance.now();
  window.wb.timings.renders = renders;
}

async function showExplore() {
  await timed('render_ms', async () => {
    const t0 = performance.now();
    const data = await getJSON(explainUrl(state.format));
    const t1 = performance.now();
    const ex = new Explorer($('tree'), $('hex'), $('detail'), data, null);
    const t2 = performance.now();
    void $('hex').offsetHeight;
    Object.assign(window.wb.timings, { fetch_ms: t1 - t0, build_ms: t2 - t1, layout_ms: performance.now() - t2 });
    window.wb.explorers = { explore: ex };
    $('sizes').textContent = `${data.bytes} bytes, ${data.gzip_bytes} gzipped` +
      (data.error ? `; stops at byte ${data.error.offset}: ${data.error.message}` : '');
  });
}

async function showCompare() {
  await timed('compare_ms', async () => {
    const all = await Promise.all(FORMATS.map((f) => getJSON(explainUrl(f))));
    const five = $('five');
    five.innerHTML = FORMATS.map((f) =>
      `<div class="col"><h3>${f}</h3><div class="pane hex" id="hex-${f}" tabindex="0"></div></div>`).join('');
    const explorers = {};
    // A document's rows are its root members: each selects all its bytes.
    const doc = state.payload === 'data';
    const sync = (from, path) => {
      for (const ex of Object.values(explorers)) if (ex !== from) ex.selectPath(path, false, doc && !from);
      for (const tr of $('bars').querySelectorAll('tr')) tr.classList.toggle('hl', barPath(tr.dataset.field) === path);
    };
    all.forEach((d, i) => {
      explorers[FORMATS[i]] = new Explorer(null, $(`hex-${FORMATS[i]}`), $('detail'), d, sync);
    });
    window.wb.explorers = explorers;
    // The catalog's rows are its product fields; a document's, its root members.
    const names = doc ? Object.keys(all[0].by_member) : FIELD_ROWS;
    const count = (d, f) => (doc ? d.by_member[f] : d.summary.by_field[f]) || 0;
    const max = Math.max(1, ...all.flatMap((d) => names.map((f) => count(d, f))));
    const rows = names.map((f) => `<tr data-field="${esc(f)}"><td>${esc(f)}</td>` + all.map((d) => {
      const n = count(d, f);
      return `<td><span class="bar" style="width:${(120 * n / max).toFixed(1)}px"></span> ${n}</td>`;
    }).join('') + '</tr>');
    const what = doc ? 'member of the document' : `field (all ${state.count} products)`;
    $('bars').innerHTML = `<table><tr><th>bytes per ${what}</th>` +
      FORMATS.map((f) => `<th>${f}</th>`).join('') + '</tr>' + rows.join('') +
      '<tr><td><b>total</b></td>' + all.map((d) => `<td><b>${d.bytes}</b> (gzip ${d.gzip_bytes})</td>`).join('') + '</tr></table>';
    $('bars').onclick = (e) => {
      const tr = e.target.closest('tr[data-field]');
      if (!tr) return;
      sync(null, barPath(tr.dataset.field));
    };
  });
}

async function showLab() {
  await timed('lab_ms', async () => {
    const { cells } = await getJSON('/lab');
    if (!cells.length) {
      $('matrix').textContent = 'The evolution lab is not loaded in this server.';
      return;
    }
    const dirs = [...new Set(cells.map((c) => c.direction))];
    const keys = [...new Set(cells.map((c) => `${c.step}\u0000${c.row}`))];
    const at = new Map(cells.map((c) => [`${c.step}\u0000${c.row}\u0000${c.direction}`, c]));
    const html = [`<table><tr><th>step</th><th>reader</th>${dirs.map((d) => `<th>${esc(d)}</th>`).join('')}</tr>`];
    for (const k of keys) {
      const [step, row] = k.split('\u0000');
      html.push(`<tr><td>${esc(step)}</td><td>${esc(row)}</td>`);
      for (const d of dirs) {
        const c = at.get(`${k}\u0000${d}`);
        html.push(c ? `<td class="c ${c.class}" data-id="${c.id}" title="${esc(c.outcome)}">${c.class}</td>` : '<td></td>');
      }
      html.push('</tr>');
    }
    $('matrix').innerHTML = html.join('') + '</table>';
    $('matrix').onclick = (e) => {
      const td = e.target.closest('td.c');
      if (td) openCell(td);
    };
  });
}

async function openCell(td) {
  for (const o of $('matrix').querySelectorAll('td.open')) o.classList.remove('open');
  td.classList.add('open');
  try {
    const d = await getJSON(`/lab/${td.dataset.id}`);
    $('cell').hidden = false;
    $('cell-title').textContent = `${d.step} (${d.change}): ${d.row}, ${d.direction}`;
    $('cell-outcome').textContent = `reader: ${d.outcome}` +
      (d.error ? ` — the v1 explainer stops at byte ${d.error.offset}: ${d.error.message}` : '');
    window.wb.explorers = { cell: new Explorer($('cell-tree'), $('cell-hex'), $('detail'), d, null) };
    window.wb.timings.cell_opened = td.dataset.id;
  } catch (e) {
    note(String(e));
  }
}

async function show() {
  writeHash();
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('on', b.dataset.view === state.view);
  for (const v of ['explore', 'compare', 'lab']) $(`view-${v}`).hidden = v !== state.view;
  $('controls').hidden = state.view === 'lab';
  $('format').disabled = state.view !== 'explore';
  $('count').disabled = state.payload === 'data';
  window.wb.ready = false;
  if (state.view === 'explore') await showExplore();
  else if (state.view === 'compare') await showCompare();
  else await showLab();
  window.wb.ready = true;
}

async function main() {
  // What the server offers, fetched beside the first payload, not before it.
  const info = getJSON('/page/info.json').then((info) => {
    $('results-link').hidden = !info.results;
    $('payload-choice').hidden = !info.data;
  }, (e) => note(String(e)));
  readHash();
  for (const b of document.querySelectorAll('#tabs button')) {
    b.onclick = () => { state.view = b.dataset.view; show(); };
  }
  $('format').onchange = () => { state.format = $('format').value; show(); };
  $('payload').onchange = () => {
    state.payload = $('payload').value;
    // Shared strings are a builder option of the catalog.
    if (state.payload === 'data' && state.format === 'flatbuffers-shared') state.format = 'flatbuffers';
    $('format').value = state.format;
    show();
  };
  $('count').onchange = () => { readCount(); show(); };
  $('compression').onchange = () => { state.compression = $('compression').value; show(); };
  await Promise.all([show(), info]);
}

function readCount() {
  state.count = Math.max(1, Math.min(+$('count').max || 20, +$('count').value || 1));
  $('count').value = state.count;
}

main();
