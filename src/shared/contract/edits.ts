// `edits.*`: changes made in Splitbook (tests, campaigns, new tags and audiences), kept in a durable
// outbox until the store confirms them, with their state, conflicts and the user's decisions.
import { z } from 'zod';
import { Rule, UpdateTestBody } from '../api';
import { Problem } from '../problem';
import { RecordName, TEXT_LIMITS } from '../domain/input-rules';
import { method, ScopeInput, StoreId } from './common';

export const EDIT_KINDS = ['test', 'campaign', 'tag', 'audience'] as const;
export const EditKind = z.enum(EDIT_KINDS);
export type EditKind = z.infer<typeof EditKind>;

/** queued: will be sent (or waits for the store); sending: in flight; waiting: on a create or a tag's id; failed: refused; conflict: changed on both sides. */
export const EDIT_STATES = ['queued', 'sending', 'waiting', 'failed', 'conflict'] as const;
export const EditState = z.enum(EDIT_STATES);
export type EditState = z.infer<typeof EditState>;

export const FieldChange = z.object({
  field: z.string(),
  /** The server's value when the edit was made (absent for creates). */
  base: z.unknown(),
  mine: z.unknown(),
  /** When held as a conflict: the store's value now. */
  theirs: z.unknown().optional(),
  conflict: z.boolean(),
});
export type FieldChange = z.infer<typeof FieldChange>;

/** One record's pending changes (its edits collapsed, as they will be sent). */
export const PendingEdit = z.object({
  storeId: StoreId,
  kind: EditKind,
  recordId: z.string(),
  /** The test's title, the campaign's or the new tag's or audience's name. */
  label: z.string(),
  state: EditState,
  /** Plain words about the state: "Waiting to be sent", what it waits for, a conflict's explanation. */
  note: z.string().nullable(),
  problem: Problem.nullable(),
  changes: z.array(FieldChange),
  /** The individual edits, oldest first: each can be undone. */
  edits: z.array(z.object({ seq: z.int(), fields: z.array(z.string()), createdAt: z.string() })),
  /** A campaign that left the active list: it cannot be re-read before sending. */
  gone: z.boolean(),
  /**
   * A tag created here that the store has certainly not received (never sent, or refused): it can
   * still be renamed (edits.renameTag) or removed (discard). Tags cannot be deleted through the API.
   */
  renamable: z.boolean(),
  /** Names of the ids the changes name (tags, custom audiences, a campaign), as cached: id -> name. */
  names: z.record(z.string(), z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type PendingEdit = z.infer<typeof PendingEdit>;

export const EditCounts = z.object({
  storeId: StoreId,
  /** Records not yet confirmed by the store, failed and conflicting ones included. */
  pending: z.int(),
  /** Of those, refused by the store. */
  failed: z.int(),
  conflicts: z.int(),
  /** Set when the store refused a write with 403: its key is read-only. */
  readOnly: z.string().nullable(),
});
export type EditCounts = z.infer<typeof EditCounts>;

const RecordRef = z.object({ storeId: StoreId, kind: EditKind, recordId: z.string().min(1) });

/** Only the fields given change; null clears a field, leaving a field out leaves it untouched. */
export const TestChanges = UpdateTestBody.omit({ variant: true });

export const PushSummary = z.object({
  storeId: StoreId,
  sent: z.int(),
  failed: z.int(),
  conflicts: z.int(),
  waiting: z.int(),
  problem: Problem.nullable(),
});
export type PushSummary = z.infer<typeof PushSummary>;

export const edits = {
  list: method(ScopeInput, z.array(PendingEdit)),
  counts: method(ScopeInput, z.array(EditCounts)),
  editTest: method(
    z.object({ storeId: StoreId, testId: z.string().min(1), changes: TestChanges }),
    PendingEdit,
  ),
  editCampaign: method(
    z.object({
      storeId: StoreId,
      campaignId: z.string().min(1),
      changes: z.strictObject({
        name: z
          .string()
          .trim()
          .min(1, 'A campaign needs a name')
          .max(TEXT_LIMITS.name, `A name is at most ${TEXT_LIMITS.name} characters`)
          .optional(),
        objective: z.string().max(TEXT_LIMITS.longText).nullable().optional(),
        goal: z.string().max(TEXT_LIMITS.short).nullable().optional(),
      }),
    }),
    PendingEdit,
  ),
  createTag: method(
    z.object({ storeId: StoreId, name: RecordName }),
    z.object({ id: z.string(), name: z.string() }),
  ),
  /** A tag created here, renamed before the store received it (see PendingEdit.renamable). */
  renameTag: method(
    z.object({
      storeId: StoreId,
      tagId: z.string().min(1),
      name: RecordName,
    }),
    z.object({ id: z.string(), name: z.string() }),
  ),
  createAudience: method(
    z.object({
      storeId: StoreId,
      // Audience names match exactly (the API's rule): not trimmed.
      name: z
        .string()
        .min(1, 'Name is required')
        .max(TEXT_LIMITS.name, `A name is at most ${TEXT_LIMITS.name} characters`),
      rules: z.array(Rule).default([]),
    }),
    z.object({ id: z.string(), name: z.string() }),
  ),
  retry: method(RecordRef, PendingEdit.nullable()),
  discard: method(RecordRef, z.null()),
  undo: method(z.object({ seq: z.int() }), z.null()),
  resolveConflict: method(
    RecordRef.extend({
      /** A field of the conflict; for a campaign that left the active list, '*'. */
      field: z.string().min(1),
      choice: z.enum(['mine', 'theirs', 'value']),
      value: z.unknown().optional(),
    }),
    PendingEdit.nullable(),
  ),
  /** Sends what waits now (the connection came back); resolves when the pushes end. */
  push: method(ScopeInput, z.array(PushSummary)),
};
