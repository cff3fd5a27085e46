// `review.*`: what changed since the last review (or a date), marking stores reviewed, and one test's history.
import { z } from 'zod';
import { method, StoreId } from './common';
import { TestRef } from './tests';

export const CHANGE_KINDS = [
  'added',
  'started',
  'paused',
  'ended',
  'status',
  'removed',
  'restored',
  'tier',
  'leader',
  'probability',
  'field',
] as const;
export const ChangeKind = z.enum(CHANGE_KINDS);
export type ChangeKind = z.infer<typeof ChangeKind>;

export const ChangeValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export type ChangeValue = z.infer<typeof ChangeValue>;

/** One line of the Changes view: what changed on a test, from what to what. */
export const ChangeLine = z.object({
  storeId: StoreId,
  storeName: z.string(),
  testId: z.string(),
  testTitle: z.string(),
  kind: ChangeKind,
  /** The field that changed ('status', 'tier', 'tier:2', 'title', …). */
  field: z.string(),
  from: ChangeValue,
  to: ChangeValue,
  /** When the sync that saw the (last) change ran. */
  at: z.string(),
  /** The line as a sentence, for the CLI and screen readers. */
  summary: z.string(),
  /**
   * The user's own edit, not a change made elsewhere: 'sent' when Splitbook sent it and the store
   * confirmed it, 'unsent' while it waits to be sent; null for a change made on the server.
   */
  own: z.enum(['sent', 'unsent']).nullable(),
});
export type ChangeLine = z.infer<typeof ChangeLine>;

/** Probability moves smaller than this (absolute, 0..1) are not listed. */
export const DEFAULT_PROBABILITY_THRESHOLD = 0.1;

export const ChangesInput = z.object({
  storeId: StoreId.nullable().default(null),
  /** ISO date or date-time; null: since each store's last review. */
  since: z
    .string()
    .max(40)
    .refine((value) => !Number.isNaN(Date.parse(value)), 'Expected a date')
    .nullable()
    .default(null),
  probabilityThreshold: z.number().min(0).max(1).default(DEFAULT_PROBABILITY_THRESHOLD),
  /**
   * A page: per store, the newest this many lines of changes made elsewhere, and as many of the user's
   * own edits (absent or null: every line). The stores' counts always count every line.
   */
  limit: z.int().min(1).max(1_000_000).nullable().optional(),
  /** Stores listed whole whatever the limit (the view's "Show all"). */
  allLinesOf: z.array(StoreId).max(10_000).optional(),
});
export type ChangesInput = z.infer<typeof ChangesInput>;

export const StoreChanges = z.object({
  storeId: StoreId,
  storeName: z.string(),
  /** The start of the window: the last review, the given date, or the store's first sync. */
  since: z.string().nullable(),
  reviewedAt: z.string().nullable(),
  /** Changes made elsewhere: what there is to review. */
  count: z.int(),
  /** The user's own edits in the same window, listed apart. */
  ownCount: z.int(),
});
export type StoreChanges = z.infer<typeof StoreChanges>;

export const ChangesReport = z.object({
  stores: z.array(StoreChanges),
  lines: z.array(ChangeLine),
});
export type ChangesReport = z.infer<typeof ChangesReport>;

export const HistoryEntry = z.object({
  at: z.string(),
  baseline: z.boolean(),
  status: z.string(),
  tier: z.string().nullable(),
  leader: z.string().nullable(),
  probabilityToWin: z.number().nullable(),
  lift: z.number().nullable(),
  visitorsControl: z.number().nullable(),
  visitorsVariant: z.number().nullable(),
  removed: z.boolean(),
  /** What this snapshot changed: field -> [from, to]. */
  changes: z.array(z.object({ field: z.string(), from: ChangeValue, to: ChangeValue })),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

export const review = {
  changes: method(ChangesInput, ChangesReport),
  /** Marks one store (or, with null, every store) reviewed as of now. */
  markReviewed: method(
    z.object({ storeId: StoreId.nullable().default(null) }),
    z.object({ reviewedAt: z.string(), storeIds: z.array(StoreId) }),
  ),
  history: method(TestRef, z.array(HistoryEntry)),
};
