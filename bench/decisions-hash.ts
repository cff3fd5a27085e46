// `npx tsx bench/decisions-hash.ts`: a hash of every call of a fixed simulator corpus (3 stores × 300 tests,
// seed 45), as a sync writes them, then after a settings change, a store override and a test's plan
// (each refreshed): the same hash before and after a refactor says no call moved (issue 45).
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createSimulator } from '#simulator/index';
import { openDatabase } from '#core/db/open';
import type { Db } from '#core/db/types';
import { readDecision } from '#core/db/cache/decisions';
import { createDecisionRefresh } from '#core/decisions/refresh';
import { inPlaceCallMaker } from '#core/decisions/call-threads';
import { readGlobalDecisionSettings } from '#core/decisions/basis';
import {
  writeGlobalDecisionSettings,
  writeStoreOverrides,
  writeTestPlan,
} from '#core/db/user/decisions';
import { cacheSimulatedStores } from '../test/support/simulated-cache';
import { withTempDir } from './support';

/** Every row's call columns and its whole stored call, in seq order. */
function callsText(db: Db): string {
  const rows = db
    .prepare(
      `SELECT seq, store_id, id, decision, decision_words, decision_reason, days_to_decision, goal_lift,
         goal_p_win, decision_key, decision_basis, decision_date FROM tests ORDER BY seq`,
    )
    .all() as { seq: number }[];
  return JSON.stringify(rows.map((row) => [row, readDecision(db, row.seq)]));
}

async function refresh(db: Db, at: string): Promise<void> {
  const r = createDecisionRefresh({
    db,
    clock: () => Date.parse(at),
    maker: inPlaceCallMaker(),
    emit: () => {},
  });
  await r.request(null, false);
}

await withTempDir(async (dir) => {
  const sim = createSimulator({
    seed: 45,
    stores: Array.from({ length: 3 }, (_, i) => ({ name: `Store ${i + 1}` })),
    testsPerStore: 300,
  });
  const db = openDatabase(join(dir, 'cache.db'), { userDataFile: join(dir, 'user.db') });
  const at = new Date(sim.now()).toISOString();
  const { storeIds } = cacheSimulatedStores(db, sim, at);
  const hash = createHash('sha256');
  const stage = (name: string) => {
    const text = callsText(db);
    hash.update(text);
    console.log(`${name}: ${createHash('sha256').update(text).digest('hex').slice(0, 16)}`);
  };
  stage('synced');
  const settings = readGlobalDecisionSettings(db);
  writeGlobalDecisionSettings(db, { ...settings, credibility: 0.9 }, at);
  await refresh(db, at);
  stage('global settings changed');
  const [first, second] = storeIds;
  if (first === undefined || second === undefined) throw new Error('the corpus has too few stores');
  writeStoreOverrides(db, first, { plannedDays: 21 }, at);
  await refresh(db, at);
  stage('store override');
  const testId = (
    db
      .prepare(
        `SELECT t.id FROM tests t JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id WHERE t.store_id = ? AND t.decision IS NOT NULL ORDER BY t.seq LIMIT 1`,
      )
      .get(second) as { id: string }
  ).id;
  writeTestPlan(db, second, testId, {
    plannedDays: 10,
    setAt: at,
    dataThrough: null,
    previousDays: null,
  });
  await refresh(db, at);
  stage('test plan');
  console.log(`calls hash: ${hash.digest('hex')}`);
  db.close();
});
