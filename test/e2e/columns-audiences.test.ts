// Issue 12, items 14 and 15, in the real renderer in Chromium: the list's column chooser (choose, kept
// after a reload, reset, never overlapping in a narrow window), an audience's selector in words (never
// JSON), and "Used by N tests" opening the list of exactly those N tests. Screenshots of the chooser
// and the audience detail at 900x560 and 1920x1080, light and dark, go to test-results/columns/.
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '#core/types';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { serveRenderer, type RendererServer } from '../support/e2e';
import { startCore, syncStore, tempDir } from '../support/core';

const AXE = resolve('node_modules/axe-core/axe.min.js');
const SHOTS = resolve('test-results/columns');
const OTHER = 'Borealis Outfitters';
/** The audience Splitbook makes with a selector of a shape it does not know. */
const ODD = 'Deep link visitors';
const ODD_SELECTOR = { engine: 'dom', match: { attribute: 'data-role', equals: 'buy' }, depth: 2 };
/** One with a selector of a known shape, `{ type: 'css', value }`. */
const CSS_AUDIENCE = 'Size guide clickers';
const SIZES = [
  { width: 900, height: 560 },
  { width: 1920, height: 1080 },
] as const;

const data = tempDir('splitbook-columns-');
let core: Core;
let sim: Simulator;
let served: ServedSimulator;
let server: RendererServer;
let demoId = '';

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  sim = createSimulator({ seed: 4, stores: [{ name: OTHER, tests: 40 }] });
  served = await serveSimulator(sim, { port: 0 });
  core = await startCore(data.path, { host: 'browser', demo: { tests: 60, seed: 11 } });
  const demo = await core.services.stores.openDemo({});
  demoId = demo.id;
  await core.services.stores.add({
    name: OTHER,
    baseUrl: served.url,
    apiKey: sim.stores[0]?.apiKey ?? '',
    sessionOnly: true,
  });
  for (const s of await core.services.stores.list({})) await syncStore(core, s.id);
  await core.services.edits.createAudience({
    storeId: demoId,
    name: ODD,
    rules: [
      { dimension: 'page_path', operator: 'starts_with', values: ['/p/'], selector: ODD_SELECTOR },
    ],
  });
  await core.services.edits.createAudience({
    storeId: demoId,
    name: CSS_AUDIENCE,
    rules: [
      {
        dimension: 'element_clicked',
        operator: 'equals',
        values: ['true'],
        selector: { type: 'css', value: '.size-guide' },
      },
    ],
  });
  server = await serveRenderer(core);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await core?.close();
  await served?.close();
  data.remove();
});

async function openApp(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(server.host.url);
  await page.locator('.store .main').first().waitFor();
  return page;
}

async function view(page: Page, label: string) {
  await page
    .getByRole('navigation', { name: 'Stores and views' })
    .getByRole('button', { name: new RegExp(`^${label}`) })
    .click();
}

function header(page: Page, name: string) {
  return page.getByRole('columnheader', { name: new RegExp(`^${name}`) });
}

/** The header labels, in order. */
async function headers(page: Page): Promise<string[]> {
  return (await page.getByRole('columnheader').allTextContents()).map((t) =>
    t.replace(/[▲▼]/g, '').trim(),
  );
}

/** Header and first-row cells that overlap their neighbour or run past their box. */
const OVERLAPS = `(() => {
  const found = [];
  for (const row of document.querySelectorAll('[data-testid="test-grid"] [role="row"]')) {
    const cells = [...row.querySelectorAll('[role="columnheader"], [role="gridcell"]')];
    for (let i = 1; i < cells.length; i++) {
      const a = cells[i - 1].getBoundingClientRect();
      const b = cells[i].getBoundingClientRect();
      if (a.right > b.left + 0.5) found.push(cells[i - 1].className + ' / ' + cells[i].className);
    }
  }
  return found;
})()`;

/** What axe-core finds with the menu open: critical and serious violations, and content outside landmarks. */
async function axeFindings(page: Page): Promise<string[]> {
  if (!(await page.evaluate(`typeof axe !== 'undefined'`)))
    await page.evaluate(readFileSync(AXE, 'utf8'));
  return (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious' || v.id === 'region')
    .map((v) => v.id + ': ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')))`)) as string[];
}

const SCROLLS = `(() => {
  const grid = document.querySelector('[data-testid="test-grid"]');
  return { scroll: grid.scrollWidth, client: grid.clientWidth };
})()`;

describe('the column chooser (item 14)', { timeout: 120_000 }, () => {
  it('chooses a column, keeps it after a reload, and resets', async () => {
    const context = await server.browser.newContext({ viewport: { width: 1920, height: 1080 } });
    const page = await openApp(context);
    try {
      await page.keyboard.press('Control+0');
      await header(page, 'Title').waitFor();
      const before = await headers(page);
      expect(before).toEqual(expect.arrayContaining(['Title', 'Store', 'Goal', 'End']));
      expect(before).not.toContain('Campaign');

      // From the keyboard: the Columns button, arrows to Campaign, Space to tick it.
      await page.getByTestId('columns-button').focus();
      await page.keyboard.press('Enter');
      const menu = page.getByRole('menu', { name: /Columns of the list/ });
      await menu.waitFor();
      const campaign = menu.getByRole('menuitemcheckbox', { name: /Campaign/ });
      expect(await campaign.getAttribute('aria-checked')).toBe('false');
      expect(
        await menu.getByRole('menuitemcheckbox', { name: /Title/ }).getAttribute('aria-disabled'),
      ).toBe('true');
      const focused = async () =>
        String(await page.evaluate(`document.activeElement?.textContent`));
      for (let i = 0; i < 16 && !(await focused()).includes('Campaign'); i++)
        await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Space');
      await expect.poll(() => campaign.getAttribute('aria-checked')).toBe('true');
      await page.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached' });
      expect(await page.evaluate('document.activeElement?.dataset.testid')).toBe('columns-button');
      await header(page, 'Campaign').waitFor();

      // Turned off by the user, Goal stays off however wide the window.
      await header(page, 'Title').click({ button: 'right' });
      await menu.getByRole('menuitemcheckbox', { name: /Goal/ }).click();
      await page.keyboard.press('Escape');
      expect(await header(page, 'Goal').count()).toBe(0);

      // A restart (a reload reads the same localStorage) keeps both choices.
      await page.reload();
      await page.locator('.store .main').first().waitFor();
      await header(page, 'Title').waitFor();
      expect(await headers(page)).toContain('Campaign');
      expect(await headers(page)).not.toContain('Goal');

      // One store keeps its own choice: the defaults there.
      await page.locator('.store .main', { hasText: OTHER }).click();
      await expect.poll(() => headers(page)).not.toContain('Store');
      expect(await headers(page)).not.toContain('Campaign');
      await page.keyboard.press('Control+0');
      await expect.poll(() => headers(page)).toContain('Campaign');

      // Reset: back to the defaults.
      await page.getByTestId('columns-button').click();
      await page.getByTestId('columns-reset').click();
      await expect.poll(() => headers(page)).toEqual(before);
      expect(await page.getByTestId('columns-reset').getAttribute('aria-disabled')).toBe('true');
      await page.keyboard.press('Escape');
    } finally {
      await context.close();
    }
  });

  it('in a narrow window, chosen columns scroll sideways and never overlap', async () => {
    const context = await server.browser.newContext({ viewport: { width: 900, height: 560 } });
    const page = await openApp(context);
    try {
      await page.keyboard.press('Control+0');
      await header(page, 'Title').waitFor();
      // Width alone drops the default columns that do not fit: nothing scrolls, nothing overlaps,
      // once the list has measured its width (and its scrollbar has appeared with the rows).
      await expect
        .poll(async () => {
          const plain = (await page.evaluate(SCROLLS)) as { scroll: number; client: number };
          return plain.scroll <= plain.client;
        })
        .toBe(true);
      expect(await page.evaluate(OVERLAPS)).toEqual([]);
      expect(await headers(page)).not.toContain('End');
      // The smallest window still shows the figures that matter most beside a title that reads as
      // words: the call and the goal's lift; the status, in the detail pane, leaves first (issue 21, 4).
      // Across several stores each row's store shows too (issue 44, item 6).
      expect(await headers(page)).toEqual(['Title', 'Store', 'Decision', 'Lift (goal)']);

      await page.getByTestId('columns-button').click();
      const menu = page.getByRole('menu', { name: /Columns of the list/ });
      const end = menu.getByRole('menuitemcheckbox', { name: /End/ });
      await expect.poll(() => end.textContent()).toMatch(/no room/);
      for (const name of ['End', 'Goal', 'Campaign', 'Tags', 'Updated'])
        await menu.getByRole('menuitemcheckbox', { name: new RegExp(name) }).click();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({ path: join(SHOTS, `chooser-900-${scheme}.png`) });
      }
      await page.keyboard.press('Escape');
      for (const name of ['End', 'Goal', 'Campaign', 'Tags', 'Updated'])
        await header(page, name).waitFor();
      expect(await page.evaluate(OVERLAPS)).toEqual([]);
      const chosen = (await page.evaluate(SCROLLS)) as { scroll: number; client: number };
      expect(chosen.scroll).toBeGreaterThan(chosen.client);
      const title = await page
        .locator('[data-testid="test-grid"] .viewport [role="row"] .c-title')
        .first()
        .boundingBox();
      // The smallest window's list is under 480 px: there the title keeps 42% of it (at least 120 px).
      expect(title?.width ?? 0).toBeGreaterThanOrEqual(119);
      // The page itself never scrolls sideways.
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(900);
      await page.emulateMedia({ colorScheme: 'light' });
      await page.screenshot({ path: join(SHOTS, 'scrolled-900-light.png') });
    } finally {
      await context.close();
    }
  });

  it('opens from the list by keyboard, and passes axe open, at 1920x1080, light and dark', async () => {
    const context = await server.browser.newContext({ viewport: SIZES[1] });
    const page = await openApp(context);
    try {
      await page.keyboard.press('Control+0');
      await header(page, 'Title').waitFor();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.getByTestId('columns-button').click();
        await page.getByRole('menu').waitFor();
        await page.screenshot({ path: join(SHOTS, `chooser-1920-${scheme}.png`) });
        expect(await axeFindings(page), scheme).toEqual([]);
        await page.keyboard.press('Escape');
      }
      // From the list itself: Shift+F10 opens the same menu; Escape gives the focus back to the list.
      await page.getByTestId('test-grid').focus();
      await page.keyboard.press('Shift+F10');
      await page.getByRole('menu', { name: /Columns of the list/ }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('menu').waitFor({ state: 'detached' });
      expect(await page.evaluate('document.activeElement?.dataset.testid')).toBe('test-grid');
      expect(await page.evaluate(OVERLAPS)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('audiences (item 15)', { timeout: 120_000 }, () => {
  it('reads selectors as words or key: value pairs, never JSON, in the detail and the list', async () => {
    const context = await server.browser.newContext({ viewport: SIZES[1] });
    const page = await openApp(context);
    try {
      await page.locator('.store .main', { hasText: 'Demo' }).first().click();
      await view(page, 'Audiences');
      const detail = page.getByRole('region', { name: 'Audience detail' });

      await page.locator('.list-pane tbody tr', { hasText: ODD }).click();
      const odd = detail.getByTestId('rule-selector');
      await odd.waitFor();
      const oddText = (await odd.innerText()).replace(/\s+/g, ' ');
      expect(oddText).toContain('engine: dom');
      expect(oddText).toContain('match.attribute: data-role');
      expect(oddText).toContain('depth: 2');
      expect(oddText).not.toMatch(/[{}"]/);
      expect(
        await page.evaluate(
          `getComputedStyle(document.querySelector('[data-testid="rule-selector"] dl')).fontFamily`,
        ),
      ).toMatch(/mono/i);
      for (const size of SIZES) {
        for (const scheme of ['light', 'dark'] as const) {
          await page.setViewportSize(size);
          await page.emulateMedia({ colorScheme: scheme });
          await page.screenshot({ path: join(SHOTS, `audience-${size.width}-${scheme}.png`) });
          expect(await axeFindings(page), `${size.width} ${scheme}`).toEqual([]);
        }
      }
      await page.setViewportSize(SIZES[1]);
      await page.emulateMedia({ colorScheme: 'light' });

      await page.locator('.list-pane tbody tr', { hasText: CSS_AUDIENCE }).click();
      await expect
        .poll(async () =>
          (await detail.getByTestId('rule-selector').innerText()).replace(/\s+/g, ' '),
        )
        .toBe('CSS selector .size-guide');
      // The list's rule column uses the same words.
      const listText = await page
        .locator('.list-pane tbody tr', { hasText: CSS_AUDIENCE })
        .innerText();
      expect(listText).toContain('CSS selector .size-guide');
      expect(listText).not.toMatch(/[{}"]/);
    } finally {
      await context.close();
    }
  });

  it('marks an audience not yet sent wherever it is used, and states no rule logic the API does not (issue 21, 7 and 12)', async () => {
    const [other] = (await core.services.stores.list({})).filter((s) => s.name === OTHER);
    if (!other) throw new Error('the simulated store is missing');
    await served.setOffline(true);
    const unsent = 'Waiting for the network';
    const created = await core.services.edits.createAudience({
      storeId: other.id,
      name: unsent,
      rules: [],
    });
    const context = await server.browser.newContext({ viewport: SIZES[1] });
    const page = await openApp(context);
    try {
      await page.locator('.store .main', { hasText: OTHER }).click();
      await view(page, 'Audiences');
      const row = page.locator('.list-pane tbody tr', { hasText: unsent });
      await expect.poll(() => row.getByTestId('unsent-mark').textContent()).toBe('not yet sent');
      await row.click();
      const detail = page.getByRole('region', { name: 'Audience detail' });
      await detail.getByTestId('unsent-mark').waitFor();
      // The detail and the editor say "Rules", never a meaning ("all must match") the API does not state.
      expect(await detail.textContent()).not.toMatch(/all of these hold|all must match/);
      await page.getByRole('button', { name: /New custom audience/ }).click();
      const legend = page.getByTestId('rules-legend');
      expect(await legend.textContent()).toMatch(/^Rules/);
      expect(await legend.textContent()).not.toContain('all must match');
      expect(await legend.getAttribute('title')).toContain('does not state how');
      await page.keyboard.press('Escape');

      // Where a test uses it: the Edit tab's audiences.
      await view(page, 'Tests');
      await page.locator('[data-testid="test-grid"] .viewport [role="row"]').first().click();
      await page.keyboard.press('Enter');
      await page.getByRole('tab', { name: 'Edit' }).click();
      const check = page.locator('.checks label', { hasText: unsent });
      await expect.poll(() => check.getByTestId('unsent-mark').textContent()).toBe('not yet sent');
      await page.screenshot({ path: join(SHOTS, 'audience-unsent-1920-light.png') });
    } finally {
      await context.close();
      await core.services.edits.discard({
        storeId: other.id,
        kind: 'audience',
        recordId: created.id,
      });
      await served.setOffline(false);
    }
  });

  it('"Used by N tests" opens the list of exactly those N tests, with a chip that clears it', async () => {
    const used = (await core.services.audiences.list({ storeId: demoId }))
      .filter((row) => row.testCount > 1)
      .sort((a, b) => b.testCount - a.testCount)[0];
    if (!used) throw new Error('no demo audience is used by two tests or more');
    const n = used.testCount;
    const context = await server.browser.newContext({ viewport: SIZES[1] });
    const page = await openApp(context);
    try {
      await page.keyboard.press('Control+0');
      await view(page, 'Audiences');
      await page.locator('.list-pane tbody tr', { hasText: used.audience.name }).first().click();
      const button = page.getByTestId('audience-used-by');
      await expect.poll(() => button.innerText()).toBe(`Used by ${n} tests`);
      await button.click();

      const chip = page.getByTestId('audience-chip');
      await chip.waitFor();
      expect(await chip.innerText()).toContain(used.audience.name);
      const rows = page.locator('[data-testid="test-grid"] .viewport [role="row"]:not(.skeleton)');
      await expect.poll(() => rows.count()).toBe(n);
      expect(await page.locator('.pane-header .count').innerText()).toContain(`${n} tests`);
      await page.screenshot({ path: join(SHOTS, 'used-by-list-1920-light.png') });
      expect(await axeFindings(page)).toEqual([]);

      // An export of the list says what it covers, by the audience's name.
      await page
        .getByRole('region', { name: /^Tests of/ })
        .getByTestId('export-button')
        .click();
      const dialog = page.getByRole('dialog');
      await expect.poll(() => dialog.innerText()).toContain(`audience ${used.audience.name}`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      // Each of them targets the audience, as its overview says.
      await rows.first().click();
      await page.getByRole('tab', { name: 'Overview' }).click();
      await expect
        .poll(() => page.getByRole('region', { name: 'Detail', exact: true }).innerText())
        .toContain(used.audience.name);

      await chip.getByRole('button', { name: /Clear the audience filter/ }).click();
      await chip.waitFor({ state: 'detached' });
      await expect.poll(() => rows.count()).toBeGreaterThan(n);
    } finally {
      await context.close();
    }
  });
});
