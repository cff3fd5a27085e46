// What a call is made with: the user's decision settings read (global, a store's overrides, their
// history, a test's own plan; stored by db/user/decisions.ts), merged into a store's basis, and the key
// that tells a stored call made with other settings (stale) from one made with these.
import { createHash } from 'node:crypto';
import type { TestResults } from '#shared/api/index';
import {
  DECISION_RULES_VERSION,
  DEFAULT_DECISION_SETTINGS,
  DecisionSettings,
  type DecisionInput,
  type DecisionSettingsPatch,
  type SettingsChange,
} from '#shared/domain/decisions/index';
import { dailySeries } from '#shared/domain/statistics/daily';
import type { Db } from '../db/types';
import {
  globalSettingsText,
  historyRows,
  historyVersion,
  storeOverrideText,
  storeOverrideTexts,
  type HistoryRow,
  type TestPlan,
} from '../db/user/decisions';

/** Every setting's name, in the schema's order: the order the key hashes them in. */
const SETTING_NAMES = DecisionSettings.keyof().options;

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

function globalSettingsOf(text: string | null): DecisionSettings {
  return { ...DEFAULT_DECISION_SETTINGS, ...(text !== null ? readPatch(text) : {}) };
}

/** The global decision settings, defaults standing in for any never set or unreadable. */
export function readGlobalDecisionSettings(db: Db): DecisionSettings {
  return globalSettingsOf(globalSettingsText(db));
}

/** Each store's own overrides (only stores that have some). */
export function readStoreOverrides(db: Db): Map<string, DecisionSettingsPatch> {
  return new Map([...storeOverrideTexts(db)].map(([storeId, text]) => [storeId, readPatch(text)]));
}

/** The stored text of the global settings and of a store's overrides, as a change records them. */
export function settingsTexts(db: Db, storeId: string | null): string {
  if (storeId === null) return JSON.stringify(readGlobalDecisionSettings(db));
  return storeOverrideText(db, storeId) ?? '{}';
}

// ---------- a store's basis ----------

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

function mergedSettings(
  global: DecisionSettings,
  overrides: DecisionSettingsPatch,
): DecisionSettings {
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
  const changes = [...byDay.values()].sort((a, b) =>
    a.from < b.from ? -1 : a.from > b.from ? 1 : 0,
  );
  const now = mergedSettings(global, overrides);
  return changes.filter(
    (change, k) =>
      JSON.stringify(change.settings) !== JSON.stringify(changes[k + 1]?.settings ?? now),
  );
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

// ---------- a test's key and input ----------

/** The key part of a test's own plan; db/user/decisions.ts planJoin builds the same text in SQL. */
function planKey(plan: TestPlan | null): string {
  if (plan === null) return '';
  return `|${plan.plannedDays ?? '-'}@${plan.dataThrough ?? '-'}/${plan.previousDays ?? '-'}`;
}

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
    ownThroughout
      ? { ...change, settings: { ...change.settings, plannedDays: own }, planSource: 'test' }
      : change,
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
