// A run asks for the results of a listing page's tests as soon as the page is in hand, beside the rest
// of the listing: real loopback HTTP, a real SQLite file. A page is written in parts,
// its resume point with the last; a run-fatal results answer stops the listing; a listing that fails
// waits for the results in flight, keeps what was written, and writes nothing after its report.
import { describe, expect, it } from 'vitest';
import { createApiClient } from '#core/api/index';
import { getSyncState } from '#core/db/cache/sync-state';
import type { Db } from '#core/db/types';
import type { PhaseContext } from '#core/sync/pull/context';
import { noCounters } from '#core/sync/pull/context';
import { LISTING_WRITE_PART, pullTests } from '#core/sync/pull/tests';
import { createSyncEngine } from '#core/sync/run';
import { testRecord } from '../api/support/fixtures';
import {
  sendJson,
  sendProblem,
  scriptedServers,
  type ScriptedServer,
} from '../api/support/scripted-server';
import { addStore, makeResults, openTempDb } from '../db/fixtures';

const startServer = scriptedServers();

const KEY = 'sk_test_beside_listing_000';
/** Two pages of 60 launched tests: each page is written in parts of 25, 25 and 10. */
const PER_PAGE = 60;
const RECORDS = Array.from({ length: 2 * PER_PAGE }, (_, n) =>
  testRecord({ title: `Listed ${n}`, status: 'active' }),
);
const PAGE_ONE = new Set(RECORDS.slice(0, PER_PAGE).map((r) => String(r.id)));

type Route = { route: string; page: number; testId: string | null };
function routeOf(url: string): Route {
  const u = new URL(url, 'http://x');
  const route = u.pathname.replace('/api/public/v1', '');
  return {
    route,
    page: Number(u.searchParams.get('page') ?? '1'),
    testId: /^\/tests\/([^/]+)\/results$/.exec(route)?.[1] ?? null,
  };
}

/** What the server did, in order: 'page 1', 'results <page of the test>', 'page 2 answered'. */
type Log = string[];

/**
 * A store whose listing's page 2 is answered only once a results request has come (or after
 * `holdMs`, so a run that never asks cannot hang the test), `afterResultsMs` after it.
 */
async function store(
  log: Log,
  options: {
    results?: (testId: string, res: Parameters<typeof sendJson>[0]) => void;
    page2?: (res: Parameters<typeof sendJson>[0]) => void;
    afterResultsMs?: number;
    /** false: page 2 is answered at once. */
    hold?: boolean;
  } = {},
): Promise<ScriptedServer> {
  let resultsAsked: () => void = () => {};
  const firstResults = new Promise<void>((done) => (resultsAsked = done));
  return startServer((req, res) => {
    const { route, page, testId } = routeOf(req.url);
    if (route === '/campaigns/active') return sendJson(res, 200, { campaigns: [] });
    if (route === '/custom-audiences') return sendJson(res, 200, { customAudiences: [] });
    if (testId !== null) {
      log.push(`results ${PAGE_ONE.has(testId) ? 1 : 2}`);
      resultsAsked();
      if (options.results) return options.results(testId, res);
      return sendJson(res, 200, makeResults(testId));
    }
    const answer = () => {
      log.push(`page ${page} answered`);
      if (page === 2 && options.page2) return options.page2(res);
      sendJson(res, 200, {
        data: RECORDS.slice((page - 1) * PER_PAGE, page * PER_PAGE),
        pagination: { page, perPage: PER_PAGE, totalPages: 2, totalCount: RECORDS.length },
      });
    };
    if (page !== 2 || options.hold === false) return answer();
    const held = setTimeout(answer, 3000);
    void firstResults.then(() => {
      clearTimeout(held);
      setTimeout(answer, options.afterResultsMs ?? 0);
    });
  });
}

function openCache(): Db {
  const db = openTempDb();
  addStore(db, 's');
  return db;
}

function engineFor(db: Db, baseUrl: string) {
  return createSyncEngine({
    db,
    clientFor: async () => createApiClient({ baseUrl, apiKey: KEY, maxAttempts: 1 }),
    clock: Date.now,
    onProgress: () => {},
    onFinished: () => {},
    perPage: PER_PAGE,
  });
}

const count = (db: Db, table: string) =>
  (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('results fetched beside the listing', () => {
  it("asks for page 1's results before page 2 is in, and ends with every test's results", async () => {
    const log: Log = [];
    const server = await store(log);
    const db = openCache();
    const report = await engineFor(db, server.url).run('s');

    expect(report).toMatchObject({ outcome: 'ok', testsSeen: 120, resultsFetched: 120 });
    // Page 2 was held until a results request came: it came while the listing was under way.
    const page2 = log.indexOf('page 2 answered');
    expect(log.indexOf('results 1')).toBeGreaterThanOrEqual(0);
    expect(log.indexOf('results 1')).toBeLessThan(page2);
    // Every test asked for once: none twice, though page 1's were taken before the listing ended.
    expect(log.filter((line) => line.startsWith('results'))).toHaveLength(120);
    expect(count(db, 'results')).toBe(120);
    expect(getSyncState(db, 's')).toBeNull();
    db.close();
  });

  it('writes a page in parts of LISTING_WRITE_PART, the resume point with its last part', async () => {
    expect(LISTING_WRITE_PART).toBe(25);
    const log: Log = [];
    const server = await store(log, { hold: false });
    const db = openCache();
    const parts: [number, number | null][] = [];
    const ctx: PhaseContext = {
      db,
      storeId: 's',
      client: createApiClient({ baseUrl: server.url, apiKey: KEY, maxAttempts: 1 }),
      signal: new AbortController().signal,
      progress: { report: () => {}, current: () => null },
      counters: noCounters(),
      now: () => new Date().toISOString(),
    };
    await pullTests(ctx, PER_PAGE, 1, {
      listed: () => {},
      written: (ids) => parts.push([ids.length, getSyncState(db, 's')?.nextPage ?? null]),
    });
    expect(parts).toEqual([
      [25, 1],
      [25, 1],
      [10, 2],
      [25, 2],
      [25, 2],
      [10, 3],
    ]);
    expect(count(db, 'tests')).toBe(120);
    db.close();
  });

  it('stops the listing at a run-fatal results answer (the key refused)', async () => {
    const log: Log = [];
    const server = await store(log, {
      // Refused 100 ms after it is asked: page 1 (asked for as soon as it is in) is written by then.
      results: (_id, res) =>
        void setTimeout(() => sendProblem(res, 401, 'Unauthorized', 'Unknown API key'), 100),
      afterResultsMs: 300,
    });
    const db = openCache();
    const report = await engineFor(db, server.url).run('s');

    expect(report.outcome).toBe('error');
    expect(report.problem?.status).toBe(401);
    // Page 2 came after the refusal was known: not a test of it was written, and the next run
    // resumes the listing there.
    expect(count(db, 'tests')).toBe(PER_PAGE);
    expect(getSyncState(db, 's')).toMatchObject({ phase: 'tests', nextPage: 2 });
    db.close();
  });

  it('waits for the results in flight when the listing fails, keeps them, and writes nothing after', async () => {
    const log: Log = [];
    const server = await store(log, {
      // Each answer takes 150 ms: several are in flight when page 2 is refused.
      results: (id, res) => void setTimeout(() => sendJson(res, 200, makeResults(id)), 150),
      page2: (res) => sendProblem(res, 400, 'Bad request', 'Refused for the test.'),
    });
    const db = openCache();
    const report = await engineFor(db, server.url).run('s');

    expect(report.outcome).toBe('error');
    expect(report.problem?.status).toBe(400);
    const written = count(db, 'results');
    expect(written).toBeGreaterThan(0);
    expect(report.resultsFetched).toBe(written);
    // Nothing was left running: no write lands after the report.
    await new Promise((done) => setTimeout(done, 400));
    expect(count(db, 'results')).toBe(written);
    db.close();
  });
});
