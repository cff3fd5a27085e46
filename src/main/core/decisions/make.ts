// A test's call made from its record and results (through calls.ts callFor) and written on its row,
// with the facts it was made from: a plan's change (services/decisions.ts) and the refresh (stale.ts).
import type { Test, TestResults } from '#shared/api/index';
import { decisionFacts, type Decision, type DecisionData } from '#shared/domain/decisions/index';
import { writeFacts } from '../db/cache/decision-facts';
import { storeCall } from '../db/cache/decisions';
import type { Db } from '../db/types';
import { readTestPlan, type TestPlan } from '../db/user/decisions';
import { decisionInput, decisionKey, storeBasis, type DecisionBasis } from './basis';
import { callFor, storedCall } from './calls';
import { factsRow } from './facts';

/** A test's call as writeDecision makes it, with its key and the facts it was made from: no I/O. */
export function makeDecision(
  test: Test | null,
  results: TestResults,
  basis: DecisionBasis,
  plan: TestPlan | null,
): { decision: Decision | null; key: string; data: DecisionData | null } {
  const data = test === null ? null : decisionFacts(test, results);
  const decision = data === null ? null : callFor(data, decisionInput(basis, plan));
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
  storeCall(db, seq, decision === null ? null : storedCall(decision), key, at);
}

/**
 * Makes a test's call and writes it on its row (seq): null for a test that cannot have one (no
 * variant, or a record that no longer parses), stored with its key all the same so it is not made
 * again until the settings or the rules change. Given the test's raw JSON (`testJson`, as results are
 * written), the facts the call was made from are kept too (facts.ts).
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
