// The store report a client reads in five minutes (issue 44, beyond the anchors): a store of twelve
// tests synced from the simulator over HTTP, its sides' screenshots served on loopback; the report
// written by the core, printed by Chromium's page.pdf (Electron's print path cannot run here) and its
// pages counted. One summary page, then a card a test, two a page: 12 tests on 7 A4 pages; the full
// sections with --detail. Screenshots embedded when written (within limits, else a link saying why),
// the file loading nothing; every metric's interval bar; axe finds nothing at any level.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '#core/types';
import { reportFormat } from '#core/reports/client/format';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { launchChromium } from '../support/chromium';
import { startCore, syncStore, tempDir } from '../support/core';
import { serveImages, stripedPng, type ImageServer } from '../support/png';

const STORE = 'Client Store';
const AXE = readFileSync('node_modules/axe-core/axe.min.js', 'utf8');
/** Chromium's print width on A4 (210 mm less the report's 14 mm margins) and height (297 − 14 − 16). */
const A4_WIDTH_PX = Math.round(((210 - 28) / 25.4) * 96);
const A4_HEIGHT_PX = Math.round(((297 - 30) / 25.4) * 96);

const data = tempDir('splitbook-store-report-');
let served: ServedSimulator;
let images: ImageServer;
let core: Core;
let browser: Browser;
let storeId = '';
let until = '';
let testIds: string[] = [];

/**
 * Pages of a PDF: poppler's pdfinfo where Debian's poppler-utils is installed; else the PDF's own page
 * tree (its /Count, checked against the page objects), since LibreOffice here has no Draw to open one.
 */
function pdfPages(pdf: Buffer): number {
  const pdfinfo = ['/usr/bin/pdfinfo', '/usr/local/bin/pdfinfo'].find((p) => existsSync(p));
  if (pdfinfo) {
    const info = execFileSync(pdfinfo, ['-'], { input: pdf }).toString();
    return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1] ?? NaN);
  }
  const text = pdf.toString('latin1');
  const objects = (text.match(/\/Type\s*\/Page[^s]/g) ?? []).length;
  const counts = [...text.matchAll(/\/Type\s*\/Pages\b[^>]*?\/Count\s+(\d+)/g)].map((m) =>
    Number(m[1]),
  );
  const root = Math.max(0, ...counts);
  expect(root).toBe(objects);
  return objects;
}

async function open(html: string, scheme: 'light' | 'dark' = 'light') {
  const page = await browser.newPage({ colorScheme: scheme });
  const requests: string[] = [];
  await page.route('**/*', async (route) => {
    requests.push(route.request().url());
    await route.abort();
  });
  await page.setContent(html, { waitUntil: 'load' });
  return { page, requests };
}

/** Every axe violation, of any impact, best practices included. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => v.id + ' (' + v.impact + ') ×' + v.nodes.length + ': ' + v.nodes.slice(0, 2).map((n) => n.target.join(' ')).join(' | ')))`,
  )) as string[];
}

function report(detail: boolean) {
  return core.reports.client(
    { storeId, testId: null, since: '2000-01-01', until },
    'html',
    undefined,
    {
      detail,
    },
  );
}

beforeAll(async () => {
  images = await serveImages({
    '/control.png': stripedPng(900, 600, [90, 107, 132]),
    '/variant.png': stripedPng(900, 1400, [124, 58, 237]),
    // Noise barely compresses: about 1.6 MB, over the 600 kB a report embeds.
    '/huge.png': stripedPng(740, 740, [0, 0, 0], true),
  });
  const sim = createSimulator({ seed: 31, stores: [{ name: STORE, tests: 40 }] });
  // Exactly twelve tests ran: the rest are removed before the sync, drafts stay out of the period.
  const launched = sim.snapshot(STORE).tests.filter((t) => t.startAt !== null);
  for (const test of launched.slice(12)) sim.removeTest(STORE, test.id);
  const twelve = launched.slice(0, 12);
  testIds = twelve.map((t) => t.id);
  twelve.forEach((test, i) => {
    const control =
      i === 10
        ? `${images.url}/huge.png`
        : i === 11
          ? `${images.url}/missing.png`
          : `${images.url}/control.png`;
    const variant = i === 11 ? 'http://127.0.0.1:9/gone.png' : `${images.url}/variant.png`;
    sim.touchTest(STORE, test.id, {
      control: { ...test.control, screenshotUrl: control },
      ...(test.variant ? { variant: { ...test.variant, screenshotUrl: variant } } : {}),
      ...(i === 0
        ? { title: `Free shipping over €50 on every product page ${'and more '.repeat(30)}` }
        : {}),
    });
  });
  served = await serveSimulator(sim);
  core = await startCore(data.path, { host: 'cli', clock: () => sim.now() });
  storeId = (
    await core.services.stores.add({
      name: STORE,
      baseUrl: served.url,
      apiKey: sim.stores[0]?.apiKey ?? '',
      sessionOnly: true,
    })
  ).id;
  expect((await syncStore(core, storeId)).outcome).toBe('ok');
  until = new Date(sim.now()).toISOString().slice(0, 10);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await core?.close();
  await served?.close().catch(() => undefined);
  await images?.close();
  data.remove();
});

describe('a store report of twelve tests', { timeout: 90_000 }, () => {
  it('is a one-page summary, then a card a test, two a page: 7 A4 pages', async () => {
    const written = await report(false);
    expect(written.tests).toBe(12);
    const { page, requests } = await open(written.content);
    expect(await page.locator('section.summary').count()).toBe(1);
    expect(await page.locator('article.card').count()).toBe(12);
    expect(await page.locator('section.test').count()).toBe(0);
    const pdf = await page.pdf({ format: 'A4' });
    const pages = pdfPages(pdf);
    expect(pages, `${pages} pages`).toBeLessThanOrEqual(7);
    // Measured as printed: the summary within a page, each card within half of one.
    await page.emulateMedia({ media: 'print' });
    await page.setViewportSize({ width: A4_WIDTH_PX, height: A4_HEIGHT_PX });
    const heights = (await page.evaluate(
      `[...document.querySelectorAll('section.summary, article.card')].map((e) => e.getBoundingClientRect().height)`,
    )) as number[];
    expect(heights[0]).toBeLessThanOrEqual(A4_HEIGHT_PX);
    for (const height of heights.slice(1)) expect(height).toBeLessThanOrEqual(A4_HEIGHT_PX / 2 - 8);
    // A long title is two lines at most on its card, whole in its tooltip.
    const long = page.locator(`article.card[data-test-id="${testIds[0]}"] .card-title`);
    expect(await long.getAttribute('title')).toMatch(/^Free shipping over €50/);
    expect((await long.boundingBox())?.height ?? 99).toBeLessThan(50);
    expect(requests).toEqual([]);
    await page.close();
  });

  it('holds per card the goal, the call in words, every metric with its interval bar, the days', async () => {
    const written = await report(false);
    const { page } = await open(written.content);
    const fmt = reportFormat(undefined);
    for (const testId of testIds) {
      const card = page.locator(`article.card[data-test-id="${testId}"]`);
      const detail = await core.services.tests.get({ storeId, testId });
      const text = (await card.textContent()) ?? '';
      expect(text).toContain('Goal: ');
      expect(text).toMatch(/\(\d+ days?\)/);
      if (detail.decision === null) continue;
      expect(text).toContain(`${detail.decision.words}:`);
      const goal = detail.decision.goal;
      if (goal?.lift == null || goal.liftLow == null || goal.liftHigh == null) continue;
      // The goal's bar comes first, marked, with the call's own current figures.
      const first = card.locator('table.intervals tbody tr').first();
      expect(await first.getAttribute('class')).toBe('role-goal');
      expect(await first.textContent()).toContain('test goal');
      expect(await first.textContent()).toContain(
        `${fmt.lift(goal.lift)} ${fmt.lift(goal.liftLow)} to ${fmt.lift(goal.liftHigh)}`,
      );
      expect(await card.locator('table.intervals svg.ibar').count()).toBeGreaterThan(0);
    }
    await page.close();
  });

  it('embeds the screenshots as it is written, within its limits; the file loads nothing', async () => {
    const written = await report(false);
    const { page, requests } = await open(written.content);
    const sources = await page
      .locator('img')
      .evaluateAll((all) => all.map((img) => img.getAttribute('src') ?? ''));
    // Ten tests with both sides, one whose control is too large: 21 images, each a data: URL.
    expect(sources).toHaveLength(21);
    expect(sources.every((src) => src.startsWith('data:image/png;base64,'))).toBe(true);
    // Type-checked without the DOM library: the check runs as a string in the page.
    const loaded = await page.evaluate(
      `[...document.querySelectorAll('img')].every((img) => img.naturalWidth > 0)`,
    );
    expect(loaded).toBe(true);
    // The others are links, each saying why it is not shown.
    const links = await page.locator('.shot-link').allTextContents();
    expect(links).toHaveLength(3);
    expect(links.join('\n')).toMatch(/huge\.png \(not embedded: the screenshot is too large/);
    expect(links.join('\n')).toMatch(
      /missing\.png \(not embedded: the screenshot could not be loaded/,
    );
    expect(links.join('\n')).toMatch(
      /gone\.png \(not embedded: the screenshot could not be loaded/,
    );
    expect(requests).toEqual([]);
    expect(written.content).toContain(
      `content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`,
    );
    // Each address was asked for once, however many tests show it.
    const asked = images.requests.filter((path) => path === '/variant.png');
    expect(asked.length).toBeGreaterThanOrEqual(1);
    await page.close();
  });

  it('keeps the full sections with --detail: the learnings page and two pages a test', async () => {
    const written = await report(true);
    const { page, requests } = await open(written.content);
    expect(await page.locator('section.test').count()).toBe(12);
    expect(await page.locator('article.card').count()).toBe(0);
    expect(await page.locator('section.test table.intervals').count()).toBeGreaterThan(0);
    expect(await page.locator('section.test img[src^="data:image/png"]').count()).toBe(21);
    const pages = pdfPages(await page.pdf({ format: 'A4' }));
    expect(pages).toBeGreaterThan(7);
    // The summary, the learnings, and at most two pages a test.
    expect(pages).toBeLessThanOrEqual(2 + 2 * 12);
    expect(requests).toEqual([]);
    await page.close();
  });
});

describe('the written reports read with a screen reader', { timeout: 120_000 }, () => {
  it('have landmarks, one h1, headings in order, named table headers: axe finds nothing at any level', async () => {
    const store = await report(false);
    const detailed = await report(true);
    const single = await core.reports.client(
      { storeId, testId: testIds[3] ?? '', since: null, until: null },
      'html',
    );
    const all = await core.reports.client(
      { storeId: null, testId: null, since: '2000-01-01', until },
      'html',
    );
    const findings: string[] = [];
    for (const [name, html] of [
      ['store', store.content],
      ['store --detail', detailed.content],
      ['one test', single.content],
      ['all stores', all.content],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        const { page } = await open(html, scheme);
        expect(await page.locator('main').count()).toBe(1);
        expect(await page.locator('h1').count()).toBe(1);
        expect(await page.locator('th:empty').count()).toBe(0);
        findings.push(...(await axeViolations(page)).map((v) => `${name}, ${scheme}: ${v}`));
        await page.close();
      }
    }
    expect(findings).toEqual([]);
  });
});
