// The checker of a shared store's Y.Doc against its layout (layout.ts): what the server runs on a copy before it accepts an update.
import * as Y from 'yjs';
import { STORE_KEYS, TEAM_LIMITS, TEST_KEYS, keySchema, parseRootName, splitKey } from './layout';

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
  kind: 'store' | 'test',
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
  for (const key of keys ?? map._map.keys()) {
    const item = map._map.get(key);
    if (!item || item.deleted) continue; // a removed key is always allowed by the layout
    if (!(item.content instanceof Y.ContentAny)) {
      report(key, 'holds a type, a document or binary data, not a JSON record');
      continue;
    }
    const spec = keySchema(kinds, key);
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
    const { kind: keyKind } = splitKey(key);
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
  if (keys === null || [...keys].some((key) => countedKind(kind, key))) {
    const counted = kind === 'store' ? 'annotation' : 'comment';
    const limit =
      kind === 'store' ? TEAM_LIMITS.hard.annotations : TEAM_LIMITS.hard.commentsPerTest;
    let count = 0;
    for (const key of map.keys()) if (splitKey(key).kind === counted) count += 1;
    if (count > limit) report(null, `holds ${count} ${counted}s, over ${limit}`);
  }
}

function isMemberKey(kinds: Record<string, { suffix: string }>, keyKind: string): boolean {
  return kinds[keyKind]?.suffix === 'member';
}

function countedKind(kind: 'store' | 'test', key: string): boolean {
  return splitKey(key).kind === (kind === 'store' ? 'annotation' : 'comment');
}

/** The name of a root type of `doc`, for mapping a transaction's changed types to roots. */
export function rootNameOf(doc: Y.Doc, type: Y.AbstractType<unknown>): string | null {
  for (const [name, shared] of doc.share) if (shared === type) return name;
  return null;
}
