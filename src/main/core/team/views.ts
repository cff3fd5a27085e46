// What a change to a shared store's document touched (for the window's change events), and the copy of its notes and takeaways kept in the user file, so every reader of notes (search, reports, programme) sees the team's.
import type * as Y from 'yjs';
import { parseRootName, splitKey, splitTestKey, TESTS_ROOT } from '#shared/team/layout';
import { rootNameOf } from '#shared/team/check';
import type { TeamOwner } from '#shared/contract/index';
import { teamTestIds } from '#shared/team/records';
import { noteOf, takeawayOf } from '#shared/team/texts';
import { ownerOf } from '#shared/team/values';
import { commentsOf } from '#shared/team/comments';
import type { Db } from '../db/types';
import { getNote, noteKey, setNote } from '../db/user/notes';
import { hasTakeaways, setTakeaway, takeawaysFor } from '../db/user/takeaways';
import { readSettingRow, writeSettingRow } from '../db/user/settings';
import { copyOwners, type LinkRow } from '../db/user/team';

export interface Touched {
  /** Tests whose note, takeaway or records changed. */
  tests: Set<string>;
  /** Tests whose note or takeaway text changed (the ones the user file's copy follows). */
  texts: Set<string>;
  /** Tests whose owner changed (the "Mine" copy follows them). */
  owners: Set<string>;
  /** Tests whose planned length changed (the decisions' mirror follows them). */
  plans: Set<string>;
  /** A store-wide record changed (reviews, settings, annotations). */
  store: boolean;
}

/** Which tests a transaction on a team document changed, read from the root types it changed. */
export function touchedBy(doc: Y.Doc, transaction: Y.Transaction): Touched {
  const touched: Touched = {
    tests: new Set(),
    texts: new Set(),
    owners: new Set(),
    plans: new Set(),
    store: false,
  };
  for (const [type, keys] of transaction.changed) {
    // Only root types: the layout nests none (records are plain JSON values).
    if (type._item !== null) continue;
    const name = rootNameOf(doc, type as Y.AbstractType<unknown>);
    if (name === null) continue;
    if (name === TESTS_ROOT) {
      for (const key of keys) {
        const split = key === null ? null : splitTestKey(key);
        if (!split) continue;
        touched.tests.add(split.testId);
        // A keystroke in a note stamps `noteBy` too: only an owner's or a plan's key asks for those copies.
        const { kind } = splitKey(split.rest);
        if (kind === 'owner') touched.owners.add(split.testId);
        else if (kind === 'plan') touched.plans.add(split.testId);
      }
      continue;
    }
    const root = parseRootName(name);
    if (root === null) continue;
    if (root.kind === 'note' || root.kind === 'takeaway') {
      touched.tests.add(root.testId);
      touched.texts.add(root.testId);
    } else touched.store = true;
  }
  return touched;
}

/**
 * Writes the document's note and takeaway of each test into the user file where they differ, so a
 * shared store's notes are found by the test search and shown by reports and the programme as the
 * team's. Unchanged texts are not written again (their dates stay).
 */
export function mirrorTexts(
  db: Db,
  storeId: string,
  doc: Y.Doc,
  testIds: Iterable<string>,
  fallbackAt: string,
): void {
  if (db.readonly) return;
  // One write transaction for all of them: a first exchange brings hundreds of notes in one update.
  db.transaction(() => copyTexts(db, storeId, doc, testIds, fallbackAt)).immediate();
}

function copyTexts(
  db: Db,
  storeId: string,
  doc: Y.Doc,
  testIds: Iterable<string>,
  fallbackAt: string,
): void {
  const takeaways = hasTakeaways(db) ? takeawaysFor(db, storeId) : null;
  for (const testId of testIds) {
    const note = noteOf(doc, testId);
    if ((getNote(db, storeId, testId)?.body ?? '') !== note.text) {
      setNote(db, storeId, testId, note.text, note.updatedAt ?? fallbackAt);
    }
    if (takeaways) {
      const takeaway = takeawayOf(doc, testId);
      if ((takeaways.get(noteKey(storeId, testId))?.text ?? '') !== takeaway.text) {
        setTakeaway(db, storeId, testId, takeaway.text, takeaway.updatedAt ?? fallbackAt);
      }
    }
  }
}

/** Every test's owner in a document (tests without one left out): the test list's Owner column. */
export function ownersOf(doc: Y.Doc): TeamOwner[] {
  const out: TeamOwner[] = [];
  for (const testId of teamTestIds(doc)) {
    const owner = ownerOf(doc, testId);
    if (owner?.value) out.push({ testId, owner: owner.value, by: owner.by, at: owner.at });
  }
  return out;
}

/**
 * Writes the document's owners into the user file (`team_owners`), for `testIds` or, when null,
 * for the whole store: the test list's "Mine" filter is SQL over that copy.
 */
export function mirrorOwners(
  db: Db,
  storeId: string,
  doc: Y.Doc,
  testIds: Iterable<string> | null,
): void {
  if (db.readonly) return;
  const ids = testIds === null ? teamTestIds(doc) : [...testIds];
  const owners = new Map<string, string>();
  for (const testId of ids) {
    const owner = ownerOf(doc, testId)?.value;
    if (owner) owners.set(testId, owner);
  }
  copyOwners(db, storeId, owners, testIds === null ? null : ids);
}

/**
 * The comments new to `member` on each test: others' comments (not deleted) written or edited after
 * the member last saw the test's thread (`seen`, by test id). Tests without any are left out.
 */
export function commentNewsOf(
  doc: Y.Doc,
  member: string | null,
  seen: ReadonlyMap<string, string>,
): { testId: string; count: number }[] {
  const out: { testId: string; count: number }[] = [];
  for (const testId of teamTestIds(doc)) {
    const since = seen.get(testId) ?? '';
    const count = commentsOf(doc, testId).filter(
      (c) => c.deleted === null && c.author !== member && (c.editedAt ?? c.at) > since,
    ).length;
    if (count > 0) out.push({ testId, count });
  }
  return out;
}

/** The user.settings row listing the team stores whose texts and owners were copied whole once. */
const MIRRORED_KEY = 'teamMirrored';

function mirroredStores(db: Db): Set<string> {
  try {
    const value: unknown = JSON.parse(readSettingRow(db, MIRRORED_KEY) ?? '[]');
    return new Set(Array.isArray(value) ? value.filter((id) => typeof id === 'string') : []);
  } catch {
    return new Set();
  }
}

/**
 * Once per linked team store, when the app or the CLI opens its team: copies every note, takeaway
 * and owner of the document into the user file. Every change since is copied as it happens, but
 * texts shared before this desktop kept copies were not, so search, reports and the programme
 * missed them until they changed again. Unchanged texts are not written (their dates stay).
 */
export function mirrorOnce(
  db: Db,
  linked: readonly Pick<LinkRow, 'storeId' | 'teamStoreId'>[],
  docOf: (teamStoreId: string) => Y.Doc,
  at: string,
): void {
  if (db.readonly || linked.length === 0) return;
  const done = mirroredStores(db);
  const due = linked.filter((link) => !done.has(link.teamStoreId));
  if (due.length === 0) return;
  for (const link of due) {
    const doc = docOf(link.teamStoreId);
    mirrorTexts(db, link.storeId, doc, teamTestIds(doc), at);
    mirrorOwners(db, link.storeId, doc, null);
    done.add(link.teamStoreId);
  }
  writeSettingRow(db, MIRRORED_KEY, [...done].sort(), at);
}
