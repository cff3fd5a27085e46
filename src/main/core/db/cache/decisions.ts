// Decisions in the cache, as rows: each test's call written on its row and in tests_decision, the rate
// fits beside its results, the stale rows a refresh reads, and the lists the Decisions view and the CLI
// read. The calls themselves, their keys and the refresh are core/decisions'.
import { Decision, DecisionCall } from '#shared/contract/decisions';
import type { StoredFacts } from './decision-facts';
import { statement } from '../statements';
import { read, write } from '../sql';
import { packText, unpackText } from '../values';
import type { Db } from '../types';
import { planJoin } from '../user/decisions';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parsed<T>(
  schema: { safeParse(value: unknown): { success: boolean; data?: T } },
  text: string,
): T | null {
  const result = schema.safeParse(parseJson(text));
  return result.success && result.data !== undefined ? result.data : null;
}

// ---------- writing a call ----------

/**
 * A call as a test's row and tests_decision keep it: its columns, and the whole call as JSON (kept
 * packed, cache migration 21) with its look's date beside it.
 */
export type StoredCall = {
  call: DecisionCall;
  words: string;
  reason: string;
  daysToDecision: number | null;
  goalLift: number | null;
  goalPWin: number | null;
  basis: string;
  decisionDate: string | null;
  /** The day of the look the call was made at ('YYYY-MM-DD'), null without one: the portfolio's "decided on". */
  lookDate: string | null;
  json: string;
};

/** A call's columns on the test's row (NULLs when the test has none), its key and when it was made. */
type CallColumns = {
  call: DecisionCall | null;
  words: string | null;
  reason: string | null;
  daysToDecision: number | null;
  goalLift: number | null;
  goalPWin: number | null;
  key: string;
  at: string;
  basis: string | null;
  decisionDate: string | null;
};

/** The SET of a call's columns, shared by the two writes of a call. */
const SET_CALL_COLUMNS = `decision = @call, decision_words = @words, decision_reason = @reason,
    days_to_decision = @daysToDecision, goal_lift = @goalLift, goal_p_win = @goalPWin,
    decision_key = @key, decided_at = @at, decision_basis = @basis, decision_date = @decisionDate`;

const SET_DECISION = write<CallColumns & { seq: number }>(
  `UPDATE tests SET ${SET_CALL_COLUMNS} WHERE seq = @seq`,
);
const SET_DECISION_JSON = write<{ seq: number; packed: Uint8Array; lookDate: string | null }>(`
  INSERT INTO tests_decision (seq, decision_packed, look_date) VALUES (@seq, @packed, @lookDate)
  ON CONFLICT (seq) DO UPDATE SET decision_packed = excluded.decision_packed, look_date = excluded.look_date`);
const DELETE_DECISION_JSON = write<{ seq: number }>(`DELETE FROM tests_decision WHERE seq = @seq`);
const SET_RATE_FITS = write<{ storeId: string; testId: string; rateFits: string }>(
  `UPDATE results SET rate_fits = @rateFits WHERE store_id = @storeId AND test_id = @testId`,
);

/** Keeps a result's rate fits (JSON) on its row. */
export function writeRateFits(db: Db, storeId: string, testId: string, rateFits: string): void {
  SET_RATE_FITS.run(db, { storeId, testId, rateFits });
}

/**
 * Writes a call on the test's row (seq), with its key and when it was made: null for a test that
 * cannot have one, stored with its key all the same so it is not made again until the key changes.
 */
export function storeCall(
  db: Db,
  seq: number,
  call: StoredCall | null,
  key: string,
  at: string,
): void {
  SET_DECISION.run(db, { ...callColumns(call, key, at), seq });
  writeCallJson(db, seq, call);
}

/** A call's columns (NULLs when the test has none), its key and time. */
function callColumns(call: StoredCall | null, key: string, at: string): CallColumns {
  return {
    call: call?.call ?? null,
    words: call?.words ?? null,
    reason: call?.reason ?? null,
    daysToDecision: call?.daysToDecision ?? null,
    goalLift: call?.goalLift ?? null,
    goalPWin: call?.goalPWin ?? null,
    key,
    at,
    basis: call?.basis ?? null,
    decisionDate: call?.decisionDate ?? null,
  };
}

function writeCallJson(db: Db, seq: number, call: StoredCall | null): void {
  if (call === null) DELETE_DECISION_JSON.run(db, { seq });
  else SET_DECISION_JSON.run(db, { seq, packed: packText(call.json), lookDate: call.lookDate });
}

// ---------- stale calls ----------

/** A test whose call is missing or stale, as a refresh reads it. */
export type StaleRow = StoredFacts & {
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
 * the one the settings give now: `basisKey` and the test's plan), or whose results lack their rate
 * fits, in seq order.
 */
export function staleRows(
  db: Db,
  storeId: string,
  basisKey: string,
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
    LIMIT @limit`;
  return statement<StaleRow>(db, sql).all({ storeId, afterSeq, basisKey, limit });
}

/**
 * The stale tests of a store after a seq (parameters @storeId, @afterSeq and @basisKey, the basis'
 * key): missing or stale calls, or results without their rate fits. `joins` adds what a reader takes
 * besides.
 */
function staleTests(plan: ReturnType<typeof planJoin>, joins = ''): string {
  return `FROM tests t
    JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id
    ${joins}
    ${plan.join}
    WHERE t.store_id = @storeId AND t.seq > @afterSeq
      AND (t.decision_key IS NULL OR t.decision_key IS NOT (@basisKey || ${plan.key}) OR r.rate_fits IS NULL)`;
}

/** How many tests of a store have a stale call by `basisKey` (what a refresh's progress counts up to). */
export function staleRowCount(db: Db, storeId: string, basisKey: string): number {
  const sql = `SELECT count(*) AS n ${staleTests(planJoin(db))}`;
  return statement<{ n: number }>(db, sql).get({ storeId, afterSeq: 0, basisKey })?.n ?? 0;
}

const SELECT_RESULTS_PACKED = read<{ packed: Uint8Array }, { storeId: string; testId: string }>(
  `SELECT raw_packed AS packed FROM results_raw WHERE store_id = @storeId AND test_id = @testId`,
);

/** A test's results as results_raw keeps them (packJson), or null when it has none. */
export function readPackedResults(db: Db, storeId: string, testId: string): Uint8Array | null {
  return SELECT_RESULTS_PACKED.get(db, { storeId, testId })?.packed ?? null;
}

/**
 * A call of a refresh is written only while its row still needs it: its call is not already one made
 * with this key (a sync wrote the test's newer results and their call meanwhile), and the facts it
 * was made from are still the ones kept (its results or record did not change since it was read).
 */
const SET_STALE_DECISION = write<
  CallColumns & {
    seq: number;
    storeId: string;
    testId: string;
    factsVersion: string | null;
    testHash: string | null;
    facts: string | null;
    days: Uint8Array | null;
  }
>(`
  UPDATE tests SET ${SET_CALL_COLUMNS}
  WHERE seq = @seq AND decision_key IS NOT @key
    AND EXISTS (SELECT 1 FROM results_facts f WHERE f.store_id = @storeId AND f.test_id = @testId
      AND f.version IS @factsVersion AND f.test_hash IS @testHash AND f.facts IS @facts AND f.days IS @days)`);

/**
 * Writes a call made from a stale row's kept facts, only while the row still needs it (SET_STALE_DECISION);
 * whether it was written.
 */
export function storeStaleCall(
  db: Db,
  stale: { storeId: string; key: string; row: StaleRow },
  call: StoredCall | null,
  at: string,
): boolean {
  const { row } = stale;
  const changes = SET_STALE_DECISION.run(db, {
    ...callColumns(call, stale.key, at),
    seq: row.seq,
    storeId: stale.storeId,
    testId: row.testId,
    factsVersion: row.factsVersion,
    testHash: row.testHash,
    facts: row.facts,
    days: row.days,
  }).changes;
  if (changes === 0) return false;
  writeCallJson(db, row.seq, call);
  return true;
}

// ---------- reads ----------

const DECISION_PACKED = read<{ packed: Uint8Array }, { seq: number }>(
  `SELECT decision_packed AS packed FROM tests_decision WHERE seq = @seq`,
);

/** A test's stored call, or null (none, or written by a version whose shape this one cannot read). */
export function readDecision(db: Db, seq: number): Decision | null {
  const row = DECISION_PACKED.get(db, { seq });
  return row ? parsed<Decision>(Decision, unpackText(row.packed)) : null;
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

const CALLS: ReadonlySet<string> = new Set(DecisionCall.options);

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
const STORE_POSITIONS = read<{ id: string; position: number }>(`SELECT id, position FROM stores`);

export function storePositions(db: Db): Map<string, number> {
  const rows = STORE_POSITIONS.all(db);
  return new Map(rows.map((row) => [row.id, row.position]));
}

/** The rate fits of a store's results (JSON, two sides each), of tests not removed. */
const STORE_RATE_FITS = read<{ fits: string }, { storeId: string }>(
  `SELECT r.rate_fits AS fits FROM results r
   JOIN tests t ON t.store_id = r.store_id AND t.id = r.test_id AND t.removed = 0
   WHERE r.store_id = @storeId AND r.rate_fits IS NOT NULL`,
);

export function storeRateFitsTexts(db: Db, storeId: string): string[] {
  return STORE_RATE_FITS.all(db, { storeId }).map((row) => row.fits);
}

/** A test's call as its row holds it: the call, its words and the key it was made under. */
export type RowCall = {
  id: string;
  title: string;
  call: string | null;
  words: string | null;
  key: string | null;
};
const ROW_CALLS = read<RowCall, { storeId: string }>(
  `SELECT id, title, decision AS call, decision_words AS words, decision_key AS key
   FROM tests WHERE store_id = @storeId AND removed = 0`,
);
/** Every listed test's call at the store (a sync's before and after). */
export const rowCallsOf = (db: Db, storeId: string): RowCall[] => ROW_CALLS.all(db, { storeId });
