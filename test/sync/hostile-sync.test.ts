// A sync against a hostile server: a record nested too deep for JSON is set aside and the rest of its
// page kept; a listing whose counts contradict themselves marks nothing removed; an endless body
// ends the sync as "too large" with the process's memory bounded.
import { PROBLEM_TYPES } from '#shared/problem';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, expect, it } from 'vitest';
import { createApiClient } from '#core/api/index';
import { insertStore } from '#core/db/cache/stores';
import { listSetAside } from '#core/db/cache/reads';
import { openDatabase } from '#core/db/open';
import type { Db } from '#core/db/types';
import { createSyncEngine } from '#core/sync/run';
import { TestListInput } from '#shared/contract/index';
import { listTests } from '#core/db/cache/test-list';
import { testRecord } from '../api/support/fixtures';
import { sendJson, scriptedServers, type Script } from '../api/support/scripted-server';
import { endless } from '../api/support/endless';
import { tempDir } from '../support/core';

const dir = tempDir();
const startServer = scriptedServers();
afterEach(() => dir.remove());

const KEY = 'sk_test_hostile_sync_0000';

async function engineAgainst(
  script: Script,
): Promise<{ db: Db; run: () => ReturnType<ReturnType<typeof createSyncEngine>['run']> }> {
  const server = await startServer(script);
  const baseUrl = server.url;
  const db = openDatabase(join(dir.path, 'cache.db'));
  insertStore(db, {
    id: 's',
    name: 'Acme',
    baseUrl,
    kind: 'api',
    keyStorage: 'none',
    createdAt: '2026-11-01T00:00:00Z',
  });
  const engine = createSyncEngine({
    db,
    clientFor: async () => createApiClient({ baseUrl, apiKey: KEY, maxAttempts: 1 }),
    clock: Date.now,
    onProgress: () => {},
    onFinished: () => {},
  });
  return { db, run: () => engine.run('s') };
}

function path(url: string): { route: string; page: number } {
  const u = new URL(url, 'http://x');
  return {
    route: u.pathname.replace('/api/public/v1', ''),
    page: Number(u.searchParams.get('page') ?? '1'),
  };
}

/** The campaign and audience lists, empty, so a sync can finish. */
function emptyLists(route: string, res: Parameters<Script>[1]): boolean {
  if (route === '/campaigns/active') return (sendJson(res, 200, { campaigns: [] }), true);
  if (route === '/custom-audiences') return (sendJson(res, 200, { customAudiences: [] }), true);
  return false;
}

const draft = (n: number) => testRecord({ title: `Test ${n}`, status: 'draft' });

it('sets aside a record nested too deep to store and keeps the other 99 of its page', async () => {
  const good = Array.from({ length: 99 }, (_, n) => draft(n));
  const deepRecord = draft(99);
  const deepId = String(deepRecord.id);
  const deep = JSON.stringify(deepRecord).replace(
    /^\{/,
    `{"nested":${'['.repeat(6000)}${']'.repeat(6000)},`,
  );
  const { db, run } = await engineAgainst((req, res) => {
    const { route } = path(req.url);
    if (emptyLists(route, res)) return;
    const body = `{"data":[${[...good.map((t) => JSON.stringify(t)), deep].join(',')}],"pagination":{"page":1,"perPage":100,"totalPages":1,"totalCount":100}}`;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(body);
  });
  const report = await run();
  expect(report.problem?.type).toBe(PROBLEM_TYPES.partial);
  expect(report.outcome).toBe('partial');
  expect(report.setAside).toBe(1);
  expect(listTests(db, TestListInput.parse({ storeId: 's', limit: 500 })).total).toBe(99);
  expect(listSetAside(db, 's')).toEqual([
    expect.objectContaining({
      recordId: deepId,
      error: expect.stringContaining('nested too deeply'),
    }),
  ]);
  db.close();
});

it('marks nothing removed when the listing reports negative or zero totals', async () => {
  const tests = Array.from({ length: 250 }, (_, n) => draft(n));
  let lie = false;
  const { db, run } = await engineAgainst((req, res) => {
    const { route, page } = path(req.url);
    if (emptyLists(route, res)) return;
    const data = tests.slice((page - 1) * 100, page * 100);
    const pagination = lie
      ? { page, perPage: 100, totalPages: -1, totalCount: page === 1 ? -150 : 0 }
      : { page, perPage: 100, totalPages: 3, totalCount: 250 };
    sendJson(res, 200, { data, pagination });
  });
  expect((await run()).outcome).toBe('ok');
  lie = true;
  const report = await run();
  expect(report.outcome).toBe('error');
  expect(report.problem?.title).toBe('The API sent a response Splitbook cannot read');
  expect(report.testsRemoved).toBe(0);
  expect(listTests(db, TestListInput.parse({ storeId: 's', limit: 500 })).total).toBe(250);
  db.close();
});

it('ends a sync under an endless body as "too large", with peak memory bounded (child process)', async () => {
  const server = await startServer((req, res) => {
    // Adding the store checks the key with one small page; the sync's own listing never ends.
    if (new URL(req.url, 'http://x').searchParams.get('perPage') === '1') {
      sendJson(res, 200, {
        data: [],
        pagination: { page: 1, perPage: 1, totalPages: 0, totalCount: 0 },
      });
      return;
    }
    endless(res);
  });
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(import.meta.dirname, 'fixtures/endless-child.ts'),
      dir.path,
      server.url,
      KEY,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let result: {
    outcome: string;
    problemType: string | null;
    title: string | null;
    maxRssMb: number;
    baselineRssMb: number;
  } | null = null;
  for await (const line of createInterface({ input: proc.stdout })) result = JSON.parse(line);
  expect(result).toMatchObject({
    outcome: 'error',
    problemType: 'splitbook:too-large',
    title: "The store's answer was too large",
  });
  // The body cap of a test page is 8 MiB: the sync may hold a few copies of it, never gigabytes.
  console.log(
    `peak RSS of a sync under an endless body: ${result?.maxRssMb} MB (before the sync: ${result?.baselineRssMb} MB)`,
  );
  expect(result?.maxRssMb).toBeLessThan(400);
}, 60_000);
