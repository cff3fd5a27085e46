// A shared store's texts (notes, takeaways: merged character by character), review marks and annotations.
import type * as Y from 'yjs';
import {
  Annotation,
  type MemberName,
  ReviewMark,
  TEAM_LIMITS,
  TextEdit,
  mapKey,
  noteRoot,
  splitKey,
  takeawayRoot,
  RecordId,
} from './layout';

import {
  checkActor,
  checkTestId,
  parsed,
  storeMap,
  testMap,
  teamTestIds,
  newId,
  TeamValueError,
  type Actor,
} from './records';

// ---------- texts: merged character by character ----------

export interface TeamText {
  testId: string;
  text: string;
  /** The latest edit by anyone (null: no edit recorded). */
  updatedAt: string | null;
  /** Who edited it, latest first. */
  authors: { name: MemberName; at: string }[];
}

/** Replaces a text by the smallest splice, so a concurrent edit elsewhere in it survives the merge. */
function replaceText(text: Y.Text, next: string): void {
  const current = text.toString();
  if (current === next) return;
  let start = 0;
  const shortest = Math.min(current.length, next.length);
  while (start < shortest && current.charCodeAt(start) === next.charCodeAt(start)) start += 1;
  let end = 0;
  while (
    end < shortest - start &&
    current.charCodeAt(current.length - 1 - end) === next.charCodeAt(next.length - 1 - end)
  ) {
    end += 1;
  }
  // Never split a surrogate pair: widen the splice to whole characters.
  const isLow = (s: string, i: number) =>
    i > 0 && i < s.length && /[\uDC00-\uDFFF]/.test(s[i] ?? '');
  while (start > 0 && (isLow(current, start) || isLow(next, start))) start -= 1;
  while (end > 0 && (isLow(current, current.length - end) || isLow(next, next.length - end)))
    end -= 1;
  const removed = current.length - start - end;
  if (removed > 0) text.delete(start, removed);
  const inserted = next.slice(start, next.length - end);
  if (inserted) text.insert(start, inserted);
}

function readText(
  doc: Y.Doc,
  root: string,
  testId: string,
  editKind: 'noteBy' | 'takeawayBy',
): TeamText {
  const authors: { name: MemberName; at: string }[] = [];
  for (const [key, raw] of testMap(doc, testId).entries()) {
    const { kind, suffix } = splitKey(key);
    const edit = kind === editKind && suffix !== null ? parsed(TextEdit, raw) : null;
    if (edit && suffix !== null) authors.push({ name: suffix, at: edit.at });
  }
  authors.sort((a, b) => Date.parse(b.at) - Date.parse(a.at) || (a.name < b.name ? -1 : 1));
  return {
    testId,
    text: doc.getText(root).toString(),
    updatedAt: authors[0]?.at ?? null,
    authors,
  };
}

function writeText(
  doc: Y.Doc,
  testId: string,
  next: string,
  actor: Actor,
  kind: 'note' | 'takeaway',
): void {
  checkActor(actor);
  checkTestId(testId);
  const limit = kind === 'note' ? TEAM_LIMITS.note : TEAM_LIMITS.takeaway;
  if (next.length > limit) {
    throw new TeamValueError(`A ${kind} is at most ${limit.toLocaleString('en-US')} characters.`);
  }
  if (kind === 'takeaway' && /[\r\n\u2028\u2029]/.test(next)) {
    throw new TeamValueError('A takeaway is one line.');
  }
  const root = kind === 'note' ? noteRoot(testId) : takeawayRoot(testId);
  doc.transact(() => {
    replaceText(doc.getText(root), next);
    testMap(doc, testId).set(mapKey(kind === 'note' ? 'noteBy' : 'takeawayBy', actor.by), {
      at: actor.at,
    });
  });
}

export function setNote(doc: Y.Doc, testId: string, text: string, actor: Actor): void {
  writeText(doc, testId, text, actor, 'note');
}

/** Adds text at the end of a note, on a line of its own when the note has text already. */
export function appendNote(doc: Y.Doc, testId: string, text: string, actor: Actor): void {
  const current = doc.getText(noteRoot(testId)).toString();
  const joined = current === '' || current.endsWith('\n') ? current + text : `${current}\n${text}`;
  writeText(doc, testId, joined, actor, 'note');
}

export function noteOf(doc: Y.Doc, testId: string): TeamText {
  return readText(doc, noteRoot(testId), testId, 'noteBy');
}

/** Every test's note that has text, by test id. */
export function teamNotes(doc: Y.Doc): TeamText[] {
  return teamTestIds(doc)
    .map((testId) => noteOf(doc, testId))
    .filter((note) => note.text !== '');
}

export function setTakeaway(doc: Y.Doc, testId: string, text: string, actor: Actor): void {
  writeText(doc, testId, text, actor, 'takeaway');
}

export function takeawayOf(doc: Y.Doc, testId: string): TeamText {
  return readText(doc, takeawayRoot(testId), testId, 'takeawayBy');
}

export function teamTakeaways(doc: Y.Doc): TeamText[] {
  return teamTestIds(doc)
    .map((testId) => takeawayOf(doc, testId))
    .filter((takeaway) => takeaway.text !== '');
}

// ---------- review marks ----------

/** Marks the store reviewed by the actor as of `actor.at` (each member keeps their latest). */
export function markReviewed(doc: Y.Doc, actor: Actor): void {
  checkActor(actor);
  storeMap(doc).set(mapKey('review', actor.by), { at: actor.at });
}

/** Who reviewed the store and when, latest first. */
export function teamReviews(doc: Y.Doc): { by: MemberName; at: string }[] {
  const out: { by: MemberName; at: string }[] = [];
  for (const [key, raw] of storeMap(doc).entries()) {
    const { kind, suffix } = splitKey(key);
    const mark = kind === 'review' && suffix !== null ? parsed(ReviewMark, raw) : null;
    if (mark && suffix !== null) out.push({ by: suffix, at: mark.at });
  }
  return out.sort((a, b) => Date.parse(b.at) - Date.parse(a.at) || (a.by < b.by ? -1 : 1));
}

// ---------- annotations ----------

export type TeamAnnotation = Annotation & { id: string };

export function addAnnotation(
  doc: Y.Doc,
  input: { day: string; label: string },
  actor: Actor,
  id: string = newId(),
): TeamAnnotation {
  checkActor(actor);
  if (!RecordId.safeParse(id).success) throw new TeamValueError(`"${id}" is not a valid id.`);
  const result = Annotation.safeParse({ ...input, by: actor.by, at: actor.at });
  if (!result.success) {
    throw new TeamValueError(
      `An annotation is a day (YYYY-MM-DD) and a label of 1 to ${TEAM_LIMITS.annotationLabel} characters.`,
    );
  }
  if (teamAnnotations(doc).length >= TEAM_LIMITS.annotations) {
    throw new TeamValueError(`A store has at most ${TEAM_LIMITS.annotations} annotations.`);
  }
  storeMap(doc).set(mapKey('annotation', id), result.data);
  return { ...result.data, id };
}

/** Removes an annotation (anyone's: they mark the store's calendar for the whole team). */
export function removeAnnotation(doc: Y.Doc, id: string): boolean {
  const map = storeMap(doc);
  const key = mapKey('annotation', id);
  if (!map.has(key)) return false;
  map.delete(key);
  return true;
}

/** The store's annotations by day, then when they were made. */
export function teamAnnotations(doc: Y.Doc): TeamAnnotation[] {
  const out: TeamAnnotation[] = [];
  for (const [key, raw] of storeMap(doc).entries()) {
    const { kind, suffix } = splitKey(key);
    const value = kind === 'annotation' && suffix !== null ? parsed(Annotation, raw) : null;
    if (value && suffix !== null) out.push({ ...value, id: suffix });
  }
  return out.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.at < b.at ? -1 : 1));
}
