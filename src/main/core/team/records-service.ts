// The team layer's records as `team.*` serves them: a shared store's notes (and a store not shared's, as
// before), comments, owners, sign-offs and comments new to me, and the shared texts the notes and
// programme services read and write. The documents and the connection are service.ts's.
import type * as Y from 'yjs';
import type { DecisionCall, Services, TeamComment, TeamNote } from '#shared/contract/index';
import { problem } from '#shared/problem';
import {
  addComment,
  commentsOf,
  deleteComment,
  editComment,
  type TeamComment as LayerComment,
} from '#shared/team/comments';
import { teamTestIds, type Actor } from '#shared/team/records';
import {
  appendNote as appendTeamNote,
  noteOf,
  setNote as setTeamNote,
  setTakeaway as setTeamTakeaway,
  takeawayOf,
  teamNotes,
} from '#shared/team/texts';
import { approveSignOff, ownerOf, proposeSignOff, setOwner } from '#shared/team/values';
import { getNote, notesFor, setNote as setLocalNote } from '../db/user/notes';
import type { Db } from '../db/types';
import { commentsSeen, linkOfStore, markCommentsSeen as markSeen, teamRow } from '../db/user/team';
import { signOffOut } from './sign-offs';
import { commentNewsOf, ownersOf } from './views';

/** What the records need of the layer (service.ts gives it). */
export interface LayerAccess {
  db: Db;
  now(): string;
  /** A team store's document, loaded from the user file once. */
  docOf(teamStoreId: string): Y.Doc;
  /** A store's document; throws "not shared" for a store without a link. */
  sharedDoc(storeId: string): Y.Doc;
  /** This member, now (throws "no team joined"). */
  actor(): Actor;
  /** Throws "not found" for a store this desktop does not have. */
  requireStore(storeId: string): void;
  /** Runs a layer write, its refusal said as a validation problem. */
  writing<T>(run: () => T): T;
  /** The current call of a test, for a sign-off (null: no call made yet). */
  callOf(storeId: string, testId: string): Promise<DecisionCall | null>;
}

/** A shared store's note or takeaway; null from a read or write when the store is not shared. */
export interface SharedTexts {
  note(storeId: string, testId: string): TeamNote | null;
  setNote(storeId: string, testId: string, text: string): TeamNote | null;
  setTakeaway(storeId: string, testId: string, text: string): TeamNote | null;
}

export type RecordMethods = Pick<
  Services['team'],
  | 'notes'
  | 'setNote'
  | 'comments'
  | 'addComment'
  | 'editComment'
  | 'deleteComment'
  | 'owner'
  | 'setOwner'
  | 'signOff'
  | 'proposeSignOff'
  | 'signOffState'
  | 'owners'
  | 'commentNews'
  | 'markCommentsSeen'
>;

export function createTeamRecords(layer: LayerAccess): {
  methods: RecordMethods;
  texts: SharedTexts;
} {
  const { db, now, docOf, sharedDoc, actor, requireStore, writing } = layer;

  function sharedText(storeId: string, testId: string): TeamNote | null {
    const link = linkOfStore(db, storeId);
    return link ? noteOf(docOf(link.teamStoreId), testId) : null;
  }

  function commentOut(testId: string, comment: LayerComment): TeamComment {
    return { testId, ...comment };
  }

  function oneComment(doc: Y.Doc, testId: string, id: string): TeamComment {
    const found = commentsOf(doc, testId).find((comment) => comment.id === id);
    if (!found) throw problem('notFound', 404, 'No such comment', `No comment ${id} on ${testId}.`);
    return commentOut(testId, found);
  }

  /** Approves or proposes the test's current call (from the decisions cache). */
  async function signing(
    storeId: string,
    testId: string,
    write: (doc: Y.Doc, testId: string, call: DecisionCall, actor: Actor) => void,
  ) {
    requireStore(storeId);
    const doc = sharedDoc(storeId);
    const call = await layer.callOf(storeId, testId);
    if (call === null) {
      throw problem(
        'validation',
        400,
        'No call to sign off',
        `Test ${testId} has no call in this store's cache yet: sync the store first.`,
      );
    }
    writing(() => write(doc, testId, call, actor()));
    return signOffOut(doc, testId);
  }

  const methods: RecordMethods = {
    async notes({ storeId }) {
      requireStore(storeId);
      const link = linkOfStore(db, storeId);
      if (link) return teamNotes(docOf(link.teamStoreId));
      return [...notesFor(db, storeId)].map(([key, body]) => {
        const testId = key.slice(key.indexOf('\u0000') + 1);
        return {
          testId,
          text: body,
          updatedAt: getNote(db, storeId, testId)?.updatedAt ?? null,
          authors: [],
        };
      });
    },

    async setNote({ storeId, testId, text, append }) {
      requireStore(storeId);
      const link = linkOfStore(db, storeId);
      if (!link) {
        // A store not shared keeps its note where it always was, as notes.set writes it.
        const current = getNote(db, storeId, testId)?.body ?? '';
        const body =
          append && current !== ''
            ? current.endsWith('\n')
              ? current + text
              : `${current}\n${text}`
            : text;
        const at = now();
        setLocalNote(db, storeId, testId, body, at);
        return { testId, text: body, updatedAt: body.trim() === '' ? null : at, authors: [] };
      }
      const doc = docOf(link.teamStoreId);
      const who = actor();
      writing(() =>
        append ? appendTeamNote(doc, testId, text, who) : setTeamNote(doc, testId, text, who),
      );
      return noteOf(doc, testId);
    },

    async comments({ storeId, testId }) {
      requireStore(storeId);
      const doc = sharedDoc(storeId);
      const tests = testId === null ? teamTestIds(doc) : [testId];
      return tests.flatMap((id) => commentsOf(doc, id).map((comment) => commentOut(id, comment)));
    },

    async addComment({ storeId, testId, text }) {
      requireStore(storeId);
      const doc = sharedDoc(storeId);
      const id = writing(() => addComment(doc, testId, text, actor()));
      return oneComment(doc, testId, id);
    },

    async editComment({ storeId, testId, id, text }) {
      requireStore(storeId);
      const doc = sharedDoc(storeId);
      writing(() => editComment(doc, testId, id, text, actor()));
      return oneComment(doc, testId, id);
    },

    async deleteComment({ storeId, testId, id }) {
      requireStore(storeId);
      const doc = sharedDoc(storeId);
      writing(() => deleteComment(doc, testId, id, actor()));
      return oneComment(doc, testId, id);
    },

    async owner({ storeId, testId }) {
      requireStore(storeId);
      const owner = ownerOf(sharedDoc(storeId), testId);
      return { testId, owner: owner?.value ?? null, by: owner?.by ?? null, at: owner?.at ?? null };
    },

    async setOwner({ storeId, testId, owner }) {
      requireStore(storeId);
      const doc = sharedDoc(storeId);
      writing(() => setOwner(doc, testId, owner, actor()));
      const now = ownerOf(doc, testId);
      return { testId, owner: now?.value ?? null, by: now?.by ?? null, at: now?.at ?? null };
    },

    signOff: ({ storeId, testId }) => signing(storeId, testId, approveSignOff),
    proposeSignOff: ({ storeId, testId }) => signing(storeId, testId, proposeSignOff),

    async signOffState({ storeId, testId }) {
      requireStore(storeId);
      return signOffOut(sharedDoc(storeId), testId);
    },

    async owners({ storeId }) {
      requireStore(storeId);
      const link = linkOfStore(db, storeId);
      return link ? ownersOf(docOf(link.teamStoreId)) : [];
    },

    async commentNews({ storeId }) {
      requireStore(storeId);
      const link = linkOfStore(db, storeId);
      if (!link) return [];
      return commentNewsOf(
        docOf(link.teamStoreId),
        teamRow(db)?.member ?? null,
        commentsSeen(db, storeId),
      );
    },

    async markCommentsSeen({ storeId, testId }) {
      requireStore(storeId);
      markSeen(db, storeId, testId, now());
      return {};
    },
  };

  const texts: SharedTexts = {
    note: sharedText,
    setNote(storeId, testId, text) {
      const link = linkOfStore(db, storeId);
      if (!link) return null;
      const doc = docOf(link.teamStoreId);
      writing(() => setTeamNote(doc, testId, text, actor()));
      return noteOf(doc, testId);
    },
    setTakeaway(storeId, testId, text) {
      const link = linkOfStore(db, storeId);
      if (!link) return null;
      const doc = docOf(link.teamStoreId);
      writing(() => setTeamTakeaway(doc, testId, text, actor()));
      return takeawayOf(doc, testId);
    },
  };

  return { methods, texts };
}
