// The registry of outbox kinds: one module each (see kind.ts), looked up by a record's kind. The
// outbox's generic parts (queue, rebase, push) ask it what a kind does instead of switching on the kind.
import type { OutboxKind, PendingRecord } from '../model';
import { audienceKind } from './audience';
import { campaignKind } from './campaign';
import type { OutboxKindSpec } from './kind';
import { tagKind } from './tag';
import { testKind } from './test';

export type { Confirmed, CreateKindSpec, OutboxKindSpec, PushContext, SendContext } from './kind';
export type { SendOutcome } from './kind';

/** Every kind, by name: the type makes a kind added to the bridge's list a compile error until it is here. */
export const KINDS: { readonly [K in OutboxKind]: OutboxKindSpec<K> } = {
  test: testKind,
  campaign: campaignKind,
  tag: tagKind,
  audience: audienceKind,
};

export function kindOf(kind: OutboxKind): OutboxKindSpec {
  return KINDS[kind];
}

/** Kinds created here with a local id until the store gives its own. */
export function isCreate(kind: OutboxKind): boolean {
  return KINDS[kind].create !== null;
}

/**
 * A create the store has certainly not received, so its name may still change: never attempted, or
 * refused (a refusal is a definite answer). One attempted without an answer may exist in the store.
 */
export function isUnsentCreate(
  record: Pick<PendingRecord, 'kind' | 'state' | 'attemptedAt'>,
): boolean {
  if (!isCreate(record.kind)) return false;
  return record.state === 'failed' || (record.state === 'queued' && record.attemptedAt === null);
}
