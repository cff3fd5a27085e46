// Reads and writes of the user's notes per test and dated annotations per store (user file, never sent to the API).
import { statement } from '../statements';
import type { Db } from '../types';
import { hasUserData } from './attached';

export type NoteRow = { storeId: string; testId: string; body: string; updatedAt: string };

export function getNote(db: Db, storeId: string, testId: string): NoteRow | null {
  if (!hasUserData(db)) return null;
  return (
    statement<NoteRow>(
      db,
      `SELECT store_id AS storeId, test_id AS testId, body, updated_at AS updatedAt
       FROM user.notes WHERE store_id = ? AND test_id = ?`,
    ).get(storeId, testId) ?? null
  );
}

/** Saves a note; an empty (or blank) note is deleted rather than kept as an empty row. */
export function setNote(db: Db, storeId: string, testId: string, body: string, at: string): void {
  if (body.trim() === '') {
    statement(db, `DELETE FROM user.notes WHERE store_id = ? AND test_id = ?`).run(storeId, testId);
    return;
  }
  statement(
    db,
    `INSERT INTO user.notes (store_id, test_id, body, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (store_id, test_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`,
  ).run(storeId, testId, body, at);
}

/** The note of one test, '' when none: what the `tests` report's `note` column shows. */
export function noteFor(db: Db, storeId: string, testId: string): string {
  return getNote(db, storeId, testId)?.body ?? '';
}

/** Every note of a store (or all stores) keyed `storeId\u0000testId`: a report's bulk reader. */
export function notesFor(db: Db, storeId: string | null = null): Map<string, string> {
  const notes = new Map<string, string>();
  if (!hasUserData(db)) return notes;
  const rows = statement<{ storeId: string; testId: string; body: string }>(
    db,
    `SELECT store_id AS storeId, test_id AS testId, body FROM user.notes WHERE @storeId IS NULL OR store_id = @storeId`,
  ).all({ storeId });
  for (const row of rows) notes.set(noteKey(row.storeId, row.testId), row.body);
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

export function listAnnotations(db: Db, storeId: string): AnnotationRow[] {
  if (!hasUserData(db)) return [];
  return statement<AnnotationRow>(
    db,
    `SELECT id, store_id AS storeId, day, label, created_at AS createdAt
     FROM user.store_annotations WHERE store_id = ? ORDER BY day, id`,
  ).all(storeId);
}

export function addAnnotation(
  db: Db,
  a: { storeId: string; day: string; label: string; createdAt: string },
): AnnotationRow {
  const row = statement<AnnotationRow>(
    db,
    `INSERT INTO user.store_annotations (store_id, day, label, created_at) VALUES (?, ?, ?, ?)
     RETURNING id, store_id AS storeId, day, label, created_at AS createdAt`,
  ).get(a.storeId, a.day, a.label, a.createdAt);
  if (!row) throw new Error('Adding an annotation returned no row');
  return row;
}

export function removeAnnotation(db: Db, storeId: string, id: number): boolean {
  return (
    statement(db, `DELETE FROM user.store_annotations WHERE store_id = ? AND id = ?`).run(
      storeId,
      id,
    ).changes > 0
  );
}
