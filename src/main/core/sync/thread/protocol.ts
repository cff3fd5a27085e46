// The messages between the sync thread (worker.ts) and the core on the main thread (engine.ts).
import type { SyncProgress, SyncReport } from '../../../../shared/contract';
import type { Problem } from '../../../../shared/problem';
import type { PushSummary } from '../../outbox';

/** What the sync thread needs to open the same files the core has open. */
export interface SyncThreadInit {
  cacheFile: string;
  userDataFile: string;
  dataDir: string;
  perPage?: number;
  resultsConcurrency?: number;
  /** Simulator settings of the demo store: the thread serves it, since only syncs talk to it. */
  demo?: { tests?: number; seed?: number };
}

/** Where the sync thread's code is: the built file in the app, the TypeScript source under tsx. */
export interface SyncThreadOptions {
  file: string;
  execArgv?: string[];
}

export type ToThread =
  | { type: 'run'; storeId: string }
  | { type: 'cancel'; storeId: string }
  | { type: 'cancelAll'; id: number }
  | { type: 'push'; id: number; storeId: string }
  | { type: 'key'; id: number; key: string | null; problem: Problem | null }
  | { type: 'close' };

export type FromThread =
  | { type: 'progress'; progress: SyncProgress }
  | { type: 'finished'; report: SyncReport }
  | { type: 'editsChanged'; storeId: string }
  | { type: 'pushed'; id: number; summary: PushSummary | null }
  | { type: 'cancelledAll'; id: number }
  /** The thread needs a store's key: the keychain stays with the main thread. */
  | { type: 'key'; id: number; storeId: string; storeName: string }
  /** The thread could not open the cache: every run it is asked for ends with this problem. */
  | { type: 'unusable'; problem: Problem };
