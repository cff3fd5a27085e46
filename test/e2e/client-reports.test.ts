// Client reports in the window, end to end in Chromium through the browser host, over a real core that
// synced two simulated stores over HTTP: Report… beside a test's title and above the test list saves the
// report as a download whose HTML names the test and Splitbook's call; Copy summary puts the core's bullets
// on the clipboard; the header set in Settings (name, line, a logo read from disk) is in the next report;
// the browser host offers HTML only and says how to make a PDF. Screenshots at 900×560 and 1440×900,
// light and dark, go to test-results/client-reports/.
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esc } from '#core/reports/client/escape';
import type { Core } from '#core/types';
import { createDownloads } from '../../src/main/hosts/browser/downloads';
import type { DecisionRow } from '#shared/contract/index';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { screenshotsAtEverySize } from '../support/chromium';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { startCore, syncStore, tempDir, testSecrets } from '../support/core';

const SHOTS = resolve('test-results/client-reports');
const AXE = resolve('node_modules/axe-core/axe.min.js');
const STORES = [
  { name: 'Northwind Apparel', tests: 50 },
  { name: 'Lumen Home', tests: 30 },
] as const;
/** A 2×2 PNG, as a logo read from disk. */
const LOGO_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR4nGP8z8Dwn4GBgYGJgYGBAQAc/gIB9lQ6NAAAAABJRU5ErkJggg==',
  'base64',
);

const data = tempDir('splitbook-e2e-client-reports-');
const downloads = createDownloads();
let simulator: Simulator;
let served: ServedSimulator;
let core: Core;
let win: RendererWindow | undefined;
let page: Page;
/** A test with a settled call (ship, keep the control, no difference), and the day it started. */
let pick: DecisionRow;
let pickStart = '';

function dialog() {
  return page.getByTestId('client-report-dialog');
}

async function view(label: string) {
  await page
    .getByRole('navigation', { name: 'Stores and views' })
    .getByRole('button', { name: new RegExp(`^${label}`) })
    .click();
}

async function openTest(row: DecisionRow) {
  await view('Tests');
  await page.locator('.store .main', { hasText: row.storeName }).click();
  await page.getByTestId('search').fill(row.title);
  await page
    .locator('[data-testid="test-grid"] .viewport [role="row"]')
    .filter({ hasText: row.title })
    .first()
    .click();
  await expect.poll(() => page.getByTestId('detail-title').textContent()).toBe(row.title);
}

/** Saves from the open dialog (by `how`) and returns the downloaded HTML and what the dialog says. */
async function saveAndDownload(how: 'click' | 'enter'): Promise<{ html: string; shown: string }> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    how === 'click'
      ? dialog().getByTestId('client-report-save').click()
      : page.keyboard.press('Enter'),
  ]);
  const html = readFileSync(await (download as Download).path(), 'utf8');
  const shown = (await dialog().getByTestId('client-report-result').textContent()) ?? '';
  return { html, shown: shown.replace(/\s+/g, ' ').trim() };
}

async function axeFindings(): Promise<string[]> {
  if (!(await page.evaluate(`typeof axe !== 'undefined'`)))
    await page.evaluate(readFileSync(AXE, 'utf8'));
  return (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')))`)) as string[];
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  simulator = createSimulator({ seed: 27, stores: [...STORES] });
  served = await serveSimulator(simulator);
  core = await startCore(data.path, {
    host: 'browser',
    secrets: testSecrets(),
    clock: () => simulator.now(),
    saveFile: downloads.saveFile,
  });
  for (const [i, store] of STORES.entries()) {
    const { id } = await core.services.stores.add({
      name: store.name,
      baseUrl: served.url,
      apiKey: simulator.stores[i]?.apiKey ?? '',
      sessionOnly: true,
    });
    const report = await syncStore(core, id);
    if (report.outcome !== 'ok')
      throw new Error(`the sync of ${store.name} ended ${report.outcome}`);
  }
  const calls = await core.services.decisions.list({ storeId: null });
  const settled = calls.rows.filter((r) =>
    ['ship', 'keep_control', 'no_difference'].includes(r.call),
  );
  const found = settled.find((r) => !/[<>&"]/.test(r.title));
  if (!found) throw new Error('no test with a settled call in the simulated stores');
  const detail = await core.services.tests.get({ storeId: found.storeId, testId: found.testId });
  pickStart = (detail.test.startAt ?? detail.test.createdAt).slice(0, 10);
  pick = found;
  win = await openRenderer(core, {
    host: { downloads },
    page: { acceptDownloads: true, permissions: ['clipboard-read', 'clipboard-write'] },
    consoleErrors: true,
  });
  page = win.page;
  await page.locator('.store .main').first().waitFor();
}, 180_000);

afterAll(async () => {
  await win?.close();
  await core?.close();
  await downloads.close();
  await served?.close().catch(() => undefined);
  data.remove();
});

describe('client reports in the window', { timeout: 120_000 }, () => {
  it("saves a test's report from beside its title: a download naming the test and the call", async () => {
    await openTest(pick);
    await page.getByLabel('Test detail').getByTestId('report-button').click();
    await dialog().waitFor();
    // The test is the default scope; the browser host offers HTML and says how to make a PDF.
    expect(
      await dialog()
        .getByRole('radio', { name: /This test/ })
        .isChecked(),
    ).toBe(true);
    expect(await dialog().getByRole('radio', { name: /PDF/ }).count()).toBe(0);
    expect(await dialog().getByTestId('pdf-hint').textContent()).toMatch(/Print → Save as PDF/);
    expect(await dialog().getByTestId('report-since').isDisabled()).toBe(true);
    await screenshotsAtEverySize(page, SHOTS, 'dialog-test');

    const { html, shown } = await saveAndDownload('click');
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain(esc(pick.title));
    expect(html).toContain(esc(pick.words));
    expect(html).toContain(esc(pick.storeName));
    expect(shown).toMatch(/Download started/);
    expect(shown).toMatch(/\b1 test\b/);
    expect(shown).toContain(".html goes to your browser's downloads");
    expect(await axeFindings()).toEqual([]);

    // Esc closes the dialog and gives the focus back to the button.
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog().count()).toBe(0);
    expect(await page.evaluate(`document.activeElement?.getAttribute('data-testid')`)).toBe(
      'report-button',
    );
  });

  it("saves the store's report from the list's header with Enter, over a period typed in", async () => {
    await view('Tests');
    await page.locator('.store .main', { hasText: pick.storeName }).click();
    await page.locator('.tests-pane').getByTestId('report-button').click();
    await dialog().waitFor();
    expect(
      await dialog()
        .getByRole('radio', { name: /This store/ })
        .isChecked(),
    ).toBe(true);
    expect(
      await dialog()
        .getByRole('radio', { name: /This test/ })
        .count(),
    ).toBe(0);
    const since = await dialog().getByTestId('report-since').inputValue();
    const until = await dialog().getByTestId('report-until').inputValue();
    expect(Date.parse(until) - Date.parse(since)).toBe(29 * 86_400_000);
    // A period that holds the picked test: from the day it started, typed into the date field.
    const from = pickStart < since ? pickStart : since;
    await dialog().getByTestId('report-since').fill(from);
    expect(await dialog().getByTestId('report-since').inputValue()).toBe(from);
    await dialog().getByTestId('report-until').focus();
    const { html, shown } = await saveAndDownload('enter');
    const expected = await core.services.clientReports.summary({
      storeId: pick.storeId,
      testId: null,
      since: from,
      until,
    });
    expect(expected.tests).toBeGreaterThan(0);
    expect(shown).toMatch(new RegExp(`\\b${expected.tests} tests?\\b`));
    expect(html).toContain(esc(pick.storeName));
    expect(html).toContain(esc(pick.title));
    expect(html).toContain(esc(pick.words));
    await page.keyboard.press('Escape');
  });

  it("writes a card a test by default, and the full sections with 'Full sections' (issue 44)", async () => {
    await page.locator('.tests-pane').getByTestId('report-button').click();
    await dialog().waitFor();
    const detail = dialog().getByTestId('report-detail');
    expect(await detail.isChecked()).toBe(false);
    await dialog().getByTestId('report-since').fill('2000-01-01');
    const compact = await saveAndDownload('click');
    expect(compact.html).toContain('<article class="card"');
    expect(compact.html).not.toContain('<section class="test"');
    await detail.check();
    await screenshotsAtEverySize(page, SHOTS, 'client-report-detail');
    const full = await saveAndDownload('click');
    expect(full.html).toContain('<section class="test"');
    expect(full.html).not.toContain('<article class="card"');
    await page.keyboard.press('Escape');
  });

  it('copies the summary to the clipboard, the same bullets the core writes', async () => {
    await page.locator('.tests-pane').getByTestId('report-button').click();
    await dialog().waitFor();
    await dialog()
      .getByRole('radio', { name: /All stores/ })
      .check();
    const since = await dialog().getByTestId('report-since').inputValue();
    const until = await dialog().getByTestId('report-until').inputValue();
    await dialog().getByTestId('copy-summary').click();
    await expect.poll(() => dialog().getByTestId('summary-copied').textContent()).toMatch(/Copied/);
    const expected = await core.services.clientReports.summary({
      storeId: null,
      testId: null,
      since,
      until,
    });
    const copied = (await page.evaluate('navigator.clipboard.readText()')) as string;
    expect(copied).toBe(expected.text);
    expect(copied.split('\n').filter((line) => line.startsWith('•')).length).toBeGreaterThanOrEqual(
      3,
    );
    expect(await dialog().getByTestId('summary-copied').textContent()).toContain(
      `${expected.tests} test`,
    );
    await screenshotsAtEverySize(page, SHOTS, 'dialog-copied');
    await page.keyboard.press('Escape');
  });

  it('puts the header set in Settings, with a logo read from disk, in the next report', async () => {
    await page.getByRole('button', { name: 'Settings' }).click();
    const settings = page.getByTestId('settings-client-reports');
    await settings.scrollIntoViewIfNeeded();
    await page.getByLabel('Name', { exact: true }).fill('Ada Consulting');
    await page.getByLabel('Line', { exact: true }).fill('ada@example.com · +44 20 7946 0000');
    await settings.getByTestId('logo-file').setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: LOGO_PNG,
    });
    await settings.getByTestId('logo-preview').waitFor();
    // A file too large is refused before it is read, saying why.
    await settings.getByTestId('logo-file').setInputFiles({
      name: 'poster.png',
      mimeType: 'image/png',
      buffer: Buffer.alloc(600 * 1024, 1),
    });
    await expect
      .poll(() => settings.getByRole('alert').textContent())
      .toMatch(/poster\.png is 600 kB: choose an image under 500 kB/);
    expect(await settings.getByTestId('logo-preview').count()).toBe(1);
    await settings.getByTestId('report-locale').selectOption('de-DE');
    await expect
      .poll(() => settings.getByTestId('locale-sample').textContent())
      .toContain('1.234.567,89');
    await screenshotsAtEverySize(page, SHOTS, 'settings', async () => {
      await settings.scrollIntoViewIfNeeded();
    });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);

    const saved = await core.services.clientReports.settings({});
    const logo = `data:image/png;base64,${LOGO_PNG.toString('base64')}`;
    expect(saved).toEqual({
      header: {
        name: 'Ada Consulting',
        line: 'ada@example.com · +44 20 7946 0000',
        logoDataUrl: logo,
      },
      locale: 'de-DE',
    });

    await openTest(pick);
    await page.getByLabel('Test detail').getByTestId('report-button').click();
    await dialog().waitFor();
    const { html } = await saveAndDownload('click');
    expect(html).toContain('Ada Consulting');
    expect(html).toContain(esc('ada@example.com · +44 20 7946 0000'));
    expect(html).toContain(logo);
    await page.keyboard.press('Escape');

    // The logo can be removed again, and the settings dialog shows what was saved.
    await page.getByRole('button', { name: 'Settings' }).click();
    await settings.getByTestId('logo-preview').waitFor();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Ada Consulting');
    await settings.getByTestId('logo-remove').click();
    expect(await settings.getByTestId('logo-preview').count()).toBe(0);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
    expect((await core.services.clientReports.settings({})).header.logoDataUrl).toBeNull();
  });

  it('ends with no page errors', () => {
    expect(win?.pageErrors ?? []).toEqual([]);
  });
});
