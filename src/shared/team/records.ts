// The primitives of a shared store's Y.Doc (layout.ts): who writes, the refusal, a map's records by prefix and by test; the document's own marks.
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
import {
  type MemberName,
  SchemaMark,
  STORE_ROOT,
  TEAM_SCHEMA_VERSION,
  parseRootName,
  testKeyPrefix,
  splitTestKey,
  TESTS_ROOT,
  MemberName as MemberNameSchema,
  Instant,
  TeamTestId,
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

export function checkActor(actor: Actor): void {
  if (!MemberNameSchema.safeParse(actor.by).success) {
    throw new TeamValueError(`"${actor.by}" is not a valid member name.`);
  }
  if (!Instant.safeParse(actor.at).success) {
    throw new TeamValueError(`"${actor.at}" is not an ISO date and time.`);
  }
}

export function checkTestId(testId: string): void {
  if (!TeamTestId.safeParse(testId).success) {
    throw new TeamValueError(`"${testId}" is not a valid test id.`);
  }
}

export function parsed<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> | null {
  const result = schema.safeParse(value);
  return result.success ? result.data : null;
}

/** One map's records under a prefix: the store map whole, or one test's keys of the tests map. */
export interface Records {
  get(key: string): unknown;
  has(key: string): boolean;
  set(key: string, value: unknown): void;
  delete(key: string): void;
  entries(): Iterable<[string, unknown]>;
}

export function records(map: Y.Map<unknown>, prefix: string): Records {
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

export function testRecords(map: Y.Map<unknown>, testId: string): Records {
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

export const storeMap = (doc: Y.Doc) => records(doc.getMap<unknown>(STORE_ROOT), '');
export const testMap = (doc: Y.Doc, testId: string) =>
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

/** A new record's id. */
export const newId = () => globalThis.crypto.randomUUID();
