// The checker of a shared store's Y.Doc against its layout (layout.ts): what the server runs on a copy before it accepts an update.
import * as Y from 'yjs';
import {
  STORE_KEYS,
  TEAM_LIMITS,
  TEST_KEYS,
  keySchema,
  parseRootName,
  splitKey,
  splitTestKey,
} from './layout';

export interface TeamProblem {
  root: string;
  key: string | null;
  problem: string;
}

/** Roots to check, each with the keys of it that changed (null: all of it). */
export type ChangedRoots = Map<string, Set<string> | null>;

/** Every problem of the whole document (an empty list: it fits the layout). */
export function checkTeamDoc(doc: Y.Doc): TeamProblem[] {
  const all: ChangedRoots = new Map();
  for (const name of doc.share.keys()) all.set(name, null);
  return checkTeamRoots(doc, all);
}

/** The problems of the roots (and keys) named; what the server checks after each update. */
export function checkTeamRoots(doc: Y.Doc, changed: ChangedRoots): TeamProblem[] {
  const problems: TeamProblem[] = [];
  for (const [name, keys] of changed) {
    const root = parseRootName(name);
    const report = (key: string | null, problem: string) =>
      problems.push({ root: name, key, problem });
    if (!root) {
      report(null, 'is not a root of the layout');
      continue;
    }
    if (root.kind === 'note' || root.kind === 'takeaway') {
      checkText(doc.getText(name), root.kind, report);
    } else {
      checkMap(doc.getMap<unknown>(name), root.kind, keys, report);
    }
  }
  return problems;
}

type Report = (key: string | null, problem: string) => void;

function checkText(text: Y.Text, kind: 'note' | 'takeaway', report: Report): void {
  // A text keeps its characters in its list; entries keyed like a map's have no place in it.
  for (const item of text._map.values()) {
    if (!item.deleted) {
      report(null, 'holds keyed entries, not only text');
      break;
    }
  }
  for (let item = text._start; item !== null; item = item.right) {
    if (!item.deleted && !(item.content instanceof Y.ContentString)) {
      report(null, 'holds something other than plain text (formatting, embeds or types)');
      break;
    }
  }
  const limit = kind === 'note' ? TEAM_LIMITS.hard.note : TEAM_LIMITS.hard.takeaway;
  if (text.length > limit) report(null, `is ${text.length} characters, over ${limit}`);
}

function checkMap(
  map: Y.Map<unknown>,
  kind: 'store' | 'tests',
  keys: Set<string> | null,
  report: Report,
): void {
  for (let item = map._start; item !== null; item = item.right) {
    if (!item.deleted) {
      report(null, 'holds list items, not only keyed records');
      break;
    }
  }
  const kinds = kind === 'store' ? STORE_KEYS : TEST_KEYS;
  /** Tests whose comments were added to, to count again. */
  const commented = new Set<string>();
  let annotated = keys === null;
  for (const key of keys ?? map._map.keys()) {
    const item = map._map.get(key);
    if (!item || item.deleted) continue; // a removed key is always allowed by the layout
    if (!(item.content instanceof Y.ContentAny)) {
      report(key, 'holds a type, a document or binary data, not a JSON record');
      continue;
    }
    let rest = key;
    if (kind === 'tests') {
      const split = splitTestKey(key);
      if (!split) {
        report(key, 'does not start with a valid test id and "/"');
        continue;
      }
      rest = split.rest;
      if (splitKey(rest).kind === 'comment') commented.add(split.testId);
    } else if (splitKey(key).kind === 'annotation') {
      annotated = true;
    }
    const spec = keySchema(kinds, rest);
    if ('problem' in spec) {
      report(key, spec.problem);
      continue;
    }
    const result = spec.schema.safeParse(map.get(key));
    if (!result.success) {
      report(key, `does not fit its schema: ${result.error.issues[0]?.message ?? 'invalid'}`);
      continue;
    }
    const value = result.data as { by?: unknown; author?: unknown };
    const { kind: keyKind } = splitKey(rest);
    // A member's own key holds that member's record, and only an author deletes their comment.
    if (
      spec.suffix !== null &&
      'by' in value &&
      isMemberKey(kinds, keyKind) &&
      value.by !== spec.suffix
    ) {
      report(key, `is written by "${String(value.by)}", not by the member the key names`);
    }
    if (keyKind === 'commentDeleted' && value.by !== value.author) {
      report(key, 'deletes a comment its author did not write');
    }
  }
  if (annotated) {
    let count = 0;
    for (const key of map.keys()) if (splitKey(key).kind === 'annotation') count += 1;
    const limit = TEAM_LIMITS.hard.annotations;
    if (count > limit) report(null, `holds ${count} annotations, over ${limit}`);
  }
  if (commented.size > 0 || (keys === null && kind === 'tests')) {
    const counts = new Map<string, number>();
    for (const key of map.keys()) {
      const split = splitTestKey(key);
      if (!split || splitKey(split.rest).kind !== 'comment') continue;
      if (keys !== null && !commented.has(split.testId)) continue;
      counts.set(split.testId, (counts.get(split.testId) ?? 0) + 1);
    }
    const limit = TEAM_LIMITS.hard.commentsPerTest;
    for (const [testId, count] of counts) {
      if (count > limit) report(null, `holds ${count} comments on ${testId}, over ${limit}`);
    }
  }
}

function isMemberKey(kinds: Record<string, { suffix: string }>, keyKind: string): boolean {
  return kinds[keyKind]?.suffix === 'member';
}

/** The name of a root type of `doc`, for mapping a transaction's changed types to roots. */
export function rootNameOf(doc: Y.Doc, type: Y.AbstractType<unknown>): string | null {
  for (const [name, shared] of doc.share) if (shared === type) return name;
  return null;
}
