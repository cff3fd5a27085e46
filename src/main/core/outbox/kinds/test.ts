// The test kind: an edit of a synced test (the bridge's TestChanges), based on the test as last synced,
// applied field by field (shared/domain/test-fields) and sent as a PATCH. The test is read again first:
// if its updatedAt moved, each field is compared (base, mine, theirs); a field now locked by a launch
// fails it before anything is sent; an edit naming a tag or audience not created yet waits for it. An
// answer that does not say whether the PATCH was applied is settled by reading the test back.
import { Test, type UpdateTestBody } from '#shared/api/index';
import { edits } from '#shared/contract/edits';
import { lockedFields, testFieldValue } from '#shared/domain/mutability';
import { appProblem } from '#shared/problem';
import type { Db } from '../../db/types';
import { cachedTest, writeLocalTest } from '../../db/cache/local-copies';
import { applyTestChanges } from '../local-copies';
import { attemptedChanges, localIdsNamed, mergeWithTheirs, type PendingRecord } from '../model';
import { rememberSentEdit } from '../own-edits';
import { deleteServerCopy, pendingIds, saveServerCopy, serverCopy } from '../../db/user/outbox';
import { pendingRecord, pendingRecords } from '../store';
import type { OutboxKindSpec } from './kind';
import {
  confirmEdit,
  failRecord,
  holdConflict,
  mayHaveBeenApplied,
  problemOf,
  setRecord,
  statusOf,
  type SendContext,
  type SendOutcome,
} from './outcome';

/** The server's test under the pending edits: the saved copy, else the cache (no edit has touched it yet). */
export function serverTest(db: Db, storeId: string, testId: string): Test | null {
  const saved = Test.safeParse(serverCopy(db, storeId, 'test', testId));
  return saved.success ? saved.data : cachedTest(db, storeId, testId);
}

/** The cache's test as the server's plus the pending changes; with none left, the server's again. */
export function rebaseTest(
  db: Db,
  storeId: string,
  testId: string,
  record: PendingRecord | null,
): void {
  const server = serverTest(db, storeId, testId);
  if (server === null) return;
  if (record === null) {
    writeLocalTest(db, storeId, server);
    deleteServerCopy(db, storeId, 'test', testId);
    return;
  }
  saveServerCopy(db, storeId, 'test', testId, server);
  writeLocalTest(db, storeId, applyTestChanges(db, storeId, server, record.changes));
}

export async function sendTest(ctx: SendContext, record: PendingRecord): Promise<SendOutcome> {
  const { db, storeId } = ctx;
  const local = new Set([
    ...pendingIds(db, storeId, 'tag'),
    ...pendingIds(db, storeId, 'audience'),
  ]);
  const blocking = localIdsNamed(record.changes, local);
  if (blocking.length > 0) {
    const creates = pendingRecords(db, storeId);
    const names = blocking.map((id) => {
      const create = creates.find((r) => r.recordId === id);
      return `'${String(create?.changes.name ?? id)}'`;
    });
    setRecord(ctx, record, {
      state: 'waiting',
      note: `Waits for ${names.join(', ')} to be created in the store; it is then sent with the store's id.`,
    });
    return 'waiting';
  }
  setRecord(ctx, record, { state: 'sending' });
  ctx.counted();
  let theirs: Test;
  try {
    theirs = await ctx.client.getTest(record.recordId, { signal: ctx.signal });
  } catch (error) {
    if (statusOf(error) !== 404) throw error;
    return failRecord(
      ctx,
      record,
      appProblem('notFound', 404, 'The test is no longer in the store', problemOf(error).detail),
    );
  }
  const moved = record.baseUpdatedAt !== null && theirs.updatedAt !== record.baseUpdatedAt;
  const { body, conflicts } = mergeWithTheirs(
    record,
    (field) => testFieldValue(theirs, field as keyof UpdateTestBody),
    !moved,
    attemptedChanges(record),
  );
  // The server's record becomes the copy under the edits: fields only they changed are taken.
  ctx.tx(() => saveServerCopy(db, storeId, 'test', record.recordId, theirs));
  const locked = lockedFields(Object.keys(body) as (keyof UpdateTestBody)[], theirs.status);
  if (locked.length > 0) {
    const detail = locked.map((l) => l.message).join('; ');
    failRecord(
      ctx,
      record,
      appProblem('validation', 422, 'Field is locked', `${detail}. Nothing was sent.`),
    );
    ctx.tx(() =>
      rebaseTest(db, storeId, record.recordId, pendingRecord(db, storeId, 'test', record.recordId)),
    );
    return 'failed';
  }
  if (Object.keys(conflicts).length > 0)
    return holdConflict(ctx, record, {
      fields: conflicts,
      theirsUpdatedAt: theirs.updatedAt,
      gone: false,
    });
  if (Object.keys(body).length > 0) {
    // Marked before it leaves (durably): if the answer is lost, or the process killed, the next push
    // knows these values in the store may be its own and sends a later edit over them.
    setRecord(ctx, record, { attemptedAt: record.attemptedAt ?? ctx.now() });
    ctx.counted();
    try {
      await ctx.client.updateTest(record.recordId, body as UpdateTestBody, { signal: ctx.signal });
    } catch (error) {
      // No answer that says whether it was applied (a 5xx, a dropped connection, a timeout): the
      // store itself says, read back. One that applied it and failed after is caught up now, and
      // the push goes on; only a store that really has not taken it keeps the edit waiting.
      const applied = mayHaveBeenApplied(error) ? await readBack(ctx, record, body) : null;
      if (applied === null) throw error;
      theirs = applied;
    }
  }
  const server = theirs;
  return confirmEdit(ctx, record, () => {
    writeLocalTest(db, storeId, applyTestChanges(db, storeId, server, body));
    // The Changes view tells this edit from a change made elsewhere when the next sync sees it.
    rememberSentEdit(db, storeId, record.recordId, Object.keys(record.changes), ctx.now());
  });
}

/** The test as the store holds it when it holds every field of `body` as sent, else null (unread too). */
async function readBack(
  ctx: SendContext,
  record: PendingRecord,
  body: Record<string, unknown>,
): Promise<Test | null> {
  ctx.counted();
  let again: Test;
  try {
    again = await ctx.client.getTest(record.recordId, { signal: ctx.signal });
  } catch {
    // The first failure is the one the user reads.
    return null;
  }
  const left = mergeWithTheirs(
    { changes: body, base: {} },
    (field) => testFieldValue(again, field as keyof UpdateTestBody),
    true,
  ).body;
  return Object.keys(left).length === 0 ? again : null;
}

export const testKind: OutboxKindSpec<'test'> = {
  kind: 'test',
  changes: edits.editTest.input.shape.changes,
  create: null,
  keepsAttempt: true,
  label(db, record) {
    const title = record.changes.title;
    return typeof title === 'string'
      ? title
      : (serverTest(db, record.storeId, record.recordId)?.title ?? record.recordId);
  },
  renamable: false,
  server: serverTest,
  rebase: (db, storeId, testId, record) => rebaseTest(db, storeId, testId, record),
  rebasePulledLists: () => {},
  localIdsNamed,
  send: sendTest,
};
