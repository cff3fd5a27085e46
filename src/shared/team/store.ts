// Typed reads and writes of one shared store's Y.Doc (layout.ts): the only code that touches its maps and texts.
//
// Semantics, one per kind of value:
// - texts (notes, takeaways) merge character by character (Yjs): two offline edits both survive;
// - single values (owner, plan, decision settings, sign-off) take the last writer: a write removes the
//   candidates its writer has seen and adds its own, so what is left after a merge are writes made
//   without seeing each other, and the latest `at` wins (ties by name); every reader sees who and when;
// - comments are their author's to edit and delete; a deletion is a mark of its own, so a comment
//   deleted on one desktop while edited on another ends deleted, and says that an edit was overridden;
// - review marks and text edits are kept per member (each member's latest).
import type * as Y from 'yjs';
import type { z } from 'zod';
import type { DecisionCall, DecisionSettingsPatch } from '../domain/decisions/schemas';
import {
  Annotation,
  Comment,
  CommentDeletion,
  type MemberName,
  ReviewMark,
  SchemaMark,
  type SignOff,
  STORE_ROOT,
  StampedOwner,
  StampedPlan,
  StampedSettings,
  StampedSignOff,
  TEAM_LIMITS,
  TEAM_SCHEMA_VERSION,
  TextEdit,
  mapKey,
  noteRoot,
  parseRootName,
  splitKey,
  takeawayRoot,
  testKeyPrefix,
  splitTestKey,
  TESTS_ROOT,
  MemberName as MemberNameSchema,
  Instant,
  TeamTestId,
  RecordId,
} from './layout';

/** Who writes and when (an ISO instant). */
export interface Actor {
  by: MemberName;
  at: string;
}

/** A write the layout refuses: the text says why, in words for the user. */
export class TeamValueError extends Error {
  override name = 'TeamValueError';
}

export interface Stamped<T> {
  value: T;
  by: MemberName;
  at: string;
}

function checkActor(actor: Actor): void {
  if (!MemberNameSchema.safeParse(actor.by).success) {
    throw new TeamValueError(`"${actor.by}" is not a valid member name.`);
  }
  if (!Instant.safeParse(actor.at).success) {
    throw new TeamValueError(`"${actor.at}" is not an ISO date and time.`);
  }
}

function checkTestId(testId: string): void {
  if (!TeamTestId.safeParse(testId).success) {
    throw new TeamValueError(`"${testId}" is not a valid test id.`);
  }
}

function parsed<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> | null {
  const result = schema.safeParse(value);
  return result.success ? result.data : null;
}

/** One map's records under a prefix: the store map whole, or one test's keys of the tests map. */
interface Records {
  get(key: string): unknown;
  has(key: string): boolean;
  set(key: string, value: unknown): void;
  delete(key: string): void;
  entries(): Iterable<[string, unknown]>;
}

function records(map: Y.Map<unknown>, prefix: string): Records {
  return {
    get: (key) => map.get(prefix + key),
    has: (key) => map.has(prefix + key),
    set: (key, value) => void map.set(prefix + key, value),
    delete: (key) => map.delete(prefix + key),
    *entries() {
      for (const [key, value] of map.entries()) {
        if (key.startsWith(prefix)) yield [key.slice(prefix.length), value];
      }
    },
  };
}

/**
 * The keys of the tests map by test, so a test's records are found without walking every test's
 * (a write of one owner would otherwise cost the whole map). Kept by the writes made here at once,
 * and by an observer for the changes that arrive from others (each a transaction of its own).
 */
const testIndexes = new WeakMap<Y.Map<unknown>, Map<string, Set<string>>>();

function testIndex(map: Y.Map<unknown>): Map<string, Set<string>> {
  const existing = testIndexes.get(map);
  if (existing) return existing;
  const index = new Map<string, Set<string>>();
  const follow = (key: string) => {
    const split = splitTestKey(key);
    if (!split) return;
    if (map.has(key)) {
      const keys = index.get(split.testId) ?? new Set<string>();
      keys.add(key);
      index.set(split.testId, keys);
    } else {
      index.get(split.testId)?.delete(key);
    }
  };
  for (const key of map.keys()) follow(key);
  map.observe((event) => {
    for (const key of event.keysChanged) follow(key);
  });
  testIndexes.set(map, index);
  return index;
}

function testRecords(map: Y.Map<unknown>, testId: string): Records {
  const index = testIndex(map);
  const prefix = testKeyPrefix(testId);
  const keysOf = () => index.get(testId) ?? new Set<string>();
  return {
    get: (key) => map.get(prefix + key),
    has: (key) => map.has(prefix + key),
    set: (key, value) => {
      map.set(prefix + key, value);
      index.set(testId, keysOf().add(prefix + key));
    },
    delete: (key) => {
      map.delete(prefix + key);
      keysOf().delete(prefix + key);
    },
    *entries() {
      for (const key of [...keysOf()]) {
        if (map.has(key)) yield [key.slice(prefix.length), map.get(key)];
      }
    },
  };
}

const storeMap = (doc: Y.Doc) => records(doc.getMap<unknown>(STORE_ROOT), '');
const testMap = (doc: Y.Doc, testId: string) =>
  testRecords(doc.getMap<unknown>(TESTS_ROOT), testId);

// ---------- the document ----------

/** Marks a new document with the layout's version (idempotent; every sharer writes the same). */
export function initTeamDoc(doc: Y.Doc): void {
  const map = storeMap(doc);
  if (!map.has('schema')) map.set('schema', { version: TEAM_SCHEMA_VERSION });
}

/** The layout version a document says it has (null: not marked yet). */
export function teamSchemaVersion(doc: Y.Doc): number | null {
  return parsed(SchemaMark, storeMap(doc).get('schema'))?.version ?? null;
}

/** Every test the document holds anything of, sorted. */
export function teamTestIds(doc: Y.Doc): string[] {
  const ids = new Set<string>();
  for (const name of doc.share.keys()) {
    const root = parseRootName(name);
    if (root && 'testId' in root) ids.add(root.testId);
  }
  for (const key of doc.getMap<unknown>(TESTS_ROOT).keys()) {
    const split = splitTestKey(key);
    if (split) ids.add(split.testId);
  }
  return [...ids].sort();
}

// ---------- single values: the last writer wins ----------

function writeStamped(doc: Y.Doc, map: Records, kind: string, value: unknown, actor: Actor): void {
  doc.transact(() => {
    for (const [key] of [...map.entries()]) if (splitKey(key).kind === kind) map.delete(key);
    map.set(mapKey(kind, actor.by), { value, by: actor.by, at: actor.at });
  });
}

function readStamped<T extends z.ZodType>(
  map: Records,
  kind: string,
  schema: T,
): z.infer<T> | null {
  let best: (z.infer<T> & { by: string; at: string }) | null = null;
  for (const [key, raw] of map.entries()) {
    if (splitKey(key).kind !== kind) continue;
    const value = parsed(schema, raw) as (z.infer<T> & { by: string; at: string }) | null;
    if (!value) continue;
    if (!best || later(value, best)) best = value;
  }
  return best;
}

/** Whether a stamped write is later than another: its instant, then its writer's name (a fixed order). */
function later(a: { by: string; at: string }, b: { by: string; at: string }): boolean {
  const ta = Date.parse(a.at);
  const tb = Date.parse(b.at);
  if (ta !== tb) return ta > tb;
  return a.by > b.by;
}

export function setOwner(doc: Y.Doc, testId: string, owner: MemberName | null, actor: Actor): void {
  checkActor(actor);
  checkTestId(testId);
  if (owner !== null && !MemberNameSchema.safeParse(owner).success) {
    throw new TeamValueError(`"${owner}" is not a valid member name.`);
  }
  writeStamped(doc, testMap(doc, testId), 'owner', owner, actor);
}

export function ownerOf(doc: Y.Doc, testId: string): Stamped<MemberName | null> | null {
  return readStamped(testMap(doc, testId), 'owner', StampedOwner);
}

/** A test's own planned length (7–365 days; null: none of its own), as decisions.setPlan takes it. */
export function setPlan(
  doc: Y.Doc,
  testId: string,
  plannedDays: number | null,
  actor: Actor,
): void {
  checkActor(actor);
  checkTestId(testId);
  if (plannedDays !== null && !StampedPlan.shape.value.safeParse(plannedDays).success) {
    throw new TeamValueError('A planned length is a whole number of days from 7 to 365.');
  }
  writeStamped(doc, testMap(doc, testId), 'plan', plannedDays, actor);
}

export function planOf(doc: Y.Doc, testId: string): Stamped<number | null> | null {
  return readStamped(testMap(doc, testId), 'plan', StampedPlan);
}

/** The store's decision settings (its override of the global ones), replaced whole. */
export function setDecisionSettings(doc: Y.Doc, patch: DecisionSettingsPatch, actor: Actor): void {
  checkActor(actor);
  const result = StampedSettings.shape.value.safeParse(patch);
  if (!result.success) throw new TeamValueError('These decision settings are out of bounds.');
  writeStamped(doc, storeMap(doc), 'settings', result.data, actor);
}

export function decisionSettingsOf(doc: Y.Doc): Stamped<DecisionSettingsPatch> | null {
  return readStamped(storeMap(doc), 'settings', StampedSettings);
}

// ---------- sign-off: proposed, then approved by NAME on DATE ----------

export type SignOffState = SignOff & { state: 'proposed' | 'approved'; by: MemberName; at: string };

export function signOffOf(doc: Y.Doc, testId: string): SignOffState | null {
  const stamped = readStamped(testMap(doc, testId), 'signOff', StampedSignOff);
  if (!stamped?.value) return null;
  const state = stamped.value.approvedBy === null ? 'proposed' : 'approved';
  return { ...stamped.value, state, by: stamped.by, at: stamped.at };
}

/** Proposes a call for sign-off; a new proposal replaces an earlier one, approved or not. */
export function proposeSignOff(doc: Y.Doc, testId: string, call: DecisionCall, actor: Actor): void {
  checkActor(actor);
  checkTestId(testId);
  const value: SignOff = {
    call,
    proposedBy: actor.by,
    proposedAt: actor.at,
    approvedBy: null,
    approvedAt: null,
  };
  writeStamped(doc, testMap(doc, testId), 'signOff', value, actor);
}

/**
 * Approves the proposed call. `call` must be the one proposed, so an approval never lands on a
 * proposal its approver did not see; with no proposal, the call is proposed and approved at once.
 */
export function approveSignOff(doc: Y.Doc, testId: string, call: DecisionCall, actor: Actor): void {
  checkActor(actor);
  checkTestId(testId);
  const current = signOffOf(doc, testId);
  if (current && current.call !== call) {
    throw new TeamValueError(
      `The call proposed for sign-off is "${current.call}", not "${call}": propose it again first.`,
    );
  }
  const value: SignOff = {
    call,
    proposedBy: current?.proposedBy ?? actor.by,
    proposedAt: current?.proposedAt ?? actor.at,
    approvedBy: actor.by,
    approvedAt: actor.at,
  };
  writeStamped(doc, testMap(doc, testId), 'signOff', value, actor);
}

/** Withdraws the sign-off (proposed or approved): the call is not signed off any more. */
export function withdrawSignOff(doc: Y.Doc, testId: string, actor: Actor): void {
  checkActor(actor);
  checkTestId(testId);
  writeStamped(doc, testMap(doc, testId), 'signOff', null, actor);
}

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

const newId = () => globalThis.crypto.randomUUID();

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
