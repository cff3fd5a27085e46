// A shared store's review marks and annotations through the team layer: my review written beside the review memory's, the others' read back; annotations added and removed by anyone, copied into the user file for the charts and reports.
import type * as Y from 'yjs';
import type { TeamReview, TeamStoreChanges } from '#shared/contract/index';
import type { Actor } from '#shared/team/records';
import { TeamValueError } from '#shared/team/records';
import {
  addAnnotation as addTeamAnnotation,
  markReviewed as markTeamReviewed,
  removeAnnotation as removeTeamAnnotation,
  teamAnnotations,
  teamReviews,
} from '#shared/team/texts';
import type { Db } from '../db/types';
import {
  addAnnotation as addLocalAnnotation,
  listAnnotations,
  removeAnnotation as removeLocalAnnotation,
  type AnnotationRow,
} from '../db/user/notes';
import { teamRow } from '../db/user/team';
import { teamChangesOf } from './changes';

/** What the review and notes services ask of the layer; null (or nothing done) for a store not shared. */
export interface SharedReviews {
  /** Writes my review mark in a shared store's layer as of `at` (the review memory's own instant). */
  markReviewed(storeId: string, at: string): void;
  /** Others' review marks of a shared store, latest first; null when the store is not shared. */
  reviewsOf(storeId: string): TeamReview[] | null;
  /** Adds an annotation to a shared store's layer: the user file's copy of it, or null when not shared. */
  addAnnotation(storeId: string, day: string, label: string): AnnotationRow | null;
  /** Removes a shared store's annotation (anyone's) by its user-file id; null when not shared. */
  removeAnnotation(storeId: string, id: number): boolean | null;
  /** The Changes view's team section: each shared store's changes by others since my last review. */
  changes(storeId: string | null): TeamStoreChanges[];
}

export interface SharedReviewsDeps {
  db: Db;
  /** The layer of a store, null when it is not shared. */
  docOf(storeId: string): Y.Doc | null;
  /** The shared stores here. */
  sharedStores(): string[];
  /** Who writes now (throws when no team was joined). */
  actor(): Actor;
  /** Runs a layer write, its refusal said as a validation problem. */
  writing<T>(run: () => T): T;
}

/** An annotation's identity across the layer and the user file: its day, label and creation instant. */
const keyOf = (a: { day: string; label: string; at: string }) =>
  `${a.day}\u0000${a.at}\u0000${a.label}`;
const rowKey = (row: AnnotationRow) => keyOf({ day: row.day, label: row.label, at: row.createdAt });

/**
 * Makes the user file's annotations of a store the layer's: rows the layer no longer holds are removed,
 * its new ones added (dated as made), rows alike in both kept (their ids stay).
 */
export function mirrorAnnotations(db: Db, storeId: string, doc: Y.Doc): void {
  if (db.readonly) return;
  const wanted = new Map<string, { day: string; label: string; at: string }[]>();
  for (const a of teamAnnotations(doc)) {
    const list = wanted.get(keyOf(a)) ?? [];
    list.push(a);
    wanted.set(keyOf(a), list);
  }
  db.transaction(() => {
    for (const row of listAnnotations(db, storeId)) {
      const list = wanted.get(rowKey(row));
      if (list && list.length > 0) list.pop();
      else removeLocalAnnotation(db, storeId, row.id);
    }
    for (const list of wanted.values()) {
      for (const a of list) {
        addLocalAnnotation(db, { storeId, day: a.day, label: a.label, createdAt: a.at });
      }
    }
  }).immediate();
}

/**
 * The user file's annotations the layer has never held (made before the store was shared or linked)
 * become the team's, dated as they were made, then the copy follows the layer. A row the layer held
 * and lost (a colleague removed it) was removed from the file with it, so it is never brought back.
 */
export function adoptAnnotations(db: Db, storeId: string, doc: Y.Doc, actor: Actor | null): void {
  if (db.readonly) return;
  if (actor) {
    const held = new Set(teamAnnotations(doc).map(keyOf));
    doc.transact(() => {
      for (const row of listAnnotations(db, storeId)) {
        if (held.has(rowKey(row))) continue;
        try {
          addTeamAnnotation(
            doc,
            { day: row.day, label: row.label },
            { by: actor.by, at: row.createdAt },
          );
        } catch (error) {
          // A row the layer cannot hold (an odd date) stays a local annotation only.
          if (!(error instanceof TeamValueError)) throw error;
        }
      }
    });
  }
  mirrorAnnotations(db, storeId, doc);
}

export function createSharedReviews(deps: SharedReviewsDeps): SharedReviews {
  const { db } = deps;
  const me = () => teamRow(db)?.member ?? null;
  return {
    markReviewed(storeId, at) {
      const doc = deps.docOf(storeId);
      const team = teamRow(db);
      if (!doc || !team) return;
      markTeamReviewed(doc, { by: team.member, at });
    },

    reviewsOf(storeId) {
      const doc = deps.docOf(storeId);
      return doc ? teamReviews(doc).filter((mark) => mark.by !== me()) : null;
    },

    addAnnotation(storeId, day, label) {
      const doc = deps.docOf(storeId);
      if (!doc) return null;
      const who = deps.actor();
      deps.writing(() => addTeamAnnotation(doc, { day, label }, who));
      // The layer's change copied it into the user file already (the document's afterTransaction).
      mirrorAnnotations(db, storeId, doc);
      const key = keyOf({ day, label: label.trim(), at: who.at });
      const row = listAnnotations(db, storeId).find((r) => rowKey(r) === key);
      if (!row) throw new Error('The annotation added to the layer has no row in the user file');
      return row;
    },

    removeAnnotation(storeId, id) {
      const doc = deps.docOf(storeId);
      if (!doc) return null;
      const row = listAnnotations(db, storeId).find((r) => r.id === id);
      if (!row) return false;
      const held = teamAnnotations(doc).find((a) => keyOf(a) === rowKey(row));
      if (held) removeTeamAnnotation(doc, held.id);
      mirrorAnnotations(db, storeId, doc);
      // A row the layer never held (one it could not take) goes from the file alone.
      if (!held) removeLocalAnnotation(db, storeId, id);
      return true;
    },

    changes(storeId) {
      const ids = storeId === null ? deps.sharedStores() : [storeId];
      const out: TeamStoreChanges[] = [];
      for (const id of ids) {
        const doc = deps.docOf(id);
        if (doc) out.push(teamChangesOf(db, id, doc, me()));
      }
      return out;
    },
  };
}
