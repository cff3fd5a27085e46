// The pusher of one store: sends its outbox serially, oldest record first, each record's rows collapsed
// into one request carrying only the fields that differ from the base. Tests are read again first and
// compared field by field (base, mine, theirs); campaigns against GET /campaigns/active; creates that may
// have gone through are looked up (audiences) or recognised by their 409 (tags) before anything is repeated.
import type { Campaign, Test, UpdateCampaignBody, UpdateTestBody } from '../../../../shared/api';
import { lockedFields, sameValue, testFieldValue } from '../../../../shared/domain/mutability';
import { appProblem, ProblemError, type Problem } from '../../../../shared/problem';
import type { ApiClient } from '../../api';
import { ApiError } from '../../api/errors';
import {
  applyCampaignChanges,
  applyTestChanges,
  deleteAudience,
  deleteOutbox,
  deleteServerCopy,
  deleteTag,
  markReadOnly,
  clearReadOnly,
  outboxRows,
  saveAudience,
  saveServerCopy,
  saveTag,
  tagsNamed,
  updateOutbox,
  writeLocalCampaign,
  writeLocalTest,
  type ConflictRecord,
  type Db,
  type FieldConflict,
} from '../../db';
import {
  groupRecords,
  pendingIds,
  rebaseRecord,
  serverCampaign,
  type PendingRecord,
} from './records';

export interface PushContext {
  db: Db;
  storeId: string;
  client: ApiClient;
  signal: AbortSignal;
  now(): string;
  /** Called after every change to the outbox, so the UI can refresh. */
  changed(): void;
}

export type PushSummary = {
  /** Records the server confirmed (or already held). */
  sent: number;
  failed: number;
  conflicts: number;
  waiting: number;
  requests: number;
  /** Why the push stopped before the end (offline, rate-limited, cancelled), or null. */
  stoppedBy: Problem | null;
};

export const WAITING_TO_BE_SENT = 'Waiting to be sent';
export const TAG_ID_UNKNOWN =
  'The store already has a tag with this name, probably this one (its first request may have gone through before the answer was lost). ' +
  'The API cannot list tags, so Splitbook waits until a synced test carries the tag to learn its id; edits using it wait too. ' +
  'Discard the tag to send those edits without it.';

/** Failures that say "later", not "no": the edit stays queued. */
function isTransient(error: unknown): boolean {
  if (error instanceof ApiError) {
    if (
      [
        'rate-limited',
        'network',
        'timeout',
        'aborted',
        'unauthorized',
        'invalid-response',
      ].includes(error.kind)
    )
      return true;
    return error.status !== null && error.status >= 500;
  }
  return false;
}

/** A write that got no answer may have been applied; one refused before connecting surely was not. */
function mayHaveBeenApplied(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  if (error.kind === 'network') return !error.retryable;
  return error.kind === 'timeout' || (error.status !== null && error.status >= 500);
}

function problemOf(error: unknown): Problem {
  if (error instanceof ApiError) {
    // The server's own words for a refusal, so the user reads why.
    if (error.kind === 'http')
      return appProblem(kindOf(error.status), error.status ?? 400, error.title, error.detail);
    return error.toProblem();
  }
  if (error instanceof ProblemError) return error.problem;
  return appProblem(
    'internal',
    500,
    'The edit could not be sent',
    error instanceof Error ? error.message : String(error),
  );
}

function kindOf(status: number | null) {
  switch (status) {
    case 403:
      return 'forbidden' as const;
    case 404:
      return 'notFound' as const;
    case 409:
      return 'conflict' as const;
    case 400:
    case 422:
      return 'validation' as const;
    default:
      return 'api' as const;
  }
}

function statusOf(error: unknown): number | null {
  return error instanceof ApiError ? error.status : null;
}

export async function pushStore(ctx: PushContext): Promise<PushSummary> {
  const { db, storeId } = ctx;
  const summary: PushSummary = {
    sent: 0,
    failed: 0,
    conflicts: 0,
    waiting: 0,
    requests: 0,
    stoppedBy: null,
  };
  let active: Campaign[] | null = null;
  const sendable = (r: PendingRecord) =>
    r.state === 'queued' || r.state === 'sending' || r.state === 'waiting';
  const records = groupRecords(outboxRows(db, storeId)).filter(sendable);

  const tx = (fn: () => void) => {
    db.transaction(fn)();
    ctx.changed();
  };
  const set = (record: PendingRecord, patch: Omit<Parameters<typeof updateOutbox>[2], 'now'>) =>
    tx(() => updateOutbox(db, record.seqs, { ...patch, now: ctx.now() }));

  for (const listed of records) {
    if (ctx.signal.aborted) break;
    // Re-read: an earlier create may have rewritten this record's ids.
    const record = groupRecords(outboxRows(db, storeId)).find(
      (r) => r.kind === listed.kind && r.recordId === listed.recordId,
    );
    if (!record || !sendable(record)) continue;
    const attemptedBefore = record.attemptedAt;
    try {
      let outcome: 'sent' | 'waiting' | 'conflict' | 'failed';
      switch (record.kind) {
        case 'tag':
          outcome = await pushTag(record);
          break;
        case 'audience':
          outcome = await pushAudience(record);
          break;
        case 'test':
          outcome = await pushTest(record);
          break;
        case 'campaign':
          active ??= await listActive();
          outcome = await pushCampaign(record, active);
          break;
      }
      if (outcome === 'sent') summary.sent += 1;
      else if (outcome === 'waiting') summary.waiting += 1;
      else if (outcome === 'conflict') summary.conflicts += 1;
      else summary.failed += 1;
    } catch (error) {
      if (isTransient(error)) {
        const keepAttempt = attemptedBefore ?? (mayHaveBeenApplied(error) ? ctx.now() : null);
        set(record, {
          state: 'queued',
          note: WAITING_TO_BE_SENT,
          problem: problemOf(error),
          attemptedAt: record.kind === 'tag' || record.kind === 'audience' ? keepAttempt : null,
        });
        summary.stoppedBy = problemOf(error);
        // Serial and in order: what follows waits for the store to answer again.
        break;
      }
      const problem = problemOf(error);
      if (statusOf(error) === 403) {
        tx(() => markReadOnly(db, storeId, `${problem.title}: ${problem.detail}`, ctx.now()));
      }
      set(record, { state: 'failed', problem, note: null });
      summary.failed += 1;
    }
  }
  return summary;

  async function listActive(): Promise<Campaign[]> {
    summary.requests += 1;
    return (await ctx.client.listActiveCampaigns({ signal: ctx.signal })).items;
  }

  function succeeded(): void {
    clearReadOnly(db, storeId);
  }

  /** Marks the create as possibly sent before sending it: a crash after this line must not repeat it blindly. */
  function markAttempt(record: PendingRecord): void {
    set(record, { state: 'sending', attemptedAt: record.attemptedAt ?? ctx.now() });
  }

  async function pushTag(record: PendingRecord): Promise<'sent' | 'waiting' | 'failed'> {
    const name = String(record.changes.name ?? '');
    const known = () =>
      tagsNamed(db, storeId, name).find((t) => !pendingIds(db, storeId, 'tag').has(t.id));
    if (record.attemptedAt !== null) {
      // It may have gone through: a synced test carrying the name tells its id, with no request at all.
      const seen = known();
      if (seen) {
        finishCreate(record, seen.id);
        return 'sent';
      }
      if (record.state === 'waiting') return 'waiting';
    }
    markAttempt(record);
    try {
      summary.requests += 1;
      const { id } = await ctx.client.createTag({ name }, { signal: ctx.signal });
      finishCreate(record, id);
      return 'sent';
    } catch (error) {
      if (statusOf(error) !== 409) throw error;
      const existing = known();
      if (existing) {
        finishCreate(record, existing.id);
        return 'sent';
      }
      if (record.attemptedAt !== null) {
        set(record, { state: 'waiting', note: TAG_ID_UNKNOWN, problem: problemOf(error) });
        return 'waiting';
      }
      set(record, { state: 'failed', problem: problemOf(error), note: null });
      return 'failed';
    }
  }

  async function pushAudience(record: PendingRecord): Promise<'sent' | 'failed'> {
    const name = String(record.changes.name ?? '');
    const findByName = async () => {
      summary.requests += 1;
      const list = await ctx.client.listCustomAudiences({ signal: ctx.signal });
      return list.items.find((a) => a.name === name) ?? null;
    };
    if (record.attemptedAt !== null) {
      // The last attempt may have gone through: audiences can be listed, so look before repeating.
      const found = await findByName();
      if (found) {
        finishCreate(record, found.id, found);
        return 'sent';
      }
    }
    markAttempt(record);
    const rules = Array.isArray(record.changes.rules) ? record.changes.rules : [];
    summary.requests += 1;
    try {
      const created = await ctx.client.createCustomAudience(
        {
          name,
          rules: rules as NonNullable<Parameters<ApiClient['createCustomAudience']>[0]['rules']>,
        },
        { signal: ctx.signal },
      );
      const audience = created ?? (await findByName());
      if (!audience)
        throw new Error(
          'The store created the audience but did not return it, and it is not in its list',
        );
      finishCreate(record, audience.id, audience);
      return 'sent';
    } catch (error) {
      if (statusOf(error) === 400) {
        set(record, { state: 'failed', problem: problemOf(error), note: null });
        return 'failed';
      }
      throw error;
    }
  }

  /** The server's id replaces the local one everywhere: dependent edits, the cache, then the create row goes. */
  function finishCreate(
    record: PendingRecord,
    serverId: string,
    audience?: Parameters<typeof saveAudience>[2],
  ): void {
    const localId = record.recordId;
    const field = record.kind === 'tag' ? 'tagIds' : 'customAudienceIds';
    tx(() => {
      succeeded();
      if (record.kind === 'tag') {
        deleteTag(db, storeId, localId);
        saveTag(db, storeId, { id: serverId, name: String(record.changes.name ?? '') });
      } else {
        deleteAudience(db, storeId, localId);
        saveAudience(
          db,
          storeId,
          audience ?? { id: serverId, name: String(record.changes.name), rules: [] },
          ctx.now(),
        );
      }
      deleteOutbox(db, record.seqs);
      const dependents = new Set<string>();
      for (const row of outboxRows(db, storeId)) {
        const ids = row.changes[field];
        if (row.kind !== 'test' || !Array.isArray(ids) || !ids.includes(localId)) continue;
        const changes = {
          ...row.changes,
          [field]: ids.map((id) => (id === localId ? serverId : id)),
        };
        const waiting = row.state === 'waiting';
        updateOutbox(db, [row.seq], {
          changes,
          now: ctx.now(),
          ...(waiting ? { state: 'queued' as const, note: null, problem: null } : {}),
        });
        dependents.add(row.recordId);
      }
      for (const testId of dependents) rebaseRecord(db, storeId, 'test', testId, ctx.now());
    });
  }

  /** Ids in a test's change that name creates not sent yet. */
  function unsentCreates(record: PendingRecord): string[] {
    const local = new Set([
      ...pendingIds(db, storeId, 'tag'),
      ...pendingIds(db, storeId, 'audience'),
    ]);
    return ['tagIds', 'customAudienceIds'].flatMap((field) => {
      const ids = record.changes[field];
      return Array.isArray(ids)
        ? ids.filter((id): id is string => typeof id === 'string' && local.has(id))
        : [];
    });
  }

  async function pushTest(
    record: PendingRecord,
  ): Promise<'sent' | 'waiting' | 'conflict' | 'failed'> {
    const blocking = unsentCreates(record);
    if (blocking.length > 0) {
      const names = blocking.map((id) => {
        const create = groupRecords(outboxRows(db, storeId)).find((r) => r.recordId === id);
        return `'${String(create?.changes.name ?? id)}'`;
      });
      set(record, {
        state: 'waiting',
        note: `Waits for ${names.join(', ')} to be created in the store; it is then sent with the store's id.`,
      });
      return 'waiting';
    }
    set(record, { state: 'sending' });
    summary.requests += 1;
    let theirs: Test;
    try {
      theirs = await ctx.client.getTest(record.recordId, { signal: ctx.signal });
    } catch (error) {
      if (statusOf(error) === 404) {
        set(record, {
          state: 'failed',
          note: null,
          problem: appProblem(
            'notFound',
            404,
            'The test is no longer in the store',
            problemOf(error).detail,
          ),
        });
        return 'failed';
      }
      throw error;
    }
    const moved = record.baseUpdatedAt !== null && theirs.updatedAt !== record.baseUpdatedAt;
    const body: Record<string, unknown> = {};
    const conflicts: Record<string, FieldConflict> = {};
    for (const [field, mine] of Object.entries(record.changes)) {
      const theirsValue = testFieldValue(theirs, field as keyof UpdateTestBody);
      if (sameValue(field, theirsValue, mine)) continue; // already there (our own earlier write, or theirs agrees)
      const base = record.base[field];
      if (!moved || sameValue(field, theirsValue, base)) body[field] = mine;
      else conflicts[field] = { base, mine, theirs: theirsValue };
    }
    // The server's record becomes the copy under the edits: fields only they changed are taken.
    tx(() => saveServerCopy(db, storeId, 'test', record.recordId, theirs));
    const locked = lockedFields(Object.keys(body) as (keyof UpdateTestBody)[], theirs.status);
    if (locked.length > 0) {
      const detail = locked
        .map((l) => `'${l.field}' is ${l.reason} (status: ${theirs.status})`)
        .join('; ');
      set(record, {
        state: 'failed',
        note: null,
        problem: appProblem('validation', 422, 'Field is locked', `${detail}. Nothing was sent.`),
      });
      tx(() => rebaseRecord(db, storeId, 'test', record.recordId, ctx.now()));
      return 'failed';
    }
    if (Object.keys(conflicts).length > 0) {
      holdConflict(record, { fields: conflicts, theirsUpdatedAt: theirs.updatedAt, gone: false });
      tx(() => rebaseRecord(db, storeId, 'test', record.recordId, ctx.now()));
      return 'conflict';
    }
    if (Object.keys(body).length > 0) {
      summary.requests += 1;
      await ctx.client.updateTest(record.recordId, body as UpdateTestBody, { signal: ctx.signal });
    }
    tx(() => {
      succeeded();
      deleteOutbox(db, record.seqs);
      deleteServerCopy(db, storeId, 'test', record.recordId);
      writeLocalTest(db, storeId, applyTestChanges(db, storeId, theirs, body));
    });
    return 'sent';
  }

  /** The record's rows become one, holding the conflict until the user picks. */
  function holdConflict(record: PendingRecord, conflict: ConflictRecord): void {
    tx(() => {
      const [keep, ...rest] = record.seqs;
      if (keep === undefined) return;
      deleteOutbox(db, rest);
      updateOutbox(db, [keep], {
        changes: record.changes,
        base: record.base,
        baseUpdatedAt: record.baseUpdatedAt,
        state: 'conflict',
        conflict,
        note: conflict.gone
          ? 'This campaign is no longer in the active list, so Splitbook cannot re-read it to check for changes made elsewhere. Send anyway or discard.'
          : 'Changed in the store too since you edited it: pick yours, theirs or a new value for each field.',
        problem: null,
        now: ctx.now(),
      });
    });
  }

  async function pushCampaign(
    record: PendingRecord,
    active: Campaign[],
  ): Promise<'sent' | 'conflict' | 'failed'> {
    const theirs = active.find((c) => c.id === record.recordId) ?? null;
    if (theirs === null && !record.forceSend) {
      holdConflict(record, { fields: {}, theirsUpdatedAt: null, gone: true });
      return 'conflict';
    }
    const body: Record<string, unknown> = {};
    const conflicts: Record<string, FieldConflict> = {};
    for (const [field, mine] of Object.entries(record.changes)) {
      if (theirs === null) {
        body[field] = mine;
        continue;
      }
      const theirsValue = (theirs as Record<string, unknown>)[field] ?? null;
      if (sameValue(field, theirsValue, mine)) continue;
      if (record.forceSend || sameValue(field, theirsValue, record.base[field])) body[field] = mine;
      else conflicts[field] = { base: record.base[field], mine, theirs: theirsValue };
    }
    if (theirs) tx(() => saveServerCopy(db, storeId, 'campaign', record.recordId, theirs));
    if (Object.keys(conflicts).length > 0) {
      holdConflict(record, { fields: conflicts, theirsUpdatedAt: null, gone: false });
      tx(() => rebaseRecord(db, storeId, 'campaign', record.recordId, ctx.now()));
      return 'conflict';
    }
    set(record, { state: 'sending' });
    let updated: Campaign | null = null;
    if (Object.keys(body).length > 0) {
      summary.requests += 1;
      updated = await ctx.client.updateCampaign(record.recordId, body as UpdateCampaignBody, {
        signal: ctx.signal,
      });
    }
    tx(() => {
      succeeded();
      deleteOutbox(db, record.seqs);
      const base = theirs ?? serverCampaign(db, storeId, record.recordId);
      deleteServerCopy(db, storeId, 'campaign', record.recordId);
      if (updated) writeLocalCampaign(db, storeId, updated);
      else if (base) writeLocalCampaign(db, storeId, applyCampaignChanges(base, body));
    });
    return 'sent';
  }
}
