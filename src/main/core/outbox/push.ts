// The pusher of one store: sends its outbox serially, oldest record first, each record by the sender of
// its kind (send/). A failure that says "later" keeps the record queued and stops the push, so order holds;
// one that says "no" fails that record only (a 403 also records that the store's key is read-only). A
// failure of the local files is neither: it ends the push and leaves the record as it was.
import type { Problem } from '#shared/problem';
import { ApiError } from '../api/errors';
import {
  isCreate,
  isSendable,
  localIdsNamed,
  WAITING_TO_BE_SENT,
  type OutboxKind,
  type PendingRecord,
} from './model';
import { storageFailure } from '../db/storage-errors';
import { markReadOnly, pendingRecord, pendingRecords } from './store';
import { sendAudience } from './send/audience';
import { sendCampaign } from './send/campaign';
import {
  createSendContext,
  failRecord,
  isTransient,
  mayHaveBeenApplied,
  problemOf,
  setRecord,
  statusOf,
  type PushContext,
  type SendContext,
  type SendOutcome,
} from './send/context';
import { sendTag } from './send/tag';
import { sendTest } from './send/test';

export type { PushContext };

export type PushSummary = {
  /** Records the server confirmed (or already held). */
  sent: number;
  failed: number;
  conflicts: number;
  waiting: number;
  requests: number;
  /** Why the push stopped before the end (offline, rate-limited, cancelled), or null. */
  stoppedBy: Problem | null;
  /** The store answered at least one request (whatever it said): it can be reached. */
  reached: boolean;
};

const SENDERS: Record<
  OutboxKind,
  (ctx: SendContext, record: PendingRecord) => Promise<SendOutcome>
> = {
  test: sendTest,
  campaign: sendCampaign,
  tag: sendTag,
  audience: sendAudience,
};

export async function pushStore(ctx: PushContext): Promise<PushSummary> {
  const { db, storeId } = ctx;
  const summary: PushSummary = {
    sent: 0,
    failed: 0,
    conflicts: 0,
    waiting: 0,
    requests: 0,
    stoppedBy: null,
    reached: false,
  };
  const send = createSendContext(ctx, () => void (summary.requests += 1));
  /** Records this push has tried (a create sent ahead of the edit naming it is not tried again). */
  const tried = new Set<string>();
  const keyOf = (r: Pick<PendingRecord, 'kind' | 'recordId'>) => `${r.kind}\u0000${r.recordId}`;

  /** Sends one record (read again: an earlier create may have rewritten its ids); false: stop the push. */
  async function sendOne(kind: OutboxKind, recordId: string): Promise<boolean> {
    tried.add(keyOf({ kind, recordId }));
    const record = pendingRecord(db, storeId, kind, recordId);
    if (!record || !isSendable(record.state)) return true;
    const before = summary.requests;
    try {
      const outcome = await SENDERS[record.kind](send, record);
      if (summary.requests > before) summary.reached = true;
      if (outcome === 'sent') summary.sent += 1;
      else if (outcome === 'waiting') summary.waiting += 1;
      else if (outcome === 'conflict') summary.conflicts += 1;
      else summary.failed += 1;
      return true;
    } catch (error) {
      // The cache or the user's file failed (busy beside another process, full, read-only): that says
      // nothing of the edit, which stays as it is (sendable; a write that may have gone out keeps its
      // attempt, so the next push reads the test back first). Writing its state now would fail the same way.
      if (storageFailure(error) !== null) throw error;
      if (error instanceof ApiError && error.status !== null) summary.reached = true;
      const problem = problemOf(error);
      if (isTransient(error)) {
        // A create's attempt is kept when the write may have gone through: the next push checks first.
        const attempted = record.attemptedAt ?? (mayHaveBeenApplied(error) ? ctx.now() : null);
        setRecord(send, record, {
          state: 'queued',
          note: WAITING_TO_BE_SENT,
          problem,
          attemptedAt: isCreate(record.kind) || record.kind === 'test' ? attempted : null,
        });
        summary.stoppedBy = problem;
        // Serial and in order: what follows waits for the store to answer again.
        return false;
      }
      if (statusOf(error) === 403)
        send.tx(() => markReadOnly(db, storeId, `${problem.title}: ${problem.detail}`, ctx.now()));
      failRecord(send, record, problem);
      summary.failed += 1;
      return true;
    }
  }

  for (const listed of pendingRecords(db, storeId).filter((r) => isSendable(r.state))) {
    if (ctx.signal.aborted) break;
    if (tried.has(keyOf(listed))) continue;
    // A test's edit naming tags or audiences created here carries them: their creates go first, so
    // one push sends both (an edit made before the tag it names would otherwise wait for the next).
    let going = true;
    for (const create of createsNamed(db, storeId, listed)) {
      if (ctx.signal.aborted || tried.has(keyOf(create))) continue;
      going = await sendOne(create.kind, create.recordId);
      if (!going) break;
    }
    if (!going || ctx.signal.aborted) break;
    if (!(await sendOne(listed.kind, listed.recordId))) break;
  }
  return summary;
}

/** The pending creates (sendable) whose local ids a test's edit names, oldest first. */
function createsNamed(
  db: PushContext['db'],
  storeId: string,
  record: PendingRecord,
): PendingRecord[] {
  if (record.kind !== 'test') return [];
  const creates = pendingRecords(db, storeId).filter(
    (r) => isCreate(r.kind) && isSendable(r.state),
  );
  const named = new Set(localIdsNamed(record.changes, new Set(creates.map((r) => r.recordId))));
  return creates.filter((r) => named.has(r.recordId));
}
