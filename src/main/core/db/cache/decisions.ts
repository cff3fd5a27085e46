// Decisions in the cache: each test's call on its goal (shared/domain/decisions), made with the settings
// in effect for it and written beside its results; the key that finds a stale call in SQL; the settings
// themselves (global, per store, a test's own plan, all in the user's file); and the reads of them.
import { createHash } from 'node:crypto';
import { Test, TestResults } from '#shared/api/index';
import type { DecisionCall } from '#shared/domain/decisions/index';
import {
  CALL_ORDER,
  DECISION_CALLS,
  needsCall,
  DECISION_RULES_VERSION,
  DEFAULT_DECISION_SETTINGS,
  Decision,
  DecisionSettings,
  type DecisionSettingsPatch,
  decideFrom,
  decisionFacts,
  RATE_NAMES,
  sideFits,
  type DecisionChoice,
  type DecisionData,
  type DecisionInput,
  type SideFits,
  type SettingsChange,
} from '#shared/domain/decisions/index';
import { dailySeries } from '#shared/domain/statistics/daily';
import { storedCall, type CallAnswer, type CallJob, type StoredCall } from './decision-calls';
import { factsHold, factsRow, writeFacts, type StoredFacts } from './decision-facts';
import { schemaVersion } from './migrations';
import { readSettingRow, writeSettingRow } from '../user/settings';
import { statement } from '../statements';
import type { Db } from '../types';
import { hasUserData } from '../user/attached';
import { unpackJson } from '../values';

// ---------- settings ----------

/** The row of user.settings that holds the global decision settings. */
export const DECISION_SETTINGS_KEY = 'decisions';

/** Every setting's name, in the schema's order: the order the key hashes them in. */
const SETTING_NAMES = DecisionSettings.keyof().options;

/** Whether the user's file has the decision tables (user-data migration 4): bare caches and old read-only files do not. */
function hasDecisionData(db: Db): boolean {
  return hasUserData(db) && schemaVersion(db, 'user') >= 4;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Any of the settings, each optional (built once: a refresh step reads the settings every time). */
const SettingsPatch = DecisionSettings.partial();

/** The valid settings of a stored JSON object; a value this version cannot read (a newer one's, say) is left out. */
function readPatch(text: string): DecisionSettingsPatch {
  const value = parseJson(text);
  if (typeof value !== 'object' || value === null) return {};
  const patch: DecisionSettingsPatch = {};
  for (const name of SETTING_NAMES) {
    const parsed = SettingsPatch.safeParse({
      [name]: (value as Record<string, unknown>)[name],
    });
    if (parsed.success && parsed.data[name] !== undefined)
      Object.assign(patch, { [name]: parsed.data[name] });
  }
  return patch;
}

/** The global decision settings, defaults standing in for any never set or unreadable. */
export function readGlobalDecisionSettings(db: Db): DecisionSettings {
  return globalSettingsOf(globalSettingsText(db));
}

/** The stored JSON of the global decision settings; null when never set. */
function globalSettingsText(db: Db): string | null {
  // user.settings came with user-data migration 3; an older file opened read-only has none.
  if (!hasUserData(db) || schemaVersion(db, 'user') < 3) return null;
  return readSettingRow(db, DECISION_SETTINGS_KEY);
}

function globalSettingsOf(text: string | null): DecisionSettings {
  return { ...DEFAULT_DECISION_SETTINGS, ...(text !== null ? readPatch(text) : {}) };
}

export function writeGlobalDecisionSettings(db: Db, settings: DecisionSettings, at: string): void {
  writeSettingRow(db, DECISION_SETTINGS_KEY, settings, at);
}

/** Each store's own overrides (only stores that have some). */
export function readStoreOverrides(db: Db): Map<string, DecisionSettingsPatch> {
  if (!hasDecisionData(db)) return new Map();
  const rows = statement<{ storeId: string; overrides: string }>(
    db,
    `SELECT store_id AS storeId, overrides FROM user.decision_overrides`,
  ).all();
  return new Map(rows.map((row) => [row.storeId, readPatch(row.overrides)]));
}

/** The stored JSON of a store's overrides; null when it has none. */
function storeOverrideText(db: Db, storeId: string): string | null {
  if (!hasDecisionData(db)) return null;
  const row = statement<{ overrides: string }>(
    db,
    `SELECT overrides FROM user.decision_overrides WHERE store_id = ?`,
  ).get(storeId);
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
    statement(db, `DELETE FROM user.decision_overrides WHERE store_id = ?`).run(storeId);
    return;
  }
  statement(
    db,
    `INSERT INTO user.decision_overrides (store_id, overrides, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (store_id) DO UPDATE SET overrides = excluded.overrides, updated_at = excluded.updated_at`,
  ).run(storeId, JSON.stringify(overrides), at);
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

export function readTestPlan(db: Db, storeId: string, testId: string): TestPlan | null {
  if (!hasDecisionData(db)) return null;
  return (
    statement<TestPlan>(
      db,
      `SELECT planned_days AS plannedDays, set_at AS setAt, data_through AS dataThrough, previous_days AS previousDays
       FROM user.test_plans WHERE store_id = ? AND test_id = ?`,
    ).get(storeId, testId) ?? null
  );
}

/** Records a test's plan, or forgets it (null). */
export function writeTestPlan(
  db: Db,
  storeId: string,
  testId: string,
  plan: TestPlan | null,
): void {
  if (plan === null) {
    statement(db, `DELETE FROM user.test_plans WHERE store_id = ? AND test_id = ?`).run(
      storeId,
      testId,
    );
    return;
  }
  statement(
    db,
    `INSERT INTO user.test_plans (store_id, test_id, planned_days, set_at, data_through, previous_days)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (store_id, test_id) DO UPDATE SET planned_days = excluded.planned_days,
       set_at = excluded.set_at, data_through = excluded.data_through, previous_days = excluded.previous_days`,
  ).run(storeId, testId, plan.plannedDays, plan.setAt, plan.dataThrough, plan.previousDays);
}

// ---------- what a call is made with, and its key ----------

/** The settings a store's tests are decided with (global ⊕ the store's overrides) and the key part they give. */
export type DecisionBasis = {
  settings: DecisionSettings;
  /** Where plannedDays comes from for a test without a plan of its own. */
  plannedFrom: 'store' | 'setting';
  /** The changes of those settings over time (user.decision_history), oldest first: each test applies those after its first day of data. */
  changes: SettingsChange[];
  /** The rules' version and a hash of the above: the first part of every key made with them. */
  key: string;
};

/** A row of user.decision_history: the settings a scope (NULL: global) held before a change. */
export type HistoryRow = { id: number; storeId: string | null; effectiveFrom: string; before: string };

function mergedSettings(global: DecisionSettings, overrides: DecisionSettingsPatch): DecisionSettings {
  const merged = { ...global, ...overrides };
  return Object.fromEntries(SETTING_NAMES.map((name) => [name, merged[name]])) as DecisionSettings;
}

/**
 * The changes a history gives, oldest first: walking back from the current settings, each row says what
 * its scope held before; changes on one day are one (from the day's first); a change that left the
 * store's settings as they were is none.
 */
export function changesOf(
  global: DecisionSettings,
  overrides: DecisionSettingsPatch,
  history: readonly HistoryRow[],
): SettingsChange[] {
  let g = global;
  let o = overrides;
  const byDay = new Map<string, SettingsChange>();
  const rows = [...history].sort((a, b) => b.id - a.id);
  for (const row of rows) {
    if (row.storeId === null) g = globalSettingsOf(row.before);
    else o = readPatch(row.before);
    byDay.set(row.effectiveFrom, {
      from: row.effectiveFrom,
      settings: mergedSettings(g, o),
      planSource: o.plannedDays === undefined ? 'setting' : 'store',
      source: row.storeId === null ? 'settings' : 'store',
    });
  }
  const changes = [...byDay.values()].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const now = mergedSettings(global, overrides);
  return changes.filter((change, k) => JSON.stringify(change.settings) !== JSON.stringify(changes[k + 1]?.settings ?? now));
}

export function decisionBasis(
  global: DecisionSettings,
  overrides: DecisionSettingsPatch = {},
  history: readonly HistoryRow[] = [],
): DecisionBasis {
  const settings = mergedSettings(global, overrides);
  const plannedFrom = overrides.plannedDays === undefined ? 'setting' : 'store';
  const changes = changesOf(global, overrides, history);
  const hash = createHash('sha256')
    .update(JSON.stringify([settings, plannedFrom, changes]))
    .digest('base64url')
    .slice(0, 16);
  return { settings, plannedFrom, changes, key: `${DECISION_RULES_VERSION}:${hash}` };
}

/** Whether the user's file has the settings history (user-data migration 11). */
function hasHistory(db: Db): boolean {
  return hasUserData(db) && schemaVersion(db, 'user') >= 11;
}

/** The history rows of the global settings and of one store's, oldest first. */
export function historyRows(db: Db, storeId: string): HistoryRow[] {
  if (!hasHistory(db)) return [];
  return statement<HistoryRow>(
    db,
    `SELECT id, store_id AS storeId, effective_from AS effectiveFrom, before FROM user.decision_history
     WHERE store_id IS NULL OR store_id = ? ORDER BY id`,
  ).all(storeId);
}

/** The newest history row of the global settings and of the store: a basis made before either is stale. */
function historyVersion(db: Db, storeId: string): string {
  if (!hasHistory(db)) return '';
  const row = statement<{ g: number | null; s: number | null }>(
    db,
    `SELECT (SELECT max(id) FROM user.decision_history WHERE store_id IS NULL) AS g,
            (SELECT max(id) FROM user.decision_history WHERE store_id = ?) AS s`,
  ).get(storeId);
  return `${row?.g ?? '-'}:${row?.s ?? '-'}`;
}

/** Records what a scope (null: the global settings) held before a change taking effect on `at`'s day. */
export function recordSettingsChange(db: Db, storeId: string | null, before: string, at: string): void {
  if (!hasHistory(db)) return;
  statement(
    db,
    `INSERT INTO user.decision_history (store_id, effective_from, before, changed_at) VALUES (?, ?, ?, ?)`,
  ).run(storeId, at.slice(0, 10), before, at);
}

/** The stored text of the global settings and of a store's overrides, as a change records them. */
export function settingsTexts(db: Db, storeId: string | null): string {
  if (storeId === null) return JSON.stringify(readGlobalDecisionSettings(db));
  return storeOverrideText(db, storeId) ?? '{}';
}

/**
 * Bases already made, by the stored texts they were made from: each results write reads its store's
 * basis, and parsing, checking and hashing the same two texts again cost more than the call's SQL.
 */
const madeBases = new Map<string, DecisionBasis>();
/** Distinct settings seen by one process stay few; past this the memo starts afresh. */
const MADE_BASES_MAX = 256;

/** The basis of one store's calls, read from the user's file. */
export function storeBasis(db: Db, storeId: string): DecisionBasis {
  const global = globalSettingsText(db);
  const override = storeOverrideText(db, storeId);
  const memoKey = JSON.stringify([global, override, historyVersion(db, storeId)]);
  const made = madeBases.get(memoKey);
  if (made) return made;
  if (madeBases.size >= MADE_BASES_MAX) madeBases.clear();
  const basis = decisionBasis(
    globalSettingsOf(global),
    override === null ? {} : readPatch(override),
    historyRows(db, storeId),
  );
  // Shared by every caller from now on: none may change it.
  Object.freeze(basis.settings);
  madeBases.set(memoKey, Object.freeze(basis));
  return basis;
}

/** The key part of a test's own plan; PLAN_KEY_SQL builds the same text in SQL. */
function planKey(plan: TestPlan | null): string {
  if (plan === null) return '';
  return `|${plan.plannedDays ?? '-'}@${plan.dataThrough ?? '-'}/${plan.previousDays ?? '-'}`;
}

/** planKey of the row `p` of user.test_plans (LEFT JOINed: no row, no part). */
const PLAN_KEY_SQL = `CASE WHEN p.store_id IS NULL THEN '' ELSE '|' || coalesce(p.planned_days, '-') || '@' || coalesce(p.data_through, '-') || '/' || coalesce(p.previous_days, '-') END`;

/** The key a test's call is made with: a stored call with another key is stale. */
export function decisionKey(basis: DecisionBasis, plan: TestPlan | null): string {
  return basis.key + planKey(plan);
}

/** decideTest's input for a test: its own plan first, then the store's planned length, then the global one. */
export function decisionInput(
  basis: DecisionBasis,
  plan: TestPlan | null,
): Pick<DecisionInput, 'settings' | 'planSource' | 'changes'> {
  const own = plan?.plannedDays ?? null;
  const settings = own === null ? basis.settings : { ...basis.settings, plannedDays: own };
  // A plan of its own set before the test had data was its plan throughout, whatever the store's said.
  const ownThroughout = own !== null && plan?.dataThrough === null;
  const changes: SettingsChange[] = basis.changes.map((change) =>
    ownThroughout ? { ...change, settings: { ...change.settings, plannedDays: own }, planSource: 'test' } : change,
  );
  if (plan !== null && plan.dataThrough !== null && plan.previousDays !== null) {
    changes.push({
      from: dayAfter(plan.dataThrough),
      settings: { ...basis.settings, plannedDays: plan.previousDays },
      planSource: basis.plannedFrom,
      source: 'test',
    });
  }
  return { settings, planSource: own === null ? basis.plannedFrom : 'test', changes };
}

/** The 'YYYY-MM-DD' after a 'YYYY-MM-DD'. */
function dayAfter(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** 'YYYY-MM-DD' of the last day of data in the results, or null when they hold none. */
export function lastDataDate(results: TestResults): string | null {
  const { days } = dailySeries(results.daily);
  return days.at(-1)?.date ?? null;
}

// ---------- writing a call ----------

const SET_DECISION = `
  UPDATE tests SET decision = ?, decision_words = ?, decision_reason = ?, days_to_decision = ?,
    goal_lift = ?, goal_p_win = ?, decision_key = ?, decided_at = ?, decision_basis = ?, decision_date = ?
  WHERE seq = ?`;
const SET_DECISION_JSON = `
  INSERT INTO tests_decision (seq, decision_json) VALUES (?, ?)
  ON CONFLICT (seq) DO UPDATE SET decision_json = excluded.decision_json`;
const DELETE_DECISION_JSON = `DELETE FROM tests_decision WHERE seq = ?`;
const SET_RATE_FITS = `UPDATE results SET rate_fits = ? WHERE store_id = ? AND test_id = ?`;

/** What the cache keeps of a result's sides to learn the store's rate readings. */
export type RateFits = { control: SideFits; variant: SideFits };

export function rateFitsOf(results: TestResults): RateFits {
  return { control: sideFits(results.control), variant: sideFits(results.variant) };
}

/** Keeps a result's rate fits (JSON of rateFitsOf) on its row. */
export function writeRateFits(db: Db, storeId: string, testId: string, rateFits: string): void {
  statement(db, SET_RATE_FITS).run(rateFits, storeId, testId);
}

/**
 * Makes a test's call and writes it on its row (seq): null for a test that cannot have one (no
 * variant, or a record that no longer parses), stored with its key all the same so it is not made
 * again until the settings or the rules change. Given the test's raw JSON (`testJson`, as results are
 * written), the facts the call was made from are kept too (db/decision-facts.ts).
 */
export function writeDecision(
  db: Db,
  target: { seq: number; storeId: string; testId: string; testJson?: string },
  test: Test | null,
  results: TestResults,
  at: string,
  basis: DecisionBasis = storeBasis(db, target.storeId),
): Decision | null {
  const plan = readTestPlan(db, target.storeId, target.testId);
  const made = makeDecision(test, results, basis, plan);
  storeDecision(db, target.seq, made.decision, made.key, at);
  if (test !== null && target.testJson !== undefined)
    writeFacts(db, target.storeId, target.testId, factsRow(target.testJson, made.data));
  return made.decision;
}

/** A test's call as writeDecision makes it, with its key and the facts it was made from: no I/O. */
export function makeDecision(
  test: Test | null,
  results: TestResults,
  basis: DecisionBasis,
  plan: TestPlan | null,
): { decision: Decision | null; key: string; data: DecisionData | null } {
  const data = test === null ? null : decisionFacts(test, results);
  const decision = data === null ? null : decideFrom(data, decisionInput(basis, plan));
  return { decision, key: decisionKey(basis, plan), data };
}

/** Writes a call made by makeDecision on the test's row (seq), with its key and when it was made. */
export function storeDecision(
  db: Db,
  seq: number,
  decision: Decision | null,
  key: string,
  at: string,
): void {
  const call = decision === null ? null : storedCall(decision);
  statement(db, SET_DECISION).run(...callColumns(call, key, at), seq);
  writeCallJson(db, seq, call);
}

/** SET_DECISION's values but the seq: a call's columns (NULLs when the test has none), its key and time. */
function callColumns(call: StoredCall | null, key: string, at: string): unknown[] {
  return [
    call?.call ?? null,
    call?.words ?? null,
    call?.reason ?? null,
    call?.daysToDecision ?? null,
    call?.goalLift ?? null,
    call?.goalPWin ?? null,
    key,
    at,
    call?.basis ?? null,
    call?.decisionDate ?? null,
  ];
}

function writeCallJson(db: Db, seq: number, call: StoredCall | null): void {
  if (call === null) statement(db, DELETE_DECISION_JSON).run(seq);
  else statement(db, SET_DECISION_JSON).run(seq, call.json);
}

// ---------- stale calls ----------

/** The plan columns of `p`, or NULLs on a connection without the user's decision tables. */
function planJoin(db: Db): { columns: string; join: string; key: string } {
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
    key: PLAN_KEY_SQL,
  };
}

type StaleRow = StoredFacts & {
  seq: number;
  testId: string;
  testJson: string;
  /** 1 when the results lack their rate fits. */
  noFits: number;
  plannedDays: number | null;
  setAt: string | null;
  dataThrough: string | null;
  previousDays: number | null;
};

/**
 * Up to `limit` tests of a store after `afterSeq` whose call is missing or stale (its key differs from
 * the one the settings give now), or whose results lack their rate fits, in seq order.
 */
function staleRows(
  db: Db,
  storeId: string,
  basis: DecisionBasis,
  afterSeq: number,
  limit: number,
): StaleRow[] {
  const plan = planJoin(db);
  const sql = `
    SELECT t.seq, t.id AS testId, traw.raw_json AS testJson, r.rate_fits IS NULL AS noFits,
      f.version AS factsVersion, f.test_hash AS testHash, f.facts, f.days, ${plan.columns}
    ${staleTests(
      plan,
      `JOIN tests_raw traw ON traw.seq = t.seq
       LEFT JOIN results_facts f ON f.store_id = r.store_id AND f.test_id = r.test_id`,
    )}
    ORDER BY t.seq
    LIMIT ?`;
  return statement<StaleRow>(db, sql).all(storeId, afterSeq, basis.key, limit);
}

/**
 * The stale tests of a store after a seq (parameters: store id, seq, the basis' key): missing or stale
 * calls, or results without their rate fits. `joins` adds what a reader takes besides.
 */
function staleTests(plan: ReturnType<typeof planJoin>, joins = ''): string {
  return `FROM tests t
    JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id
    ${joins}
    ${plan.join}
    WHERE t.store_id = ? AND t.seq > ?
      AND (t.decision_key IS NULL OR t.decision_key IS NOT (? || ${plan.key}) OR r.rate_fits IS NULL)`;
}

/** How many calls of a store a refresh has to make now (what its progress counts up to). */
export function staleCount(db: Db, storeId: string): number {
  const sql = `SELECT count(*) AS n ${staleTests(planJoin(db))}`;
  return statement<{ n: number }>(db, sql).get(storeId, 0, storeBasis(db, storeId).key)?.n ?? 0;
}

function parsed<T>(
  schema: { safeParse(value: unknown): { success: boolean; data?: T } },
  text: string,
): T | null {
  const result = schema.safeParse(parseJson(text));
  return result.success && result.data !== undefined ? result.data : null;
}

const SELECT_RESULTS_PACKED = `SELECT raw_packed AS packed FROM results_raw WHERE store_id = ? AND test_id = ?`;

/**
 * The facts a stale row's call is made from, made again from its results (unpacked and validated) and
 * kept, with the rate fits, for the next time. Null for a test that can have no call, or whose records
 * no longer parse.
 */
function remadeFacts(db: Db, storeId: string, row: StaleRow): DecisionData | null {
  const packed = statement<{ packed: Uint8Array }>(db, SELECT_RESULTS_PACKED).get(
    storeId,
    row.testId,
  );
  const results = packed ? parsed<TestResults>(TestResults, unpackJson(packed.packed)) : null;
  const test = parsed<Test>(Test, row.testJson);
  statement(db, SET_RATE_FITS).run(
    JSON.stringify(results === null ? { control: {}, variant: {} } : rateFitsOf(results)),
    storeId,
    row.testId,
  );
  if (results === null || test === null) return null;
  const data = decisionFacts(test, results);
  writeFacts(db, storeId, row.testId, factsRow(row.testJson, data));
  return data;
}

/** A stale call as readStaleCalls finds it. */
export type StaleCall = {
  seq: number;
  testId: string;
  /** The key the call is made with: the settings and plan in effect when it was read. */
  key: string;
  choice: DecisionChoice;
  /**
   * How the call is made: from the facts kept beside the results (`facts`: a job for makeCall,
   * anywhere); as none (the kept facts say the test can have no call); or, when no kept facts hold,
   * from the results themselves where the call is written (the facts are made again and kept then).
   */
  from: 'facts' | 'no-call' | 'results';
  row: StaleRow;
};

/** A batch of a store's stale calls, in seq order, and where the next batch starts (null: none left). */
export type StaleCalls = { storeId: string; calls: StaleCall[]; afterSeq: number | null };

/**
 * Up to `limit` missing or stale calls of a store after `afterSeq` (a test's call whose key differs from
 * the one the settings give now, or whose results lack their rate fits): the read half of a refresh.
 * The calls are made anywhere (callJobs, makeCall: the calls threads, or in place), then written by
 * writeStaleCalls.
 */
export function readStaleCalls(
  db: Db,
  input: { storeId: string; afterSeq: number; limit: number },
): StaleCalls {
  const basis = storeBasis(db, input.storeId);
  const rows = staleRows(db, input.storeId, basis, input.afterSeq, input.limit);
  const calls = rows.map((row): StaleCall => {
    const plan: TestPlan | null =
      row.setAt === null
        ? null
        : {
            plannedDays: row.plannedDays,
            setAt: row.setAt,
            dataThrough: row.dataThrough,
            previousDays: row.previousDays,
          };
    const from =
      row.noFits || !factsHold(row, row.testJson)
        ? 'results'
        : row.facts === null
          ? 'no-call'
          : 'facts';
    return {
      seq: row.seq,
      testId: row.testId,
      key: decisionKey(basis, plan),
      choice: decisionInput(basis, plan),
      from,
      row,
    };
  });
  const last = rows[rows.length - 1];
  return {
    storeId: input.storeId,
    calls,
    afterSeq: rows.length === input.limit && last ? last.seq : null,
  };
}

/** The calls of a batch that are made from kept facts: makeCall's jobs, made anywhere. */
export function callJobs(batch: StaleCalls): CallJob[] {
  const jobs: CallJob[] = [];
  for (const { seq, from, row, choice } of batch.calls) {
    if (from === 'facts' && row.facts !== null && row.days !== null)
      jobs.push({ seq, facts: row.facts, days: row.days, choice });
  }
  return jobs;
}

/**
 * A call of a refresh is written only while its row still needs it: its call is not already one made
 * with this key (a sync wrote the test's newer results and their call meanwhile), and the facts it
 * was made from are still the ones kept (its results or record did not change since it was read).
 */
const SET_STALE_DECISION = `
  UPDATE tests SET decision = ?, decision_words = ?, decision_reason = ?, days_to_decision = ?,
    goal_lift = ?, goal_p_win = ?, decision_key = ?, decided_at = ?, decision_basis = ?, decision_date = ?
  WHERE seq = ? AND decision_key IS NOT ?
    AND EXISTS (SELECT 1 FROM results_facts f WHERE f.store_id = ? AND f.test_id = ?
      AND f.version IS ? AND f.test_hash IS ? AND f.facts IS ? AND f.days IS ?)`;

/** A call made where it is written, from the test's results: null when it can have none or the engine fails (logged). */
function madeFromResults(db: Db, storeId: string, stale: StaleCall): Decision | null {
  try {
    const data = remadeFacts(db, storeId, stale.row);
    return data === null ? null : decideFrom(data, stale.choice);
  } catch (error) {
    console.error(`[splitbook] no decision for test ${stale.testId}:`, error);
    return null;
  }
}

/**
 * Writes a batch of stale calls in one immediate transaction, with the answers makeCall gave for its
 * jobs: the write half of a refresh. A job without an answer is left stale; a call from results, or
 * from kept facts that no longer parse, is made here. A call the engine failed on is logged and
 * stored empty with its key, so one bad record is not tried at every refresh. Returns how many calls
 * were written.
 */
export function writeStaleCalls(
  db: Db,
  batch: StaleCalls,
  answers: readonly CallAnswer[],
  at: string,
): number {
  const bySeq = new Map(answers.map((answer) => [answer.seq, answer]));
  return db
    .transaction((): number => {
      let written = 0;
      for (const stale of batch.calls) {
        const answer = stale.from === 'facts' ? bySeq.get(stale.seq) : undefined;
        if (stale.from === 'facts' && answer === undefined) continue;
        if (stale.from === 'results' || answer?.kind === 'unreadable') {
          const decision = madeFromResults(db, batch.storeId, stale);
          storeDecision(db, stale.seq, decision, stale.key, at);
          written += 1;
          continue;
        }
        if (answer?.kind === 'failed')
          console.error(`[splitbook] no decision for test ${stale.testId}:`, answer.error);
        const call = answer?.kind === 'made' ? answer.call : null;
        const { row } = stale;
        const changes = statement(db, SET_STALE_DECISION).run(
          ...callColumns(call, stale.key, at),
          stale.seq,
          stale.key,
          batch.storeId,
          stale.testId,
          row.factsVersion,
          row.testHash,
          row.facts,
          row.days,
        ).changes;
        if (changes === 0) continue;
        writeCallJson(db, stale.seq, call);
        written += 1;
      }
      return written;
    })
    .immediate();
}

// ---------- reads ----------

/** A test's stored call, or null (none, or written by a version whose shape this one cannot read). */
export function readDecision(db: Db, seq: number): Decision | null {
  const row = statement<{ json: string }>(
    db,
    `SELECT decision_json AS json FROM tests_decision WHERE seq = ?`,
  ).get(seq);
  return row ? parsed<Decision>(Decision, row.json) : null;
}

export type DecisionDbRow = {
  storeId: string;
  storeName: string;
  testId: string;
  title: string;
  status: string;
  goal: string;
  call: DecisionCall;
  words: string;
  reason: string;
  basis: string;
  daysToDecision: number | null;
  decisionDate: string | null;
  goalLift: number | null;
  goalPWin: number | null;
  decidedAt: string;
};

/**
 * What the Decisions view draws of a row (contract DecisionLine): the long basis text is left in the
 * cache. Every column is in the covering index `tests_decision_lines` (cache migration 16).
 */
export type DecisionLineDbRow = Pick<
  DecisionDbRow,
  | 'storeId'
  | 'storeName'
  | 'testId'
  | 'title'
  | 'call'
  | 'words'
  | 'reason'
  | 'daysToDecision'
  | 'decisionDate'
  | 'goalLift'
>;

const LINE_COLUMNS = `t.store_id AS storeId, s.name AS storeName, t.id AS testId, t.title,
  t.decision AS call, t.decision_words AS words, t.decision_reason AS reason,
  t.days_to_decision AS daysToDecision, t.decision_date AS decisionDate, t.goal_lift AS goalLift`;

// In the contract's order: the CLI's `--json` prints the rows as they come.
const ROW_COLUMNS = `t.store_id AS storeId, s.name AS storeName, t.id AS testId, t.title, t.status,
  t.goal, t.decision AS call, t.decision_words AS words, t.decision_reason AS reason,
  coalesce(t.decision_basis, '') AS basis, t.days_to_decision AS daysToDecision,
  t.decision_date AS decisionDate, t.goal_lift AS goalLift, t.goal_p_win AS goalPWin,
  t.decided_at AS decidedAt`;

/**
 * The calls of one store (or all): removed tests left out, in no particular order. Walked in the
 * partial index of exactly these rows (migration 16), which also holds every column of a line; named,
 * as the planner would otherwise take `tests_by_removed`, without statistics to tell it better.
 */
function decidedTests(columns: string, storeId: string | null): string {
  return `SELECT ${columns}
     FROM tests t INDEXED BY tests_decision_lines
     JOIN stores s ON s.id = t.store_id
     WHERE t.decision IS NOT NULL AND t.removed = 0${storeId === null ? '' : ' AND t.store_id = @storeId'}`;
}

const CALLS: ReadonlySet<string> = new Set(DECISION_CALLS);

/** Whether the row's stored call is one this version knows (one written by a newer version is left out). */
function knownCall<Row extends { call: string }>(row: Row): row is Row & { call: DecisionCall } {
  return CALLS.has(row.call);
}

/** Every test of one store (or all) with a call, removed tests left out, in no particular order. */
export function decisionRows(db: Db, storeId: string | null): DecisionDbRow[] {
  return statement<Omit<DecisionDbRow, 'call'> & { call: string }>(
    db,
    decidedTests(ROW_COLUMNS, storeId),
  )
    .all(storeId === null ? {} : { storeId })
    .filter(knownCall);
}

/** The SQL decisionLines runs for a scope (its plan is checked by a test: the index alone). */
export function decisionLinesSql(storeId: string | null): string {
  return decidedTests(LINE_COLUMNS, storeId);
}

/** The same calls as decisionRows, each with only what the Decisions view draws on its line. */
export function decisionLines(db: Db, storeId: string | null): DecisionLineDbRow[] {
  return statement<Omit<DecisionLineDbRow, 'call'> & { call: string }>(
    db,
    decisionLinesSql(storeId),
  )
    .all(storeId === null ? {} : { storeId })
    .filter(knownCall);
}

/** Each store's place in the store list (its position), by id: the Decisions view groups calls in it. */
export function storePositions(db: Db): Map<string, number> {
  const rows = statement<{ id: string; position: number }>(
    db,
    `SELECT id, position FROM stores`,
  ).all();
  return new Map(rows.map((row) => [row.id, row.position]));
}

export { CALL_ORDER, needsCall };

/** Every call with a count of zero. */
export function emptyCallCounts(): Record<DecisionCall, number> {
  return Object.fromEntries(DECISION_CALLS.map((call) => [call, 0])) as Record<
    DecisionCall,
    number
  >;
}

/** The rate fits of a store's results, two sides each. */
export function storeRateFits(db: Db, storeId: string): SideFits[] {
  const rows = statement<{ fits: string }>(
    db,
    `SELECT r.rate_fits AS fits FROM results r
     JOIN tests t ON t.store_id = r.store_id AND t.id = r.test_id AND t.removed = 0
     WHERE r.store_id = ? AND r.rate_fits IS NOT NULL`,
  ).all(storeId);
  const sides: SideFits[] = [];
  for (const row of rows) {
    const value = parseJson(row.fits);
    if (typeof value !== 'object' || value === null) continue;
    for (const side of ['control', 'variant'] as const) {
      const fits = (value as Record<string, unknown>)[side];
      if (typeof fits === 'object' && fits !== null) sides.push(sideFitsOf(fits));
    }
  }
  return sides;
}

/** Stored fits as SideFits: only lists of reading keys of the rates Splitbook knows. */
function sideFitsOf(value: object): SideFits {
  const out: SideFits = {};
  for (const rate of RATE_NAMES) {
    const keys = (value as Record<string, unknown>)[rate];
    if (Array.isArray(keys))
      out[rate] = keys.filter((key): key is string => typeof key === 'string');
  }
  return out;
}
