// The user's decision settings as stored (user file): the global settings' row, each store's overrides,
// a test's own plan and the history of changes, as their stored texts and columns. What they mean, and
// the calls made with them, is core/decisions' (settings.ts, basis.ts).
import type { DecisionSettings, DecisionSettingsPatch } from '#shared/contract/decisions';
import { schemaVersion } from '../cache/migrations';
import { read, write } from '../sql';
import type { Db } from '../types';
import { hasUserData } from './attached';
import { readSettingRow, writeSettingRow } from './settings';

/** The row of user.settings that holds the global decision settings. */
export const DECISION_SETTINGS_KEY = 'decisions';

/** Whether the user's file has the decision tables (user-data migration 4): bare caches and old read-only files do not. */
export function hasDecisionData(db: Db): boolean {
  return hasUserData(db) && schemaVersion(db, 'user') >= 4;
}

/** The stored JSON of the global decision settings; null when never set. */
export function globalSettingsText(db: Db): string | null {
  // user.settings came with user-data migration 3; an older file opened read-only has none.
  if (!hasUserData(db) || schemaVersion(db, 'user') < 3) return null;
  return readSettingRow(db, DECISION_SETTINGS_KEY);
}

export function writeGlobalDecisionSettings(db: Db, settings: DecisionSettings, at: string): void {
  writeSettingRow(db, DECISION_SETTINGS_KEY, settings, at);
}

const OVERRIDES = read<{ storeId: string; overrides: string }>(
  `SELECT store_id AS storeId, overrides FROM user.decision_overrides`,
);
const OVERRIDES_OF = read<{ overrides: string }, { storeId: string }>(
  `SELECT overrides FROM user.decision_overrides WHERE store_id = @storeId`,
);
const DROP_OVERRIDES = write<{ storeId: string }>(
  `DELETE FROM user.decision_overrides WHERE store_id = @storeId`,
);
const PUT_OVERRIDES = write<{ storeId: string; overrides: string; at: string }>(
  `INSERT INTO user.decision_overrides (store_id, overrides, updated_at) VALUES (@storeId, @overrides, @at)
   ON CONFLICT (store_id) DO UPDATE SET overrides = excluded.overrides, updated_at = excluded.updated_at`,
);

/** The stored JSON of each store's overrides (only stores that have some). */
export function storeOverrideTexts(db: Db): Map<string, string> {
  if (!hasDecisionData(db)) return new Map();
  const rows = OVERRIDES.all(db);
  return new Map(rows.map((row) => [row.storeId, row.overrides]));
}

/** The stored JSON of a store's overrides; null when it has none. */
export function storeOverrideText(db: Db, storeId: string): string | null {
  if (!hasDecisionData(db)) return null;
  const row = OVERRIDES_OF.get(db, { storeId });
  return row?.overrides ?? null;
}

/** Saves a store's overrides whole; none left drops its row. */
export function writeStoreOverrides(
  db: Db,
  storeId: string,
  overrides: DecisionSettingsPatch,
  at: string,
): void {
  if (Object.keys(overrides).length === 0) {
    DROP_OVERRIDES.run(db, { storeId });
    return;
  }
  PUT_OVERRIDES.run(db, { storeId, overrides: JSON.stringify(overrides), at });
}

// ---------- a test's own plan ----------

export type TestPlan = {
  /** null: cleared after launch (the store's or the global planned length applies from dataThrough on). */
  plannedDays: number | null;
  setAt: string;
  /** 'YYYY-MM-DD': the last day of data the test had when the plan was set; null when it had none. */
  dataThrough: string | null;
  /** The planned length in effect before, when dataThrough is set. */
  previousDays: number | null;
};

type PlanKey = { storeId: string; testId: string };

const PLAN = read<TestPlan, PlanKey>(
  `SELECT planned_days AS plannedDays, set_at AS setAt, data_through AS dataThrough, previous_days AS previousDays
   FROM user.test_plans WHERE store_id = @storeId AND test_id = @testId`,
);
const PLANS_OF = read<{ testId: string; plannedDays: number | null }, { storeId: string }>(
  `SELECT test_id AS testId, planned_days AS plannedDays FROM user.test_plans
   WHERE store_id = @storeId ORDER BY test_id`,
);
const DROP_PLAN = write<PlanKey>(
  `DELETE FROM user.test_plans WHERE store_id = @storeId AND test_id = @testId`,
);
const PUT_PLAN = write<PlanKey & TestPlan>(
  `INSERT INTO user.test_plans (store_id, test_id, planned_days, set_at, data_through, previous_days)
   VALUES (@storeId, @testId, @plannedDays, @setAt, @dataThrough, @previousDays)
   ON CONFLICT (store_id, test_id) DO UPDATE SET planned_days = excluded.planned_days,
     set_at = excluded.set_at, data_through = excluded.data_through, previous_days = excluded.previous_days`,
);

export function readTestPlan(db: Db, storeId: string, testId: string): TestPlan | null {
  if (!hasDecisionData(db)) return null;
  return PLAN.get(db, { storeId, testId }) ?? null;
}

/** Each test's own planned length in a store (the tests with a plan row). */
export function testPlansOf(
  db: Db,
  storeId: string,
): { testId: string; plannedDays: number | null }[] {
  if (!hasDecisionData(db)) return [];
  return PLANS_OF.all(db, { storeId });
}

/** Records a test's plan, or forgets it (null). */
export function writeTestPlan(
  db: Db,
  storeId: string,
  testId: string,
  plan: TestPlan | null,
): void {
  if (plan === null) DROP_PLAN.run(db, { storeId, testId });
  else PUT_PLAN.run(db, { storeId, testId, ...plan });
}

/**
 * The plan columns of `p` (user.test_plans LEFT JOINed to tests `t`), and `key`: the SQL text of a
 * plan's key part (core/decisions/basis.ts planKey builds the same text), or NULLs and '' on a
 * connection without the user's decision tables.
 */
export function planJoin(db: Db): { columns: string; join: string; key: string } {
  if (!hasDecisionData(db)) {
    return {
      columns: 'NULL AS plannedDays, NULL AS setAt, NULL AS dataThrough, NULL AS previousDays',
      join: '',
      key: "''",
    };
  }
  return {
    columns:
      'p.planned_days AS plannedDays, p.set_at AS setAt, p.data_through AS dataThrough, p.previous_days AS previousDays',
    join: 'LEFT JOIN user.test_plans p ON p.store_id = t.store_id AND p.test_id = t.id',
    key: `CASE WHEN p.store_id IS NULL THEN '' ELSE '|' || coalesce(p.planned_days, '-') || '@' || coalesce(p.data_through, '-') || '/' || coalesce(p.previous_days, '-') END`,
  };
}

// ---------- the history of changes ----------

/** A row of user.decision_history: the settings a scope (NULL: global) held before a change. */
export type HistoryRow = {
  id: number;
  storeId: string | null;
  effectiveFrom: string;
  before: string;
};

const HISTORY = read<HistoryRow, { storeId: string }>(
  `SELECT id, store_id AS storeId, effective_from AS effectiveFrom, before FROM user.decision_history
   WHERE store_id IS NULL OR store_id = @storeId ORDER BY id`,
);
const HISTORY_VERSION = read<{ g: number | null; s: number | null }, { storeId: string }>(
  `SELECT (SELECT max(id) FROM user.decision_history WHERE store_id IS NULL) AS g,
          (SELECT max(id) FROM user.decision_history WHERE store_id = @storeId) AS s`,
);
const ADD_HISTORY = write<{
  storeId: string | null;
  effectiveFrom: string;
  before: string;
  at: string;
}>(
  `INSERT INTO user.decision_history (store_id, effective_from, before, changed_at)
   VALUES (@storeId, @effectiveFrom, @before, @at)`,
);

/** Whether the user's file has the settings history (user-data migration 11). */
function hasHistory(db: Db): boolean {
  return hasUserData(db) && schemaVersion(db, 'user') >= 11;
}

/** The history rows of the global settings and of one store's, oldest first. */
export function historyRows(db: Db, storeId: string): HistoryRow[] {
  if (!hasHistory(db)) return [];
  return HISTORY.all(db, { storeId });
}

/** The newest history row of the global settings and of the store: a basis made before either is stale. */
export function historyVersion(db: Db, storeId: string): string {
  if (!hasHistory(db)) return '';
  const row = HISTORY_VERSION.get(db, { storeId });
  return `${row?.g ?? '-'}:${row?.s ?? '-'}`;
}

/** Records what a scope (null: the global settings) held before a change taking effect on `at`'s day. */
export function recordSettingsChange(
  db: Db,
  storeId: string | null,
  before: string,
  at: string,
): void {
  if (!hasHistory(db)) return;
  ADD_HISTORY.run(db, { storeId, effectiveFrom: at.slice(0, 10), before, at });
}
