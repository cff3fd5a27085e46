// `notes.*`: the user's notes per test and annotations per store, in the user's own file; never sent to the API.
import type { Services } from '#shared/contract/index';
import { problem } from '#shared/problem';
import {
  addAnnotation,
  getNote,
  listAnnotations,
  removeAnnotation,
  setNote,
} from '../db/user/notes';
import { getStoreRow } from '../db/cache/stores';
import type { Db } from '../db/types';
import type { SharedReviews } from '../team/reviews';
import type { SharedTexts } from '../team/records-service';

/**
 * `shared`: a shared store's note is the team layer's (team/service.ts), and `reviews` its annotations
 * (team/reviews.ts, copied into the user file, where they are read); others stay in the user file.
 */
export function createNotesService(
  db: Db,
  clock: () => number,
  shared?: SharedTexts,
  reviews?: SharedReviews,
): Services['notes'] {
  const now = () => new Date(clock()).toISOString();
  function requireStore(storeId: string): void {
    if (!getStoreRow(db, storeId)) {
      throw problem('notFound', 404, 'Store not found', `No store with id ${storeId}.`);
    }
  }
  return {
    async get({ storeId, testId }) {
      const team = shared?.note(storeId, testId);
      if (team) return { body: team.text, updatedAt: team.updatedAt, authors: team.authors };
      const note = getNote(db, storeId, testId);
      return { body: note?.body ?? '', updatedAt: note?.updatedAt ?? null };
    },
    async set({ storeId, testId, body }) {
      requireStore(storeId);
      const team = shared?.setNote(storeId, testId, body);
      if (team) return { body: team.text, updatedAt: team.updatedAt, authors: team.authors };
      const at = now();
      setNote(db, storeId, testId, body, at);
      return { body, updatedAt: body.trim() === '' ? null : at };
    },
    annotations: async ({ storeId }) => listAnnotations(db, storeId),
    async addAnnotation({ storeId, day, label }) {
      requireStore(storeId);
      const team = reviews?.addAnnotation(storeId, day, label);
      if (team) return team;
      return addAnnotation(db, { storeId, day, label, createdAt: now() });
    },
    removeAnnotation: async ({ storeId, id }) => ({
      removed: reviews?.removeAnnotation(storeId, id) ?? removeAnnotation(db, storeId, id),
    }),
  };
}
