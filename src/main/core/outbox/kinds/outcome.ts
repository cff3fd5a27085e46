// The results every kind's sender ends with: the writes that end a record's attempt (each in one
// transaction, then the UI told), and how an API error reads (later, no, or maybe already applied).
// It knows no kind: what differs by kind (rebase, settling a create) the send context does by registry.
import { appProblem, ProblemError, type Problem } from '#shared/problem';
import { ApiError } from '../../api/errors';
import { heldInConflict, type ConflictRecord, type PendingRecord, type RowPatch } from '../model';
import { clearReadOnly, deleteOutbox, deleteServerCopy, updateOutbox } from '../../db/user/outbox';
import { rewriteRecord } from '../store';
import type { Confirmed, SendContext } from './kind';

export type { PushContext, SendContext, SendOutcome } from './kind';

/** One record's rows get `patch`. */
export function setRecord(ctx: SendContext, record: PendingRecord, patch: RowPatch): void {
  ctx.tx(() => updateOutbox(ctx.db, record.seqs, { ...patch, now: ctx.now() }));
}

/** The record failed with this problem: it waits for the user (change it, retry or discard). */
export function failRecord(ctx: SendContext, record: PendingRecord, problem: Problem): 'failed' {
  setRecord(ctx, record, { state: 'failed', problem, note: null });
  return 'failed';
}

/** Marks a create as possibly sent before sending it: a crash after this line must not repeat it blindly. */
export function markAttempt(ctx: SendContext, record: PendingRecord): void {
  setRecord(ctx, record, { state: 'sending', attemptedAt: record.attemptedAt ?? ctx.now() });
}

/** The record's rows become one held as a conflict, its local copy rebased on what the store holds now. */
export function holdConflict(
  ctx: SendContext,
  record: PendingRecord,
  conflict: ConflictRecord,
): 'conflict' {
  ctx.tx(() => {
    rewriteRecord(ctx.db, record, heldInConflict(record, conflict), ctx.now());
    ctx.rebase(record);
  });
  return 'conflict';
}

/**
 * The store took (or already held) a test's or campaign's edit: its rows and server copy go, and the
 * cache gets the store's record (`writeLocal`, the kind's own writes). A write that worked also says the
 * key may write.
 */
export function confirmEdit(
  ctx: SendContext,
  record: PendingRecord,
  writeLocal: () => void,
): 'sent' {
  ctx.tx(() => {
    clearReadOnly(ctx.db, ctx.storeId);
    deleteOutbox(ctx.db, record.seqs);
    deleteServerCopy(ctx.db, ctx.storeId, record.kind, record.recordId);
    writeLocal();
  });
  return 'sent';
}

/** The store confirmed a create (or already held it): its id replaces the local one everywhere. */
export function confirmCreate(
  ctx: SendContext,
  record: PendingRecord,
  confirmed: Confirmed,
): 'sent' {
  ctx.tx(() => {
    clearReadOnly(ctx.db, ctx.storeId);
    ctx.settle(record, confirmed);
  });
  return 'sent';
}

/** Failures that say "later", not "no": the edit stays queued. */
export function isTransient(error: unknown): boolean {
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
export function mayHaveBeenApplied(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  if (error.kind === 'network') return !error.retryable;
  return error.kind === 'timeout' || (error.status !== null && error.status >= 500);
}

/** The problem the user reads: for a refusal, the store's own title and detail. */
export function problemOf(error: unknown): Problem {
  if (error instanceof ApiError) {
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

export function statusOf(error: unknown): number | null {
  return error instanceof ApiError ? error.status : null;
}
