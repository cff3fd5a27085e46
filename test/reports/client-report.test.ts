// Client reports end to end: a store synced from the simulator over HTTP into a real cache, its reports
// written as files (core and CLI), opened in real Chromium with every request refused and recorded:
// nothing loads, no script runs, markup planted in a title and a hypothesis stays text, the charts are
// SVG, the figures are the cache's, and a test's report prints on at most two A4 pages.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '#core/types';
import { safeFileName } from '#core/reports/client/escape';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { runTsx } from '../hosts/support/spawn';
import { launchChromium } from '../support/chromium';
import { startCore, syncStore, tempDir, testSecrets } from '../support/core';

const STORE = 'Acme Outfitters';
const TITLE = 'Hero <img src=x onerror="alert(1)"><script>document.title="pwned"</script> copy';
const HYPOTHESIS =
  'Clearer copy </p><script>alert(2)</script><style>body{display:none}</style> sells more';
const ENTRY = 'src/main/hosts/cli/main.ts';

const data = tempDir('splitbook-client-report-');
let simulator: Simulator;
let served: ServedSimulator;
let core: Core;
let browser: Browser;
let storeId = '';
let testId = '';

async function open(html: string): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await browser.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  await page.route('**/*', async (route) => {
    requests.push(route.request().url());
    await route.abort();
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('dialog', (dialog) => {
    errors.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.setContent(html, { waitUntil: 'load' });
  return { page, requests, errors };
}

beforeAll(async () => {
  simulator = createSimulator({
    seed: 12,
    stores: [
      { name: STORE, tests: 30 },
      { name: 'Never Synced', tests: 5 },
    ],
  });
  served = await serveSimulator(simulator);
  core = await startCore(data.path, { secrets: testSecrets(), clock: () => simulator.now() });
  storeId = (
    await core.services.stores.add({
      name: STORE,
      baseUrl: served.url,
      apiKey: simulator.stores[0]?.apiKey ?? '',
      sessionOnly: false,
    })
  ).id;
  // A second store, added but never synced.
  await core.services.stores.add({
    name: 'Never Synced',
    baseUrl: served.url,
    apiKey: simulator.stores[1]?.apiKey ?? '',
    sessionOnly: false,
  });
  // A completed test with results, given a hostile title and hypothesis.
  const target = simulator
    .snapshot(STORE)
    .tests.find(
      (t) =>
        t.status === 'completed' && t.variant !== null && simulator.results(STORE, t.id) !== null,
    );
  if (!target) throw new Error('the simulated store has no completed test with results');
  testId = target.id;
  simulator.touchTest(STORE, testId, { title: TITLE, hypothesisDescription: HYPOTHESIS });
  expect((await syncStore(core, storeId)).outcome).toBe('ok');
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await core?.close();
  await served?.close().catch(() => undefined);
  data.remove();
});

describe('a client report of one test', { timeout: 60_000 }, () => {
  it("loads nothing, runs nothing, keeps markup as text, draws SVG charts and shows the cache's figures", async () => {
    const report = await core.reports.client({ storeId, testId, since: null, until: null }, 'html');
    expect(report.fileName).toMatch(/^Acme Outfitters – Hero img src=x onerror= alert\(1\) script/);
    expect(report.fileName.endsWith('.html')).toBe(true);
    const { page, requests, errors } = await open(report.content);
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
    // Alone, the test's title is the document's one heading of level 1.
    expect(await page.locator('h1').allTextContents()).toEqual([TITLE]);
    expect(await page.locator('section.test p').first().textContent()).toContain(HYPOTHESIS);
    expect(await page.locator('figure.chart svg').count()).toBeGreaterThanOrEqual(2);
    // The call and the visitors are the cache's.
    const detail = await core.services.tests.get({ storeId, testId });
    const results = await core.services.tests.results({ storeId, testId });
    const text = (await page.locator('body').textContent()) ?? '';
    if (detail.decision)
      expect(text).toContain(`${detail.decision.words}: ${detail.decision.reason}`);
    const visitors = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 }).format(
      results?.results.control.visitors ?? -1,
    );
    expect(text).toContain(visitors);
    await page.close();
  });

  it('prints on at most two A4 pages', async () => {
    const report = await core.reports.client({ storeId, testId, since: null, until: null }, 'html');
    const { page } = await open(report.content);
    const pdf = await page.pdf({ format: 'A4' });
    const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length;
    expect(pages).toBeGreaterThanOrEqual(1);
    expect(pages).toBeLessThanOrEqual(2);
    await page.close();
  });
});

describe('a client report of a store', { timeout: 60_000 }, () => {
  it('starts with a one-page summary of the calls, then one card per test in the period (a full section each with detail)', async () => {
    const until = new Date(simulator.now()).toISOString().slice(0, 10);
    const report = await core.reports.client(
      { storeId, testId: null, since: '2000-01-01', until },
      'html',
    );
    const { page, requests, errors } = await open(report.content);
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    expect(await page.locator('section.summary').count()).toBe(1);
    expect(await page.locator('section.summary h1').textContent()).toContain(STORE);
    const list = await core.services.decisions.list({ storeId });
    expect(await page.locator('article.card').count()).toBe(report.tests);
    expect(await page.locator('section.test').count()).toBe(0);
    // Every call in the store's decisions that falls in the period shows in the summary table.
    const summaryText = (await page.locator('section.summary').textContent()) ?? '';
    for (const row of list.rows.filter((r) =>
      report.content.includes(`data-test-id="${r.testId}"`),
    ))
      expect(summaryText).toContain(row.words);
    expect(Buffer.byteLength(report.content)).toBeLessThan(5 * 1024 * 1024);
    await page.close();

    const detailed = await core.reports.client(
      { storeId, testId: null, since: '2000-01-01', until },
      'html',
      undefined,
      { detail: true },
    );
    const full = await open(detailed.content);
    expect(full.requests).toEqual([]);
    expect(await full.page.locator('section.test').count()).toBe(detailed.tests);
    expect(await full.page.locator('article.card').count()).toBe(0);
    await full.page.close();
  });

  it('the plain-text summary: three to six bullets, the calls first', async () => {
    const until = new Date(simulator.now()).toISOString().slice(0, 10);
    const { text, tests } = await core.services.clientReports.summary({
      storeId,
      testId: null,
      since: '2000-01-01',
      until,
    });
    const bullets = text.split('\n');
    expect(tests).toBeGreaterThan(0);
    expect(bullets.length).toBeGreaterThanOrEqual(Math.min(3, tests));
    expect(bullets.length).toBeLessThanOrEqual(7);
    expect(bullets[0]).toMatch(/^• .+ \(Acme Outfitters\): /);
  });
});

describe('file names', () => {
  it('are safe on every file system and say what the report is', () => {
    expect(safeFileName('Acme – Hero: "new"/old? <b> – 2026-11-25', 'html')).toBe(
      'Acme – Hero new old b – 2026-11-25.html',
    );
    expect(safeFileName('con', 'html')).toBe('report con.html');
    expect(safeFileName('...', 'html')).toBe('report.html');
    expect(safeFileName('x'.repeat(300), 'html')).toHaveLength(155);
  });
});

describe('the CLI report command', { timeout: 90_000 }, () => {
  it("writes a test's report and a store's, by id or name, and prints the text summary", async () => {
    await core.close();
    const test = await runTsx(ENTRY, [
      '--data-dir',
      data.path,
      'report',
      '--store',
      STORE,
      '--test',
      testId,
      '--out',
      join(data.path, 'one.html'),
    ]);
    expect(test.code).toBe(0);
    expect(readFileSync(join(data.path, 'one.html'), 'utf8')).toContain('<!doctype html>');
    const store = await runTsx(ENTRY, [
      '--data-dir',
      data.path,
      'report',
      '--store',
      storeId,
      '--since',
      '2000-01-01',
      '--out',
      join(data.path, 'store.html'),
    ]);
    expect(store.code).toBe(0);
    expect(store.stderr).toMatch(/Wrote .*store\.html: \d+ tests/);
    // A card a test by default; --detail writes the full sections.
    const compact = readFileSync(join(data.path, 'store.html'), 'utf8');
    expect(compact).toContain('<article class="card"');
    expect(compact).not.toContain('<section class="test"');
    const detailed = await runTsx(ENTRY, [
      '--data-dir',
      data.path,
      'report',
      '--store',
      storeId,
      '--since',
      '2000-01-01',
      '--detail',
      '--out',
      join(data.path, 'store-detail.html'),
    ]);
    expect(detailed.code).toBe(0);
    const full = readFileSync(join(data.path, 'store-detail.html'), 'utf8');
    expect(full).toContain('<section class="test"');
    expect(full).not.toContain('<article class="card"');
    const refused = await runTsx(ENTRY, [
      '--data-dir',
      data.path,
      'report',
      '--store',
      storeId,
      '--detail',
      '--format',
      'text',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--detail applies to the HTML report only');
    const text = await runTsx(ENTRY, [
      '--data-dir',
      data.path,
      'report',
      '--store',
      STORE,
      '--since',
      '2000-01-01',
      '--format',
      'text',
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^• /);
    core = await startCore(data.path, { secrets: testSecrets(), clock: () => simulator.now() });
  });

  it('refuses bad arguments (exit 2), an unknown store or test and a store never synced (exit 1), leaving no file', async () => {
    const cli = (args: string[]) => runTsx(ENTRY, ['--data-dir', data.path, ...args]);
    await core.close();
    const bad = await cli([
      'report',
      '--store',
      STORE,
      '--since',
      'yesterday',
      '--out',
      join(data.path, 'x.html'),
    ]);
    expect(bad.code).toBe(2);
    const unknownStore = await cli([
      'report',
      '--store',
      'Nope',
      '--out',
      join(data.path, 'x.html'),
    ]);
    expect(unknownStore.code).toBe(1);
    const unknownTest = await cli([
      'report',
      '--store',
      STORE,
      '--test',
      '00000000-0000-4000-8000-00000000dead',
      '--out',
      join(data.path, 'x.html'),
    ]);
    expect(unknownTest.code).toBe(1);
    expect(unknownTest.stderr).toMatch(/Unknown test/);
    const unwritable = await cli([
      'report',
      '--store',
      STORE,
      '--out',
      join(data.path, 'no-such-folder', 'x.html'),
    ]);
    expect(unwritable.code).toBe(1);
    const never = await cli([
      'report',
      '--store',
      'Never Synced',
      '--out',
      join(data.path, 'demo.html'),
    ]);
    expect(never.code).toBe(1);
    expect(never.stderr).toMatch(/not been synced yet/);
    expect(existsSync(join(data.path, 'x.html'))).toBe(false);
    expect(existsSync(join(data.path, 'demo.html'))).toBe(false);
    expect(readdirSync(data.path).filter((f) => f.endsWith('.partial'))).toEqual([]);
    core = await startCore(data.path, { secrets: testSecrets(), clock: () => simulator.now() });
  });
});
