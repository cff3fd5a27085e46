// `edits.*`: the outbox (core/outbox/) as the window and the CLI see it: checks each edit and create the
// user makes before recording it, lists the records, carries out the user's decisions (retry, discard,
// undo, resolve a conflict) and sends an edit at once when it may.
import { randomUUID } from 'node:crypto';
import type { CoreEvent, PendingEdit, Services } from '#shared/contract/index';
import { checkTestChange, lockedFields, testFieldValue } from '#shared/domain/mutability';
import { isTestEditField, nameOfId, TEST_FIELDS } from '#shared/domain/test-fields';
import { RecordName } from '#shared/domain/input-rules';
import type { UpdateTestField } from '#shared/api/index';
import { problem } from '#shared/problem';
import type { Db } from '../db/types';
import { outboxCounts, outboxRow, readOnlyReason } from '../db/user/outbox';
import { audiencesNamed, tagsNamed } from '../db/cache/local-copies';
import {
  discardRecord,
  isUnsentCreate,
  kindOf,
  pendingRecord,
  pendingRecords,
  recordCreate,
  recordEdit,
  recordLookups,
  renameCreatedTag,
  resolveRecord,
  retryRecord,
  serverCampaign,
  serverTest,
  undoRow,
  type OutboxKind,
  type PendingRecord,
  type PushSummary,
} from '../outbox';
import { clearUnreachable } from '../db/cache/stores';
import type { StoreRegistry } from '../stores/registry';
import type { SyncEngine } from '../sync/run';

export interface EditsServiceDeps {
  db: Db;
  stores: StoreRegistry;
  engine: SyncEngine;
  clock: () => number;
  emit(event: CoreEvent): void;
  /** Send an edit as soon as it is made (default). Off, edits wait for the next sync or push. */
  pushOnEdit?: boolean;
}

export function createEditsService(deps: EditsServiceDeps): Services['edits'] {
  const { db } = deps;
  const now = () => new Date(deps.clock()).toISOString();
  const changed = (storeId: string) => deps.emit({ name: 'edits.changed', payload: { storeId } });

  function afterEdit(storeId: string): void {
    changed(storeId);
    // Sent at once when the store can be reached; otherwise it stays queued and says so.
    if (deps.pushOnEdit ?? true) void pushNow(storeId).catch(() => undefined);
  }

  /** Sends the store's outbox; a store that answered no longer reads "can't be reached". */
  async function pushNow(storeId: string): Promise<PushSummary | null> {
    const summary = await deps.engine.push(storeId);
    if (summary?.reached && clearUnreachable(db, storeId))
      deps.emit({ name: 'stores.changed', payload: {} });
    return summary;
  }

  function refuseReadOnly(storeId: string): void {
    const reason = readOnlyReason(db, storeId);
    if (reason !== null) {
      throw problem(
        'forbidden',
        403,
        "This store's key is read-only",
        `The store refused an earlier change (${reason}). Add a key that may write to edit this store.`,
      );
    }
  }

  function view(record: PendingRecord): PendingEdit {
    const conflict = record.conflict;
    const fields = conflict?.fields ?? {};
    return {
      storeId: record.storeId,
      kind: record.kind,
      recordId: record.recordId,
      label: kindOf(record.kind).label(db, record),
      state: record.state,
      note: record.note,
      problem: record.problem,
      changes: Object.entries(record.changes).map(([field, mine]) => {
        const held = fields[field];
        return held
          ? { field, base: record.base[field] ?? null, mine, theirs: held.theirs, conflict: true }
          : { field, base: record.base[field] ?? null, mine, conflict: false };
      }),
      edits: record.rows.map((row) => ({
        seq: row.seq,
        fields: Object.keys(row.changes),
        createdAt: row.createdAt,
      })),
      gone: conflict?.gone ?? false,
      renamable: kindOf(record.kind).renamable && isUnsentCreate(record),
      names: namesOf(record),
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    };
  }

  /** The cached names of the records (tags, audiences, campaign) a record's changes name, base and theirs too. */
  function namesOf(record: PendingRecord): Record<string, string> {
    const names: Record<string, string> = {};
    const held = record.conflict?.fields ?? {};
    const values = (field: string) =>
      [record.changes[field], record.base[field], held[field]?.theirs].flatMap((v) =>
        Array.isArray(v) ? v : [v],
      );
    const idsIn = (field: string) =>
      values(field).filter((v): v is string => typeof v === 'string' && v !== '');
    const lookups = recordLookups(db, record.storeId);
    for (const field of TEST_FIELDS) {
      if (field.names === undefined) continue;
      for (const id of idsIn(field.name)) {
        const name = nameOfId(field.names, id, lookups);
        if (name !== null) names[id] = name;
      }
    }
    return names;
  }

  function current(storeId: string, kind: OutboxKind, recordId: string): PendingEdit | null {
    const record = pendingRecord(db, storeId, kind, recordId);
    return record ? view(record) : null;
  }

  function mustFind(storeId: string, kind: OutboxKind, recordId: string): PendingRecord {
    const record = pendingRecord(db, storeId, kind, recordId);
    if (!record)
      throw problem(
        'notFound',
        404,
        'No pending change',
        'This change was sent, discarded or undone already.',
      );
    return record;
  }

  return {
    async list({ storeId }) {
      return pendingRecords(db, storeId).map(view);
    },

    async counts({ storeId }) {
      const ids = storeId === null ? deps.stores.rows().map((r) => r.id) : [storeId];
      return ids.map((id) => ({
        storeId: id,
        ...outboxCounts(db, id),
        readOnly: readOnlyReason(db, id),
      }));
    },

    async editTest({ storeId, testId, changes }) {
      deps.stores.row(storeId);
      refuseReadOnly(storeId);
      const given: Record<string, unknown> = changes;
      const fields = (Object.keys(given) as UpdateTestField[]).filter(
        (f) => given[f] !== undefined,
      );
      if (fields.length === 0)
        throw problem('validation', 400, 'Nothing to change', 'The edit changes no field.');
      const unknown = fields.filter((f) => !isTestEditField(f));
      if (unknown.length > 0)
        throw problem(
          'validation',
          400,
          'Not editable here',
          `Splitbook does not edit ${unknown.join(', ')}.`,
        );
      const errors = checkTestChange(changes);
      if (errors.length > 0)
        throw problem('validation', 400, 'The change is not valid', errors.join('; '));
      const server = serverTest(db, storeId, testId);
      if (!server)
        throw problem(
          'notFound',
          404,
          'Test not found',
          `Store ${storeId} has no cached test ${testId}.`,
        );
      const locked = lockedFields(fields, server.status);
      if (locked.length > 0) {
        throw problem(
          'validation',
          422,
          'Field is locked',
          locked.map((l) => l.message).join('; '),
        );
      }
      recordEdit(
        db,
        {
          storeId,
          kind: 'test',
          recordId: testId,
          server,
          changes: Object.fromEntries(fields.map((f) => [f, given[f]])),
          base: Object.fromEntries(fields.map((f) => [f, testFieldValue(server, f)])),
          baseUpdatedAt: server.updatedAt,
        },
        now(),
      );
      afterEdit(storeId);
      const result = current(storeId, 'test', testId);
      if (!result) throw new Error('The edit was not recorded');
      return result;
    },

    async editCampaign({ storeId, campaignId, changes }) {
      deps.stores.row(storeId);
      refuseReadOnly(storeId);
      const fields = Object.keys(changes).filter(
        (f) => (changes as Record<string, unknown>)[f] !== undefined,
      );
      if (fields.length === 0)
        throw problem('validation', 400, 'Nothing to change', 'The edit changes no field.');
      const server = serverCampaign(db, storeId, campaignId);
      if (!server)
        throw problem(
          'notFound',
          404,
          'Campaign not found',
          `Store ${storeId} has no cached campaign ${campaignId}.`,
        );
      const record = server as Record<string, unknown>;
      recordEdit(
        db,
        {
          storeId,
          kind: 'campaign',
          recordId: campaignId,
          server,
          changes: Object.fromEntries(
            fields.map((f) => [f, (changes as Record<string, unknown>)[f]]),
          ),
          base: Object.fromEntries(fields.map((f) => [f, record[f] ?? null])),
          baseUpdatedAt: null,
        },
        now(),
      );
      afterEdit(storeId);
      const result = current(storeId, 'campaign', campaignId);
      if (!result) throw new Error('The edit was not recorded');
      return result;
    },

    async createTag({ storeId, name: given }) {
      const name = checkedName(given);
      deps.stores.row(storeId);
      refuseReadOnly(storeId);
      const taken = tagsNamed(db, storeId, name)[0];
      if (taken) {
        throw problem(
          'conflict',
          409,
          'Duplicate tag name',
          `The store already has a tag named '${taken.name}' (tag names ignore case): pick it instead.`,
        );
      }
      const id = randomUUID();
      recordCreate(db, { storeId, kind: 'tag', localId: id, changes: { name } }, now());
      afterEdit(storeId);
      return { id, name };
    },

    async renameTag({ storeId, tagId, name: given }) {
      const name = checkedName(given);
      deps.stores.row(storeId);
      const record = mustFind(storeId, 'tag', tagId);
      if (!isUnsentCreate(record))
        throw problem(
          'conflict',
          409,
          'The tag may be in the store already',
          'Splitbook sent it, and the store may have created it under this name; tags cannot be renamed or deleted through the API.',
        );
      const taken = tagsNamed(db, storeId, name).find((t) => t.id !== tagId);
      if (taken)
        throw problem(
          'conflict',
          409,
          'Duplicate tag name',
          `The store already has a tag named '${taken.name}' (tag names ignore case).`,
        );
      if (!renameCreatedTag(db, storeId, tagId, name, now()))
        throw problem(
          'conflict',
          409,
          'The tag is being sent',
          'Splitbook started sending it meanwhile; it can no longer be renamed.',
        );
      afterEdit(storeId);
      return { id: tagId, name };
    },

    async createAudience({ storeId, name, rules }) {
      deps.stores.row(storeId);
      refuseReadOnly(storeId);
      if (audiencesNamed(db, storeId, name).length > 0) {
        throw problem(
          'validation',
          400,
          'Duplicate audience name',
          `The store already has a custom audience named '${name}'.`,
        );
      }
      const id = randomUUID();
      recordCreate(db, { storeId, kind: 'audience', localId: id, changes: { name, rules } }, now());
      afterEdit(storeId);
      return { id, name };
    },

    async retry({ storeId, kind, recordId }) {
      const record = mustFind(storeId, kind, recordId);
      if (record.state === 'conflict')
        throw problem(
          'conflict',
          409,
          'Resolve the conflict first',
          'Pick mine, theirs or a new value for each field.',
        );
      retryRecord(db, record, now());
      afterEdit(storeId);
      return current(storeId, kind, recordId);
    },

    async discard({ storeId, kind, recordId }) {
      discardRecord(db, mustFind(storeId, kind, recordId), now());
      changed(storeId);
      return null;
    },

    async undo({ seq }) {
      const row = outboxRow(db, seq);
      if (!row)
        throw problem(
          'notFound',
          404,
          'No pending change',
          'This edit was sent, discarded or undone already.',
        );
      undoRow(db, row, now());
      changed(row.storeId);
      return null;
    },

    async resolveConflict({ storeId, kind, recordId, field, choice, value }) {
      const record = mustFind(storeId, kind, recordId);
      const conflict = record.conflict;
      if (record.state !== 'conflict' || !conflict)
        throw problem(
          'conflict',
          409,
          'No conflict to resolve',
          'This change is not held as a conflict.',
        );
      if (!conflict.gone && !conflict.fields[field])
        throw problem(
          'validation',
          400,
          'Not in conflict',
          `'${field}' is not a field in conflict.`,
        );
      resolveRecord(db, record, { field, choice, value }, now());
      afterEdit(storeId);
      return current(storeId, kind, recordId);
    },

    async push({ storeId }) {
      const ids = storeId === null ? deps.stores.rows().map((r) => r.id) : [storeId];
      const results = await Promise.all(ids.map((id) => pushNow(id)));
      return ids.map((id, i) => {
        const r = results[i];
        return {
          storeId: id,
          sent: r?.sent ?? 0,
          failed: r?.failed ?? 0,
          conflicts: r?.conflicts ?? 0,
          waiting: r?.waiting ?? 0,
          problem: r?.stoppedBy ?? null,
        };
      });
    },
  };
}

/**
 * A tag's name as the contract's schema takes it (trimmed, not empty, not too long): the CLI calls the
 * services without the bridge's parse, and must be refused in the same words.
 */
function checkedName(name: string): string {
  const parsed = RecordName.safeParse(name);
  if (!parsed.success)
    throw problem(
      'validation',
      400,
      'The name is not valid',
      parsed.error.issues.map((issue) => issue.message).join('; '),
    );
  return parsed.data;
}
