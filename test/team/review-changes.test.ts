// The Changes view's team section read from a shared store's document (team/changes.ts): every kind of change by others since my last review, who and when, newest first, my own left out, the page bounded; real SQLite files (the review memory's mark, the cache's titles), no server.
import { join } from 'node:path';
import * as Y from 'yjs';
import { afterEach, describe, expect, it } from 'vitest';
import { TEAM_CHANGES_PAGE } from '#shared/contract/index';
import { addComment, deleteComment, editComment } from '#shared/team/comments';
import { addAnnotation, markReviewed, setNote, setTakeaway } from '#shared/team/texts';
import { approveSignOff, proposeSignOff, setOwner, withdrawSignOff } from '#shared/team/values';
import { markReviewed as markStoreReviewed } from '#core/db/history/review';
import { openDatabase } from '#core/db/open';
import { upsertTests } from '#core/db/cache/tests';
import type { Db } from '#core/db/types';
import { teamChangesOf } from '#core/team/changes';
import { addStore, makeTest, tempDir } from '../db/fixtures';

const at = (minute: number) => new Date(Date.UTC(2026, 11, 1, 9, minute)).toISOString();
const bob = (minute: number) => ({ by: 'bob', at: at(minute) });
const alice = (minute: number) => ({ by: 'alice', at: at(minute) });

let db: Db | null = null;
afterEach(() => db?.close());

function open(): { db: Db; testId: string } {
  const dir = tempDir();
  db = openDatabase(join(dir, 'cache.db'), { userDataFile: join(dir, 'user.db') });
  addStore(db, 's', 'Shop');
  const test = makeTest({ n: 1, title: 'Free shipping banner' });
  upsertTests(db, { storeId: 's', tests: [test], runId: 'r', syncedAt: at(0) });
  return { db, testId: test.id };
}

describe("the team section's changes", () => {
  it('lists every kind by others after my last review, naming who and when, newest first; mine and older ones left out', () => {
    const { db, testId } = open();
    const doc = new Y.Doc();
    setNote(doc, testId, 'Before the review.', bob(1));
    markStoreReviewed(db, 's', at(10));
    setNote(doc, testId, 'Before the review, and after.', bob(11));
    setTakeaway(doc, testId, 'Banner wins on mobile.', bob(12));
    const kept = addComment(doc, testId, 'Looks good', bob(13));
    editComment(doc, testId, kept, 'Looks good to me', bob(14));
    const gone = addComment(doc, testId, 'Typo', bob(15));
    deleteComment(doc, testId, gone, bob(16));
    setOwner(doc, testId, null, bob(17));
    proposeSignOff(doc, testId, 'ship', bob(18));
    markReviewed(doc, bob(19));
    addAnnotation(doc, { day: '2026-11-27', label: 'Sale' }, bob(20));
    // Mine: never listed.
    addComment(doc, testId, 'My own', alice(21));
    setTakeaway(doc, testId, 'Banner wins on mobile!', alice(22));
    markReviewed(doc, alice(23));

    const store = teamChangesOf(db, 's', doc, 'alice');
    expect(store.since).toBe(at(10));
    expect(store.reviews).toEqual([{ by: 'bob', at: at(19) }]);
    expect(store.count).toBe(store.changes.length);
    expect(store.changes.map((c) => [c.kind, c.by, c.at, c.summary])).toEqual([
      ['annotation', 'bob', at(20), 'bob added the annotation “Sale” on 2026-11-27'],
      ['review', 'bob', at(19), 'bob reviewed the store'],
      ['signOff', 'bob', at(18), 'bob proposed the call “ship” for sign-off'],
      ['owner', 'bob', at(17), 'bob cleared the owner'],
      ['commentDeleted', 'bob', at(16), 'bob deleted their comment'],
      ['comment', 'bob', at(14), 'bob commented (edited since): “Looks good to me”'],
      ['takeaway', 'bob', at(12), 'bob edited the takeaway'],
      ['note', 'bob', at(11), 'bob edited the note'],
    ]);
    for (const change of store.changes) {
      expect(change.testTitle).toBe(change.testId === null ? null : 'Free shipping banner');
    }
  });

  it('says an edit of an older comment, an approval, a withdrawal and an owner set; never reviewed lists all', () => {
    const { db, testId } = open();
    const doc = new Y.Doc();
    const id = addComment(doc, testId, 'First', bob(1));
    proposeSignOff(doc, testId, 'keep_control', alice(2));
    expect(teamChangesOf(db, 's', doc, 'alice').changes.map((c) => c.kind)).toEqual(['comment']);
    markStoreReviewed(db, 's', at(5));
    editComment(doc, testId, id, 'First, edited', bob(6));
    approveSignOff(doc, testId, 'keep_control', bob(7));
    setOwner(doc, testId, 'alice', bob(8));
    expect(teamChangesOf(db, 's', doc, 'alice').changes.map((c) => c.summary)).toEqual([
      'bob made alice the owner',
      'bob approved the call “keep control”',
      'bob edited their comment: “First, edited”',
    ]);
    withdrawSignOff(doc, testId, bob(9));
    expect(teamChangesOf(db, 's', doc, 'alice').changes[0]?.summary).toBe(
      'bob withdrew the sign-off',
    );
  });

  it(`keeps the newest ${TEAM_CHANGES_PAGE} lines and counts them all`, () => {
    const { db } = open();
    const doc = new Y.Doc();
    for (let i = 0; i < TEAM_CHANGES_PAGE + 30; i++) {
      setNote(doc, `t${i}`, 'x', {
        by: 'bob',
        at: new Date(Date.UTC(2026, 11, 1, 9, 0, i)).toISOString(),
      });
    }
    const store = teamChangesOf(db, 's', doc, 'alice');
    expect(store.count).toBe(TEAM_CHANGES_PAGE + 30);
    expect(store.changes).toHaveLength(TEAM_CHANGES_PAGE);
    expect(store.changes[0]?.testId).toBe(`t${TEAM_CHANGES_PAGE + 29}`);
    // A test the cache does not hold is named by its id.
    expect(store.changes[0]?.testTitle).toBe(`t${TEAM_CHANGES_PAGE + 29}`);
  });
});
