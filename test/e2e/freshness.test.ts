// Refresh now and the Settings dialog in the real renderer (Chromium, browser host, real core, simulator over HTTP).
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '#core/types';
import type { ServedSimulator, Simulator } from '#simulator/index';
import { screenshotsAtEverySize } from '../support/chromium';
import { openRenderer, syncedStore, type RendererWindow } from '../support/e2e';
import { tempDir } from '../support/core';

const SCREENS = resolve('test-results/screens');
const STORE = 'Acme Outdoor';

const data = tempDir('splitbook-e2e-freshness-');
let core: Core;
let simulator: Simulator;
let served: ServedSimulator;
let win: RendererWindow | undefined;
let page: Page;
let storeId = '';

beforeAll(async () => {
  mkdirSync(SCREENS, { recursive: true });
  ({ simulator, served, core, storeId } = await syncedStore(data.path, {
    name: STORE,
    tests: 60,
    seed: 21,
  }));
  win = await openRenderer(core);
  page = win.page;
}, 60_000);

afterAll(async () => {
  await win?.close();
  await core?.close();
  await served?.close().catch(() => undefined);
  data.remove();
});

describe('results freshness in the window', { timeout: 90_000 }, () => {
  it("Refresh now fetches the open test's results and shows them; with the store down it says so and keeps them", async () => {
    const tests = simulator.snapshot(STORE).tests;
    const active = tests.find(
      // No other title contains it, so the filtered list has one row, whenever the search lands.
      (t) => t.status === 'active' && tests.filter((o) => o.title.includes(t.title)).length === 1,
    );
    if (!active) throw new Error('the store has no active test with a distinct title');
    await page.getByTestId('search').fill(active.title);
    const rows = page.locator('[data-testid="test-grid"] .viewport [role="row"]');
    await expect.poll(() => rows.count()).toBe(1);
    await page
      .locator('[data-testid="test-grid"] .viewport [role="row"]', { hasText: active.title })
      .first()
      .click();
    await expect.poll(() => page.getByTestId('detail-title').textContent()).toBe(active.title);
    await page.getByRole('tab', { name: 'Results' }).click();
    await page.getByTestId('verdict').waitFor();
    await expect
      .poll(() => page.getByTestId('results-fetch').textContent())
      .toMatch(/Results fetched\s+just now/);
    const before = await core.services.tests.results({ storeId, testId: active.id });

    // A day later the store has another day of figures; only this test is asked for, and at once.
    simulator.advanceDays(1);
    simulator.resetStats();
    await page.getByTestId('refresh-results').click();
    await expect
      .poll(
        async () => (await core.services.tests.results({ storeId, testId: active.id }))?.fetchedAt,
      )
      .not.toBe(before?.fetchedAt);
    expect(simulator.stats().requests).toBe(1);
    const after = await core.services.tests.results({ storeId, testId: active.id });
    expect(after?.results.totalVisitors).toBeGreaterThan(before?.results.totalVisitors ?? 0);
    // The open tab shows the new figures (the verdict strip's visitors) without a sync.
    const visitors = (after?.results.control.visitors ?? 0).toLocaleString('en');
    await expect.poll(() => page.getByTestId('verdict').textContent()).toContain(visitors);
    await expect.poll(() => page.getByTestId('refresh-results').isEnabled()).toBe(true);
    await screenshotsAtEverySize(page, SCREENS, 'freshness-results-header');

    // The store down: a clear refusal, the cached figures stay. `r` is the shortcut.
    await served.close();
    await page.getByTestId('detail-title').focus();
    await page.keyboard.press('r');
    await page.getByText("Cannot reach the store's API").waitFor();
    expect(await page.getByTestId('verdict').textContent()).toContain(visitors);
    await screenshotsAtEverySize(page, SCREENS, 'freshness-refresh-offline');
    await page.getByRole('button', { name: 'Dismiss' }).click();
    expect(await page.getByText("Cannot reach the store's API").count()).toBe(0);
  });

  it('the Settings dialog (status bar or Ctrl+,) changes the results freshness', async () => {
    expect((await core.services.settings.get({})).resultsFreshness).toBe('1h');
    await page.getByTestId('open-settings').click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.waitFor();
    await expect.poll(() => dialog.getByLabel('Every hour').isChecked()).toBe(true);
    await screenshotsAtEverySize(page, SCREENS, 'freshness-settings');
    await dialog.getByLabel('Only when I ask').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect((await core.services.settings.get({})).resultsFreshness).toBe('manual');

    await page.keyboard.press('Control+,');
    await page.getByRole('dialog', { name: 'Settings' }).waitFor();
    await expect
      .poll(() => page.getByRole('dialog').getByLabel('Only when I ask').isChecked())
      .toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(win?.pageErrors).toEqual([]);
  });
});
