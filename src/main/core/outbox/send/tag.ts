// Sends a tag created here. Tags cannot be listed, so a create that may have gone through is recognised by
// a synced test carrying its name, or by the store's 409 on sending it again; its id is never guessed.
import { TAG_ID_UNKNOWN, type PendingRecord } from '../model';
import { tagsNamed } from '../local-copies';
import { pendingIds } from '../store';
import {
  confirmCreate,
  failRecord,
  markAttempt,
  problemOf,
  setRecord,
  statusOf,
  type SendContext,
  type SendOutcome,
} from './context';

export async function sendTag(ctx: SendContext, record: PendingRecord): Promise<SendOutcome> {
  const name = String(record.changes.name ?? '');
  /** A tag of this name the store gave an id (seen on a synced test), not one of ours still pending. */
  const known = () =>
    tagsNamed(ctx.db, ctx.storeId, name).find(
      (t) => !pendingIds(ctx.db, ctx.storeId, 'tag').has(t.id),
    );
  if (record.attemptedAt !== null) {
    // It may have gone through: a synced test carrying the name tells its id, with no request at all.
    const seen = known();
    if (seen) return confirmCreate(ctx, record, { id: seen.id });
    if (record.state === 'waiting') return 'waiting';
  }
  markAttempt(ctx, record);
  try {
    ctx.counted();
    const { id } = await ctx.client.createTag({ name }, { signal: ctx.signal });
    return confirmCreate(ctx, record, { id });
  } catch (error) {
    if (statusOf(error) !== 409) throw error;
    const existing = known();
    if (existing) return confirmCreate(ctx, record, { id: existing.id });
    // Ours, probably, from an attempt whose answer was lost: wait to learn its id.
    if (record.attemptedAt !== null) {
      setRecord(ctx, record, { state: 'waiting', note: TAG_ID_UNKNOWN, problem: problemOf(error) });
      return 'waiting';
    }
    // Never attempted before: someone else's tag.
    return failRecord(ctx, record, problemOf(error));
  }
}
