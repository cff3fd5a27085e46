// `decisions.*`: one call per test on its goal (shared/domain/decisions), the settings calls are made
// with (global, per store, a test's planned length), the planner for tests not launched yet, and the
// rate readings learnt per store.
import { z } from 'zod';
import {
  CALL_ORDER,
  Decision,
  DecisionCall,
  DecisionSettings,
  DecisionSettingsPatch,
  PlannerEstimate,
} from '../domain/decisions/schemas';
import { LearntReading as Reading } from '../domain/decisions/rate-readings';
import { Empty, method, ScopeInput, StoreId, StoreInput } from './common';

// CALL_ORDER: the cache's sort by call (db/cache/test-list.ts) keeps the order the views show.
export {
  CALL_ORDER,
  Decision,
  DecisionCall,
  DecisionSettings,
  DecisionSettingsPatch,
  PlannerEstimate,
};

/** One test's call as the Decisions view and the CLI list it (the full Decision is on the test's detail). */
export const DecisionRow = z.object({
  storeId: StoreId,
  storeName: z.string(),
  testId: z.string(),
  title: z.string(),
  status: z.string(),
  goal: z.string(),
  call: DecisionCall,
  /** "Ship the variant", "Keep running, about 9 days". */
  words: z.string(),
  reason: z.string(),
  basis: z.string(),
  daysToDecision: z.int().nullable(),
  decisionDate: z.string().nullable(),
  /** Splitbook's relative lift of the goal (fraction) and chance the variant wins on it, from the totals. */
  goalLift: z.number().nullable(),
  goalPWin: z.number().nullable(),
  /** When the call was last made (results written or settings changed). */
  decidedAt: z.string(),
});
export type DecisionRow = z.infer<typeof DecisionRow>;

/**
 * One test's call as the Decisions view draws it on its line: the row without the fields the line does
 * not show (the basis line, with every other figure, is on the selected test's detail, from its call).
 */
export const DecisionLine = DecisionRow.pick({
  storeId: true,
  storeName: true,
  testId: true,
  title: true,
  call: true,
  words: true,
  reason: true,
  daysToDecision: true,
  decisionDate: true,
  goalLift: true,
});
export type DecisionLine = z.infer<typeof DecisionLine>;

/** Rows of one kind in the Decisions view's order, with the scope's counts per call. */
function listOf<Row extends z.ZodType>(row: Row) {
  return z.object({
    /** Calls needing the consultant first (grouped by store), then running tests by days to decision. */
    rows: z.array(row),
    /** Tests per call in the scope. */
    counts: z.record(DecisionCall, z.int()),
    /** Tests that need a call now (every call but keep_running). */
    needCall: z.int(),
  });
}

export const DecisionList = listOf(DecisionRow);
export type DecisionList = z.infer<typeof DecisionList>;

export const DecisionLines = listOf(DecisionLine);
export type DecisionLines = z.infer<typeof DecisionLines>;

/** The settings calls are made with: global, and each store's own overrides. */
export const DecisionSettingsView = z.object({
  global: DecisionSettings,
  stores: z.array(
    z.object({
      storeId: StoreId,
      storeName: z.string(),
      overrides: DecisionSettingsPatch,
      effective: DecisionSettings,
    }),
  ),
});
export type DecisionSettingsView = z.infer<typeof DecisionSettingsView>;

export const SetDecisionSettingsInput = z.object({
  /** null: the global settings. */
  storeId: StoreId.nullable().default(null),
  patch: DecisionSettingsPatch,
  /** For a store: overrides to drop, so the global value applies again. */
  clear: z.array(DecisionSettings.keyof()).default([]),
});

export const SetPlanInput = z.object({
  storeId: StoreId,
  testId: z.string().max(64),
  /** null: no plan of this test's own (the store's or the global planned length applies). */
  plannedDays: z.int().min(7).max(365).nullable(),
});

export const PlannerInput = z.object({
  storeId: StoreId,
  /** The goal to plan for, any spelling. */
  goal: z.string().max(200),
  /** Overrides the settings' minimum effect, to try another in place. */
  minEffect: z.number().min(0.005).max(0.5).nullable().default(null),
});

/** Calls a sync changed since the user last looked at the Decisions view: the view's badge. */
export const DecisionNews = z.object({
  count: z.int().nonnegative(),
  byStore: z.record(z.string(), z.int().nonnegative()),
});
export type DecisionNews = z.infer<typeof DecisionNews>;

/** A background sync changed calls of a store: the user is told once (a notification or a toast). */
export const DecisionsReady = z.object({
  storeId: StoreId,
  storeName: z.string(),
  /** Tests whose call changed to one that needs the consultant, at most MAX_READY_LISTED of them. */
  tests: z.array(
    z.object({ testId: z.string(), title: z.string(), call: DecisionCall, words: z.string() }),
  ),
  /** Every such test, listed or not. */
  count: z.int().positive(),
});
export type DecisionsReady = z.infer<typeof DecisionsReady>;
export const MAX_READY_LISTED = 20;

/**
 * Calls being made again in the background (a settings or plan change, or calls of an older version at
 * start-up), told once that has taken over a second: `done` of `total` so far, `total` being the stale
 * calls counted when it started (or more, if a sync made more stale meanwhile). The last event of a
 * refresh has `done` equal to `total`.
 */
export const DecisionsProgress = z.object({
  storeId: StoreId.nullable(),
  done: z.int().nonnegative(),
  total: z.int().nonnegative(),
});
export type DecisionsProgress = z.infer<typeof DecisionsProgress>;

export const decisions = {
  /** Every call with all of its row's fields (the CLI's `decisions`, its `--json`). */
  list: method(ScopeInput, DecisionList),
  /** What the Decisions view shows: the same calls in the same order, each as its line. */
  lines: method(ScopeInput, DecisionLines),
  settings: method(Empty, DecisionSettingsView),
  setSettings: method(SetDecisionSettingsInput, DecisionSettingsView),
  /** A test's own planned length; recorded with its date when the test already has data. */
  setPlan: method(SetPlanInput, Decision.nullable()),
  planner: method(PlannerInput, PlannerEstimate.nullable()),
  /** How the store's rates read, learnt from its own results. */
  readings: method(StoreInput, z.array(Reading)),
  /** How many calls changed since the user last looked (all stores, or one). */
  news: method(ScopeInput, DecisionNews),
  /** The user looked at the Decisions view of the scope: its changes are no longer news. */
  seen: method(ScopeInput, DecisionNews),
};
