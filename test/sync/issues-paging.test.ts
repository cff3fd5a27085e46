// Sync issues at scale (issue 13, item 7; issue 12, item 8): one page per call with totals per kind,
// a title for each record, and a cap on what one run keeps, with the rest summarised in its problem.
import { describe, expect, it } from 'vitest';
import { setAside } from '#core/db/cache/set-aside';
import { upsertTests } from '#core/db/cache/tests';
import { listSetAside, pageSetAside } from '#core/db/cache/reads';
import { keepAside, SET_ASIDE_CAP_PER_RUN, type RunCounters } from '#core/sync/pull/context';
import { createSimulator, serveSimulator } from '#simulator/index';
import { startCore, syncStore, tempDir } from '../support/core';
import { addStore, makeTest, openTempDb } from '../db/fixtures';

const NOW = '2026-03-01T10:00:00Z';

function counters(): RunCounters {
  return {
    requests: 0,
    testsSeen: 0,
    testsRemoved: 0,
    resultsFetched: 0,
    setAside: 0,
    setAsideNotListed: 0,
  };
}

describe('sync.issues is paged', () => {
  it('walks 1,200 records in pages of 500 without a repeat, with totals per kind', () => {
    const db = openTempDb();
    addStore(db, 's1');
    db.transaction(() => {
      for (let i = 0; i < 1200; i += 1) {
        setAside(db, {
          storeId: 's1',
          resource: 'results',
          recordId: `r-${i}`,
          error: 'HTTP 503',
          raw: null,
          // Many share a timestamp: the cursor breaks ties by the key.
          seenAt: `2026-03-01T10:00:${String(i % 7).padStart(2, '0')}Z`,
          kind: i % 3 === 0 ? 'transient' : 'invalid',
        });
      }
    })();
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = pageSetAside(db, { storeId: 's1', kind: null, cursor, limit: 500 });
      expect(page.rows.length).toBeLessThanOrEqual(500);
      expect(page.total).toBe(1200);
      expect(page.byKind).toEqual({ transient: 400, invalid: 800, refused: 0 });
      for (const row of page.rows) seen.add(row.recordId ?? '');
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen.size).toBe(1200);
    const transient = pageSetAside(db, {
      storeId: 's1',
      kind: 'transient',
      cursor: null,
      limit: 500,
    });
    expect(transient.rows.every((row) => row.kind === 'transient')).toBe(true);
    expect(transient.rows).toHaveLength(400);
  });

  it("names a failed results request by its test's title, and an invalid record by its own", () => {
    const db = openTempDb();
    addStore(db, 's1');
    const test = makeTest({ n: 1 });
    upsertTests(db, { storeId: 's1', tests: [test], runId: 'run-1', syncedAt: NOW });
    setAside(db, {
      storeId: 's1',
      resource: 'results',
      recordId: test.id,
      error: 'HTTP 502',
      raw: null,
      seenAt: NOW,
      kind: 'transient',
      status: 502,
    });
    setAside(db, {
      storeId: 's1',
      resource: 'test',
      recordId: 'bad',
      error: 'status: expected string',
      raw: { id: 'bad', title: 'Hero copy', status: 7 },
      seenAt: NOW,
    });
    const rows = pageSetAside(db, { storeId: null, kind: null, cursor: null, limit: 10 }).rows;
    expect(rows.find((r) => r.resource === 'results')).toMatchObject({
      title: test.title,
      kind: 'transient',
      status: 502,
    });
    expect(rows.find((r) => r.resource === 'test')).toMatchObject({
      title: 'Hero copy',
      kind: 'invalid',
    });
  });

  it('refuses a cursor it did not write', () => {
    const db = openTempDb();
    expect(() =>
      pageSetAside(db, { storeId: null, kind: null, cursor: 'nonsense', limit: 10 }),
    ).toThrow(/cursor/);
  });
});

describe('one run keeps at most SET_ASIDE_CAP_PER_RUN records', () => {
  it('stores the first ones and counts the rest', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const run = counters();
    for (let i = 0; i < SET_ASIDE_CAP_PER_RUN + 120; i += 1) {
      keepAside(db, run, {
        storeId: 's1',
        resource: 'test',
        recordId: `t-${i}`,
        error: 'bad',
        raw: {},
        seenAt: NOW,
      });
    }
    expect(listSetAside(db, 's1')).toHaveLength(SET_ASIDE_CAP_PER_RUN);
    expect(run.setAsideNotListed).toBe(120);
  });

  it('ends a partly failed sync as partial, with a problem that says how many and where', async () => {
    const store = 'Acme Outdoor';
    const sim = createSimulator({
      seed: 3,
      stores: [{ name: store, tests: 40 }],
      faults: { brokenTests: { count: 3 } },
    });
    const served = await serveSimulator(sim, { port: 0 });
    const dir = tempDir();
    const core = await startCore(dir.path);
    try {
      const key = sim.stores[0]?.apiKey ?? '';
      const added = await core.services.stores.add({
        name: store,
        baseUrl: served.url,
        apiKey: key,
        sessionOnly: false,
      });
      const report = await syncStore(core, added.id);
      expect(report.outcome).toBe('partial');
      expect(report.setAsideNotListed).toBe(0);
      expect(report.problem?.title).toBe('3 records could not be taken');
      const [summary] = await core.services.stores.list({});
      expect(summary?.sync.lastOutcome).toBe('partial');
      expect(summary?.sync.lastProblem?.detail).toMatch(/Sync issues/);
    } finally {
      await core.close();
      await served.close();
      dir.remove();
    }
  });
});
