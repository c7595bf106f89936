import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { named, testStores, type TestStores } from '../helpers/backend.ts';
import { cli, createToken, request, spawnServe, type SpawnedServer } from './serve-helpers.ts';

/**
 * The web inspector in a real browser: Debian's chromium (/usr/bin/chromium,
 * the apt package; never a downloaded browser) driven by playwright-core.
 * Without chromium the file skips and says so, unless
 * MNEMOS_TEST_REQUIRE_BROWSER=1 (.ci/run sets it), where that is a failure.
 */

const CHROMIUM = process.env.MNEMOS_TEST_CHROMIUM || '/usr/bin/chromium';
const REQUIRED = process.env.MNEMOS_TEST_REQUIRE_BROWSER === '1';
const MISSING = existsSync(CHROMIUM) ? null : `${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium) to run the web inspector's browser test`;
if (MISSING && !REQUIRED) process.stderr.write(`inspector-browser: SKIPPED: ${MISSING}\n`);

const XSS = '<img src=x onerror="window.__mnemosXss = 1"> glimmerwick trap <script>window.__mnemosXss = 2</script>';
const PAGE_SIZE = 20;

describe(named('web inspector in a browser'), { skip: MISSING && !REQUIRED ? MISSING : false }, () => {
  let t: TestStores;
  let server: SpawnedServer;
  let owner: string;
  let guest: string;
  let browser: Browser;
  let page: Page;
  /** What the page must never do: run injected code, break its CSP, log errors. */
  const problems: string[] = [];
  const ids: string[] = [];

  before(async () => {
    assert.ok(!MISSING, `${MISSING} (MNEMOS_TEST_REQUIRE_BROWSER=1)`);
    t = testStores('mnemos-inspector-browser-');
    owner = (await createToken(t.db, 'owner')).token;
    guest = (await createToken(t.db, 'guest')).token;
    server = await spawnServe(t.db, ['--consolidate-every-ms', '0', '--search-threads', '0']);
    // Enough memories for two list pages; stored one by one, so each has its own recorded time order.
    const batch = Array.from({ length: PAGE_SIZE + 5 }, (_, i) => ({ text: `Lantern note ${i + 1}: the harbour lamp number ${i + 1} was relit`, type: 'fact', key: `note-${i + 1}` }));
    const stored = await request(server.url, 'POST', '/v1/memories', owner, { memories: batch });
    assert.equal(stored.status, 201, JSON.stringify(stored.body));
    ids.push(...stored.body.results.map((r: { id: string }) => r.id));
    assert.equal((await request(server.url, 'POST', '/v1/memories', owner, { text: XSS, type: 'fact', visibility: 'public' })).status, 201);
    assert.equal((await request(server.url, 'POST', '/v1/memories', owner, { text: 'The owner-only glimmerwick vault code is 5521', type: 'fact' })).status, 201);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], timeout: 30_000 });
    page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    // A failed load is told by its response (the browser's console line names no URL): the 401 and 400 the
    // error tests ask for are expected; a missing file (the icon included: the page names its own) or a server
    // error is not.
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`);
    });
    page.on('response', (r) => {
      if (r.status() === 404 || r.status() >= 500) problems.push(`${r.status()} ${r.url()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await t?.cleanup();
  });

  const signIn = async (token: string) => {
    await page.goto(`${server.url}/inspector`);
    if (await page.locator('#nav').isVisible()) await page.click('#sign-out');
    await page.fill('#token-input', token);
    await page.click('#token-form button[type=submit]');
  };

  it(named('a token typed in opens the status view; it is kept in sessionStorage only, never in the URL'), async () => {
    await signIn(owner);
    await page.locator('#self-out table').waitFor();
    assert.match(await page.locator('#status-out').innerText(), /total/);
    assert.match(await page.locator('#self-out').innerText(), /web_inspector\s+on/);
    // Strings, not functions: the tests compile without the DOM's types.
    assert.equal(await page.evaluate("sessionStorage.getItem('mnemos.inspector.token')"), owner);
    assert.equal(await page.evaluate('localStorage.length'), 0);
    assert.ok(!page.url().includes(owner), page.url());
    assert.equal(await page.locator('#error').isVisible(), false);
  });

  it(named('search shows ranked results with scores and why each matched, and opens a memory by its history'), async () => {
    await page.click('#nav button[data-view=search]');
    await page.fill('#search-input', 'harbour lamp 7');
    await page.click('#search-form button[type=submit]');
    await page.locator('#search-out li.hit').first().waitFor();
    assert.match(await page.locator('#search-summary').innerText(), /results? for "harbour lamp 7"/);
    const first = page.locator('#search-out li.hit').first();
    assert.match(await first.locator('.score').innerText(), /^score \d\.\d{4}$/);
    assert.match(await first.locator('.text').innerText(), /harbour lamp number 7 /);
    assert.match(await first.locator('.why').innerText(), /terms .*harbour.*ranked .*#1/);
    const id = await first.locator('button[data-memory-id]').getAttribute('data-memory-id');
    await first.locator('button[data-memory-id]').click();
    await page.locator('#view-detail .version').first().waitFor();
    assert.equal(await page.locator('#detail-id').innerText(), id);
    assert.match(await page.locator('#detail-out .version .text').first().innerText(), /harbour lamp number 7 /);
    assert.match(await page.locator('#detail-out table').last().innerText(), /create/);
    // Looking was not a recall: the memory's access count is what it was.
    const history = await request(server.url, 'GET', `/v1/memories/${id}/history`, owner);
    assert.equal(history.body.versions[0].accessCount, 0);
  });

  it(named('the list pages with nextCursor: two pages, no memory twice, back to the first'), async () => {
    await page.click('#nav button[data-view=list]');
    await page.locator('#list-out li').first().waitFor();
    const total = PAGE_SIZE + 7;
    assert.equal(await page.locator('#list-summary').innerText(), `memories 1–${PAGE_SIZE} of ${total} (page 1)`);
    assert.equal(await page.locator('#list-out li').count(), PAGE_SIZE);
    const pageOne = await page.locator('#list-out button[data-memory-id]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-memory-id')));
    assert.equal(await page.locator('#list-prev').isDisabled(), true);
    await page.click('#list-next');
    await page.locator('#list-summary', { hasText: 'page 2' }).waitFor();
    assert.equal(await page.locator('#list-summary').innerText(), `memories ${PAGE_SIZE + 1}–${total} of ${total} (page 2)`);
    const pageTwo = await page.locator('#list-out button[data-memory-id]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-memory-id')));
    assert.equal(pageTwo.length, total - PAGE_SIZE);
    assert.equal(new Set([...pageOne, ...pageTwo]).size, total, 'no memory on both pages');
    for (const id of ids) assert.ok(pageOne.includes(id) || pageTwo.includes(id), id);
    assert.equal(await page.locator('#list-next').isDisabled(), true);
    await page.click('#list-prev');
    await page.locator('#list-summary', { hasText: 'page 1' }).waitFor();
    assert.deepEqual(await page.locator('#list-out button[data-memory-id]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-memory-id'))), pageOne);
  });

  it(named('a memory holding HTML is shown as text: no element made from it, no script run'), async () => {
    await page.click('#nav button[data-view=search]');
    await page.fill('#search-input', 'glimmerwick trap');
    await page.click('#search-form button[type=submit]');
    const hit = page.locator('#search-out li.hit', { hasText: 'glimmerwick trap' });
    await hit.waitFor();
    assert.equal(await hit.locator('.text').textContent(), XSS);
    await hit.locator('button[data-memory-id]').click();
    await page.locator('#view-detail .version').first().waitFor();
    assert.equal(await page.locator('#detail-out .version .text').first().textContent(), XSS);
    await page.click('#nav button[data-view=list]');
    await page.locator('#list-out li', { hasText: 'glimmerwick trap' }).waitFor();
    assert.equal(await page.locator('main img, main script').count(), 0, 'no element was made from the text');
    assert.equal(await page.evaluate('typeof window.__mnemosXss'), 'undefined');
    assert.deepEqual(problems, []);
  });

  it(named("a refused input is shown as the server said it, naming the field (the page does not cut or check it itself)"), async () => {
    await page.click('#nav button[data-view=search]');
    await page.fill('#search-input', 'lamp '.repeat(801));
    await page.click('#search-form button[type=submit]');
    await page.locator('#error').waitFor();
    assert.match(await page.locator('#error').innerText(), /^400 validation_failed: .*\(field: query\)/s);
    // The next good search clears it.
    await page.fill('#search-input', 'harbour lamp');
    await page.click('#search-form button[type=submit]');
    await page.locator('#search-summary', { hasText: 'for "harbour lamp"' }).waitFor();
    assert.equal(await page.locator('#error').isVisible(), false);
  });

  it(named('errors are shown plainly: a wrong token is 401 and asks again; a guest sees only what a guest may'), async () => {
    await signIn('not-a-real-token');
    await page.locator('#error').waitFor();
    assert.match(await page.locator('#error').innerText(), /^401 unauthorized: /);
    assert.equal(await page.locator('#view-token').isVisible(), true);
    await signIn(guest);
    await page.locator('#self-out table').waitFor();
    await page.click('#nav button[data-view=list]');
    await page.locator('#list-out li').first().waitFor();
    assert.equal(await page.locator('#list-summary').innerText(), 'memories 1–1 of 1 (page 1)');
    assert.equal(await page.locator('#list-out li .text').textContent(), XSS);
    await page.click('#nav button[data-view=search]');
    await page.fill('#search-input', 'glimmerwick vault code');
    await page.click('#search-form button[type=submit]');
    await page.locator('#search-summary', { hasText: 'for "glimmerwick vault code"' }).waitFor();
    assert.ok(!(await page.locator('#search-out').innerText()).includes('5521'), 'the owner-only memory is not shown to a guest');
    assert.deepEqual(problems, []);
  });

  it(named("a long memory first on the page: every row shows its own beginning, the long one says where it is cut and offers the whole"), async () => {
    // 60,000 characters is the most one list or search answer carries: this memory alone is more. Spent in page
    // order it took all of them, and every memory after it on the page said "No text shown"; each row now has
    // its share (60,000 / 20 = 3,000 characters: maxCharsEach).
    const long = `Zephyrine ledger opens. ${'the tide tables of the north quay '.repeat(2_100)}zephyrine ledger closes.`;
    assert.ok(long.length > 70_000);
    const stored = await request(server.url, 'POST', '/v1/memories', owner, { text: long, type: 'fact' });
    assert.equal(stored.status, 201, JSON.stringify(stored.body));
    await signIn(owner);
    await page.locator('#self-out table').waitFor();
    await page.click('#nav button[data-view=list]');
    await page.locator('#list-out li').first().waitFor();
    const first = page.locator('#list-out li').first();
    const shownText = (await first.locator('.text').textContent())!;
    assert.equal(shownText.length, 3_000);
    assert.ok(long.startsWith(shownText));
    assert.match(await first.locator('.cut').innerText(), /The text is cut here: a page shows at most the first 3,000 characters of each memory/);
    // Every memory after it shows its own text, whole: the long one's note is the page's only one.
    assert.equal(await page.locator('#list-out li').count(), PAGE_SIZE);
    assert.equal(await page.locator('#list-out .cut').count(), 1);
    assert.equal(await page.locator('#list-out li .text').count(), PAGE_SIZE);
    for (let i = 1; i < PAGE_SIZE; i++) assert.ok((await page.locator('#list-out li').nth(i).locator('.text').textContent())!.length > 0, `row ${i + 1} shows its text`);
    assert.match(await page.locator('#list-out li').nth(1).locator('.text').innerText(), /harbour master keeps the tide bell|ferry timetable|القاهرة|Lantern note|glimmerwick/);
    assert.doesNotMatch(await page.locator('#list-out').innerText(), /No text shown/);
    // The next page is another answer: its texts are whole, and carry no note.
    await page.click('#list-next');
    await page.locator('#list-summary', { hasText: 'page 2' }).waitFor();
    assert.equal(await page.locator('#list-out .cut').count(), 0);
    assert.match(await page.locator('#list-out li .text').first().innerText(), /Lantern note/);
    await page.click('#list-first');
    await page.locator('#list-summary', { hasText: 'page 1' }).waitFor();
    await first.locator('button[data-whole-text]').click();
    await page.locator('#view-detail .version').first().waitFor();
    assert.equal(await page.locator('#detail-out .version .text').first().textContent(), long);
    // Search cuts the same way and says so the same way.
    await page.click('#nav button[data-view=search]');
    await page.fill('#search-input', 'zephyrine ledger');
    await page.press('#search-input', 'Enter');
    const hit = page.locator('#search-out li.hit', { hasText: 'Zephyrine ledger opens' });
    await hit.waitFor();
    assert.match(await hit.locator('.cut').innerText(), /cut here: a page shows at most the first 3,000 characters/);
    assert.equal((await hit.locator('.text').textContent())!.length, 3_000, '20 results a page: 3,000 characters each');
    assert.doesNotMatch((await hit.locator('.text').textContent())!, /closes\.$/);
    assert.deepEqual(problems, []);
  });

  it(named('right-to-left memory text reads right to left in the page'), async () => {
    const arabic = 'ذهبت إلى السوق في القاهرة يوم الأحد (3 أشياء)';
    assert.equal((await request(server.url, 'POST', '/v1/memories', owner, { text: arabic, type: 'fact' })).status, 201);
    await page.click('#nav button[data-view=list]');
    const item = page.locator('#list-out li', { hasText: 'القاهرة' });
    await item.waitFor();
    assert.equal(await item.locator('.text').textContent(), arabic);
    assert.equal(await item.locator('.text').evaluate((n) => (globalThis as any).getComputedStyle(n).direction), 'rtl');
    await page.click('#list-next');
    await page.locator('#list-summary', { hasText: 'page 2' }).waitFor();
    assert.equal(await page.locator('#list-out li .text').first().evaluate((n) => (globalThis as any).getComputedStyle(n).direction), 'ltr');
  });

  it(named("forgetting the token empties every view: the next token (a guest) finds nothing the owner's showed"), async () => {
    await signIn(owner);
    await page.locator('#self-out table').waitFor();
    await page.click('#nav button[data-view=search]');
    await page.fill('#search-input', 'glimmerwick vault code');
    await page.press('#search-input', 'Enter');
    await page.locator('#search-out li.hit', { hasText: '5521' }).waitFor();
    // No reload between the two tokens: the page stays, as it does for a user.
    await page.click('#sign-out');
    assert.equal(await page.evaluate("sessionStorage.getItem('mnemos.inspector.token')"), null);
    await page.fill('#token-input', guest);
    await page.press('#token-input', 'Enter');
    await page.locator('#self-out table').waitFor();
    await page.click('#nav button[data-view=search]');
    assert.equal(await page.locator('#search-out li').count(), 0);
    assert.equal(await page.locator('#search-summary').innerText(), '');
    assert.equal(await page.locator('#search-input').inputValue(), '');
    assert.ok(!(await page.locator('body').textContent())!.includes('5521'), 'nothing of the owner is left in the page');
  });

  it(named('a token revoked while the page is open: the next request is 401, the token is dropped and the page shows nothing more'), async () => {
    const doomed = await createToken(t.db, 'owner');
    await signIn(doomed.token);
    await page.locator('#self-out table').waitFor();
    await page.click('#nav button[data-view=list]');
    await page.locator('#list-out li').first().waitFor();
    await cli(['token', 'revoke', doomed.id, '--db', t.db]);
    await page.click('#list-next');
    await page.locator('#error').waitFor();
    assert.match(await page.locator('#error').innerText(), /^401 unauthorized: /);
    assert.equal(await page.locator('#view-token').isVisible(), true);
    assert.equal(await page.locator('#nav').isVisible(), false);
    assert.equal(await page.evaluate("sessionStorage.getItem('mnemos.inspector.token')"), null);
    assert.equal(await page.locator('#list-out li').count(), 0);
    assert.equal(await page.locator('#status-out').textContent(), '');
  });

  it(named('a server that cannot be reached is said plainly, and the token is kept for when it is back'), async () => {
    await signIn(owner);
    await page.locator('#self-out table').waitFor();
    // The connection refused as by a stopped server, for this one route.
    await page.route('**/v1/memories?*', (r) => r.abort('connectionrefused'));
    try {
      await page.click('#nav button[data-view=list]');
      await page.locator('#error').waitFor();
      assert.match(await page.locator('#error').innerText(), /could not reach the Mnemos server at http:\/\/127\.0\.0\.1:\d+ .*Is mnemos serve still running\?/s);
      assert.equal(await page.evaluate("sessionStorage.getItem('mnemos.inspector.token')"), owner);
      assert.equal(await page.locator('#busy').isVisible(), false);
    } finally {
      await page.unroute('**/v1/memories?*');
    }
    await page.click('#nav button[data-view=list]');
    await page.locator('#list-out li').first().waitFor();
    assert.equal(await page.locator('#error').isVisible(), false);
  });

  it(named('the list in another order and with filters still pages by nextCursor: every memory once; a bad filter is the server\'s 400'), async () => {
    assert.equal((await request(server.url, 'POST', '/v1/memories', owner, { text: 'The harbour master keeps the tide bell', type: 'fact', tags: ['harbour-master'] })).status, 201);
    await signIn(owner);
    await page.locator('#self-out table').waitFor();
    const idsOf = () => page.locator('#list-out button[data-memory-id]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-memory-id')!));
    const walk = async (): Promise<string[]> => {
      const seen: string[] = [];
      for (let p = 1; ; p++) {
        await page.locator('#list-summary', { hasText: `(page ${p})` }).waitFor();
        seen.push(...(await idsOf()));
        if (await page.locator('#list-next').isDisabled()) return seen;
        await page.click('#list-next');
      }
    };
    await page.click('#nav button[data-view=list]');
    const newest = await walk();
    await page.selectOption('#list-order', 'recorded_asc');
    await page.click('#list-form button[type=submit]');
    await page.locator('#list-summary', { hasText: '(page 1)' }).waitFor();
    const oldest = await walk();
    assert.equal(new Set(oldest).size, oldest.length, 'no memory twice');
    assert.deepEqual([...oldest].sort(), [...newest].sort(), 'the same memories, none skipped');
    assert.equal(oldest.at(-1), newest[0], 'the newest is last');
    assert.match(await page.locator('#list-out li').last().innerText(), /tags harbour-master/);
    // Keyboard: Enter in a filter box applies it.
    await page.fill('#list-tags', 'harbour-master');
    await page.press('#list-tags', 'Enter');
    await page.locator('#list-summary', { hasText: 'matching the filters' }).waitFor();
    assert.equal(await page.locator('#list-summary').innerText(), 'memories 1–1 of 1 matching the filters (page 1)');
    assert.match(await page.locator('#list-out li .text').innerText(), /tide bell/);
    await page.fill('#list-types', 'gossip');
    await page.press('#list-types', 'Enter');
    await page.locator('#error').waitFor();
    assert.match(await page.locator('#error').innerText(), /^400 validation_failed: .*\(field: types/s);
    await page.fill('#list-types', '');
    await page.fill('#list-tags', '');
    await page.selectOption('#list-order', 'recorded_desc');
    await page.press('#list-tags', 'Enter');
    await page.locator('#list-summary', { hasText: `of ${newest.length} (page 1)` }).waitFor();
    assert.equal(await page.locator('#error').isVisible(), false);
  });

  it(named("the memory view shows a version's metadata and validity as text, and takes the keyboard focus"), async () => {
    const stored = await request(server.url, 'POST', '/v1/memories', owner, { text: 'The ferry timetable changed in spring', type: 'fact', metadata: { file: '<b>notes/ferry.md</b>', line: 12 }, sessionId: 'trip-7' });
    assert.equal(stored.status, 201, JSON.stringify(stored.body));
    await page.click('#nav button[data-view=search]');
    await page.fill('#search-input', 'ferry timetable');
    await page.press('#search-input', 'Enter');
    const open = page.locator('#search-out li.hit', { hasText: 'ferry timetable' }).locator('button[data-memory-id]');
    await open.focus();
    await page.keyboard.press('Enter');
    await page.locator('#view-detail .version').first().waitFor();
    assert.equal(await page.evaluate('document.activeElement.id'), 'detail-heading');
    const facts = await page.locator('#detail-out .version table').first().innerText();
    assert.match(facts, /"file": "<b>notes\/ferry\.md<\/b>"/);
    assert.match(facts, /"line": 12/);
    assert.match(facts, /trip-7/);
    assert.match(facts, /– now/);
    assert.equal(await page.locator('#detail-out b').count(), 0);
  });

  it(named('search pages on with "More results": the next page is appended, no result twice, until none follow'), async () => {
    await page.click('#nav button[data-view=search]');
    await page.selectOption('#search-max', '20');
    await page.fill('#search-input', 'harbour lamp relit');
    await page.press('#search-input', 'Enter');
    await page.locator('#search-summary', { hasText: 'for "harbour lamp relit"' }).waitFor();
    const idsShown = () => page.locator('#search-out li.hit button[data-memory-id]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-memory-id')!));
    assert.equal(await page.locator('#search-out li.hit').count(), 20);
    assert.match(await page.locator('#search-summary').innerText(), /^20 results for "harbour lamp relit" .*; more follow/);
    const first = await idsShown();
    // What one request of 50 answers is what the pages add up to.
    const whole = (await request(server.url, 'POST', '/v1/search', owner, { query: 'harbour lamp relit', maxResults: 50 })).body.results.map((h: { id: string }) => h.id);
    assert.ok(whole.length > 20 && whole.length < 40, `${whole.length} results: two pages of 20`);
    assert.equal(await page.locator('#search-more').isVisible(), true);
    // The form changed after the first page does not change the pages that follow: they continue that search.
    await page.fill('#search-input', 'something else');
    await page.click('#search-more');
    await page.locator('#search-summary', { hasText: `${whole.length} results for "harbour lamp relit"` }).waitFor();
    const both = await idsShown();
    assert.deepEqual(both.slice(0, 20), first, 'the first page stays');
    assert.equal(new Set(both).size, both.length, 'no result twice');
    assert.deepEqual(both, whole, 'the second page continues the first, in rank order');
    assert.equal(await page.locator('#search-more').isVisible(), false, 'nothing follows');
    assert.doesNotMatch(await page.locator('#search-summary').innerText(), /more follow/);
    // Focus moved to the first result the click added.
    assert.equal(await page.evaluate('document.activeElement.getAttribute("data-memory-id")'), both[20]);
    // A new search starts from its first page again.
    await page.fill('#search-input', 'harbour lamp relit');
    await page.selectOption('#search-max', '50');
    await page.press('#search-input', 'Enter');
    await page.locator('#search-summary', { hasText: /^2[5-9] results/ }).waitFor();
    assert.deepEqual(await idsShown(), whole);
    assert.doesNotMatch(await page.locator('#search-summary').innerText(), /more follow/);
    assert.equal(await page.locator('#search-more').isVisible(), false);
    assert.deepEqual(problems, []);
  });

  it(named('a guest pages through search results too, and never sees an owner-only memory on any page'), async () => {
    const publicNotes = Array.from({ length: 24 }, (_, i) => ({ text: `Quinceberry public almanac entry ${i + 1}`, type: 'fact', visibility: 'public' }));
    const ownerNotes = Array.from({ length: 10 }, (_, i) => ({ text: `Quinceberry owner-only almanac entry ${i + 1}`, type: 'fact' }));
    assert.equal((await request(server.url, 'POST', '/v1/memories', owner, { memories: [...publicNotes, ...ownerNotes] })).status, 201);
    await signIn(guest);
    await page.locator('#self-out table').waitFor();
    await page.click('#nav button[data-view=search]');
    await page.selectOption('#search-max', '20');
    await page.fill('#search-input', 'quinceberry almanac');
    await page.press('#search-input', 'Enter');
    await page.locator('#search-summary', { hasText: /^20 results .*more follow/ }).waitFor();
    await page.click('#search-more');
    await page.locator('#search-summary', { hasText: /^24 results for "quinceberry almanac"/ }).waitFor();
    assert.equal(await page.locator('#search-more').isVisible(), false);
    const texts = await page.locator('#search-out li.hit .text').allTextContents();
    assert.equal(texts.length, 24);
    assert.equal(new Set(texts).size, 24);
    assert.ok(texts.every((t) => t.startsWith('Quinceberry public almanac')), 'no owner-only memory on either page');
    await signIn(owner);
    await page.locator('#self-out table').waitFor();
    assert.deepEqual(problems, []);
  });

  it(named('search by type; a bad type is the server\'s 400'), async () => {
    await page.click('#nav button[data-view=search]');
    await page.selectOption('#search-max', '50');
    await page.fill('#search-input', 'harbour lamp relit');
    await page.press('#search-input', 'Enter');
    await page.locator('#search-summary', { hasText: /^2[5-9] results/ }).waitFor();
    // Every lantern note is a fact: none is an episode.
    await page.fill('#search-types', 'episode');
    await page.press('#search-types', 'Enter');
    await page.locator('#search-summary', { hasText: 'among episode' }).waitFor();
    assert.equal(await page.locator('#search-out li.hit').count(), 0);
    await page.fill('#search-types', 'fact, gossip');
    await page.press('#search-types', 'Enter');
    await page.locator('#error').waitFor();
    assert.match(await page.locator('#error').innerText(), /^400 validation_failed: .*\(field: types/s);
    await page.fill('#search-types', 'fact');
    await page.press('#search-types', 'Enter');
    await page.locator('#search-summary', { hasText: 'among fact' }).waitFor();
    assert.ok((await page.locator('#search-out li.hit').count()) >= 25);
    assert.equal(await page.locator('#error').isVisible(), false);
  });

  it(named("the server's browser check refusing the page is not blamed on the token"), async () => {
    // The real server's refusal of a foreign page: the page's own request, sent on with another site's Origin
    // (the browser will not change that header itself) and the server's answer handed back to the page.
    await page.route('**/v1/search', async (r) => r.fulfill({ response: await r.fetch({ headers: { ...r.request().headers(), origin: 'http://evil.example' } }) }));
    try {
      await page.click('#nav button[data-view=search]');
      await page.fill('#search-input', 'harbour lamp');
      await page.press('#search-input', 'Enter');
      await page.locator('#error').waitFor();
      const said = await page.locator('#error').innerText();
      assert.match(said, /^403 forbidden: requests from web pages at origin "http:\/\/evil\.example" are refused/);
      assert.match(said, /The server refused this page, not the token/);
      assert.doesNotMatch(said, /This token may not do that/);
    } finally {
      await page.unroute('**/v1/search');
    }
  });

  it(named('a slow answer shows that it is loading, and one the user moved away from does not pull them back'), async () => {
    let held: (() => Promise<void>) | null = null;
    const arrived = new Promise<void>((resolve) => {
      void page.route('**/v1/memories?*', (r) => {
        held = () => r.continue();
        resolve();
      });
    });
    try {
      await page.click('#nav button[data-view=list]');
      await arrived;
      assert.equal(await page.locator('#busy').isVisible(), true);
      assert.equal(await page.locator('body').getAttribute('aria-busy'), 'true');
      await page.click('#nav button[data-view=search]');
      const answered = page.waitForResponse((r) => r.url().includes('/v1/memories?'));
      await held!();
      await answered;
      // A round trip through the page after the answer: its handler has run by then.
      await page.evaluate('new Promise((r) => setTimeout(r, 0))');
      assert.equal(await page.locator('#view-search').isVisible(), true);
      assert.equal(await page.locator('#view-list').isVisible(), false);
      assert.equal(await page.locator('#busy').isVisible(), false);
    } finally {
      await page.unroute('**/v1/memories?*');
    }
    assert.deepEqual(problems, []);
  });
});
