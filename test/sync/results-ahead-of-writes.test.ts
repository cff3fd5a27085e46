// The results of a listing page are asked for as soon as the page is in hand, before any of it is
// written (twenty stores' pages wait seconds for their turn to be written), and an answer is read and
// written only once its test's row is in: real loopback HTTP, a real SQLite file. What the written row
// no longer asks for is dropped unread; what it asks for differently is taken again.
import { describe, expect, it } from 'vitest';
import { createApiClient } from '#core/api/index';
import { upsertResults } from '#core/decisions/results';
import { upsertTests } from '#core/db/cache/tests';
import type { Db } from '#core/db/types';
import { noCounters, type PhaseContext } from '#core/sync/pull/context';
import { startResults, type ResultsPull } from '#core/sync/pull/results';
import type { Test } from '#shared/api/index';
import { sendJson, sendProblem, scriptedServers } from '../api/support/scripted-server';
import { addStore, makeResults, makeTest, openTempDb } from '../db/fixtures';

const startServer = scriptedServers();

const KEY = 'sk_test_results_ahead_000';
const STORE = 's';
const NOW = '2026-03-01T12:00:00.000Z';

/** A store answering results (or `answer`'s choice), and telling when it has answered `n` of them. */
async function store(answer?: (testId: string) => 'ok' | 'unavailable') {
  const asked: string[] = [];
  const waiters: { n: number; done: () => void }[] = [];
  const server = await startServer((req, res) => {
    const testId = /\/tests\/([^/]+)\/results$/.exec(req.url)?.[1] ?? '';
    asked.push(testId);
    if (answer?.(testId) === 'unavailable')
      sendProblem(res, 503, 'Service unavailable', 'Try again later.');
    else sendJson(res, 200, makeResults(testId));
    for (const waiter of waiters) if (asked.length >= waiter.n) waiter.done();
  });
  return {
    url: server.url,
    asked,
    answered: (n: number) =>
      new Promise<void>((done) => {
        if (asked.length >= n) done();
        else waiters.push({ n, done });
      }),
  };
}

function context(db: Db, baseUrl: string): PhaseContext {
  return {
    db,
    storeId: STORE,
    // One attempt: a 503 is the answer, not a retry.
    client: createApiClient({ baseUrl, apiKey: KEY, maxAttempts: 1 }),
    signal: new AbortController().signal,
    progress: { report: () => {}, current: () => null },
    counters: noCounters(),
    now: () => NOW,
  };
}

/** A store's server, a cache holding the store, and a results pull of a run syncing it. */
async function setup(
  options: { answer?: (testId: string) => 'ok' | 'unavailable'; concurrency?: number } = {},
) {
  const api = await store(options.answer);
  const db = openTempDb();
  addStore(db, STORE);
  const ctx = context(db, api.url);
  return { api, db, ctx, results: startResults(ctx, options.concurrency) };
}

/** Writes tests' rows as the listing does, and tells the pull. */
function write(db: Db, results: ResultsPull, tests: readonly Test[], held = tests): void {
  upsertTests(db, { storeId: STORE, tests, runId: 'run', syncedAt: NOW });
  results.written(
    tests.map((test) => test.id),
    held.map((test) => test.id),
  );
}

const count = (db: Db, table: string) =>
  (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

/** Lets answers that arrived be read, if anything would read them. */
const settleAnswers = () => new Promise((done) => setTimeout(done, 100));

const tests = (from: number, n: number, fields: Partial<Test> = {}) =>
  Array.from({ length: n }, (_, i) => makeTest({ n: from + i, ...fields }));

describe('results asked for from the listing page, before it is written', () => {
  it('asks at once, and writes each answer only once its test is written', async () => {
    const { api, db, ctx, results } = await setup();
    const page = tests(1, 6);

    results.listed(page);
    await api.answered(6);
    await settleAnswers();
    // Every answer is in, and none is written: no test's row is.
    expect(count(db, 'tests')).toBe(0);
    expect(count(db, 'results')).toBe(0);

    write(db, results, page.slice(0, 3));
    write(db, results, page.slice(3));
    await results.finish();
    expect(count(db, 'results')).toBe(6);
    expect(ctx.counters).toMatchObject({ requests: 6, resultsFetched: 6, setAside: 0 });
    // Asked once each: the rows confirmed what the page asked for.
    expect(api.asked).toHaveLength(6);
  });

  it('drops the answer of a test that was not stored, unread and uncounted', async () => {
    const { api, db, ctx, results } = await setup();
    const page = tests(1, 3);

    results.listed(page);
    await api.answered(3);
    // The cache could not take the third (it is set aside by the listing): the part held it.
    write(db, results, page.slice(0, 2), page);
    await results.finish();
    expect(count(db, 'results')).toBe(2);
    expect(ctx.counters).toMatchObject({ requests: 3, resultsFetched: 2, setAside: 0 });
  });

  it('does not ask at all for a dropped test still waiting its turn', async () => {
    // One request at a time: the second and third wait while the first is under way.
    const { api, db, ctx, results } = await setup({ concurrency: 1 });
    const page = tests(1, 3);

    results.listed(page);
    write(db, results, page.slice(0, 1), page);
    await results.finish();
    expect(api.asked).toEqual([page[0]?.id]);
    expect(ctx.counters).toMatchObject({ requests: 1, resultsFetched: 1 });
  });

  it("takes a test again when its written row differs from the page (an unsent edit's rebase)", async () => {
    const { api, db, ctx, results } = await setup();
    const listed = makeTest({ n: 1, updatedAt: '2026-02-01T00:00:00Z' });
    const row = makeTest({ n: 1, updatedAt: '2026-02-02T00:00:00Z' });

    results.listed([listed]);
    await api.answered(1);
    write(db, results, [row]);
    await results.finish();
    // Asked again for the row as written; the results are kept for what the row says.
    expect(api.asked).toEqual([listed.id, listed.id]);
    const kept = db.prepare(`SELECT test_updated_at AS at FROM results`).all();
    expect(kept).toEqual([{ at: '2026-02-02T00:00:00Z' }]);
    expect(ctx.counters).toMatchObject({ requests: 2, resultsFetched: 1 });
  });

  it('does not ask for results the cache holds for the test as listed', async () => {
    const { api, db, results } = await setup();
    const ended = makeTest({ n: 1, status: 'ended' });
    upsertTests(db, { storeId: STORE, tests: [ended], runId: 'before', syncedAt: NOW });
    upsertResults(db, {
      storeId: STORE,
      testId: ended.id,
      results: makeResults(ended.id),
      fetchedAt: NOW,
      testUpdatedAt: ended.updatedAt,
      testStatus: ended.status,
    });
    const fresh = makeTest({ n: 2 });

    results.listed([ended, fresh]);
    write(db, results, [ended, fresh]);
    await results.finish();
    expect(api.asked).toEqual([fresh.id]);
  });

  it('sets nothing aside for a dropped test whose request failed', async () => {
    const page = tests(1, 2);
    const { api, db, ctx, results } = await setup({
      answer: (id) => (id === page[1]?.id ? 'unavailable' : 'ok'),
    });

    results.listed(page);
    await api.answered(2);
    write(db, results, page.slice(0, 1), page);
    await results.finish();
    expect(count(db, 'set_aside')).toBe(0);
    expect(ctx.counters).toMatchObject({ resultsFetched: 1, setAside: 0 });
  });

  it('writes nothing of a page whose listing stopped before writing it', async () => {
    const { api, db, ctx, results } = await setup();

    results.listed(tests(1, 4));
    await api.answered(4);
    // The listing failed: the run abandons the results, answers waiting for their rows included.
    await results.abandon();
    await settleAnswers();
    expect(count(db, 'results')).toBe(0);
    expect(ctx.counters).toMatchObject({ requests: 4, resultsFetched: 0, setAside: 0 });
  });
});
