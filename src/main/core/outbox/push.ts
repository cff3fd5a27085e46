// The pusher of one store: sends its outbox serially, oldest record first, each record by its kind
// (kinds/: queue → kind → api → result). A failure that says "later" keeps the record queued and stops
// the push, so order holds; one that says "no" fails that record only (a 403 also records that the
// store's key is read-only). A failure of the local files is neither: it ends the push and leaves the
// record as it was.
import type { Campaign } from '#shared/api/index';
import type { Problem } from '#shared/problem';
import { ApiError } from '../api/errors';
import { storageFailure } from '../db/storage-errors';
import { isCreate, kindOf, type PushContext, type SendContext } from './kinds/index';
import {
  failRecord,
  isTransient,
  mayHaveBeenApplied,
  problemOf,
  setRecord,
  statusOf,
} from './kinds/outcome';
import { isSendable, WAITING_TO_BE_SENT, type OutboxKind, type PendingRecord } from './model';
import { rebaseRecord, settleCreate } from './rebase';
import { markReadOnly } from '../db/user/outbox';
import { pendingRecord, pendingRecords } from './store';

export type { PushContext };

/**
 * The context of one push: `counted` hears of every request it makes. What differs by kind once a
 * sender has its answer (rebasing a local copy, settling a create) is looked up in the registry here,
 * so a kind's module never reaches back through the generic parts.
 */
export function createSendContext(push: PushContext, counted: () => void): SendContext {
  let active: Campaign[] | null = null;
  return {
    ...push,
    counted,
    tx(fn) {
      push.db.transaction(fn).immediate();
      push.changed();
    },
    async activeCampaigns() {
      if (active === null) {
        counted();
        active = (await push.client.listActiveCampaigns({ signal: push.signal })).items;
      }
      return active;
    },
    rebase(record) {
      rebaseRecord(push.db, push.storeId, record.kind, record.recordId, push.now());
    },
    settle(record, confirmed) {
      settleCreate(push.db, record, confirmed, push.now());
    },
  };
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
  /** The store answered at least one request (whatever it said): it can be reached. */
  reached: boolean;
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
      const outcome = await kindOf(record.kind).send(send, record);
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
          attemptedAt: kindOf(record.kind).keepsAttempt ? attempted : null,
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

/** The pending creates (sendable) whose local ids an edit names (a test's tags, say), oldest first. */
function createsNamed(
  db: PushContext['db'],
  storeId: string,
  record: PendingRecord,
): PendingRecord[] {
  const names = kindOf(record.kind).localIdsNamed;
  const creates = pendingRecords(db, storeId).filter(
    (r) => isCreate(r.kind) && isSendable(r.state),
  );
  const named = new Set(names(record.changes, new Set(creates.map((r) => r.recordId))));
  return creates.filter((r) => named.has(r.recordId));
}
