// The pusher of one store: sends its outbox serially, oldest record first, each record by the sender of
// its kind (send/). A failure that says "later" keeps the record queued and stops the push, so order holds;
// one that says "no" fails that record only (a 403 also records that the store's key is read-only). A
// failure of the local files is neither: it ends the push and leaves the record as it was.
import type { Problem } from '#shared/problem';
import {
  isCreate,
  isSendable,
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
  };
  const send = createSendContext(ctx, () => void (summary.requests += 1));

  for (const listed of pendingRecords(db, storeId).filter((r) => isSendable(r.state))) {
    if (ctx.signal.aborted) break;
    // Read again: an earlier create may have rewritten this record's ids.
    const record = pendingRecord(db, storeId, listed.kind, listed.recordId);
    if (!record || !isSendable(record.state)) continue;
    try {
      const outcome = await SENDERS[record.kind](send, record);
      if (outcome === 'sent') summary.sent += 1;
      else if (outcome === 'waiting') summary.waiting += 1;
      else if (outcome === 'conflict') summary.conflicts += 1;
      else summary.failed += 1;
    } catch (error) {
      // The cache or the user's file failed (busy beside another process, full, read-only): that says
      // nothing of the edit, which stays as it is (sendable; a write that may have gone out keeps its
      // attempt, so the next push reads the test back first). Writing its state now would fail the same way.
      if (storageFailure(error) !== null) throw error;
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
        break;
      }
      if (statusOf(error) === 403)
        send.tx(() => markReadOnly(db, storeId, `${problem.title}: ${problem.detail}`, ctx.now()));
      failRecord(send, record, problem);
      summary.failed += 1;
    }
  }
  return summary;
}
