// `team.*`: the shared layer of a team (docs/team.md): joining a team server, sharing a store's layer, and the notes, comments, owners and sign-offs it holds.
import { z } from 'zod';
import { plainHttpAllowed } from '../domain/base-url';
import { DecisionCall } from '../domain/decisions/schemas';
import { MAX_NOTE_LENGTH } from './notes';
import { Empty, method, StoreId, StoreInput } from './common';
import { MAX_COMMENT_LENGTH, MemberName, TeamStoreId, TeamTestId } from '../domain/team-names';

/** The message shown when a plain ws:// address to another machine is refused. */
export const PLAIN_WS_REFUSED =
  'Plain ws:// would send the team token and your notes unencrypted across the network. Use wss://; ws:// is only accepted for this computer (localhost, 127.0.0.1, ::1).';

/** Why a team server address may not be used, or null when it may (wss, or ws to a loopback host). */
export function teamUrlProblem(address: string): string | null {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return 'A team server address is a ws:// or wss:// URL, e.g. wss://team.example.com.';
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    return 'A team server address starts with wss:// (or ws:// on this computer).';
  }
  if (url.protocol === 'ws:' && !plainHttpAllowed(url.hostname)) return PLAIN_WS_REFUSED;
  return null;
}

export const TeamUrl = z
  .string()
  .trim()
  .min(1, 'The team server address is required')
  .max(500)
  .superRefine((url, ctx) => {
    const problem = teamUrlProblem(url);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A member token as the server's `member add` printed it. */
export const TeamToken = z.string().trim().min(1, 'The member token is required').max(512);

export const TeamStoreStatus = z.object({
  storeId: StoreId,
  teamStoreId: TeamStoreId,
  /** Local updates the server has not confirmed yet (made offline, or since the last exchange). */
  waiting: z.int().nonnegative(),
  /** Why the server refused this store's document, or null. */
  refused: z.string().nullable(),
});

export const TeamStatus = z.object({
  joined: z.boolean(),
  url: z.string().nullable(),
  member: MemberName.nullable(),
  /** The socket to the server is open (only a window's host stays connected; the CLI's `team sync` connects). */
  connected: z.boolean(),
  /** When every shared store last matched the server's copy. */
  lastExchangeAt: z.string().nullable(),
  stores: z.array(TeamStoreStatus),
});
export type TeamStatus = z.infer<typeof TeamStatus>;

export const TeamNote = z.object({
  testId: z.string(),
  text: z.string(),
  updatedAt: z.string().nullable(),
  authors: z.array(z.object({ name: z.string(), at: z.string() })),
});
export type TeamNote = z.infer<typeof TeamNote>;

export const TeamComment = z.object({
  testId: z.string(),
  id: z.string(),
  author: z.string(),
  at: z.string(),
  text: z.string().nullable(),
  editedAt: z.string().nullable(),
  deleted: z.object({ by: z.string(), at: z.string() }).nullable(),
  editOverridden: z.boolean(),
});
export type TeamComment = z.infer<typeof TeamComment>;

const TestInput = StoreInput.extend({ testId: TeamTestId });

export const TeamOwner = z.object({
  testId: z.string(),
  owner: z.string().nullable(),
  by: z.string().nullable(),
  at: z.string().nullable(),
});
export type TeamOwner = z.infer<typeof TeamOwner>;

export const TeamSignOff = z.object({
  testId: z.string(),
  state: z.enum(['proposed', 'approved']).nullable(),
  call: DecisionCall.nullable(),
  proposedBy: z.string().nullable(),
  proposedAt: z.string().nullable(),
  approvedBy: z.string().nullable(),
  approvedAt: z.string().nullable(),
});
export type TeamSignOff = z.infer<typeof TeamSignOff>;

/** Who set a shared store's decision settings and each test's planned length, and when (the last writer's). */
export const TeamDecisionStamps = z.object({
  settings: z.object({ by: z.string(), at: z.string() }).nullable(),
  plans: z.array(
    z.object({
      testId: z.string(),
      plannedDays: z.int().nullable(),
      by: z.string(),
      at: z.string(),
    }),
  ),
});
export type TeamDecisionStamps = z.infer<typeof TeamDecisionStamps>;

/** A team store this member was granted but has not linked, whose tests one of the desktop's stores holds. */
export const TeamLinkOffer = z.object({
  storeId: StoreId,
  storeName: z.string(),
  teamStoreId: TeamStoreId,
  sharedBy: z.string(),
  sharedAt: z.string(),
  /** Tests of the team's copy that this store holds too (matched on test ids, never on keys). */
  matchingTests: z.int().nonnegative(),
  /** Tests the team's copy has anything on (notes, comments, owners, …). */
  teamTests: z.int().nonnegative(),
});
export type TeamLinkOffer = z.infer<typeof TeamLinkOffer>;

/** Who else has each shared store open in a window (by local store id; stores nobody else has open are left out). */
export const TeamPresence = z.object({
  /** The other members with each shared store open (stores with none left out). */
  stores: z.array(z.object({ storeId: StoreId, members: z.array(z.string()) })),
  /** The other members connected on any store this desktop shares, names sorted. */
  online: z.array(z.string()),
});
export type TeamPresence = z.infer<typeof TeamPresence>;

/** One member's last review of a shared store (the layer's review marks). */
export const TeamReview = z.object({ by: z.string(), at: z.string() });
export type TeamReview = z.infer<typeof TeamReview>;

export const TEAM_CHANGE_KINDS = [
  'note',
  'takeaway',
  'comment',
  'commentEdited',
  'commentDeleted',
  'review',
  'owner',
  'signOff',
  'annotation',
] as const;

/** One line of the Changes view's team section: what another member did in a shared store, and when. */
export const TeamChange = z.object({
  kind: z.enum(TEAM_CHANGE_KINDS),
  /** The test it touched; null for the store's own records (a review, an annotation). */
  testId: z.string().nullable(),
  testTitle: z.string().nullable(),
  by: z.string(),
  at: z.string(),
  /** The line as a sentence, naming who ("bob edited the note"). */
  summary: z.string(),
});
export type TeamChange = z.infer<typeof TeamChange>;

/** A shared store's team changes by others since my last review, newest first. */
export const TeamStoreChanges = z.object({
  storeId: StoreId,
  /** My last review of the store (null: never reviewed: every change by others is listed). */
  since: z.string().nullable(),
  /** Who else reviewed the store and when, latest first (me left out). */
  reviews: z.array(TeamReview),
  /** Every change by others since then; `changes` holds the newest TEAM_CHANGES_PAGE of them. */
  count: z.int().nonnegative(),
  changes: z.array(TeamChange),
});
export type TeamStoreChanges = z.infer<typeof TeamStoreChanges>;

/** The team section lists at most this many lines a store. */
export const TEAM_CHANGES_PAGE = 200;

export const team = {
  status: method(Empty, TeamStatus),
  /** Checks the token with the server, keeps it in the OS keychain, and connects (a window's host). */
  join: method(z.object({ url: TeamUrl, token: TeamToken }), TeamStatus),
  /** Forgets the token and disconnects; every shared store's copy stays on this desktop. */
  leave: method(Empty, TeamStatus),
  /** Shares a store's layer with the team: a new team store, its notes copied in. */
  share: method(StoreInput, z.object({ teamStoreId: TeamStoreId })),
  /** Links this desktop's copy of a store a colleague shared. */
  link: method(
    StoreInput.extend({ teamStoreId: TeamStoreId }),
    z.object({ teamStoreId: TeamStoreId }),
  ),
  /**
   * Stops sharing a store on this desktop: its notes, takeaways, annotations, settings and plans stay
   * in the user file as local data; the team's copy (and every colleague's) is untouched.
   */
  unlink: method(StoreInput, z.object({ teamStoreId: TeamStoreId })),
  /** Connects, exchanges until both sides hold the same state, and (unless connected already) disconnects. */
  sync: method(
    z.object({ timeoutMs: z.int().min(100).max(600_000).default(20_000) }),
    z.object({ stores: z.int().nonnegative(), lastExchangeAt: z.string() }),
  ),
  /** The store's notes: the team's for a shared store, the local ones otherwise. */
  notes: method(StoreInput, z.array(TeamNote)),
  setNote: method(
    TestInput.extend({ text: z.string().max(MAX_NOTE_LENGTH), append: z.boolean().default(false) }),
    TeamNote,
  ),
  comments: method(StoreInput.extend({ testId: TeamTestId.nullable() }), z.array(TeamComment)),
  addComment: method(TestInput.extend({ text: z.string().max(MAX_COMMENT_LENGTH) }), TeamComment),
  editComment: method(
    TestInput.extend({ id: z.string().max(64), text: z.string().max(MAX_COMMENT_LENGTH) }),
    TeamComment,
  ),
  deleteComment: method(TestInput.extend({ id: z.string().max(64) }), TeamComment),
  owner: method(TestInput, TeamOwner),
  setOwner: method(TestInput.extend({ owner: MemberName.nullable() }), TeamOwner),
  /** Signs off the test's current call: approves the proposal, or proposes and approves it at once. */
  signOff: method(TestInput, TeamSignOff),
  /** The test's sign-off as it stands (state null: not signed off). */
  signOffState: method(TestInput, TeamSignOff),
  /** Every owner set in a shared store (one call for the test list; none for a store not shared). */
  owners: method(StoreInput, z.array(TeamOwner)),
  /** Each test's comments new to me (others', since I last saw its thread); none for a store not shared. */
  commentNews: method(
    StoreInput,
    z.array(z.object({ testId: TeamTestId, count: z.int().positive() })),
  ),
  /** The test's thread was shown to me now: its comments are no longer new. */
  markCommentsSeen: method(TestInput, Empty),
  /** Team stores granted and not linked whose tests a store here holds: the link offered. */
  linkOffers: method(
    z.object({ storeId: StoreId.nullable().default(null) }).default({ storeId: null }),
    z.object({
      offers: z.array(TeamLinkOffer),
      /** Team stores granted to this member and linked to no store here (0 when not joined). */
      unlinkedTeamStores: z.int().nonnegative(),
    }),
  ),
  /** The store the window shows (null: none), published to the team; who else has stores open. */
  setOpen: method(z.object({ storeId: StoreId.nullable() }), TeamPresence),
  /** Proposes the test's current call for sign-off (a colleague approves it with signOff). */
  proposeSignOff: method(TestInput, TeamSignOff),
  /** The Changes view's team section: per shared store (one, or all with null), others' changes since my last review. */
  changes: method(
    z.object({ storeId: StoreId.nullable().default(null) }),
    z.object({ stores: z.array(TeamStoreChanges) }),
  ),
  /** Who set the store's decision settings and each test's plan, and when (empty for a store not shared). */
  decisionStamps: method(StoreInput, TeamDecisionStamps),
};
