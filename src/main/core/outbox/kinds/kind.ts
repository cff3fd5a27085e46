// The one shape every kind of outbox record has (test, campaign, tag, audience), after Replicache's
// mutator registry: each kind is one module (kinds/<kind>.ts) holding what its change may carry, what it
// is based on, how it is applied to the local copy and rebased on a server copy, and how it is sent;
// kinds/index.ts registers them, and the outbox's generic parts ask the registry instead of switching.
import type { z } from 'zod';
import type { Campaign, CustomAudience } from '#shared/api/index';
import type { ApiClient } from '../../api';
import type { Db } from '../../db/types';
import type { OutboxKind, PendingRecord } from '../model';

/** What a push gives its senders. */
export interface PushContext {
  db: Db;
  storeId: string;
  client: ApiClient;
  signal: AbortSignal;
  now(): string;
  /** Called after every change to the outbox, so the UI can refresh. */
  changed(): void;
}

/** What the store gave a create once it confirmed it (its id, and an audience's record when returned). */
export type Confirmed = { id: string; audience?: CustomAudience };

export interface SendContext extends PushContext {
  /** Counts one request of this push. */
  counted(): void;
  /** Runs `fn` in one transaction, then tells the UI the outbox changed. */
  tx(fn: () => void): void;
  /** The store's active campaigns, listed once per push (campaigns have no GET of their own). */
  activeCampaigns(): Promise<Campaign[]>;
  /** The record's local copy rebuilt as server copy + pending edits, by its kind (inside a tx). */
  rebase(record: Pick<PendingRecord, 'kind' | 'recordId'>): void;
  /** A create settled (confirmed, or null: dropped), by its kind (inside a tx). */
  settle(record: PendingRecord, confirmed: Confirmed | null): void;
}

/** How one record's attempt ended. */
export type SendOutcome = 'sent' | 'waiting' | 'conflict' | 'failed';

/** What a kind created here under a local id (tag, audience) does when the store's id is known. */
export interface CreateKindSpec {
  /** The local copy under the local id goes; the store's copy takes its place when confirmed. */
  replaceLocal(db: Db, record: PendingRecord, confirmed: Confirmed | null, now: string): void;
}

/** One kind of outbox record. */
export interface OutboxKindSpec<K extends OutboxKind = OutboxKind> {
  readonly kind: K;
  /**
   * What a change of this kind may carry: the bridge's own schema (shared/contract/edits.ts), the one
   * the RPC layer checks every edit and create against before it reaches the services and the queue.
   */
  readonly changes: z.ZodType;
  /** Set for kinds created here under a local id; null for edits of records the store holds. */
  readonly create: CreateKindSpec | null;
  /**
   * Whether a failure that says "later" keeps the attempt's mark when the write may have gone through,
   * so the next push checks the store before sending again.
   */
  readonly keepsAttempt: boolean;
  /**
   * The record's name in the pending list: the name (a test's title) its edit sets, else the server's,
   * else its id.
   */
  label(db: Db, record: PendingRecord): string;
  /** Whether an unsent create of this kind may still be renamed in place (see queue's renameCreatedTag). */
  readonly renamable: boolean;
  /** What the edit is based on: the server's record under the pending edits, null when unknown (or a create). */
  server(db: Db, storeId: string, recordId: string): unknown;
  /**
   * Rewrites the cache's copy of one record as the server's copy plus its pending edits (`record`,
   * null when none is left: the server's copy is restored and forgotten). Idempotent.
   */
  rebase(
    db: Db,
    storeId: string,
    recordId: string,
    record: PendingRecord | null,
    now: string,
  ): void;
  /** After the sync replaced the active campaigns (null: not listed) and the audiences. */
  rebasePulledLists(
    db: Db,
    record: PendingRecord,
    campaigns: readonly Campaign[] | null,
    now: string,
  ): void;
  /** Local ids of pending creates (in `local`) a change of this kind names: those are sent first. */
  localIdsNamed(changes: Record<string, unknown>, local: ReadonlySet<string>): string[];
  /** Sends one record: its PATCH or POST and whatever read-back settles it. */
  send(ctx: SendContext, record: PendingRecord): Promise<SendOutcome>;
}
