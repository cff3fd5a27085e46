// Where a test's call is made (callFor: the one place, pure, no I/O), and the call as the cache keeps it.
// The sync's results write (results.ts), the refresh (makeCall here, from the facts kept beside the
// results, on the calls thread or in place; from the results in stale.ts) and a plan's change (make.ts)
// all make it here; the writer stores what comes back (db/cache/decisions.ts).
import {
  decideFrom,
  type Decision,
  type DecisionChoice,
  type DecisionData,
} from '#shared/domain/decisions/index';
import type { StoredCall } from '../db/cache/decisions';
import { parseFacts } from './facts';

/** SQLite has no NaN or infinity (better-sqlite3 would store NaN as NULL anyway): say so. */
function finite(value: number | null | undefined): number | null {
  return value !== null && value !== undefined && Number.isFinite(value) ? value : null;
}

/**
 * A test's call: made from its facts (decisionFacts: nothing a setting changes) with the settings and
 * plan in effect for it (basis.ts decisionInput). Throws what the engine throws.
 */
export function callFor(data: DecisionData, choice: DecisionChoice): Decision {
  return decideFrom(data, choice);
}

export function storedCall(decision: Decision): StoredCall {
  return {
    call: decision.call,
    words: decision.words,
    reason: decision.reason,
    daysToDecision: decision.daysToDecision,
    goalLift: finite(decision.goal?.lift),
    goalPWin: finite(decision.goal?.pWin),
    basis: decision.basis,
    decisionDate: decision.decisionDate,
    lookDate: decision.look?.date ?? null,
    json: JSON.stringify(decision),
  };
}

/** A call to make from a test's kept facts (results_facts' `facts` text and `days` bytes). */
export type CallJob = { seq: number; facts: string; days: Uint8Array; choice: DecisionChoice };

/**
 * What came of a job: the call; or none, with the engine's error; or `unreadable` when the kept facts
 * do not parse (the writer then makes them again from the results).
 */
export type CallAnswer =
  | { seq: number; kind: 'made'; call: StoredCall }
  | { seq: number; kind: 'failed'; error: string }
  | { seq: number; kind: 'unreadable' };

export function makeCall(job: CallJob): CallAnswer {
  const data = parseFacts(job.facts, job.days);
  if (data === undefined) return { seq: job.seq, kind: 'unreadable' };
  try {
    return { seq: job.seq, kind: 'made', call: storedCall(callFor(data, job.choice)) };
  } catch (error) {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return { seq: job.seq, kind: 'failed', error: text };
  }
}
