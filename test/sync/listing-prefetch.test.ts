// The listing asks for pages ahead of the one it writes, yet commits them in order with their resume point, and a failed run resumes where it stopped.
import { describe, expect, it } from 'vitest';
import { createApiClient } from '#core/api/index';
import { getSyncState } from '#core/db/cache/sync-state';
import { pullTests } from '#core/sync/pull/tests';
import type { PhaseContext } from '#core/sync/pull/context';
import type { Db } from '#core/db/types';
import { addStore, openTempDb } from '../db/fixtures';
import { testRecord } from '../api/support/fixtures';
import {
  sendJson,
  sendProblem,
  scriptedServers,
  type ScriptedServer,
} from '../api/support/scripted-server';

const PER_PAGE = 2;
const PAGES = 6;
/** The store's listing: page n holds records 2n-2 and 2n-1. */
const RECORDS = Array.from({ length: PAGES * PER_PAGE }, (_, i) =>
  testRecord({ title: `Listed ${i}` }),
);
const idsOf = (records: Record<string, unknown>[]) => records.map((r) => String(r.id));

const startServer = scriptedServers();

/**
 * A server that answers page 2 last (so later pages arrive before it) and can refuse a page.
 * Pages are answered after `delay(page)` ms.
 */
async function listingServer(refuse: (page: number) => boolean): Promise<ScriptedServer> {
  return startServer((req, res) => {
    const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
    const answer = () => {
      if (refuse(page)) {
        sendProblem(res, 400, 'Bad request', 'Refused for the test.');
        return;
      }
      const data = RECORDS.slice((page - 1) * PER_PAGE, page * PER_PAGE);
      sendJson(res, 200, {
        data,
        pagination: { page, perPage: PER_PAGE, totalPages: PAGES, totalCount: RECORDS.length },
      });
    };
    setTimeout(answer, page === 2 ? 150 : 10);
  });
}

function context(
  db: Db,
  url: string,
  resumePoints: (number | null)[],
  apiKey = 'sk_test_prefetch_0000000000',
): PhaseContext {
  return {
    db,
    storeId: 's1',
    client: createApiClient({ baseUrl: url, apiKey, maxAttempts: 1 }),
    signal: new AbortController().signal,
    // Called right after each page's transaction: the resume point it committed.
    progress: {
      report: () => resumePoints.push(getSyncState(db, 's1')?.nextPage ?? null),
      current: () => null,
    },
    counters: {
      requests: 0,
      testsSeen: 0,
      testsRemoved: 0,
      resultsFetched: 0,
      setAside: 0,
      setAsideNotListed: 0,
    },
    now: () => new Date().toISOString(),
  };
}

/** Cached test ids in the order they were first written (seq is the insert order). */
const cachedInOrder = (db: Db) =>
  (
    db.prepare(`SELECT id FROM tests WHERE store_id = 's1' ORDER BY seq`).all() as { id: string }[]
  ).map((row) => row.id);

/** The pages asked for, in order; with a key, only those asked with it (one run's). */
const pagesAsked = (s: ScriptedServer, apiKey?: string) =>
  s.received
    .filter((r) => apiKey === undefined || r.authorization === `Bearer ${apiKey}`)
    .map((r) => Number(new URL(r.url, 'http://x').searchParams.get('page')));

describe('listing with pages asked ahead', () => {
  it('writes pages in listing order, each with its resume point, though later pages arrive first', async () => {
    const server = await listingServer(() => false);
    const db = openTempDb();
    addStore(db, 's1');
    const resumePoints: (number | null)[] = [];
    await pullTests(context(db, server.url, resumePoints), PER_PAGE, 3);

    expect(cachedInOrder(db)).toEqual(idsOf(RECORDS));
    expect(resumePoints).toEqual([2, 3, 4, 5, 6, 7]);
    expect(getSyncState(db, 's1')?.phase).toBe('results');
    // Pages 3 and 4 were asked for before page 2 came back: the walk did not wait page by page.
    expect(pagesAsked(server).slice(0, 4).sort()).toEqual([1, 2, 3, 4]);
    expect(pagesAsked(server)).toHaveLength(PAGES);
  });

  it('keeps nothing past a failed page, and the next run resumes at it', async () => {
    let refusing = true;
    const server = await listingServer((page) => refusing && page === 4);
    const db = openTempDb();
    addStore(db, 's1');
    const first: (number | null)[] = [];
    await expect(pullTests(context(db, server.url, first), PER_PAGE, 3)).rejects.toMatchObject({
      status: 400,
    });
    // Pages 5 and 6 may have arrived already; none of them was written, and the resume point is page 4.
    expect(cachedInOrder(db)).toEqual(idsOf(RECORDS.slice(0, 3 * PER_PAGE)));
    expect(getSyncState(db, 's1')).toMatchObject({ phase: 'tests', nextPage: 4 });
    expect(first).toEqual([2, 3, 4]);

    refusing = false;
    // The second run asks with a key of its own: a page the first run asked for ahead, cancelled as
    // it failed, can still reach the server after it.
    const secondKey = 'sk_test_prefetch_second_00';
    const second: (number | null)[] = [];
    await pullTests(context(db, server.url, second, secondKey), PER_PAGE, 3);
    expect(pagesAsked(server, secondKey).sort()).toEqual([4, 5, 6]);
    expect(second).toEqual([5, 6, 7]);
    expect(cachedInOrder(db)).toEqual(idsOf(RECORDS));
    expect(getSyncState(db, 's1')?.phase).toBe('results');
    // A resumed complete listing still proves nothing is missing: nothing is marked removed.
    expect(db.prepare(`SELECT count(*) AS n FROM tests WHERE removed = 1`).get()).toEqual({ n: 0 });
  });
});
