// A test's comment thread in a shared store: each comment its author's to edit and delete; a deletion wins over a concurrent edit and says so.
import type * as Y from 'yjs';
import {
  Comment,
  CommentDeletion,
  type MemberName,
  TEAM_LIMITS,
  mapKey,
  splitKey,
  RecordId,
} from './layout';

import {
  checkActor,
  checkTestId,
  parsed,
  testMap,
  newId,
  TeamValueError,
  type Actor,
} from './records';

// ---------- comments ----------

export interface TeamComment {
  id: string;
  author: MemberName;
  at: string;
  /** The text; null once deleted. */
  text: string | null;
  editedAt: string | null;
  deleted: { by: MemberName; at: string } | null;
  /** Deleted while an edit was made elsewhere: the deletion won and the edit is not shown. */
  editOverridden: boolean;
}

export function addComment(
  doc: Y.Doc,
  testId: string,
  text: string,
  actor: Actor,
  id: string = newId(),
): string {
  checkActor(actor);
  checkTestId(testId);
  if (!RecordId.safeParse(id).success) throw new TeamValueError(`"${id}" is not a valid id.`);
  checkCommentText(text);
  const map = testMap(doc, testId);
  if (map.has(mapKey('comment', id)) || map.has(mapKey('commentDeleted', id))) {
    throw new TeamValueError(`A comment ${id} exists already.`);
  }
  if (commentsOf(doc, testId).length >= TEAM_LIMITS.commentsPerTest) {
    throw new TeamValueError(`A test has at most ${TEAM_LIMITS.commentsPerTest} comments.`);
  }
  const comment: Comment = { author: actor.by, at: actor.at, text, editedAt: null, rev: 0 };
  map.set(mapKey('comment', id), comment);
  return id;
}

function checkCommentText(text: string): void {
  if (text.trim() === '' || text.length > TEAM_LIMITS.comment) {
    throw new TeamValueError(
      `A comment is 1 to ${TEAM_LIMITS.comment.toLocaleString('en-US')} characters.`,
    );
  }
}

/** The comment an author may change: theirs, not deleted. */
function ownComment(doc: Y.Doc, testId: string, id: string, actor: Actor): Comment {
  const map = testMap(doc, testId);
  if (map.has(mapKey('commentDeleted', id))) throw new TeamValueError('This comment was deleted.');
  const comment = parsed(Comment, map.get(mapKey('comment', id)));
  if (!comment) throw new TeamValueError(`There is no comment ${id} on this test.`);
  if (comment.author !== actor.by) {
    throw new TeamValueError(`Only ${comment.author} can change their comment.`);
  }
  return comment;
}

export function editComment(
  doc: Y.Doc,
  testId: string,
  id: string,
  text: string,
  actor: Actor,
): void {
  checkActor(actor);
  checkCommentText(text);
  const comment = ownComment(doc, testId, id, actor);
  const next: Comment = { ...comment, text, editedAt: actor.at, rev: comment.rev + 1 };
  testMap(doc, testId).set(mapKey('comment', id), next);
}

/** Deletes one's own comment: its text leaves the document, a mark says who deleted it and when. */
export function deleteComment(doc: Y.Doc, testId: string, id: string, actor: Actor): void {
  checkActor(actor);
  const comment = ownComment(doc, testId, id, actor);
  const mark: CommentDeletion = {
    author: comment.author,
    postedAt: comment.at,
    by: actor.by,
    at: actor.at,
    rev: comment.rev,
  };
  const map = testMap(doc, testId);
  doc.transact(() => {
    map.set(mapKey('commentDeleted', id), mark);
    map.delete(mapKey('comment', id));
  });
}

/** A test's thread, oldest first, deleted comments included (as marks). */
export function commentsOf(doc: Y.Doc, testId: string): TeamComment[] {
  const comments = new Map<string, Comment>();
  const deletions = new Map<string, CommentDeletion>();
  for (const [key, raw] of testMap(doc, testId).entries()) {
    const { kind, suffix } = splitKey(key);
    if (suffix === null) continue;
    if (kind === 'comment') {
      const value = parsed(Comment, raw);
      if (value) comments.set(suffix, value);
    } else if (kind === 'commentDeleted') {
      const value = parsed(CommentDeletion, raw);
      if (value) deletions.set(suffix, value);
    }
  }
  const out: TeamComment[] = [];
  for (const [id, deletion] of deletions) {
    const left = comments.get(id);
    out.push({
      id,
      author: deletion.author,
      at: deletion.postedAt,
      text: null,
      editedAt: null,
      deleted: { by: deletion.by, at: deletion.at },
      editOverridden: left !== undefined && left.rev > deletion.rev,
    });
  }
  for (const [id, comment] of comments) {
    if (deletions.has(id)) continue;
    out.push({ id, ...comment, deleted: null, editOverridden: false });
  }
  return out.sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || (a.id < b.id ? -1 : 1));
}
