// The Decisions settings' fields and what they mean: each numeric field as typed (a percent ×100),
// its range and its error, a scope's draft turned into the patch and the resets it sends, and the
// guardrails' choice. Plain functions: DecisionSettingsSection.svelte keeps only the state.
import type { DecisionSettingsView } from '#shared/contract/index';
import {
  DecisionSettings,
  type DecisionSettingsPatch,
  type GuardrailChoice,
} from '#shared/domain/decisions/schemas';
import { METRICS } from '#shared/domain/metrics';

/** The numeric settings, one input each; the guardrails have a control of their own below. */
export type Key = Exclude<keyof DecisionSettings, 'guardrails'>;
export type Field = {
  key: Key;
  label: string;
  unit: string;
  /** Shown ×100 (a percent) or as is. */
  percent: boolean;
  step: number;
  hint: string;
};

export const FIELDS: readonly Field[] = [
  {
    key: 'credibility',
    label: 'Credibility',
    unit: '%',
    percent: true,
    step: 0.5,
    hint: 'How sure a side must be to win: the error budget is what is left, over every daily look.',
  },
  {
    key: 'minEffect',
    label: 'Minimum effect of interest',
    unit: '%',
    percent: true,
    step: 0.5,
    hint: 'A lift smaller than this either way is “no meaningful difference”.',
  },
  {
    key: 'minRuntimeDays',
    label: 'Minimum runtime',
    unit: 'days',
    percent: false,
    step: 1,
    hint: 'No call before this many days of data (whole weeks smooth out weekdays).',
  },
  {
    key: 'minConversions',
    label: 'Minimum conversions per side',
    unit: 'per side',
    percent: false,
    step: 10,
    hint: "No call before each side has this many of the goal's events.",
  },
  {
    key: 'longestWaitDays',
    label: 'Longest wait',
    unit: 'days',
    percent: false,
    step: 1,
    hint: 'A call that would take longer than this from the start is “cannot conclude”.',
  },
  {
    key: 'plannedDays',
    label: 'Planned length',
    unit: 'days',
    percent: false,
    step: 1,
    hint: 'A test’s length when it has no automatic end and no plan of its own.',
  },
];

/**
 * What the user typed per scope ('' = the global settings): a field's value, or null to reset it;
 * `guardrails` a choice, or null to reset a store's to the default's.
 */
export type Draft = Partial<Record<Key, number | null>> & { guardrails?: GuardrailChoice | null };

/** The goal metrics a guardrail can watch, in the metrics' order, with their names. */
export const GUARDRAIL_METRICS = METRICS.map((metric) => ({
  rate: metric.rate,
  label: metric.label,
}));
export const DEFAULT_GUARDRAILS_WORDS =
  'Default: revenue per visitor for every goal but revenue per visitor, and conversion rate too for average order value.';

/** A stored value as the field shows it (a fraction as a percent). */
export const shown = (field: Field, value: number) =>
  field.percent ? Number((value * 100).toFixed(2)) : value;
/** A typed value as it is stored (a percent as a fraction). */
export const stored = (field: Field, value: number) =>
  field.percent ? Number((value / 100).toFixed(5)) : value;

/** The bounds the schema holds each field to, as stored; said in a field's error. */
const RANGES: Record<Key, { min: number; max: number }> = {
  credibility: { min: 0.8, max: 0.999 },
  minEffect: { min: 0.005, max: 0.5 },
  minRuntimeDays: { min: 1, max: 60 },
  minConversions: { min: 0, max: 100_000 },
  longestWaitDays: { min: 7, max: 365 },
  plannedDays: { min: 7, max: 365 },
};
/** A stored value as the field writes it, with its % sign. */
export const shownRange = (field: Field, value: number) =>
  `${shown(field, value).toLocaleString()}${field.unit === '%' ? '%' : ''}`;

/** What is wrong with a typed value (empty is required globally, a reset for a store), or null. */
export function errorOf(
  field: Field,
  value: number | null | undefined,
  global: boolean,
): string | null {
  if (value === null || value === undefined) return global ? 'Required' : null;
  const parsed = DecisionSettings.shape[field.key].safeParse(stored(field, value));
  if (parsed.success) return null;
  const { min, max } = RANGES[field.key];
  return `From ${shownRange(field, min)} to ${shownRange(field, max)}`;
}

/**
 * Whether any scope's draft holds an error. An emptied field is judged as in the scope on screen
 * (`global`), as the section always has: a global field emptied while a store is shown passes, and
 * sends nothing.
 */
export function draftsInvalid(drafts: Record<string, Draft>, global: boolean): boolean {
  return Object.values(drafts).some((d) =>
    FIELDS.some((f) => f.key in d && errorOf(f, d[f.key], global) !== null),
  );
}

/** A scope's place in the view: '' for the global settings, else the store's id and its overrides. */
export interface ScopeView {
  view: DecisionSettingsView | null;
  scope: string;
  draft: Draft;
}

function storeOf({ view, scope }: ScopeView) {
  return view?.stores.find((s) => s.storeId === scope) ?? null;
}

/** The value a field shows: typed, else the store's override, else (global scope) the global value. */
export function valueOf(field: Field, at: ScopeView): number | null {
  const { view, scope, draft } = at;
  if (!view) return null;
  if (field.key in draft) {
    const typed = draft[field.key];
    return typed === null || typed === undefined ? null : typed;
  }
  if (scope === '') return shown(field, view.global[field.key]);
  const override = storeOf(at)?.overrides[field.key];
  return override === undefined ? null : shown(field, override);
}

/** Whether this store's field overrides the global value, after what was typed. */
export function overridden(field: Field, at: ScopeView): boolean {
  if (at.scope === '') return false;
  if (field.key in at.draft) return at.draft[field.key] !== null;
  return storeOf(at)?.overrides[field.key] !== undefined;
}

/** The guardrails the scope shows: typed, else the store's override, else (global scope) the global value; null: the default's. */
export function guardrailsShown(at: ScopeView): GuardrailChoice | null {
  const { view, scope, draft } = at;
  if (!view) return null;
  if ('guardrails' in draft) return draft.guardrails ?? null;
  if (scope === '') return view.global.guardrails;
  return storeOf(at)?.overrides.guardrails ?? null;
}

/** The guardrails in force for the scope. */
export function guardrailsEffective(at: ScopeView): GuardrailChoice {
  return guardrailsShown(at) ?? at.view?.global.guardrails ?? 'default';
}

/** The guardrails after one metric is turned on or off, in the metrics' order. */
export function toggledGuardrails(
  current: GuardrailChoice,
  rate: (typeof GUARDRAIL_METRICS)[number]['rate'],
  on: boolean,
): GuardrailChoice {
  const list = current === 'default' ? [] : current;
  const next = on ? [...list.filter((r) => r !== rate), rate] : list.filter((r) => r !== rate);
  return GUARDRAIL_METRICS.map((m) => m.rate).filter((r) => next.includes(r));
}

/**
 * What a scope's draft sends: the values typed (stored as fractions) and, for a store, the fields
 * emptied (its overrides to clear). Emptied global fields send nothing (they are required).
 */
export function draftChange(
  scope: string,
  draft: Draft,
): { patch: DecisionSettingsPatch; clear: (keyof DecisionSettings)[] } {
  const patch: DecisionSettingsPatch = {};
  const clear: (keyof DecisionSettings)[] = [];
  for (const field of FIELDS) {
    if (!(field.key in draft)) continue;
    const value = draft[field.key];
    if (value === null || value === undefined) {
      if (scope !== '') clear.push(field.key);
    } else {
      patch[field.key] = stored(field, value);
    }
  }
  if ('guardrails' in draft) {
    if (draft.guardrails === null || draft.guardrails === undefined) {
      if (scope !== '') clear.push('guardrails');
    } else {
      patch.guardrails = draft.guardrails;
    }
  }
  return { patch, clear };
}
