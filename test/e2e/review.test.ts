// The review memory in the real renderer (Chromium, browser host, real core, simulator over HTTP): sync, change
// things on the server, sync, see the changes, open one, write a note, mark reviewed; and the Portfolio view.
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

const data = tempDir('splitbook-e2e-review-');
let core: Core;
let simulator: Simulator;
let served: ServedSimulator;
let win: RendererWindow | undefined;
let page: Page;
let storeId = '';

async function screens(name: string) {
  await screenshotsAtEverySize(page, SCREENS, `review-${name}`);
}

function openView(label: string) {
  return page
    .getByRole('navigation', { name: 'Stores and views' })
    .getByRole('button', { name: new RegExp(`^${label}`) })
    .click();
}

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

describe('review in the window', { timeout: 90_000 }, () => {
  it('shows what changed on the server after a sync, opens a test, keeps a note, and marks the store reviewed', async () => {
    await openView('Changes');
    await page.getByText('All reviewed').waitFor();

    const tests = simulator.snapshot(STORE).tests;
    const draft = tests.find((t) => t.status === 'draft');
    const active = tests.find((t) => t.status === 'active');
    const completed = tests.find((t) => t.status === 'completed');
    if (!draft || !active || !completed)
      throw new Error('the store lacks a draft, active or completed test');
    simulator.touchTest(STORE, active.id, { status: 'paused' });
    simulator.touchTest(STORE, completed.id, { title: 'Renamed by a colleague' });
    simulator.removeTest(STORE, draft.id);

    // Sync from the window (Ctrl+R syncs the current store).
    await page.locator('.store .main', { hasText: STORE }).click();
    await openView('Changes');
    await page.keyboard.press('Control+r');
    const lines = page.getByTestId('change-line');
    await expect.poll(() => lines.count(), { timeout: 30_000 }).toBe(3);
    const texts = await lines.allTextContents();
    expect(texts.some((t) => t.includes('Paused') && t.includes('active → paused'))).toBe(true);
    expect(texts.some((t) => t.includes('Removed from the server'))).toBe(true);
    expect(
      texts.some(
        (t) => t.includes('Title changed on the server') && t.includes('Renamed by a colleague'),
      ),
    ).toBe(true);
    await expect.poll(() => page.getByTestId('unreviewed').textContent()).toBe('3');

    await lines.filter({ hasText: 'Renamed by a colleague' }).first().click();
    await expect
      .poll(() => page.getByTestId('detail-title').textContent())
      .toBe('Renamed by a colleague');
    await page.getByTestId('note').fill('Tell the client: the rename was theirs.');
    await expect.poll(() => page.getByTestId('note-state').textContent()).toMatch(/Saved/);
    expect((await core.services.notes.get({ storeId, testId: completed.id })).body).toBe(
      'Tell the client: the rename was theirs.',
    );
    await screens('changes');

    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByTestId('history').getByText('Renamed by a colleague').first().waitFor();
    await screens('history');

    await page.getByTestId('mark-reviewed').click();
    await page.getByText('All reviewed').waitFor();
    await expect.poll(() => page.getByTestId('unreviewed').count()).toBe(0);
    expect(win?.pageErrors).toEqual([]);
  });

  it("lists the user's own sent edit apart, dates in local time with the exact value in a tooltip, titles whole at 900 px (issue 21, 6 and 11)", async () => {
    const tests = simulator.snapshot(STORE).tests;
    const [mine, theirs] = tests.filter((t) => t.status === 'active');
    if (!mine || !theirs) throw new Error('two active tests are needed');
    const longTitle =
      'Sticky add-to-cart bar with delivery estimate on product pages for returning mobile visitors';
    simulator.touchTest(STORE, theirs.id, {
      title: longTitle,
      endAt: '2026-12-24T17:30:00.000Z',
    });
    await core.services.edits.editTest({
      storeId,
      testId: mine.id,
      changes: { title: 'My own title, sent from Splitbook' },
    });
    await page.locator('.store .main', { hasText: STORE }).click();
    await openView('Changes');
    await page.keyboard.press('Control+r');
    const lines = page.getByTestId('change-line');
    await expect.poll(() => lines.count(), { timeout: 30_000 }).toBe(2);
    expect(await lines.allTextContents()).not.toContainEqual(
      expect.stringContaining('My own title'),
    );
    // Only the colleague's changes wait for a review; mine is one tick away, listed apart.
    await expect.poll(() => page.getByTestId('unreviewed').textContent()).toBe('2');
    await page.getByTestId('show-own').check();
    const own = page.getByTestId('own-change-line');
    await expect.poll(() => own.count()).toBe(1);
    expect(await own.textContent()).toMatch(
      /Title: your edit, sent from Splitbook: .* → My own title, sent from Splitbook/,
    );
    // The end date reads in local time; the stored value is one hover away.
    const end = lines.filter({ hasText: 'End changed on the server' });
    const value = end.locator('.value[title="2026-12-24T17:30:00.000Z"]');
    expect(await value.textContent()).not.toContain('2026-12-24T');
    expect(await end.locator('time').first().getAttribute('title')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(await end.textContent()).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}/);
    // The History tab reads the same way.
    await end.click();
    await page.getByRole('tab', { name: 'History' }).click();
    const historyEnd = page.getByTestId('history').locator('[title="2026-12-24T17:30:00.000Z"]');
    expect(await historyEnd.textContent()).not.toContain('2026-12-24T');
    expect(await page.getByTestId('history').textContent()).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}/);
    // At the smallest window, a long title is shown whole (it wraps), not cut.
    await page.setViewportSize({ width: 900, height: 560 });
    const cut = await page.evaluate(`(() => {
      const el = [...document.querySelectorAll('[data-testid="change-line"] .title')].find((e) =>
        e.textContent.includes(${JSON.stringify(longTitle)}));
      return !el || getComputedStyle(el).textOverflow === 'ellipsis' || el.scrollWidth > el.clientWidth + 1;
    })()`);
    expect(cut).toBe(false);
    await screens('changes-own');
    await page
      .getByRole('tab', { name: 'History' })
      .click()
      .catch(() => undefined);
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('mark-reviewed').click();
    await page.getByText('All reviewed').waitFor();
    expect(win?.pageErrors).toEqual([]);
  });

  it('lists a page of each store\'s newest changes, then every change on "Show all" (issue 22)', async () => {
    // More changes than a page: a colleague renames 55 of the 60 tests.
    const tests = simulator.snapshot(STORE).tests.slice(0, 55);
    for (const [i, test] of tests.entries())
      simulator.touchTest(STORE, test.id, {
        title: `Renamed in bulk ${String(i + 1).padStart(2, '0')}`,
      });
    await page.locator('.store .main', { hasText: STORE }).click();
    await openView('Changes');
    await page.keyboard.press('Control+r');
    // The renames, and whatever else the sync saw move (probabilities, tiers): more than a page.
    await expect
      .poll(async () => Number(await page.getByTestId('unreviewed').textContent()), {
        timeout: 30_000,
      })
      .toBeGreaterThanOrEqual(55);
    const count = Number(await page.getByTestId('unreviewed').textContent());
    const lines = page.getByTestId('change-line');
    // The view's page (review.svelte.ts CHANGES_PAGE): 50 lines a store.
    await expect.poll(() => lines.count()).toBe(50);
    const more = page.getByTestId('show-all-changes');
    expect((await page.locator('.more').textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      `The newest 50 of ${count} changes. Show all ${count}`,
    );
    await page.setViewportSize({ width: 900, height: 560 });
    await more.scrollIntoViewIfNeeded();
    await screens('changes-page');
    await page.setViewportSize({ width: 1440, height: 900 });
    // Keyboard first: the button is reached and pressed like any other.
    await more.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => lines.count()).toBe(count);
    await expect.poll(() => more.count()).toBe(0);
    // The page was the newest lines of the whole list, in its order: the first 50 are unchanged.
    const report = await core.services.review.changes({
      storeId,
      since: null,
      probabilityThreshold: 0.1,
    });
    const titles = (await lines.locator('.title').allTextContents()).map((t) => t.trim());
    expect(titles).toEqual(report.lines.filter((l) => l.own === null).map((l) => l.testTitle));
    await page.getByTestId('mark-reviewed').click();
    await page.getByText('All reviewed').waitFor();
    expect(win?.pageErrors).toEqual([]);
  });

  it('shows the portfolio with the outcome definition, and a number opens the filtered list', async () => {
    await page.locator('.all button').click();
    await openView('Portfolio');
    await page.getByTestId('outcome-definition').waitFor();
    await expect.poll(() => page.getByTestId('portfolio-card').count()).toBe(2);
    await screens('portfolio');
    const running = page
      .getByTestId('portfolio-card')
      .nth(1)
      .locator('div', { has: page.getByText('Running now') })
      .getByRole('button');
    const n = Number(await running.first().textContent());
    await running.first().click();
    await expect
      .poll(() => page.locator('.pane-header .count').textContent())
      .toMatch(new RegExp(`^\\s*${n} tests?`));
    expect(win?.pageErrors).toEqual([]);
  });
});
