// Renderer benchmarks in Chromium over 10,000 cached tests: first painted list row, a 365-day results view, heap after scrolling.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../test/support/chromium';
import { z } from 'zod';
import { createCore, DATABASE_FILE } from '#core/create-core';
import { insertStore, recordSyncOutcome } from '#core/db/cache/stores';
import { openDatabase } from '#core/db/open';
import { upsertResults } from '#core/decisions/results';
import { upsertTests } from '#core/db/cache/tests';
import { startBrowserHost } from '../src/main/hosts/browser/server';
import { createMemorySecretStore } from '#core/secrets/index';
import { isLaunched } from '#shared/domain/lifecycle';
import { createSimulator } from '#simulator/index';
import { fmt, percentile, printFigures, withTempDir } from './support';

const STORE = 'Big store';
const TESTS = 10_000;
const DAYS = 365;
const RUNS = 5;
const SCROLL_STEPS = 200;
const DAY_MS = 86_400_000;
const RENDERER = resolve('out/renderer');
const VIEWPORT = { width: 1440, height: 900 };

// Browser-side snippets, as strings: bench/ is type-checked without the DOM library.
// Each "painted" time is taken by a message posted from the rAF of the frame that first shows the
// thing: that message runs once the frame's rendering (style, layout, paint) is done.

/**
 * Init script: the moments (ms since navigation start) of the page load up to the first frame painted
 * with a real list row: that frame, the script bundle, DOMContentLoaded, first contentful paint and
 * each bridge call made by then (requested, answered).
 */
const WATCH_FIRST_ROW = `{
  window.benchFirstRow = null;
  const watch = () => requestAnimationFrame(() => {
    if (!document.querySelector('[data-testid="test-grid"] [id^="test-row-"]')) return watch();
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      const marks = { 'first row painted': performance.now() };
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      if (fcp) marks['first contentful paint'] = fcp.startTime;
      const navigation = performance.getEntriesByType('navigation')[0];
      if (navigation) marks['DOMContentLoaded'] = navigation.domContentLoadedEventEnd;
      for (const e of performance.getEntriesByType('resource')) {
        if (e.name.includes('/assets/') && e.name.endsWith('.js')) marks['script bundle loaded'] = e.responseEnd;
        const call = e.name.split('/api/call/')[1];
        if (call && !(call + ' answered' in marks)) {
          marks[call + ' requested'] = e.startTime;
          marks[call + ' answered'] = e.responseEnd;
        }
      }
      window.benchFirstRow = marks;
    };
    channel.port2.postMessage(null);
  });
  watch();
}`;

/** Clicks the Results tab; resolves once a frame has been painted with every chart drawn by chart.js. */
const OPEN_RESULTS = `new Promise((resolve, reject) => {
  const tab = document.getElementById('tab-results');
  if (!tab) return reject(new Error('no Results tab (#tab-results)'));
  performance.clearResourceTimings();
  const started = performance.now();
  tab.click();
  const poll = () => requestAnimationFrame(() => {
    const canvases = [...document.querySelectorAll('section[aria-label="Charts"] canvas')];
    // chart.js marks a canvas it owns with $chartjs; with animations off it draws in its constructor.
    if (canvases.length > 0 && canvases.every((c) => c.$chartjs && c.width > 0)) {
      const channel = new MessageChannel();
      const fetched = performance.getEntriesByType('resource').find((e) => e.name.includes('/api/call/tests.results'));
      channel.port1.onmessage = () => resolve({
        ms: performance.now() - started,
        answeredMs: fetched ? fetched.responseEnd - started : null,
        charts: [...document.querySelectorAll('section[aria-label="Charts"] [role="img"]')]
          .map((e) => e.getAttribute('aria-label') ?? ''),
      });
      channel.port2.postMessage(null);
    } else if (performance.now() - started > 20000) reject(new Error('the charts did not appear in 20 s'));
    else poll();
  });
  poll();
})`;

/** Whether every chart canvas has something drawn on it (checked once, outside the timing). */
const CHARTS_DRAWN = `[...document.querySelectorAll('section[aria-label="Charts"] canvas')].every((c) => {
  const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) return true;
  return false;
})`;

const BACK_TO_OVERVIEW = `new Promise((resolve) => {
  document.getElementById('tab-overview')?.click();
  requestAnimationFrame(() => requestAnimationFrame(() => resolve(document.getElementById('panel-overview') !== null)));
})`;

/** Scrolls the list to the bottom in even steps, each waiting until its rows are loaded (no skeleton rows). */
const SCROLL_LIST = `new Promise((resolve, reject) => {
  const viewport = document.querySelector('[data-testid="test-grid"] .viewport');
  if (!viewport) return reject(new Error('no list viewport'));
  const steps = ${SCROLL_STEPS};
  const started = performance.now();
  let step = 0;
  const next = () => requestAnimationFrame(() => {
    if (viewport.querySelector('.skeleton')) {
      if (performance.now() - started > 120000) return reject(new Error('rows still loading after 120 s'));
      return next();
    }
    if (step === steps) return resolve(performance.now() - started);
    step += 1;
    viewport.scrollTop = ((viewport.scrollHeight - viewport.clientHeight) * step) / steps;
    next();
  });
  next();
})`;

const DOM_COUNTS = `({
  rows: document.querySelectorAll('[data-testid="test-grid"] .viewport [role="row"]').length,
  elements: document.getElementsByTagName('*').length,
})`;

/** Resolves with the init script's figures once it has them (waitForFunction would need eval, which the CSP forbids). */
const FIRST_ROW = `new Promise((resolve) => {
  const check = () => (window.benchFirstRow ? resolve(window.benchFirstRow) : setTimeout(check, 20));
  check();
})`;

const FIRST_ROW_PAINTED = 'first row painted';
const FirstRow = z.record(z.string(), z.number());
type FirstRow = z.infer<typeof FirstRow>;
const ResultsRender = z.object({
  ms: z.number(),
  answeredMs: z.number().nullable(),
  charts: z.array(z.string()),
});
const DomCounts = z.object({ rows: z.number(), elements: z.number() });

/** Writes a store of TESTS simulated tests, with results for every launched one, into the app's database. */
function seedCache(dir: string): { title: string; days: number; withResults: number } {
  const sim = createSimulator({ seed: 4, stores: [{ name: STORE, tests: TESTS }] });
  // One running test started DAYS - 1 days before today: its daily series has DAYS days, today included.
  const long = sim.snapshot(STORE).tests.find((t) => t.status === 'active' && t.variant !== null);
  if (!long) throw new Error('the simulated store has no active test');
  const startAt = new Date(
    Math.floor(sim.now() / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS + 9 * 3_600_000,
  );
  sim.touchTest(STORE, long.id, { startAt: startAt.toISOString(), endAt: null });
  const days = Object.keys(sim.results(STORE, long.id)?.daily ?? {}).length;
  if (days < DAYS)
    throw new Error(`the long-running test has ${days} days of results, not ${DAYS}`);

  const tests = sim.snapshot(STORE).tests;
  const now = new Date().toISOString();
  const storeId = randomUUID();
  const db = openDatabase(join(dir, DATABASE_FILE));
  try {
    insertStore(db, {
      id: storeId,
      name: STORE,
      baseUrl: 'http://127.0.0.1:9',
      kind: 'api',
      keyStorage: 'none',
      createdAt: now,
    });
    let withResults = 0;
    for (let i = 0; i < tests.length; i += 500) {
      const page = tests.slice(i, i + 500);
      upsertTests(db, {
        storeId: storeId,
        tests: page,
        runId: 'bench',
        syncedAt: now,
      });
      db.transaction(() => {
        for (const test of page) {
          const results = isLaunched(test.status) ? sim.results(STORE, test.id) : null;
          if (!results) continue;
          upsertResults(db, {
            storeId: storeId,
            testId: test.id,
            results: results,
            fetchedAt: now,
            testUpdatedAt: test.updatedAt,
            testStatus: test.status,
          });
          withResults += 1;
        }
      })();
    }
    recordSyncOutcome(db, storeId, {
      outcome: 'ok',
      problem: null,
      finishedAt: now,
      lastSyncedAt: now,
    });
    return { title: long.title, days, withResults };
  } finally {
    db.close();
  }
}

/** A fresh context (empty cache and storage) opening the app; resolves once the first row is painted. */
async function openApp(
  browser: Browser,
  url: string,
  errors: string[],
): Promise<{ page: Page; firstRow: FirstRow }> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  await context.addInitScript(WATCH_FIRST_ROW);
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(url);
  return { page, firstRow: FirstRow.parse(await page.evaluate(FIRST_ROW)) };
}

async function heapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  return usedSize / 1024 / 1024;
}

const sorted = (samples: readonly number[]) => [...samples].sort((a, b) => a - b);
const ms = (samples: readonly number[], p: number) =>
  `${fmt(percentile(sorted(samples), p), 0)} ms`;
const list = (samples: readonly number[]) => samples.map((s) => fmt(s, 0)).join(', ') + ' ms';

/** 1. Opening the app RUNS times: navigation start to the first frame painted with a list row. Returns the last page. */
async function benchFirstRow(browser: Browser, url: string, errors: string[]): Promise<Page> {
  const runs: FirstRow[] = [];
  let page: Page | null = null;
  for (let run = 0; run < RUNS; run++) {
    if (page) await page.context().close();
    const opened = await openApp(browser, url, errors);
    page = opened.page;
    runs.push(opened.firstRow);
  }
  if (!page) throw new Error('no page was opened');
  const painted = runs.map((r) => r[FIRST_ROW_PAINTED] ?? Number.NaN);
  const moments = [...new Set(runs.flatMap((r) => Object.keys(r)))]
    .filter((mark) => mark !== FIRST_ROW_PAINTED)
    .map((mark) => {
      const times = runs.map((r) => r[mark]).filter((v) => v !== undefined);
      return { mark, at: percentile(sorted(times), 50) };
    })
    .sort((a, b) => a.at - b.at);
  printFigures(
    `Renderer: open the app to the first painted list row (${TESTS} cached tests, ${RUNS} fresh pages, ${VIEWPORT.width}x${VIEWPORT.height})`,
    [
      { name: 'median', value: ms(painted, 50), goal: '< 1000 ms' },
      { name: 'max', value: ms(painted, 100) },
      { name: 'runs', value: list(painted) },
      { name: 'where it goes (medians since navigation start):', value: '' },
      ...moments.map(({ mark, at }) => ({ name: `  ${mark}`, value: `${fmt(at, 0)} ms` })),
    ],
  );
  return page;
}

/** 2. The results view of the test with DAYS daily points, RUNS times: Results tab click to the charts painted. */
async function benchResults(page: Page, title: string, days: number, errors: string[]) {
  const row = page
    .locator('[data-testid="test-grid"] [role="row"]')
    .filter({ has: page.getByText(title, { exact: true }) });
  await row.first().click();
  await page.getByTestId('detail-title').filter({ hasText: title }).waitFor();
  await page.evaluate(BACK_TO_OVERVIEW);
  const shown: number[] = [];
  const answered: number[] = [];
  let charts: string[] = [];
  for (let run = 0; run < RUNS; run++) {
    const render = ResultsRender.parse(await page.evaluate(OPEN_RESULTS));
    shown.push(render.ms);
    if (render.answeredMs !== null) answered.push(render.answeredMs);
    charts = render.charts;
    if (run === 0 && !(await page.evaluate(CHARTS_DRAWN)))
      errors.push('a results chart canvas is blank');
    await page.evaluate(BACK_TO_OVERVIEW);
  }
  printFigures(
    `Renderer: results view of a test with ${days} daily points per side (Results tab click to charts painted, fetch included)`,
    [
      { name: 'median', value: ms(shown, 50), goal: '< 200 ms' },
      { name: 'max', value: ms(shown, 100) },
      { name: 'runs', value: list(shown) },
      { name: 'of which tests.results answered, median', value: ms(answered, 50) },
      { name: 'charts', value: charts.length > 0 ? `${charts.length}: ${charts[0]}` : 'none' },
    ],
  );
}

/** 3. The heap of a fresh page before and after scrolling the whole list, garbage collected. */
async function benchHeap(browser: Browser, url: string, errors: string[]) {
  const { page } = await openApp(browser, url, errors);
  const before = await heapMb(page);
  const scrollMs = Number(await page.evaluate(SCROLL_LIST));
  await page.waitForSelector(`#test-row-${TESTS - 1}`, { timeout: 60_000 });
  const after = await heapMb(page);
  const dom = DomCounts.parse(await page.evaluate(DOM_COUNTS));
  await page.context().close();
  printFigures(
    `Renderer: heap after scrolling all ${TESTS} rows (${SCROLL_STEPS} steps, each waiting for its rows; GC forced)`,
    [
      { name: 'JS heap before scrolling', value: `${fmt(before)} MB` },
      { name: 'JS heap after scrolling', value: `${fmt(after)} MB` },
      { name: 'rows in the DOM at the end', value: String(dom.rows), goal: 'tens, not thousands' },
      { name: 'DOM elements at the end', value: String(dom.elements) },
      { name: 'scroll time (with page loads)', value: `${fmt(scrollMs / 1000, 1)} s` },
    ],
  );
}

export async function benchRenderer(): Promise<void> {
  if (!existsSync(join(RENDERER, 'index.html'))) {
    throw new Error(
      'The renderer is not built: run `npx electron-vite build` (npm run bench does).',
    );
  }
  // Other work on the machine skews these timings: the load is printed with them.
  const load = loadavg()[0] ?? 0;
  await withTempDir(async (dir) => {
    const seeded = seedCache(dir);
    const core = await createCore({
      dataDir: dir,
      secrets: createMemorySecretStore(),
      host: 'browser',
      version: 'bench',
    });
    const host = await startBrowserHost({ core, staticDir: RENDERER, port: 0 });
    const browser = await launchChromium(['--enable-precise-memory-info']);
    const errors: string[] = [];
    try {
      const page = await benchFirstRow(browser, host.url, errors);
      await benchResults(page, seeded.title, seeded.days, errors);
      await page.context().close();
      await benchHeap(browser, host.url, errors);
      if (errors.length > 0) console.warn(`  page errors: ${errors.join(' | ')}`);
      console.log(
        `  (${seeded.withResults} launched tests have cached results; load average before the run: ${fmt(load, 1)} on ${availableParallelism()} cores)`,
      );
    } finally {
      await browser.close();
      await host.close();
      await core.close();
    }
  });
}
