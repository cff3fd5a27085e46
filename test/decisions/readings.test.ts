// How a store's rates read, learnt from its own results (rate fits kept per result): a server that sends
// cnv as a count of conversions and ctr per visitor, beside the simulator's per-visit percentages.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import type { LearntReading } from '#shared/domain/decisions/index';
import { openDatabase } from '#core/db/open';
import { upsertResults } from '#core/decisions/results';
import { upsertTests } from '#core/db/cache/tests';
import type { Core } from '#core/types';
import { addStore, makeTest } from '../db/fixtures';
import { startCore, syncStore, tempDir } from '../support/core';
import { SHAPES, shapedResults } from './support';

const data = tempDir('splitbook-decisions-readings-');
const simulator = createSimulator({ seed: 17, stores: [{ name: 'Acme', tests: 30 }] });
let served: ServedSimulator;
let core: Core;
let simulated = '';

beforeAll(async () => {
  // A store whose server reads its rates otherwise, cached as a sync would have cached it.
  const db = openDatabase(join(data.path, 'splitbook.db'), {
    userDataFile: join(data.path, 'splitbook-user.db'),
  });
  addStore(db, 'other', 'Other server');
  for (let n = 1; n <= 6; n++) {
    const test = makeTest({
      n,
      status: 'completed',
      goal: 'conversion-rate',
      startAt: '2026-03-01T00:00:00Z',
    });
    upsertTests(db, {
      storeId: 'other',
      tests: [test],
      runId: 'r',
      syncedAt: '2026-04-01T00:00:00Z',
    });
    upsertResults(db, {
      storeId: 'other',
      testId: test.id,
      results: shapedResults(
        test.id,
        { start: '2026-03-01', days: 10 + n, ...(n % 2 === 0 ? SHAPES.ship : SHAPES.flat) },
        {},
        'count-and-per-visitor',
      ),
      fetchedAt: '2026-04-01T00:00:00Z',
      testUpdatedAt: test.updatedAt,
      testStatus: test.status,
    });
  }
  db.close();

  served = await serveSimulator(simulator);
  core = await startCore(data.path, { clock: () => simulator.now() });
  simulated = (
    await core.services.stores.add({
      name: 'Acme',
      baseUrl: served.url,
      apiKey: simulator.stores[0]?.apiKey ?? '',
      sessionOnly: true,
    })
  ).id;
  expect((await syncStore(core, simulated)).outcome).toBe('ok');
}, 60_000);

afterAll(async () => {
  await core?.close();
  await served?.close().catch(() => undefined);
  data.remove();
});

const byRate = (readings: LearntReading[]) => new Map(readings.map((r) => [r.rate, r]));

describe("a store's rate readings", { timeout: 60_000 }, () => {
  it('learns cnv as a count and ctr per visitor where the server sends them so, every side agreeing', async () => {
    const readings = byRate(await core.services.decisions.readings({ storeId: 'other' }));
    expect(readings.get('cnv')).toEqual({
      rate: 'cnv',
      reading: 'conversion-count',
      label: 'a count of conversions',
      scale: 'count',
      fits: 12,
      of: 12,
    });
    expect(readings.get('ctr')).toMatchObject({
      reading: 'clicks-per-visitor',
      scale: 'percent',
      fits: 12,
      of: 12,
    });
    expect(readings.get('cvr')).toMatchObject({
      reading: 'conversions-per-visitor',
      scale: 'percent',
    });
    expect(readings.get('acr')).toMatchObject({ reading: 'carts-per-visitor', scale: 'percent' });
  });

  it("learns the simulator's readings from the results a sync fetched: cnv and ctr per visit, in percent", async () => {
    const readings = byRate(await core.services.decisions.readings({ storeId: simulated }));
    expect(readings.get('cnv')).toMatchObject({
      reading: 'conversions-per-visit',
      scale: 'percent',
    });
    expect(readings.get('ctr')).toMatchObject({ reading: 'clicks-per-visit', scale: 'percent' });
    expect(readings.get('cvr')).toMatchObject({
      reading: 'conversions-per-visitor',
      scale: 'percent',
    });
    const cnv = readings.get('cnv');
    expect(cnv?.of).toBeGreaterThan(10);
    expect(cnv?.fits).toBe(cnv?.of);
  });

  it('refuses an unknown store', async () => {
    await expect(core.services.decisions.readings({ storeId: 'nope' })).rejects.toMatchObject({
      problem: { status: 404 },
    });
  });
});
