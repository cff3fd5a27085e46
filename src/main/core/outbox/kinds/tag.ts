// The tag kind: a tag created here under a local id (its change: a name), kept as a local tag until the
// store gives its id, and sent as a POST. Tags cannot be listed, but names are unique in a store whatever their case, so
// a 409 names one tag: it is found on the tests the store lists (each carries its tags) and its id taken,
// and the edits using it go on. A create that may have gone through is first looked for on a synced test.
// An id is never guessed.
import { appProblem, type Problem } from '#shared/problem';
import type { Tag } from '#shared/api/index';
import { edits } from '#shared/contract/edits';
import { TAG_ID_UNKNOWN, type PendingRecord } from '../model';
import { deleteTag, saveTag, tagById, tagsNamed } from '../../db/cache/local-copies';
import { pendingIds } from '../../db/user/outbox';
import type { OutboxKindSpec } from './kind';
import {
  confirmCreate,
  failRecord,
  markAttempt,
  problemOf,
  setRecord,
  statusOf,
  type SendContext,
  type SendOutcome,
} from './outcome';

/** Names as the API compares them: case-insensitively. */
const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The store's tag of this name, from the tests it lists: the whole listing, a page at a time, stopping
 * at the first test that carries it. Null when none does (the tag exists on no test).
 */
async function tagInListing(ctx: SendContext, name: string): Promise<Tag | null> {
  for await (const page of ctx.client.walkTests({ signal: ctx.signal })) {
    ctx.counted();
    for (const test of page.items) {
      const tag = test.tags.find((t) => sameName(t.name, name));
      if (tag) return tag;
    }
  }
  return null;
}

/** A 409 whose tag no listed test carries: what the user can do about it. */
function onNoTest(name: string, refusal: Problem): Problem {
  return appProblem(
    'conflict',
    409,
    `The store already has a tag named “${name}”`,
    `${refusal.detail ? `${refusal.detail} ` : ''}Tag names are unique in a store whatever their case, and none of the store's tests carries this one, so Splitbook cannot learn its id (the API cannot list tags). Put the tag on a test in the store's admin and retry, rename this tag, or discard it to send the edits using it without it.`,
  );
}

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
    // The store has a tag of this name (ours from an attempt whose answer was lost, one made in an old
    // backup's time, or someone else's): the one tag the user means. Its id is on the tests carrying it.
    const existing = known() ?? (await tagInListing(ctx, name));
    if (existing) return confirmCreate(ctx, record, { id: existing.id });
    // Ours, probably, from an attempt whose answer was lost, on no test yet: wait to learn its id.
    if (record.attemptedAt !== null) {
      setRecord(ctx, record, { state: 'waiting', note: TAG_ID_UNKNOWN, problem: problemOf(error) });
      return 'waiting';
    }
    return failRecord(ctx, record, onNoTest(name, problemOf(error)));
  }
}

export const tagKind: OutboxKindSpec<'tag'> = {
  kind: 'tag',
  changes: edits.createTag.input.pick({ name: true }),
  create: {
    replaceLocal(db, record, confirmed) {
      deleteTag(db, record.storeId, record.recordId);
      if (confirmed)
        saveTag(db, record.storeId, { id: confirmed.id, name: String(record.changes.name ?? '') });
    },
  },
  keepsAttempt: true,
  label: (_db, record) => String(record.changes.name ?? record.recordId),
  renamable: true,
  server: () => null,
  rebase(db, storeId, tagId, record) {
    if (record === null) return;
    const name = String(record.changes.name ?? '');
    if (tagById(db, storeId, tagId) === null) saveTag(db, storeId, { id: tagId, name });
  },
  rebasePulledLists: () => {},
  localIdsNamed: () => [],
  send: sendTag,
};
