// Background syncs (sync/background.ts) with time injected: a real core over a real SQLite folder syncs
// the simulator over loopback HTTP on its own — once the window has painted, on the schedule (global, or
// the store's own), never when off — backs off after failures (full jitter, doubling up to the schedule's
// interval) and resets after a success, stops after a refused key and starts again when the key changes,
// tries nothing while offline, and sends the edits that waited exactly once when the server is back.
// Minutes of schedule pass in milliseconds: the test moves the clock and fires the timers itself.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BackgroundStatus, StoreSummary } from '#shared/contract/index';
import { BACKOFF_BASE_MS, BACKOFF_FLOOR_MS, MAX_TIMER_MS } from '#core/sync/background';
import type { Core } from '#core/types';
import { createMemorySecretStore, type SecretStore } from '#core/secrets/index';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { ManualTime, watchSyncs } from '../support/manual-time';
import { startCore, tempDir } from '../support/core';

const STORE = 'Acme Outdoor';
const MINUTE = 60_000;
const OLD_KEY = `sk_test_${'a'.repeat(32)}`;
const NEW_KEY = `sk_test_${'b'.repeat(32)}`;

let dir: ReturnType<typeof tempDir>;
let time: ManualTime;
let sim: Simulator;
let served: ServedSimulator;
let secrets: SecretStore;
let core: Core;
let watch: ReturnType<typeof watchSyncs>;
/** The jitter the scheduler draws (0..1). */
let draw = 0.5;

function simulator(apiKey = OLD_KEY): Simulator {
  // Frozen simulated time: the store's figures never move unless the test moves them.
  const frozen = Date.parse('2026-03-02T06:00:00.000Z');
  return createSimulator({
    seed: 11,
    now: () => frozen,
    stores: [{ name: STORE, tests: 12, apiKey }],
  });
}

beforeEach(async () => {
  dir = tempDir('splitbook-background-');
  time = new ManualTime();
  draw = 0.5;
  sim = simulator();
  served = await serveSimulator(sim);
  secrets = createMemorySecretStore();
  core = await startCore(dir.path, {
    host: 'browser',
    secrets,
    clock: time.now,
    timers: time,
    random: () => draw,
    backgroundSync: true,
  });
  watch = watchSyncs(core);
});

afterEach(async () => {
  watch.stop();
  await core.close();
  await served.close();
  dir.remove();
});

const advance = (ms: number) => time.advance(ms, () => watch.idle());
const at = (ms: number) => new Date(ms).toISOString();

async function addStore(): Promise<string> {
  const store = await core.services.stores.add({
    name: STORE,
    baseUrl: served.url,
    apiKey: OLD_KEY,
    sessionOnly: false,
  });
  return store.id;
}

async function summary(storeId: string): Promise<StoreSummary> {
  const store = (await core.services.stores.list({})).find((s) => s.id === storeId);
  if (!store) throw new Error('store gone');
  return store;
}

async function background(storeId: string): Promise<BackgroundStatus> {
  const status = (await summary(storeId)).background;
  if (!status) throw new Error('no background status');
  return status;
}

/** Background runs that ended, with their outcome. */
const outcomes = () => watch.finished.map((report) => report.outcome);

describe('the schedule', () => {
  it('waits for the window to paint, then syncs every 30 minutes by default, or on the store’s own schedule, never when off', async () => {
    const storeId = await addStore();
    await advance(10 * MINUTE);
    expect(watch.finished).toEqual([]);

    await core.services.app.windowReady({});
    await advance(0);
    expect(watch.backgroundRuns()).toEqual([storeId]);
    expect(outcomes()).toEqual(['ok']);
    const first = time.now();
    expect(await background(storeId)).toEqual({
      schedule: '30m',
      own: null,
      nextAt: at(first + 30 * MINUTE),
      failures: 0,
      backoffUntil: null,
      stopped: null,
    });

    // A second paint (a reload) does not sync again.
    await core.services.app.windowReady({});
    await advance(30 * MINUTE - 1000);
    expect(watch.finished).toHaveLength(1);
    await advance(1000);
    expect(watch.finished).toHaveLength(2);
    expect(watch.started.every((s) => s.background)).toBe(true);

    // The store's own schedule wins over the global one, either way.
    await core.services.settings.set({ backgroundSync: '4h' });
    await core.services.stores.setBackgroundSync({ storeId, schedule: '15m' });
    expect(await background(storeId)).toMatchObject({
      schedule: '15m',
      own: '15m',
      nextAt: at(time.now() + 15 * MINUTE),
    });
    await advance(15 * MINUTE);
    expect(watch.finished).toHaveLength(3);

    // Back to the global setting; "only when I ask" then means no sync on its own at all.
    await core.services.stores.setBackgroundSync({ storeId, schedule: null });
    await core.services.settings.set({ backgroundSync: 'off' });
    expect(await background(storeId)).toMatchObject({ schedule: 'off', own: null, nextAt: null });
    await advance(6 * 60 * MINUTE);
    expect(watch.finished).toHaveLength(3);
    expect(time.nextAt()).toBeNull();

    // A sync the user asks for still runs, and moves the schedule: the next one is an interval after it.
    await core.services.settings.set({ backgroundSync: '1h' });
    await core.services.sync.start({ storeId });
    await watch.idle();
    expect(watch.started.at(-1)).toEqual({ storeIds: [storeId], background: false });
    expect((await background(storeId)).nextAt).toBe(at(time.now() + 60 * MINUTE));
    await advance(60 * MINUTE);
    expect(watch.finished).toHaveLength(5);
    expect(watch.started.at(-1)?.background).toBe(true);
  });

  it('looks at the wall clock at least once a minute, so a store due while the machine slept syncs soon after', async () => {
    const storeId = await addStore();
    await core.services.app.windowReady({});
    await advance(0);
    expect(time.nextAt()).toBe(time.now() + MAX_TIMER_MS);
    expect(await background(storeId)).toMatchObject({ failures: 0 });
  });
});

describe('back-off', () => {
  it('doubles the wait after each failure with full jitter up to the schedule’s interval, and resets after a success', async () => {
    const storeId = await addStore();
    await core.services.stores.setBackgroundSync({ storeId, schedule: '15m' });
    await core.services.app.windowReady({});
    await advance(0);
    expect(outcomes()).toEqual(['ok']);

    // The server goes away (the machine stays online): each try fails, and the next waits longer.
    await served.setOffline(true);
    await advance(15 * MINUTE);
    expect(outcomes().at(-1)).toBe('offline');
    // Half (the jitter drawn) of 1, 2, 4, 8 minutes, then of the 15-minute interval, which caps it.
    const ceilings = [1, 2, 4, 8, 15, 15].map((m) => Math.min(m * BACKOFF_BASE_MS, 15 * MINUTE));
    for (const [i, ceiling] of ceilings.entries()) {
      const wait = ceiling * draw;
      const status = await background(storeId);
      expect(status.failures).toBe(i + 1);
      expect(status.backoffUntil).toBe(at(time.now() + wait));
      expect(status.nextAt).toBe(status.backoffUntil);
      const before = watch.finished.length;
      await advance(wait - 1000);
      expect(watch.finished).toHaveLength(before);
      await advance(1000);
      expect(watch.finished).toHaveLength(before + 1);
      expect(outcomes().at(-1)).toBe('offline');
    }

    // Full jitter can draw nearly nothing: never sooner than the floor.
    draw = 0;
    await served.setOffline(false);
    await served.setOffline(true);
    const status = await background(storeId);
    await advance(Date.parse(status.backoffUntil ?? '') - time.now());
    expect((await background(storeId)).backoffUntil).toBe(at(time.now() + BACKOFF_FLOOR_MS));

    // Back: the next try succeeds, and the store is on its schedule again.
    await served.setOffline(false);
    await advance(BACKOFF_FLOOR_MS);
    expect(outcomes().at(-1)).toBe('ok');
    expect(await background(storeId)).toMatchObject({
      failures: 0,
      backoffUntil: null,
      nextAt: at(time.now() + 15 * MINUTE),
    });
  }, 120_000);
});

describe('a refused key', () => {
  it('stops the store’s background syncs, with its banner, until the key changes; then they start again', async () => {
    const storeId = await addStore();
    await core.services.app.windowReady({});
    await advance(0);
    expect(outcomes()).toEqual(['ok']);

    // The store revokes the key: the same store, served on the same address, knows only a new one.
    const port = served.port;
    await served.close();
    sim = simulator(NEW_KEY);
    served = await serveSimulator(sim, { port });
    await advance(30 * MINUTE);
    expect(outcomes()).toEqual(['ok', 'error']);
    const refused = await summary(storeId);
    expect(refused.sync.lastProblem?.title).toBe('The API key was refused');
    expect(refused.background).toMatchObject({
      nextAt: null,
      stopped: { reason: 'The API key was refused', at: at(time.now()) },
    });

    // Hours pass, the connection even comes and goes: the store is not asked again.
    const asked = sim.stats().requests;
    await advance(3 * 60 * MINUTE);
    await core.services.sync.connectivity({ online: false });
    await core.services.sync.connectivity({ online: true });
    core.background.wake();
    await advance(60 * MINUTE);
    expect(sim.stats().requests).toBe(asked);
    expect(watch.finished).toHaveLength(2);

    // The user sets the new key: background syncs start again, at once.
    await core.services.stores.setKey({ storeId, apiKey: NEW_KEY, sessionOnly: false });
    await advance(0);
    expect(outcomes()).toEqual(['ok', 'error', 'ok']);
    expect(watch.started.at(-1)?.background).toBe(true);
    expect(await background(storeId)).toMatchObject({
      stopped: null,
      failures: 0,
      nextAt: at(time.now() + 30 * MINUTE),
    });
  });

  it('keeps the stop across a restart, and the CLI’s stores would show it (the state is in the user’s file)', async () => {
    const storeId = await addStore();
    await core.services.app.windowReady({});
    await advance(0);
    const port = served.port;
    await served.close();
    sim = simulator(NEW_KEY);
    served = await serveSimulator(sim, { port });
    await advance(30 * MINUTE);
    await core.close();

    // A core that does not sync by itself (the CLI's) reads the same state.
    core = await startCore(dir.path, { host: 'cli', secrets, clock: time.now, timers: time });
    watch = watchSyncs(core);
    expect((await background(storeId)).stopped?.reason).toBe('The API key was refused');
    await core.services.app.windowReady({});
    await advance(60 * MINUTE);
    expect(watch.finished).toEqual([]);
  });
});

describe('the connection', () => {
  it('offline, tries nothing; back online, syncs every store at once', async () => {
    const storeId = await addStore();
    await core.services.app.windowReady({});
    await advance(0);
    await core.services.sync.connectivity({ online: false });
    const asked = sim.stats().requests;
    await advance(3 * 60 * MINUTE);
    expect(sim.stats().requests).toBe(asked);
    expect(time.nextAt()).toBeNull();

    await core.services.sync.connectivity({ online: true });
    await advance(0);
    expect(watch.backgroundRuns()).toEqual([storeId, storeId]);
    expect(outcomes()).toEqual(['ok', 'ok']);
  });

  it('after a wake, syncs every store once, whatever its schedule says', async () => {
    const storeId = await addStore();
    await core.services.app.windowReady({});
    await advance(5 * MINUTE);
    expect(watch.finished).toHaveLength(1);
    core.background.wake();
    await advance(0);
    expect(watch.backgroundRuns()).toEqual([storeId, storeId]);
  });

  it('sends the edits that waited while the server was away exactly once when it is back, without a click', async () => {
    const storeId = await addStore();
    await core.services.app.windowReady({});
    await advance(0);
    const test = sim.snapshot(STORE).tests.find((t) => t.status === 'active');
    if (!test) throw new Error('an active test is needed');

    await served.setOffline(true);
    await core.services.edits.editTest({
      storeId,
      testId: test.id,
      changes: { title: 'Edited on a plane' },
    });
    // The push right after the edit could not reach the store: the edit waits.
    await waitFor(async () =>
      (await core.services.edits.list({ storeId })).some(
        (edit) => edit.state === 'queued' && edit.problem !== null,
      ),
    );
    expect(await pendingEdits(storeId)).toBe(1);
    await advance(30 * MINUTE);
    expect(outcomes().at(-1)).toBe('offline');
    expect(sim.snapshot(STORE).tests.find((t) => t.id === test.id)?.title).toBe(test.title);

    await served.setOffline(false);
    const backoff = await background(storeId);
    await advance(Date.parse(backoff.backoffUntil ?? '') - time.now());
    expect(outcomes().at(-1)).toBe('ok');
    expect(watch.finished.at(-1)?.edits).toMatchObject({ sent: 1, failed: 0, conflicts: 0 });
    expect(sim.snapshot(STORE).tests.find((t) => t.id === test.id)?.title).toBe(
      'Edited on a plane',
    );

    // Later syncs have nothing left to send: the edit went out once.
    await advance(2 * 30 * MINUTE);
    const patches = sim.stats().byRoute['PATCH /tests/{id}'] ?? {};
    expect(Object.values(patches).reduce((sum, n) => sum + n, 0)).toBe(1);
    expect(await pendingEdits(storeId)).toBe(0);
  }, 60_000);
});

describe('only when I ask', () => {
  it('syncs nothing by itself, but still sends the edits that waited when the connection returns', async () => {
    const storeId = await addStore();
    await core.services.settings.set({ backgroundSync: 'off' });
    await core.services.app.windowReady({});
    await advance(0);
    expect(watch.finished).toEqual([]);
    // The store was never synced: the edit is made on a test the store has (read from the simulator).
    const test = sim.snapshot(STORE).tests[0];
    if (!test) throw new Error('a test is needed');
    await core.services.sync.start({ storeId });
    await watch.idle();

    await served.setOffline(true);
    await core.services.sync.connectivity({ online: false });
    await core.services.edits.editTest({
      storeId,
      testId: test.id,
      changes: { title: 'Sent on landing' },
    });
    await waitFor(async () =>
      (await core.services.edits.list({ storeId })).some((edit) => edit.problem !== null),
    );
    await served.setOffline(false);
    await core.services.sync.connectivity({ online: true });
    await advance(0);
    await waitFor(async () => (await pendingEdits(storeId)) === 0);
    expect(sim.snapshot(STORE).tests.find((t) => t.id === test.id)?.title).toBe('Sent on landing');
    // A push, not a sync: the only run is the one the user asked for.
    expect(watch.finished).toHaveLength(1);
    expect(watch.backgroundRuns()).toEqual([]);
  });
});

async function pendingEdits(storeId: string): Promise<number> {
  const counts = await core.services.edits.counts({ storeId });
  return counts.find((c) => c.storeId === storeId)?.pending ?? 0;
}

async function waitFor(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
