// The Changes view's team section: what other members did in a shared store since my last review (notes, takeaways, comments, reviews, owners, sign-offs, annotations), each line naming who and when, read from the layer's own stamps.
import type * as Y from 'yjs';
import { TEAM_CHANGES_PAGE, type TeamChange, type TeamStoreChanges } from '#shared/contract/index';
import { commentsOf } from '#shared/team/comments';
import { TextEdit, splitKey } from '#shared/team/layout';
import { parsed, teamTestIds, testMap } from '#shared/team/records';
import { teamAnnotations, teamReviews } from '#shared/team/texts';
import { ownerOf, signOffStampOf } from '#shared/team/values';
import { testTitles } from '../db/history/changes';
import { storeMark } from '../db/history/review';
import type { Db } from '../db/types';

/** A comment's text in a line: its first 80 characters, quoted. */
function quoted(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return `“${line.length > 80 ? `${line.slice(0, 79)}…` : line}”`;
}

const callWords = (call: string) => `“${call.replaceAll('_', ' ')}”`;

type Draft = Omit<TeamChange, 'testTitle'>;

/**
 * Every change by someone other than `me` stamped after my last review of the store (the review
 * memory's mark, which `review.markReviewed` writes with the layer's; never reviewed: every change).
 * A change made offline before my review and received after it is dated by when it was made, so it
 * is not listed: the layer keeps when, not when it arrived.
 */
export function teamChangesOf(
  db: Db,
  storeId: string,
  doc: Y.Doc,
  me: string | null,
): TeamStoreChanges {
  const since = storeMark(db, storeId).reviewedAt;
  const after = since === null ? -Infinity : Date.parse(since);
  const news = (by: string, at: string) => by !== me && Date.parse(at) > after;
  const drafts: Draft[] = [];
  const add = (draft: Draft) => {
    if (news(draft.by, draft.at)) drafts.push(draft);
  };

  for (const testId of teamTestIds(doc)) {
    // Who edited the texts and when, from their stamps alone (the texts themselves are not read).
    for (const [key, raw] of testMap(doc, testId).entries()) {
      const { kind, suffix: name } = splitKey(key);
      if ((kind !== 'noteBy' && kind !== 'takeawayBy') || name === null) continue;
      const edit = parsed(TextEdit, raw);
      if (!edit) continue;
      const what = kind === 'noteBy' ? 'note' : 'takeaway';
      add({ kind: what, testId, by: name, at: edit.at, summary: `${name} edited the ${what}` });
    }
    for (const comment of commentsOf(doc, testId)) {
      const { author } = comment;
      if (comment.deleted) {
        const { by, at } = comment.deleted;
        const whose = by === author ? 'their' : `${author}'s`;
        add({ kind: 'commentDeleted', testId, by, at, summary: `${by} deleted ${whose} comment` });
      } else if (comment.text !== null && news(author, comment.at)) {
        const edited = comment.editedAt === null ? '' : ' (edited since)';
        add({
          kind: 'comment',
          testId,
          by: author,
          at: comment.editedAt ?? comment.at,
          summary: `${author} commented${edited}: ${quoted(comment.text)}`,
        });
      } else if (comment.text !== null && comment.editedAt !== null) {
        add({
          kind: 'commentEdited',
          testId,
          by: author,
          at: comment.editedAt,
          summary: `${author} edited their comment: ${quoted(comment.text)}`,
        });
      }
    }
    const owner = ownerOf(doc, testId);
    if (owner) {
      add({
        kind: 'owner',
        testId,
        by: owner.by,
        at: owner.at,
        summary:
          owner.value === null
            ? `${owner.by} cleared the owner`
            : `${owner.by} made ${owner.value} the owner`,
      });
    }
    const signOff = signOffStampOf(doc, testId);
    if (signOff) {
      const { by, at, value } = signOff;
      add({
        kind: 'signOff',
        testId,
        by,
        at,
        summary:
          value === null
            ? `${by} withdrew the sign-off`
            : value.approvedBy !== null
              ? `${by} approved the call ${callWords(value.call)}`
              : `${by} proposed the call ${callWords(value.call)} for sign-off`,
      });
    }
  }
  for (const { by, at } of teamReviews(doc)) {
    add({ kind: 'review', testId: null, by, at, summary: `${by} reviewed the store` });
  }
  for (const a of teamAnnotations(doc)) {
    add({
      kind: 'annotation',
      testId: null,
      by: a.by,
      at: a.at,
      summary: `${a.by} added the annotation ${quoted(a.label)} on ${a.day}`,
    });
  }

  drafts.sort(
    (a, b) =>
      Date.parse(b.at) - Date.parse(a.at) ||
      (a.testId ?? '').localeCompare(b.testId ?? '') ||
      a.kind.localeCompare(b.kind),
  );
  const page = drafts.slice(0, TEAM_CHANGES_PAGE);
  const titles = testTitles(
    db,
    storeId,
    page.flatMap((d) => (d.testId === null ? [] : [d.testId])),
  );
  return {
    storeId,
    since,
    reviews: teamReviews(doc).filter((mark) => mark.by !== me),
    count: drafts.length,
    changes: page.map((d) => ({
      ...d,
      testTitle: d.testId === null ? null : (titles.get(d.testId) ?? d.testId),
    })),
  };
}
