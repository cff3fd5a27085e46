// The window's export in Chromium through the browser host: choose a report in the dialog, get the file
// (Playwright's download event), parse it with csv-parse and check its rows against the cache; the
// "Never synced" state; progress and cancel on a long export. Screenshots under test-results/screens/.
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertStore } from '#core/db/cache/stores';
import { openDatabase } from '#core/db/open';
import type { Core } from '#core/types';
import { createDownloads } from '../../src/main/hosts/browser/downloads';
import { TestListInput } from '#shared/contract/index';
import { fillBulkStore } from '../reports/bulk';
import { numberCell, parseCsv } from '../reports/support';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { allTestRows, nextSyncReport, startCore, tempDir } from '../support/core';

const SCREENS = resolve('test-results/screens');
const data = tempDir('splitbook-e2e-export-');
const downloads = createDownloads();
let core: Core;
let win: RendererWindow | undefined;
let page: Page;

async function screen(name: string) {
  await page.screenshot({ path: join(SCREENS, `${name}.png`) });
}

function selectStore(name: string) {
  return page.locator('.store .main', { hasText: name }).click();
}

function dialog() {
  return page.getByTestId('export-dialog');
}

/** Opens the list header's (or the detail pane's) export dialog. */
async function openExport(where: 'list' | 'detail') {
  const pane = where === 'list' ? page.locator('.tests-pane') : page.getByLabel('Test detail');
  await pane.getByTestId('export-button').click();
  await dialog().waitFor();
  await dialog().locator('input[name="report"]').first().waitFor();
}

/** Clicks Export and returns the downloaded file's text with its row count as the window reports it. */
async function exportAndDownload(): Promise<{ text: string; download: Download; shown: string }> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    dialog().getByRole('button', { name: 'Export', exact: true }).click(),
  ]);
  const path = await download.path();
  const shown = (await dialog().getByTestId('export-result').textContent()) ?? '';
  return { text: readFileSync(path, 'utf8'), download, shown };
}

beforeAll(async () => {
  mkdirSync(SCREENS, { recursive: true });
  core = await startCore(data.path, {
    host: 'browser',
    demo: { tests: 60, seed: 7 },
    saveFile: downloads.saveFile,
  });
  const synced = nextSyncReport(core, 'demo');
  await core.services.stores.openDemo({});
  await synced;
  // A second connection adds a store never synced and a large one (WAL: the core sees both).
  const db = openDatabase(join(data.path, 'splitbook.db'));
  try {
    insertStore(db, {
      id: 'nordic',
      name: 'Nordic Gear',
      baseUrl: 'http://nordic.invalid',
      kind: 'api',
      keyStorage: 'none',
      createdAt: new Date().toISOString(),
    });
    fillBulkStore(db, {
      storeId: 'bulk',
      name: 'Bulk Outlet',
      tests: 500,
      days: 365,
      now: Date.now(),
    });
  } finally {
    db.close();
  }
  win = await openRenderer(core, {
    host: { downloads },
    page: { acceptDownloads: true },
    consoleErrors: true,
  });
  page = win.page;
}, 120_000);

afterAll(async () => {
  await win?.close();
  await core?.close();
  await downloads.close();
  data.remove();
});

describe('export from the window', { timeout: 120_000 }, () => {
  it('exports the list’s scope as the tests report and the file matches the cache', async () => {
    await selectStore('Demo store');
    await expect
      .poll(() => page.locator('.tests-pane .pane-header .count').textContent())
      .toMatch(/60 tests/);
    await openExport('list');
    // Every report is offered with its one-line description, plus the workbook of all.
    const names = await dialog().locator('.report .name').allTextContents();
    expect(names).toEqual([
      'tests',
      'metrics',
      'daily',
      'campaigns',
      'audiences',
      'portfolio',
      'backlog',
      'learnings',
      'all',
    ]);
    expect(await dialog().locator('.report .desc').first().textContent()).toMatch(
      /One row per test/,
    );
    // Which charset to pick on import, so the byte-order mark never shows in A1 (issue 21, item 13).
    expect(await dialog().getByTestId('export-charset').textContent()).toMatch(
      /Character set\s+Unicode \(UTF-8\).*byte-order mark/,
    );
    await screen('export-01-dialog');

    const { text, download, shown } = await exportAndDownload();
    expect(download.suggestedFilename()).toMatch(/^splitbook-tests-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(text.startsWith('\uFEFF')).toBe(true);
    const records = parseCsv(text);
    const cached = await allTestRows(core, 'demo');
    expect(shown.replace(/\s+/g, ' ')).toMatch(
      new RegExp(`Download started ${cached.length} rows`),
    );
    expect(records).toHaveLength(cached.length);
    const byId = new Map(records.map((r) => [r['test_id'], r]));
    for (const row of cached) {
      const record = byId.get(row.id);
      expect(record?.['title']?.replace(/^'/, '')).toBe(row.title);
      expect(record?.['status']).toBe(row.status);
      expect(record?.['store']).toBe('Demo store');
    }
    await screen('export-02-saved');
    await dialog().getByRole('button', { name: 'Close' }).click();
    await dialog().waitFor({ state: 'detached' });
  });

  it('exports only what the filter keeps, without a BOM when asked', async () => {
    await page
      .getByRole('group', { name: 'Filter by status' })
      .getByRole('button', { name: /^active/ })
      .click();
    const kept = await core.services.tests.list(
      TestListInput.parse({ storeId: 'demo', statuses: ['active'], limit: 1000 }),
    );
    await expect
      .poll(() => page.locator('.tests-pane .pane-header .count').textContent())
      .toMatch(new RegExp(`${kept.total} tests?`));
    await openExport('list');
    expect(await dialog().locator('.scope').textContent()).toMatch(/status active/);
    await dialog()
      .getByLabel(/Byte-order mark/)
      .uncheck();
    const { text } = await exportAndDownload();
    expect(text.startsWith('"store"')).toBe(true);
    const records = parseCsv(text);
    expect(new Set(records.map((r) => r['test_id']))).toEqual(new Set(kept.rows.map((r) => r.id)));
    expect(records.every((r) => r['status'] === 'active')).toBe(true);
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
  });

  it('exports one test’s daily series from its detail pane', async () => {
    const row = page.locator('[data-testid="test-grid"] .viewport [role="row"]').first();
    await row.click();
    const title = (await page.getByTestId('detail-title').textContent()) ?? '';
    await openExport('detail');
    expect(await dialog().locator('.report .name').allTextContents()).toEqual([
      'tests',
      'metrics',
      'daily',
    ]);
    await dialog().locator('input[value="daily"]').check();
    await screen('export-05-detail');
    const { text } = await exportAndDownload();
    const records = parseCsv(text);
    const listed = await allTestRows(core, 'demo');
    const test = listed.find((t) => t.title === title);
    if (!test) throw new Error(`no cached test titled ${title}`);
    const results = await core.services.tests.results({ storeId: 'demo', testId: test.id });
    const daily = results?.results?.daily ?? {};
    const expected = Object.entries(daily).flatMap(([date, day]) =>
      (['control', 'variant'] as const).flatMap((side) => {
        const stats = day.performance[side];
        return stats ? [{ date, side, visitors: stats.visitors, revenue: stats.revenue }] : [];
      }),
    );
    expect(records.length).toBeGreaterThan(0);
    expect(records).toHaveLength(expected.length);
    for (const e of expected) {
      const r = records.find((x) => x['date'] === e.date && x['side'] === e.side);
      expect(r?.['test_id']).toBe(test.id);
      expect(numberCell(r?.['visitors'])).toBe(e.visitors);
      expect(numberCell(r?.['revenue'])).toBe(e.revenue);
    }
    await dialog().getByRole('button', { name: 'Close' }).click();
  });

  it('says so when the store was never synced', async () => {
    await selectStore('Nordic Gear');
    await openExport('list');
    await dialog().getByRole('button', { name: 'Export', exact: true }).click();
    const problem = dialog().getByTestId('export-problem');
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/Never synced.*never been synced/s);
    expect(await problem.getByRole('button', { name: 'Sync now' }).count()).toBe(1);
    await screen('export-03-never-synced');
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
  });

  it('shows progress on a long export and cancels it', async () => {
    await selectStore('Bulk Outlet');
    await openExport('list');
    await dialog().locator('input[value="daily"]').check();
    await dialog().getByLabel('Excel workbook (.xlsx)').check();
    await dialog().getByRole('button', { name: 'Export', exact: true }).click();
    const progress = dialog().getByTestId('export-progress');
    await progress.waitFor({ timeout: 10_000 });
    await expect
      .poll(() => progress.textContent(), { timeout: 10_000 })
      .toMatch(/[\d,]+ rows written · [\d,]+ of 500 tests read/);
    await screen('export-04-progress');
    await dialog().getByRole('button', { name: 'Cancel export' }).click();
    await expect
      .poll(() => dialog().textContent())
      .toMatch(/Export cancelled; no file was written/);
    await dialog().getByRole('button', { name: 'Cancel' }).click();
  });

  it('reads well at both sizes, light and dark', async () => {
    await selectStore('Demo store');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [width, height] of [
        [900, 560],
        [1440, 900],
      ] as const) {
        await page.setViewportSize({ width, height });
        await openExport('list');
        await screen(`export-dialog-${width}x${height}-${scheme}`);
        await page.keyboard.press('Escape');
        await dialog().waitFor({ state: 'detached' });
      }
    }
    expect(win?.pageErrors).toEqual([]);
  });
});
