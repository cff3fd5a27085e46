// `edits.*`: records the user's edits and creates in the outbox (applied at once to the local copy),
// lists them, and carries out the user's decisions (retry, discard, undo, resolve a conflict).
import { randomUUID } from 'node:crypto';
import type { CoreEvent, PendingEdit, Services } from '../../../shared/contract';
import {
  checkTestChange,
  lockedFields,
  testFieldValue,
  TEST_EDIT_FIELDS,
} from '../../../shared/domain/mutability';
import type { UpdateTestField } from '../../../shared/api';
import { problem } from '../../../shared/problem';
import {
  appendOutbox,
  audiencesNamed,
  deleteAudience,
  deleteOutbox,
  deleteTag,
  outboxCounts,
  outboxRow,
  outboxRows,
  readOnlyReason,
  saveAudience,
  saveServerCopy,
  saveTag,
  tagsNamed,
  updateOutbox,
  type Db,
  type OutboxKind,
} from '../db';
import type { StoreRegistry } from '../stores/registry';
import {
  groupRecords,
  localAudience,
  pendingRecord,
  rebaseRecord,
  serverCampaign,
  serverTest,
  type PendingRecord,
} from '../sync/push/records';
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
    if (deps.pushOnEdit ?? true) void deps.engine.push(storeId).catch(() => undefined);
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
      label: labelOf(record),
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
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    };
  }

  function labelOf(record: PendingRecord): string {
    if (record.kind === 'test') {
      const test = serverTest(db, record.storeId, record.recordId);
      const title = record.changes.title;
      return typeof title === 'string' ? title : (test?.title ?? record.recordId);
    }
    if (record.kind === 'campaign') {
      const name = record.changes.name;
      return typeof name === 'string'
        ? name
        : (serverCampaign(db, record.storeId, record.recordId)?.name ?? record.recordId);
    }
    return String(record.changes.name ?? record.recordId);
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

  /** A failed record that gets a new edit goes back to the queue: "change it and retry". */
  function requeueFailed(storeId: string, kind: OutboxKind, recordId: string): void {
    const record = pendingRecord(db, storeId, kind, recordId);
    if (record && record.state === 'failed')
      updateOutbox(db, record.seqs, { state: 'queued', problem: null, note: null, now: now() });
  }

  /** A create dropped: edits that used its local id lose it, so nothing is ever sent with a made-up id. */
  function dropCreate(record: PendingRecord): void {
    const field = record.kind === 'tag' ? 'tagIds' : 'customAudienceIds';
    deleteOutbox(db, record.seqs);
    if (record.kind === 'tag') deleteTag(db, record.storeId, record.recordId);
    else deleteAudience(db, record.storeId, record.recordId);
    const touched = new Set<string>();
    for (const row of outboxRows(db, record.storeId)) {
      const ids = row.changes[field];
      if (row.kind !== 'test' || !Array.isArray(ids) || !ids.includes(record.recordId)) continue;
      updateOutbox(db, [row.seq], {
        changes: { ...row.changes, [field]: ids.filter((id) => id !== record.recordId) },
        ...(row.state === 'waiting' ? { state: 'queued' as const, note: null } : {}),
        now: now(),
      });
      touched.add(row.recordId);
    }
    for (const testId of touched) rebaseRecord(db, record.storeId, 'test', testId, now());
  }

  return {
    async list({ storeId }) {
      return groupRecords(outboxRows(db, storeId)).map(view);
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
      const unknown = fields.filter((f) => !(TEST_EDIT_FIELDS as readonly string[]).includes(f));
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
          locked.map((l) => `'${l.field}' is ${l.reason} (status: ${server.status})`).join('; '),
        );
      }
      const base = Object.fromEntries(fields.map((f) => [f, testFieldValue(server, f)]));
      const delta = Object.fromEntries(fields.map((f) => [f, given[f]]));
      db.transaction(() => {
        // The server's record is kept before the cache's copy turns into the local one.
        saveServerCopy(db, storeId, 'test', testId, server);
        requeueFailed(storeId, 'test', testId);
        const held = pendingRecord(db, storeId, 'test', testId);
        appendOutbox(db, {
          storeId,
          kind: 'test',
          recordId: testId,
          changes: delta,
          base,
          baseUpdatedAt: server.updatedAt,
          now: now(),
          ...(held?.state === 'conflict' ? { state: 'conflict' as const } : {}),
        });
        rebaseRecord(db, storeId, 'test', testId, now());
      })();
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
      const base = Object.fromEntries(fields.map((f) => [f, record[f] ?? null]));
      const delta = Object.fromEntries(
        fields.map((f) => [f, (changes as Record<string, unknown>)[f]]),
      );
      db.transaction(() => {
        saveServerCopy(db, storeId, 'campaign', campaignId, server);
        requeueFailed(storeId, 'campaign', campaignId);
        appendOutbox(db, {
          storeId,
          kind: 'campaign',
          recordId: campaignId,
          changes: delta,
          base,
          baseUpdatedAt: null,
          now: now(),
        });
        rebaseRecord(db, storeId, 'campaign', campaignId, now());
      })();
      afterEdit(storeId);
      const result = current(storeId, 'campaign', campaignId);
      if (!result) throw new Error('The edit was not recorded');
      return result;
    },

    async createTag({ storeId, name }) {
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
      db.transaction(() => {
        appendOutbox(db, {
          storeId,
          kind: 'tag',
          recordId: id,
          changes: { name },
          base: {},
          baseUpdatedAt: null,
          now: now(),
        });
        saveTag(db, storeId, { id, name });
      })();
      afterEdit(storeId);
      return { id, name };
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
      db.transaction(() => {
        appendOutbox(db, {
          storeId,
          kind: 'audience',
          recordId: id,
          changes: { name, rules },
          base: {},
          baseUpdatedAt: null,
          now: now(),
        });
        const record = pendingRecord(db, storeId, 'audience', id);
        if (record) saveAudience(db, storeId, localAudience(record), now());
      })();
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
      updateOutbox(db, record.seqs, { state: 'queued', problem: null, note: null, now: now() });
      afterEdit(storeId);
      return current(storeId, kind, recordId);
    },

    async discard({ storeId, kind, recordId }) {
      const record = mustFind(storeId, kind, recordId);
      db.transaction(() => {
        if (kind === 'tag' || kind === 'audience') dropCreate(record);
        else {
          deleteOutbox(db, record.seqs);
          rebaseRecord(db, storeId, kind, recordId, now());
        }
      })();
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
      db.transaction(() => {
        const record = pendingRecord(db, row.storeId, row.kind, row.recordId);
        if ((row.kind === 'tag' || row.kind === 'audience') && record) dropCreate(record);
        else {
          deleteOutbox(db, [seq]);
          rebaseRecord(db, row.storeId, row.kind, row.recordId, now());
        }
      })();
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
      const [keep, ...rest] = record.seqs;
      if (keep === undefined) return null;
      db.transaction(() => {
        deleteOutbox(db, rest);
        if (conflict.gone) {
          // A campaign that left the active list: send as is, or drop the change.
          if (choice === 'theirs') deleteOutbox(db, [keep]);
          else
            updateOutbox(db, [keep], {
              changes: record.changes,
              base: record.base,
              state: 'queued',
              conflict: null,
              note: null,
              forceSend: true,
              now: now(),
            });
          rebaseRecord(db, storeId, kind, recordId, now());
          return;
        }
        const held = conflict.fields[field];
        if (!held)
          throw problem(
            'validation',
            400,
            'Not in conflict',
            `'${field}' is not a field in conflict.`,
          );
        const changes = { ...record.changes };
        const base = { ...record.base };
        if (choice === 'theirs') {
          delete changes[field];
          delete base[field];
        } else {
          // Mine or a new value, sent over theirs: their value becomes the base it is compared with.
          if (choice === 'value') changes[field] = value ?? null;
          base[field] = held.theirs;
        }
        const fields = { ...conflict.fields };
        delete fields[field];
        const done = Object.keys(fields).length === 0;
        if (Object.keys(changes).length === 0) deleteOutbox(db, [keep]);
        else
          updateOutbox(db, [keep], {
            changes,
            base,
            state: done ? 'queued' : 'conflict',
            conflict: done ? null : { ...conflict, fields },
            note: done ? null : undefined,
            baseUpdatedAt: done ? conflict.theirsUpdatedAt : record.baseUpdatedAt,
            now: now(),
          });
        rebaseRecord(db, storeId, kind, recordId, now());
      })();
      afterEdit(storeId);
      return current(storeId, kind, recordId);
    },

    async push({ storeId }) {
      const ids = storeId === null ? deps.stores.rows().map((r) => r.id) : [storeId];
      const results = await Promise.all(ids.map((id) => deps.engine.push(id)));
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
