// The sync's results decoder (src/main/core/sync/decode/): answers read on a thread of their own write
// exactly what reading them in place writes; its verdicts are the client's (retry an unreadable body,
// refuse one that is not results); a decoder thread that cannot start or dies costs no result.
// Real worker threads (the source under tsx), real SQLite files, the simulator over loopback HTTP.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '#core/api/index';
import { writeGlobalDecisionSettings } from '#core/db/user/decisions';
import {
  prepareResults,
  resultsContext,
  upsertResults,
  writePreparedResults,
} from '#core/decisions/results';
import { insertStore } from '#core/db/cache/stores';
import { openDatabase } from '#core/db/open';
import type { Db } from '#core/db/types';
import { inPlaceDecoder, threadDecoder, type ResultsDecoder } from '#core/sync/decode/decoder';
import { readResults } from '#core/sync/decode/read-results';
import { createSyncEngine } from '#core/sync/run';
import { sourceSyncThread } from '#core/index';
import { TestResults } from '#shared/api/index';
import { DEFAULT_DECISION_SETTINGS } from '#shared/domain/decisions/index';
import { summarizeIssues } from '#shared/validation';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { failure } from '../api/support/failure';
import { startScriptedServer } from '../api/support/scripted-server';
import { tempDir } from '../support/core';
import { dyingWorker } from '../support/dying-worker';

const STORE = 'Acme Outdoor';
const AT = Date.parse('2026-11-20T10:00:00Z');
// The simulator's clock stands still, so two syncs of it see the same figures.
const sim = createSimulator({ seed: 11, stores: [{ name: STORE, tests: 90 }], now: () => AT });
const apiKey = sim.stores.find((s) => s.name === STORE && !s.readOnly)?.apiKey ?? '';
const decoderSource = () => {
  const options = sourceSyncThread().decoder;
  if (!options) throw new Error('the source sync thread names no decoder');
  return options;
};

let served: ServedSimulator;
const dir = tempDir();
beforeAll(async () => {
  served = await serveSimulator(sim, { port: 0 });
});
afterAll(async () => {
  await served.close();
  dir.remove();
});

function cache(name: string): Db {
  const db = openDatabase(join(dir.path, `${name}.db`), {
    userDataFile: join(dir.path, `${name}.user.db`),
  });
  insertStore(db, {
    id: 's',
    name: STORE,
    baseUrl: served.url,
    kind: 'api',
    keyStorage: 'none',
    createdAt: '2026-11-01T00:00:00Z',
  });
  return db;
}

async function sync(db: Db, decoder?: ResultsDecoder) {
  const engine = createSyncEngine({
    db,
    clientFor: async () => createApiClient({ baseUrl: served.url, apiKey }),
    clock: () => AT,
    onProgress: () => {},
    onFinished: () => {},
    resultsDecoder: decoder,
  });
  const report = await engine.run('s');
  await engine.close();
  return report;
}

/** Every row a results write touches, in a stable order. */
function written(db: Db) {
  const all = (sql: string) => db.prepare<[], Record<string, unknown>>(sql).all();
  return {
    results: all('SELECT * FROM results ORDER BY store_id, test_id'),
    raw: all('SELECT * FROM results_raw ORDER BY store_id, test_id'),
    // Each run has an id of its own, which the tests it saw keep.
    tests: all('SELECT * FROM tests ORDER BY seq').map((row) => ({ ...row, last_seen_run: null })),
    decisions: all('SELECT * FROM tests_decision ORDER BY seq'),
    facts: all('SELECT * FROM results_facts ORDER BY store_id, test_id'),
  };
}

/** A simulator test with results, and the text of its results answer. */
function answered(): { testId: string; text: string; results: TestResults } {
  for (const test of sim.snapshot(STORE).tests) {
    const results = sim.results(STORE, test.id);
    if (results) return { testId: test.id, text: JSON.stringify(results), results };
  }
  throw new Error('no test with results');
}

describe('a sync whose answers are read on the decoder thread', () => {
  const decoders: ResultsDecoder[] = [];
  afterEach(async () => {
    await Promise.all(decoders.splice(0).map((d) => d.close()));
  });

  it('writes the same rows, byte for byte, as one that reads them in place', async () => {
    const inPlace = cache('in-place');
    const offThread = cache('off-thread');
    const decoder = threadDecoder(decoderSource());
    decoders.push(decoder);
    const [a, b] = [await sync(inPlace), await sync(offThread, decoder)];
    expect(a.outcome).toBe('ok');
    expect(b).toEqual(a);
    expect(b.resultsFetched).toBeGreaterThan(30);
    expect(decoder.counts()).toEqual({ onThread: b.resultsFetched, inPlace: 0 });
    expect(written(offThread)).toEqual(written(inPlace));
    inPlace.close();
    offThread.close();
  });

  it('reads every answer in place when the decoder thread dies, and loses none', async () => {
    // A stand-in for a crashing decoder: it dies at the first answer it is sent.
    const file = dyingWorker(dir.path, 'dying-decoder');
    const inPlace = cache('dies-reference');
    const dying = cache('dies');
    const decoder = threadDecoder({ file });
    decoders.push(decoder);
    const [a, b] = [await sync(inPlace), await sync(dying, decoder)];
    expect(b).toEqual(a);
    expect(decoder.counts()).toEqual({ onThread: 0, inPlace: b.resultsFetched });
    expect(written(dying)).toEqual(written(inPlace));
    inPlace.close();
    dying.close();
  });

  it('reads in place when the decoder thread cannot start', async () => {
    const decoder = threadDecoder({ file: join(dir.path, 'no-such-decoder.mjs') });
    decoders.push(decoder);
    const db = cache('no-decoder');
    const { testId, text, results } = answered();
    const context = resultsContext(db, 's', testId, new Date(AT).toISOString());
    expect(await decoder.decode(text, context)).toEqual({
      kind: 'ok',
      value: prepareResults(results, context),
    });
    db.close();
  });

  it('ends an idle decoder thread, and starts it again at the next answer', async () => {
    const decoder = threadDecoder(decoderSource(), 10);
    decoders.push(decoder);
    const db = cache('idle');
    const { testId, text, results } = answered();
    const context = resultsContext(db, 's', testId, new Date(AT).toISOString());
    const expected = { kind: 'ok', value: prepareResults(results, context) };
    expect(await decoder.decode(text, context)).toEqual(expected);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await decoder.decode(text, context)).toEqual(expected);
    expect(decoder.counts()).toEqual({ onThread: 2, inPlace: 0 });
    db.close();
  });
});

describe('reading an answer', () => {
  it('says an unreadable body in the words of JSON.parse, as the transport does', () => {
    const db = cache('unreadable');
    const { testId, text } = answered();
    const context = resultsContext(db, 's', testId, new Date(AT).toISOString());
    const cut = text.slice(0, 100);
    let reason = '';
    try {
      JSON.parse(cut);
    } catch (error) {
      reason = (error as Error).message;
    }
    expect(readResults(cut, context)).toEqual({ kind: 'unreadable', reason });
    db.close();
  });

  it('names what does not fit the schema, as the client does', () => {
    const db = cache('invalid');
    const { testId, results } = answered();
    const context = resultsContext(db, 's', testId, new Date(AT).toISOString());
    const broken = { ...results, totalVisitors: 'many' };
    const issues = TestResults.safeParse(broken).error?.issues ?? [];
    expect(readResults(JSON.stringify(broken), context)).toEqual({
      kind: 'invalid',
      detail: summarizeIssues(issues),
    });
    db.close();
  });
});

describe('a prepared write whose context changed before it was written', () => {
  it('is made again with the settings in effect when it is written', async () => {
    const stale = cache('stale');
    const fresh = cache('fresh');
    await sync(stale);
    await sync(fresh);
    const { testId, results } = answered();
    const at = new Date(AT).toISOString();
    const ready = prepareResults(results, resultsContext(stale, 's', testId, at));
    const changed = {
      ...DEFAULT_DECISION_SETTINGS,
      plannedDays: DEFAULT_DECISION_SETTINGS.plannedDays + 7,
    };
    for (const db of [stale, fresh]) writeGlobalDecisionSettings(db, changed, at);
    const place = { storeId: 's', testId, fetchedAt: at, testUpdatedAt: 'u', testStatus: 'active' };
    writePreparedResults(stale, place, ready);
    upsertResults(fresh, { ...place, results });
    // The settings changed between the answer and its write: the prepared context's key is old (the
    // call itself is no longer prepared: it is made where it is written).
    expect(ready.context.basis.key).not.toBe(resultsContext(stale, 's', testId, at).basis.key);
    expect(written(stale)).toEqual(written(fresh));
    stale.close();
    fresh.close();
  });
});

describe('the client reading results with a decoder', () => {
  const decoder = inPlaceDecoder();
  const db = () => cache(`client-${Math.random().toString(36).slice(2)}`);

  it('asks again after an unreadable body, and takes the next answer', async () => {
    const { testId, text } = answered();
    let calls = 0;
    const server = await startScriptedServer((_req, res) => {
      calls += 1;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(calls === 1 ? text.slice(0, 50) : text);
    });
    const cacheDb = db();
    try {
      const client = createApiClient({ baseUrl: server.url, apiKey, sleep: async () => {} });
      const context = resultsContext(cacheDb, 's', testId, new Date(AT).toISOString());
      const ready = await client.getResultsWith(testId, (body) => decoder.decode(body, context));
      expect(calls).toBe(2);
      expect(ready.figures.totalVisitors).toBe(JSON.parse(text).totalVisitors);
    } finally {
      await server.close();
      cacheDb.close();
    }
  });

  it('refuses a body that is not results with the error getResults gives, without asking again', async () => {
    const { testId, results } = answered();
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ ...results, lifecycle: null }));
    });
    const cacheDb = db();
    try {
      const client = createApiClient({ baseUrl: server.url, apiKey, sleep: async () => {} });
      const context = resultsContext(cacheDb, 's', testId, new Date(AT).toISOString());
      const viaDecoder = await failure(
        client.getResultsWith(testId, (body) => decoder.decode(body, context)),
      );
      const direct = await failure(client.getResults(testId));
      expect(viaDecoder.kind).toBe('invalid-response');
      expect(viaDecoder.toProblem()).toEqual(direct.toProblem());
      expect(server.received).toHaveLength(2);
    } finally {
      await server.close();
      cacheDb.close();
    }
  });
});
