// The layout of one shared store's Y.Doc: its root names, the keys of its maps, the bounds and the zod schema of every value.
//
// Everything a store's team shares lives in one Y.Doc, named by its team store id. A test's texts (its
// note, its takeaway) are ROOT types named after the test, never types nested in a map: two desktops
// that create `map.set(testId, new Y.Text())` offline each make their own text and one of them is lost
// at the merge, while two `doc.getText('note:' + testId)` are the same text. Every other record is a
// plain JSON value (never a nested type) in one of two maps, `store` and `tests` (keys
// `<testId>/<kind>[/<member or id>]`), each checked by the schema of its key's kind. Not a map per
// test: Yjs finds a root's name by walking every root each time it encodes an item at the top of one,
// so a root per test's records made encoding a 2,000-test store five times slower (445 ms, not 88).
import { z } from 'zod';
import { MAX_NOTE_LENGTH } from '../contract/notes';
import { MAX_TAKEAWAY_LENGTH } from '../contract/programme';
import { DecisionCall, DecisionSettingsPatch } from '../domain/decisions/schemas';
import { MAX_COMMENT_LENGTH, MemberName, TEAM_NAME_LENGTH, TeamTestId } from '../domain/team-names';

/** The layout's version, kept in the store map's `schema` key; a desktop refuses a newer one. */
export const TEAM_SCHEMA_VERSION = 1;

/**
 * What a desktop may write (the helpers refuse more), and what the server accepts (`hard`): looser,
 * because concurrent edits that each keep within a bound can merge past it (two offline appends to a
 * 15,000-character note), and a merged copy the server refused could never be sent again.
 */
export const TEAM_LIMITS = {
  testId: TEAM_NAME_LENGTH,
  member: TEAM_NAME_LENGTH,
  id: TEAM_NAME_LENGTH,
  note: MAX_NOTE_LENGTH,
  takeaway: MAX_TAKEAWAY_LENGTH,
  comment: MAX_COMMENT_LENGTH,
  annotationLabel: 200,
  commentsPerTest: 1_000,
  annotations: 5_000,
  hard: { note: 200_000, takeaway: 5_000, commentsPerTest: 10_000, annotations: 50_000 },
} as const;

// ---------- names ----------

// The names live beside the contract (zod only), which names them too; the layout re-exports them.
export { MemberName, TeamStoreId, TeamTestId } from '../domain/team-names';

/** The id of a comment or an annotation (a UUID from the desktop that made it). */
export const RecordId = z
  .string()
  .min(1)
  .max(TEAM_LIMITS.id)
  .regex(/^[A-Za-z0-9._~-]+$/);

/** An ISO 8601 instant with its offset, as `new Date().toISOString()` writes it. */
export const Instant = z.iso.datetime({ offset: true });

// ---------- roots ----------

/** The store's records (schema, reviews, decision settings, annotations): a Y.Map. */
export const STORE_ROOT = 'store';
/** Every test's records (owner, plan, sign-off, comments, who edited its texts): a Y.Map keyed `<testId>/<kind>[/…]`. */
export const TESTS_ROOT = 'tests';
/** `note:<testId>`: the test's note, a Y.Text. */
export const NOTE_PREFIX = 'note:';
/** `takeaway:<testId>`: the test's one-line takeaway, a Y.Text. */
export const TAKEAWAY_PREFIX = 'takeaway:';

export type RootName = { kind: 'store' | 'tests' } | { kind: 'note' | 'takeaway'; testId: string };

export const noteRoot = (testId: string) => `${NOTE_PREFIX}${testId}`;
export const takeawayRoot = (testId: string) => `${TAKEAWAY_PREFIX}${testId}`;

/** What a root's name says it holds, or null for a name the layout has no place for. */
export function parseRootName(name: string): RootName | null {
  if (name === STORE_ROOT) return { kind: 'store' };
  if (name === TESTS_ROOT) return { kind: 'tests' };
  for (const [prefix, kind] of [
    [NOTE_PREFIX, 'note'],
    [TAKEAWAY_PREFIX, 'takeaway'],
  ] as const) {
    if (name.startsWith(prefix)) {
      const testId = name.slice(prefix.length);
      return TeamTestId.safeParse(testId).success ? { kind, testId } : null;
    }
  }
  return null;
}

// ---------- values ----------

/** Who wrote a single value and when: the reader keeps the latest of the candidates left. */
export const stamped = <T extends z.ZodType>(value: T) =>
  z.strictObject({ value, by: MemberName, at: Instant });

export const SchemaMark = z.strictObject({ version: z.int().min(1) });
/** One member's last review of the store. */
export const ReviewMark = z.strictObject({ at: Instant });
export const StampedSettings = stamped(DecisionSettingsPatch);
export const Annotation = z.strictObject({
  day: z.iso.date(),
  label: z.string().trim().min(1).max(TEAM_LIMITS.annotationLabel),
  by: MemberName,
  at: Instant,
});
export type Annotation = z.infer<typeof Annotation>;

export const StampedOwner = stamped(MemberName.nullable());
/** A test's own planned length in days (null: none of its own), as `decisions.setPlan` takes it. */
export const StampedPlan = stamped(z.int().min(7).max(365).nullable());

/** A call proposed for sign-off and, once approved, by whom and when. */
export const SignOff = z.strictObject({
  call: DecisionCall,
  proposedBy: MemberName,
  proposedAt: Instant,
  approvedBy: MemberName.nullable(),
  approvedAt: Instant.nullable(),
});
export type SignOff = z.infer<typeof SignOff>;
export const StampedSignOff = stamped(SignOff.nullable());

/** A comment as its author last wrote it; `rev` counts its edits (0: as posted). */
export const Comment = z.strictObject({
  author: MemberName,
  at: Instant,
  text: z.string().min(1).max(TEAM_LIMITS.comment),
  editedAt: Instant.nullable(),
  rev: z.int().min(0),
});
export type Comment = z.infer<typeof Comment>;

/** A deleted comment's mark: kept apart from the comment, so an edit made meanwhile cannot undo it. */
export const CommentDeletion = z.strictObject({
  author: MemberName,
  postedAt: Instant,
  by: MemberName,
  at: Instant,
  /** The comment's `rev` the deleter saw: a larger one left beside the mark is an edit the deletion overrode. */
  rev: z.int().min(0),
});
export type CommentDeletion = z.infer<typeof CommentDeletion>;

/** When a member last edited a text (a note or a takeaway). */
export const TextEdit = z.strictObject({ at: Instant });

// ---------- keys ----------

/** A map key's kind: `kind` alone, or `kind/<member>` / `kind/<id>`, with its value's schema. */
interface KeyKind {
  suffix: 'none' | 'member' | 'id';
  value: z.ZodType;
}

export const STORE_KEYS = {
  schema: { suffix: 'none', value: SchemaMark },
  review: { suffix: 'member', value: ReviewMark },
  settings: { suffix: 'member', value: StampedSettings },
  annotation: { suffix: 'id', value: Annotation },
} as const satisfies Record<string, KeyKind>;

export const TEST_KEYS = {
  owner: { suffix: 'member', value: StampedOwner },
  plan: { suffix: 'member', value: StampedPlan },
  signOff: { suffix: 'member', value: StampedSignOff },
  comment: { suffix: 'id', value: Comment },
  commentDeleted: { suffix: 'id', value: CommentDeletion },
  noteBy: { suffix: 'member', value: TextEdit },
  takeawayBy: { suffix: 'member', value: TextEdit },
} as const satisfies Record<string, KeyKind>;

export type StoreKeyKind = keyof typeof STORE_KEYS;
export type TestKeyKind = keyof typeof TEST_KEYS;

export const mapKey = (kind: string, suffix?: string) =>
  suffix === undefined ? kind : `${kind}/${suffix}`;

/** The prefix of one test's keys in the `tests` map. */
export const testKeyPrefix = (testId: string) => `${testId}/`;

/** A `tests` key split into its test and the rest (`<kind>[/…]`), or null when it names no test. */
export function splitTestKey(key: string): { testId: string; rest: string } | null {
  const slash = key.indexOf('/');
  if (slash < 0) return null;
  const testId = key.slice(0, slash);
  return TeamTestId.safeParse(testId).success ? { testId, rest: key.slice(slash + 1) } : null;
}

/** A key split into its kind and suffix (a member name may hold '/', a kind never does). */
export function splitKey(key: string): { kind: string; suffix: string | null } {
  const slash = key.indexOf('/');
  return slash < 0
    ? { kind: key, suffix: null }
    : { kind: key.slice(0, slash), suffix: key.slice(slash + 1) };
}

/** The schema of a key's value in a map of `kinds`, or a sentence saying why the key has no place. */
export function keySchema(
  kinds: Record<string, KeyKind>,
  key: string,
): { schema: z.ZodType; suffix: string | null } | { problem: string } {
  const { kind, suffix } = splitKey(key);
  const spec = Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
  if (!spec) return { problem: `has no key kind "${kind}"` };
  if (spec.suffix === 'none') {
    return suffix === null
      ? { schema: spec.value, suffix }
      : { problem: `"${kind}" takes no suffix` };
  }
  const suffixSchema = spec.suffix === 'member' ? MemberName : RecordId;
  if (suffix === null || !suffixSchema.safeParse(suffix).success) {
    return { problem: `"${key}" needs a valid ${spec.suffix} after "${kind}/"` };
  }
  return { schema: spec.value, suffix };
}
