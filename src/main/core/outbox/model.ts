// The outbox's model, free of SQL and HTTP: record kinds and states, a record's rows merged into what one
// request carries, and the rules every part applies the same way (what may be sent, the three-way merge
// of mine and theirs, a create's local id replaced in the edits naming it, holding and resolving a conflict).
import { sameValue } from '#shared/domain/mutability';
import type { Problem } from '#shared/problem';
import type {
  ConflictRecord,
  FieldConflict,
  OutboxKind,
  OutboxRow,
  OutboxState,
  RowPatch,
} from '../db/user/outbox';

// The row types are the table's (db/user/outbox.ts); the outbox's parts name them from here.
export type {
  ConflictRecord,
  FieldConflict,
  OutboxKind,
  OutboxRow,
  OutboxState,
  RowPatch,
} from '../db/user/outbox';

/** All pending rows of one record, collapsed: what one request would carry. */
export type PendingRecord = {
  storeId: string;
  kind: OutboxKind;
  recordId: string;
  rows: OutboxRow[];
  seqs: number[];
  /** Later edits win, field by field. */
  changes: Record<string, unknown>;
  /** Per field, the base of the first edit that changed it: the server's value before the user's changes. */
  base: Record<string, unknown>;
  baseUpdatedAt: string | null;
  state: OutboxState;
  attemptedAt: string | null;
  forceSend: boolean;
  note: string | null;
  problem: Problem | null;
  conflict: ConflictRecord | null;
  createdAt: string;
  updatedAt: string;
};

export const WAITING_TO_BE_SENT = 'Waiting to be sent';
export const TAG_ID_UNKNOWN =
  'The store already has a tag with this name, probably this one (its first request may have gone through before the answer was lost). ' +
  'The API cannot list tags, so Splitbook waits until a synced test carries the tag to learn its id; edits using it wait too. ' +
  'Discard the tag to send those edits without it.';
export const CONFLICT_NOTE =
  'Changed in the store too since you edited it: pick yours, theirs or a new value for each field.';
export const GONE_NOTE =
  'This campaign is no longer in the active list, so Splitbook cannot re-read it to check for changes made elsewhere. Send anyway or discard.';

/** A record's state is its rows' worst: one row in conflict holds the whole record. */
const STATE_WEIGHT: Record<OutboxState, number> = {
  queued: 0,
  sending: 1,
  waiting: 2,
  failed: 3,
  conflict: 4,
};

/**
 * What the pusher tries: queued, interrupted while sending, or waiting for something it can check
 * again itself. Failed and conflicting records wait for the user instead.
 */
export function isSendable(state: OutboxState): boolean {
  return state === 'queued' || state === 'sending' || state === 'waiting';
}

/** Rows (of any records, oldest first) grouped into records, in the order of each record's first row. */
export function groupRecords(rows: readonly OutboxRow[]): PendingRecord[] {
  const byKey = new Map<string, OutboxRow[]>();
  for (const row of rows) {
    const key = `${row.storeId}\u0000${row.kind}\u0000${row.recordId}`;
    const list = byKey.get(key);
    if (list) list.push(row);
    else byKey.set(key, [row]);
  }
  return [...byKey.values()].flatMap((list) => {
    const record = collapse(list);
    return record ? [record] : [];
  });
}

/** The rows of one record (oldest first) merged into one: later changes win, the first base stays. */
export function collapse(rows: readonly OutboxRow[]): PendingRecord | null {
  const first = rows[0];
  const last = rows.at(-1);
  if (!first || !last) return null;
  const changes: Record<string, unknown> = {};
  const base: Record<string, unknown> = {};
  let worst: OutboxRow = first;
  for (const row of rows) {
    Object.assign(changes, row.changes);
    for (const [field, value] of Object.entries(row.base))
      if (!(field in base)) base[field] = value;
    if (STATE_WEIGHT[row.state] > STATE_WEIGHT[worst.state]) worst = row;
  }
  return {
    storeId: first.storeId,
    kind: first.kind,
    recordId: first.recordId,
    rows: [...rows],
    seqs: rows.map((r) => r.seq),
    changes,
    base,
    baseUpdatedAt: first.baseUpdatedAt,
    state: worst.state,
    attemptedAt: rows.find((r) => r.attemptedAt !== null)?.attemptedAt ?? null,
    forceSend: rows.some((r) => r.forceSend),
    note: worst.note ?? last.note,
    problem: worst.problem ?? last.problem,
    conflict: worst.conflict,
    createdAt: first.createdAt,
    updatedAt: last.updatedAt,
  };
}

/**
 * Mine against theirs, field by field: a field the store already holds is left out, one the store
 * still has at its base value (or any, when `trustMine`) is sent, and one both changed differently
 * is a conflict. Theirs of a field comes from `theirsOf`.
 */
export function mergeWithTheirs(
  record: Pick<PendingRecord, 'changes' | 'base'>,
  theirsOf: (field: string) => unknown,
  trustMine: boolean,
  attempted: Record<string, unknown> = {},
): { body: Record<string, unknown>; conflicts: Record<string, FieldConflict> } {
  const body: Record<string, unknown> = {};
  const conflicts: Record<string, FieldConflict> = {};
  for (const [field, mine] of Object.entries(record.changes)) {
    const theirs = theirsOf(field);
    if (sameValue(field, theirs, mine)) continue; // already there (our own earlier write, or theirs agrees)
    const base = record.base[field];
    // A value this record itself sent, whose answer never came, is ours in the store, not theirs.
    const ours = field in attempted && sameValue(field, theirs, attempted[field]);
    if (trustMine || ours || sameValue(field, theirs, base)) body[field] = mine;
    else conflicts[field] = { base, mine, theirs };
  }
  return { body, conflicts };
}

/**
 * What a record may already have put in the store: the changes of its rows marked attempted (sent,
 * with no answer to say whether the store applied them). Rows added since are not among them.
 */
export function attemptedChanges(record: Pick<PendingRecord, 'rows'>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const row of record.rows) if (row.attemptedAt !== null) Object.assign(changes, row.changes);
  return changes;
}

/** Kinds created here with a local id until the store gives its own (see kinds/: `create`). */
export type CreateKind = 'tag' | 'audience';

/** The field of a test's change that names records of a created kind. */
export const ID_FIELD = { tag: 'tagIds', audience: 'customAudienceIds' } as const;

/**
 * A test row's change once a create is settled: its local id replaced by the store's (`serverId`), or
 * taken out (null: the create was dropped). Null when the row does not name that id. A row that
 * waited for the create goes back to the queue.
 */
export function remapLocalId(
  row: Pick<OutboxRow, 'kind' | 'changes' | 'state'>,
  kind: CreateKind,
  localId: string,
  serverId: string | null,
): RowPatch | null {
  const field = ID_FIELD[kind];
  const ids = row.changes[field];
  if (row.kind !== 'test' || !Array.isArray(ids) || !ids.includes(localId)) return null;
  const next =
    serverId === null
      ? ids.filter((id) => id !== localId)
      : ids.map((id) => (id === localId ? serverId : id));
  return {
    changes: { ...row.changes, [field]: next },
    ...(row.state === 'waiting' ? { state: 'queued' as const, note: null, problem: null } : {}),
  };
}

/** Ids a test's change names that are local ids of creates still pending (in `local`). */
export function localIdsNamed(
  changes: Record<string, unknown>,
  local: ReadonlySet<string>,
): string[] {
  return Object.values(ID_FIELD).flatMap((field) => {
    const ids = changes[field];
    return Array.isArray(ids)
      ? ids.filter((id): id is string => typeof id === 'string' && local.has(id))
      : [];
  });
}

/** The one row a record becomes while held as a conflict, until the user picks. */
export function heldInConflict(record: PendingRecord, conflict: ConflictRecord): RowPatch {
  return {
    changes: record.changes,
    base: record.base,
    baseUpdatedAt: record.baseUpdatedAt,
    state: 'conflict',
    conflict,
    note: conflict.gone ? GONE_NOTE : CONFLICT_NOTE,
    problem: null,
  };
}

export type ConflictChoice = 'mine' | 'theirs' | 'value';

/**
 * The one row a conflicting record becomes once the user picked for `field` (null: nothing left to
 * send). A campaign gone from the active list is sent as is (mine) or dropped (theirs). Otherwise
 * theirs drops the field; mine or a new value is sent over theirs, their value becoming its base. The
 * record stays held until no field is left in conflict.
 */
export function resolvedConflict(
  record: PendingRecord,
  conflict: ConflictRecord,
  field: string,
  choice: ConflictChoice,
  value: unknown,
): RowPatch | null {
  if (conflict.gone) {
    if (choice === 'theirs') return null;
    return {
      changes: record.changes,
      base: record.base,
      state: 'queued',
      conflict: null,
      note: null,
      forceSend: true,
    };
  }
  const held = conflict.fields[field];
  if (!held) throw new RangeError(`'${field}' is not a field in conflict`);
  const changes = { ...record.changes };
  const base = { ...record.base };
  if (choice === 'theirs') {
    delete changes[field];
    delete base[field];
  } else {
    if (choice === 'value') changes[field] = value ?? null;
    base[field] = held.theirs;
  }
  if (Object.keys(changes).length === 0) return null;
  const fields = { ...conflict.fields };
  delete fields[field];
  const done = Object.keys(fields).length === 0;
  return {
    changes,
    base,
    state: done ? 'queued' : 'conflict',
    conflict: done ? null : { ...conflict, fields },
    ...(done ? { note: null } : {}),
    baseUpdatedAt: done ? conflict.theirsUpdatedAt : record.baseUpdatedAt,
  };
}

/** A failed record the user changed or retried: back to the queue, its problem forgotten. */
export const REQUEUED: RowPatch = { state: 'queued', problem: null, note: null };
