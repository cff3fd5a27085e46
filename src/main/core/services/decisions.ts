// `decisions.*`: the calls on every test's goal (made when results are written, core/decisions), the
// settings they are made with (global, per store, a test's own plan), the planner and the rate readings.
import type {
  CoreEvent,
  DecisionCall,
  DecisionSettingsView,
  Services,
} from '#shared/contract/index';
import { SetDecisionSettingsInput, SetPlanInput } from '#shared/contract/decisions';
import { Test, type TestResults } from '#shared/api/index';
import {
  DecisionSettings,
  decideTest,
  learnReadings,
  type Decision,
  type DecisionSettingsPatch,
} from '#shared/domain/decisions/index';
import { metricOfGoal } from '#shared/domain/metrics';
import { problem } from '#shared/problem';
import { summarizeIssues } from '#shared/validation';
import { CALL_ORDER, emptyCallCounts, needsCall } from '../decisions/order';
import {
  decisionBasis,
  decisionInput,
  lastDataDate,
  readGlobalDecisionSettings,
  readStoreOverrides,
  settingsTexts,
  storeBasis,
  type DecisionBasis,
} from '../decisions/basis';
import {
  decisionLines,
  decisionRows,
  storePositions,
  type DecisionLineDbRow,
} from '../db/cache/decisions';
import {
  readTestPlan,
  recordSettingsChange,
  writeGlobalDecisionSettings,
  writeStoreOverrides,
  writeTestPlan,
  type TestPlan,
} from '../db/user/decisions';
import { storeRateFits } from '../decisions/rate-fits';
import { writeDecision } from '../decisions/make';
import { canWriteBackground, clearDecisionNews, decisionNews } from '../db/user/background';
import { getResults } from '../db/cache/reads';
import { getStoreRow, listStoreRows } from '../db/cache/stores';
import { hasUserData } from '../db/user/attached';
import type { Db } from '../db/types';
import { readTestRaw } from '../db/cache/results';
import type { DecisionRefresh } from '../decisions/refresh';
import { plannerAt, storeTraffic } from '../decisions/store-traffic';
import type { SharedDecisions } from '../team/settings';

export interface DecisionsServiceDeps {
  db: Db;
  clock: () => number;
  emit(event: CoreEvent): void;
  refresh: DecisionRefresh;
  /** A shared store's overrides and plans go to the team layer too, and come from it (team/settings.ts). */
  shared?: SharedDecisions;
}

export function createDecisionsService(deps: DecisionsServiceDeps): Services['decisions'] {
  const { db, clock, emit, refresh, shared } = deps;

  function requireStore(storeId: string) {
    const store = getStoreRow(db, storeId);
    if (!store) throw problem('notFound', 404, 'Store not found', `No store with id ${storeId}.`);
    return store;
  }

  function requireWritable(what: string): void {
    if (!hasUserData(db) || db.readonly) {
      throw problem(
        'readOnly',
        409,
        `${what} cannot be saved`,
        'The data folder cannot be written, so the decision settings keep their current values.',
      );
    }
  }

  function view(): DecisionSettingsView {
    const global = readGlobalDecisionSettings(db);
    const overrides = readStoreOverrides(db);
    return {
      global,
      stores: listStoreRows(db).map((store) => {
        const own = overrides.get(store.id) ?? {};
        return {
          storeId: store.id,
          storeName: store.name,
          overrides: own,
          effective: decisionBasis(global, own).settings,
        };
      }),
    };
  }

  /** A store's overrides written whole (set at `at`, here or by a colleague), its calls made again. */
  function applyOverrides(storeId: string, overrides: DecisionSettingsPatch, at: string): void {
    // Kept before it changes: tests with data go on from that day with the budget their plan left.
    recordSettingsChange(db, storeId, settingsTexts(db, storeId), at);
    writeStoreOverrides(db, storeId, overrides, at);
    // Made again a batch at a time; `decisions.changed` tells the window when they are.
    void refresh.request(storeId, true);
  }

  /** A test's own planned length (set at `at`, here or by a colleague) and its call made again. */
  function applyPlan(
    storeId: string,
    testId: string,
    target: { seq: number; test: Test | null },
    plannedDays: number | null,
    at: string,
  ): Decision | null {
    const results = getResults(db, storeId, testId)?.results ?? null;
    const basis = storeBasis(db, storeId);
    const current = readTestPlan(db, storeId, testId);
    const plan = nextPlan({
      current,
      plannedDays,
      at,
      dataThrough: results === null ? null : lastDataDate(results),
      // The plan the call goes by now, and the one it would go by: a plan that moves once the test has
      // data is a change after launch (a test's automatic end, say, is not moved by any plan).
      before:
        results === null || target.test === null
          ? null
          : plannedDaysOf(target.test, results, basis, current),
      after: (candidate) =>
        results === null || target.test === null
          ? null
          : plannedDaysOf(target.test, results, basis, candidate),
    });
    let decision: Decision | null = null;
    db.transaction(() => {
      writeTestPlan(db, storeId, testId, plan);
      if (results !== null)
        decision = writeDecision(
          db,
          { seq: target.seq, storeId, testId },
          target.test,
          results,
          at,
          basis,
        );
    }).immediate();
    emit({ name: 'decisions.changed', payload: { storeId } });
    return decision;
  }

  // A colleague's value from the team layer is written the way this desktop's own is.
  shared?.bind({
    overrides: applyOverrides,
    plan(storeId, testId, plannedDays, at) {
      const target = testRow(db, storeId, testId);
      if (target) applyPlan(storeId, testId, target, plannedDays, at);
      // A test this desktop has not synced yet: its plan waits, its call is made when it comes.
      else
        writeTestPlan(
          db,
          storeId,
          testId,
          plannedDays === null
            ? null
            : { plannedDays, setAt: at, dataThrough: null, previousDays: null },
        );
    },
  });

  return {
    async list({ storeId }) {
      if (storeId !== null) requireStore(storeId);
      // Calls being made again (start-up, a settings change) are waited for: the list is never half old.
      await refresh.idle();
      return decisionList(decisionRows(db, storeId), storePositions(db));
    },

    async lines({ storeId }) {
      if (storeId !== null) requireStore(storeId);
      await refresh.idle();
      return decisionList(decisionLines(db, storeId), storePositions(db));
    },

    settings: async () => view(),

    async setSettings(input) {
      const parsed = SetDecisionSettingsInput.safeParse(input);
      if (!parsed.success) {
        throw problem(
          'validation',
          400,
          'Invalid decision settings',
          summarizeIssues(parsed.error.issues, { root: 'decisions' }),
        );
      }
      const { storeId, patch, clear } = parsed.data;
      const both = clear.filter((key) => patch[key] !== undefined);
      if (both.length > 0) {
        throw problem(
          'validation',
          400,
          'Invalid decision settings',
          `${both.join(', ')}: set and cleared at once.`,
        );
      }
      if (storeId === null && clear.length > 0) {
        throw problem(
          'validation',
          400,
          'Invalid decision settings',
          'Only a store’s overrides can be cleared; the global settings always have a value.',
        );
      }
      if (storeId !== null) requireStore(storeId);
      requireWritable('Decision settings');
      const at = new Date(clock()).toISOString();
      if (storeId === null) {
        // Kept before it changes: tests with data go on from today with the budget their plan left.
        recordSettingsChange(db, storeId, settingsTexts(db, storeId), at);
        writeGlobalDecisionSettings(
          db,
          DecisionSettings.parse({ ...readGlobalDecisionSettings(db), ...patch }),
          at,
        );
        // Made again a batch at a time; `decisions.changed` tells the window when they are.
        void refresh.request(storeId, true);
      } else {
        const overrides: DecisionSettingsPatch = {
          ...readStoreOverrides(db).get(storeId),
          ...patch,
        };
        for (const key of clear) delete overrides[key];
        applyOverrides(storeId, overrides, at);
        shared?.overridesWritten(storeId, overrides);
      }
      return view();
    },

    async setPlan({ storeId, testId, plannedDays }) {
      const parsed = SetPlanInput.safeParse({ storeId, testId, plannedDays });
      if (!parsed.success) {
        throw problem(
          'validation',
          400,
          'Invalid plan',
          summarizeIssues(parsed.error.issues, { root: 'plan' }),
        );
      }
      requireStore(storeId);
      const target = testRow(db, storeId, testId);
      if (!target)
        throw problem('notFound', 404, 'Test not found', `No cached test ${testId} in this store.`);
      requireWritable('The plan');
      const decision = applyPlan(
        storeId,
        testId,
        target,
        plannedDays,
        new Date(clock()).toISOString(),
      );
      shared?.planWritten(storeId, testId, plannedDays);
      return decision;
    },

    async planner({ storeId, goal, minEffect }) {
      requireStore(storeId);
      if (metricOfGoal(goal) === null) return null;
      const basis = storeBasis(db, storeId);
      const settings = minEffect === null ? basis.settings : { ...basis.settings, minEffect };
      return plannerAt(storeTraffic(db, storeId), goal, settings);
    },

    async readings({ storeId }) {
      requireStore(storeId);
      return learnReadings(storeRateFits(db, storeId));
    },

    async news({ storeId }) {
      if (storeId !== null) requireStore(storeId);
      return decisionNews(db, storeId);
    },

    async seen({ storeId }) {
      if (storeId !== null) requireStore(storeId);
      // A read-only data folder cannot forget: the badge stays, which is what the user will see next time too.
      if (canWriteBackground(db)) {
        clearDecisionNews(db, storeId);
        emit({ name: 'decisions.news', payload: decisionNews(db, null) });
      }
      return decisionNews(db, storeId);
    },
  };
}

/** The test's row key and record (null when it no longer parses), or null when it is not cached. */
function testRow(
  db: Db,
  storeId: string,
  testId: string,
): { seq: number; test: Test | null } | null {
  const row = readTestRaw(db, storeId, testId);
  if (!row) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(row.json);
  } catch {
    return { seq: row.seq, test: null };
  }
  const test = Test.safeParse(raw);
  return { seq: row.seq, test: test.success ? test.data : null };
}

/** The planned length a call on the test goes by with this plan of its own (null: it has no call). */
function plannedDaysOf(
  test: Test,
  results: TestResults,
  basis: DecisionBasis,
  plan: TestPlan | null,
): number | null {
  const input = decisionInput(basis, plan);
  return decideTest({ test, results, ...input, changes: [] })?.plan?.plannedDays ?? null;
}

/**
 * The test's plan after setting `plannedDays` (null: none of its own). The first change after the test
 * had data is kept with the date and the plan before it: from then on the call cannot spend its error
 * budget as the launched plan would have, whatever later changes say.
 */
function nextPlan(input: {
  current: TestPlan | null;
  plannedDays: number | null;
  at: string;
  dataThrough: string | null;
  before: number | null;
  after: (plan: TestPlan | null) => number | null;
}): TestPlan | null {
  const { current, plannedDays, at, dataThrough, before } = input;
  const plain: TestPlan | null =
    plannedDays === null ? null : { plannedDays, setAt: at, dataThrough: null, previousDays: null };
  if (current !== null && current.dataThrough !== null) {
    // Undone before any new day of data: no look ever went by the changed plan, so there was no change.
    const undone =
      dataThrough === current.dataThrough && input.after(plain) === current.previousDays;
    return undone ? plain : { ...current, plannedDays, setAt: at };
  }
  const moved = dataThrough !== null && before !== null && input.after(plain) !== before;
  if (!moved) return plain;
  return { plannedDays, setAt: at, dataThrough, previousDays: before };
}

/** What the Decisions view's order reads of a row. */
type Ordered = Pick<DecisionLineDbRow, 'storeId' | 'testId' | 'title' | 'call' | 'daysToDecision'>;

/** The rank of each call in CALL_ORDER, read once a row rather than searched at every comparison. */
const CALL_RANK = new Map(CALL_ORDER.map((call, rank) => [call, rank]));

/** A row with the keys it is sorted on, computed once. */
type Keyed<Row> = { row: Row; position: number; rank: number; days: number };

/**
 * The Decisions view's order: calls needing the consultant by store (its place in the store list), then
 * running tests by days to decision, then paused tests. `positions` is each store's place (storePositions); a row whose
 * store has none is left out, as a join on the stores would.
 */
export function decisionList<Row extends Ordered>(
  rows: readonly Row[],
  positions: ReadonlyMap<string, number>,
): { rows: Row[]; counts: Record<DecisionCall, number>; needCall: number } {
  const counts = emptyCallCounts();
  const needing: Keyed<Row>[] = [];
  const running: Keyed<Row>[] = [];
  for (const row of rows) {
    const position = positions.get(row.storeId);
    if (position === undefined) continue;
    counts[row.call] += 1;
    const keyed = {
      row,
      position,
      rank: CALL_RANK.get(row.call) ?? -1,
      days: row.daysToDecision ?? Number.POSITIVE_INFINITY,
    };
    (needsCall(row.call) ? needing : running).push(keyed);
  }
  const byTitle = (a: Row, b: Row) =>
    a.title.localeCompare(b.title) || (a.testId < b.testId ? -1 : a.testId > b.testId ? 1 : 0);
  const byStore = (a: Keyed<Row>, b: Keyed<Row>) =>
    a.position - b.position ||
    (a.row.storeId < b.row.storeId ? -1 : a.row.storeId > b.row.storeId ? 1 : 0);
  needing.sort((a, b) => byStore(a, b) || a.rank - b.rank || byTitle(a.row, b.row));
  // Running tests by days to decision, paused ones after them (they have no forecast). Two tests
  // without days compare as NaN (∞ − ∞), which is falsy: the store and title decide.
  running.sort(
    (a, b) => a.rank - b.rank || a.days - b.days || byStore(a, b) || byTitle(a.row, b.row),
  );
  const ordered: Row[] = [];
  for (const keyed of needing) ordered.push(keyed.row);
  for (const keyed of running) ordered.push(keyed.row);
  return { rows: ordered, counts, needCall: needing.length };
}
