// The user's own edits in the review memory's terms: what Splitbook sent and the store confirmed, and
// what still waits in the outbox, so the Changes view never reports them as changes made elsewhere.
// It sits on the outbox's side: the pusher remembers what the store confirmed, and the review memory
// (review/changes.ts) asks it, never the other way round.
import {
  metaOf,
  metaRow,
  sentEditsSince,
  writeSentEdits,
  type ChangeValue,
  type MetaField,
} from '../db/user/sent-edits';
import type { Db } from '../db/types';
import { pendingRecords } from './store';

/** The edit fields (the API's names) the review memory tracks, by its own name. */
const TRACKED_EDIT_FIELDS: Readonly<Record<string, MetaField>> = {
  title: 'title',
  hypothesisDescription: 'hypothesis',
  priority: 'priority',
  surfaceArea: 'surfaceArea',
  impact: 'impact',
  effort: 'effort',
  implemented: 'implemented',
  tagIds: 'tags',
  campaignId: 'campaign',
  goal: 'goal',
  device: 'device',
};

function trackedFields(editFields: readonly string[]): MetaField[] {
  return [
    ...new Set(editFields.flatMap((f) => (TRACKED_EDIT_FIELDS[f] ? [TRACKED_EDIT_FIELDS[f]] : []))),
  ];
}

/**
 * The store confirmed an edit of these fields of a test, and the cache now holds its record: each
 * tracked field's value is remembered as the review memory will see it at the next sync.
 */
export function rememberSentEdit(
  db: Db,
  storeId: string,
  testId: string,
  editFields: readonly string[],
  at: string,
): void {
  const row = metaRow(db, storeId, testId);
  if (row === null) return;
  const meta = metaOf(row);
  writeSentEdits(
    db,
    storeId,
    trackedFields(editFields).map((field) => ({
      testId,
      field,
      valueJson: JSON.stringify(meta[field] ?? null),
    })),
    at,
  );
}

export type OwnEdit = 'sent' | 'unsent';

const SENT_LOOKBACK_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Tells whether a net change (test, field, to) seen since `since` is the user's own: a confirmed edit
 * that set that very value, or an edit still waiting to be sent whose value the cache shows. A value
 * changed again elsewhere afterwards ends at another value, so it is not the user's.
 */
export function ownEditsOf(
  db: Db,
  storeId: string,
  since: string,
): (testId: string, field: string, to: ChangeValue) => OwnEdit | null {
  const sent = new Map<string, { value: string; at: string }[]>();
  // An edit sent shortly before the window opened (a review between the send and the sync) counts too.
  const from = new Date(Date.parse(since) - SENT_LOOKBACK_MS).toISOString();
  for (const edit of sentEditsSince(db, storeId, from)) {
    const key = `${edit.testId}\u0000${edit.field}`;
    const list = sent.get(key);
    if (list) list.push({ value: edit.valueJson, at: edit.sentAt });
    else sent.set(key, [{ value: edit.valueJson, at: edit.sentAt }]);
  }
  const unsent = new Map<string, Set<string>>();
  for (const record of pendingRecords(db, storeId)) {
    if (record.kind !== 'test') continue;
    const fields = trackedFields(Object.keys(record.changes));
    if (fields.length > 0) unsent.set(record.recordId, new Set(fields));
  }
  const localMeta = new Map<string, ReturnType<typeof metaOf> | null>();
  return (testId, field, to) => {
    const value = JSON.stringify(to);
    const confirmed = sent.get(`${testId}\u0000${field}`);
    if (confirmed?.some((edit) => edit.value === value)) return 'sent';
    if (!unsent.get(testId)?.has(field)) return null;
    if (!localMeta.has(testId)) {
      const row = metaRow(db, storeId, testId);
      localMeta.set(testId, row === null ? null : metaOf(row));
    }
    const local = localMeta.get(testId);
    return local && JSON.stringify(local[field as MetaField] ?? null) === value ? 'unsent' : null;
  };
}
