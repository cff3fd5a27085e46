// What the review memory compares of a test's results (visitors per side, tier per goal): kept beside
// the results since cache migration 18, read from the packed raw record for rows written before it.
// A real sync over HTTP from the simulator into real SQLite files.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trackedTests } from '#core/db/history/review';
import { openDatabase } from '#core/db/open';
import type { Db } from '#core/db/types';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { addSimulatorStores, startCore, tempDir } from '../support/core';

const data = tempDir('splitbook-review-parts-');
const simulator = createSimulator({ seed: 11, stores: [{ name: 'Acme', tests: 60 }] });
let served: ServedSimulator;
let storeId = '';
let db: Db;

beforeAll(async () => {
  served = await serveSimulator(simulator.handler);
  const core = await startCore(data.path);
  ({ Acme: storeId = '' } = await addSimulatorStores(core, simulator, served.url));
  await core.close();
  db = openDatabase(join(data.path, 'splitbook.db'), {
    userDataFile: join(data.path, 'splitbook-user.db'),
  });
});

afterAll(async () => {
  db?.close();
  await served?.close();
  data.remove();
});

/** Visitors per side and tier per goal, as review/snapshots.ts reads them from the parts. */
function compared(json: string | null): unknown {
  if (json === null) return null;
  const [control, variant, byGoal] = JSON.parse(json) as [
    unknown,
    unknown,
    Record<string, { tier?: unknown }>,
  ];
  return {
    control,
    variant,
    tiers: Object.fromEntries(Object.entries(byGoal).map(([goal, { tier }]) => [goal, tier])),
  };
}

/** Each test's parts as the sync reads them for a state older than its results. */
function partsById(): Map<string, unknown> {
  // A state older than every result: the parts are read for every test that has results.
  db.prepare(`UPDATE user.test_state SET results_fetched_at = NULL WHERE store_id = ?`).run(
    storeId,
  );
  return new Map(
    trackedTests(db, storeId)
      .filter((row) => row.resultsFetchedAt !== null)
      .map((row) => [row.id, compared(row.resultsParts)]),
  );
}

describe('the review memory’s parts of results', () => {
  it('are kept with every result the sync writes, and match the raw record', () => {
    const rows = db
      .prepare(
        `SELECT r.review_parts AS kept,
                json_extract(unpack_json(rr.raw_packed), '$.control.visitors', '$.variant.visitors', '$.lifecycleByGoal') AS extracted
         FROM results r JOIN results_raw rr ON rr.store_id = r.store_id AND rr.test_id = r.test_id
         WHERE r.store_id = ?`,
      )
      .all(storeId) as { kept: string | null; extracted: string }[];
    expect(rows.length).toBeGreaterThan(20);
    for (const row of rows) {
      expect(row.kept).not.toBeNull();
      expect(compared(row.kept)).toEqual(compared(row.extracted));
    }
    // Some tests run on several goals: a tier each.
    expect(rows.some((row) => Object.keys(JSON.parse(row.kept ?? '[]')[2]).length > 1)).toBe(true);
  });

  it('are read from the raw record for results cached before migration 18, to the same values', () => {
    const kept = partsById();
    db.prepare(`UPDATE results SET review_parts = NULL WHERE store_id = ?`).run(storeId);
    const extracted = partsById();
    expect(extracted.size).toBeGreaterThan(20);
    expect(extracted).toEqual(kept);
    for (const parts of extracted.values()) expect(parts).not.toBeNull();
  });
});
