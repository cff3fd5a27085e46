// The Backlog grid's cells as plain functions: the columns the keyboard moves through, each field's text,
// a typed value read back as the contract takes it (or why it cannot be sent), and the score and days.
import type { Backlog, BacklogRow } from '#shared/contract/index';
import { aboutDays } from '#shared/domain/decisions/words';
import { formatInt, formatNumber } from '../lib/format';
import { goalName } from '../results/metrics';

/** The fields edited in place, by the name the outbox gives them (pendingFields). */
export type InlineField = 'impact' | 'effort' | 'priority' | 'tagIds';

/** The cells the keyboard moves through in a row: the title opens the test, the others edit. */
export const COLUMNS = ['title', 'impact', 'effort', 'priority', 'tagIds'] as const;
export type Column = (typeof COLUMNS)[number];

/** Priority words the API's stores use most; any other text is kept as typed. */
const PRIORITIES = ['critical', 'highest', 'high', 'medium', 'normal', 'low', 'lowest'];

/** Why a flagged idea's days matter, beside the planner's sentence. */
export const TOO_LONG =
  'Longer than the longest wait (Settings ▸ Decisions): launched as it is, the test would end "cannot conclude". A bolder change, a busier page or a larger minimum effect would shorten it.';

export const LABELS: Record<InlineField, string> = {
  impact: 'Impact',
  effort: 'Effort',
  priority: 'Priority',
  tagIds: 'Tags',
};

/** The value an inline edit sends, or the sentence that says why it is not sent. */
export type ParsedEdit = { value: number | string | string[] | null } | { refused: string };

export function rowKey(row: Pick<BacklogRow, 'storeId' | 'testId'>): string {
  return `${row.storeId}/${row.testId}`;
}

export function cellId(row: Pick<BacklogRow, 'storeId' | 'testId'>, col: Column): string {
  return `backlog-${row.storeId}-${row.testId}-${col}`;
}

/** Tag names typed with commas, as ids of the store's known tags; unknown names are returned apart. */
export function tagIdsOf(
  text: string,
  known: readonly { id: string; name: string }[],
): { ids: string[]; unknown: string[] } {
  const ids: string[] = [];
  const unknown: string[] = [];
  for (const name of text.split(',').map((part) => part.trim())) {
    if (name === '') continue;
    const tag = known.find((t) => t.name.toLowerCase() === name.toLowerCase());
    if (!tag) unknown.push(name);
    else if (!ids.includes(tag.id)) ids.push(tag.id);
  }
  return { ids, unknown };
}

/** A whole number typed in a cell: null when cleared, undefined when it is not a whole number. */
export function wholeNumber(text: string): number | null | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (!/^-?\d+$/.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A field's value as its cell shows it and its input starts with ('' when not set). */
export function textOf(row: BacklogRow, field: InlineField): string {
  if (field === 'tagIds') return row.tags.join(', ');
  const value = row[field];
  return value === null ? '' : String(value);
}

/** The typed value as the contract takes it, or a sentence saying why it cannot be sent. */
export function parseEdit(
  row: BacklogRow,
  field: InlineField,
  text: string,
  storeTags: readonly { id: string; name: string }[],
): ParsedEdit {
  if (field === 'impact' || field === 'effort') {
    const n = wholeNumber(text);
    return n === undefined
      ? { refused: `${LABELS[field]} is a whole number (or empty to clear it).` }
      : { value: n };
  }
  if (field === 'priority') return { value: text.trim() === '' ? null : text.trim() };
  const known = [...storeTags, ...row.tagIds.map((id, i) => ({ id, name: row.tags[i] ?? id }))];
  const { ids, unknown } = tagIdsOf(text, known);
  if (unknown.length > 0)
    return {
      refused: `No tag named ${unknown.map((n) => `“${n}”`).join(', ')} in ${row.storeName}: create it in the test's Edit tab, or pick a tag it has.`,
    };
  return { value: ids };
}

/** Whether a parsed value is what the row holds already (nothing to send). */
export function unchanged(row: BacklogRow, field: InlineField, value: unknown): boolean {
  if (field === 'tagIds')
    return (
      Array.isArray(value) &&
      value.length === row.tagIds.length &&
      value.every((id, i) => id === row.tagIds[i])
    );
  return value === row[field];
}

export function scoreText(row: Pick<BacklogRow, 'score'>): string {
  if (row.score === null) return '—';
  return Number.isInteger(row.score) ? formatInt(row.score) : formatNumber(row.score, 2);
}

/** "24 days" up to a quarter; then the planner's rounder words ("~4 years"), the sentence in the tooltip. */
export function daysText(row: Pick<BacklogRow, 'plannerDays'>): string {
  const days = row.plannerDays;
  if (days === null) return '—';
  if (days < 100) return `${formatInt(Math.max(1, Math.round(days)))} days`;
  return `~${aboutDays(days).replace(/^about /, '')}`;
}

/** The priorities offered while typing: the common words, then any other the rows hold. */
export function priorityChoices(rows: readonly Pick<BacklogRow, 'priority'>[]): string[] {
  return [
    ...new Set([
      ...PRIORITIES,
      ...rows.map((r) => r.priority).filter((p): p is string => p !== null),
    ]),
  ];
}

type FacetOption = { value: string; label: string };

/** The tag, surface-area and goal filters' choices, each with its count of ideas. */
export function facetOptions(facets: Backlog['facets'] | undefined): {
  tags: FacetOption[];
  surfaceAreas: FacetOption[];
  goals: FacetOption[];
} {
  return {
    tags: (facets?.tags ?? []).map((f) => ({
      value: f.key,
      label: `${f.label} (${formatInt(f.count)})`,
    })),
    surfaceAreas: (facets?.surfaceAreas ?? []).map((f) => ({
      value: f.key,
      label: `${f.label} (${formatInt(f.count)})`,
    })),
    goals: (facets?.goals ?? []).map((f) => ({
      value: f.key,
      label: `${goalName(f.label)} (${formatInt(f.count)})`,
    })),
  };
}
