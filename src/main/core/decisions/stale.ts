// The stale calls a refresh makes again: read a batch of a store's tests whose call is missing or made
// with other settings (db/cache/decisions.ts staleRows), their calls made anywhere (calls.ts makeCall:
// the calls threads, or in place), then written in one short transaction.
import { Test, TestResults } from '#shared/api/index';
import {
  decisionFacts,
  type Decision,
  type DecisionChoice,
  type DecisionData,
} from '#shared/domain/decisions/index';
import { writeFacts } from '../db/cache/decision-facts';
import {
  readPackedResults,
  staleRowCount,
  staleRows,
  storeStaleCall,
  writeRateFits,
  type StaleRow,
} from '../db/cache/decisions';
import type { Db } from '../db/types';
import type { TestPlan } from '../db/user/decisions';
import { unpackJson } from '../db/values';
import { decisionInput, decisionKey, storeBasis } from './basis';
import { callFor, type CallAnswer, type CallJob } from './calls';
import { factsHold, factsRow } from './facts';
import { storeDecision } from './make';
import { rateFitsOf } from './rate-fits';

/** How many calls of a store a refresh has to make now (what its progress counts up to). */
export function staleCount(db: Db, storeId: string): number {
  return staleRowCount(db, storeId, storeBasis(db, storeId).key);
}

function parsed<T>(
  schema: { safeParse(value: unknown): { success: boolean; data?: T } },
  text: string,
): T | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const result = schema.safeParse(value);
  return result.success && result.data !== undefined ? result.data : null;
}

/**
 * The facts a stale row's call is made from, made again from its results (unpacked and validated) and
 * kept, with the rate fits, for the next time. Null for a test that can have no call, or whose records
 * no longer parse.
 */
function remadeFacts(db: Db, storeId: string, row: StaleRow): DecisionData | null {
  const packed = readPackedResults(db, storeId, row.testId);
  const results = packed ? parsed<TestResults>(TestResults, unpackJson(packed)) : null;
  const test = parsed<Test>(Test, row.testJson);
  writeRateFits(
    db,
    storeId,
    row.testId,
    JSON.stringify(results === null ? { control: {}, variant: {} } : rateFitsOf(results)),
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
  const rows = staleRows(db, input.storeId, basis.key, input.afterSeq, input.limit);
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

/** A call made where it is written, from the test's results: null when it can have none or the engine fails (logged). */
function madeFromResults(db: Db, storeId: string, stale: StaleCall): Decision | null {
  try {
    const data = remadeFacts(db, storeId, stale.row);
    return data === null ? null : callFor(data, stale.choice);
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
        if (
          storeStaleCall(db, { storeId: batch.storeId, key: stale.key, row: stale.row }, call, at)
        )
          written += 1;
      }
      return written;
    })
    .immediate();
}
