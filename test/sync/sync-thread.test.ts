// Syncs on their own thread (src/main/core/sync/thread/): a real worker thread with its own SQLite
// connection to the same files, the simulator over loopback HTTP, the keychain on the main thread.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CoreEvent } from '#shared/contract/index';
import { sourceSyncThread } from '#core/index';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import type { Core } from '#core/types';
import { decisionBasis } from '#core/decisions/basis';
import { prepareResults } from '#core/decisions/results';
import { threadDecoder } from '#core/sync/decode/decoder';
import { DEFAULT_DECISION_SETTINGS } from '#shared/domain/decisions/index';
import { allTestRows, startCore, syncStore, tempDir } from '../support/core';
import { dyingWorker } from '../support/dying-worker';

const STORE = 'Acme Outdoor';

let sim: Simulator;
let served: ServedSimulator;
let dir: ReturnType<typeof tempDir>;
let core: Core;
let events: CoreEvent[];

beforeEach(async () => {
  sim = createSimulator({ seed: 7, stores: [{ name: STORE, tests: 180 }] });
  served = await serveSimulator(sim, { port: 0 });
  dir = tempDir();
  core = await startCore(dir.path, { syncThread: sourceSyncThread() });
  events = [];
  core.subscribe((event) => events.push(event));
});

afterEach(async () => {
  await core.close();
  await served.close();
  dir.remove();
});

async function addStore() {
  const key = sim.stores.find((s) => s.name === STORE && !s.readOnly);
  if (!key) throw new Error('no simulator key');
  return core.services.stores.add({
    name: STORE,
    baseUrl: served.url,
    apiKey: key.apiKey,
    sessionOnly: false,
  });
}

describe('syncs on the sync thread', () => {
  it('fills the cache the main thread reads, with progress and one finished report', async () => {
    const store = await addStore();
    const report = await syncStore(core, store.id);
    expect(report.outcome).toBe('ok');
    expect(report.testsSeen).toBe(180);
    // The main thread's own connection sees what the thread wrote.
    expect(await allTestRows(core, store.id)).toHaveLength(180);
    const summary = (await core.services.stores.list({})).find((s) => s.id === store.id);
    expect(summary?.sync.lastOutcome).toBe('ok');
    expect(events.some((e) => e.name === 'sync.progress' && e.payload.phase === 'results')).toBe(
      true,
    );
    expect(events.filter((e) => e.name === 'sync.finished')).toHaveLength(1);
  });

  it('cancels a run in progress', async () => {
    const store = await addStore();
    const started = await core.services.sync.start({ storeId: store.id });
    expect(started.started).toBe(true);
    expect((await core.services.sync.start({ storeId: store.id })).started).toBe(false);
    expect(await core.services.sync.cancel({ storeId: store.id })).toEqual({ cancelled: true });
    const finished = await new Promise<CoreEvent>((resolve) => {
      const seen = events.find((e) => e.name === 'sync.finished');
      if (seen) resolve(seen);
      const off = core.subscribe((e) => {
        if (e.name !== 'sync.finished') return;
        off();
        resolve(e);
      });
    });
    expect(finished.name === 'sync.finished' && finished.payload.outcome).toBe('cancelled');
  });

  it('sends an edit made on the main thread through the thread', async () => {
    const store = await addStore();
    await syncStore(core, store.id);
    const [row] = await allTestRows(core, store.id);
    if (!row) throw new Error('no test');
    await core.services.edits.editTest({
      storeId: store.id,
      testId: row.id,
      changes: { title: 'Renamed on the plane' },
    });
    // The edit goes out at once (pushOnEdit); edits.push waits for whatever is still under way.
    await core.services.edits.push({ storeId: store.id });
    expect(await core.services.edits.list({ storeId: store.id })).toEqual([]);
    expect(sim.snapshot(STORE).tests.find((t) => t.id === row.id)?.title).toBe(
      'Renamed on the plane',
    );
  });

  it("asks the main thread for a store's key, and a missing key ends the run with the keychain's words", async () => {
    const key = sim.stores.find((s) => s.name === STORE && !s.readOnly);
    if (!key) throw new Error('no simulator key');
    const store = await core.services.stores.add({
      name: STORE,
      baseUrl: served.url,
      apiKey: key.apiKey,
      sessionOnly: true,
    });
    expect((await syncStore(core, store.id)).outcome).toBe('ok');
    // A session-only key is gone after a restart: the thread learns so from the main thread.
    await core.close();
    core = await startCore(dir.path, { syncThread: sourceSyncThread() });
    const report = await syncStore(core, store.id);
    expect(report.outcome).toBe('error');
    expect(report.problem?.title).toBe('No API key for this store');
  });

  it("reads the core's own clock when it has one (the tests' frozen or simulated time)", async () => {
    await core.close();
    let now = Date.parse('2026-03-02T09:00:00.000Z');
    core = await startCore(dir.path, { syncThread: sourceSyncThread(), clock: () => now });
    const store = await addStore();
    const first = await syncStore(core, store.id);
    expect(first).toMatchObject({
      outcome: 'ok',
      startedAt: '2026-03-02T09:00:00.000Z',
      finishedAt: '2026-03-02T09:00:00.000Z',
    });
    // Time moved by the test is what the next run reads.
    now += 3 * 86_400_000;
    expect((await syncStore(core, store.id)).finishedAt).toBe('2026-03-05T09:00:00.000Z');
    const summary = (await core.services.stores.list({})).find((s) => s.id === store.id);
    expect(summary?.sync.lastSyncedAt).toBe('2026-03-05T09:00:00.000Z');
  });

  it('runs from the built files the Electron app ships (out/main/sync-worker.js, results-decoder.js) under plain Node', async () => {
    await core.close();
    const built = join(process.cwd(), 'out', 'main', 'sync-worker.js');
    const decoder = join(process.cwd(), 'out', 'main', 'results-decoder.js');
    for (const file of [built, decoder])
      expect(existsSync(file), 'run `npx electron-vite build` first (npm test does)').toBe(true);
    core = await startCore(dir.path, { syncThread: { file: built, decoder: { file: decoder } } });
    const store = await addStore();
    const report = await syncStore(core, store.id);
    expect(report.outcome).toBe('ok');
    expect(await allTestRows(core, store.id)).toHaveLength(180);
    // The built decoder reads an answer on its own thread, not by falling back in place.
    const reader = threadDecoder({ file: decoder });
    const test = sim.snapshot(STORE).tests.find((t) => sim.results(STORE, t.id));
    const results = test && sim.results(STORE, test.id);
    if (!test || !results) throw new Error('no simulator test with results');
    const context = {
      test: null,
      basis: decisionBasis(DEFAULT_DECISION_SETTINGS),
      plan: null,
      at: '2026-03-05T09:00:00.000Z',
    };
    const read = await reader.decode(JSON.stringify(results), context);
    await reader.close();
    expect(read).toEqual({ kind: 'ok', value: prepareResults(results, context) });
    expect(reader.counts()).toEqual({ onThread: 1, inPlace: 0 });
  });

  it('removes a store whose sync is under way: the run ends cancelled first, nothing of the store is left', async () => {
    const store = await addStore();
    // A slow store, so the removal lands in the middle of the run.
    sim.setFaults({ latencyMs: 150 });
    await core.services.sync.start({ storeId: store.id });
    await new Promise<void>((resolve) => {
      const off = core.subscribe((e) => {
        if (e.name !== 'sync.progress' || e.payload.phase !== 'results') return;
        off();
        resolve();
      });
    });
    await core.services.stores.remove({ storeId: store.id });
    const finished = events.filter((e) => e.name === 'sync.finished');
    expect(finished).toHaveLength(1);
    expect(finished[0]?.name === 'sync.finished' && finished[0].payload.outcome).toBe('cancelled');
    expect(await core.services.stores.list({})).toEqual([]);
    expect(await allTestRows(core, null)).toEqual([]);
  });

  it('ends the runs of a thread that dies with a clear problem, and starts a new one next time', async () => {
    await core.close();
    // A stand-in for a crashing thread: it dies at the first message.
    const file = dyingWorker(dir.path, 'dying-thread');
    core = await startCore(dir.path, { syncThread: { file } });
    core.subscribe((event) => events.push(event));
    const store = await addStore();
    const first = await syncStore(core, store.id);
    expect(first.outcome).toBe('error');
    expect(first.problem?.title).toBe('The sync stopped unexpectedly');
    expect(first.problem?.detail).toContain('exit code 3');
    const second = await syncStore(core, store.id);
    expect(second.outcome).toBe('error');
  });

  it('answers sync.start and ends the run with a clear problem when the thread cannot even be created', async () => {
    await core.close();
    // Node refuses to create a worker with a flag it does not know (ERR_WORKER_INVALID_EXEC_ARGV),
    // synchronously, as it does when a thread cannot be had at all.
    core = await startCore(dir.path, {
      syncThread: { ...sourceSyncThread(), execArgv: ['--no-such-node-flag'] },
    });
    core.subscribe((event) => events.push(event));
    const store = await addStore();
    const report = await syncStore(core, store.id);
    expect(report.outcome).toBe('error');
    expect(report.problem?.title).toBe('The sync stopped unexpectedly');
    expect(report.problem?.detail).toContain('could not start');
    // Every store at once answers too, and a push leaves the edits queued instead of throwing.
    expect((await core.services.sync.startAll({})).started).toEqual([store.id]);
    expect(await core.services.edits.push({ storeId: store.id })).toBeDefined();
  });
});
