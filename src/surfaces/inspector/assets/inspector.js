// The Mnemos web inspector. It only looks: every read goes through the server's /v1 JSON routes with the
// token the user typed, so it sees exactly what that token may see. Memory text is always put into the page
// as text (textContent), never as HTML: a memory is data written by whoever stored it.
'use strict';

(() => {
  // sessionStorage: the token lives as long as this tab, is never in a URL, and other tabs and sites never see it.
  const TOKEN_KEY = 'mnemos.inspector.token';
  const PAGE_SIZE = 20;
  // The most text the list and search routes may answer (MAX_ANSWER_CHARS): the default (20,000) is shared by
  // a whole page in page order, so one long memory left the rest of the page with empty texts.
  const MAX_CHARS = 60000;
  // Each memory's share of it (maxCharsEach): a long first memory used up the whole answer and every row after it
  // said "No text shown". With the answer split evenly every row shows its own beginning.
  const eachOf = (rows) => Math.floor(MAX_CHARS / rows);
  const $ = (id) => document.getElementById(id);

  /** An element with text (never HTML), attributes and children. */
  function el(tag, opts = {}, children = []) {
    const node = document.createElement(tag);
    if (opts.text !== undefined) node.textContent = String(opts.text);
    if (opts.className) node.className = opts.className;
    for (const [k, v] of Object.entries(opts.attrs ?? {})) node.setAttribute(k, v);
    if (opts.onClick) node.addEventListener('click', opts.onClick);
    for (const child of children) if (child) node.append(child);
    return node;
  }

  /** A value shown as text: strings as they are, anything else as indented JSON. */
  function shown(value) {
    if (value === null || value === undefined) return '—';
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
    return JSON.stringify(value, null, 2);
  }

  function table(headers, rows) {
    const head = el('tr', {}, headers.map((h) => el('th', { text: h })));
    const body = rows.map((cells) => el('tr', {}, cells.map((c) => el('td', {}, [c instanceof Node ? c : el('pre', { text: shown(c) })]))));
    return el('table', {}, [el('thead', {}, [head]), el('tbody', {}, body)]);
  }

  class ApiError extends Error {
    constructor(status, error) {
      super(error?.message ?? `the server answered ${status}`);
      this.status = status;
      this.code = error?.code ?? 'http_error';
      this.details = error?.details;
    }
  }

  async function api(method, path, body) {
    const token = sessionStorage.getItem(TOKEN_KEY);
    const headers = { Accept: 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res;
    try {
      res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
    } catch (err) {
      // The browser's own words ("Failed to fetch") say neither where nor what to do: a stopped or restarting server.
      throw new Error(`could not reach the Mnemos server at ${location.origin} (${err?.message ?? err}). Is mnemos serve still running? Try again once it is; the token is kept.`);
    }
    let data = null;
    try {
      data = await res.json();
    } catch {
      data = null;
    }
    if (!res.ok) throw new ApiError(res.status, data?.error);
    return data;
  }

  function clearError() {
    $('error').hidden = true;
    $('error').textContent = '';
  }

  /** Errors said plainly: the status, the server's code and its message (and the field it names, if any). */
  function showError(err) {
    const box = $('error');
    box.textContent = '';
    if (err instanceof ApiError) {
      let hint = {
        401: 'The token was not accepted: check it, or create one with mnemos token create.',
        403: 'This token may not do that.',
        400: 'The server refused the input.',
        404: 'Not found, or not visible to this token.',
      }[err.status];
      // A 403 naming a header is the server's browser check refusing this page, not the token's role.
      if (err.status === 403 && err.details?.header) hint = 'The server refused this page, not the token: see its message above.';
      box.append(el('strong', { text: `${err.status} ${err.code}` }), document.createTextNode(`: ${err.message}`));
      if (err.details?.field) box.append(document.createTextNode(` (field: ${err.details.field})`));
      if (hint) box.append(el('div', { text: hint }));
      // A token refused now (revoked while the page was open, or mistyped) is dropped with all it showed.
      if (err.status === 401) signOut();
    } else {
      box.append(el('strong', { text: 'error' }), document.createTextNode(`: ${err?.message ?? String(err)}`));
    }
    box.hidden = false;
  }

  const VIEWS = ['token', 'status', 'search', 'list', 'detail'];
  function showView(name) {
    for (const v of VIEWS) $(`view-${v}`).hidden = v !== name;
    for (const b of document.querySelectorAll('#nav button[data-view]')) {
      if (b.dataset.view === name) b.setAttribute('aria-current', 'page');
      else b.removeAttribute('aria-current');
    }
  }

  function showTokenForm() {
    $('nav').hidden = true;
    showView('token');
    $('token-input').focus();
  }

  /**
   * Everything the last token showed, emptied: the next token (a guest after an owner) must not find the owner's
   * search results or memory still in a view it opens without a new request.
   */
  function clearViews() {
    for (const id of ['status-out', 'self-out', 'search-out', 'list-out', 'detail-out']) $(id).replaceChildren();
    for (const id of ['search-summary', 'list-summary', 'detail-id']) $(id).textContent = '';
    $('search-form').reset();
    $('list-form').reset();
    searching = null;
    $('search-more').hidden = true;
    paging.filter = listFilter();
    paging.cursors = [null];
    paging.at = 0;
    paging.next = null;
    back = 'list';
  }

  function signOut() {
    sessionStorage.removeItem(TOKEN_KEY);
    generation += 1; // an answer still on its way was asked with the old token: it is not shown
    setBusy(false);
    clearViews();
    showTokenForm();
  }

  function setBusy(on) {
    $('busy').hidden = !on;
    document.body.setAttribute('aria-busy', on ? 'true' : 'false');
  }

  /**
   * One user action at a time: a click starts a new generation, and an answer from an older one (a slow list
   * page arriving after the user moved on to Search) is dropped instead of pulling the user back.
   * `work` gets `live()` to ask after each await.
   */
  let generation = 0;
  async function guarded(work) {
    clearError();
    const mine = ++generation;
    const live = () => mine === generation;
    setBusy(true);
    try {
      await work(live);
    } catch (err) {
      if (live()) showError(err);
    } finally {
      if (live()) setBusy(false);
    }
  }

  // Status: memory_status and self_state.
  async function loadStatus(live) {
    showView('status');
    const [status, self] = await Promise.all([api('GET', '/v1/status'), api('GET', '/v1/self')]);
    if (!live()) return;
    $('status-out').replaceChildren(table(['field', 'value'], Object.entries(status).map(([k, v]) => [k, v])));
    const parts = (self.parts ?? []).map((p) => [p.part, el('span', { text: p.state, className: `state-${p.state}` }), p.why, p.setting ?? '—']);
    const notes = (self.notes ?? []).map((n) => el('li', { text: n }));
    $('self-out').replaceChildren(el('p', { text: `backend: ${self.backend}` }), table(['part', 'state', 'why', 'setting'], parts), notes.length ? el('ul', {}, notes) : null);
  }

  function memoryLink(id, label) {
    return el('button', { text: label ?? id, className: 'link', attrs: { type: 'button', 'data-memory-id': id }, onClick: () => void guarded((live) => openMemory(id, live)) });
  }

  /**
   * A memory's text as the answer holds it. A text the server cut (maxCharsEach or maxChars; `truncated`) says so
   * where it stops and offers the whole, read from the history route: a shortened copy is never shown as if it
   * were whole. `each` is the per-memory share the page asked for.
   * dir=auto: an Arabic or Hebrew memory reads right to left in a left-to-right page.
   */
  function memoryText(m, each) {
    const text = el('div', { className: 'text', text: m.text, attrs: { dir: 'auto' } });
    if (!m.truncated) return [text];
    // The shares add up to the answer's budget, so only a server that cut otherwise leaves a row with no text.
    const note = el('p', { className: 'cut' }, [
      document.createTextNode(m.text ? `The text is cut here: a page shows at most the first ${each.toLocaleString('en')} characters of each memory. ` : `No text shown: one answer carries at most ${MAX_CHARS.toLocaleString('en')} characters of memory text, and the memories before this one used them. `),
      el('button', { text: 'Read the whole text', className: 'link', attrs: { type: 'button', 'data-whole-text': m.id }, onClick: () => void guarded((live) => openMemory(m.id, live)) }),
    ]);
    return m.text ? [text, note] : [note];
  }

  // Search: ranked results with their scores and why each matched, a page at a time. "More results" asks for
  // the next page of the same query (the answer's nextOffset), read from the form once, when the first page is
  // asked for, and appends it: every page is a slice of one ranking, so none repeats or skips a result.
  let searching = null;
  async function runSearch(query, live, more = false) {
    const s = more && searching ? searching : { query, types: commaList($('search-types').value), maxResults: Number($('search-max').value), offset: 0, shown: 0 };
    const { types, maxResults } = s;
    const each = eachOf(maxResults);
    const r = await api('POST', '/v1/search', { query: s.query, maxResults, offset: s.offset, maxChars: MAX_CHARS, maxCharsEach: each, ...(types.length ? { types } : {}) });
    if (!live()) return;
    searching = { ...s, offset: r.nextOffset, shown: s.shown + r.results.length };
    const lists = (r.lists ?? []).join(', ') || 'none';
    const among = types.length ? ` among ${types.join(', ')}` : '';
    // hasMore without a nextOffset: past the deepest page the server gives (offset 10,000).
    const tail = r.nextOffset !== null ? '; more follow' : r.hasMore ? '; more match, past the deepest page a search gives' : '';
    const n = searching.shown;
    $('search-summary').textContent = `${n} result${n === 1 ? '' : 's'} for "${r.query}"${among} (lists: ${lists})${tail}${r.fallback ? `; ${r.fallback}` : ''}`;
    const canonical = (r.canonical ?? []).map((c) => el('li', { className: 'canonical' }, [el('div', { className: 'meta', text: `settled fact ${c.key} (confidence ${c.confidence})` }), el('div', { className: 'text', text: c.statement ?? c.value, attrs: { dir: 'auto' } })]));
    const hits = r.results.map((h) => {
      const ranks = Object.entries(h.why?.ranks ?? {}).map(([list, rank]) => `${list} #${rank}`).join(', ');
      const terms = (h.why?.matchedTerms ?? []).join(', ');
      return el('li', { className: 'hit' }, [
        el('div', { className: 'meta' }, [el('span', { className: 'score', text: `score ${Number(h.score).toFixed(4)}` }), document.createTextNode(` · ${h.type} · valid from ${h.validFrom} · `), memoryLink(h.id, 'open')]),
        ...memoryText(h, each),
        el('div', { className: 'why', text: `why: ${terms ? `terms ${terms}` : 'no query terms'}; ${ranks ? `ranked ${ranks}` : 'no list ranks'}` }),
      ]);
    });
    if (s.offset === 0) $('search-out').replaceChildren(...canonical, ...hits);
    else $('search-out').append(...hits);
    $('search-more').hidden = r.nextOffset === null;
    // The button clicked may be gone: keyboard focus goes to the first new result, where reading goes on.
    if (s.offset > 0) hits[0]?.querySelector('button[data-memory-id]')?.focus();
  }

  // List: in the chosen order and filters, paged by the server's nextCursor; earlier cursors are kept for
  // "previous". A cursor is only good with the order and filters it came from, so they are read from the form
  // once, when the first page is asked for, and kept with the cursors.
  const commaList = (value) => value.split(',').map((v) => v.trim()).filter(Boolean);
  function listFilter() {
    return { order: $('list-order').value, types: commaList($('list-types').value), tags: commaList($('list-tags').value) };
  }
  const paging = { cursors: [null], at: 0, next: null, filter: null };
  async function loadList(at, live) {
    showView('list');
    const cursor = paging.cursors[at];
    if (at === 0) paging.filter = listFilter();
    const { order, types, tags } = paging.filter;
    const q = new URLSearchParams({ limit: String(PAGE_SIZE), maxChars: String(MAX_CHARS), maxCharsEach: String(eachOf(PAGE_SIZE)), order });
    // Array fields are the parameter repeated (the /v1 GET routes' form).
    for (const t of types) q.append('types', t);
    for (const t of tags) q.append('tags', t);
    if (cursor) q.set('cursor', cursor);
    const page = await api('GET', `/v1/memories?${q}`);
    if (!live()) return;
    paging.at = at;
    paging.next = page.nextCursor;
    paging.cursors.length = at + 1;
    if (page.nextCursor) paging.cursors.push(page.nextCursor);
    const first = at * PAGE_SIZE + 1;
    const filtered = types.length || tags.length ? ' matching the filters' : '';
    $('list-summary').textContent = page.items.length ? `memories ${first}–${first + page.items.length - 1} of ${page.total}${filtered} (page ${at + 1})` : `no memories${filtered} visible to this token (${page.total})`;
    $('list-out').replaceChildren(...page.items.map((m) => el('li', { className: 'item' }, [
      el('div', { className: 'meta' }, [document.createTextNode(`${m.type} · ${m.lifecycle} · ${m.visibility} · recorded ${m.recordedAt}${m.tags.length ? ` · tags ${m.tags.join(', ')}` : ''} · `), memoryLink(m.id, 'open')]),
      ...memoryText(m, eachOf(PAGE_SIZE)),
    ])));
    $('list-next').disabled = !page.nextCursor;
    $('list-prev').disabled = at === 0;
    $('list-first').disabled = at === 0;
  }

  // Detail: the history route (versions and audit), which, unlike GET /v1/memories/:id, recalls nothing.
  let back = 'list';
  async function openMemory(id, live) {
    const from = VIEWS.find((v) => !$(`view-${v}`).hidden);
    if (from && from !== 'detail') back = from;
    const h = await api('GET', `/v1/memories/${encodeURIComponent(id)}/history`);
    if (!live()) return;
    showView('detail');
    $('detail-id').textContent = h.lineageId;
    const out = [];
    if (h.tombstone) out.push(el('p', { className: 'tombstone', text: `forgotten at ${h.tombstone.forgottenAt}${h.tombstone.reason ? `: ${h.tombstone.reason}` : ''}` }));
    out.push(el('h3', { text: `Versions (${h.versions.length})` }));
    for (const v of h.versions) {
      out.push(el('div', { className: 'version' }, [
        el('div', { className: 'meta', text: `version ${v.version} · ${v.id} · ${v.type} · ${v.lifecycle} · ${v.visibility} · recorded ${v.recordedAt}${v.supersededAt ? ` · superseded ${v.supersededAt}` : ' · current'}` }),
        el('div', { className: 'text', text: v.text, attrs: { dir: 'auto' } }),
        // Everything a version holds besides its text, metadata included (an import's file and place, an agent's own
        // fields): looking at a memory must not need the JSON route. All of it goes in as text.
        table(['importance', 'salience', 'accessCount', 'tags', 'valid', 'expiresAt', 'session', 'agent', 'source', 'metadata'], [[
          v.importance, v.salience, v.accessCount, v.tags.join(', ') || '—', `${v.validFrom} – ${v.validTo ?? 'now'}`, v.expiresAt, v.sessionId, v.agentId, v.source, v.metadata,
        ]]),
      ]));
    }
    out.push(el('h3', { text: `Audit (${h.audit.length})` }));
    out.push(table(['at', 'action', 'actor', 'memory', 'details'], h.audit.map((e) => [e.at, e.action, e.actor ?? '—', e.memoryId, e.details])));
    $('detail-out').replaceChildren(...out);
    // The button that opened it is gone from view: keyboard focus moves to the memory's heading, not back to the top.
    $('detail-heading').focus();
  }

  function start() {
    $('token-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const token = $('token-input').value.trim();
      if (!token) return;
      clearViews();
      sessionStorage.setItem(TOKEN_KEY, token);
      $('token-input').value = '';
      $('nav').hidden = false;
      void guarded(loadStatus);
    });
    $('sign-out').addEventListener('click', () => {
      clearError();
      signOut();
    });
    for (const b of document.querySelectorAll('#nav button[data-view]')) {
      b.addEventListener('click', () => {
        const view = b.dataset.view;
        if (view === 'status') void guarded(loadStatus);
        else if (view === 'list') void guarded((live) => loadList(0, live));
        else {
          clearError();
          generation += 1; // nothing still loading elsewhere may pull the user back out of the search box
          setBusy(false);
          showView(view);
          $('search-input').focus();
        }
      });
    }
    $('search-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const query = $('search-input').value.trim();
      if (query) void guarded((live) => runSearch(query, live));
    });
    $('search-more').addEventListener('click', () => {
      if (searching?.offset) void guarded((live) => runSearch(searching.query, live, true));
    });
    $('list-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      void guarded((live) => loadList(0, live));
    });
    $('list-next').addEventListener('click', () => void guarded((live) => loadList(paging.at + 1, live)));
    $('list-prev').addEventListener('click', () => void guarded((live) => loadList(Math.max(0, paging.at - 1), live)));
    $('list-first').addEventListener('click', () => void guarded((live) => loadList(0, live)));
    $('detail-back').addEventListener('click', () => {
      clearError();
      if (back === 'list') void guarded((live) => loadList(paging.at, live));
      else {
        generation += 1;
        setBusy(false);
        showView(back);
      }
    });
    if (sessionStorage.getItem(TOKEN_KEY)) {
      $('nav').hidden = false;
      void guarded(loadStatus);
    } else showTokenForm();
  }

  start();
})();
