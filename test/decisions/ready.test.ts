// "Ready for a call": when a background sync changes a test's call to one that needs the consultant, the
// core says so once (decisions.ready, grouped per sync); every sync's changes count in the Decisions
// view's badge (decisions.news) until the user looks (decisions.seen); the user's own doing — an edit of
// the test, other decision settings — never counts, and the notifications setting turns the notice off.
// A real core over SQLite syncs the simulator over loopback HTTP through a proxy that serves chosen
// figures for a few tests; time is injected.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { CoreEvent, DecisionsReady, EventPayload } from '#shared/contract/index';
import type { Test } from '#shared/api/index';
import type { Core } from '#core/types';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { ManualTime, watchSyncs } from '../support/manual-time';
import { startResultsProxy, type ResultsProxy } from '../support/results-proxy';
import { startCore, syncStore, tempDir } from '../support/core';
import { SHAPES, nextEvent, shapedResults } from './support';

const STORE = 'Acme Outdoor';
const MINUTE = 60_000;
const START = '2026-02-08';

let dir: ReturnType<typeof tempDir>;
let time: ManualTime;
let sim: Simulator;
let served: ServedSimulator;
let proxy: ResultsProxy;
let core: Core;
let watch: ReturnType<typeof watchSyncs>;
let events: CoreEvent[];
let storeId: string;
/** Tests added to the store, whose figures the test chooses: five days (keep running) or twelve (ship). */
let tests: Test[];

const ready = () =>
  events.filter(
    (e): e is { name: 'decisions.ready'; payload: DecisionsReady } => e.name === 'decisions.ready',
  );
const advance = (ms: number) => time.advance(ms, () => watch.idle());

function figures(test: Test, days: 5 | 12): void {
  proxy.setResults(test.id, shapedResults(test.id, { start: START, days, ...SHAPES.ship }));
}

async function callOf(test: Test): Promise<string | undefined> {
  const list = await core.services.decisions.list({ storeId });
  return list.rows.find((row) => row.testId === test.id)?.call;
}

beforeEach(async () => {
  dir = tempDir('splitbook-ready-');
  time = new ManualTime();
  sim = createSimulator({
    seed: 5,
    now: () => Date.parse('2026-03-02T06:00:00.000Z'),
    stores: [{ name: STORE, tests: 10 }],
  });
  tests = ['Free shipping bar', 'Trust badges'].map((title) => {
    const draft = sim.addTest(STORE, {
      title,
      status: 'active',
      goal: 'conversion-rate',
      startAt: `${START}T00:00:00.000Z`,
      automaticallyEndAt: null,
    });
    // A test needs a variant to have a call, split as its figures are (half each).
    const variant = draft.variant ?? { ...draft.control, id: crypto.randomUUID(), type: 'price' };
    return sim.touchTest(STORE, draft.id, {
      control: { ...draft.control, traffic: 50 },
      variant: { ...variant, traffic: 50 },
    });
  });
  served = await serveSimulator(sim);
  proxy = await startResultsProxy(served.url);
  for (const test of tests) figures(test, 5);
  core = await startCore(dir.path, {
    host: 'browser',
    clock: time.now,
    timers: time,
    random: () => 0.5,
    backgroundSync: true,
  });
  events = [];
  core.subscribe((event) => events.push(event));
  watch = watchSyncs(core);
  const key = sim.stores[0]?.apiKey ?? '';
  storeId = (
    await core.services.stores.add({
      name: STORE,
      baseUrl: proxy.url,
      apiKey: key,
      sessionOnly: false,
    })
  ).id;
  // Results of active tests are fetched again by a sync once 15 minutes old.
  await core.services.settings.set({ resultsFreshness: '15m' });
  expect((await syncStore(core, storeId)).outcome).toBe('ok');
  for (const test of tests) expect(await callOf(test)).toBe('keep_running');
});

afterEach(async () => {
  watch.stop();
  await core.close();
  await proxy.close();
  await served.close();
  dir.remove();
});

it('says once, per sync, which tests a background sync made ready for a call; the badge counts them until seen', async () => {
  const [first, second] = tests;
  if (!first || !second) throw new Error('tests missing');
  await core.services.app.windowReady({});
  await advance(0);
  expect(watch.backgroundRuns()).toEqual([storeId]);
  expect(ready()).toEqual([]);

  figures(first, 12);
  figures(second, 12);
  await advance(30 * MINUTE);
  expect(await callOf(first)).toBe('ship');
  expect(ready()).toHaveLength(1);
  const notice = ready()[0]?.payload;
  expect(notice).toMatchObject({ storeId, storeName: STORE, count: 2 });
  expect(notice?.tests.map((t) => [t.title, t.call, t.words]).sort()).toEqual([
    ['Free shipping bar', 'ship', 'Ship the variant'],
    ['Trust badges', 'ship', 'Ship the variant'],
  ]);
  expect(await core.services.decisions.news({ storeId: null })).toEqual({
    count: 2,
    byStore: { [storeId]: 2 },
  });
  const news = events.filter((e) => e.name === 'decisions.news');
  expect(news.at(-1)?.payload).toEqual({ count: 2, byStore: { [storeId]: 2 } });

  // The next sync finds the same calls: nothing is said again.
  await advance(30 * MINUTE);
  expect(watch.backgroundRuns()).toHaveLength(3);
  expect(ready()).toHaveLength(1);

  // Looking at the view clears the badge, and says so.
  const cleared = nextEvent(core, 'decisions.news');
  expect(await core.services.decisions.seen({ storeId: null })).toEqual({ count: 0, byStore: {} });
  expect(await cleared).toEqual({ count: 0, byStore: {} });
});

it('counts a sync the user asked for in the badge, but tells nothing: the user is looking', async () => {
  const [first] = tests;
  if (!first) throw new Error('tests missing');
  figures(first, 12);
  await time.advance(20 * MINUTE);
  expect((await syncStore(core, storeId)).outcome).toBe('ok');
  await watch.idle();
  expect(await callOf(first)).toBe('ship');
  expect(ready()).toEqual([]);
  expect((await core.services.decisions.news({ storeId })).count).toBe(1);

  // A call that goes back to keeping running is no longer news.
  figures(first, 5);
  await time.advance(20 * MINUTE);
  await syncStore(core, storeId);
  expect((await core.services.decisions.news({ storeId })).count).toBe(0);
});

it('never tells of a call the user caused: an edit of the test, or other decision settings', async () => {
  const [first, second] = tests;
  if (!first || !second) throw new Error('tests missing');
  await core.services.app.windowReady({});
  await advance(0);

  // The user edits the test (sent at once); whatever its call does in the next sync is the user's doing.
  await core.services.edits.editTest({
    storeId,
    testId: first.id,
    changes: { title: 'Free shipping bar v2' },
  });
  await core.services.edits.push({ storeId });
  figures(first, 12);
  await advance(30 * MINUTE);
  expect(await callOf(first)).toBe('ship');
  expect(ready()).toEqual([]);
  expect((await core.services.decisions.news({ storeId })).count).toBe(0);

  // Other settings make calls again (decisions.changed), never news, even with a sync right after. A
  // change applies whole only to a test with no data before it (one with data keeps its past looks): the
  // second test starts today, five days of figures from today on.
  const today = new Date(time.now()).toISOString().slice(0, 10);
  sim.touchTest(STORE, second.id, { startAt: `${today}T00:00:00.000Z` });
  proxy.setResults(second.id, shapedResults(second.id, { start: today, days: 5, ...SHAPES.ship }));
  await advance(30 * MINUTE);
  expect(await callOf(second)).toBe('keep_running');
  expect(ready()).toEqual([]);
  const changed = nextEvent(core, 'decisions.changed');
  await core.services.decisions.setSettings({
    storeId: null,
    patch: { minRuntimeDays: 3, plannedDays: 7 },
    clear: [],
  });
  await changed;
  expect(await callOf(second)).toBe('ship');
  await advance(30 * MINUTE);
  expect(ready()).toEqual([]);
  expect((await core.services.decisions.news({ storeId })).count).toBe(0);
});

it('tells nothing with notifications off, and the badge still counts', async () => {
  const [first] = tests;
  if (!first) throw new Error('tests missing');
  await core.services.settings.set({ notifications: false });
  await core.services.app.windowReady({});
  await advance(0);
  figures(first, 12);
  await advance(30 * MINUTE);
  expect(await callOf(first)).toBe('ship');
  expect(ready()).toEqual([]);
  const payload: EventPayload<'decisions.news'> | undefined = events
    .filter((e) => e.name === 'decisions.news')
    .at(-1)?.payload as EventPayload<'decisions.news'> | undefined;
  expect(payload?.count).toBe(1);
});
