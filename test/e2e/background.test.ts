// Background syncs in the window, end to end in Chromium through the browser host, over a real core that
// syncs the simulator over loopback HTTP (through a proxy that serves chosen figures for two tests). Time
// is the test's: the core's clock and timers move only when the test moves them. Two windows are open,
// one whose page may show the browser's notifications and one whose page may not: a background sync that
// turns a test's call into "ship" shows one notification in the first and one toast in the second, and
// opening either lands on the Decisions view with the test selected; a call the user's own edit moved is
// never announced; the Decisions badge counts what changed until the view is looked at.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Test } from '#shared/api/index';
import type { Core } from '#core/types';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { SHAPES, shapedResults } from '../decisions/support';
import { serveRenderer, type RendererServer } from '../support/e2e';
import { startCore, syncStore, tempDir } from '../support/core';
import { ManualTime, watchSyncs } from '../support/manual-time';
import { startResultsProxy, type ResultsProxy } from '../support/results-proxy';

const STORE = 'Acme Outdoor';
const START = '2026-02-08';
const MINUTE = 60_000;
const SHOTS = resolve('test-results/background');

const data = tempDir('splitbook-e2e-background-');
let sim: Simulator;
let served: ServedSimulator;
let proxy: ResultsProxy;
let core: Core;
let time: ManualTime;
let watch: ReturnType<typeof watchSyncs>;
let server: RendererServer;
let granted: Page;
let denied: Page;
let storeId: string;
let tests: Test[];

type Recorded = { title: string; body: string };
/** Script errors of either page; the run must end with none. */
const pageErrors: string[] = [];

/** A page of the window; the browser's notifications are recorded as the page creates them. */
async function openPage(permission: 'granted' | 'denied'): Promise<Page> {
  const context = await server.browser.newContext({
    viewport: { width: 1440, height: 900 },
    permissions: permission === 'granted' ? ['notifications'] : [],
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  // The page's Notification, recording what the app shows (a script: the test's own code has no DOM).
  await page.addInitScript(`(() => {
    const Real = window.Notification;
    const shown = [];
    const made = [];
    class Recording extends Real {
      constructor(title, options) {
        super(title, options);
        shown.push({ title, body: (options && options.body) || '' });
        made.push(this);
      }
    }
    // A page the user did not allow: the browser says so.
    Object.defineProperty(Recording, 'permission', {
      get: () => (${JSON.stringify(permission)} === 'granted' ? Real.permission : 'denied'),
    });
    Object.assign(window, { Notification: Recording, recordedNotices: shown, madeNotices: made });
  })()`);
  await page.goto(server.host.url);
  return page;
}

const recorded = async (page: Page) =>
  (await page.evaluate('window.recordedNotices')) as Recorded[];
const toasts = (page: Page) => page.getByTestId('ready-toast');
const advance = (ms: number) => time.advance(ms, () => watch.idle());

function figures(test: Test, days: 5 | 12): void {
  proxy.setResults(test.id, shapedResults(test.id, { start: START, days, ...SHAPES.ship }));
}

async function onDecisions(page: Page, test: Test): Promise<void> {
  await page.getByRole('heading', { level: 1, name: /Decisions/ }).waitFor();
  const row = page.locator(`[data-testid="decision-row"][data-test-id="${test.id}"]`);
  await expect.poll(() => row.getAttribute('aria-current')).toBe('true');
  await expect.poll(() => row.getAttribute('data-call')).toBe('ship');
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  sim = createSimulator({
    seed: 5,
    now: () => Date.parse('2026-03-02T06:00:00.000Z'),
    stores: [{ name: STORE, tests: 8 }],
  });
  tests = ['Free shipping bar', 'Trust badges'].map((title) => {
    const draft = sim.addTest(STORE, {
      title,
      status: 'active',
      goal: 'conversion-rate',
      startAt: `${START}T00:00:00.000Z`,
      automaticallyEndAt: null,
    });
    const variant = draft.variant ?? { ...draft.control, id: crypto.randomUUID(), type: 'price' };
    return sim.touchTest(STORE, draft.id, {
      control: { ...draft.control, traffic: 50 },
      variant: { ...variant, traffic: 50 },
    });
  });
  served = await serveSimulator(sim);
  proxy = await startResultsProxy(served.url);
  for (const test of tests) figures(test, 5);
  time = new ManualTime(Date.now());
  core = await startCore(data.path, {
    host: 'browser',
    clock: time.now,
    timers: time,
    random: () => 0.5,
    backgroundSync: true,
  });
  watch = watchSyncs(core);
  storeId = (
    await core.services.stores.add({
      name: STORE,
      baseUrl: proxy.url,
      apiKey: sim.stores[0]?.apiKey ?? '',
      sessionOnly: true,
    })
  ).id;
  await core.services.settings.set({ resultsFreshness: '15m' });
  if ((await syncStore(core, storeId)).outcome !== 'ok') throw new Error('the first sync failed');

  server = await serveRenderer(core);
  granted = await openPage('granted');
  denied = await openPage('denied');
  // Background syncs wait for a window to paint its rows; then the start's sync runs.
  for (const until = Date.now() + 20_000; time.nextAt() === null;) {
    if (Date.now() > until) throw new Error('the window never said it had painted');
    await new Promise((done) => setTimeout(done, 20));
  }
  await advance(0);
}, 120_000);

afterAll(async () => {
  await server?.close();
  watch?.stop();
  await core?.close();
  await proxy?.close();
  await served?.close();
  data.remove();
});

describe('ready for a call, in the window', { timeout: 60_000 }, () => {
  it('starts syncing only once the window has painted, and the start’s sync changed no call', async () => {
    expect(watch.backgroundRuns()).toEqual([storeId]);
    expect(await recorded(granted)).toEqual([]);
    expect(await toasts(denied).count()).toBe(0);
    expect(await granted.getByTestId('decisions-badge').count()).toBe(0);
  });

  it('a background sync that turns a call into ship: one notification, one toast, and both open the test on the Decisions view', async () => {
    const [first] = tests;
    if (!first) throw new Error('no test');
    await granted.getByRole('button', { name: /^Tests/ }).click();
    figures(first, 12);
    await advance(30 * MINUTE);

    await expect
      .poll(() => recorded(granted))
      .toEqual([
        {
          title: `${STORE}: 1 test ready for a call`,
          body: 'Free shipping bar — Ship the variant',
        },
      ]);
    await expect.poll(() => toasts(denied).count()).toBe(1);
    const toast = toasts(denied).first();
    expect(await toast.textContent()).toContain(`${STORE}: 1 test ready for a call`);
    expect(await toast.textContent()).toContain('Free shipping bar — Ship the variant');
    // The window with neither shows nothing of the other kind, and the badge counts the change.
    expect(await toasts(granted).count()).toBe(0);
    await expect.poll(() => denied.getByTestId('decisions-badge').textContent()).toBe('1 new');
    await denied.screenshot({ path: resolve(SHOTS, 'toast.png') });

    // Clicking the system's notification brings the window to the test on the Decisions view.
    await granted.evaluate(`window.madeNotices[0].dispatchEvent(new Event('click'))`);
    await onDecisions(granted, first);

    // Looking at the view clears the badge (in every window).
    await expect.poll(() => denied.getByTestId('decisions-badge').count()).toBe(0);

    // Open on the toast does the same, and the toast goes.
    await toast.getByRole('button', { name: 'Open' }).click();
    await onDecisions(denied, first);
    expect(await toasts(denied).count()).toBe(0);
  });

  it('never announces a call the user’s own edit moved', async () => {
    const [, second] = tests;
    if (!second) throw new Error('no test');
    // The user edits the test from the window (sent at once), and its call moves at the next sync.
    await core.services.edits.editTest({
      storeId,
      testId: second.id,
      changes: { title: 'Trust badges, round 2' },
    });
    await core.services.edits.push({ storeId });
    figures(second, 12);
    await advance(30 * MINUTE);
    expect(
      (await core.services.decisions.list({ storeId })).rows.find((r) => r.testId === second.id)
        ?.call,
    ).toBe('ship');
    // A later event, which the host sends after anything that sync said, has reached both pages: still
    // the one notice each.
    await core.services.stores.rename({ storeId, name: 'Acme (renamed)' });
    for (const page of [granted, denied])
      await page
        .getByRole('navigation', { name: 'Stores and views' })
        .getByText('Acme (renamed)')
        .waitFor();
    expect(await recorded(granted)).toHaveLength(1);
    expect(await toasts(denied).count()).toBe(0);
    expect(await granted.getByTestId('decisions-badge').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
