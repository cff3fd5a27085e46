// Decisions in the window, end to end in Chromium through the browser host, over a real core syncing two
// simulated stores over HTTP: the Decisions view lists every call the core makes (counts and the
// sidebar's badge included), is driven by the keyboard, and passes axe; the Results tab states the call
// and its reason in one sentence that is never cut, with its checks; the list's Decision column shows the
// same call as the test's detail. Screenshots at 900×560 and 1440×900, light and dark, go to
// test-results/decisions/.
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreEvent, DecisionList, DecisionRow } from '#shared/contract/index';
import type { Core, CoreEventListener } from '#core/types';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { SCREEN_SIZES, screenshotsAtEverySize } from '../support/chromium';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { startCore, syncStore, testSecrets, tempDir } from '../support/core';

const SHOTS = resolve('test-results/decisions');
const AXE = resolve('node_modules/axe-core/axe.min.js');
const STORES = [
  { name: 'Northwind Apparel', tests: 60 },
  { name: 'Lumen Home', tests: 40 },
] as const;

const data = tempDir('splitbook-e2e-decisions-');
let simulator: Simulator;
let served: ServedSimulator;
let core: Core;
let win: RendererWindow | undefined;
let page: Page;
let calls: DecisionList;

/**
 * The window's subscriptions to the core's events, so a test can also tell it one the core did not
 * emit: a refresh reports progress only after a second of work, which takes thousands of tests
 * (test/decisions/refresh-progress.test.ts tests the core's side).
 */
const windowListeners = new Set<CoreEventListener>();
function tellWindow(event: CoreEvent): void {
  for (const listener of windowListeners) listener(event);
}

/** The rows of the Decisions view, in the order drawn. */
function rows() {
  return page.getByTestId('decision-row');
}

async function view(label: string) {
  await page
    .getByRole('navigation', { name: 'Stores and views' })
    .getByRole('button', { name: new RegExp(`^${label}`) })
    .click();
}

/** Critical and serious violations, and content outside landmarks (as the layout test counts them). */
async function axeFindings(): Promise<string[]> {
  if (!(await page.evaluate(`typeof axe !== 'undefined'`)))
    await page.evaluate(readFileSync(AXE, 'utf8'));
  return (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious' || v.id === 'region')
    .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')))`)) as string[];
}

const normalise = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();

/** A settled call with the longest sentence: the hardest to fit at 900 px. */
function longestSettled(): DecisionRow {
  const settled = calls.rows.filter((r) => r.call !== 'keep_running');
  const pool = settled.length > 0 ? settled : calls.rows;
  const row = [...pool].sort(
    (a, b) => b.words.length + b.reason.length - (a.words.length + a.reason.length),
  )[0];
  if (!row) throw new Error('the simulated stores gave no test a call');
  return row;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  simulator = createSimulator({ seed: 27, stores: [...STORES] });
  served = await serveSimulator(simulator);
  core = await startCore(data.path, {
    host: 'browser',
    secrets: testSecrets(),
    clock: () => simulator.now(),
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
  calls = await core.services.decisions.list({ storeId: null });
  const relayed: Core = {
    ...core,
    subscribe: (listener) => {
      windowListeners.add(listener);
      const off = core.subscribe(listener);
      return () => {
        windowListeners.delete(listener);
        off();
      };
    },
  };
  win = await openRenderer(relayed, { consoleErrors: true });
  page = win.page;
  await page.locator('.store .main').first().waitFor();
}, 180_000);

afterAll(async () => {
  await win?.close();
  await core?.close();
  await served?.close().catch(() => undefined);
  data.remove();
});

describe('Decisions, end to end', { timeout: 120_000 }, () => {
  it('lists every call of the core, grouped, with the counts and the badge the core gives', async () => {
    // The stores' tests make a mix of calls, some needing the consultant, some still running.
    expect(calls.needCall).toBeGreaterThan(0);
    expect(calls.counts.keep_running ?? 0).toBeGreaterThan(0);

    const nav = page.getByRole('navigation', { name: 'Stores and views' });
    const first = nav.getByRole('list', { name: 'Views' }).getByRole('button').first();
    expect(normalise(await first.textContent())).toMatch(/^Decisions/);
    await expect
      .poll(() => nav.getByTestId('decisions-count').textContent())
      .toBe(String(calls.needCall));

    await view('Decisions');
    await page.getByRole('heading', { level: 1, name: /Decisions/ }).waitFor();
    await expect.poll(() => rows().count()).toBe(calls.rows.length);

    // Each row shows the call the core made, its title and its one-line reason.
    const drawn = await rows().evaluateAll((els) =>
      els.map((el) => ({
        testId: el.getAttribute('data-test-id'),
        call: el.getAttribute('data-call'),
        chip: el.querySelector('[data-call]')?.textContent?.replace(/\s+/g, ' ').trim() ?? '',
        text: el.textContent?.replace(/\s+/g, ' ') ?? '',
      })),
    );
    const byId = new Map(calls.rows.map((r) => [r.testId, r]));
    for (const row of drawn) {
      const made = byId.get(row.testId ?? '');
      expect(made, `row ${row.testId}`).toBeDefined();
      if (!made) continue;
      expect(row.call).toBe(made.call);
      expect(row.chip.length).toBeGreaterThan(2);
      expect(row.text).toContain(made.title.replace(/\s+/g, ' '));
      expect(row.text).toContain(made.reason.replace(/\s+/g, ' '));
    }
    // Calls needing the consultant come first, then the running ones by days to their call, then the
    // paused ones (no call until they resume, out of the forecast's order).
    const firstRunning = drawn.findIndex((r) => r.call === 'keep_running');
    const firstPaused = drawn.findIndex((r) => r.call === 'paused');
    const runningEnd = firstPaused === -1 ? drawn.length : firstPaused;
    expect(drawn.slice(firstRunning, runningEnd).every((r) => r.call === 'keep_running')).toBe(true);
    if (firstPaused !== -1) expect(drawn.slice(firstPaused).every((r) => r.call === 'paused')).toBe(true);
    const days = drawn
      .slice(firstRunning, runningEnd)
      .map((r) => byId.get(r.testId ?? '')?.daysToDecision ?? Infinity);
    expect(days).toEqual([...days].sort((a, b) => a - b));
    expect(await page.getByTestId('decision-when').first().textContent()).toMatch(
      /about .+ · around /,
    );

    // The filter by call keeps exactly that call's tests.
    const counted = Object.entries(calls.counts).filter(([, n]) => n > 0);
    for (const [call, n] of counted) {
      await page.locator(`[data-testid="call-filter"][data-call="${call}"]`).click();
      await expect.poll(() => rows().count()).toBe(n);
      expect(new Set(await rows().evaluateAll((els) => els.map((e) => e.dataset.call)))).toEqual(
        new Set([call]),
      );
    }
    await page
      .getByRole('group', { name: 'Filter by call' })
      .getByRole('button', { name: /^All/ })
      .click();
    await expect.poll(() => rows().count()).toBe(calls.rows.length);

    await screenshotsAtEverySize(page, SHOTS, 'view');
  });

  it('says above the calls while they are made again, and clears when they are', async () => {
    await view('Decisions');
    await rows().first().waitFor();
    const banner = page.getByTestId('calls-remaking');
    // Synthetic events, through the real browser host: see tellWindow.
    tellWindow({ name: 'decisions.progress', payload: { storeId: null, done: 2636, total: 6979 } });
    await banner.waitFor();
    expect(normalise(await banner.textContent())).toBe(
      'Making calls again: 2,636 of 6,979. Until then, these are the calls made with the settings before.',
    );
    await screenshotsAtEverySize(page, SHOTS, 'decisions-remaking');
    // The last event of the refresh (every call made) clears it.
    tellWindow({ name: 'decisions.progress', payload: { storeId: null, done: 6979, total: 6979 } });
    await banner.waitFor({ state: 'detached' });
  });

  it('passes axe on the Decisions view, in both themes', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await axeFindings(), scheme).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('moves with j/k and arrows, and opens the test with Enter', async () => {
    await rows().first().click();
    await expect.poll(() => rows().first().getAttribute('aria-current')).toBe('true');
    await page.keyboard.press('j');
    await expect.poll(() => rows().nth(1).getAttribute('aria-current')).toBe('true');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => rows().nth(2).getAttribute('aria-current')).toBe('true');
    await page.keyboard.press('k');
    await expect.poll(() => rows().nth(1).getAttribute('aria-current')).toBe('true');
    const testId = await rows().nth(1).getAttribute('data-test-id');
    const made = calls.rows.find((r) => r.testId === testId);
    await page.keyboard.press('Enter');
    const title = page.getByTestId('detail-title');
    await expect.poll(() => title.textContent()).toBe(made?.title);
    await expect
      .poll(() => page.evaluate(`document.activeElement?.getAttribute('data-testid')`))
      .toBe('detail-title');
    // It opens on the Results tab, where the call is explained; Esc goes back to the row.
    expect(await page.getByRole('tab', { name: 'Results' }).getAttribute('aria-selected')).toBe(
      'true',
    );
    await page.getByTestId('decision').waitFor();
    await page.keyboard.press('Escape');
    await expect
      .poll(() => page.evaluate(`document.activeElement?.getAttribute('data-test-id')`))
      .toBe(testId);
  });

  it('states the call and its reason in one sentence, never cut, with its checks, at both sizes', async () => {
    const pick = longestSettled();
    const detail = await core.services.tests.get({ storeId: pick.storeId, testId: pick.testId });
    const decision = detail.decision;
    if (!decision) throw new Error('the picked test has no decision in its detail');
    await page.locator(`[data-testid="decision-row"][data-test-id="${pick.testId}"]`).click();
    await page.keyboard.press('Enter');
    const header = page.getByTestId('decision');
    const sentence = page.getByTestId('decision-sentence');
    await expect
      .poll(() => sentence.textContent().then(normalise))
      .toBe(normalise(`${decision.words}: ${decision.reason}`));
    const guards = header.getByTestId('decision-guards').getByRole('listitem');
    expect(await guards.count()).toBe(decision.guards.length);
    for (const [i, guard] of decision.guards.entries()) {
      const text = normalise(await guards.nth(i).textContent());
      expect(text).toContain(guard.ok ? '✓' : '✗');
      expect(text).toContain(guard.text);
    }
    expect(normalise(await header.getByTestId('decision-basis').textContent())).toBe(
      normalise(decision.basis),
    );
    expect(await header.getByTestId('decision-api-verdict').count()).toBe(1);

    for (const size of SCREEN_SIZES) {
      await page.setViewportSize(size);
      await sentence.scrollIntoViewIfNeeded();
      const fits = (await page.evaluate(`(() => {
        const el = document.querySelector('[data-testid="decision-sentence"]');
        return { scroll: el.scrollWidth, client: el.clientWidth, height: el.getBoundingClientRect().height,
          clipped: getComputedStyle(el).textOverflow === 'ellipsis' };
      })()`)) as { scroll: number; client: number; height: number; clipped: boolean };
      expect(fits.scroll, `${size.width}`).toBeLessThanOrEqual(fits.client);
      expect(fits.clipped).toBe(false);
      expect(fits.height).toBeGreaterThan(0);
    }
    await screenshotsAtEverySize(page, SHOTS, 'results', async () => {
      await header.scrollIntoViewIfNeeded();
      await page.waitForTimeout(100);
    });
  });

  it("shows in the list's Decision column the call the detail shows", async () => {
    const pick = longestSettled();
    await view('Tests');
    await page.keyboard.press('Control+0');
    await page.getByTestId('search').fill(pick.title);
    const row = page
      .locator('[data-testid="test-grid"] .viewport [role="row"]')
      .filter({ hasText: pick.title })
      .first();
    await row.waitFor();
    const cell = row.getByTestId('decision-cell');
    await expect.poll(() => cell.getAttribute('data-call')).toBe(pick.call);
    expect(await cell.getAttribute('title')).toBe(`${pick.words}: ${pick.reason}`);
    await row.click();
    await page.getByRole('tab', { name: 'Results' }).click();
    await expect
      .poll(() =>
        page.getByTestId('decision').locator('[data-call]').first().getAttribute('data-call'),
      )
      .toBe(pick.call);
    await page.getByTestId('search').fill('');
    await screenshotsAtEverySize(page, SHOTS, 'list');
  });

  it("plans a draft at the store's traffic, with the effect editable in place", async () => {
    const drafts = (
      await core.services.tests.list({
        storeId: null,
        statuses: ['draft'],
        stage: null,
        goal: 'conversion-rate',
        device: null,
        tag: null,
        campaignId: null,
        audienceId: null,
        search: '',
        includeRemoved: false,
        hasAlerts: false,
        mine: false,
        sort: { key: 'title', dir: 'asc' },
        cursor: null,
        limit: 5,
      })
    ).rows;
    const draft = drafts[0];
    if (!draft) throw new Error('no draft with a conversion-rate goal in the simulated stores');
    const at5 = await core.services.decisions.planner({
      storeId: draft.storeId,
      goal: draft.goal,
      minEffect: null,
    });
    await page.getByTestId('search').fill(draft.title);
    await page
      .locator('[data-testid="test-grid"] .viewport [role="row"]')
      .filter({ hasText: draft.title })
      .first()
      .click();
    await page.getByRole('tab', { name: 'Overview' }).click();
    const text = page.getByTestId('planner-text');
    // The core's sentence, with the effect in the input instead of the text.
    const inPlace = (sentence: string) =>
      normalise(sentence.replace(/^Detecting a [\d.]+% lift/, 'Detecting a % lift'));
    expect(at5?.text).toMatch(/^Detecting a 5% lift on conversion rate needs /);
    await expect.poll(() => text.textContent().then(normalise)).toBe(inPlace(at5?.text ?? ''));
    expect(await page.getByTestId('planner-effect').inputValue()).toBe('5');
    expect(normalise(await page.getByTestId('planner-basis').textContent())).toBe(
      normalise(at5?.basis ?? ''),
    );
    await screenshotsAtEverySize(page, SHOTS, 'planner');
    const at10 = await core.services.decisions.planner({
      storeId: draft.storeId,
      goal: draft.goal,
      minEffect: 0.1,
    });
    await page.getByTestId('planner-effect').fill('10');
    await expect.poll(() => text.textContent().then(normalise)).toBe(inPlace(at10?.text ?? ''));
    await page.getByTestId('search').fill('');
  });

  it("edits a launched test's plan from its Results, and clears it", async () => {
    // A running test whose plan is not its automatic end (which no plan of its own moves).
    let running = longestSettled();
    for (const row of calls.rows.filter((r) => r.call === 'keep_running')) {
      const detail = await core.services.tests.get({ storeId: row.storeId, testId: row.testId });
      if (detail.decision?.plan && detail.decision.plan.source !== 'automatically-end-at') {
        running = row;
        break;
      }
    }
    await view('Decisions');
    await page.locator(`[data-testid="decision-row"][data-test-id="${running.testId}"]`).click();
    await page.keyboard.press('Enter');
    const plan = page.getByTestId('decision-plan');
    await plan.waitFor();
    await page.getByTestId('edit-plan').click();
    const days = page.getByRole('spinbutton', { name: 'Planned length' });
    await days.fill('35');
    await screenshotsAtEverySize(page, SHOTS, 'plan-edit', async () => {
      await plan.scrollIntoViewIfNeeded();
    });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => plan.textContent()).toContain("35-day plan (this test's own)");
    const after = await core.services.tests.get({
      storeId: running.storeId,
      testId: running.testId,
    });
    expect(after.decision?.plan?.plannedDays).toBe(35);
    expect(after.decision?.plan?.source).toBe('test');

    await page.getByTestId('edit-plan').click();
    await page.getByRole('button', { name: 'Clear', exact: true }).click();
    await expect.poll(() => plan.textContent()).not.toContain("this test's own");
    const cleared = await core.services.tests.get({
      storeId: running.storeId,
      testId: running.testId,
    });
    expect(cleared.decision?.plan?.source).not.toBe('test');
  });

  it('sets decision settings globally and per store in the Settings dialog', async () => {
    const store = (await core.services.stores.list({}))[1];
    if (!store) throw new Error('no second store');
    await page.keyboard.press('Control+,');
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.waitFor();
    const section = dialog.getByTestId('settings-decisions');
    await expect.poll(() => section.getByLabel('Minimum runtime').inputValue()).toBe('7');
    await section.getByLabel('Settings of').selectOption({ label: store.name });
    await expect.poll(() => section.getByLabel('Minimum runtime').inputValue()).toBe('');
    await section.getByLabel('Minimum runtime').fill('14');
    await screenshotsAtEverySize(page, SHOTS, 'settings', async () => {
      await section.scrollIntoViewIfNeeded();
    });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    const saved = await core.services.decisions.settings({});
    expect(saved.stores.find((s) => s.storeId === store.id)?.overrides.minRuntimeDays).toBe(14);
    expect(saved.global.minRuntimeDays).toBe(7);

    // Reopened, the store's field says it is its own, with a reset.
    await page.keyboard.press('Control+,');
    await dialog.waitFor();
    await section.getByLabel('Settings of').selectOption({ label: store.name });
    await expect.poll(() => section.getByLabel('Minimum runtime').inputValue()).toBe('14');
    await section.getByRole('button', { name: /Reset Minimum runtime/ }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    const reset = await core.services.decisions.settings({});
    expect(
      reset.stores.find((s) => s.storeId === store.id)?.overrides.minRuntimeDays,
    ).toBeUndefined();

    // The calls were made again with the default, and the view shows what the core now says.
    const now = await core.services.decisions.list({ storeId: null });
    expect(now.rows.filter((r) => r.reason.includes('(14 needed)'))).toEqual([]);
    await view('Decisions');
    await expect
      .poll(async () =>
        (await rows().evaluateAll((els) => els.map((e) => e.textContent ?? ''))).filter((t) =>
          t.includes('(14 needed)'),
        ),
      )
      .toEqual([]);
  });

  it("shows a store's rate readings in its details", async () => {
    const store = (await core.services.stores.list({}))[0];
    if (!store) throw new Error('no store');
    const readings = await core.services.decisions.readings({ storeId: store.id });
    await page.locator('.store .main', { hasText: store.name }).focus();
    await page.keyboard.press('Shift+F10');
    await page.getByRole('menuitem', { name: 'Details…' }).click();
    const dialog = page.getByRole('dialog', { name: `${store.name}: details` });
    const summary = dialog.getByTestId('store-readings-summary');
    await summary.waitFor();
    for (const r of readings.filter((x) => x.of > 0)) {
      expect(await summary.textContent()).toContain(`${r.rate}: `);
    }
    await screenshotsAtEverySize(page, SHOTS, 'store-details');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
  });

  it('ran without a script error', () => {
    expect(win?.pageErrors).toEqual([]);
  });
});
