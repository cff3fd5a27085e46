// Reads and writes of the user's notes per test and dated annotations per store (user file, never sent to the API).
import { read, write } from '../sql';
import type { Db } from '../types';
import { hasUserData } from './attached';

export type NoteRow = { storeId: string; testId: string; body: string; updatedAt: string };

type TestKey = { storeId: string; testId: string };

const GET_NOTE = read<NoteRow, TestKey>(
  `SELECT store_id AS storeId, test_id AS testId, body, updated_at AS updatedAt
   FROM user.notes WHERE store_id = @storeId AND test_id = @testId`,
);
const DELETE_NOTE = write<TestKey>(
  `DELETE FROM user.notes WHERE store_id = @storeId AND test_id = @testId`,
);
const SAVE_NOTE = write<TestKey & { body: string; at: string }>(
  `INSERT INTO user.notes (store_id, test_id, body, updated_at) VALUES (@storeId, @testId, @body, @at)
   ON CONFLICT (store_id, test_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`,
);
const NOTES_OF = read<
  { storeId: string; testId: string; body: string },
  { storeId: string | null }
>(
  `SELECT store_id AS storeId, test_id AS testId, body FROM user.notes WHERE @storeId IS NULL OR store_id = @storeId`,
);

export function getNote(db: Db, storeId: string, testId: string): NoteRow | null {
  if (!hasUserData(db)) return null;
  return GET_NOTE.get(db, { storeId, testId }) ?? null;
}

/** Saves a note; an empty (or blank) note is deleted rather than kept as an empty row. */
export function setNote(db: Db, storeId: string, testId: string, body: string, at: string): void {
  if (body.trim() === '') {
    DELETE_NOTE.run(db, { storeId, testId });
    return;
  }
  SAVE_NOTE.run(db, { storeId, testId, body, at });
}

/** The note of one test, '' when none: what the `tests` report's `note` column shows. */
export function noteFor(db: Db, storeId: string, testId: string): string {
  return getNote(db, storeId, testId)?.body ?? '';
}

/** Every note of a store (or all stores) keyed `storeId\u0000testId`: a report's bulk reader. */
export function notesFor(db: Db, storeId: string | null = null): Map<string, string> {
  const notes = new Map<string, string>();
  if (!hasUserData(db)) return notes;
  for (const row of NOTES_OF.all(db, { storeId }))
    notes.set(noteKey(row.storeId, row.testId), row.body);
  return notes;
}

export function noteKey(storeId: string, testId: string): string {
  return `${storeId}\u0000${testId}`;
}

export type AnnotationRow = {
  id: number;
  storeId: string;
  day: string;
  label: string;
  createdAt: string;
};

const ANNOTATIONS_OF = read<AnnotationRow, { storeId: string }>(
  `SELECT id, store_id AS storeId, day, label, created_at AS createdAt
   FROM user.store_annotations WHERE store_id = @storeId ORDER BY day, id`,
);
const ADD_ANNOTATION = read<
  AnnotationRow,
  { storeId: string; day: string; label: string; createdAt: string }
>(
  `INSERT INTO user.store_annotations (store_id, day, label, created_at)
   VALUES (@storeId, @day, @label, @createdAt)
   RETURNING id, store_id AS storeId, day, label, created_at AS createdAt`,
);
const REMOVE_ANNOTATION = write<{ storeId: string; id: number }>(
  `DELETE FROM user.store_annotations WHERE store_id = @storeId AND id = @id`,
);

export function listAnnotations(db: Db, storeId: string): AnnotationRow[] {
  if (!hasUserData(db)) return [];
  return ANNOTATIONS_OF.all(db, { storeId });
}

export function addAnnotation(
  db: Db,
  a: { storeId: string; day: string; label: string; createdAt: string },
): AnnotationRow {
  // A statement with RETURNING reads its row: a read, run once.
  const row = ADD_ANNOTATION.get(db, {
    storeId: a.storeId,
    day: a.day,
    label: a.label,
    createdAt: a.createdAt,
  });
  if (!row) throw new Error('Adding an annotation returned no row');
  return row;
}

export function removeAnnotation(db: Db, storeId: string, id: number): boolean {
  return REMOVE_ANNOTATION.run(db, { storeId, id }).changes > 0;
}
