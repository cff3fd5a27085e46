// Splitbook's check end to end in Chromium, through the browser host and a real core syncing the simulator
// over HTTP: a test with a planted sample-ratio mismatch shows its alert in the list (column and "Has
// alerts" filter) and on the Results tab. Saves screenshots of the tab at two sizes, light and dark.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '#core/types';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { screenshotsAtEverySize } from '../support/chromium';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { startCore, tempDir } from '../support/core';

const SCREENS = resolve('test-results/screens');
const STORE_NAME = 'Mismatch Outfitters';
const SYNC_TIMEOUT = 90_000;

const data = tempDir('splitbook-e2e-stats-');
let core: Core;
let simulator: Simulator;
let served: ServedSimulator;
let win: RendererWindow | undefined;
let page: Page;
let planted: { id: string; title: string };

function rows() {
  return page.locator('[data-testid="test-grid"] .viewport [role="row"]');
}

beforeAll(async () => {
  mkdirSync(SCREENS, { recursive: true });
  core = await startCore(data.path, { host: 'browser' });
  simulator = createSimulator({ seed: 8, stores: [{ name: STORE_NAME, tests: 40 }] });
  // A completed test with plenty of visitors and a title no other title contains; its variant loses 25%.
  const tests = simulator.snapshot(STORE_NAME).tests;
  const found = tests.find((t) => {
    if (t.status !== 'completed' || t.variant === null) return false;
    if (tests.some((o) => o.id !== t.id && o.title.includes(t.title))) return false;
    const results = simulator.results(STORE_NAME, t.id);
    return results !== null && results.totalVisitors > 5000;
  });
  if (!found)
    throw new Error('the simulated store has no large completed test with a distinct title');
  planted = { id: found.id, title: found.title };
  simulator.plantSampleRatioMismatch(STORE_NAME, planted.id, 0.25);
  served = await serveSimulator(simulator);
  // Answers with an error status (a refused key, the API gone) are expected; script errors are not.
  win = await openRenderer(core, { consoleErrors: true });
  page = win.page;
});

afterAll(async () => {
  await win?.close();
  await core?.close();
  await served?.close().catch(() => undefined);
  data.remove();
});

describe("Splitbook's check, end to end", { timeout: 120_000 }, () => {
  it('shows a planted sample-ratio mismatch in the list, its filter, and on the Results tab', async () => {
    await page.getByRole('heading', { name: 'Welcome to Splitbook' }).waitFor();
    await page.getByRole('button', { name: 'Add a store' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add a store' });
    await dialog.getByLabel('Name').fill(STORE_NAME);
    await dialog.getByLabel('API base URL').fill(served.url);
    await dialog.getByLabel('API key').fill(simulator.stores[0]?.apiKey ?? '');
    const sessionOnly = dialog.getByLabel(/session only/);
    if (await sessionOnly.count()) await sessionOnly.check();
    await dialog.getByRole('button', { name: 'Add store' }).click();
    await dialog.waitFor({ state: 'detached' });
    await rows().first().waitFor({ timeout: SYNC_TIMEOUT });
    await page.waitForSelector('[data-testid="sync-progress"]', {
      state: 'detached',
      timeout: SYNC_TIMEOUT,
    });

    // The filter chip keeps only tests with alerts; the planted one is among them, its cell says so.
    const chip = page.getByTestId('has-alerts-chip');
    await expect
      .poll(async () => Number((await chip.locator('.n').textContent())?.replace(/\D/g, '')))
      .toBeGreaterThan(0);
    await chip.click();
    await expect.poll(() => chip.getAttribute('aria-pressed')).toBe('true');
    await page.getByTestId('search').fill(planted.title);
    const row = rows().filter({ hasText: planted.title });
    await expect.poll(() => row.count()).toBe(1);
    const cell = row.getByTestId('alerts-cell');
    await expect.poll(() => cell.textContent()).toMatch(/⚠\s*\d+\s*alerts?/);
    expect(await cell.getAttribute('title')).toContain('Sample-ratio mismatch');
    await page.screenshot({ path: join(SCREENS, 'stats-list-1440-light.png') });

    await row.click();
    await page.keyboard.press('Enter');
    await page.getByRole('tab', { name: 'Results' }).click();
    const check = page.getByTestId('splitbook-check');
    await check.waitFor();
    await expect.poll(() => check.locator('li[data-code="sample-ratio-mismatch"]').count()).toBe(1);
    expect(await check.getByTestId('check-srm').textContent()).toContain('Mismatch');
    expect(await check.getByTestId('check-pwin').textContent()).toMatch(/[<>]?\d+%/);
    await expect
      .poll(() => page.locator('[data-testid="probability-over-time"] canvas').count())
      .toBe(1);

    // Screenshots of the Results tab: two sizes, light and dark.
    await screenshotsAtEverySize(page, SCREENS, 'stats-results', async () => {
      await check.scrollIntoViewIfNeeded();
      await page.waitForTimeout(150);
    });
  });

  it("draws the store's annotations on the chance-to-win chart too, and names the API's leader figure in words (issue 21, 12)", async () => {
    const [store] = await core.services.stores.list({});
    const results = simulator.results(STORE_NAME, planted.id);
    const days = Object.keys(results?.daily ?? {}).sort();
    const day = days[Math.floor(days.length / 2)];
    if (!store || !day) throw new Error('a synced store and a day of data are needed');
    await core.services.notes.addAnnotation({
      storeId: store.id,
      day,
      label: 'Black Friday promo',
    });
    // The annotations load with the view: back to the test's Results tab.
    await page.getByRole('tab', { name: 'Overview' }).click();
    await page.reload();
    await rows().filter({ hasText: planted.title }).click();
    await page.keyboard.press('Enter');
    await page.getByRole('tab', { name: 'Results' }).click();
    const chart = page.locator('[data-testid="probability-over-time"] [role="img"]');
    await expect.poll(() => chart.getAttribute('aria-label')).toMatch(/marked: Black Friday promo/);
    expect(
      await page
        // The goal's cumulative chart, whatever the planted test's goal.
        .locator('[role="img"][aria-label*=", cumulative: control and variant"]')
        .first()
        .getAttribute('aria-label'),
    ).toMatch(/marked: Black Friday promo/);
    const goals = page.getByRole('region', { name: 'By goal metric' });
    await goals.waitFor();
    expect(await goals.getByRole('columnheader').allTextContents()).toContain("Leader's chance");
    expect(await goals.textContent()).not.toContain('P(leader)');
    await screenshotsAtEverySize(page, SCREENS, 'stats-annotated', async () => {
      await page.getByTestId('probability-over-time').scrollIntoViewIfNeeded();
      await page.waitForTimeout(150);
    });
  });

  it('ran without a script error or a CSP violation', () => {
    expect(win?.pageErrors).toEqual([]);
  });
});
