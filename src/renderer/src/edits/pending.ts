// Words for pending edits: a field's label, a value as text, and what a record's state means to the user.
import type { EditState, PendingEdit, StoreSummary } from '#shared/contract/index';
import { TEST_FIELDS } from '#shared/domain/test-fields';

/** Labels of the fields of every kind of record: a test's from their descriptions, then a campaign's and an audience's. */
const FIELD_LABELS: Readonly<Record<string, string>> = {
  name: 'Name',
  objective: 'Objective',
  rules: 'Rules',
  ...Object.fromEntries(TEST_FIELDS.map((field) => [field.name, field.label])),
};

export function fieldLabel(field: string): string {
  return FIELD_LABELS[field] ?? field;
}

/** The short state word shown beside a field or a record. */
export const STATE_LABEL: Record<EditState, string> = {
  queued: 'not yet sent',
  sending: 'sending',
  waiting: 'waiting to be sent',
  failed: 'failed',
  conflict: 'conflict',
};

/** A value as the user reads it; `names` turns ids (tags, audiences, campaigns) into names. */
export function valueText(value: unknown, names: (id: string) => string = (id) => id): string {
  if (value === null || value === undefined || value === '') return '(not set)';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    return value
      .map((v) => {
        if (typeof v === 'string') return names(v);
        if (typeof v === 'object' && v !== null && 'dimension' in v) {
          const rule = v as { dimension: unknown; operator: unknown; values?: unknown };
          return `${String(rule.dimension)} ${String(rule.operator)} ${Array.isArray(rule.values) ? rule.values.join(', ') : ''}`;
        }
        return JSON.stringify(v);
      })
      .join(', ');
  }
  if (typeof value === 'string') return names(value);
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/** The pending change of one field of a record, with the record's state. */
export function fieldPending(
  record: PendingEdit | null,
  field: string,
): { record: PendingEdit; change: PendingEdit['changes'][number] } | null {
  const change = record?.changes.find((c) => c.field === field);
  return record && change ? { record, change } : null;
}

/** The newest individual edit that touched the field: what "Undo" takes back. */
export function lastEditOf(record: PendingEdit, field: string): number | null {
  const edit = [...record.edits].reverse().find((e) => e.fields.includes(field));
  return edit?.seq ?? null;
}

/** What each kind of record is called in the list. */
export const KIND_LABEL: Record<PendingEdit['kind'], string> = {
  test: 'Test',
  campaign: 'Campaign',
  tag: 'New tag',
  audience: 'New audience',
};

/** A record's key in the list, or (with a field) the key of one of its fields' typed value. */
export function keyOf(r: PendingEdit, field = ''): string {
  return `${r.storeId}/${r.kind}/${r.recordId}/${field}`;
}

/**
 * A value typed to settle a conflicting field, read as the field's own type (as "mine" is): a number
 * (empty: none), yes/true for a flag, a list split at commas, else the text.
 */
export function parseTyped(r: PendingEdit, field: string, text: string): unknown {
  const sample = r.changes.find((c) => c.field === field)?.mine;
  if (typeof sample === 'number') return text.trim() === '' ? null : Number(text);
  if (typeof sample === 'boolean') return text.trim().toLowerCase() === 'yes' || text === 'true';
  if (Array.isArray(sample))
    return text
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  return text;
}

/** The stores with an edit that Send now can send (queued, or waiting for its store), each once. */
export function pushableStores(rows: readonly PendingEdit[]): string[] {
  return [
    ...new Set(
      rows.filter((r) => r.state === 'queued' || r.state === 'waiting').map((r) => r.storeId),
    ),
  ];
}

/** The stores in scope with edits here that cannot be reached now (their sync says offline). */
export function unreachable<S extends Pick<StoreSummary, 'id' | 'sync'>>(
  list: readonly S[],
  scope: string | null,
  rows: readonly PendingEdit[],
): S[] {
  return list.filter(
    (s) =>
      (scope === null || s.id === scope) &&
      (s.sync.state === 'offline' || s.sync.lastOutcome === 'offline') &&
      rows.some((r) => r.storeId === s.id),
  );
}
