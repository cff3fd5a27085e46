// A settings change makes every call again in the background; once that takes over a second the
// refresh says how far it is (decisions.progress), throttled, and ends with every call counted. Real
// SQLite files; the refresh's time source is a test clock, so "a second" is the test's to say.
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createSimulator } from '#simulator/index';
import { openDatabase } from '#core/db/open';
import { readGlobalDecisionSettings } from '#core/decisions/basis';
import { staleCount } from '#core/decisions/stale';
import { writeGlobalDecisionSettings } from '#core/db/user/decisions';
import type { Db } from '#core/db/types';
import {
  createDecisionRefresh,
  PROGRESS_AFTER_MS,
  PROGRESS_EVERY_MS,
  REFRESH_BATCH_ROWS,
} from '#core/decisions/refresh';
import type { CoreEvent } from '#shared/contract/index';
import { tempDir } from '../support/core';
import { cacheSimulatedStores } from '../support/simulated-cache';

const dir = tempDir('splitbook-refresh-progress-');
afterAll(() => dir.remove());

/** Two stores of simulated tests with their results, every call made under the default settings. */
function cacheWithCalls(name: string): { db: Db; storeIds: string[]; at: string } {
  const sim = createSimulator({
    seed: 31,
    stores: [{ name: 'A' }, { name: 'B' }],
    // More stale calls a store than a refresh's batch: the walk writes several batches.
    testsPerStore: 150,
  });
  const db = openDatabase(join(dir.path, `${name}.db`), {
    userDataFile: join(dir.path, `${name}-user.db`),
  });
  const at = new Date(sim.now()).toISOString();
  const { storeIds } = cacheSimulatedStores(db, sim, at);
  return { db, storeIds, at };
}

/** A refresh over `db` whose clock moves `stepMs` each time it is read; the events it emits. */
function refreshWithClock(db: Db, at: string, stepMs: number) {
  const events: CoreEvent[] = [];
  let time = 0;
  const refresh = createDecisionRefresh({
    db,
    clock: () => Date.parse(at),
    emit: (event) => events.push(event),
    now: () => (time += stepMs),
  });
  return { refresh, events, time: () => time };
}

describe('the refresh after a settings change', () => {
  it('says how far it is once it has run a second, at most every quarter second, and ends at the total', async () => {
    const { db, storeIds, at } = cacheWithCalls('slow');
    const first = refreshWithClock(db, at, 0);
    await first.refresh.request(null, false);
    expect(storeIds.reduce((n, id) => n + staleCount(db, id), 0)).toBe(0);

    const settings = readGlobalDecisionSettings(db);
    writeGlobalDecisionSettings(db, { ...settings, credibility: 0.9 }, at);
    const stale = storeIds.reduce((n, id) => n + staleCount(db, id), 0);
    expect(stale).toBeGreaterThan(4 * REFRESH_BATCH_ROWS);

    // Every reading of the clock is 300 ms on (one a batch written): the walk takes seconds.
    const { refresh, events, time } = refreshWithClock(db, at, 300);
    await refresh.request(null, true);
    const progress = events.flatMap((e) => (e.name === 'decisions.progress' ? [e.payload] : []));
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.every((p) => p.storeId === null && p.total === stale)).toBe(true);
    const done = progress.map((p) => p.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(done[0]).toBeGreaterThan(0);
    expect(progress.at(-1)).toEqual({ storeId: null, done: stale, total: stale });
    // Told only after the refresh's first second, then no more often than every 250 ms of its clock.
    expect(done[0]).toBeLessThan(stale);
    expect(progress.length).toBeLessThanOrEqual(
      Math.floor((time() - PROGRESS_AFTER_MS) / PROGRESS_EVERY_MS) + 2,
    );
    // The views reload after the last progress, with every call made under the new settings.
    const names = events.map((e) => e.name);
    expect(names.lastIndexOf('decisions.progress')).toBeLessThan(
      names.indexOf('decisions.changed'),
    );
    expect(storeIds.reduce((n, id) => n + staleCount(db, id), 0)).toBe(0);
    db.close();
  });

  it('lets its waiters go and logs the failure when telling of the calls fails, and goes on with the next', async () => {
    const { db, at, storeIds } = cacheWithCalls('failing');
    const settings = readGlobalDecisionSettings(db);
    writeGlobalDecisionSettings(db, { ...settings, credibility: 0.9 }, at);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const told: CoreEvent[] = [];
    const refresh = createDecisionRefresh({
      db,
      clock: () => Date.parse(at),
      emit: (event) => {
        if (event.name === 'decisions.changed' && event.payload.storeId === null)
          throw new Error('a listener failed');
        told.push(event);
      },
    });
    try {
      // Both end: the first's failure is logged, not an unhandled rejection, and the second still runs.
      await Promise.all([refresh.request(null, true), refresh.request(storeIds[0] ?? '', true)]);
      await refresh.idle();
      expect(logged).toHaveBeenCalledWith(
        '[splitbook] the decisions refresh failed:',
        expect.objectContaining({ message: 'a listener failed' }),
      );
      expect(told).toEqual([{ name: 'decisions.changed', payload: { storeId: storeIds[0] } }]);
      expect(storeIds.reduce((n, id) => n + staleCount(db, id), 0)).toBe(0);
    } finally {
      logged.mockRestore();
      db.close();
    }
  });

  it('says nothing of a refresh that ends within its first second', async () => {
    const { db, at } = cacheWithCalls('quick');
    const settings = readGlobalDecisionSettings(db);
    writeGlobalDecisionSettings(db, { ...settings, credibility: 0.9 }, at);
    const { refresh, events } = refreshWithClock(db, at, 0);
    await refresh.request(null, true);
    expect(events.map((e) => e.name)).toEqual(['decisions.changed']);
    db.close();
  });
});
