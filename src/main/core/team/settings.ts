// A shared store's decision settings (its overrides of the global ones) and each test's planned length through the team layer, so every member's desktop makes the same call: a local write goes to the layer too, a value from the layer (the last writer's) is mirrored into the user file and its calls made again, and the window reads who set it and when.
import type * as Y from 'yjs';
import type { TeamDecisionStamps } from '#shared/contract/index';
import type { DecisionSettingsPatch } from '#shared/domain/decisions/index';
import { teamTestIds, TeamValueError, type Actor } from '#shared/team/records';
import { decisionSettingsOf, planOf, setDecisionSettings, setPlan } from '#shared/team/values';
import { readStoreOverrides } from '../decisions/basis';
import type { Db } from '../db/types';
import { hasDecisionData, readTestPlan, testPlansOf } from '../db/user/decisions';
import { linkOfStore, linkOfTeamStore } from '../db/user/team';
import type { Touched } from './views';

/** How the decisions service writes a value the layer holds (services/decisions.ts): user file, history, calls. */
export interface DecisionApplier {
  /** The store's overrides as the layer holds them, set by its writer at `at`; the store's calls made again. */
  overrides(storeId: string, overrides: DecisionSettingsPatch, at: string): void;
  /** The test's own planned length (null: none), set at `at`; the test's call made again. */
  plan(storeId: string, testId: string, plannedDays: number | null, at: string): void;
}

/** What the decisions service calls after its own writes, and what it hands the layer to write with. */
export interface SharedDecisions {
  bind(applier: DecisionApplier): void;
  /** A store's overrides were written here: a shared store's layer takes them (nothing for a solo store). */
  overridesWritten(storeId: string, overrides: DecisionSettingsPatch): void;
  /** A test's own planned length was written here: a shared store's layer takes it. */
  planWritten(storeId: string, testId: string, plannedDays: number | null): void;
}

export interface TeamDecisions extends SharedDecisions {
  /** A transaction on a shared store's document: values it changed that differ here are applied. */
  mirror(storeId: string, doc: Y.Doc, touched: Touched): void;
  /**
   * A store's copy matches the server's (a join's, share's or link's first exchange, and every one
   * after): the layer's values win where it holds any, else this desktop's are written to it. True
   * when something was written to the layer (the exchange is not over: it has to go to the server).
   */
  seed(teamStoreId: string): boolean;
  /** Who set the store's settings and each test's plan, and when (empty for a store not shared). */
  stamps(storeId: string): TeamDecisionStamps;
}

/** The same settings whatever the order their keys were written in. */
function sameSettings(a: DecisionSettingsPatch, b: DecisionSettingsPatch): boolean {
  const canonical = (patch: DecisionSettingsPatch) =>
    JSON.stringify(Object.entries(patch).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  return canonical(a) === canonical(b);
}

export function createTeamDecisions(deps: {
  db: Db;
  docOf(teamStoreId: string): Y.Doc;
  /** The member writing now (throws when no team was joined). */
  actor(): Actor;
}): TeamDecisions {
  const { db } = deps;
  let applier: DecisionApplier | null = null;
  /**
   * Team stores seeded by this process: from then on every local write goes to the layer and every
   * change of it is mirrored, so the walk (about 9 ms over 500 tests) is not made again at each ack.
   */
  const seeded = new Set<string>();
  const writable = () => !db.readonly && hasDecisionData(db);

  function sharedDoc(storeId: string): Y.Doc | null {
    const link = linkOfStore(db, storeId);
    return link ? deps.docOf(link.teamStoreId) : null;
  }

  const localOverrides = (storeId: string) => readStoreOverrides(db).get(storeId) ?? {};
  const localPlan = (storeId: string, testId: string) =>
    readTestPlan(db, storeId, testId)?.plannedDays ?? null;

  function mirrorSettings(storeId: string, doc: Y.Doc): void {
    const shared = decisionSettingsOf(doc);
    if (!shared || !applier || sameSettings(shared.value, localOverrides(storeId))) return;
    applier.overrides(storeId, shared.value, shared.at);
  }

  function mirrorPlan(storeId: string, doc: Y.Doc, testId: string): void {
    const shared = planOf(doc, testId);
    if (!shared || !applier || shared.value === localPlan(storeId, testId)) return;
    applier.plan(storeId, testId, shared.value, shared.at);
  }

  /** A layer write of a value this desktop holds; a test id the layout cannot name stays local only. */
  function tryWrite(write: () => void): boolean {
    try {
      write();
      return true;
    } catch (error) {
      if (error instanceof TeamValueError) return false;
      throw error;
    }
  }

  return {
    bind(next) {
      applier = next;
    },

    overridesWritten(storeId, overrides) {
      const doc = sharedDoc(storeId);
      if (doc) tryWrite(() => setDecisionSettings(doc, overrides, deps.actor()));
    },

    planWritten(storeId, testId, plannedDays) {
      const doc = sharedDoc(storeId);
      if (doc) tryWrite(() => setPlan(doc, testId, plannedDays, deps.actor()));
    },

    mirror(storeId, doc, touched) {
      if (!writable()) return;
      if (touched.store) mirrorSettings(storeId, doc);
      for (const testId of touched.plans) mirrorPlan(storeId, doc, testId);
    },

    seed(teamStoreId) {
      const storeId = linkOfTeamStore(db, teamStoreId)?.storeId;
      if (!storeId || !writable() || seeded.has(teamStoreId)) return false;
      const doc = deps.docOf(teamStoreId);
      let wrote = false;
      // The layer's first: a value a member set before this desktop joined is the team's.
      mirrorSettings(storeId, doc);
      for (const testId of teamTestIds(doc)) mirrorPlan(storeId, doc, testId);
      doc.transact(() => {
        const overrides = localOverrides(storeId);
        if (!decisionSettingsOf(doc) && Object.keys(overrides).length > 0) {
          wrote = tryWrite(() => setDecisionSettings(doc, overrides, deps.actor())) || wrote;
        }
        for (const plan of testPlansOf(db, storeId)) {
          if (planOf(doc, plan.testId) !== null) continue;
          wrote =
            tryWrite(() => setPlan(doc, plan.testId, plan.plannedDays, deps.actor())) || wrote;
        }
      });
      if (!wrote) seeded.add(teamStoreId);
      return wrote;
    },

    stamps(storeId) {
      const doc = sharedDoc(storeId);
      if (!doc) return { settings: null, plans: [] };
      const settings = decisionSettingsOf(doc);
      const plans: TeamDecisionStamps['plans'] = [];
      for (const testId of teamTestIds(doc)) {
        const plan = planOf(doc, testId);
        if (plan) plans.push({ testId, plannedDays: plan.value, by: plan.by, at: plan.at });
      }
      return { settings: settings && { by: settings.by, at: settings.at }, plans };
    },
  };
}
